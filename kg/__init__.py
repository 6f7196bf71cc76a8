"""claimgraph: published research results as a PROV-O knowledge graph."""

__version__ = "0.1.0"
