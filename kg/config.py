"""Settings, layered: defaults, then ``KG_``-prefixed environment, then explicit values.

Each setting is declared once, as a field of :class:`Settings` with its type, default and
help text; ``KG_`` + its name in upper case is its environment variable. :data:`SETTINGS`
is that declaration read back: the ``kg`` options that set a setting take their help from
it, ``kg settings`` lists it, and tests/test_settings.py checks the README's table of
settings against it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .errors import ConfigError

DEFAULT_BASE = "https://claimgraph.example/"
#: Names reserved for documentation and tests (RFC 2606): nothing under them resolves.
RESERVED_NAMES = ("example", "test", "invalid", "example.com", "example.net", "example.org")


def _help(text: str, shown: str = "") -> dict[str, str]:
    """A field's metadata: its help (``shown``: the default in words, where the default is
    worked out when used)."""
    return {"help": text, "shown": shown}


#: The default licence of the registry's own statements (the public domain dedication).
CC0 = "https://creativecommons.org/publicdomain/zero/1.0/"
#: The licence setting's value that states none.
NO_LICENCE_WORD = "none"


@dataclass(frozen=True)
class Settings:
    """What a registry is configured with."""

    base: str = field(
        default=DEFAULT_BASE,
        metadata=_help(
            "The registry's base IRI, fixed for its lifetime: minted IRIs are the base + kind/id"
        ),
    )
    store: Path | str = field(
        default=Path(".kg/store"),
        metadata=_help(
            "The embedded store's directory, or the http(s):// URL of a remote SPARQL 1.1 store"
        ),
    )
    data: Path = field(
        default=Path("data"), metadata=_help("The data directory: what kg load loads by default")
    )
    archive: Path | None = field(
        default=None,
        metadata=_help(
            "Where releases are kept",
            shown="the store's directory + -archive (.kg/archive for a remote store)",
        ),
    )
    index: Path | None = field(
        default=None,
        metadata=_help(
            "Where a reader builds the index of a store version that keeps none with it "
            "(a remote store's; an embedded store writes each version's index beside it)",
            shown="the store's directory + -index (.kg/index for a remote store)",
        ),
    )
    dumps: Path = field(
        default=Path(".kg/dumps"),
        metadata=_help("Where kg serve caches the bulk dumps of the live store version"),
    )
    query_timeout: float = field(
        default=10.0, metadata=_help("Seconds a /sparql query may run before its worker is stopped")
    )
    max_rows: int = field(
        default=10_000,
        metadata=_help("Rows (or triples) a /sparql result may hold; beyond, it is cut and marked"),
    )
    query_workers: int = field(
        default=2,
        metadata=_help(
            "Worker processes that run /sparql queries, each with a read-only store handle"
        ),
    )
    query_inline_ms: float = field(
        default=50.0,
        metadata=_help(
            "Milliseconds within which a query run by a worker lets the same query on the same "
            "store version run in the server's own thread from then on, without the handoff "
            "(0: every query in a worker)"
        ),
    )
    max_query_bytes: int = field(
        default=100_000, metadata=_help("The longest query /sparql accepts, in bytes")
    )
    store_query: str = field(
        default="query",
        metadata=_help("A remote store's SPARQL query endpoint, relative to its URL or absolute"),
    )
    store_update: str = field(
        default="update",
        metadata=_help("A remote store's SPARQL update endpoint, relative to its URL or absolute"),
    )
    store_graphs: str = field(
        default="store",
        metadata=_help(
            "A remote store's Graph Store Protocol endpoint, relative to its URL or absolute"
        ),
    )
    store_union: str = field(
        default="union-default-graph",
        metadata=_help(
            "The query parameter that makes a remote store's default graph the union of its named "
            "graphs (name or name=value; none when it already is); left out when a request or "
            "the query names its own dataset (default-graph-uri, named-graph-uri, FROM)"
        ),
    )
    store_server: str = field(
        default="auto",
        metadata=_help(
            "What kind of server a remote store is: auto (asked from its Server header), "
            "standard (SPARQL 1.1 Protocol, one transaction per update) or virtuoso"
        ),
    )
    store_timeout: float = field(
        default=300.0, metadata=_help("Seconds to wait for a remote store to answer one request")
    )
    licence: str = field(
        # CC0, as Wikidata's statements: facts about results are for anyone to reuse; an
        # operator who wants other terms says so, and "" states none.
        default=CC0,
        metadata=_help(
            "The IRI of the licence of the registry's own statements (what an import brought "
            "keeps its upstream's), as VoID, the record pages, the citations and the dumps' "
            "manifests state it; 'none' states none",
        ),
    )
    feed_page: int = field(
        default=100,
        metadata=_help(
            "Entries in each Atom feed document: the subscription document and each archive page"
        ),
    )
    sitemap_urls: int = field(
        default=50_000,
        metadata=_help(
            "URLs in one sitemap file (at most the sitemaps protocol's 50000); past them, "
            "/sitemap.xml is a sitemap index"
        ),
    )
    cache_mb: int = field(
        default=64,
        metadata=_help(
            "Memory for each server process's response cache, in MiB: pages kept per store "
            "version (0: none; validators and 304 answers stay)"
        ),
    )
    trusted_proxies: str = field(
        default="",
        metadata=_help(
            "Addresses or networks (comma-separated, e.g. 10.0.0.5,172.16.0.0/12) of the reverse "
            "proxies whose X-Forwarded-Proto and X-Forwarded-Host are believed: what the server "
            "says of its own URLs (feeds, VoID, sitemap, robots.txt, Link headers) follows them",
            shown="none: forwarded headers are ignored",
        ),
    )
    nanopub_key: Path | None = field(
        default=None,
        metadata=_help(
            "The file of the RSA private key nanopublications are signed with (PEM; kg keys "
            "makes one); kept outside the repository",
            shown="none: nanopublications are trusty but unsigned, and say so",
        ),
    )
    nanopub_signer: str = field(
        default="",
        metadata=_help(
            "The IRI of who signs and publishes the nanopublications (an ORCID iD, the "
            "operator's agent), stated by each signature and as each one's publisher",
            shown="none: the registry (its base IRI) is their publisher",
        ),
    )
    max_age: int = field(
        default=60,
        metadata=_help(
            "Seconds a browser or proxy may reuse a live page without asking again "
            "(Cache-Control max-age); pages of a release are immutable"
        ),
    )

    @property
    def archive_dir(self) -> Path:
        """The release archive: beside the store, never inside what its union sees (for a
        remote store, ``.kg/archive`` unless set)."""
        if self.archive is not None:
            return self.archive
        return Path(".kg/archive") if isinstance(self.store, str) else Path(f"{self.store}-archive")

    @property
    def index_dir(self) -> Path:
        """Where indexes of versions that keep none are built (kg.store.index.index_for)."""
        if self.index is not None:
            return self.index
        return Path(".kg/index") if isinstance(self.store, str) else Path(f"{self.store}-index")

    def __post_init__(self) -> None:
        parts = urlsplit(self.base)
        if parts.scheme not in ("http", "https") or not parts.netloc or not self.base.endswith("/"):
            raise ConfigError(f"base IRI must be an http(s) IRI ending in '/' (got {self.base!r})")
        if self.licence and not urlsplit(self.licence).scheme:
            raise ConfigError(f"licence must be an absolute IRI (got {self.licence!r})")
        if self.feed_page < 1:
            raise ConfigError(f"feed_page must be 1 or more (got {self.feed_page})")
        if not 1 <= self.sitemap_urls <= 50_000:
            raise ConfigError(f"sitemap_urls must be from 1 to 50000 (got {self.sitemap_urls})")
        if self.cache_mb < 0:
            raise ConfigError(f"cache_mb must be 0 or more (got {self.cache_mb})")
        if self.query_inline_ms < 0:
            raise ConfigError(f"query_inline_ms must be 0 or more (got {self.query_inline_ms})")
        if self.max_age < 0:
            raise ConfigError(f"max_age must be 0 or more (got {self.max_age})")
        if isinstance(self.store, str) and not is_store_url(self.store):
            raise ConfigError(f"store must be a directory or an http(s) URL (got {self.store!r})")
        self.proxy_networks  # noqa: B018 (checked now, not at the first request)

    @property
    def proxy_networks(self) -> tuple[IPv4Network | IPv6Network, ...]:
        """The networks of :attr:`trusted_proxies` (an address is a network of one).

        :raises ConfigError: for an entry that is no address or network.
        """
        found = []
        for entry in filter(None, (part.strip() for part in self.trusted_proxies.split(","))):
            try:
                found.append(ip_network(entry, strict=False))
            except ValueError:
                raise ConfigError(
                    f"trusted_proxies: {entry!r} is no IP address or network"
                ) from None
        return tuple(found)

    @property
    def placeholder_base(self) -> bool:
        """Whether the base IRI's host is a name reserved for examples (RFC 2606: ``example``,
        ``test``, ``invalid``, ``example.com``, ...), so that no IRI minted under it resolves."""
        host = (urlsplit(self.base).hostname or "").rstrip(".")
        return any(host == name or host.endswith(f".{name}") for name in RESERVED_NAMES)

    @property
    def remote(self) -> bool:
        """Whether the store is a remote SPARQL store (``store`` is a URL)."""
        return isinstance(self.store, str)


def is_store_url(value: str) -> bool:
    """Whether a store setting names a remote SPARQL store rather than a directory."""
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _path(value: object) -> Path:
    return Path(str(value))


def _store(value: object) -> Path | str:
    text = str(value)  # a URL stays text (a Path would fold its '//')
    return text if is_store_url(text) else Path(text)


def _number(kind: type) -> Callable[[object], object]:
    # only text is converted: a number given by a caller is kept as given
    return lambda value: kind(value) if isinstance(value, str) else value


# How a value given as text (environment, command line) becomes the field's type, by the
# field's annotation; the word names the type in an error.
_CONVERTERS: dict[str, tuple[Callable[[object], object], str]] = {
    "str": (lambda value: value, "text"),
    "Path": (_path, "path"),
    "Path | None": (_path, "path"),
    "Path | str": (_store, "directory or URL"),
    "float": (_number(float), "number"),
    "int": (_number(int), "whole number"),
}


@dataclass(frozen=True)
class Setting:
    """One setting as :class:`Settings` declares it."""

    name: str
    type: str  # the field's annotation
    default: object
    help: str
    shown: str = ""

    @property
    def env(self) -> str:
        """The environment variable that sets it."""
        return f"KG_{self.name.upper()}"

    @property
    def shown_default(self) -> str:
        """The default as the help and the README show it."""
        return self.shown or self.text(self.default)

    @staticmethod
    def text(value: object) -> str:
        """A value as the help shows it (``10``, not ``10.0``)."""
        return f"{value:g}" if isinstance(value, float) else str(value)

    def convert(self, value: object) -> object:
        """``value`` (text from the environment or a command line, or a value) as the
        setting's type.

        :raises ConfigError: when text is not of that type.
        """
        converter, word = _CONVERTERS[self.type]
        try:
            return converter(value)
        except ValueError:
            raise ConfigError(f"setting {self.name} must be a {word} (got {value!r})") from None


#: The settings that name a folder or a file (the store's may be a URL instead): a relative one
#: is under the working directory.
FOLDERS = ("store", "data", "archive", "index", "dumps", "nanopub_key")

#: Every setting by name, in declaration order.
SETTINGS: Mapping[str, Setting] = {
    f.name: Setting(f.name, str(f.type), f.default, f.metadata["help"], f.metadata["shown"])
    for f in fields(Settings)
}


def load_settings(
    overrides: Mapping[str, object | None] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Settings from defaults, ``KG_``-prefixed environment (``KG_BASE``, ``KG_STORE``, ...)
    and ``overrides``.

    ``None`` values in ``overrides`` mean "not given"; an empty variable is not set. A
    relative folder (:data:`FOLDERS`, the default ``.kg/store`` included) is made absolute
    against the working directory now.

    :raises ConfigError: when a value is unusable.
    :raises TypeError: when ``overrides`` names no setting.
    """
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    for setting in SETTINGS.values():
        raw = env.get(setting.env)
        if raw:
            values[setting.name] = raw
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = value
    # each value of its field's type, as its converter made it: known only at run time
    converted: dict[str, Any] = {
        key: SETTINGS[key].convert(value) if key in SETTINGS else value
        for key, value in values.items()
    }
    if converted.get("licence") == NO_LICENCE_WORD:  # an empty variable is an unset one
        converted["licence"] = ""
    # A relative folder means one under the working directory, fixed now: not wherever a
    # library later resolves it (Flask sent a relative file from the app's package folder,
    # and the dumps answered 500 with the default settings).
    cwd = Path.cwd()
    for name in FOLDERS:
        value = converted.get(name, SETTINGS[name].default)
        if isinstance(value, Path) and not value.is_absolute():
            converted[name] = cwd / value
    settings = Settings(**converted)
    if not settings.archive_dir.is_absolute():  # a remote store's, worked out
        settings = replace(settings, archive=cwd / settings.archive_dir)
    return settings


def placeholder_note(base: str) -> str:
    """What ``kg serve`` and the index say while the base IRI is a placeholder."""
    return (
        f"the base IRI {base} is a placeholder: the registry's IRIs resolve nowhere. Set "
        "KG_BASE (or kg --base) to the URL the registry is served at, or to a persistent "
        'IRI that redirects to it (docs/deployment.md, "A base that resolves"), then '
        "kg load --force (or load into a new store)"
    )
