"""`python -m engine ...` runs the `engine` CLI."""

import sys

from engine.cli import main

sys.exit(main())
