"""``kg serve``: the linked-data browser on granian."""

from __future__ import annotations

import dataclasses

import click

from ..config import Settings, placeholder_note
from ..malloc import limit_arenas
from ..store.load import ensure_loaded
from .common import progress


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=5000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free port).",
)
@click.option(
    "--threads",
    default=8,
    show_default=True,
    type=click.IntRange(1, 256),
    help="Threads that run the app in each worker process (at most this many "
    "requests at a time in Python; the HTTP work runs in Rust).",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Worker processes, each a server of its own on the same port (use about "
    "one per core); each reads the store read-only and follows new versions; "
    "one that dies is started again.",
)
@click.pass_obj
def serve(settings: Settings, host: str, port: int, threads: int, workers: int) -> None:
    """Serve the linked-data browser with a production HTTP server (granian).

    On first start (no store yet) the store is created and filled from the data
    directory, so a fresh clone shows its records at once. The index of the
    records (search and facets) is built before serving starts, once for all
    worker processes. /healthz answers 200 when the server is ready. A kg load
    while it runs is picked up within a second, without a restart. While the
    base IRI is a placeholder (a name reserved for examples, as the default
    https://claimgraph.example/ is), it warns at start, and the index says so,
    that the registry's IRIs resolve nowhere (docs/deployment.md).

    \b
    Example:
      kg serve
      kg serve --host 0.0.0.0 --port 8080 --workers 2
    """
    import gc
    import time

    from ..web import compile_templates, create_app
    from ..web.server import reserve
    from ..web.server import serve as run_server
    from ..web.state import build_index

    holder = reserve(host, port)  # before anything is loaded: a port in use stops here
    if settings.placeholder_base:
        click.echo(f"kg: warning: {placeholder_note(settings.base)}", err=True)
    report = ensure_loaded(settings, progress=progress("loading"))
    if report is not None:
        click.echo(f"kg: first start: {report.summary()}", err=True)
    limit_arenas()
    started = time.perf_counter()
    index = build_index(settings)  # opened (or built once, on disk) for the worker processes
    gc.freeze()  # what exists now stays shared between the processes, never collected
    click.echo(
        f"kg: index of {len(index):,} records ready in {time.perf_counter() - started:.1f} s",
        err=True,
    )
    if not settings.licence:  # only the operator can license the registry's own statements
        click.echo(
            "kg: no licence stated for the registry's own statements: set KG_LICENCE "
            '(docs/following.md, "Licences"); imported results keep their upstream\'s',
            err=True,
        )

    def make_app():  # in each worker process
        app = create_app(dataclasses.asdict(settings))
        compile_templates(app)
        return app

    run_server(
        make_app,
        holder,
        threads,
        workers,
        announce=lambda url: click.echo(f"kg: serving {url} (Ctrl-C to stop)", err=True),
    )
