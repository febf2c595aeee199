"""Run the CLI as ``python -m tether``."""

from tether.cli import main

raise SystemExit(main())
