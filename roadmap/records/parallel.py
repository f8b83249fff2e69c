"""Parse many records at once: over two processes when there is enough to parse (a cold run over megabytes of
records), in this process otherwise. The result is what parse_record gives for each, in the order given.

The caller may pass `split`, a way to run two parts at once (the lint's history/forked.run_split: the second part
in a forked child, which starts at once and inherits the items). Without it the second process is a fresh
interpreter running this module (`python -m roadmap.records.parallel`): nothing of this one (threads, git pipes,
the caller's main module) is copied into it or re-run there. It reads its share as a pickle on stdin, parses it,
stores those entries in the records cache itself and writes the parsed records back as a pickle on stdout, while
this process parses the rest. The pickles pass only between these two processes of ours; anything going wrong
with the second one falls back to parsing its share here.

`annotate(record)`, when given, is computed for each record parsed in the process that parsed it (what the caller
works out per record in any case, on both cores); its results come back with the records.
"""

from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from roadmap.records.cache import RecordCache
from roadmap.records.parser import parse_record

if TYPE_CHECKING:
    from roadmap.config import Config
    from roadmap.records.model import RecordFile

MIN_PARALLEL_BYTES = 2 << 20  # below this, starting a process costs about what it would save
WORKER_SHARE = 0.48  # of the bytes: a little under half, since the worker starts later

SPLIT_SHARE = 0.5  # the other part's share when `split` forks it: it starts at once, with what this process has

Item = tuple[str, bytes, str]  # (path, bytes, cache key)
A = TypeVar("A")
B = TypeVar("B")
Split = Callable[[Callable[[], Any], Callable[[], Any]], tuple[Any, Any]]  # (mine, theirs) -> (mine(), theirs())


def parse_many(items: list[Item], config: "Config", cache: RecordCache | None) -> list["RecordFile"]:
    """parse_record for each (path, data, key), in order; each parse stored in `cache` under its key."""
    return [rf for rf, _ in parse_annotated(items, config, cache)]


def parse_annotated(
    items: list[Item],
    config: "Config",
    cache: RecordCache | None,
    split: Split | None = None,
    annotate: Callable[["RecordFile"], A] | None = None,
) -> list[tuple["RecordFile", A | None]]:
    """(parse_record, `annotate` of it or None) for each (path, data, key), in order; each parse stored in `cache`
    under its key. Over two processes for enough bytes: through `split` when given, else a fresh interpreter."""
    total = sum(len(d) for _, d, _ in items)
    if total < MIN_PARALLEL_BYTES or (os.cpu_count() or 1) < 2 or len(items) < 2:
        return _annotated(_parse_share(items, config, cache), annotate)
    if split is not None:
        return _split_by(split, items, config, cache, annotate)
    mine, theirs = _split(items)
    worker = _Worker([items[i] for i in theirs], config, cache)
    ours = _annotated(_parse_share([items[i] for i in mine], config, cache), annotate)
    other = worker.result()
    got = _annotated(other, annotate) if other is not None else None
    if got is None:
        got = _annotated(_parse_share([items[i] for i in theirs], config, cache), annotate)
    out: dict[int, tuple[RecordFile, A | None]] = dict(zip(mine, ours))
    out.update(zip(theirs, got))
    return [out[i] for i in range(len(items))]


def _annotated(
    records: list["RecordFile"], annotate: Callable[["RecordFile"], A] | None
) -> list[tuple["RecordFile", A | None]]:
    return [(rf, annotate(rf) if annotate is not None else None) for rf in records]


def _split_by(
    split: Split,
    items: list[Item],
    config: "Config",
    cache: RecordCache | None,
    annotate: Callable[["RecordFile"], A] | None,
) -> list[tuple["RecordFile", A | None]]:
    """parse_many's two parts through `split`: the other part parses (and annotates) its share, storing it in the
    cache, and hands back the records with how many entries it wrote there."""
    mine, theirs = _split(items, SPLIT_SHARE)
    here = os.getpid()

    def part(which: list[int]) -> tuple[list[tuple[RecordFile, A | None]], int, int]:
        before = cache.stats["written"] if cache is not None else 0
        got = _annotated(_parse_share([items[i] for i in which], config, cache), annotate)
        return got, (cache.stats["written"] - before if cache is not None else 0), os.getpid()

    (ours, _, _), (other, written, pid) = split(lambda: part(mine), lambda: part(theirs))
    if cache is not None and pid != here:  # written by another process: this one's count does not have them yet
        cache.stats["written"] += written
    out: dict[int, tuple[RecordFile, A | None]] = dict(zip(mine, ours))
    out.update(zip(theirs, other))
    return [out[i] for i in range(len(items))]


def _split(items: list[Item], share: float = WORKER_SHARE) -> tuple[list[int], list[int]]:
    """Indices for this process and for the other, balanced by bytes (largest first), the other's share `share`
    of the whole."""
    mine: list[int] = []
    theirs: list[int] = []
    ours = other = 0
    for i in sorted(range(len(items)), key=lambda i: -len(items[i][1])):
        if other * (1 - share) < ours * share:
            theirs.append(i)
            other += len(items[i][1])
        else:
            mine.append(i)
            ours += len(items[i][1])
    return sorted(mine), sorted(theirs)


class _Worker:
    """The second process, started at once and fed from a thread, so this process parses meanwhile."""

    def __init__(self, items: list[Item], config: "Config", cache: RecordCache | None):
        self.cache = cache
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            payload = pickle.dumps((items, config, cache), protocol=pickle.HIGHEST_PROTOCOL)
            env = dict(os.environ)
            here = str(Path(__file__).resolve().parents[2])  # the directory holding the roadmap package
            env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "roadmap.records.parallel"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            return
        self.feeder = threading.Thread(target=self._feed, args=(payload,), daemon=True)
        self.feeder.start()

    def _feed(self, payload: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(payload)
            self.proc.stdin.close()
        except OSError:
            pass

    def result(self) -> list["RecordFile"] | None:
        """The worker's records, or None when it failed (its share is then parsed here)."""
        if self.proc is None:
            return None
        try:
            assert self.proc.stdout is not None
            raw = self.proc.stdout.read()
            code = self.proc.wait()
            self.feeder.join()
            if code != 0:
                return None
            got: Any = pickle.loads(raw)
            records, written = got
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
            return None
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        if self.cache is not None:
            self.cache.stats["written"] += written
        return list(records)


def _parse_share(items: list[Item], config: "Config", cache: RecordCache | None) -> list["RecordFile"]:
    out = []
    for path, data, key in items:
        rf = parse_record(path, data, config)
        if cache is not None:
            cache.put(key, rf)
        out.append(rf)
    return out


def _serve() -> None:
    """The worker: a pickled (items, config, cache) on stdin, a pickled (records, entries written) on stdout."""
    gc.disable()  # a short-lived parser of acyclic objects: see gc_paused in roadmap/records/loader.py
    items, config, cache = pickle.loads(sys.stdin.buffer.read())
    before = cache.stats["written"] if cache is not None else 0
    records = _parse_share(items, config, cache)
    written = cache.stats["written"] - before if cache is not None else 0
    sys.stdout.buffer.write(pickle.dumps((records, written), protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    _serve()
