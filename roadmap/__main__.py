"""`python -m roadmap ...` is the `roadmap` command."""
import sys

from roadmap.cli import main

sys.exit(main())
