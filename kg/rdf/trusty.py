"""Trusty URIs of RDF content, module ``RA`` (Trusty URI specification, version 1): an IRI
that ends in a hash of the quads it names, so that any change to them breaks the name.

The hash is SHA-256 over the quads in a fixed order and form, the artifact code wherever it
occurs in an IRI replaced by a single space first (the content names itself):

- each quad as four lines: graph, subject, predicate, object; an IRI as itself, a literal
  as ``@lang value`` or ``^datatype value`` (backslashes and line breaks escaped), the
  default graph as an empty line;
- the quads sorted by graph, subject, predicate, then object (IRIs before literals; IRIs by
  their text in UTF-16 code units, as the reference Java implementation compares strings;
  literals by value, then datatype with language-tagged ones first, then language), and
  a quad given twice hashed once;
- no blank node: a trusty nanopublication has its blank nodes skolemised.

The artifact code is ``RA`` and the 32 bytes of the hash in URL-safe Base64 without
padding: 45 characters.

>>> import pyoxigraph as ox
>>> quad = ox.Quad(ox.NamedNode("http://ex.org/a"), ox.NamedNode("http://ex.org/p"),
...                ox.Literal("x"), ox.NamedNode("http://ex.org/g"))
>>> code = artifact_code([quad])
>>> code[:2], len(code)
('RA', 45)
>>> artifact_code_of("http://ex.org/np/" + code + "#assertion") == code
True
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable

import pyoxigraph as ox

from .namespaces import XSD

#: The module of RDF content in any number of graphs.
MODULE = "RA"
#: An artifact code of module RA at the end of an IRI (or before its ``#`` or ``/`` part).
_CODE = re.compile(r"(RA[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])")
_STRING = str(XSD.string)


class TrustyError(ValueError):
    """Content that cannot have a trusty URI of module RA (a blank node, a line break in
    an IRI), or an IRI that holds no artifact code."""


def artifact_code(quads: Iterable[ox.Quad], code: str | None = None) -> str:
    """The RA artifact code of ``quads``; ``code``, where given, is the code the quads'
    IRIs already hold (replaced by a space before hashing, as when checking them).

    :raises TrustyError: for a blank node or a line break or tab in an IRI.
    """
    digest = hashlib.sha256(digest_text(quads, code).encode("utf-8"))
    return MODULE + base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")


def digest_text(quads: Iterable[ox.Quad], code: str | None = None) -> str:
    """The text an artifact code is the hash of (and a nanopublication's signature is
    made over): every quad as four lines, sorted, each once.

    :raises TrustyError: as :func:`artifact_code`.
    """
    out = []
    previous = None
    read: dict[object, tuple[str, tuple]] = {}  # each term read once: most repeat
    for key, text in sorted((_quad(q, code, read) for q in quads), key=lambda pair: pair[0]):
        if key != previous:
            out.append(text)
        previous = key
    return "".join(out)


def artifact_code_of(iri: str) -> str:
    """The RA artifact code an IRI holds (its last).

    :raises TrustyError: where it holds none.
    """
    found = _CODE.findall(iri)
    if not found:
        raise TrustyError(f"{iri} holds no trusty URI artifact code of module RA")
    return found[-1]


def is_trusty(quads: Iterable[ox.Quad], iri: str) -> bool:
    """Whether ``quads`` hash to the artifact code ``iri`` holds."""
    code = artifact_code_of(iri)
    return artifact_code(quads, code) == code


def _iri(term: ox.NamedNode, code: str | None) -> str:
    text = term.value
    if "\n" in text or "\t" in text:
        raise TrustyError(f"a line break or tab in the IRI {text!r}")
    return text.replace(code, " ") if code else text


def _term(term: object, code: str | None) -> tuple[str, tuple]:
    """A term's line (without its line break) and its sort key."""
    if term is None or isinstance(term, ox.DefaultGraph):
        return "", (0, b"")
    if isinstance(term, ox.NamedNode):
        text = _iri(term, code)
        return text, (1, _utf16(text))
    if isinstance(term, ox.Literal):
        value = term.value.replace("\\", "\\\\").replace("\n", "\\n")
        if term.language:
            line = f"@{term.language.lower()} {value}"
            return line, (2, _utf16(term.value), 0, b"", _utf16(term.language.lower()))
        datatype = term.datatype.value if term.datatype else _STRING
        return f"^{datatype} {value}", (2, _utf16(term.value), 1, _utf16(datatype), b"")
    raise TrustyError(f"a blank node ({term}) in content that is to have a trusty URI")


def _utf16(text: str) -> bytes:
    """A key that orders strings as Java's String.compareTo does (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def _quad(
    quad: ox.Quad, code: str | None, read: dict[object, tuple[str, tuple]]
) -> tuple[tuple, str]:
    """A quad's sort key and its four lines, each term read once (``read``: the terms read
    already, with their line and key)."""
    terms = []
    for t in (quad.graph_name, quad.subject, quad.predicate, quad.object):
        found = read.get(t)
        if found is None:
            found = read[t] = _term(t, code)
        terms.append(found)
    return tuple(key for _, key in terms), "".join(line + "\n" for line, _ in terms)
