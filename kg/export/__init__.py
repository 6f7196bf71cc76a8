"""Exports: framed JSON-LD, citations (CSL-JSON, BibTeX, RIS), RO-Crate, whole-store dumps."""
