"""Load every record file of a tree (working tree or `--at REV`) and index where ids are defined."""

from __future__ import annotations

import dataclasses
import gc
import posixpath
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Protocol, TypeVar

from roadmap.config import Config, glob_match
from roadmap.records import cache as record_cache
from roadmap.records.model import Problem, RecordFile, Statement
from roadmap.records.parallel import Item, Split, parse_annotated
from roadmap.safefs import Skip


class Files(Protocol):
    """What records read from a tree (roadmap.history.tree.Tree is one; history sits above records)."""

    @property
    def files(self) -> frozenset[str]: ...

    def read_bytes(self, path: str) -> bytes | None: ...

    def skipped(self, path: str) -> Skip | None: ...


_KIND_RANK = {"cell": 0, "heading": 1, "item": 2, "paragraph": 3}
A = TypeVar("A")


def record_paths(files: Iterable[str], config: Config) -> list[str]:
    """The repo-relative paths the `records` globs select, minus `exclude`, sorted."""
    return sorted(
        p
        for p in files
        if any(glob_match(g, p) for g in config.records) and not any(glob_match(g, p) for g in config.exclude)
    )


def load_records(tree: Files, config: Config, cache_dir: str | Path | None = None) -> list[RecordFile]:
    """Every record file of `tree`, parsed. With `cache_dir` (the directory holding `.roadmap_cache/`),
    parses are looked up by content first and stored after: unchanged files are not parsed again."""
    return [rf for rf, _ in load_annotated(tree, config, cache_dir)]


def load_annotated(
    tree: Files,
    config: Config,
    cache_dir: str | Path | None = None,
    annotate: Callable[[RecordFile], A] | None = None,
    split: Split | None = None,
) -> list[tuple[RecordFile, A | None]]:
    """load_records, each record with `annotate(record)` (None without `annotate`), worked out by the process
    that parsed it (records/parallel.py; `split` runs the two parts of a cold run's parse)."""
    cache = (
        record_cache.RecordCache(cache_dir, config)
        if cache_dir is not None and record_cache.parser_fingerprint()
        else None
    )
    out: list[tuple[RecordFile, A | None]] = []
    with gc_paused():
        _load(tree, config, cache, out, annotate, split)
    if cache is not None and cache.stats["written"]:
        cache.prune()
    return out


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: parsing allocates millions of small acyclic objects, and each
    collection rescans the whole growing heap (a 50,000-row table parsed in 12.8 s of CPU with it, 7.4 s
    without). Whatever cycles are made are collected once it is turned back on."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _load(
    tree: Files,
    config: Config,
    cache: record_cache.RecordCache | None,
    out: list[tuple[RecordFile, A | None]],
    annotate: Callable[[RecordFile], A | None] | None,
    split: Split | None,
    paths: list[str] | None = None,
) -> None:
    todo: list[tuple[int, Item]] = []  # parsed below, together: the misses of a cold run run in parallel
    for path in record_paths(tree.files, config) if paths is None else paths:
        data = tree.read_bytes(path)
        if data is None:
            rf = RecordFile(path=path, text="", problems=[_unread(path, tree.skipped(path))])
            out.append((rf, annotate(rf) if annotate is not None else None))
            continue
        key = cache.key(path, data) if cache is not None else ""
        hit = cache.get(key, path) if cache is not None else None
        if hit is None:
            todo.append((len(out), (path, data, key)))
            out.append((RecordFile(path=path, text=""), None))  # a place held for the parse below
            continue
        out.append((hit, annotate(hit) if annotate is not None else None))
    for (i, _), got in zip(todo, parse_annotated([item for _, item in todo], config, cache, split, annotate)):
        out[i] = got


# An id a table's id column defines that the id patterns do not match: tracker keys (`FW-12`, `PROJ-481`).
_TRACKER_ID = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+")


def table_ids(records: list[RecordFile], config: Config) -> list[str]:
    """Ids that some record's table defines in its id column (`| FW-12 | Watchdog ... | Done |`) and that the id
    patterns do not match: an id is an id where a record defines it, whatever its shape."""
    found = {
        st.defines
        for rf in records
        for st in rf.statements
        if st.kind == "cell"
        and st.defines
        and _TRACKER_ID.fullmatch(st.defines)
        and not config.id_re.fullmatch(st.defines)
        and st.defines.upper() not in config.state_set
    }
    return sorted(found)


def with_table_ids(
    tree: Files, config: Config, records: list[RecordFile], cache_dir: str | Path | None = None
) -> tuple[Config, list[RecordFile]]:
    """The config whose id patterns also match the ids tables define (table_ids), and the records parsed with
    it: a file that names none of those ids is kept as parsed. The config and records as given when there is
    none."""
    wider, loaded = annotated_with_table_ids(tree, config, [(rf, None) for rf in records], cache_dir)
    got = [rf for rf, _ in loaded]
    return wider, records if all(a is b for a, b in zip(got, records)) else got


def annotated_with_table_ids(
    tree: Files,
    config: Config,
    loaded: list[tuple[RecordFile, A | None]],
    cache_dir: str | Path | None = None,
    annotate: Callable[[RecordFile], A | None] | None = None,
    split: Split | None = None,
) -> tuple[Config, list[tuple[RecordFile, A | None]]]:
    """with_table_ids over load_annotated's pairs: a record parsed again is annotated again, by the process that
    parses it (`split` runs the two parts, as load_annotated's does). The pairs as given when none is parsed again."""
    records = [rf for rf, _ in loaded]
    extra = table_ids(records, config)
    if not extra:
        return config, loaded
    literal = "|".join(re.escape(i) for i in extra)
    wider = dataclasses.replace(config, table_ids=(*config.table_ids, *extra))
    named = re.compile(rf"(?<![\w.-])(?:{literal})(?![\w-])")
    again = [rf.path for rf in records if rf.text and named.search(rf.text)]
    if not again:
        return wider, loaded
    cache = (
        record_cache.RecordCache(cache_dir, wider)
        if cache_dir is not None and record_cache.parser_fingerprint()
        else None
    )
    reread: list[tuple[RecordFile, A | None]] = []
    with gc_paused():
        _load(tree, wider, cache, reread, annotate, split, again)
    if cache is not None and cache.stats["written"]:
        cache.prune()
    fresh = {rf.path: (rf, got) for rf, got in reread}
    return wider, [fresh.get(rf.path, (rf, got)) for rf, got in loaded]


def _unread(path: str, skip: Skip | None) -> Problem:
    if skip is None:
        return Problem(path, 1, "record could not be read")
    if skip.kind == "outside":
        return Problem(
            path,
            1,
            f"record not read: {skip.reason} (roadmap never reads outside the repository). "
            "Replace the link with the file, or exclude it from the `records` globs",
            "info",
        )
    if skip.kind == "special":
        return Problem(path, 1, f"record not read: {skip.reason}. Exclude it from the `records` globs", "info")
    return Problem(
        path, 1, f"record not read: {skip.reason}. Split the file, or raise `max_file_bytes` in [tool.roadmap]"
    )


def defined_ids(records: list[RecordFile], config: Config | None = None) -> dict[str, Statement]:
    """Where each row/claim id is defined: in a canonical-state file (the roadmap spec) first; then a table
    row's id cell, an id-led heading, an id-led item. A record file named after an id
    (`.agents/claims/CLAIM-X.md`) that names it at its top defines it at its first statement."""
    if config is None:
        config = Config()
    best: dict[str, tuple[tuple[int, int, str, int], Statement]] = {}
    for rf in records:
        canonical = 0 if any(glob_match(g, rf.path) for g in config.canonical_states) else 1
        for st in rf.statements:
            if st.defines:
                key = (canonical, _KIND_RANK.get(st.kind, 9), st.path, st.line)
                if st.defines not in best or key < best[st.defines][0]:
                    best[st.defines] = (key, st)
    out = {k: v[1] for k, v in best.items()}
    for rf in records:
        stem = posixpath.splitext(posixpath.basename(rf.path))[0]
        if (
            stem not in out
            and rf.statements
            and any(stem in st.mentions.claims or stem in st.mentions.ids for st in rf.statements[:3])
        ):
            out[stem] = rf.statements[0]
    return dict(sorted(out.items()))
