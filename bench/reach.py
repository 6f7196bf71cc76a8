"""What a reader reaches from the home page in at most N clicks: every board, every model,
every source? A crawl of a real ``kg serve`` over a store, following the links of its HTML
pages as a reader clicks them.

    python bench/reach.py STORE --data DATA [--clicks 3] [--workers 4]

STORE and DATA as ``kg serve`` takes them (only read). From ``/``, the pages at fewer than
``--clicks`` clicks are fetched (same origin, HTML only; the SPARQL endpoint's results,
data formats and feeds are not pages a reader clicks through) and their links collected;
a link found on a page at N-1 clicks is reached in N, where its page answers 200. What
there is to reach comes from the server's SPARQL endpoint: every benchmark, model node and
source some record names. Prints,
for each kind, how many of them were reached and at how many clicks at most, and how many
pages the crawl fetched.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path
from urllib.parse import unquote, urlencode, urljoin, urlsplit

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
    status, body = server.get(path, headers=HTML)
    if status != 200:
        return []
    found = []
    for href in re.findall(rb'<a [^>]*href="([^"#]+)', body):
        target = urljoin(path, unescape(href.decode()))
        parts = urlsplit(target)
        if parts.netloc and parts.netloc != f"{server.host}:{server.port}":
            continue  # another site
        local = parts.path + (f"?{parts.query}" if parts.query else "")
        if kind_of(local) or not SKIPPED.search(local):  # a node's id may end as ".json"
            found.append(local)
    return found


HTML = {"Accept": "text/html"}


def pool_map(workers: int, work, items) -> list:
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(work, items))


def kind_of(path: str) -> tuple[str, str] | None:
    """(kind, id) of a board's, a model's or a source's page (not its suite, its data)."""
    parts = urlsplit(path)
    found = re.fullmatch(r"/(benchmark|model|source)/([^/]+)", parts.path)
    return (found.group(1), unquote(found.group(2)).casefold()) if found else None


#: What records name, by kind: the nodes a reader should be able to reach.
NAMED = {
    "benchmark": "<https://w3id.org/claimgraph/ns#benchmark>",
    "model": "<https://w3id.org/claimgraph/ns#evaluatedModel>",
    "source": "<http://www.w3.org/ns/prov#wasQuotedFrom>",
}


def named(server: Server, kind: str) -> set[str]:
    """The ids of every node of ``kind`` some record names (case-folded, as kind_of)."""
    query = f"SELECT DISTINCT ?n WHERE {{ ?r {NAMED[kind]} ?n }}"
    status, body = server.get(
        "/sparql?" + urlencode({"query": query}),
        headers={"Accept": "application/sparql-results+json"},
    )
    if status != 200:
        raise SystemExit(f"the SPARQL endpoint answered {status}: {body[:200]!r}")
    return {
        unquote(b["n"]["value"].rsplit(f"/{kind}/", 1)[-1]).casefold()
        for b in json.loads(body)["results"]["bindings"]
    }


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
        wanted = {kind: named(server, kind) for kind in KINDS}
        # reached means its page answers, as a reader's click would find it
        pages = {thing: link for link, clicks in seen.items() if (thing := kind_of(link))}
        answers = dict(
            zip(
                pages,
                pool_map(args.workers, lambda p: server.get(p, headers=HTML)[0], pages.values()),
                strict=True,
            )
        )
        reached = {t: c for t, c in reached.items() if answers.get(t) == 200}
    finally:
        server.stop()
    print(f"From the home page in at most {args.clicks} clicks ({fetched:,} pages fetched):")
    print("")
    print("| kind | reached | of | most clicks needed |")
    print("|---|---|---|---|")
    for kind in KINDS:
        got = [c for (k, i), c in reached.items() if k == kind and i in wanted[kind]]
        print(f"| {kind} | {len(got):,} | {len(wanted[kind]):,} | {max(got, default=0)} |")
    for kind in KINDS:
        missed = sorted(wanted[kind] - {i for k, i in reached if k == kind})
        if missed:
            print(f"\nNot reached ({kind}): {', '.join(missed[:20])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
