"""Records as W3C Web Annotations (kg export --format web-annotation, /record/ID.wa.jsonld):
each export expanded by pyld with the vendored Web Annotation context (never the network),
its target and selectors checked against what the store says of the record, and the file
it names checked against the kept bytes."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient
from pyld import jsonld
from pyld.jsonld import JsonLdError

from helpers import BASE, DATA, OTHER_ID, SEED_ID, WITHOUT_IMPORT, open_test_store
from kg.cli import main
from kg.export.web_annotation import ANNO_CONTEXT, context_path, document_loader
from kg.store import EmbeddedStore
from kg.store.load import load_paths

OA = "http://www.w3.org/ns/oa#"
RDF_VALUE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"
CONFORMS_TO = "http://purl.org/dc/terms/conformsTo"
SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
IS_VERSION_OF = "http://purl.org/dc/terms/isVersionOf"
DC_FORMAT = "http://purl.org/dc/elements/1.1/format"
PDF_FRAGMENT = "http://tools.ietf.org/rfc/rfc3778"
JSON_POINTER = "http://tools.ietf.org/rfc/rfc6901"
PROFILE = 'application/ld+json;profile="http://www.w3.org/ns/anno.jsonld"'
SEED_SOURCE_ID = "saadat-fellay-2026-genomic-lm-efficiency"
PREFIXES = """PREFIX kg: <https://w3id.org/claimgraph/ns#> PREFIX oa: <http://www.w3.org/ns/oa#>
PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX spdx: <http://spdx.org/rdf/terms#>
PREFIX dct: <http://purl.org/dc/terms/> PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
"""
#: An id for a record made here, quoted from a source that pins no file.
UNPINNED = "unpinned-test-record"
UNPINNED_SOURCE = "unpinned-test-source"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """The bundled data (the seed and the imported slice), loaded into a store on disk."""
    root = tmp_path_factory.mktemp("wa")
    shutil.copytree(DATA, root / "data")
    with EmbeddedStore(root / "store") as writer:
        load_paths(writer, [root / "data"], BASE)
    return root / "store"


def rows(store: Path, query: str) -> list[dict[str, str]]:
    """A SPARQL SELECT against the store, each row as {variable: the term's value}."""
    with open_test_store(store, read_only=True) as reader:
        answer = reader.query(PREFIXES + query)
        names = [v.value for v in answer.variables]
        return [{n: row[n].value for n in names} for row in answer]


def export(store: Path, ident: str, output: Path | None = None) -> dict:
    """``kg export ID --format web-annotation`` (with ``-o`` when ``output`` is given)."""
    args = ["--store", str(store), "--base", BASE, "export", ident, "--format", "web-annotation"]
    result = CliRunner().invoke(main, [*args, *(["-o", str(output)] if output else [])])
    assert result.exit_code == 0, result.output
    return json.loads(output.read_text() if output else result.stdout)


def expand(doc: dict) -> dict:
    """pyld's expansion of one annotation, the context loaded from the vendored copy."""
    [node] = jsonld.expand(doc, {"documentLoader": document_loader})
    return node


def one(node: dict, prop: str) -> dict:
    [value] = node[prop]
    return value


def ni(sha256_hex: str) -> str:
    """RFC 6920's name of a SHA-256, worked out here on its own."""
    digest = base64.urlsafe_b64encode(bytes.fromhex(sha256_hex)).decode().rstrip("=")
    return f"ni:///sha-256;{digest}"


def by_type(nodes: list[dict], cls: str) -> list[dict]:
    return [n for n in nodes if OA + cls in n.get("@type", [])]


def record_iri(ident: str) -> str:
    return f"{BASE}record/{ident}"


# -- the seed record: a quote on a page of the pinned PDF -------------------------------------


def test_the_seed_record_as_an_annotation(store: Path, tmp_path: Path) -> None:
    doc = export(store, SEED_ID, tmp_path / "seed.wa.jsonld")
    assert doc["@context"] == ANNO_CONTEXT  # by reference, as annotation tools expect
    node = expand(doc)
    assert node["@id"] == record_iri(SEED_ID) + ".wa.jsonld"
    assert node["@type"] == [OA + "Annotation"]
    assert one(node, OA + "motivatedBy")["@id"] == OA + "describing"

    [facts] = rows(
        store,
        f"""SELECT ?quote ?page ?sha ?artifact ?printed WHERE {{
        <{record_iri(SEED_ID)}> kg:locator ?l ; prov:wasQuotedFrom ?src ;
            kg:reportedValue/kg:printedValue ?printed .
        ?l kg:page ?page ; oa:hasSelector ?s . ?s a oa:TextQuoteSelector ; oa:exact ?quote .
        ?src kg:artifact ?artifact . ?artifact spdx:checksum/spdx:checksumValue ?sha }}""",
    )

    # the bodies: the claim in words with its printed value, and the record itself
    [text] = by_type(node[OA + "hasBody"], "TextualBody")
    assert one(text, OA + "hasPurpose")["@id"] == OA + "describing"
    assert f": {facts['printed']} GB" in one(text, RDF_VALUE)["@value"]
    [identity] = by_type(node[OA + "hasBody"], "SpecificResource")
    assert one(identity, OA + "hasSource")["@id"] == record_iri(SEED_ID)
    assert one(identity, OA + "hasPurpose")["@id"] == OA + "identifying"

    # the target: the pinned file by its SHA-256, linked to the registry's nodes
    target = one(node, OA + "hasTarget")
    assert target["@type"] == [OA + "SpecificResource"]
    file = one(target, OA + "hasSource")
    assert file["@id"] == ni(facts["sha"])
    assert one(file, SAME_AS)["@id"] == facts["artifact"]
    assert one(file, IS_VERSION_OF)["@id"] == f"{BASE}source/{SEED_SOURCE_ID}"
    [retrieved] = rows(
        store, f"SELECT ?url WHERE {{ <{facts['artifact']}> dcat:downloadURL ?url }}"
    )
    assert one(file, OA + "via")["@id"] == retrieved["url"]

    # the selectors: the page refined by the quote, and the quote alone
    selectors = target[OA + "hasSelector"]
    [page] = by_type(selectors, "FragmentSelector")
    assert one(page, CONFORMS_TO)["@id"] == PDF_FRAGMENT
    assert one(page, RDF_VALUE)["@value"] == f"page={facts['page']}"
    refined = one(page, OA + "refinedBy")
    assert refined["@type"] == [OA + "TextQuoteSelector"]
    [quote] = by_type(selectors, "TextQuoteSelector")
    for selector in (refined, quote):
        assert one(selector, OA + "exact")["@value"] == facts["quote"]


def test_stdout_and_file_agree(store: Path, tmp_path: Path) -> None:
    assert export(store, SEED_ID) == export(store, SEED_ID, tmp_path / "a.wa.jsonld")


# -- an imported record: a JSON Pointer into the kept file ------------------------------------


def test_an_imported_record_points_into_its_kept_file(store: Path, tmp_path: Path) -> None:
    [facts] = rows(
        store,
        """SELECT ?record ?pointer ?sha ?kept ?media ?printed WHERE {
        ?record kg:importedBy ?import ; kg:locator ?l ; kg:reportedValue/kg:printedValue ?printed .
        ?l oa:hasSource ?artifact ; oa:hasSelector ?s .
        ?s dct:conformsTo <http://tools.ietf.org/rfc/rfc6901> ; rdf:value ?pointer .
        ?artifact spdx:checksum/spdx:checksumValue ?sha ; kg:keptFile ?kept ;
            dcat:mediaType ?media } ORDER BY ?record LIMIT 1""",
    )
    ident = facts["record"].removeprefix(f"{BASE}record/")
    node = expand(export(store, ident, tmp_path / "imported.wa.jsonld"))
    target = one(node, OA + "hasTarget")
    file = one(target, OA + "hasSource")
    assert file["@id"] == ni(facts["sha"])
    assert one(file, DC_FORMAT)["@value"] == facts["media"]
    [selector] = target[OA + "hasSelector"]
    assert selector["@type"] == [OA + "FragmentSelector"]
    assert one(selector, CONFORMS_TO)["@id"] == JSON_POINTER
    assert one(selector, RDF_VALUE)["@value"] == facts["pointer"]

    # the name is of the kept bytes, and the pointer finds the printed value in them
    kept = (DATA / facts["kept"]).read_bytes()
    assert ni(hashlib.sha256(kept).hexdigest()) == file["@id"]
    value = json.loads(kept, parse_float=str, parse_int=str)  # numbers as written
    for token in facts["pointer"].lstrip("/").split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    assert str(value) == facts["printed"]


# -- a record whose source pins no file --------------------------------------------------------


def test_without_a_pinned_file_the_source_document_is_the_target(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=WITHOUT_IMPORT)
    source = (data / "sources" / f"{SEED_SOURCE_ID}.yaml").read_text()
    source = source.replace(f"id: {SEED_SOURCE_ID}", f"id: {UNPINNED_SOURCE}")
    source = source.split("artifact:")[0] + (
        'doi: "10.5555/unpinned"\nurl: https://example.org/unpinned\n'
    )
    (data / "sources" / f"{UNPINNED_SOURCE}.yaml").write_text(source)
    record = (data / "records" / f"{OTHER_ID}.yaml").read_text()
    record = record.replace(f"id: {OTHER_ID}", f"id: {UNPINNED}")
    (data / "records" / f"{UNPINNED}.yaml").write_text(
        record.replace(SEED_SOURCE_ID, UNPINNED_SOURCE)
    )
    with EmbeddedStore(tmp_path / "store") as writer:
        load_paths(writer, [data], BASE)
    [facts] = rows(
        tmp_path / "store",
        f"""SELECT ?quote WHERE {{
        <{record_iri(UNPINNED)}> kg:locator/oa:hasSelector ?s .
        ?s a oa:TextQuoteSelector ; oa:exact ?quote .
        FILTER NOT EXISTS {{ <{BASE}source/{UNPINNED_SOURCE}> kg:artifact ?any }} }}""",
    )

    target = one(expand(export(tmp_path / "store", UNPINNED)), OA + "hasTarget")
    document = one(target, OA + "hasSource")
    assert document["@id"] == f"{BASE}source/{UNPINNED_SOURCE}"
    assert one(document, SAME_AS)["@id"] == "https://doi.org/10.5555/unpinned"
    assert one(document, "http://xmlns.com/foaf/0.1/homepage")["@id"] == (
        "https://example.org/unpinned"
    )
    [quote] = by_type(target[OA + "hasSelector"], "TextQuoteSelector")
    assert one(quote, OA + "exact")["@value"] == facts["quote"]


def test_a_source_is_no_annotation(store: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "--store",
            str(store),
            "--base",
            BASE,
            "export",
            SEED_SOURCE_ID,
            "--format",
            "web-annotation",
        ],
    )
    assert result.exit_code == 1 and result.stdout == ""


# -- the web app -------------------------------------------------------------------------------


def test_the_record_page_by_suffix_and_by_accept(client: FlaskClient, store: Path) -> None:
    by_suffix = client.get(f"/record/{SEED_ID}.wa.jsonld")
    assert by_suffix.status_code == 200
    assert by_suffix.mimetype == "application/ld+json"
    assert by_suffix.mimetype_params["profile"] == ANNO_CONTEXT
    assert by_suffix.json == export(store, SEED_ID)
    by_accept = client.get(f"/record/{SEED_ID}", headers={"Accept": PROFILE})
    assert by_accept.status_code == 200 and by_accept.json == by_suffix.json
    assert "Accept" in by_accept.headers["Vary"]
    # plain JSON-LD is still the framed record, with its own context inline
    plain = client.get(f"/record/{SEED_ID}", headers={"Accept": "application/ld+json"})
    assert plain.status_code == 200 and isinstance(plain.json["@context"], dict)
    assert plain.json["id"] == record_iri(SEED_ID)
    preferred = client.get(
        f"/record/{SEED_ID}", headers={"Accept": f"application/ld+json;q=0.5, {PROFILE}"}
    )
    assert preferred.json["@context"] == ANNO_CONTEXT


def test_the_record_page_links_its_annotation(client: FlaskClient) -> None:
    page = client.get(f"/record/{SEED_ID}")
    assert page.status_code == 200
    assert f'href="/record/{SEED_ID}.wa.jsonld"' in page.get_data(as_text=True)


@pytest.mark.parametrize(
    ("path", "accept", "status"),
    [
        (f"/source/{SEED_SOURCE_ID}.wa.jsonld", None, 406),
        (f"/source/{SEED_SOURCE_ID}", PROFILE, 406),
        ("/agent/claude.wa.jsonld", None, 406),
        ("/record/no-such-record.wa.jsonld", None, 404),
    ],
)
def test_only_records_are_annotations(
    client: FlaskClient, path: str, accept: str | None, status: int
) -> None:
    headers = {"Accept": accept} if accept else {}
    assert client.get(path, headers=headers).status_code == status


# -- the vendored context ----------------------------------------------------------------------


def _terms(node, found: set[str]) -> set[str]:
    """The keys an annotation uses and the values it gives as terms (types, motivations)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "@context":
                continue
            found.add(key)
            if key in ("type", "motivation", "purpose"):
                found.update(value if isinstance(value, list) else [value])
            _terms(value, found)
    elif isinstance(node, list):
        for value in node:
            _terms(value, found)
    return found


def _values(node) -> int:
    """How many statements a compacted document makes: one per value of each key but
    ``id`` (a node's own name) and ``@context``."""
    if isinstance(node, list):
        return sum(_values(value) for value in node)
    if not isinstance(node, dict):
        return 0
    count = 0
    for key, value in node.items():
        if key in ("id", "@context"):
            continue
        values = value if isinstance(value, list) else [value]
        count += len(values) + sum(_values(v) for v in values)
    return count


def test_every_term_written_is_in_the_vendored_context(store: Path, tmp_path: Path) -> None:
    context = json.loads(context_path().read_bytes())["@context"]
    [imported] = rows(
        store, "SELECT ?r WHERE { ?r a kg:Claim ; kg:importedBy ?i } ORDER BY ?r LIMIT 1"
    )
    docs = [export(store, SEED_ID), export(store, imported["r"].removeprefix(f"{BASE}record/"))]
    for term in set().union(*(_terms(doc, set()) for doc in docs)):
        prefix, colon, _ = term.partition(":")
        assert term in context or (colon and prefix in context), term
    # and expanding drops nothing: one statement per value written (a term the context
    # lacked would be dropped without a word)
    for doc in docs:
        quads = jsonld.to_rdf(
            doc, {"documentLoader": document_loader, "format": "application/n-quads"}
        )
        assert len(quads.splitlines()) == _values(doc) > 20


def test_the_vendored_context_is_the_recorded_file() -> None:
    # schemas/web-annotation/README.md gives the hash of the file as it was taken
    readme = (context_path().parent / "README.md").read_text()
    assert hashlib.sha256(context_path().read_bytes()).hexdigest() in readme
    assert json.loads(context_path().read_bytes())["@context"]["oa"] == OA


def test_the_loader_never_fetches_another_context() -> None:
    with pytest.raises(JsonLdError):
        jsonld.expand(
            {"@context": "https://example.org/other.jsonld", "@id": "x"},
            {"documentLoader": document_loader},
        )
