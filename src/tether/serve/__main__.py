"""``python -m tether.serve``: the same as ``tether serve``."""

from __future__ import annotations

import sys

from tether.cli.serve import main

if __name__ == "__main__":
    sys.exit(main())
