#!/usr/bin/env python3
"""Generate docs/rules.md from the rule docstrings (the single source of the rule reference).

.venv/bin/python tools/gen_rules_doc.py           # rewrite docs/rules.md
.venv/bin/python tools/gen_rules_doc.py --check   # exit 1 when docs/rules.md is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from roadmap.registry import all_rules, doc_sections  # noqa: E402

TARGET = ROOT / "docs" / "rules.md"
COMMAND = ".venv/bin/python tools/gen_rules_doc.py"


def generate() -> str:
    rules = all_rules()
    out = [
        "# Rule reference",
        "",
        f"<!-- Generated from the rule docstrings by `{COMMAND}`; do not edit by hand. -->",
        "",
        "Every rule has a stable code, a name and a default severity. `roadmap rule CODE` prints the same text.",
        "Select rules with `--select`/`--ignore` (code prefixes, e.g. `RL3`), suppress one finding with",
        "`<!-- roadmap: disable-next-line CODE -- reason -->` on the line above it.",
        "",
        "| Code | Name | Severity | What it does |",
        "|---|---|---|---|",
    ]
    for r in rules:
        out.append(
            f"| [{r.code}](#{r.code.lower()}-{r.name}) | {r.name} | {r.severity} | "
            f"{r.summary.replace('|', chr(92) + '|')} |"
        )
    for r in rules:
        out += ["", f"## {r.code} {r.name}", "", f"Default severity: **{r.severity}**."]
        sections = doc_sections(r.doc)
        if not sections:
            out += ["", r.doc]
        for name, body in sections.items():
            out += ["", f"### {name}", "", body.strip()]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="exit 1 if docs/rules.md is out of date; write nothing")
    args = p.parse_args(argv)
    text = generate()
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
    if args.check:
        if current != text:
            print(f"docs/rules.md is out of date; regenerate it with `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    if current != text:
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        TARGET.write_text(text, encoding="utf-8")
        print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
