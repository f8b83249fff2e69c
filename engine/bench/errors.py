"""BenchError: a mistake the user fixes with a flag or a file; `engine bench` prints its message, no traceback."""

from __future__ import annotations


class BenchError(Exception):
    """The message names the flag or file and the fix."""
