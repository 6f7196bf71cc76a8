"""One node of every kind, fetched from its URL by content negotiation: its JSON-LD holds
the triples its Turtle holds, read by rdflib and by pyld alike (the JSON-LD of a node
other than a record was once one named graph, from which rdflib read nothing)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient
from pyld import jsonld
from rdflib import Graph

from helpers import BASE, DATA, SEED_ID
from helpers.web import app_over
from kg.cli import main
from kg.kinds import SEGMENTS
from kg.rdf.canonical import canonical_nquads, parse_nquads

#: A store loaded and released for the module: seconds.
pytestmark = pytest.mark.slow

#: One IRI of each segment of minted IRIs that the store holds a node of, and of each
#: kind of activity (a run; the bundled data has no review or standing).
FIRST_OF_EACH = """
SELECT ?segment (MIN(STR(?node)) AS ?iri) WHERE {
  GRAPH ?g { ?node a ?type }
  FILTER(STRSTARTS(STR(?node), "%(base)s"))
  BIND(STRBEFORE(STRAFTER(STR(?node), "%(base)s"), "/") AS ?segment)
  FILTER(?segment != "" && !CONTAINS(STRAFTER(STR(?node), CONCAT("%(base)s", ?segment, "/")), "/")
         && !CONTAINS(STR(?node), "#"))
} GROUP BY ?segment
"""


def canonical(graph: Graph) -> str:
    """The graph's canonical N-Quads (RDFC-1.0): equal for isomorphic graphs (rdflib's own
    test of isomorphism takes a minute over a release's thousand blank nodes)."""
    return canonical_nquads(parse_nquads(graph.serialize(format="nt")))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[FlaskClient, dict[str, str]]]:
    """The app over the bundled data, released once; the path of one node of each kind."""
    root = tmp_path_factory.mktemp("kinds")
    shutil.copytree(DATA, root / "data")
    with app_over(root) as app:
        released = CliRunner().invoke(
            main, ["--store", str(root / "store"), "release", "--date", "2026-12-01"]
        )
        assert released.exit_code == 0, released.output
        client = app.test_client()
        rows = client.get(
            "/sparql",
            query_string={"query": FIRST_OF_EACH % {"base": BASE}},
            headers={"Accept": "application/sparql-results+json"},
        ).get_json()["results"]["bindings"]
        paths = {row["segment"]["value"]: row["iri"]["value"][len(BASE) - 1 :] for row in rows}
        paths["release"] = f"/release/{released.stdout.strip()}"
        paths["seed record"] = f"/record/{SEED_ID}"  # framed, with its runs nested in reverse
        yield client, paths


def test_every_kind_has_a_node(site) -> None:
    _, paths = site
    assert set(SEGMENTS) <= set(paths)


@pytest.mark.parametrize("which", [*SEGMENTS, "seed record"])
def test_jsonld_and_turtle_of_a_node_are_the_same_triples(site, which: str) -> None:
    client, paths = site
    path = paths[which]
    turtle = client.get(path, headers={"Accept": "text/turtle"})
    document = client.get(path, headers={"Accept": "application/ld+json"})
    assert turtle.status_code == document.status_code == 200, path
    assert document.mimetype == "application/ld+json"
    expected = Graph().parse(data=turtle.text, format="turtle")
    assert len(expected) >= 3, path
    by_rdflib = Graph().parse(data=document.text, format="json-ld")
    assert len(by_rdflib) == len(expected) and canonical(by_rdflib) == canonical(expected), path
    # pyld: the context is inline, so nothing is fetched; its triples are those too
    nquads = jsonld.to_rdf(document.get_json(), {"format": "application/n-quads"})
    by_pyld = Graph().parse(data=nquads, format="nt")
    assert canonical(by_pyld) == canonical(expected), path
