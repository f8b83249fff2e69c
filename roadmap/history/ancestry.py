"""`base..head` in memory: the commits reachable from head but not from base, without a git process.

Rules ask this once per as-of base (often a blame commit per record line), so it must not spawn git.
Walks by generation number (1 + the largest parent generation), newest generation first: when a commit
is popped, every descendant that could paint it "reachable from base" has been popped already, so its
colour is final, and the walk stops as soon as nothing interesting is left in the queue. Exact for any
commit dates (no clock-skew heuristics), and it touches only the news plus a thin frontier.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping


class Ancestry:
    def __init__(self, parents: Mapping[str, tuple[str, ...]]):
        self.parents = parents  # every commit of the walk -> its parents (all in the walk)
        self._gen: dict[str, int] | None = None

    def generations(self) -> dict[str, int]:
        if self._gen is None:
            gen: dict[str, int] = {}
            for start in self.parents:
                if start in gen:
                    continue
                stack = [start]
                while stack:  # iterative post-order: a commit's generation after all its parents'
                    sha = stack[-1]
                    todo = [p for p in self.parents.get(sha, ()) if p not in gen]
                    if todo:
                        stack.extend(todo)
                        continue
                    stack.pop()
                    if sha not in gen:
                        gen[sha] = 1 + max((gen[p] for p in self.parents.get(sha, ())), default=0)
            self._gen = gen
        return self._gen

    def range(self, head: str, base: str) -> set[str]:
        """The shas in `base..head` (what `git rev-list head ^base` lists)."""
        gen = self.generations()
        uninteresting: dict[str, bool] = {head: False, base: True}
        heap = [(-gen[head], head), (-gen[base], base)]
        heapq.heapify(heap)
        live = 0 if head == base else 1  # interesting commits waiting in the heap
        if head == base:
            uninteresting[head] = True
        out: set[str] = set()
        while heap and live > 0:
            _, sha = heapq.heappop(heap)
            u = uninteresting[sha]
            if not u:
                live -= 1
                out.add(sha)
            for p in self.parents.get(sha, ()):
                seen = uninteresting.get(p)
                if seen is None:
                    uninteresting[p] = u
                    heapq.heappush(heap, (-gen[p], p))
                    live += 0 if u else 1
                elif u and not seen:
                    uninteresting[p] = True
                    live -= 1
        return out
