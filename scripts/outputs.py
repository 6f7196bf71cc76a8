"""Write what a user sees of the bundled data into a folder, to compare two versions of kg.

A refactoring must not change what users rely on: run this before and after it and compare
the two folders (``diff -r``). A fresh load mints fresh blank nodes, so RDF is written as
its canonical N-Quads (RDFC-1.0), the words of each line of a page are sorted (a page lists
a node's blank-node values in their labels' order), and a dump's manifest loses its times,
store version and hashes. It loads ``data/`` into a fresh store and writes every
record, source, agent, evaluation and activity in every ``kg show`` format, every export,
the whole-store dumps, every canned query's results, a release with its history, and the
text of every page of the browser (tags removed).

    python scripts/outputs.py /tmp/before
    ... change the code ...
    python scripts/outputs.py /tmp/after && diff -r /tmp/before /tmp/after
"""

from __future__ import annotations

import argparse
import hashlib
import html
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from urllib.parse import urljoin, urlsplit

ROOT = Path(__file__).resolve().parent.parent
SHOW_FORMATS = ["ttl", "nt", "nq", "jsonld", "trig", "rdf"]
EXPORT_FORMATS = ["jsonld", "csl-json", "bibtex", "ris"]
DUMP_FORMATS = ["nquads", "trig", "jsonld"]
PAGE_SUFFIXES = ["", ".ttl", ".nt", ".nq", ".jsonld", ".rdf"]
DATE = "2026-12-01"


def kg(env: dict[str, str], *args: str) -> tuple[bytes, bytes, int]:
    """``kg ARGS`` in this process (a process each would take an hour over the bundled
    data), from the repository's root, with the settings of ``env``."""
    from click.testing import CliRunner

    from kg.cli import main

    done = CliRunner().invoke(main, list(args), env=env, catch_exceptions=True)
    stderr = done.stderr_bytes or b""
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        stderr += f"{type(done.exception).__name__}: {done.exception}".encode()
    return done.stdout_bytes, stderr, done.exit_code


def ids(folder: str) -> list[str]:
    return sorted(p.stem for p in (ROOT / "data" / folder).glob("*.yaml"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    out = parser.parse_args().out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    work = Path(tempfile.mkdtemp(prefix="kg-outputs-"))
    env = {
        **os.environ,
        "KG_STORE": str(work / "store"),
        "KG_ARCHIVE": str(work / "archive"),
        "KG_DUMPS": str(work / "dumps"),
    }

    def save(name: str, result: tuple[bytes, bytes, int]) -> None:
        stdout, _stderr, code = result
        # stderr names the temporary folder and counts seconds: only its exit code is kept
        (out / name).write_bytes(normal(name, stdout) + f"\n[exit {code}]\n".encode())

    kg(env, "load")
    nodes = {
        "record": ids("records"),
        "source": ids("sources"),
        "agent": ids("agents"),
        "evaluation": ids("evaluations"),
        "activity": ids("runs"),
    }
    for ident in nodes["record"]:
        for fmt in SHOW_FORMATS:
            save(f"show-{ident}.{fmt}", kg(env, "show", ident, "--format", fmt))
    for kind in ("record", "source"):
        for ident in nodes[kind]:
            for fmt in EXPORT_FORMATS:
                if kind == "source" and fmt == "jsonld":
                    continue
                save(f"export-{ident}.{fmt}", kg(env, "export", ident, "--format", fmt))
    for ident in nodes["activity"]:
        crate = work / f"crate-{ident}"
        kg(env, "export", ident, "--format", "ro-crate", "-o", str(crate))
        for path in sorted(crate.rglob("*")):
            if path.is_file():
                (out / f"crate-{ident}-{path.name}").write_bytes(path.read_bytes())
    for fmt in DUMP_FORMATS:
        folder = work / f"dump-{fmt}"
        kg(env, "export", "--all", "--format", fmt, "-o", str(folder))
        for path in sorted(folder.iterdir()):
            if path.name == "SHA256SUMS":
                continue
            body = normal(path.name, path.read_bytes())
            (out / f"dump-{fmt}-{path.name}").write_bytes(body)
    save("queries.txt", kg(env, "queries"))
    save("stats.txt", kg(env, "stats"))
    params = {
        "results-for-model": ["model=NT 2.5B"],
        "results-by-review-status": ["status=source-checked"],
        "source-by-sha256": ["sha256=" + sha256_of_source()],
        "reviews-by-method": ["method=source-hash-verification"],
    }
    for path in sorted((ROOT / "queries").glob("*.rq")):
        args = [a for p in params.get(path.stem, []) for a in ("--param", p)]
        for fmt in ("json", "csv", "table"):
            save(f"query-{path.stem}.{fmt}", kg(env, "query", path.stem, *args, "--format", fmt))
    save("release.txt", kg(env, "release", "--date", DATE, "--note", "outputs"))
    save("releases.txt", kg(env, "releases"))
    for kind in ("record", "source", "agent", "evaluation"):
        for ident in nodes[kind]:
            save(f"history-{kind}-{ident}.txt", kg(env, "history", "--kind", kind, ident))
    pages(env, nodes, out)
    shutil.rmtree(work)
    print(f"wrote {len(list(out.iterdir()))} files to {out}")


def sha256_of_source() -> str:
    """The SHA-256 of the first source file that states one."""
    for path in sorted((ROOT / "data" / "sources").glob("*.yaml")):
        found = re.search(r"sha256: ([0-9a-f]{64})", path.read_text())
        if found:
            return found.group(1)
    raise SystemExit("outputs: no source of data/sources/ states a sha256")


def pages(env: dict[str, str], nodes: dict[str, list[str]], out: Path) -> None:
    """Every page through the app in-process: each node in every format, then every page
    a reader reaches by following links from the home page and the site's entry points
    (feeds, VoID, the sitemap); HTML as its text, other formats as bytes."""
    os.environ.update(env)
    from kg.web import create_app

    client = create_app({"store": env["KG_STORE"], "archive": env["KG_ARCHIVE"]}).test_client()
    todo = [
        "/",
        "/records",
        "/records.json",
        "/records.csv",
        "/sparql",
        "/releases",
        "/.well-known/void",
        "/feed.atom",
        "/sitemap.xml",
        "/robots.txt",
    ]
    for kind, idents in nodes.items():
        for ident in idents:
            todo += [f"/{kind}/{ident}{suffix}" for suffix in PAGE_SUFFIXES]
            if kind in ("record", "source"):
                todo += [f"/{kind}/{ident}{s}" for s in (".csl.json", ".bib", ".ris")]
    seen = set(todo)
    visited = 0
    while todo and visited < MOST_PAGES:
        path = todo.pop(0)
        visited += 1
        response = client.get(path)
        body = response.data
        name = "page" + re.sub(r"[^A-Za-z0-9.-]+", "_", path)
        if len(name) > 120:  # a long query: the name's start and a digest of the whole
            name = name[:100] + "-" + hashlib.sha256(path.encode()).hexdigest()[:16]
        if response.mimetype in ("text/html", "application/atom+xml", "application/xml"):
            for link in sorted(set(LINK.findall(body.decode()))):
                link = same_site(html.unescape(link), path)
                # A page with a query (a filter, a page of a list) leads on only to pages
                # without one: the combinations of filters are endless.
                if link is None or ("?" in path and "?" in link):
                    continue
                if link not in seen:
                    seen.add(link)
                    todo.append(link)
        if response.mimetype == "text/html":
            body = page_text(body.decode()).encode()
        elif response.status_code == 200:
            body = normal(name, body, response.mimetype)
        (out / name).write_bytes(f"{response.status_code} {response.mimetype}\n".encode() + body)
    if todo:
        print(f"outputs: stopped following links after {MOST_PAGES} pages", file=sys.stderr)


#: A crawl stops here; the bundled data's pages are fewer.
MOST_PAGES = 20_000
LINK = re.compile(r'(?:href|src)="([^"#]+)')
SITE = "https://claimgraph.example"


def same_site(link: str, page: str) -> str | None:
    """A link's path and query on this site, resolved against the page; None elsewhere
    (another site, the static files, the SPARQL endpoint's queries)."""
    url = urlsplit(urljoin(SITE + page, link))
    if f"{url.scheme}://{url.netloc}" != SITE or url.path.startswith("/static/"):
        return None
    if url.path == "/sparql" and url.query:
        return None
    return url.path + (f"?{url.query}" if url.query else "")


def page_text(markup: str) -> str:
    markup = re.sub(r"(?s)<(script|style)\b.*?</\1>", "", markup)
    text = html.unescape(re.sub(r"<[^>]+>", " ", markup))
    return "\n".join(" ".join(sorted(line.split())) for line in text.splitlines() if line.strip())


MODIFIED = "http://purl.org/dc/terms/modified"
RDF_SUFFIXES = {
    ".ttl": "text/turtle",
    ".nt": "application/n-triples",
    ".nq": "application/n-quads",
    ".trig": "application/trig",
    ".rdf": "application/rdf+xml",
}


def normal(name: str, body: bytes, media_type: str | None = None) -> bytes:
    """RDF as canonical N-Quads, without the time of the load (VoID's ``dcterms:modified``);
    a gzipped file as its content; a dump's manifest without times, sizes and hashes;
    anything else as it is. The kind is the media type where one is given, else the
    name's suffix."""
    import gzip

    import pyoxigraph as ox

    suffix = Path(name).suffix
    if suffix == ".gz":
        return normal(name.removesuffix(".gz"), gzip.decompress(body))
    if name.endswith("SHA256SUMS"):  # the digests of the gzipped files
        return b""
    if name.endswith("manifest.json"):
        return re.sub(rb'"(store_version|updated|sha256|bytes)": [^,\n]*', b"", body)
    rdf_type = media_type if media_type in RDF_SUFFIXES.values() else RDF_SUFFIXES.get(suffix)
    if rdf_type is not None:
        base = "https://claimgraph.example/"
        quads = ox.parse(body, ox.RdfFormat.from_media_type(rdf_type), base_iri=base)
        dataset = ox.Dataset(
            q if isinstance(q, ox.Quad) else ox.Quad(*q)
            for q in quads
            if not (isinstance(q.predicate, ox.NamedNode) and q.predicate.value == MODIFIED)
        )
        dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
        return "".join(sorted(f"{q} .\n" for q in dataset)).encode()
    if suffix == ".jsonld":
        import json

        from pyld import jsonld

        from kg.export.web_annotation import document_loader

        doc = json.loads(body)
        return jsonld.normalize(
            doc,
            {
                "algorithm": "URDNA2015",
                "format": "application/n-quads",
                "documentLoader": document_loader,
            },
        ).encode()
    return body


if __name__ == "__main__":
    main()
