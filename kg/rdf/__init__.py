"""RDF itself: namespaces, terms, canonical N-Quads, JSON-LD, formats, content negotiation,
the ontology's vocabulary, and writing graphs and SPARQL results. Knows nothing of records."""
