"""RL304 unknown-reference."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.refs import line_of, live_statements
from roadmap.findings import Hit
from roadmap.history.git import SHA_RE, run_git
from roadmap.records.loader import defined_ids
from roadmap.records.model import RecordFile, Statement


def missing_shas(root: str | Path, shas: Iterable[str]) -> set[str]:
    """The shas (full or abbreviated) that name no object in the repository: one `git cat-file` call."""
    wanted = sorted({s for s in shas if SHA_RE.match(s)})
    if not wanted:
        return set()
    out = run_git(root, "cat-file", "--batch-check", input=("\n".join(wanted) + "\n").encode())
    missing: set[str] = set()
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, status = line.rpartition(" ")
        if status == "missing":
            missing.add(name)
    return missing


def _namespace(token: str) -> str:
    return token.split("-", 1)[0]


def evidence_names(ctx: LintContext, root: str) -> set[str]:
    """Names an evidence reference may use: each entry under the root (dir or file) with and without suffix."""
    names: set[str] = set()
    prefix = root + "/"
    for f in ctx.tree.files:
        if f.startswith(prefix):
            rel = f[len(prefix):]
            first = rel.split("/", 1)[0]
            names.update({first, first.rsplit(".", 1)[0], rel})
    return names


def unknown_reference(ctx: LintContext) -> Iterator[Hit]:
    """What it does:
    Flags a reference to something nothing defines: a row id or claim id that no record defines (in an id
    namespace the records use, so `ROAD-V1-C2-LOCAL-BF17` is caught when `ROAD-...` rows exist), a commit sha
    that is not in the repository, or an evidence entry (`20260727-slug`) that is not under the evidence root.

    Why:
    A typo in an id or sha silently detaches a statement from everything the linter checks it against, and
    a sha that is not in the repository cannot be verified by anyone (rebased away, or never pushed).

    Example:
    ```markdown
    Landed in `deed7c2a9`; see docs/bench-evidence/20260727-throughput-4b.
    ```
    when no commit starts with `deed7c2a9` and no such evidence entry exists.

    Fix:
    Correct the id, sha or evidence name (or push the missing commit). Struck-through and historical text is
    not checked; shas are looked up with one `git cat-file --batch-check` call for the whole run.
    """
    known = _defined(ctx)
    namespaces = {_namespace(t) for t in known}
    evidence_root = ctx.config.evidence.root.strip("/")
    ev_names = evidence_names(ctx, evidence_root) if evidence_root and ctx.tree.is_dir(evidence_root) else None
    sites = list(live_statements(ctx))
    all_shas = {s for _, st in sites for s in st.mentions.shas}
    missing = missing_shas(ctx.root, all_shas) if ctx.head and all_shas else set()
    seen: set[tuple[str, int, str]] = set()

    def emit(rf: RecordFile, st: Statement, token: str, kind: str, message: str, fix: str) -> Iterator[Hit]:
        line = line_of(ctx, rf, st, token)
        if (rf.path, line, token) in seen:
            return
        seen.add((rf.path, line, token))
        yield Hit(message=message, path=rf.path, line=line, end_line=line, record_id=st.row_id, fix=fix,
                  key=f"{kind}:{token}")

    for rf, st in sites:
        for token in (*st.mentions.ids, *st.mentions.claims):
            if token in known or _namespace(token) not in namespaces:
                continue
            yield from emit(rf, st, token, "id", f"`{token}` is not defined by any record (no table row or "
                            f"item has this id)", "correct the id, or add the row/claim it refers to")
        for sha in st.mentions.shas:
            if sha in missing:
                yield from emit(rf, st, sha, "sha", f"commit `{sha}` is not in this repository",
                                "correct the sha (`git log --oneline` lists the commits), or fetch/push the commit")
        if ev_names is not None:
            for name in st.mentions.evidence:
                name = name.rstrip(".,;:")   # sentence punctuation, not part of the name
                short = name.strip("/")
                if short.startswith(evidence_root + "/"):
                    short = short[len(evidence_root) + 1:]
                if short in ev_names or short.rsplit(".", 1)[0] in ev_names:
                    continue
                yield from emit(rf, st, name, "evidence", f"evidence `{name}` does not exist under {evidence_root}/",
                                f"correct the evidence name (ls {evidence_root}), or commit the evidence")


def _defined(ctx: LintContext) -> set[str]:
    return set(defined_ids(ctx.records))
