"""Work in two processes: a forked child computes one part while this process computes the other, and the
child's result comes back as a pickle on a pipe.

A lint's long passes are over independent pieces (the commits of the history pass, the directives of the stale
analysis), and on a 2-core machine the second core sat idle through them. A fork inherits the parsed records, the
built history and the facts so far for free (copy on write), so the child starts at once; whatever it computes
lazily on top is its own and is dropped with it (this process computes the same again only where it is asked).

Results may name this process's objects (statements, commits) by reference instead of by copy: `pin` gives the
key of an object to send by reference and `unpin` maps the key back here, so merged results hold the very
objects a serial run would. Anything going wrong in the child (an exception, a signal, a pickle error) makes this
process compute the child's part itself: the outcome never depends on the fork. `ROADMAP_SERIAL=1` turns it off.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable, Hashable, Sequence
from typing import IO, TypeVar

from roadmap.history.git import after_fork

T = TypeVar("T")
A = TypeVar("A")
B = TypeVar("B")
R = TypeVar("R")
Pin = Callable[[object], Hashable | None]
Unpin = Callable[[Hashable], object]

BLOCK = 8  # items per block in map_split: neighbours share per-file and per-as-of caches, so a block stays on one side
MIN_ITEMS = 4 * BLOCK  # below this a fork costs about what it saves
_FAILED = object()


def enabled() -> bool:
    return hasattr(os, "fork") and (os.cpu_count() or 1) >= 2 and os.environ.get("ROADMAP_SERIAL", "") in ("", "0")


def _by_value(obj: object) -> Hashable | None:
    return None


def _no_reference(key: Hashable) -> object:
    raise pickle.UnpicklingError(f"unexpected reference {key!r}")


def run_split(
    mine: Callable[[], A], theirs: Callable[[], B], pin: Pin = _by_value, unpin: Unpin = _no_reference
) -> tuple[A, B]:
    """(mine(), theirs()), theirs() computed in a forked child meanwhile (here when forking is off or failed)."""
    if not enabled():
        return mine(), theirs()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute its part, send it, and leave without running anything of the parent's
        code = 1
        try:
            os.close(read_end)
            after_fork()
            got = theirs()
            with os.fdopen(write_end, "wb") as sink:
                _Pinner(sink, pin).dump(got)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    other: object = _FAILED
    try:
        ours = mine()
        with os.fdopen(read_end, "rb") as src:
            read_end = -1
            other = _read(src, unpin)
    except BaseException:
        os.kill(pid, signal.SIGKILL)  # this process failed (or was interrupted): the child's part is moot
        raise
    finally:
        if read_end != -1:
            os.close(read_end)
        _, status = os.waitpid(pid, 0)
    if other is _FAILED or os.waitstatus_to_exitcode(status) != 0:
        return ours, theirs()  # the child failed: its part is computed here
    return ours, other  # type: ignore[return-value]


def map_split(items: Sequence[T], fn: Callable[[T], R], pin: Pin = _by_value, unpin: Unpin = _no_reference) -> list[R]:
    """[fn(x) for x in items], every other block of items computed in a forked child when there are enough."""
    if len(items) < MIN_ITEMS or not enabled():
        return [fn(x) for x in items]
    mine = [i for i in range(len(items)) if (i // BLOCK) % 2 == 0]
    theirs = [i for i in range(len(items)) if (i // BLOCK) % 2 == 1]

    def child() -> list[R]:
        return [fn(items[i]) for i in theirs]

    ours, other = run_split(lambda: [fn(items[i]) for i in mine], child, pin, unpin)
    if not isinstance(other, list) or len(other) != len(theirs):
        other = child()
    results = dict(zip(mine, ours))
    results.update(zip(theirs, other))
    return [results[i] for i in range(len(items))]


class _Pinner(pickle.Pickler):
    def __init__(self, file: IO[bytes], pin: Pin):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._pin = pin

    def persistent_id(self, obj: object) -> Hashable | None:
        return self._pin(obj)


class _Unpinner(pickle.Unpickler):
    def __init__(self, file: IO[bytes], unpin: Unpin):
        super().__init__(file)
        self._unpin = unpin

    def persistent_load(self, pid: Hashable) -> object:
        return self._unpin(pid)


def _read(src: IO[bytes], unpin: Unpin) -> object:
    try:
        return _Unpinner(src, unpin).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, KeyError, ImportError):
        return _FAILED
