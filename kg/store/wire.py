"""One HTTP request to a remote store, and every way it can fail, as our errors.

The messages name the store by its URL without credentials (:func:`redact`), say what
was asked (a query, an update, a graph read), and give the store's own words: the first
lines of a text answer, the title of an HTML error page (a proxy's "502 Bad Gateway",
a server's own error page), never a page of markup.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit, urlunsplit

import requests

from ..errors import BadStoreAnswer, QueryError, QueryTimeout, StoreError, StoreUnreachable

#: How a server says it stopped a request at its own time limit (Virtuoso: SQL states
#: S1T00 "Transaction timed out", and S1TAT).
TIMED_OUT = ("Virtuoso S1T00 Error", "Virtuoso S1TAT Error")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def redact(url: str) -> str:
    """A URL without its user and password, for messages.

    >>> redact("http://kg:secret@db.example:8890/sparql")
    'http://db.example:8890/sparql'
    """
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def send(
    session: requests.Session,
    method: str,
    url: str,
    *,
    what: str,
    timeout: float,
    missing_ok: bool = False,
    **kwargs,
) -> requests.Response:
    """One request; every way it can fail becomes one of our errors.

    :raises StoreUnreachable: refused, unknown host, connection lost.
    :raises QueryTimeout: no answer within ``timeout`` seconds.
    :raises QueryError: a query the store refused as invalid (HTTP 400).
    :raises BadStoreAnswer: any other error status, or an answer cut short.
    """
    shown = redact(url)
    try:
        response = session.request(method, url, timeout=timeout, **kwargs)
    except requests.ConnectTimeout:
        raise StoreUnreachable(
            f"cannot reach the SPARQL store at {shown} (no answer to the connection)"
        ) from None
    except requests.Timeout:
        raise QueryTimeout(
            f"the SPARQL store at {shown} did not answer the {what} within {timeout:g} s"
        ) from None
    except requests.exceptions.ChunkedEncodingError:
        raise BadStoreAnswer(
            f"the SPARQL store at {shown} cut its answer to the {what} short"
        ) from None
    except requests.ConnectionError as exc:
        raise StoreUnreachable(
            f"cannot reach the SPARQL store at {shown} ({reason(exc)})"
        ) from None
    except requests.RequestException as exc:
        raise StoreError(f"the {what} to the SPARQL store at {shown} failed: {exc}") from None
    status = response.status_code
    if status < 300 or (missing_ok and status == 404):
        return response
    message = said(response)
    if any(state in message for state in TIMED_OUT):
        raise QueryTimeout(
            f"the SPARQL store at {shown} stopped the {what} at its own time "
            f"limit (HTTP {status}: {message[:300]})"
        )
    if status == 400 and what == "query":
        raise QueryError(
            f"not a valid SPARQL query (the SPARQL store answered HTTP 400: {message})"
        )
    if status in (401, 403):
        raise StoreError(
            f"the SPARQL store at {shown} refused the {what} (HTTP {status}): "
            "give credentials in the store URL (http://user:password@host/...), "
            "or grant them on the server (docs/deployment.md)"
        )
    raise BadStoreAnswer(
        f"the SPARQL store at {shown} answered the {what} with HTTP {status}: {message}"
    )


def said(response: requests.Response, limit: int = 500) -> str:
    """What an error answer says, in one line of text: an HTML page by its title (or its
    text when it has none), anything else by its first ``limit`` characters."""
    text = response.text.strip()
    media_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if media_type in ("text/html", "application/xhtml+xml") or text[:15].lower().startswith(
        ("<!doctype html", "<html")
    ):
        # the title, then the page's text (Virtuoso puts the SQL error under a generic
        # title)
        title = _TITLE.search(text)
        page = _TAG.sub(" ", _TITLE.sub(" ", text))
        text = html.unescape(f"{title.group(1).strip()}: {page}" if title else page)
    text = " ".join(text.split())
    return text[:limit] or response.reason or f"HTTP {response.status_code}"


def reason(exc: Exception) -> str:
    """Why a connection failed, in a few words."""
    text = str(exc)
    for known in (
        "Connection refused",
        "Name or service not known",
        "Connection reset",
        "Remote end closed connection",
        "No route to host",
        "timed out",
    ):
        if known in text:
            return known.lower()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first[:200]
