"""The import record (``kind: import``) and the importer's agent file, as data files.

The record says where the kept files come from (the origin repository, the commit each
file was taken at, the archive they were read from), under which licence, with which
software, how many files and results they are, one hash over all of them, the fields the
known schema does not describe, and what was skipped. Its times are those of the import
that last changed something: importing the same bytes again leaves the record as it was.
"""

from __future__ import annotations

import hashlib
import platform
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import __version__
from ..model.upstream.commits import OTHER_COMMITS, other_commits, usual_commit
from ..model.upstream.format import UpstreamFormat
from ..model.upstream.kept import UPSTREAM
from ..model.validation import KeptAsWritten, refused_fields
from ..model.yamltext import dump_yaml
from .shared_facts import SharedFacts

#: The default agent: this version of claimgraph's importer (a new version is a new agent).
IMPORTER = f"claimgraph-import-{__version__}"


@dataclass(frozen=True)
class Origin:
    """The repository the files come from, and the commit they are taken at ("" unknown)."""

    repository: str
    commit: str = ""

    @classmethod
    def parse(cls, text: str, home: str) -> Origin:
        """``owner/name@commit``, ``https://host/owner/name@commit`` or either without the
        commit; "" for ``home``, the format's home repository.

        :raises ValueError: for what is none of these.
        """
        if not text:
            return cls(home)
        repository, _, commit = text.partition("@")
        if not re.fullmatch(r"[0-9a-f]{7,64}", commit) and commit:
            raise ValueError(f"not a commit id ({commit!r}: 7 to 64 hexadecimal digits)")
        if re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
            repository = f"https://github.com/{repository}"
        if not re.fullmatch(r"https?://[^\s@]+", repository):
            raise ValueError(f"not a repository ({repository!r}: owner/name or a URL)")
        return cls(repository.removesuffix(".git").rstrip("/"), commit)


@dataclass
class Contents:
    """What the kept files are, once the import is done: one entry per kept file."""

    #: upstream path -> (SHA-256, number of results)
    files: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: upstream path -> the origin commit it was taken at ("" not known)
    commits: dict[str, str] = field(default_factory=dict)
    #: pointer pattern -> how many kept files have it
    unknown: dict[str, int] = field(default_factory=dict)
    #: (upstream path or source, reason) of each file left out
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: The shared nodes the files name: model keys, benchmarks by id, sources by id.
    models: set[str] = field(default_factory=set)
    benchmarks: dict[str, dict[str, str]] = field(default_factory=dict)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: What the files say of the models and data sets, and each source's model registry
    #: (docs/links.md).
    facts: SharedFacts = field(default_factory=SharedFacts)
    registries: dict[str, str] = field(default_factory=dict)
    #: The models as the record lists them, once :func:`fit_model_entries` has left out
    #: what the shapes refuse (empty: not fitted yet).
    model_entries: list[dict[str, str]] = field(default_factory=list)

    def manifest(self) -> str:
        """The kept files in sha256sum's format, sorted by path: checkable with
        ``sha256sum -c`` in ``data/upstream/<import>/``."""
        return "".join(f"{sha}  {path}\n" for path, (sha, _) in sorted(self.files.items()))

    @property
    def results(self) -> int:
        return sum(n for _, n in self.files.values())


def licence_of(text: bytes | None) -> str:
    """The SPDX id of a licence text claimgraph recognizes by its first line ("" if none)."""
    if not text:
        return ""
    first = text.decode("utf-8", "replace").strip().splitlines()[0].strip().lower()
    known = {
        "mit license": "MIT",
        "the mit license (mit)": "MIT",
        "apache license": "Apache-2.0",
        "bsd 3-clause license": "BSD-3-Clause",
    }
    return known.get(first, "")


def import_document(
    name: str,
    fmt: UpstreamFormat,
    origin: Origin,
    archive: tuple[str, str] | None,
    licence: str,
    has_licence_file: bool,
    contents: Contents,
    started: str,
    ended: str,
) -> dict[str, Any]:
    """The import record's content (every scalar a string, as data files are read)."""
    doc: dict[str, Any] = {
        "kind": "import",
        "id": name,
        "format": fmt.name,
        "title": f"{fmt.title} ({origin.repository.split('://', 1)[-1]})",
        "origin": {"repository": origin.repository},
    }
    commits = {p: contents.commits.get(p, origin.commit) for p in contents.files}
    commit = usual_commit(commits, origin.commit)
    if commit:
        doc["origin"]["commit"] = commit
    if archive is not None:
        doc["origin"]["archive"], doc["origin"]["archive_sha256"] = archive
    doc["licence"] = licence
    if has_licence_file:
        doc["licence_file"] = f"{UPSTREAM}/{name}/LICENSE"
    doc["agent"] = IMPORTER
    doc["started_at"], doc["ended_at"] = started, ended
    doc["files"] = str(len(contents.files))
    doc["results"] = str(contents.results)
    doc["manifest_sha256"] = hashlib.sha256(contents.manifest().encode()).hexdigest()
    # Each kept file's SHA-256, as sha256sum writes it: a kept file that is not these bytes
    # is refused when it is loaded (it is no longer the evidence its records were made from).
    doc["kept"] = contents.manifest().splitlines()
    # Files taken at another commit than most (kept from before, merged from another
    # snapshot): grouped by commit, so a record of one commit lists no file twice.
    others = other_commits(commits, commit)
    if others:
        doc[OTHER_COMMITS] = others
    if contents.unknown:
        doc["unknown_fields"] = [
            {"pointer": p, "files": str(n)} for p, n in sorted(contents.unknown.items())
        ]
    if contents.skipped:
        doc["skipped"] = [{"file": f, "reason": r} for f, r in sorted(contents.skipped)]
    doc["software"] = software()
    doc["models"] = contents.model_entries or [
        contents.facts.model_entry(m, contents.registries) for m in sorted(contents.models)
    ]
    doc["benchmarks"] = [_benchmark(contents, b) for b in sorted(contents.benchmarks)]
    doc["note"] = (
        f"The files are kept byte for byte under {UPSTREAM}/{name}/ at their paths "
        "in the origin repository; each result is a record whose locator is a JSON "
        "Pointer into its file. The values are the upstream registry's; claimgraph "
        "adds the mapping, the checks and the ids, and reviews nothing by hand."
    )
    return doc


def _benchmark(contents: Contents, ident: str) -> dict[str, str]:
    repo = contents.facts.dataset_repo(ident)
    entry = contents.benchmarks[ident]
    return {**entry, "hf_repo": repo} if repo is not None else entry


def same_import(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    """Whether two import records say the same but for their times."""
    if old is None:
        return False

    def strip(doc: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in doc.items() if k not in ("started_at", "ended_at")}

    return strip(old) == strip(new)


def software() -> list[dict[str, str]]:
    """The software that read, checked and mapped the files, with the versions here."""
    packages = [{"name": "claimgraph", "version": __version__}]
    for name in ("fastjsonschema", "pyoxigraph", "rdflib"):
        try:
            packages.append({"name": name, "version": metadata.version(name)})
        except metadata.PackageNotFoundError:
            continue
    packages.append({"name": "python", "version": platform.python_version()})
    return packages


def source_document(source: dict[str, Any]) -> dict[str, Any]:
    """The file of a source (a leaderboard or harness) that imported files name, as they
    name it; written once, then the curators'."""
    doc = {
        "kind": "source",
        "id": source["id"],
        "document_type": "leaderboard",
        "title": source["title"],
    }
    if source.get("publisher"):
        doc["publisher"] = source["publisher"]
    if source.get("url"):
        doc["url"] = source["url"]
    return doc


def fitted_source_document(
    source: dict[str, Any], path: Path, base: str, shown: str
) -> tuple[dict[str, Any], list[KeptAsWritten]]:
    """:func:`source_document`, to be written at ``path``, its fields whose values the
    shapes refuse (a ``url`` that is no URL) moved to ``upstream_values``, as the upstream
    file ``source["file"]`` (``shown``: its kept file, as warnings name it) writes them at
    their JSON Pointers: a file that validates."""
    doc: dict[str, Any] = source_document(source)
    refused = refused_fields(path, (dump_yaml(doc) or "").encode(), base)
    kept = []
    for key, (value, message) in sorted(refused.items()):
        del doc[key]
        pointer = source.get("pointers", {}).get(key, "")
        doc.setdefault("upstream_values", []).append(
            {"file": source.get("file", ""), "pointer": pointer, "value": value}
        )
        label = f"source {doc['id']}"
        kept.append(KeptAsWritten(shown, label, pointer, value, key, message))
    return doc, kept


def unfit_models(name: str, keys: Iterable[str], path: Path, base: str) -> dict[str, str]:
    """The model keys the shapes refuse as a model's identifier (one of 400 characters, one
    with a line break), with what they say: the import record ``path`` will state each,
    and none of them can be. Its ``models`` alone are mapped and validated (what else the
    record lacks here is not looked at)."""
    models = sorted(set(keys))
    doc = {"kind": "import", "id": name, "models": models}
    refused = refused_fields(path, (dump_yaml(doc) or "").encode(), base)
    return {
        models[int(field.removeprefix("models[").removesuffix("]"))]: message
        for field, (_, message) in refused.items()
        if field.startswith("models[")
    }


def fit_model_entries(name: str, contents: Contents, path: Path, base: str) -> None:
    """The models the import record ``path`` will list, each without the facts the shapes
    refuse (a parameter count no decimal holds): the files agree on a value that fits no
    field, which each file's graph keeps as written (docs/imports.md, "Values that do not
    fit"); the record states the rest. A refused id stays: :func:`unfit_models` refuses
    its files."""
    entries = [contents.facts.model_entry(m, contents.registries) for m in sorted(contents.models)]
    doc = {"kind": "import", "id": name, "models": entries}
    for where in refused_fields(path, (dump_yaml(doc) or "").encode(), base):
        found = re.fullmatch(r"models\[(\d+)\]\.(\w+)", where)
        if found and found[2] != "id":
            entries[int(found[1])].pop(found[2], None)
    contents.model_entries = entries


def agent_document(ident: str = IMPORTER) -> dict[str, str]:
    """The agent file of claimgraph's importer: provenance of the tool itself."""
    return {
        "kind": "agent",
        "id": ident,
        "agent_type": "software",
        "label": f"claimgraph kg import {__version__}",
        "version": __version__,
        "note": (
            "claimgraph's own importer (kg import): it keeps another registry's files "
            "byte for byte, checks them against their published schema and maps each "
            "result to a record. Machine transcription only; it reviews nothing by hand."
        ),
    }


__all__ = [
    "IMPORTER",
    "Contents",
    "Origin",
    "agent_document",
    "fit_model_entries",
    "fitted_source_document",
    "import_document",
    "licence_of",
    "same_import",
    "software",
    "source_document",
    "unfit_models",
]
