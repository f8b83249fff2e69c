"""The run-level errors of roadmap's own making; roadmap/exits.py maps them (and ConfigError, GitError,
BaselineError) to exit codes."""

from __future__ import annotations


class UsageError(Exception):
    """The command line asks for something impossible; the message names the fix."""


class RuleCrashed(Exception):
    """A rule raised: a bug in roadmap, reported with the rule's code (never silently dropped)."""

    def __init__(self, code: str, exc: BaseException):
        super().__init__(f"rule {code} crashed: {type(exc).__name__}: {exc}")
        self.code = code
        self.__cause__ = exc
