"""What `roadmap lint` reports on the lines of a record that hold some text: the one question most rule tests ask."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint


def codes_on(repo, path: str, needle: str, reasons: bool = False) -> set[str]:
    """The codes of the findings on `path` whose span has a line containing `needle` (with `reasons`: their
    reasons' codes too), from a lint of `repo` without caches."""
    text = (repo.path / path).read_text().split("\n")
    out: set[str] = set()
    for f in lint(repo.path, LintOptions(use_cache=False)).findings:
        if f.path == path and any(needle in text[n - 1] for n in range(f.line, (f.end_line or f.line) + 1)):
            out.add(f.code)
            if reasons:
                out |= {r for e in f.evidence for r in e.get("reasons", ())}
    return out
