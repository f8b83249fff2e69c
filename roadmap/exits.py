"""The exit status of `roadmap`, decided here and nowhere else.

    0  OK        no finding at or above --fail-on (`fail_on` in config; default error; never: no finding fails)
    1  FINDINGS  a finding at or above it (`evidence verify`: an invalid entry; `--diff`: something to fix)
    2  USAGE     a usage, config or git error: the user can fix it, and one line on stderr says how
    3  INTERNAL  a bug in roadmap (a rule crashed, or any other unexpected exception), never the user's input

CI can tell findings (1) from a run that could not check anything (2, 3).
"""

from __future__ import annotations

from typing import Iterable

from roadmap.baseline import BaselineError
from roadmap.config import FAIL_ON, ConfigError
from roadmap.errors import UsageError
from roadmap.findings import SEVERITIES, Finding
from roadmap.history.git import GitError

OK, FINDINGS, USAGE, INTERNAL = 0, 1, 2, 3
INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT

# Mistakes in what the user asked for or in the repository they pointed at; OSError: a file they named.
USER_ERRORS: tuple[type[Exception], ...] = (UsageError, ConfigError, GitError, BaselineError, OSError)

HELP = (
    "exit status: 0 no finding at or above --fail-on, 1 findings, 2 usage, config or git error,\n"
    "3 internal error (a bug in roadmap)."
)


def failing(fail_on: str) -> tuple[str, ...]:
    """The severities that fail a run for `fail_on` (one of config.FAIL_ON): it and every one above it."""
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")
    return () if fail_on == "never" else SEVERITIES[: SEVERITIES.index(fail_on) + 1]


def for_findings(findings: Iterable[Finding], fail_on: str) -> int:
    levels = failing(fail_on)
    return FINDINGS if any(f.severity in levels for f in findings) else OK


def for_error(exc: BaseException) -> int:
    """USAGE for a mistake the user can fix, INTERNAL for anything else (a bug of ours)."""
    return USAGE if isinstance(exc, USER_ERRORS) else INTERNAL
