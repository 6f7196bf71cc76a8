"""What a request may carry: its parameters and its body, decided in one place for every route.

The route table (:mod:`kg.web.routes`) gives each route its :class:`Rules`;
:func:`check_request` runs before every view (after routing, so an unknown path stays 404
and a wrong method 405) and refuses what they do not allow:

- parameters a route takes one of at most (``query``, ``canned``) given together are 400;
- a POST body of a media type the route does not take, or with no ``Content-Type`` at
  all, is 415;
- a body in another charset than UTF-8 is 415; text that is not UTF-8 is 400;
- what a route refuses by design (SPARQL updates on the read-only endpoint) is 403, with
  the reason.

Views read the parameters with :func:`params` (the query string and a POST's form fields
counted together, a direct body standing for the parameter it is): a view reading one value
of a parameter given more than once gets a 400, unless the values agree (``format=tsv`` and
``format=text/tab-separated-values``, ``format=json-ld`` and
``format=application/ld+json,application/x-json+ld``, which SPARQLWrapper sends together:
the same media type, as :func:`kg.rdf.negotiation.named_media_type` reads them; an empty
value among them says nothing); a parameter that may repeat (``default-graph-uri``) is read
with ``getlist``. Parameters no view reads are ignored, however often they come.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from flask import Flask, current_app, g, request
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Request

from ...errors import KgError, UsageError
from ...rdf.negotiation import named_media_type

FORM = "application/x-www-form-urlencoded"


class UnsupportedMediaType(KgError):
    """A request body of a type (or charset) the route does not read."""

    http_status = 415


class Refused(KgError):
    """A request a route will not carry out by design (a SPARQL update on the read-only
    endpoint)."""

    http_status = 403


@dataclass(frozen=True)
class Rules:
    """What requests to one route may carry."""

    #: groups of parameters of which a request gives one at most
    exclusive: tuple[frozenset[str], ...] = ()
    #: the media types a POST body may have -> "" for a form (its fields are parameters),
    #: or the name of the parameter that the whole body is the value of
    bodies: Mapping[str, str] = field(default_factory=dict)
    #: parameters and body media types refused by design -> the reason (403)
    refused: Mapping[str, str] = field(default_factory=dict)
    #: the answer is a file sent with its own validators (and Range), not an answer from
    #: data that kg.web.http.cache tags and keeps
    sends_file: bool = False
    #: the route reads ``?release=``: its non-HTML answers come from that release alone
    reads_release: bool = False

    def describe_bodies(self) -> str:
        return " or ".join(self.bodies) if self.bodies else "no body"


#: Parameters every route reads the same way -> what makes two of their values the same:
#: given more than once, they must all say one thing.
AGREEING: dict[str, Callable[[str], str]] = {"format": named_media_type}
DEFAULT = Rules()


#: Where an app keeps its routes' rules (the route table, kg.web.routes, puts them there).
EXTENSION = "kg.rules"


def rules_for(endpoint: str | None, app: Flask | None = None) -> Rules:
    """The rules of a Flask endpoint, as the app's route table gives them (a route it does
    not name takes single-valued parameters in its query string and no body)."""
    table: Mapping[str, Rules] = (app or current_app).extensions.get(EXTENSION, {})
    return table.get(endpoint or "", DEFAULT)


def check_request() -> None:
    """Refuse a request its route's rules do not allow; keep its parameters for
    :func:`params`.

    :raises Refused: for a parameter or body type the route refuses by design (403).
    :raises UnsupportedMediaType: for a body the route does not read (415).
    :raises UsageError: for parameters that exclude each other, or text that is not UTF-8
        (400).
    """
    if request.routing_exception is not None:
        return  # 404 and 405 come first, from routing
    g.kg_params = checked_params(request, rules_for(request.endpoint))


def checked_params(asked: Request, rules: Rules) -> Params:
    """The parameters of ``asked`` (the Flask request, or a request read before Flask: see
    :mod:`kg.web.sparql.lane`), once ``rules`` allow them; the errors of
    :func:`check_request`."""
    values = Params(_pairs(asked.query_string, "the query string"))
    if asked.method == "POST":
        for name, value in _body_parameters(asked, rules):
            values.add(name, value)
    for name in values:
        if name in rules.refused:
            raise Refused(f"{rules.refused[name]} ({name}= given)")
    for group in rules.exclusive:
        present = sorted(group & set(values))
        if len(present) > 1:
            raise UsageError(f"give one of the parameters {' and '.join(present)}, not both")
    return values


class Params(MultiDict):
    """Request parameters whose single value is read only when it is one: ``params[name]``
    and ``params.get(name)`` of a parameter given several times are a 400 (unless it is one
    of :data:`AGREEING` and its values agree)."""

    def __getitem__(self, name: str) -> str:
        given = self.getlist(name)
        if not given:
            raise KeyError(name)
        same = AGREEING.get(name)
        if len(given) > 1 and same is not None:
            # an empty value says nothing (SPARQLWrapper sends one beside its format name
            # where it has no media type for it): the others must agree
            given = [value for value in given if value] or [""]
        if len(given) > 1 and (same is None or len({same(value) for value in given}) > 1):
            raise UsageError(
                f"the parameter {name} is given {len(given)} times; it takes one value"
            )
        return given[0]


def params() -> Params:
    """The request's parameters (query string, and a POST's form or direct body), as
    :func:`check_request` checked them."""
    if "kg_params" not in g:
        check_request()
    return g.kg_params


def with_changes(args: Mapping[str, str], **changes: object) -> dict[str, str]:
    """``args`` with ``changes`` made: a value sets its argument, None or "" removes it.

    >>> with_changes({"q": "a", "after": "x"}, after=None, sort="value")
    {'q': 'a', 'sort': 'value'}
    """
    out = dict(args)
    for key, value in changes.items():
        if value is None or value == "":
            out.pop(key, None)
        else:
            out[key] = str(value)
    return out


def int_param(name: str, default: int, low: int, high: int) -> int:
    """The whole number parameter ``name`` (``default`` when it is not given).

    :raises UsageError: for anything but a whole number from ``low`` to ``high``.
    """
    raw = params().get(name, "")
    if not raw:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise UsageError(f"?{name}= takes a whole number from {low} to {high} (got {raw!r})")
    return int(raw)


def _body_parameters(asked: Request, rules: Rules) -> list[tuple[str, str]]:
    """The parameters a POST body carries, once its media type and charset are allowed."""
    data = asked.get_data(cache=True)
    media_type = asked.mimetype
    if not media_type:
        if not data:
            return []  # a POST with nothing in it: the query string is the request
        raise UnsupportedMediaType(
            f"a POST to {asked.path} says what its body is: Content-Type "
            f"{rules.describe_bodies()} (this request has no Content-Type)"
        )
    if media_type in rules.refused:
        raise Refused(f"{rules.refused[media_type]} ({media_type} body)")
    if media_type not in rules.bodies:
        raise UnsupportedMediaType(
            f"a POST to {asked.path} takes a body of type "
            f"{rules.describe_bodies()}, not {media_type}"
        )
    charset = asked.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise UnsupportedMediaType(f"a {media_type} body must be UTF-8, not {charset}")
    if rules.bodies[media_type] == "":
        return _pairs(data, f"the {media_type} body")
    return [(rules.bodies[media_type], _text(data, f"the {media_type} body"))]


def _pairs(raw: bytes, what: str) -> list[tuple[str, str]]:
    """``name=value&...`` (percent-encoded UTF-8, ``+`` for a space) as pairs."""
    try:
        return parse_qsl(
            _text(raw, what), keep_blank_values=True, encoding="utf-8", errors="strict"
        )
    except UnicodeDecodeError:
        raise UsageError(f"{what} is not percent-encoded UTF-8") from None


def _text(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what} is not UTF-8 (byte {exc.start})") from None


def register_request_rules(app: Flask, rules: Mapping[str, Rules]) -> None:
    """Every request to ``app`` is checked by :func:`check_request` before its view runs,
    against ``rules`` (endpoint -> its rules)."""
    app.extensions[EXTENSION] = dict(rules)
    app.before_request(check_request)
