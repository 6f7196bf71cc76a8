"""What a reader reaches from the home page in at most N clicks: every board, every model,
every source? A crawl of a real ``kg serve`` over a store, following the links of its HTML
pages as a reader clicks them.

    python bench/reach.py STORE --data DATA [--clicks 3] [--workers 4]

STORE and DATA as ``kg serve`` takes them (only read). From ``/``, the pages at fewer than
``--clicks`` clicks are fetched (same origin, HTML only; the SPARQL endpoint's results,
data formats and feeds are not pages a reader clicks through) and their links collected;
a link found on a page at N-1 clicks is reached in N. The totals come from the lists
(``/benchmarks.json``, ``/models.json``, ``/sources.json``). Prints, for each kind, how
many were reached and at how many clicks at most, and how many pages the crawl fetched.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.million import start
from bench.serve import Server, live_or_exit

KINDS = ("benchmark", "model", "source")
#: What a reader's click does not open as a page to read on.
SKIPPED = re.compile(
    r"^/(sparql|dumps|feed|static|ns|\.well-known|context\.jsonld|sitemap)|"
    r"\.(json|csv|jsonld|ttl|nt|nq|trig|rdf|atom|xml|bib|gz)(\?|$)"
)


def links(server: Server, path: str) -> list[str]:
    status, body = server.get(path, headers={"Accept": "text/html"})
    if status != 200:
        return []
    found = []
    for href in re.findall(rb'<a [^>]*href="([^"#]+)', body):
        target = urljoin(path, unescape(href.decode()))
        parts = urlsplit(target)
        if parts.netloc and parts.netloc != f"{server.host}:{server.port}":
            continue  # another site
        local = parts.path + (f"?{parts.query}" if parts.query else "")
        if not SKIPPED.search(local):
            found.append(local)
    return found


def kind_of(path: str) -> tuple[str, str] | None:
    """(kind, id) of a board's, a model's or a source's page (not its suite, its data)."""
    parts = urlsplit(path)
    found = re.fullmatch(r"/(benchmark|model|source)/([^/]+)", parts.path)
    return (found.group(1), unquote(found.group(2)).casefold()) if found else None


def total(server: Server, name: str) -> int:
    status, body = server.get(f"/{name}.json?limit=1", headers={"Accept": "application/json"})
    return json.loads(body)["total"] if status == 200 else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--clicks", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    live_or_exit(args.store)
    server, _ = start(args.store, args.data, None)
    try:
        seen = {"/": 0}
        reached: dict[tuple[str, str], int] = {}
        frontier = ["/"]
        fetched = 0
        with ThreadPoolExecutor(args.workers) as pool:
            for clicks in range(1, args.clicks + 1):
                found = pool.map(lambda p: links(server, p), frontier)
                fetched += len(frontier)
                following = []
                for page_links in found:
                    for link in page_links:
                        thing = kind_of(link)
                        if thing and thing not in reached:
                            reached[thing] = clicks
                        if link not in seen:
                            seen[link] = clicks
                            following.append(link)
                print(f"  {clicks} click(s): {len(following):,} new pages", file=sys.stderr)
                frontier = following
        totals = {"benchmark": total(server, "benchmarks"), "model": total(server, "models")}
        totals["source"] = total(server, "sources")
    finally:
        server.stop()
    print(f"From the home page in at most {args.clicks} clicks ({fetched:,} pages fetched):")
    print("")
    print("| kind | reached | of | most clicks needed |")
    print("|---|---|---|---|")
    for kind in KINDS:
        got = [c for (k, _), c in reached.items() if k == kind]
        print(f"| {kind} | {len(got):,} | {totals[kind]:,} | {max(got, default=0)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
