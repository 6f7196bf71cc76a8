"""Benchmarks, and the synthetic data the tests share with them.

Each script runs alone (``python bench/serve.py 1000``; results in ``bench/README.md``).
The generators are modules of this package, so tests import them (``from bench import
gen, pdfgen``; pytest puts the repository root on ``sys.path``, see ``pyproject.toml``)
instead of loading files by path or running them as commands.
"""
