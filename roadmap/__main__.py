"""`python -m roadmap ...` is the `roadmap` command."""

import sys

from roadmap.cli import main

if __name__ == "__main__":  # a worker process (records/parallel.py) may import this module
    sys.exit(main())
