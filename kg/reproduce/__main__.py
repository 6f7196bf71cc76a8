"""``python3 -m kg.reproduce``: the runner, and each stage's worker process."""

import sys

from .runner import main

sys.exit(main())
