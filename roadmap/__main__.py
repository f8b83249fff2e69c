"""`python -m roadmap ...` is the `roadmap` command."""

import atexit
import gc
import os
import sys

from roadmap.cli import main

if __name__ == "__main__":  # a worker process (records/parallel.py) may import this module
    gc.disable()  # the process ends with the command: no collection over its heap at exit either (cli.main)
    code = main()
    # The command is done and its output written (cli._emit flushes it; files are written whole, safefs): leave
    # without tearing the heap down. The interpreter's own exit freed the records, the history and the caches of
    # a cold lint object by object: a second of one core after a lint of the 10,000-commit benchmark.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        atexit._run_exitfuncs()
    except BaseException:  # whatever the interpreter's exit would report, it reports
        sys.exit(code)
    os._exit(code)
