"""Round trip: the seed's YAML -> RDF -> SPARQL gives back every value the seed page shows."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from helpers import BASE, DATA, SEED_ID
from kg.model.ingest import validate_files
from kg.model.validation import map_paths

PREFIXES = """
PREFIX kg: <https://w3id.org/claimgraph/ns#>
PREFIX kgv: <https://w3id.org/claimgraph/vocab#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX qudt: <http://qudt.org/schema/qudt/>
PREFIX unit: <http://qudt.org/vocab/unit/>
PREFIX spdx: <http://spdx.org/rdf/terms#>
PREFIX oa: <http://www.w3.org/ns/oa#>
PREFIX cito: <http://purl.org/spar/cito/>
PREFIX schema: <https://schema.org/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
"""
CLAIM = f"<{BASE}record/{SEED_ID}>"


@pytest.fixture(scope="module")
def store() -> ox.Store:
    """The seed data mapped and loaded, one named graph per file, as the store will hold it."""
    store = ox.Store()
    validate_files([DATA], BASE)
    for mapped in map_paths([DATA], BASE):
        graph = ox.NamedNode(str(mapped.graph))
        store.extend(ox.Quad(*_ox(t), graph) for t in mapped.triples)
    return store


def _ox(triple):  # rdflib terms -> pyoxigraph terms, via N-Triples
    text = " ".join(term.n3() for term in triple) + " ."
    return next(iter(ox.parse(text.encode(), ox.RdfFormat.N_TRIPLES))).triple


def one(store: ox.Store, where: str) -> dict[str, str]:
    solutions = store.query(
        PREFIXES + f"SELECT * WHERE {{ {where} }}", use_default_graph_as_union=True
    )
    names = [v.value for v in solutions.variables]
    rows = list(solutions)
    assert len(rows) == 1, (where, rows)
    return {name: rows[0][name].value for name in names if rows[0][name] is not None}


def test_every_file_is_its_own_named_graph(store: ox.Store) -> None:
    graphs = {g.value for g in store.named_graphs()}
    assert f"{BASE}record/{SEED_ID}" in graphs
    assert f"{BASE}source/saadat-fellay-2026-genomic-lm-efficiency" in graphs
    assert f"{BASE}agent/claude" in graphs
    assert f"{BASE}evaluation/nt-2-5b-training-peak-memory-stage-deepspeed" in graphs


def test_the_value_printed_and_typed(store: ox.Store) -> None:
    row = one(
        store,
        f"""{CLAIM} kg:reportedValue ?v . ?v kg:printedValue ?printed ;
        qudt:numericValue ?numeric ; qudt:unit ?unit ; kg:displayValue ?shown ; kg:unitDetail ?detail .
        FILTER(datatype(?numeric) = xsd:decimal)""",
    )
    assert row == {
        "v": f"{BASE}record/{SEED_ID}#value",
        "printed": "11.49",
        "numeric": "11.49",
        "unit": "http://qudt.org/vocab/unit/GigaBYTE",
        "shown": "11.5",
        "detail": "Printed as GB",
    }


def test_metric_fields(store: ox.Store) -> None:
    row = one(
        store,
        f"""{CLAIM} dcterms:title ?title ; kg:metric ?metric ; kg:metricLabel ?label ;
        kg:metricDirection ?direction ; kg:metricQualifier ?qualifier ; kg:scopeNote ?scope ;
        kg:hardwareAsReported ?hardware ; dcterms:identifier ?id""",
    )
    assert row["title"].startswith(
        "Peak memory (Training, sequence length 1000, batch size 16, "
        "stage + DeepSpeed (FlashAttention, checkpointing and ZeRO "
        "Stage-2 CPU offload)) of NT 2.5B, training with"
    )
    assert row["title"].endswith(
        "on Synthetic uniform random DNA sequences, seed 42 (Saadat and Fellay 2026)"
    )
    assert row["metric"] == "peak-memory"
    assert row["label"] == "Peak memory"
    assert row["direction"].endswith("#lower")
    assert row["qualifier"] == (
        "Training, sequence length 1000, batch size 16, stage + DeepSpeed "
        "(FlashAttention, checkpointing and ZeRO Stage-2 CPU offload)"
    )
    assert row["scope"] == "Peak allocated GPU memory (Appendix A.3)"
    assert row["hardware"] == "NVIDIA H100 (section 2.4); 'H100 94GB GPUs' (section 4)"
    assert row["id"] == SEED_ID


def test_methods_fields(store: ox.Store) -> None:
    row = one(
        store,
        f"""{CLAIM} kg:testedConfiguration ?tc ; kg:protocol ?p ; kg:dataset ?d ;
        kg:procedure ?pr ; kg:evaluation ?e .
        ?tc kg:model ?model ; kg:configuration ?config ; dcterms:source ?src .
        ?p rdf:value ?protocol ; kg:citedAt ?at . ?d rdf:value ?dataset . ?pr rdf:value ?procedure .
        ?e dcterms:title ?evaluation""",
    )
    assert row["model"] == "NT 2.5B"
    assert row["config"] == "training with FlashAttention, checkpointing and ZeRO-2 offload"
    assert row["protocol"] == (
        "Training peak GPU memory under progressive optimizations, "
        "sequence length 1000, batch size 16"
    )
    assert row["procedure"] == row["protocol"]
    assert row["at"] == "Figure 3"
    assert row["dataset"] == "Synthetic uniform random DNA sequences, seed 42"
    assert row["evaluation"] == "NT 2.5B training peak memory, stage + DeepSpeed"


def test_not_reported_is_said_with_its_reason(store: ox.Store) -> None:
    row = one(
        store,
        f"""{CLAIM} kg:coverage ?c ; kg:uncertainty ?u ; kg:reproduction ?r ;
        kg:missingMetadata ?m .
        ?c kg:scored/kg:reason ?scored ; kg:eligible/kg:reason ?eligible .
        ?u kg:reason ?uncertainty .
        ?r kg:split/kg:reason ?split ; kg:scoringImplementation/kg:reason ?scoring ;
           kg:adaptation ?adaptation ; kg:upstreamRecipeNote ?note .
        ?m kg:field ?field ; kg:reason ?why""",
    )
    kgv = "https://w3id.org/claimgraph/vocab#"
    assert (
        row["scored"]
        == row["eligible"]
        == row["uncertainty"]
        == row["scoring"]
        == (kgv + "unreported")
    )
    assert row["split"] == kgv + "not-applicable"
    assert row["adaptation"] == "Training step; LoRA or full update not stated"
    assert row["note"].startswith(
        "No execution recipe has been verified for this exact configuration and evaluation."
    )
    assert row["field"] == "https://w3id.org/claimgraph/ns#uncertainty"
    assert row["why"] == kgv + "unreported"


def test_evidence_and_locator(store: ox.Store) -> None:
    row = one(
        store,
        f"""{CLAIM} kg:evidenceKind ?kind ; kg:reviewStatus ?status ;
        kg:locator ?loc ; kg:evidenceRow ?row ; kg:upstreamRelease ?release .
        ?loc rdfs:label ?text ; kg:section ?section ; kg:paragraph ?para ; kg:page ?page ;
             kg:figure ?figure ; kg:figureElement ?element ;
             oa:hasSelector [ a oa:TextQuoteSelector ; oa:exact ?quote ] ;
             oa:hasSelector [ a oa:FragmentSelector ; rdf:value ?fragment ] .
        ?row rdf:value ?statement ; kg:statementProperty ?prop ; kg:citationType ?citation ;
             kg:sharedLocator ?shared ; kg:locator ?loc ; cito:citesAsEvidence ?src ;
             kg:reviewedBy ?review""",
    )
    kgv = "https://w3id.org/claimgraph/vocab#"
    assert row["kind"] == kgv + "independent-external-evaluation"
    assert row["status"] == kgv + "source-checked"
    assert row["quote"] == "the NT 2.5B checkpoint (33.88 \u2192 11.49 GB)"
    assert row["text"] == (
        "Section 3.3 'ZeRO offload' paragraph (page 6): 'the NT 2.5B checkpoint "
        "(33.88 \u2192 11.49 GB)'; stage + DeepSpeed (FlashAttention, "
        "checkpointing and ZeRO Stage-2 CPU offload) of Figure 3"
    )
    assert (row["section"], row["para"], row["page"], row["figure"]) == (
        "3.3",
        "ZeRO offload",
        "6",
        "Figure 3",
    )
    assert row["element"] == (
        "stage + DeepSpeed (FlashAttention, checkpointing and ZeRO Stage-2 CPU offload)"
    )
    assert row["fragment"] == "page=6"
    assert row["statement"] == "11.49"
    assert row["prop"] == kgv + "reported-result"
    assert row["citation"] == kgv + "individual-claim"
    assert row["shared"] == "false"
    assert row["release"] == "2026-10-22-1b7cf027e4f6"


def test_source_and_artifact(store: ox.Store) -> None:
    row = one(
        store,
        f"""{CLAIM} prov:wasQuotedFrom ?src .
        ?src dcterms:title ?title ; kg:venue ?venue ; dcterms:issued ?date ; a schema:ScholarlyArticle ;
             kg:artifact ?art .
        ?art prov:specializationOf ?src ; kg:versionStatement ?version ; kg:pageCount ?pages ;
             kg:pdfCreationDate ?created ; dcat:downloadURL ?url ;
             kg:hashScope [ kg:reason ?scope_reason ; rdfs:comment ?scope_note ] ;
             spdx:checksum [ spdx:algorithm spdx:checksumAlgorithm_sha256 ; spdx:checksumValue ?sha ]""",
    )
    assert row["title"] == (
        "Optimizing genomic language models for efficient training, fine-tuning, and inference"
    )
    assert row["venue"] == "ICLR 2026 workshop"
    assert row["date"] == "2026"
    assert row["version"] == "OpenReview PDF headed 'Published as a workshop paper at ICLR 2026'"
    assert (row["pages"], row["created"]) == ("11", "2026-03-09")
    assert row["url"] == "https://openreview.net/pdf?id=NUleWh1GFx"
    assert row["sha"] == "4bc2452110f280a7ba8baa4c7c28beac89769511019666bc77fc33af9b3bcd60"
    assert row["scope_note"] == "Hash scope not separately documented; inspect source record"
    authors = [
        r["family"].value
        for r in store.query(
            PREFIXES + f"SELECT ?family WHERE {{ {CLAIM} prov:wasQuotedFrom/dcterms:creator ?a . "
            "?a schema:familyName ?family ; kg:position ?n } ORDER BY ?n",
            use_default_graph_as_union=True,
        )
    ]
    assert authors == ["Saadat", "Fellay"]


def test_upstream_review(store: ox.Store) -> None:
    row = one(
        store,
        f"""?review kg:reviewOf {CLAIM} ; a prov:Activity ; prov:endedAtTime ?at ;
        prov:wasAssociatedWith ?agent ; kg:reviewStatus ?status ; kg:methodNote ?how ;
        kg:outcomeNote ?outcome ; kg:origin ?origin ; kg:usedArtifact ?art ;
        prov:qualifiedAssociation [ prov:agent ?agent ; prov:hadRole ?role ; rdfs:comment ?note ] .
        ?agent rdfs:label ?agent_label ; a prov:SoftwareAgent .
        ?art spdx:checksum/spdx:checksumValue ?sha .
        FILTER(datatype(?at) = xsd:dateTime)""",
    )
    kgv = "https://w3id.org/claimgraph/vocab#"
    assert row["at"] == "2026-10-15T22:00:00Z"
    assert row["agent_label"] == "claude"
    assert row["role"] == kgv + "reviewer"
    assert row["origin"] == kgv + "upstream-registry"
    assert row["note"].startswith("Claude review agent; no human review claimed.")
    assert row["note"].endswith("Automated review only. Transcription, not reproduction.")
    assert row["how"].startswith(
        "Matched the pinned PDF SHA-256 (archived copy of the hand download"
    )
    assert row["outcome"] == "Value, metric and identity match the source."
    assert row["sha"].startswith("4bc2452110f2") and row["sha"].endswith("cd60")
    methods = {
        r["m"].value.rsplit("#", 1)[1]
        for r in store.query(
            PREFIXES + f"SELECT ?m WHERE {{ ?r kg:reviewOf {CLAIM} ; kg:method ?m }}",
            use_default_graph_as_union=True,
        )
    }
    assert methods == {
        "source-hash-verification",
        "pdf-text-parse",
        "independent-cell-check",
        "rendered-source-visual-check",
    }


def test_the_nquads_ingest_writes_are_what_pyoxigraph_writes(tmp_path) -> None:
    """kg.rdf.terms.nquads writes lines itself (no ox.Quad per triple): byte for byte what
    ox.serialize writes, for the seed and for literals that need escapes."""
    from rdflib import Literal, URIRef

    from bench import gen
    from kg.rdf.terms import nquads, to_quads

    gen.generate(20, 3, tmp_path)
    files = list(map_paths([DATA], BASE)) + list(map_paths([tmp_path], BASE))
    for mapped in files:
        graph = str(mapped.graph)
        expected = ox.serialize(list(to_quads(mapped.triples, graph)), format=ox.RdfFormat.N_QUADS)
        assert nquads(mapped.triples, graph) == (expected, len(mapped.triples))
    s, p = URIRef("https://e.org/s"), URIRef("https://e.org/p")
    odd = [
        (s, p, Literal('quote " backslash \\ line\nbreak tab\t \u0001 é →')),
        (s, p, Literal("x", lang="en-GB")),
        (s, p, Literal("1.0", datatype=URIRef("http://www.w3.org/2001/XMLSchema#decimal"))),
    ]
    expected = ox.serialize(
        [ox.Quad(q.subject, q.predicate, q.object) for q in to_quads(odd, graph)],
        format=ox.RdfFormat.N_QUADS,
    )
    assert nquads(odd, None) == (expected, 3)
