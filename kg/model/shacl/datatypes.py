"""sh:datatype: whether a literal is of a datatype, with a well-formed lexical form.

The lexical forms are XML Schema's, for the datatypes the shapes use (any other is
refused): a date must exist (no 30 February), a time zone be within ±14:00, and
``24:00:00`` is midnight. The differential test holds these to pyshacl's results.
"""

from __future__ import annotations

import calendar
import json
import re
from decimal import Decimal

from rdflib import Literal, URIRef
from rdflib.term import Node as Term

from ...rdf.namespaces import KG, RDF, XSD, XSD_STRING
from .shapes import UnsupportedShape

_ZONE = r"(Z|[+-](\d\d):(\d\d))?"
_DATE = re.compile(rf"^(-?\d{{4,}})-(\d\d)-(\d\d){_ZONE}$")
_DATETIME = re.compile(rf"^(-?\d{{4,}})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?{_ZONE}$")
_GYEAR = re.compile(rf"^-?\d{{4,}}{_ZONE}$")
_GYEARMONTH = re.compile(rf"^(-?\d{{4,}})-(\d\d){_ZONE}$")
_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_INTEGER = re.compile(r"^[+-]?\d+$")
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
    """Whether ``text`` is a well-formed lexical form of ``datatype``."""
    if datatype == _XSD_STRING:
        return True
    if datatype == XSD.decimal:
        return bool(_DECIMAL.match(text))
    if datatype in (XSD.integer, XSD.nonNegativeInteger, XSD.positiveInteger):
        if not _INTEGER.match(text):
            return False
        number = int(text)
        return (
            datatype == XSD.integer
            or (datatype == XSD.nonNegativeInteger and number >= 0)
            or (datatype == XSD.positiveInteger and number > 0)
        )
    if datatype == XSD.boolean:
        return text in ("true", "false", "1", "0")
    if datatype == XSD.date:
        m = _DATE.match(text)
        return m is not None and _valid_day(m.group(1), m.group(2), m.group(3)) and _zone_ok(m, 5)
    if datatype == XSD.dateTime:
        m = _DATETIME.match(text)
        if not m or not _valid_day(m.group(1), m.group(2), m.group(3)):
            return False
        hour, minute, second = int(m.group(4)), int(m.group(5)), int(m.group(6))
        midnight = hour == 24 and minute == 0 and second == 0 and not (m.group(7) or "").strip(".0")
        return (hour < 24 or midnight) and minute < 60 and second < 60 and _zone_ok(m, 9)
    if datatype == XSD.gYear:
        m = _GYEAR.match(text)
        return m is not None and _zone_ok(m, 2)
    if datatype == XSD.gYearMonth:
        m = _GYEARMONTH.match(text)
        return m is not None and 1 <= int(m.group(2)) <= 12 and _zone_ok(m, 4)
    if datatype == JSON_TEXT:  # JSON text, as an upstream file writes it
        try:
            json.loads(text)
        except ValueError:
            return False
        return True
    raise UnsupportedShape(f"no lexical check for datatype {datatype}")


def _valid_day(year: str, month: str, day: str) -> bool:
    y, mo, d = int(year), int(month), int(day)
    if not 1 <= mo <= 12 or d < 1:
        return False
    leap = calendar.isleap(y) if y > 0 else (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0))
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
    return d <= days


def _zone_ok(match: re.Match[str], group: int) -> bool:
    hours, minutes = match.group(group), match.group(group + 1)
    if hours is None:
        return True
    return int(hours) <= 14 and int(minutes) < 60 and (int(hours) < 14 or int(minutes) == 0)
