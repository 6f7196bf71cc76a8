"""The data model: data files (YAML), their mapping to RDF, the SHACL engine, validation and
ingest. Knows nothing of stores."""
