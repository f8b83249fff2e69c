"""Evidence series named in record text, whole-token (`silesia-l3` is not in `silesia-l3-lowmem`), and the series a
statement is about: the ones it names or cites, for a table cell the ones its row names or cites (its key cell,
an Evidence or "last run" column), else the one its section heading names.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from roadmap.analysis.metric_terms import words_of
from roadmap.records.figures import single_figure
from roadmap.records.model import Statement, Table

if TYPE_CHECKING:
    from roadmap.evidence.store import EvidenceStore

_KEY_COLUMNS = re.compile(r"^(?:series|key|config(?:uration)?|model|name|benchmark|bench|workload|case|scenario|"
                          r"dataset|variant|setup|suite|test)s?$", re.I)
_METRIC_COLUMNS = re.compile(r"^(?:metric|measure|measurement|quantity|kpi|indicator)s?$", re.I)


def metric_column(table: Table) -> int | None:
    return next((i for i, h in enumerate(table.headers) if _METRIC_COLUMNS.match(h.strip())), None)


def key_column(table: Table) -> int | None:
    """The column that names what a row is about: Series/Key/Config/Model/..., else the first (unless it names
    metrics)."""
    k = next((i for i, h in enumerate(table.headers) if _KEY_COLUMNS.match(h.strip())), None)
    if k is None and table.headers and not _METRIC_COLUMNS.match(table.headers[0].strip()):
        k = 0
    return k


class SeriesFinder:
    """Evidence series names in record text, whole-token (`silesia-l3` is not in `silesia-l3-lowmem`)."""

    def __init__(self, store: "EvidenceStore"):
        self.store = store
        slugs = sorted({s.lower() for s in store.by_series if s}, key=len, reverse=True)
        self.known = set(slugs)
        self.words = {s: frozenset(words_of(s)) for s in slugs}
        alt = "|".join(re.escape(s) for s in slugs)
        self.pattern = re.compile(rf"(?<![\w-])(?:{alt})(?![\w-])") if slugs else None

    def named(self, text: str) -> set[str]:
        return set(self.pattern.findall(text.lower())) if self.pattern is not None else set()

    def cited(self, st: Statement) -> set[str]:
        out = set()
        root = self.store.root.rstrip("/") + "/"
        for name in (*st.mentions.evidence, *(p.path for p in st.mentions.paths if p.path.startswith(root))):
            e = self.store.get(name)
            if e is not None and e.series:
                out.add(e.series.lower())
        return out

    def series(self, st: Statement, table: Table | None,
               cells: tuple[Statement, ...]) -> tuple[frozenset[str], frozenset[str]]:
        """(evidence series, row keys) a statement's figures are of."""
        names = self.named(st.text) | self.cited(st)
        keys: set[str] = set()
        if table is not None and cells:
            for c in cells:
                if c is not st:
                    names |= self.cited(c)
            k = key_column(table)
            if k is not None and k < len(cells) and cells[k] is not st:
                key = " ".join(cells[k].text.lower().split())
                if key and single_figure(key) is None:
                    keys.add(key)
                    names |= self.named(key)
        if not names and self.known:
            names |= self._from_heading(st, cells)
        return frozenset(names), frozenset(keys)

    def _from_heading(self, st: Statement, cells: tuple[Statement, ...]) -> set[str]:
        """The one series the section heading names ("Where we stand (rnnt-small, A100)"), unless the statement's
        own words, with the heading's, name another ("The large model (rnnt-large) ...")."""
        heading = frozenset(w for s in st.section for w in words_of(s))
        covered = {s for s in self.known if len(self.words[s]) >= 2 and self.words[s] <= heading}
        if len(covered) != 1:
            return set()
        own = heading | frozenset(w for c in (cells or (st,)) for w in words_of(c.text))
        with_own = {s for s in self.known if len(self.words[s]) >= 2 and self.words[s] <= own}
        return covered if with_own == covered else set()
