"""Whether a literal's text is a well-formed lexical form of its XML Schema datatype: a
date must exist (no 30 February), a time zone be within ±14:00, ``24:00:00`` is
midnight. What SHACL's ``sh:datatype`` checks (kg/model/shacl/datatypes.py) and what makes
a nanopublication's literal ill-typed (kg/rdf/nanopub.py).

>>> lexical_ok("1757-02-31", XSD + "date"), lexical_ok("25:61:00", XSD + "time")
(False, False)
>>> lexical_ok("3,5", XSD + "double"), lexical_ok("-INF", XSD + "double")
(False, True)
>>> lexical_ok("anything", "http://example.org/own-type") is None
True
"""

from __future__ import annotations

import calendar
import re

import pyoxigraph as ox

XSD = "http://www.w3.org/2001/XMLSchema#"
_ZONE = r"(Z|[+-](\d\d):(\d\d))?"
_DATE = re.compile(rf"^(-?\d{{4,}})-(\d\d)-(\d\d){_ZONE}$")
_DATETIME = re.compile(rf"^(-?\d{{4,}})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?{_ZONE}$")
_TIME = re.compile(rf"^(\d\d):(\d\d):(\d\d)(\.\d+)?{_ZONE}$")
_GYEAR = re.compile(rf"^-?\d{{4,}}{_ZONE}$")
_GYEARMONTH = re.compile(rf"^(-?\d{{4,}})-(\d\d){_ZONE}$")
_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_INTEGER = re.compile(r"^[+-]?\d+$")
_DOUBLE = re.compile(r"^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?INF|NaN)$")
#: The integer types and the numbers each admits.
_INTEGERS = {
    "integer": lambda n: True,
    "nonNegativeInteger": lambda n: n >= 0,
    "positiveInteger": lambda n: n > 0,
    "nonPositiveInteger": lambda n: n <= 0,
    "negativeInteger": lambda n: n < 0,
    "long": lambda n: -(2**63) <= n < 2**63,
    "int": lambda n: -(2**31) <= n < 2**31,
    "short": lambda n: -(2**15) <= n < 2**15,
    "byte": lambda n: -(2**7) <= n < 2**7,
    "unsignedLong": lambda n: 0 <= n < 2**64,
    "unsignedInt": lambda n: 0 <= n < 2**32,
    "unsignedShort": lambda n: 0 <= n < 2**16,
    "unsignedByte": lambda n: 0 <= n < 2**8,
}


def lexical_ok(text: str, datatype: str) -> bool | None:
    """Whether ``text`` is a well-formed lexical form of ``datatype`` (an IRI); None for a
    datatype without a rule here (not XML Schema's, or one of its rarer ones)."""
    local = datatype.removeprefix(XSD) if datatype.startswith(XSD) else None
    if local in ("string", "normalizedString", "token", "anyURI"):
        return True
    if local == "decimal":
        return bool(_DECIMAL.match(text))
    if local in _INTEGERS:
        return bool(_INTEGER.match(text)) and _INTEGERS[local](int(text))
    if local in ("double", "float"):
        return bool(_DOUBLE.match(text))
    if local == "boolean":
        return text in ("true", "false", "1", "0")
    if local == "date":
        m = _DATE.match(text)
        return m is not None and _valid_day(m.group(1), m.group(2), m.group(3)) and _zone_ok(m, 5)
    if local == "dateTime":
        m = _DATETIME.match(text)
        if not m or not _valid_day(m.group(1), m.group(2), m.group(3)):
            return False
        return _clock_ok(m.group(4), m.group(5), m.group(6), m.group(7)) and _zone_ok(m, 9)
    if local == "time":
        m = _TIME.match(text)
        return m is not None and _clock_ok(*m.group(1, 2, 3, 4)) and _zone_ok(m, 6)
    if local == "gYear":
        m = _GYEAR.match(text)
        return m is not None and _zone_ok(m, 2)
    if local == "gYearMonth":
        m = _GYEARMONTH.match(text)
        return m is not None and 1 <= int(m.group(2)) <= 12 and _zone_ok(m, 4)
    return None


def ill_typed(literal: ox.Literal) -> bool:
    """Whether a literal's text is not a lexical form of its datatype (one without a rule
    here is taken as it is)."""
    return lexical_ok(literal.value, literal.datatype.value) is False


def _clock_ok(hour: str, minute: str, second: str, fraction: str | None) -> bool:
    h, mi, s = int(hour), int(minute), int(second)
    midnight = h == 24 and mi == 0 and s == 0 and not (fraction or "").strip(".0")
    return (h < 24 or midnight) and mi < 60 and s < 60


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
