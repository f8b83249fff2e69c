"""Settings every test process shares.

PYTHONPATH is made absolute before any test runs. The GPU machine runs the suite from a source tree with
`PYTHONPATH=.` (the project is not installed there), and tests that start `python -m roadmap` / `python -m engine`
in another working directory (a seed repository in tmp_path) would resolve "." there and find no package:
tests/roadmap/test_seed_item14.py::test_cli_json then read an empty stdout as JSON.
"""

from __future__ import annotations

import os


def _absolute(pythonpath: str) -> str:
    # An empty entry means the working directory, as a relative one is relative to it: both are pinned here.
    return os.pathsep.join(os.path.abspath(p or os.curdir) for p in pythonpath.split(os.pathsep))


if os.environ.get("PYTHONPATH"):
    os.environ["PYTHONPATH"] = _absolute(os.environ["PYTHONPATH"])
