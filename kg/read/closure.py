"""Readers every page shares: links to nodes, values that may be missing, sources, labels."""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from ..export.citations import creators
from ..model.fields import field_text, field_value
from ..rdf.facts import Facts, Term
from ..rdf.namespaces import DCTERMS, KG, RDFS, SKOS


@dataclass
class Link:
    """A value that names a node: its text and where the browser shows the node."""

    text: str
    href: str = ""


@dataclass
class SourceView:
    node: str
    href: str
    title: str
    short: str  # "Saadat and Fellay 2026"
    long: str  # "Title (Saadat and Fellay, ICLR 2026 workshop)"
    authors: list[str]
    date: str
    venue: str
    document_type: str
    version: str  # "OpenReview PDF ... (11 pages; PDF CreationDate 2026-03-09)"
    sha256: str
    hash_scope: str
    pdf_url: str
    artifact_href: str


def path_of(iri: str, base: str) -> str:
    """Where the browser shows the node ``iri``: our path for our IRIs, else the IRI.

    >>> path_of("https://claimgraph.example/model/a%2Fb", "https://claimgraph.example/")
    '/model/a%2Fb'
    """
    return "/" + iri[len(base) :] if iri.startswith(base) else iri


def local_name(term: Term | None) -> str:
    return term.value.rsplit("#", 1)[-1].rsplit("/", 1)[-1] if term is not None else ""


def fragment(term: Term | None) -> str:
    """The part of a node's IRI after "#" (an anchor on its record's page), or ""."""
    if isinstance(term, ox.NamedNode) and "#" in term.value:
        return term.value.rsplit("#", 1)[1]
    return ""


class ClosureReader:
    """Readers every page shares: links, values that may be missing, sources, labels."""

    def __init__(self, facts: Facts, base: str, release: str | None = None):
        self.f = facts
        self.base = base
        #: A page of a past release links to the other nodes as that release holds them.
        self.release = release
        self._sources: dict[Term, SourceView] = {}

    def field(self, node: Term | None, name: str) -> Term | None:
        """The first value of the field ``name`` (kg/model/fields.py) of ``node``."""
        return field_value(self.f, node, name)

    def field_text(self, node: Term | None, name: str) -> str:
        """That value's lexical form, or its IRI ("" when there is none)."""
        return field_text(self.f, node, name)

    def label(self, name: str) -> str:
        """What a page calls the project's term ``name`` (a property or class): the
        ontology's ``rdfs:label``. A name ``ontology/`` does not declare raises KeyError,
        so a misspelt field fails the page instead of showing an empty label."""
        return self.f.concept(ox.NamedNode(KG[name]), RDFS.label) or name

    def heading(self, name: str) -> str:
        """:meth:`label` with a capital first letter, for a heading or a list of fields."""
        text = self.label(name)
        return text[:1].upper() + text[1:]

    def href(self, term: Term | None) -> str:
        """Where the browser shows a node: our path for our IRIs, the IRI itself otherwise."""
        if not isinstance(term, ox.NamedNode):
            return ""
        if term.value.startswith(self.base):
            path, hash_, fragment = term.value[len(self.base) :].partition("#")
            at = f"?release={self.release}" if self.release else ""
            return f"/{path}{at}{hash_}{fragment}"
        return term.value

    def link(self, node: Term | None, label_predicate: str) -> Link | None:
        """A link to ``node``, named by its ``label_predicate`` (else its local name)."""
        if node is None:
            return None
        return Link(self.f.text(node, label_predicate) or local_name(node), self.href(node))

    def value_or_reason(self, term: Term | None, said: bool = False) -> str:
        """A value, or the words for why it is missing ("Not reported")."""
        if term is None:
            return ""
        if isinstance(term, ox.Literal):
            return term.value
        wording = self.f.text(term, RDFS.comment)
        if wording:  # the upstream registry's own words for the gap
            return wording
        reason = self.f.one(term, KG.reason)
        if said:  # "Not reported by the source"
            return self.f.concept(reason, SKOS.definition).rstrip(".")
        return self.f.concept(reason)

    def source(self, node: Term | None) -> SourceView | None:
        """A source document with its checked artifact, as pages and citation tags need it."""
        if node is None:
            return None
        if node not in self._sources:  # a page names its source in many places
            self._sources[node] = self._source(node)
        return self._sources[node]

    def _source(self, node: Term) -> SourceView:
        f = self.f
        people = creators(f, node)
        authors = [" ".join(p for p in (given, family) if p) for family, given in people]
        names = _author_list([family for family, _ in people])
        date = self.field_text(node, "issued")
        venue = self.field_text(node, "venue")
        title = f.text(node, DCTERMS.title)
        artifact = self.field(node, "artifact")
        version = self.field_text(node, "versionStatement")
        pages = self.field_text(node, "pageCount")
        created = self.field_text(node, "pdfCreated")
        details = "; ".join(
            p
            for p in (
                f"{pages} pages" if pages else "",
                f"PDF CreationDate {created}" if created else "",
            )
            if p
        )
        return SourceView(
            node=node.value,
            href=self.href(node),
            title=title,
            short=" ".join(p for p in (names, date[:4]) if p),
            long=f"{title} ({', '.join(p for p in (names, venue) if p)})"
            if names or venue
            else title,
            authors=authors,
            date=date,
            venue=venue,
            document_type=self.f.concept(self.field(node, "documentType")),
            version=f"{version} ({details})" if details else version,
            sha256=self.field_text(node, "artifactSha256"),
            hash_scope=self.value_or_reason(self.field(node, "hashScope")) if artifact else "",
            pdf_url=self.field_text(node, "pdfUrl"),
            artifact_href=self.href(artifact),
        )


def _author_list(families: list[str]) -> str:
    """How the registry cites authors: "A", "A and B", "A et al."."""
    if len(families) > 2:
        return f"{families[0]} et al."
    return " and ".join(families)
