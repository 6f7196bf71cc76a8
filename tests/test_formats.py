"""The table of formats: agrees with pyoxigraph, and every name anyone uses resolves."""

from __future__ import annotations

import click
import pyoxigraph as ox
import pytest
from rdflib import plugin
from rdflib.serializer import Serializer

from kg.cli import data as data_commands
from kg.cli import export as export_commands
from kg.export.dump import DUMP_FORMATS, dump_name
from kg.export.render import CITATION_WRITERS, EXPORT_MEDIA_TYPES
from kg.rdf.formats import (
    CITATIONS,
    FORMATS,
    MEDIA_TYPES,
    NAMES,
    RDF_SYNTAXES,
    W3C_FORMATS,
    by_media_type,
    media_type_of,
    media_types,
    rows,
)
from kg.rdf.negotiation import negotiate, split_suffix
from kg.rdf.output import GRAPH_FORMATS, QUAD_FORMATS, RESULT_FORMATS
from kg.web.http.errors import _OFFERED as ERROR_OFFERED
from kg.web.pages.answers import CITABLE_OFFERED, RDF_OFFERED
from kg.web.pages.records import LISTING_OFFERED
from kg.web.sparql.endpoint import DESCRIPTION_OFFERED, GRAPH_OFFERED, SELECT_OFFERED

#: Every name accepted as a suffix or ?format= before the table, with its media type.
ACCEPTED = {
    "html": "text/html",
    "ttl": "text/turtle",
    "turtle": "text/turtle",
    "n3": "text/turtle",
    "nt": "application/n-triples",
    "nq": "application/n-quads",
    "trig": "application/trig",
    "jsonld": "application/ld+json",
    "json-ld": "application/ld+json",
    "rdf": "application/rdf+xml",
    "rdf+xml": "application/rdf+xml",
    "json": "application/json",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
    "srj": "application/sparql-results+json",
    "srx": "application/sparql-results+xml",
    "xml": "application/sparql-results+xml",
    "csl.json": "application/vnd.citationstyles.csl+json",
    "csl-json": "application/vnd.citationstyles.csl+json",
    "bib": "application/x-bibtex",
    "bibtex": "application/x-bibtex",
    "ris": "application/x-research-info-systems",
    # a formatted reference, in the CSL style the request names (as doi.org answers)
    "citation.txt": "text/x-bibliography",
    "bibliography": "text/x-bibliography",
    # another registry's own format (issue 19): a record or an evaluation as its file
    "eee.json": "application/x-every-eval-ever+json",
    "every-eval-ever": "application/x-every-eval-ever+json",
    # a record as a W3C Web Annotation: JSON-LD with the Web Annotation profile
    "wa.jsonld": 'application/ld+json;profile="http://www.w3.org/ns/anno.jsonld"',
    "web-annotation": 'application/ld+json;profile="http://www.w3.org/ns/anno.jsonld"',
    "np.trig": 'application/trig;profile="http://www.nanopub.org/nschema"',
    "nanopub": 'application/trig;profile="http://www.nanopub.org/nschema"',
}
#: The table's rows and the registered upstream formats' (kg.model.upstream.formats adds them).
ROWS = rows()
RDF_ROWS = [fmt for fmt in FORMATS if fmt.rdf]
RESULT_ROWS = [fmt for fmt in FORMATS if fmt.results and fmt.name != "json"]


def test_names_and_media_types_are_each_once() -> None:
    names = [name for fmt in ROWS for name in fmt.names]
    assert len(names) == len(set(names)) == len(NAMES)
    assert len(MEDIA_TYPES) == len(ROWS)


@pytest.mark.parametrize(("name", "media_type"), sorted(ACCEPTED.items()))
def test_every_name_resolves(name: str, media_type: str) -> None:
    assert media_type_of(name) == media_type
    assert negotiate(None, [media_type], name) == media_type
    assert split_suffix(f"x.{name}") == ("x", name)


def test_no_other_name_is_accepted() -> None:
    # a suffix that is no format's name stays part of the id (404, not 406)
    assert set(NAMES) == set(ACCEPTED)
    assert split_suffix("x.nquads") == ("x.nquads", None)


@pytest.mark.parametrize("fmt", ROWS, ids=lambda fmt: fmt.name)
def test_aliases_mean_the_canonical_format(fmt) -> None:
    assert {media_type_of(name) for name in fmt.names} == {fmt.media_type}
    assert by_media_type(fmt.media_type) is fmt


@pytest.mark.parametrize("fmt", RDF_ROWS, ids=lambda fmt: fmt.name)
def test_rdf_syntaxes_agree_with_pyoxigraph(fmt) -> None:
    assert fmt.media_type == fmt.rdf.media_type
    assert fmt.name == fmt.rdf.file_extension
    assert ox.RdfFormat.from_media_type(fmt.media_type) == fmt.rdf
    assert ox.RdfFormat.from_extension(fmt.name) == fmt.rdf
    assert fmt.quads == fmt.rdf.supports_datasets


@pytest.mark.parametrize("fmt", RESULT_ROWS, ids=lambda fmt: fmt.name)
def test_results_formats_agree_with_pyoxigraph(fmt) -> None:
    assert fmt.media_type == fmt.results.media_type.split(";")[0]
    assert fmt.name == fmt.results.file_extension
    assert ox.QueryResultsFormat.from_media_type(fmt.media_type) == fmt.results
    assert ox.QueryResultsFormat.from_extension(fmt.name) == fmt.results


def test_groups_keep_their_order() -> None:
    assert RDF_SYNTAXES == ("ttl", "nt", "nq", "trig", "jsonld", "rdf")
    assert CITATIONS == ("csl.json", "bib", "ris", "citation.txt")
    assert {name for name in RDF_SYNTAXES if NAMES[name].quads} == {"nq", "trig", "jsonld"}
    assert list(CITATION_WRITERS) == media_types(*CITATIONS)
    assert list(EXPORT_MEDIA_TYPES) == media_types(
        "jsonld", *CITATIONS, "every-eval-ever", "wa.jsonld", "np.trig"
    )


RDF = [
    "text/html",
    "text/turtle",
    "application/n-triples",
    "application/n-quads",
    "application/trig",
    "application/ld+json",
    "application/rdf+xml",
]
CITING = [
    "application/vnd.citationstyles.csl+json",
    "application/x-bibtex",
    "application/x-research-info-systems",
    "text/x-bibliography",
]


# the first acceptable type wins a tie in negotiation: these orders are behaviour
@pytest.mark.parametrize(
    ("offered", "expected"),
    [
        (RDF_OFFERED, RDF),
        (CITABLE_OFFERED, RDF + CITING),
        (LISTING_OFFERED, ["text/html", "application/json", "text/csv"]),
        (ERROR_OFFERED, ["text/html", "application/json"]),
        (
            SELECT_OFFERED,
            [
                "application/sparql-results+json",
                "application/sparql-results+xml",
                "text/csv",
                "text/tab-separated-values",
                "application/json",
                "text/html",
            ],
        ),
        (
            GRAPH_OFFERED,
            [
                "text/turtle",
                "application/n-triples",
                "application/ld+json",
                "application/rdf+xml",
                "text/html",
            ],
        ),
        (
            DESCRIPTION_OFFERED,
            [
                "text/html",
                "text/turtle",
                "application/n-triples",
                "application/ld+json",
                "application/rdf+xml",
            ],
        ),
    ],
    ids=["rdf", "citable", "listing", "errors", "select", "graph", "description"],
)
def test_offered_lists_keep_their_order(offered: list[str], expected: list[str]) -> None:
    assert offered == expected


def test_the_service_description_names_w3c_formats() -> None:
    offered = [by_media_type(t) for t in (*SELECT_OFFERED, *GRAPH_OFFERED)]
    assert list(dict.fromkeys(fmt.iri for fmt in offered if fmt.iri)) == [
        W3C_FORMATS + name
        for name in (
            "SPARQL_Results_JSON",
            "SPARQL_Results_XML",
            "SPARQL_Results_CSV",
            "SPARQL_Results_TSV",
            "Turtle",
            "N-Triples",
            "JSON-LD",
            "RDF_XML",
        )
    ]
    for media_type in DESCRIPTION_OFFERED[1:]:  # written by rdflib, by media type
        assert plugin.get(media_type, Serializer)


def _choices(command: click.Command) -> list[str]:
    option = next(p for p in command.params if p.name == "fmt")
    assert isinstance(option.type, click.Choice)
    return list(option.type.choices)


def test_cli_choices_resolve() -> None:
    assert _choices(data_commands.query) == [
        "table",
        "json",
        "xml",
        "csv",
        "tsv",
        "ttl",
        "nt",
        "jsonld",
    ]
    assert _choices(data_commands.show) == list(RDF_SYNTAXES) == list(GRAPH_FORMATS)
    assert _choices(data_commands.stats) == ["table", "json", "xml", "csv", "tsv"]
    assert _choices(export_commands.export) == [
        "jsonld",
        "csl-json",
        "bibtex",
        "ris",
        "bibliography",
        "web-annotation",
        "every-eval-ever",
        "ro-crate",
        "nanopub",
        "nquads",
        "trig",
    ]
    assert RESULT_FORMATS == {
        "json": ox.QueryResultsFormat.JSON,
        "xml": ox.QueryResultsFormat.XML,
        "csv": ox.QueryResultsFormat.CSV,
        "tsv": ox.QueryResultsFormat.TSV,
    }
    assert sorted(QUAD_FORMATS) == ["jsonld", "nq", "trig"]
    for command in (
        data_commands.query,
        data_commands.show,
        data_commands.stats,
        export_commands.export,
    ):
        for name in _choices(command):
            # "table" is a text table for people, "ro-crate" a directory: not media types
            assert name in NAMES or name in DUMP_FORMATS or name in ("table", "ro-crate")
    for name in export_commands.RECORD_FORMATS:
        assert media_type_of(name) in EXPORT_MEDIA_TYPES


def test_dump_names_and_suffixes() -> None:
    assert {name: dump_name(name, gzip=False) for name in DUMP_FORMATS} == {
        "nquads": "claimgraph.nq",
        "trig": "claimgraph.trig",
        "jsonld": "claimgraph.jsonld",
    }
    assert dump_name("nquads", gzip=True) == "claimgraph.nq.gz"
    assert all(fmt.quads for fmt in DUMP_FORMATS.values())
