"""Reading SPARQL text without parsing it (kg.rdf.sparqltext): the quick keyword finder
finds exactly what its pattern finds, and the row cap goes only where it keeps the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.rdf.sparqltext import keywords, tokens, with_row_limit
from kg.web.sparql.guard import Refused, check_query

ROOT = Path(__file__).resolve().parent.parent
#: Every query the project ships, and texts written to catch a finder that looks only for
#: letters: keywords beside prefixed names, variables, other keywords and braces, in any
#: case, inside strings and IRIs, and letters that match ASCII ones only under Unicode
#: case folding (the Kelvin sign, the long s).
TEXTS = [path.read_text() for path in sorted(ROOT.glob("queries/**/*.rq"))] + [
    "SELECT ?limit ?offset WHERE { ?s ex:limit ?o ; ex:values ?v } lImIt 3 OFFSET 2",
    "select*{?s?p?o}limit 1 values ?s{<urn:a>}",
    "SELECT ?x WHERE { { SELECT ?x { ?x ?p ?o } LIMIT 5 } } VALUES ?x { <urn:limit> }",
    "ASK { ?s ?p \"LIMIT } OFFSET {\" . ?s ?p '''VALUES''' } # LIMIT 3",
    "SELECT ?address ?withdrawn WHERE { ?s ex:add ?address ; ex:copy-to ?withdrawn }",
    "PREFIX insert: <urn:x> SELECT * { ?s insert:delete ?o . ?s ?p ?into }",
    "SELECT ?s { ?s ?p ?o } ORDER BY ?s LIMIT10 LIMIT-1 -LIMIT :LIMIT LIMIT:a",
    "SELECT * { SERVICE <http://x/> { ?s ?p ?o } } limitlimit limit",
    "SELECT * { \u017fERVICE <http://x/> { ?s ?p ?o } } LIMIT 1 \u212aLIMIT",
    "SELECT * FROM <urn:g> { ?s ?p ?o } LIMIT 2 wasDerivedFrom FROM",
    "DELETE { ?s ?p ?o } insert { ?s ?p 1 } WHERE { ?s ?p ?o }; Add <urn:a> TO <urn:b>",
    "",
    "LIMIT",
    "{}}{ LIMIT { OFFSET",
]
WORDS = [
    ("LIMIT", "OFFSET", "VALUES"),
    ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"),
    ("INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH"),
    ("SERVICE",),
    ("FROM",),
    ("WHERE",),
]


@pytest.mark.parametrize("words", WORDS, ids=lambda words: words[0])
def test_the_quick_finder_finds_what_the_pattern_finds(words: tuple[str, ...]) -> None:
    finder = keywords(*words)
    found_some = False
    for text in TEXTS:
        bare = tokens(text)
        quick = [(m.start(), m.group(1)) for m in finder.finditer(bare)]
        assert quick == [(m.start(), m.group(1)) for m in finder.pattern.finditer(bare)], text
        first = finder.search(bare)
        assert (first.start() if first else None) == (quick[0][0] if quick else None)
        found_some = found_some or bool(quick)
    assert found_some  # the texts hold each group of words somewhere


@pytest.mark.parametrize(
    ("text", "capped"),
    [
        ("SELECT * WHERE { ?s ?p ?o }", True),
        ("SELECT * WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 5 } }", True),
        ("SELECT * WHERE { VALUES ?s { <urn:a> } ?s ?p ?o }", True),
        ('SELECT * WHERE { ?s ?p "} LIMIT 3" }', True),
        ("SELECT ?limit WHERE { ?s ex:limit ?limit }", True),
        ("SELECT * { ?s ?p ?o } ORDER BY ?s limit 3", False),
        ("SELECT * { ?s ?p ?o } OFFSET 3", False),
        ("SELECT * { ?s ?p ?o } VALUES ?s { <urn:a> }", False),
        ("SELECT * { ?s ?p ?o }LIMIT 3", False),
        ("ASK { ?s ?p ?o }", False),
        ("CONSTRUCT WHERE { ?s ?p ?o }", False),
    ],
)
def test_the_row_cap_is_added_only_outside_every_group(text: str, capped: bool) -> None:
    assert with_row_limit(text, 11) == (f"{text}\nLIMIT 11" if capped else None)


@pytest.mark.parametrize(
    "text",
    [
        "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
        "PREFIX ex: <urn:x> delete where { ?s ex:p ?o }",
        "SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
        "select * { service <http://127.0.0.1:9/> { ?s ?p ?o } }",
    ],
)
def test_updates_and_service_are_refused_in_any_case(text: str) -> None:
    with pytest.raises(Refused):
        check_query(text)


@pytest.mark.parametrize(
    "text",
    [
        'SELECT * { ?s ?p "INSERT DATA SERVICE" }',
        "SELECT ?address ?withdrawn { ?s ex:copy ?address ; ex:service ?withdrawn }",
        "SELECT * { ?s ?p ?o } # DELETE WHERE { ?s ?p ?o }",
    ],
)
def test_keywords_in_strings_names_and_comments_are_not_refused(text: str) -> None:
    check_query(text)
