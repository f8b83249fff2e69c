"""A symbol written before a path:line with "@" between (`password_ref` @ config/app.yaml:14, terse notes' "at")
is that reference's symbol, so RL303 can follow it when it moves; a prose word before "@" is not, and "@" glued
into a token (an image digest, `x@path`) joins no symbol."""

from __future__ import annotations

from roadmap.config import Config
from roadmap.records.parser import parse_record


def _refs(line: str) -> list[tuple[str, int | None, str | None]]:
    rf = parse_record("TODO.md", f"# todo\n\n- [ ] {line}\n".encode(), Config())
    return [(r.path, r.line, r.symbol) for st in rf.statements for r in st.mentions.paths]


def test_a_symbol_at_a_path_line() -> None:
    assert _refs("rotate pg creds -- `password_ref` @ config/app.yaml:14") == [("config/app.yaml", 14, "password_ref")]
    assert _refs("`max_conns` @ config/app.yaml:8 to 4096") == [("config/app.yaml", 8, "max_conns")]


def test_no_symbol_from_prose_or_glued_at_signs() -> None:
    assert _refs("ask the user @ config/app.yaml:14") == [("config/app.yaml", 14, None)]
    assert all(sym is None for _, _, sym in _refs("pin debian:12-slim@sha256:f399 and `x`@config/app.yaml:3"))
