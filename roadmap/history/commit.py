"""One commit of HEAD's ancestry as the history rules see it: sha, parents, dates, message and trailers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from typing import Any


@dataclass(frozen=True, eq=False)
class Commit:
    sha: str  # 40 hex
    parents: tuple[str, ...]  # real parents, first parent first (empty for a root commit)
    author_date: str  # strict ISO 8601 with the author's offset, e.g. 2026-07-27T10:00:00+02:00
    author_time: int  # epoch seconds
    commit_date: str  # strict ISO 8601 with the committer's offset
    commit_time: int  # epoch seconds
    subject: str  # first paragraph, lines joined by a space (git's %s)
    body: str  # the rest of the message (git's %b), trailers included, stripped
    trailers: dict[str, list[str]] = field(default_factory=dict)  # as `git interpret-trailers` parses them
    unknown: str | None = None  # why this commit's diff could not be read: its symbol hits are unknown

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Commit) and other.sha == self.sha

    def __hash__(self) -> int:
        return hash(self.sha)

    @property
    def short(self) -> str:
        return self.sha[:9]

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    @property
    def day(self) -> str:
        """The commit date's calendar day in the committer's own offset (YYYY-MM-DD)."""
        return self.commit_date[:10]

    @cached_property
    def message(self) -> str:
        """Subject and body (rules read it for every statement: built once per commit)."""
        return f"{self.subject}\n\n{self.body}" if self.body else self.subject

    def trailer_values(self, key: str) -> list[str]:
        """Values of trailer `key`, matched case-insensitively as git does (`Row`, `row`)."""
        k = key.lower()
        return [v for name, vals in self.trailers.items() if name.lower() == k for v in vals]

    def to_json(self) -> list[Any]:
        return [
            self.sha,
            list(self.parents),
            self.author_date,
            self.author_time,
            self.commit_date,
            self.commit_time,
            self.subject,
            self.body,
            self.trailers,
        ]

    @classmethod
    def from_json(cls, row: list[Any]) -> "Commit":
        """Inverse of `to_json`; raises ValueError/TypeError on anything malformed (a corrupt cache)."""
        sha, parents, ad, at, cd, ct, subject, body, trailers = row
        ok = (
            isinstance(sha, str)
            and len(sha) == 40
            and isinstance(parents, list)
            and all(isinstance(p, str) for p in parents)
            and isinstance(ad, str)
            and isinstance(cd, str)
            and isinstance(at, int)
            and isinstance(ct, int)
            and isinstance(subject, str)
            and isinstance(body, str)
            and isinstance(trailers, dict)
            and all(
                isinstance(k, str) and isinstance(v, list) and all(isinstance(x, str) for x in v)
                for k, v in trailers.items()
            )
        )
        if not ok:
            raise ValueError("malformed commit record")
        return cls(sha, tuple(parents), ad, at, cd, ct, subject, body, trailers)


def split_message(raw: str) -> tuple[str, str]:
    """git's %s and %b from a raw message (%B): the first paragraph joined by spaces, then the rest."""
    lines = raw.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    subject: list[str] = []
    while i < len(lines) and lines[i].strip():
        subject.append(lines[i].strip())
        i += 1
    return " ".join(subject), "\n".join(lines[i:]).strip()


def parse_trailers(text: str) -> dict[str, list[str]]:
    """The output of `%(trailers:only,unfold,separator=%x1e,key_value_separator=%x1d)` as a dict."""
    out: dict[str, list[str]] = {}
    for item in text.split("\x1e"):
        key, sep, value = item.partition("\x1d")
        if sep and key.strip():
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def parse_when(text: str) -> int:
    """Epoch seconds of a date as a record writes it: YYYY-MM-DD (start of that day, UTC) or ISO 8601."""
    t = text.strip()
    if t.endswith("Z"):
        t = t[:-1] + "+00:00"
    dt = datetime.fromisoformat(t)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return int(dt.timestamp())
