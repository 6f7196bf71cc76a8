"""Files other registries publish, kept byte for byte as evidence, and read by their format.

Each format (today Every Eval Ever) is a package of its own implementing one protocol
(:mod:`.format`): how its files are checked, how its nodes are identified, how a file
becomes graphs and records become a file again. :mod:`.formats` registers them once and is
where every feature finds them. :mod:`.jsondoc` reads JSON with its numbers as written and
names places by JSON Pointer; :mod:`.kept` and :mod:`.sources` are where kept files lie and
what an import reads, whatever their format.
"""
