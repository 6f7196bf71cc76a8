"""Settings, layered: defaults, then ``KG_``-prefixed environment, then explicit values."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from urllib.parse import urlsplit

from .errors import ConfigError

DEFAULT_BASE = "https://claimgraph.example/"


@dataclass(frozen=True)
class Settings:
    """What a registry is configured with."""

    #: The registry's base IRI, fixed for its lifetime: minted IRIs are base + kind/id.
    base: str = DEFAULT_BASE
    #: The embedded store's directory, or the URL of a remote SPARQL 1.1 store.
    store: Path | str = Path(".kg/store")
    #: The data directory loaded by default.
    data: Path = Path("data")
    #: Where past releases are kept (default: the store's directory name + "-archive").
    archive: Path | None = None
    #: Where the browser caches the bulk dumps of the live store version it serves.
    dumps: Path = Path(".kg/dumps")
    #: SPARQL endpoint: seconds a query may run before its worker is stopped.
    query_timeout: float = 10.0
    #: SPARQL endpoint: rows (or triples) a result may hold; beyond, it is cut and marked.
    max_rows: int = 10_000
    #: SPARQL endpoint: worker processes that run queries (each a read-only store handle).
    query_workers: int = 2
    #: SPARQL endpoint: the largest query (or request body) accepted, in bytes.
    max_query_bytes: int = 100_000
    #: Remote store: its SPARQL query endpoint, relative to the store URL (or absolute).
    store_query: str = "query"
    #: Remote store: its SPARQL update endpoint, relative to the store URL (or absolute).
    store_update: str = "update"
    #: Remote store: its Graph Store Protocol endpoint, relative to the store URL (or absolute).
    store_graphs: str = "store"
    #: Remote store: the query parameter that makes its default graph the union of the
    #: named graphs ("name" or "name=value"; "none" when the server's default graph is that).
    store_union: str = "union-default-graph"
    #: Remote store: seconds to wait for an answer to a store request before giving up.
    store_timeout: float = 300.0

    @property
    def archive_dir(self) -> Path:
        """The release archive: beside the store, never inside what its union sees (for a
        remote store, ``.kg/archive`` unless set)."""
        if self.archive is not None:
            return self.archive
        return Path(".kg/archive") if isinstance(self.store, str) else Path(f"{self.store}-archive")

    def __post_init__(self) -> None:
        parts = urlsplit(self.base)
        if parts.scheme not in ("http", "https") or not parts.netloc or not self.base.endswith("/"):
            raise ConfigError(
                f"base IRI must be an http(s) IRI ending in '/' (got {self.base!r})"
            )
        if isinstance(self.store, str) and not is_store_url(self.store):
            raise ConfigError(f"store must be a directory or an http(s) URL (got {self.store!r})")

    @property
    def remote(self) -> bool:
        """Whether the store is a remote SPARQL store (``store`` is a URL)."""
        return isinstance(self.store, str)


def is_store_url(value: str) -> bool:
    """Whether a store setting names a remote SPARQL store rather than a directory."""
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def load_settings(
    overrides: Mapping[str, object | None] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Settings from defaults, ``KG_``-prefixed environment (``KG_BASE``, ``KG_STORE``, ...)
    and ``overrides``.

    ``None`` values in ``overrides`` mean "not given".

    :raises ConfigError: when a value is unusable.
    """
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    for f in fields(Settings):
        raw = env.get(f"KG_{f.name.upper()}")
        if raw:
            values[f.name] = raw
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = value
    types = {f.name: f.type for f in fields(Settings)}
    for key, value in list(values.items()):
        kind = types.get(key)
        if kind not in ("Path", "float", "int") or not isinstance(value, str):
            continue
        try:
            values[key] = {"Path": Path, "float": float, "int": int}[kind](value)
        except ValueError:
            word = {"Path": "path", "float": "number", "int": "whole number"}[kind]
            raise ConfigError(f"setting {key} must be a {word} (got {value!r})") from None
    for key in ("data", "dumps", "archive"):
        if key in values:
            values[key] = Path(str(values[key]))
    if "store" in values:  # a URL stays text (a Path would fold its '//')
        store = str(values["store"])
        values["store"] = store if is_store_url(store) else Path(store)
    return replace(Settings(), **values)
