#!/usr/bin/env python3
"""Generate a seeded, realistic git history for benchmarking `roadmap.history` (fast: one `git fast-import`).

    python tools/make_history_repo.py /tmp/hist --commits 10000 --files 300 --symbols 1000 --record-lines 60000

The history has a few hundred source files, commits touching 1-5 files each, symbols that are introduced,
removed, moved within a file and moved between files over time, renames, binary files, merged side
branches, one never-merged branch (`unmerged`), commit messages with `Row:` trailers, and markdown records
(tables and lists) that name every symbol in backticks. Same arguments + seed -> byte-identical history.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

WORDS = (
    "async device input sampled token slot index mapping batch queue step prefill decode cache block "
    "pool hash graph stream event runner worker sched request output kernel paged attention rotary norm "
    "weight loader config bench metric latency throughput evidence record row claim state spec"
).split()
EXTS = (".py", ".py", ".py", ".cpp", ".h", ".md", ".toml")
START_EPOCH = 1735689600  # 2025-01-01T00:00:00Z


@dataclass
class Manifest:
    path: str
    head: str
    commits: int
    files: int
    symbols: list[str] = field(default_factory=list)
    record_files: list[str] = field(default_factory=list)
    record_lines: int = 0
    seconds: float = 0.0


def make_symbols(rng: random.Random, n: int) -> list[str]:
    """Identifiers (some prefixes of others), flags, env vars, and a few with regex metacharacters."""
    out: list[str] = []
    seen: set[str] = set()

    def add(s: str) -> None:
        if s not in seen:
            seen.add(s)
            out.append(s)

    tricky = ["cfg.get(", "x*", "a.b(", "[slot]", "idx+1", "^start", "end$", "(a|b)", "n{2}", "path\\to"]
    for s in tricky[: max(0, n // 100)]:
        add(s)
    while len(out) < n:
        k = rng.random()
        w = rng.sample(WORDS, rng.randint(2, 3))
        if k < 0.35:
            base = "".join(x.capitalize() for x in w)
            add(base)
            if rng.random() < 0.15 and len(out) < n:
                add(base + rng.choice(["Ops", "Impl", "V2"]))  # a symbol with another symbol as prefix
        elif k < 0.6:
            add("_".join(w) + ("_" + str(rng.randint(0, 99)) if rng.random() < 0.3 else ""))
        elif k < 0.8:
            add("--" + rng.choice(["", "no-", "enable-"]) + "-".join(w))
        else:
            add("ENGINE_" + "_".join(x.upper() for x in w))
    return out[:n]


class Gen:
    def __init__(self, rng: random.Random, symbols: list[str], nfiles: int):
        self.rng = rng
        self.symbols = symbols
        self.files: dict[str, list[bytes]] = {}
        self.binaries: dict[str, bytes] = {}
        self.counter = 0
        for i in range(nfiles):
            path = f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}_{i}{rng.choice(EXTS)}"
            self.files[path] = [self.line() for _ in range(rng.randint(10, 90))]

    def line(self) -> bytes:
        self.counter += 1
        r = self.rng
        if r.random() < 0.12:
            sym = r.choice(self.symbols)
            return f"    use({sym!r})  # {r.choice(WORDS)} {self.counter}".encode()
        if r.random() < 0.02:  # non-UTF-8 bytes in a text file
            return b"    blob = b'\xff\xfe" + str(self.counter).encode() + b"'"
        return f"    {r.choice(WORDS)}_{self.counter} = {r.choice(WORDS)}({r.randint(0, 999)})".encode()

    def edit(self, path: str, pool: list[str]) -> None:
        """One realistic change to `path`: add, delete, move within, move to another file, or modify."""
        r, lines = self.rng, self.files[path]
        k = r.random()
        if k < 0.35 or len(lines) < 4:
            at = r.randint(0, len(lines))
            lines[at:at] = [self.line() for _ in range(r.randint(1, 12))]
        elif k < 0.55:
            at = r.randrange(len(lines))
            del lines[at : at + r.randint(1, 6)]
        elif k < 0.7:
            at = r.randrange(len(lines))
            block = lines[at : at + r.randint(1, 5)]
            del lines[at : at + len(block)]
            to = r.randint(0, len(lines))
            lines[to:to] = block
        elif k < 0.8 and len(pool) > 1:
            other = r.choice([p for p in pool if p != path])
            at = r.randrange(len(lines))
            block = lines[at : at + r.randint(1, 4)]
            del lines[at : at + len(block)]
            dest = self.files[other]
            to = r.randint(0, len(dest))
            dest[to:to] = block
        else:
            at = r.randrange(len(lines))
            lines[at] = lines[at].replace(b"(", b"(" + r.choice(WORDS).encode() + b", ", 1)


def data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def message(rng: random.Random, n: int) -> bytes:
    row = f"ROW-{rng.randint(1, 120):04d}"
    kind = rng.choice(["feat", "fix", "perf", "refactor", "docs", "test"])
    subject = f"{kind}(engine): {rng.choice(WORDS)} {rng.choice(WORDS)} for {row} #{n}"
    body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
    trailers = f"Row: {row}" + (f"\nRefs: ROW-{rng.randint(1, 120):04d}" if rng.random() < 0.2 else "")
    return f"{subject}\n\n{body}\n\n{trailers}\n".encode()


def records(rng: random.Random, symbols: list[str], nlines: int, nfiles: int = 6) -> dict[str, bytes]:
    """Markdown records (tables + lists) naming every symbol in backticks, `nlines` lines in all."""
    per = nlines // nfiles
    out: dict[str, bytes] = {}
    k = 0
    for f in range(nfiles):
        lines = [f"# Record {f}", "", "| id | state | remaining |", "|---|---|---|"]
        while len(lines) < per:
            sym = symbols[k % len(symbols)]
            k += 1
            tick = "``" if "`" in sym else "`"
            if len(lines) % 3:
                lines.append(
                    f"| ROW-{k % 120 + 1:04d} | OPEN | Port {tick}{sym}{tick} to the {rng.choice(WORDS)} path |"
                )
            else:
                lines.append(f"- Next: remove {tick}{sym}{tick} once {rng.choice(WORDS)} lands (ROW-{k % 120 + 1:04d})")
        out[f"agents/record-{f}.md"] = ("\n".join(lines[:per]) + "\n").encode()
    return out


def build(path: Path, commits: int, nfiles: int, nsymbols: int, record_lines: int, seed: int) -> Manifest:
    t0 = time.perf_counter()
    rng = random.Random(seed)
    symbols = make_symbols(rng, nsymbols)
    gen = Gen(rng, symbols, nfiles)
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    fi = subprocess.Popen(["git", "-C", str(path), "fast-import", "--quiet", "--force"], stdin=subprocess.PIPE)
    w = fi.stdin.write
    mark = 0
    when = START_EPOCH
    main_mark = 0
    side: dict | None = None
    recs = records(rng, symbols, record_lines)
    rec_at = commits - 40  # records land near the end, then a few record edits follow

    def emit(ref: str, parent: int, merge: int, msg: bytes, changes: list[bytes]) -> int:
        nonlocal mark, when
        mark += 1
        when += rng.randint(60, 5400)
        w(b"commit %s\nmark :%d\n" % (ref.encode(), mark))
        w(b"author Dev <dev@example.com> %d +0000\n" % (when - rng.randint(0, 600)))
        w(b"committer Dev <dev@example.com> %d +0000\n" % when)
        w(data(msg))
        if parent:
            w(b"from :%d\n" % parent)
        if merge:
            w(b"merge :%d\n" % merge)
        for c in changes:
            w(c)
        return mark

    def modify(p: str) -> bytes:
        return b"M 100644 inline %s\n" % p.encode() + data(b"\n".join(gen.files[p]) + b"\n")

    n = 0
    paths = sorted(gen.files)
    first = [modify(p) for p in paths]
    main_mark = emit("refs/heads/main", 0, 0, b"chore: initial tree\n\nRow: ROW-0001\n", first)
    n += 1
    while n < commits:
        if side is None and n % 250 == 100 and n + 20 < rec_at:  # a side branch over files main won't touch
            owned = rng.sample(sorted(gen.files), 6)
            side = {"mark": main_mark, "owned": owned, "left": rng.randint(3, 8)}
        if side is not None and side["left"] > 0 and rng.random() < 0.5:
            pool = side["owned"]
            chosen = rng.sample(pool, rng.randint(1, 3))
            for p in chosen:
                gen.edit(p, pool)
            side["mark"] = emit("refs/heads/side", side["mark"], 0, message(rng, n), [modify(p) for p in pool])
            side["left"] -= 1
            n += 1
            continue
        if side is not None and side["left"] == 0:
            main_mark = emit(
                "refs/heads/main", main_mark, side["mark"], b"Merge branch 'side'\n", [modify(p) for p in side["owned"]]
            )
            side = None
            n += 1
            continue
        if n == rec_at:
            main_mark = emit(
                "refs/heads/main",
                main_mark,
                0,
                b"docs(roadmap): records\n\nRow: ROW-0002\n",
                [b"M 100644 inline %s\n" % p.encode() + data(b) for p, b in recs.items()],
            )
            n += 1
            continue
        busy = set(side["owned"]) if side else set()
        pool = [p for p in gen.files if p not in busy]
        chosen = rng.sample(pool, rng.randint(1, 5))
        changes: list[bytes] = []
        k = rng.random()
        if k < 0.01:  # rename (content kept: git's rename detection makes it a non-hit)
            old = chosen[0]
            new = old.rsplit("/", 1)[0] + f"/renamed_{n}" + Path(old).suffix
            gen.files[new] = gen.files.pop(old)
            changes.append(b"D %s\n" % old.encode())
            changes.append(modify(new))
        elif k < 0.015:  # a binary file that embeds symbols
            p = f"assets/blob_{n}.bin"
            gen.binaries[p] = b"\x00\x01" + rng.choice(symbols).encode() + bytes(rng.randrange(256) for _ in range(64))
            changes.append(b"M 100644 inline %s\n" % p.encode() + data(gen.binaries[p]))
        else:
            for p in chosen:
                gen.edit(p, chosen)
            changes.extend(modify(p) for p in chosen)
        main_mark = emit("refs/heads/main", main_mark, 0, message(rng, n), changes)
        n += 1
    # A branch that never merges: its commits must never count as history of main.
    u = main_mark
    for i in range(3):
        p = rng.choice(sorted(gen.files))
        gen.files[p].append(f"    use({symbols[i % len(symbols)]!r})  # unmerged".encode())
        u = emit("refs/heads/unmerged", u, 0, b"feat: unmerged work\n\nRow: ROW-0003\n", [modify(p)])
    fi.stdin.close()
    if fi.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "-f", "main"], check=True)
    head = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return Manifest(
        str(path),
        head,
        commits,
        len(gen.files),
        symbols,
        sorted(recs),
        sum(b.count(b"\n") for b in recs.values()),
        round(time.perf_counter() - t0, 2),
    )


def existing(path: Path, commits: int, nfiles: int, nsymbols: int, record_lines: int, seed: int) -> Manifest:
    """The manifest of a repository `build` made earlier with these arguments (its symbols are re-derived
    from the seed); SystemExit when `path` does not look like one."""
    rng = random.Random(seed)
    symbols = make_symbols(rng, nsymbols)
    recs = records(random.Random(seed), symbols, record_lines)  # only the paths and line count are used
    proc = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--verify", "-q", "HEAD"], capture_output=True, text=True
    )
    missing = [p for p in recs if not (path / p).is_file()]
    if proc.returncode != 0 or missing:
        raise SystemExit(f"{path} is not a repository generated with these arguments; drop --reuse to generate it")
    n = int(
        subprocess.run(
            ["git", "-C", str(path), "rev-list", "--count", "HEAD"], capture_output=True, text=True, check=True
        ).stdout
    )
    files = (
        len(
            subprocess.run(
                ["git", "-C", str(path), "ls-files", "-z", "src"], capture_output=True, check=True
            ).stdout.split(b"\0")
        )
        - 1
    )  # the source files `build` counts
    return Manifest(
        str(path),
        proc.stdout.strip(),
        n,
        files,
        symbols,
        sorted(recs),
        sum((path / p).read_bytes().count(b"\n") for p in recs),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--commits", type=int, default=10000)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--symbols", type=int, default=1000)
    ap.add_argument("--record-lines", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.path.exists() and any(a.path.iterdir()):
        print(f"error: {a.path} exists and is not empty; pass a new directory", file=sys.stderr)
        return 2
    m = build(a.path, a.commits, a.files, a.symbols, a.record_lines, a.seed)
    print(json.dumps({k: v for k, v in m.__dict__.items() if k != "symbols"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
