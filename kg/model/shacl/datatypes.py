"""sh:datatype: whether a literal is of a datatype, with a well-formed lexical form.

The lexical forms are XML Schema's, for the datatypes the shapes use (any other is
refused): a date must exist (no 30 February), a time zone be within ±14:00, and
``24:00:00`` is midnight. The differential test holds these to pyshacl's results.
"""

from __future__ import annotations

import json
from decimal import Decimal

from rdflib import Literal, URIRef
from rdflib.term import Node as Term

from ...rdf.literals import lexical_ok as rdf_lexical_ok
from ...rdf.namespaces import KG, RDF, XSD, XSD_STRING
from .shapes import UnsupportedShape

_XSD_STRING = URIRef(XSD_STRING)
JSON_TEXT = KG.JSONText


def datatype_ok(value: Term, datatype: Term) -> bool:
    """Whether ``value`` is a literal of ``datatype`` with a well-formed lexical form."""
    if not isinstance(value, Literal):
        return False
    if value.language:
        return datatype == RDF.langString
    actual = value.datatype or _XSD_STRING
    if actual != datatype:
        return False
    return lexical_ok(str(value), actual)  # equal to datatype (an IRI then)


#: The numeric datatypes the shapes use: their values compare as numbers (sh:minInclusive).
_NUMERIC = (XSD.integer, XSD.nonNegativeInteger, XSD.positiveInteger, XSD.decimal)


def numeric_value(value: Term) -> Decimal | None:
    """The number a well-formed literal of a numeric datatype stands for; None for any
    other term."""
    if not isinstance(value, Literal) or value.datatype not in _NUMERIC:
        return None
    text = str(value)
    return Decimal(text) if lexical_ok(text, value.datatype) else None


def lexical_ok(text: str, datatype: URIRef) -> bool:
    """Whether ``text`` is a well-formed lexical form of ``datatype``
    (:func:`kg.rdf.literals.lexical_ok`, and JSON text as an upstream file writes it).

    :raises UnsupportedShape: for a datatype without a rule.
    """
    if datatype == JSON_TEXT:
        try:
            json.loads(text)
        except ValueError:
            return False
        return True
    found = rdf_lexical_ok(text, str(datatype))
    if found is None:
        raise UnsupportedShape(f"no lexical check for datatype {datatype}")
    return found
