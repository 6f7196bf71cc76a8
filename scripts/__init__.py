"""Scripts for the people who run claimgraph (each runs as ``python3 scripts/NAME.py``).

A package so that tests import them as ``from scripts import gpu_sweep``, as they import
bench's generators, rather than loading files by their path.
"""
