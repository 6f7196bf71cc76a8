"""Tally what the ``nanopub`` library (nanopub-py) says of nanopublication files: its
trusty URI check and its signature check, each as accepted, refused or failed (the
exception's name), per glob pattern.

It is not a test dependency: nanopub 2.0.1 reads graphs through rdflib's API as it was
before 7 (``URIRef.identifier``), and claimgraph uses rdflib 7, so it runs in a virtual
environment of its own::

    python3 -m venv /tmp/npvenv && /tmp/npvenv/bin/pip install nanopub 'rdflib<7'
    kg keys -o /tmp/np.pem
    KG_NANOPUB_KEY=/tmp/np.pem kg export --all --format nanopub -o /tmp/np
    /tmp/npvenv/bin/python scripts/nanopub_py_check.py \
        'tests/fixtures/nanopub-testsuite/valid/signed/*.trig' /tmp/np/nanopubs.trig

A file of several nanopublications (the dump) is checked one nanopublication at a time.
"""

from __future__ import annotations

import collections
import glob
import sys

NP = "http://www.nanopub.org/nschema#"


def nanopubs(path: str) -> list:
    """Each nanopublication of a TriG file, as a graph of its four graphs."""
    import rdflib

    every = rdflib.ConjunctiveGraph()
    every.parse(path, format="trig")
    typed = (None, rdflib.RDF.type, rdflib.URIRef(NP + "Nanopublication"))
    heads = {(context.identifier, s) for s, _, _, context in every.quads(typed)}
    if len(heads) == 1:
        return [every]  # as it was read, with its prefixes (the library reads them)
    found = []
    for head, iri in sorted(heads):
        graph = rdflib.ConjunctiveGraph()
        graph.bind("this", iri)  # what kg writes each with (kg.export.nanopubs.nanopub_trig)
        graph.bind("sub", iri + "/")
        names = [head, *every.get_context(head).objects()]
        for name in names:
            for triple in every.get_context(name):
                graph.get_context(name).add(triple)
        found.append(graph)
    return found


def verdicts(graph: object) -> tuple[object, object]:
    """(trusty, signature): True, False, or the name of what the check raised."""
    from nanopub import Nanopub

    nanopub = Nanopub(rdf=graph)
    said: list[object] = []
    for check in ("has_valid_trusty", "has_valid_signature"):
        try:
            said.append(bool(getattr(nanopub, check)))
        except Exception as exc:  # the library's own refusals are exceptions
            said.append(type(exc).__name__)
    return said[0], said[1]


def main(patterns: list[str]) -> int:
    for pattern in patterns:
        each = [graph for path in sorted(glob.glob(pattern)) for graph in nanopubs(path)]
        tally = collections.Counter(verdicts(graph) for graph in each)
        print(f"{pattern}: {len(each)} nanopublications")
        for (trusty, signature), count in tally.most_common():
            print(f"  trusty {trusty}, signature {signature}: {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
