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
    #: The embedded store's directory.
    store: Path = Path(".kg/store")
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

    @property
    def archive_dir(self) -> Path:
        """The release archive: beside the store, never inside what its union sees."""
        return self.archive if self.archive is not None else Path(f"{self.store}-archive")

    def __post_init__(self) -> None:
        parts = urlsplit(self.base)
        if parts.scheme not in ("http", "https") or not parts.netloc or not self.base.endswith("/"):
            raise ConfigError(
                f"base IRI must be an http(s) IRI ending in '/' (got {self.base!r})"
            )


def load_settings(
    overrides: Mapping[str, object | None] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Settings from defaults, ``KG_BASE``/``KG_STORE``/``KG_DATA`` and ``overrides``.

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
    for key in ("store", "data", "archive", "dumps"):
        if key in values:
            values[key] = Path(str(values[key]))
    return replace(Settings(), **values)
