"""`python -m roadmap ...` is the `roadmap` command."""

import gc
import sys

from roadmap.cli import main

if __name__ == "__main__":  # a worker process (records/parallel.py) may import this module
    gc.disable()  # the process ends with the command: no collection over its heap at exit either (cli.main)
    sys.exit(main())
