"""User-facing engine errors: one clear line naming the file, the value and the fix, never a traceback."""

from __future__ import annotations


class EngineError(Exception):
    """A mistake the user can fix (bad path, unsupported model, bad setting). `str(err)` is the whole message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
