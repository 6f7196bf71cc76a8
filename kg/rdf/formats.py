"""Every format the registry reads or writes, in one table: a row per format, with its names.

pyoxigraph knows the RDF syntaxes (:class:`pyoxigraph.RdfFormat`) and the SPARQL results
formats (:class:`pyoxigraph.QueryResultsFormat`): their media types, file extensions and
W3C format IRIs are taken from it. The table adds what pyoxigraph does not know: the other
names clients and the CLI use (``turtle``, ``json-ld``, ``xml``, ``bibtex``, ...), the
pages and listings (HTML, plain JSON, CSV), the citation formats with the media types DOI
content negotiation uses, and which formats the whole store is dumped as.

A format's canonical name is its file suffix (``/record/x.ttl``, ``claimgraph.nq``); each of
its names is accepted as a suffix, as ``?format=`` and by ``--format`` of the commands that
write it. What a route or command offers stays next to it, in its own order of preference
(the first acceptable type wins a tie in negotiation), as names resolved here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

#: The W3C's namespace of format IRIs (SPARQL service descriptions name result formats by it).
W3C_FORMATS = "http://www.w3.org/ns/formats/"


@dataclass(frozen=True)
class Format:
    """One format: its canonical name (also its file suffix), media type and other names."""

    name: str
    media_type: str
    aliases: tuple[str, ...] = ()
    #: The RDF syntax it is, for pyoxigraph's parsers and serializers.
    rdf: ox.RdfFormat | None = None
    #: The SPARQL results format a query result is written in when asked for as this type.
    results: ox.QueryResultsFormat | None = None
    #: A citation of a record or source (kg.export.citeformats writes it).
    citation: bool = False
    #: Its name as a dump of the whole store (``kg export --all --format``), if it is one.
    dump: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """Every name it is accepted by: the canonical one first."""
        return (self.name, *self.aliases)

    @property
    def quads(self) -> bool:
        """Whether it holds named graphs (the others get the union of the graphs)."""
        return self.rdf is not None and self.rdf.supports_datasets

    @property
    def iri(self) -> str | None:
        """The W3C format IRI of what it writes, if there is one.

        pyoxigraph 0.5 gives JSON-LD as ``https://www.w3.org/ns/formats/data/JSON-LD``;
        the W3C's list names it ``http://www.w3.org/ns/formats/JSON-LD``, as the other
        formats: the last segment is kept, in that namespace."""
        known = self.rdf or self.results
        return W3C_FORMATS + known.iri.rsplit("/", 1)[1] if known else None


def _rdf(fmt: ox.RdfFormat, *aliases: str, dump: str | None = None) -> Format:
    return Format(fmt.file_extension, fmt.media_type, aliases, rdf=fmt, dump=dump)


def _results(fmt: ox.QueryResultsFormat, *aliases: str) -> Format:
    # pyoxigraph gives CSV and TSV as "text/csv; charset=utf-8": negotiation needs the bare type
    return Format(fmt.file_extension, fmt.media_type.split(";")[0], aliases, results=fmt)


#: The table. Its order is the order listings take: RDF syntaxes, citations, dumps. Other
#: registries' formats are added to it by their packages (:func:`add`).
FORMATS: tuple[Format, ...] = (
    Format("html", "text/html"),
    # a SPARQL result asked for as plain JSON is SPARQL results JSON
    Format("json", "application/json", results=ox.QueryResultsFormat.JSON),
    _results(ox.QueryResultsFormat.CSV),  # also the index as a table (/records.csv)
    _results(ox.QueryResultsFormat.TSV),
    _results(ox.QueryResultsFormat.JSON),
    _results(ox.QueryResultsFormat.XML, "xml"),
    # the other names are those SPARQL clients (SPARQLWrapper) send as format=; Turtle is N3
    _rdf(ox.RdfFormat.TURTLE, "turtle", "n3"),
    _rdf(ox.RdfFormat.N_TRIPLES),
    _rdf(ox.RdfFormat.N_QUADS, dump="nquads"),
    _rdf(ox.RdfFormat.TRIG, dump="trig"),
    _rdf(ox.RdfFormat.JSON_LD, "json-ld", dump="jsonld"),
    _rdf(ox.RdfFormat.RDF_XML, "rdf+xml"),
    # citations, by the media types of DOI content negotiation; the aliases are kg export's
    Format("csl.json", "application/vnd.citationstyles.csl+json", ("csl-json",), citation=True),
    Format("bib", "application/x-bibtex", ("bibtex",), citation=True),
    Format("ris", "application/x-research-info-systems", citation=True),
    # a formatted reference in a CSL style (the style is a parameter of the media type,
    # text/x-bibliography; style=apa, or ?style=), as doi.org answers it
    Format("citation.txt", "text/x-bibliography", ("bibliography",), citation=True),
    # a record as a W3C Web Annotation (kg.export.web_annotation): JSON-LD with the profile
    # the Web Annotation Protocol gives it, so plain application/ld+json stays the framed
    # record's and only a client asking for this profile (or .wa.jsonld) gets the annotation
    Format(
        "wa.jsonld",
        'application/ld+json;profile="http://www.w3.org/ns/anno.jsonld"',
        ("web-annotation",),
    ),
    # a record as a trusty nanopublication (kg.export.nanopub): TriG with the
    # nanopublication schema as its profile, so plain application/trig stays the record's
    Format(
        "np.trig",
        'application/trig;profile="http://www.nanopub.org/nschema"',
        ("nanopub",),
    ),
)
#: Every name a format is accepted by (suffix, ``?format=``, ``--format``) -> the format.
NAMES: dict[str, Format] = {name: fmt for fmt in FORMATS for name in fmt.names}
#: Media type -> the format.
MEDIA_TYPES: dict[str, Format] = {fmt.media_type: fmt for fmt in FORMATS}
#: The rows added by :func:`add`, in their order: other registries' formats (docs/imports.md),
#: each declared by its package and added when it is registered (kg.model.upstream.formats).
ADDED: list[Format] = []


def add(fmt: Format) -> None:
    """Accept ``fmt``'s names and media type from now on (an upstream format's row).

    :raises ValueError: for a name or media type another format has.
    """
    taken = [name for name in fmt.names if name in NAMES]
    if taken or fmt.media_type in MEDIA_TYPES:
        raise ValueError(f"format {fmt.name!r}: taken already: {taken or fmt.media_type}")
    ADDED.append(fmt)
    NAMES.update((name, fmt) for name in fmt.names)
    MEDIA_TYPES[fmt.media_type] = fmt


def remove(fmt: Format) -> None:
    """Take back a row :func:`add` added."""
    if fmt in ADDED:
        ADDED.remove(fmt)
        for name in fmt.names:
            del NAMES[name]
        del MEDIA_TYPES[fmt.media_type]


def rows() -> tuple[Format, ...]:
    """Every row: the table's, then those added."""
    return (*FORMATS, *ADDED)


#: The RDF syntaxes, by canonical name.
RDF_SYNTAXES: tuple[str, ...] = tuple(fmt.name for fmt in FORMATS if fmt.rdf)
#: The citation formats, by canonical name.
CITATIONS: tuple[str, ...] = tuple(fmt.name for fmt in FORMATS if fmt.citation)


def media_type_of(name: str) -> str:
    """The media type a format name stands for; anything else (a media type) as it is."""
    fmt = NAMES.get(name)
    return fmt.media_type if fmt else name


def media_types(*names: str) -> list[str]:
    """The media types of format names, in their order (an offered list).

    :raises KeyError: for a name that is not a format's.
    """
    return [NAMES[name].media_type for name in names]


def by_media_type(media_type: str) -> Format:
    """The format of a media type.

    :raises KeyError: for a media type that is not in the table.
    """
    return MEDIA_TYPES[media_type]
