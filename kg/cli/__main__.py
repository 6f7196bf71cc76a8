"""``python -m kg.cli``: the ``kg`` command."""

from . import main

main()
