"""/sparql: the SPARQL 1.1 Protocol, read-only, with a time limit, a row cap and a form."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from flask import Response, render_template, request, url_for
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF, RDFS, XSD
from werkzeug.sansio.utils import get_current_url
from werkzeug.utils import get_content_type
from werkzeug.wrappers import Request

from ...errors import UsageError
from ...rdf.formats import W3C_FORMATS, by_media_type, media_types
from ...rdf.namespaces import KG, PREFIXES
from ...rdf.negotiation import named_media_type, negotiate
from ...rdf.sparqltext import inside_where, query_form
from ...store.queries import canned_queries, canned_query
from ...store.sparql_requests import values_clause
from ..http.request_rules import FORM, Params, Rules, int_param, params
from ..http.security import EDITOR_POLICY
from ..state import AppState, state
from ..workers.pool import QueryAnswer, QueryPool, QueryRequest, QueryRunner, open_query_runner
from .guard import check_query

SPARQL_QUERY = "application/sparql-query"
SPARQL_UPDATE = "application/sparql-update"
READ_ONLY = "this endpoint is read-only: SPARQL updates are refused"
#: What a request to /sparql may carry. The SPARQL 1.1 Protocol (section 2.1): a query by
#: GET, by a form POST or directly as the body; an update is refused whichever way it comes.
REQUESTS = Rules(
    exclusive=(frozenset({"query", "canned"}),),
    bodies={FORM: "", SPARQL_QUERY: "query"},
    refused={
        name: READ_ONLY
        for name in ("update", "using-graph-uri", "using-named-graph-uri", SPARQL_UPDATE)
    },
    reads_release=True,
)

#: What the form and the editor hold before a query is given.
DEFAULT_QUERY = """PREFIX kg: <https://w3id.org/claimgraph/ns#>
PREFIX dcterms: <http://purl.org/dc/terms/>

SELECT ?record ?title WHERE {
  ?record a kg:Claim ; dcterms:title ?title .
}
LIMIT 20"""
SD = Namespace("http://www.w3.org/ns/sparql-service-description#")
FORMATS_NS = Namespace(W3C_FORMATS)
#: What SELECT and ASK results, graphs (CONSTRUCT, DESCRIBE) and the service description
#: come as, in order of preference.
SELECT_OFFERED = media_types("srj", "srx", "csv", "tsv", "json", "html")
GRAPH_OFFERED = media_types("ttl", "nt", "jsonld", "rdf", "html")
DESCRIPTION_OFFERED = media_types("html", "ttl", "nt", "jsonld", "rdf")
#: A graph asked for by the name of a results format: ``format=xml`` of a CONSTRUCT or
#: DESCRIBE is RDF/XML, a graph's one XML syntax (SPARQLWrapper's default return format,
#: XML, sends it so, with ``Accept: application/rdf+xml``).
GRAPH_NAMED_AS_RESULTS = dict(zip(media_types("srx"), media_types("rdf"), strict=True))
# The form shows a result as HTML: the workers write it as SPARQL JSON (a table) or Turtle.
HTML, SPARQL_JSON, TURTLE = media_types("html", "srj", "ttl")
# What a script of another origin may read of an answer; what it may send, said only in
# the preflight's answer (the only one a browser reads it from: Fetch, "CORS protocol").
# Access-Control-Allow-Origin is kg.web.http.security's, on every answer that only reads.
CORS = {"Access-Control-Expose-Headers": "X-Truncated, X-Rows"}
PREFLIGHT = {
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, Accept",
}


def pool(release: str | None = None, app_state: AppState | None = None) -> QueryRunner:
    """What runs the app's queries (worker processes, or the remote store), on first use.
    A release's store is an embedded one in the archive: with a remote live store, its
    queries get worker processes of their own (the same time limit)."""
    app_state = app_state or state()
    settings = app_state.settings
    with app_state.lock:
        if release and settings.remote:
            if app_state.release_pool is None:
                app_state.release_pool = QueryPool(
                    settings.archive_dir,
                    settings.query_workers,
                    settings.query_timeout,
                    settings.query_inline_ms / 1000,
                )
            return app_state.release_pool
        if app_state.query_pool is None:
            app_state.query_pool = open_query_runner(settings)
        return app_state.query_pool


def prefixes() -> Response:
    """The registry's prefixes, as the editor's prefix completion reads them (in place of
    prefix.cc): {"kg": "https://w3id.org/claimgraph/ns#", ...}."""
    return _page(json.dumps(PREFIXES, indent=1), "application/json")


#: Rows of a result's table on the SPARQL page (the downloads give every row).
TABLE_PAGE = 200


def preflight() -> Response:
    return Response(status=204, headers=PREFLIGHT)


def endpoint() -> Response:
    # What the request may carry (parameters, body types; updates refused) was checked
    # before this view ran: kg.web.http.request_rules.
    app_state = state()
    values = params()
    planned = plan(values, request.headers.get("Accept"), endpoint_url(request), app_state)
    if planned is None:
        media_type = negotiate(
            request.headers.get("Accept"), DESCRIPTION_OFFERED, values.get("format")
        )
        if media_type == HTML:
            return _page(render_template("sparql.html", **_form_context()), HTML)
        return _page(service_description(media_type), media_type)

    answer = pool(planned.release).run(planned.request)
    if planned.media_type != HTML:
        return Response(answer.body, headers=answer_head(planned.media_type, answer))
    settings = app_state.settings
    table = (
        _table(json.loads(answer.body), settings.base)
        if planned.request.media_type != TURTLE
        else None
    )
    # the page shows its table a page at a time (a canned query may give 4 MB of rows); the
    # downloads give every row
    pages, page = 1, 1
    if table is not None:
        pages = max(1, -(-len(table["rows"]) // TABLE_PAGE))
        page = min(int_param("page", 1, 1, 1_000_000), pages)
        table["first"] = (page - 1) * TABLE_PAGE
        table["rows"] = table["rows"][table["first"] : page * TABLE_PAGE]
    html = render_template(
        "sparql.html",
        **_form_context(planned.text),
        query=planned.text,
        canned_name=planned.canned,
        table=table,
        page=page,
        pages=pages,
        page_args={k: v for k, v in values.items() if k != "page"},
        graph=None if table else answer.body.decode(),
        truncated=answer.truncated,
        rows=answer.rows,
        max_rows=settings.max_rows,
    )
    return _page(html, HTML, answer_headers(answer))


@dataclass(frozen=True)
class Planned:
    """A request's query as it is to run: what it shows, what it is answered as, where."""

    #: the query as given (a canned query's text without its parameters)
    text: str
    canned: str | None
    #: what the client gets; the request's media type is what the query is written as
    media_type: str
    release: str | None
    request: QueryRequest


def plan(values: Params, accept: str | None, url: str, app_state: AppState) -> Planned | None:
    """What the query of a request with ``values`` and ``Accept: accept`` to the endpoint at
    ``url`` runs as; None where the request gives no query (the form or the service
    description answers).

    :raises UsageError: for a query over the size limit, or parameters that do not fit.
    :raises Refused: for an update or a SERVICE call (403).
    :raises NotAcceptable: where no format offered is acceptable (406).
    :raises NotFoundError: for ``release=`` of no release.
    """
    settings = app_state.settings
    text, run_text, canned = _query_text(values, settings.base)
    if text is None:
        return None
    if len(text.encode()) > settings.max_query_bytes:
        raise UsageError(f"the query is longer than {settings.max_query_bytes} bytes")
    check_query(text)
    override = values.get("format")
    offered = SELECT_OFFERED
    if _is_graph_query(text):
        offered = GRAPH_OFFERED
        if override:
            override = named_media_type(override)
            override = GRAPH_NAMED_AS_RESULTS.get(override, override)
    media_type = negotiate(accept, offered, override)
    worker_type = (
        SPARQL_JSON
        if (media_type == HTML and offered is SELECT_OFFERED)
        else (TURTLE if media_type == HTML else media_type)
    )
    # ?release=ID: the query runs over that release's store (from the archive), in the same
    # workers and under the same time limit as every other query.
    release = values.get("release")
    return Planned(
        text,
        canned,
        media_type,
        release,
        QueryRequest(
            text=run_text,
            media_type=worker_type,
            max_rows=settings.max_rows,
            default_graphs=tuple(values.getlist("default-graph-uri")),
            named_graphs=tuple(values.getlist("named-graph-uri")),
            # relative IRIs in a query without BASE resolve against the endpoint's URL
            base_iri=url,
            store=str(app_state.archive.store_path(release)) if release else "",
            version="" if release else app_state.version,
        ),
    )


def endpoint_url(asked: Request) -> str:
    """The URL ``asked`` was sent to, without its query string (Werkzeug's ``base_url``,
    kept per scheme, host and path: working it out again cost a tenth of a fast query's
    answer)."""
    return _url(asked.scheme, asked.host, asked.root_path, asked.path)


@lru_cache(maxsize=64)
def _url(scheme: str, host: str, root_path: str, path: str) -> str:
    return get_current_url(scheme, host, root_path, path)


def answer_headers(answer: QueryAnswer) -> dict[str, str]:
    """What an answer to a query says of itself in headers, besides its type."""
    return {
        **CORS,
        "X-Truncated": "true" if answer.truncated else "false",
        "X-Rows": str(answer.rows),
    }


def answer_head(media_type: str, answer: QueryAnswer) -> list[tuple[str, str]]:
    """The headers of an answer written as ``media_type`` (results or RDF, not the page),
    but its length: the view's and :mod:`kg.web.sparql.lane`'s alike."""
    return [
        ("Content-Type", get_content_type(media_type, "utf-8")),
        *answer_headers(answer).items(),
        ("Vary", "Accept"),
    ]


def _query_text(values: Params, base: str) -> tuple[str | None, str, str | None]:
    """The query of the request: ``query=`` (GET, form, or the body of a direct POST), or
    ``canned=NAME`` with that query's parameters; the text shown, the text run, the name.

    A canned query's parameters open its WHERE group as a VALUES block (what a remote
    store gets too) rather than being substituted: oxigraph plans a VALUES block, and
    starts from it, where a substituted variable is bound only at run time
    (results-for-model took 0.49 s substituted, 0.16 s with VALUES, on 10,000 records:
    bench/README.md, "Canned queries at scale")."""
    name = values.get("canned")
    if name:
        query = canned_query(name)
        given = {p.name: values[p.name] for p in query.params if values.get(p.name)}
        terms = query.bindings(given, base)
        run = inside_where(query.text, values_clause(terms).strip()) if terms else query.text
        return query.text, run, name
    text = values.get("query")
    text = text if text and text.strip() else None
    return text, text or "", None


def _is_graph_query(text: str) -> bool:
    return query_form(text) in ("CONSTRUCT", "DESCRIBE")


def _page(body: str | bytes, media_type: str, headers: dict[str, str] | None = None) -> Response:
    headers = dict(headers or CORS)
    if media_type == HTML:  # the page with the editor
        headers["Content-Security-Policy"] = EDITOR_POLICY
    response = Response(body, mimetype=media_type, headers=headers)
    response.vary.add("Accept")
    return response


def _form_context(query: str | None = None) -> dict[str, Any]:
    release = params().get("release")
    canned = list(canned_queries().values())
    # What the editor (static/sparql-editor.js) starts from: this endpoint, the registry's
    # prefixes, the canned queries as examples, the query of the form.
    endpoint = "/sparql" + (f"?release={quote(release, safe='')}" if release else "")
    start = query or DEFAULT_QUERY
    return {
        "canned": canned,
        "values": params(),
        "settings": state().settings,
        "release": state().archive.release(release) if release else None,
        "default_query": DEFAULT_QUERY,
        "editor": {
            "endpoint": endpoint,
            "prefixes": url_for("sparql_prefixes"),
            "query": start,
            "canned": {q.name: q.text for q in canned},
        },
    }


def _table(doc: dict[str, Any], base: str) -> dict[str, Any]:
    """SPARQL JSON results as rows of (text, link) cells; our IRIs link to their pages."""
    if "boolean" in doc:
        return {
            "vars": ["result"],
            "rows": [[("true" if doc["boolean"] else "false", "", "xsd:boolean")]],
        }
    variables = doc["head"]["vars"]
    rows = []
    for binding in doc["results"]["bindings"]:
        row = []
        for var in variables:
            term = binding.get(var)
            if term is None:
                row.append(("", "", ""))
            elif term["type"] == "uri":
                value = term["value"]
                # Only web IRIs become links: a query can make any IRI ("javascript:...").
                href = (
                    "/" + value[len(base) :]
                    if value.startswith(base)
                    else value
                    if value.startswith(("http://", "https://"))
                    else ""
                )
                row.append((value, href, "IRI"))
            else:
                row.append((term["value"], "", _kind_of(term)))
        rows.append(row)
    return {"vars": variables, "rows": rows}


def _kind_of(term: dict[str, str]) -> str:
    """What a literal or blank node is, for a cell's hover text: its datatype (``xsd:``
    shortened), its language, or "blank node"."""
    if term["type"] == "bnode":
        return "blank node"
    if "xml:lang" in term:
        return f"text @{term['xml:lang']}"
    datatype = term.get("datatype", "http://www.w3.org/2001/XMLSchema#string")
    return datatype.replace("http://www.w3.org/2001/XMLSchema#", "xsd:")


def service_description(media_type: str) -> bytes:
    """A SPARQL 1.1 Service Description of this endpoint, built as RDF."""
    settings = state().settings
    graph = Graph()
    graph.bind("sd", SD)
    graph.bind("formats", FORMATS_NS)
    graph.bind("kg", KG)
    service = BNode()
    endpoint_iri = URIRef(request.url_root.rstrip("/") + "/sparql")
    graph.add((service, RDF.type, SD.Service))
    graph.add((service, SD.endpoint, endpoint_iri))
    graph.add((service, SD.supportedLanguage, SD.SPARQL11Query))
    graph.add((service, SD.feature, SD.UnionDefaultGraph))
    # the formats of what a query gets, each once (plain JSON is SPARQL JSON; HTML has none)
    for iri in dict.fromkeys(by_media_type(t).iri for t in (*SELECT_OFFERED, *GRAPH_OFFERED)):
        if iri:
            graph.add((service, SD.resultFormat, URIRef(iri)))
    dataset = BNode()
    graph.add((service, SD.defaultDataset, dataset))
    graph.add((dataset, RDF.type, SD.Dataset))
    default_graph = BNode()
    graph.add((dataset, SD.defaultGraph, default_graph))
    graph.add((default_graph, RDF.type, SD.Graph))
    graph.add(
        (
            default_graph,
            RDFS.comment,
            Literal("The union of the registry's named graphs: one per data file."),
        )
    )
    graph.add(
        (
            service,
            RDFS.comment,
            Literal(
                f"Read-only: updates and SERVICE are refused. A query may run "
                f"{settings.query_timeout:g} s and return {settings.max_rows} rows; a cut "
                "result is marked (header X-Truncated: true). With release=<release id> a "
                "query runs over that claimgraph release instead of the live registry."
            ),
        )
    )
    graph.add((service, KG.maxRows, Literal(settings.max_rows, datatype=XSD.integer)))
    graph.add((service, KG.queryTimeout, Literal(settings.query_timeout, datatype=XSD.decimal)))
    # rdflib knows its serializers by media type too
    return graph.serialize(format=media_type, encoding="utf-8")
