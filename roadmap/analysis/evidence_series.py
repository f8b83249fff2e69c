"""Evidence series named in record text, whole-token (`silesia-l3` is not in `silesia-l3-lowmem`), and the series a
statement is about: the ones it names or cites, for a table cell the ones its row names or cites (its key cell,
an Evidence or "last run" column), else the one its section heading names.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

from roadmap.analysis.metric_terms import words_of
from roadmap.records.figures import single_figure
from roadmap.records.model import Statement, Table

if TYPE_CHECKING:
    from roadmap.evidence.store import EvidenceEntry, EvidenceStore

_KEY_COLUMNS = re.compile(
    r"^(?:series|key|config(?:uration)?|model|name|benchmark|bench|workload|case|scenario|"
    r"dataset|variant|setup|suite|test|run|experiment|exp|exp[ée]rience)s?$",
    re.I,
)
# Columns whose cells name a series two tables can share ("| Series | ... |"); a first column of arms, shapes or
# steps ("oracle", "decode qkv 1×3072×2048") names a row of its own table only.
# A Run or Experiment column names each row's run (`exp-07`), which its evidence folder and a summary line name too.
_SERIES_COLUMNS = re.compile(
    r"^(?:series|benchmark|bench|workload|config(?:uration)?|model|suite|run|experiment|exp|exp[ée]rience)s?$", re.I
)
_DIGITS = re.compile(r"\d{4}")
_METRIC_COLUMNS = re.compile(r"^(?:metric|measure|measurement|quantity|kpi|indicator)s?$", re.I)


def metric_column(table: Table) -> int | None:
    return _metric_column(table.headers)


def series_keys(tables: Iterable[Table]) -> set[str]:
    """The series a Series-like column names, where it names them distinctively (a digit or a hyphen)."""
    out: set[str] = set()
    for table in tables:
        k = key_column(table)
        if k is None or not _SERIES_COLUMNS.match(table.headers[k].strip()):
            continue
        for cells in table.rows:
            key = " ".join(cells[k].text.lower().split()) if k < len(cells) else ""
            if (
                3 <= len(key) <= 60
                and " " not in key
                and any(ch.isdigit() or ch == "-" for ch in key)
                and single_figure(key) is None
            ):
                out.add(key)
    return out


@lru_cache(maxsize=4096)
def _series_columns(headers: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(j for j, h in enumerate(headers) if _SERIES_COLUMNS.match(h.strip()))


def key_column(table: Table) -> int | None:
    """The column that names what a row is about: Series/Key/Config/Model/..., else the first (unless it names
    metrics)."""
    return _key_column(table.headers)


@lru_cache(maxsize=4096)
def _metric_column(headers: tuple[str, ...]) -> int | None:
    return next((i for i, h in enumerate(headers) if _METRIC_COLUMNS.match(h.strip())), None)


@lru_cache(maxsize=4096)
def _key_column(headers: tuple[str, ...]) -> int | None:
    k = next((i for i, h in enumerate(headers) if _KEY_COLUMNS.match(h.strip())), None)
    if k is None and headers and not _METRIC_COLUMNS.match(headers[0].strip()):
        k = 0
    return k


class SeriesFinder:
    """Evidence series names in record text, whole-token (`silesia-l3` is not in `silesia-l3-lowmem`)."""

    def __init__(self, store: "EvidenceStore", keys: Iterable[str] = ()):
        """`keys`: series the records name in a Series-like column, evidence or not ("resnet50-int8-t4")."""
        self.store = store
        slugs = sorted({s.lower() for s in (*store.by_series, *keys) if s}, key=len, reverse=True)
        self.known = set(slugs)
        self.words = {s: frozenset(words_of(s)) for s in slugs}
        alt = "|".join(re.escape(s) for s in slugs)
        self.pattern = re.compile(rf"(?<![\w-])(?:{alt})(?![\w-])") if slugs else None
        # entry names as written in text, any date style: 20260402-silesia-l3, 2026-02-01_forest-level_ps5.json, its stem
        self.entries = {
            n.lower(): e for e in store for n in (e.name, e.name.rsplit(".", 1)[0] if e.kind == "file" else e.name)
        }
        names = "|".join(re.escape(n) for n in sorted(self.entries, key=len, reverse=True))
        self.entry_pattern = re.compile(rf"(?<![\w.-])(?:{names})(?![\w-])") if names else None
        self._cited: dict[int, list["EvidenceEntry"]] = {}  # id(statement) -> the entries it cites
        self._headings: dict[tuple[str, ...], set[str]] = {}  # section titles -> the series they cover

    def named(self, text: str) -> set[str]:
        return set(self.pattern.findall(text.lower())) if self.pattern is not None else set()

    def in_text(self, text: str) -> set[str]:
        """Series a fragment of text names, or whose evidence it cites by name."""
        low = text.lower()
        cited = (
            {self.entries[n].series.lower() for n in self.entry_pattern.findall(low)}
            if self.entry_pattern is not None
            else set()
        )
        return self.named(low) | cited

    def cited_entries(self, st: Statement) -> list["EvidenceEntry"]:
        """The evidence entries a statement cites: by name in any date style, or by a path under the root."""
        hit = self._cited.get(id(st))
        if hit is not None:
            return hit
        out: dict[str, "EvidenceEntry"] = {}
        if self.entry_pattern is not None and _DIGITS.search(st.text):
            for n in self.entry_pattern.findall(st.text.lower()):
                out.setdefault(self.entries[n].path, self.entries[n])
        root = self.store.root.rstrip("/") + "/"
        for name in (*st.mentions.evidence, *(p.path for p in st.mentions.paths if p.path.startswith(root))):
            e = self.store.get(name)
            if e is not None:
                out.setdefault(e.path, e)
        found = self._cited[id(st)] = list(out.values())
        return found

    def cited(self, st: Statement) -> set[str]:
        """Series of the evidence a statement cites."""
        return {e.series.lower() for e in self.cited_entries(st) if e.series}

    def series(
        self, st: Statement, table: Table | None, cells: tuple[Statement, ...]
    ) -> tuple[frozenset[str], frozenset[str]]:
        """(evidence series, series keys) a statement's figures are of: the keys are what a Series-like column
        of its table row says, whether or not evidence of that name exists."""
        names = self.named(st.text) | self.cited(st)
        keys: set[str] = set()
        if table is not None and cells:
            for c in cells:
                if c is not st:
                    names |= self.cited(c)
            k = key_column(table)
            # The key column, and any other column named like a series ("| Model | Series | AUC |": the row is
            # LightGBM's, its figures are of the churn-gbm series).
            for j in dict.fromkeys([k, *_series_columns(tuple(table.headers))]):
                if j is None or j >= len(cells) or cells[j] is st:
                    continue
                key = " ".join(cells[j].text.lower().split())
                if key and single_figure(key) is None:
                    names |= self.named(key)
                    if _SERIES_COLUMNS.match(table.headers[j].strip()):
                        keys.add(key)
        if not names and self.known:
            names |= self._from_heading(st, cells)
        return frozenset(names), frozenset(keys)

    def _from_heading(self, st: Statement, cells: tuple[Statement, ...]) -> set[str]:
        """The one series the section heading names ("Where we stand (rnnt-small, A100)"), unless the statement's
        own words, with the heading's, name another ("The large model (rnnt-large) ...")."""
        covered = self._headings.get(st.section)
        if covered is None:
            heading = frozenset(w for s in st.section for w in words_of(s))
            covered = self._headings[st.section] = {
                s for s in self.known if len(self.words[s]) >= 2 and self.words[s] <= heading
            }
        if len(covered) != 1:
            return set()
        heading = frozenset(w for s in st.section for w in words_of(s))
        own = heading | frozenset(w for c in (cells or (st,)) for w in words_of(c.text))
        with_own = {s for s in self.known if len(self.words[s]) >= 2 and self.words[s] <= own}
        return covered if with_own == covered else set()
