"""One record file (bytes) -> RecordFile: statements with line spans, mentions, directive/historical, as-of."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from roadmap.records import source, structure
from roadmap.records.blocks import MD, Block, Cell, Heading, walk
from roadmap.records.classify import (
    NOTE_COLUMN,
    WORK_COLUMN,
    Classifier,
    Verdict,
    as_of_in,
    checked,
    marks_done,
    waits_for,
)
from roadmap.records.figures import decimal_comma
from roadmap.records.inline import Inline
from roadmap.records.legends import word_legend
from roadmap.records.kinds import follow_up_section
from roadmap.records.lead_lists import introduced_items
from roadmap.records.mentions import extract, ids_in
from roadmap.records.model import AsOf, Mentions, Problem, RecordFile, Statement, Table, built
from roadmap.records.patterns import FULL_SHA_RE, PREMISE_LABEL_RE, PRESENT_CAUSE_RE
from roadmap.records.spans import Region, cell_spans, place
from roadmap.records.state_words import leading_state, legend
from roadmap.records.suppressions import scan

if TYPE_CHECKING:
    from roadmap.config import Config

_OPEN_BOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]")  # "- [ ] follow-up": still open under a finished item
_ID_CELL = re.compile(r"[A-Z][A-Z0-9]{1,11}(?:-[A-Z0-9]{1,12}){1,4}")
# A cell that holds one tracker key or issue number and nothing else: "BE-311", "#102", "[PAY-12](...)".
_BARE_KEY = re.compile(r"[\W_]*(?:[A-Z][A-Z0-9]{1,11}(?:-[A-Z0-9]{1,12}){1,4}|#\d+)[\W_]*")


def _ids_only(rows: "list[tuple[int, list[Cell]]]", k: int) -> bool:
    """Does column `k` hold nothing but ticket keys ("| Task | Description |" with BE-311 under Task)? Then it names
    the row, not its work, whatever its header says."""
    cells = [cells[k].inline.text.strip() for _, cells in rows if k < len(cells)]
    return bool(cells) and all(not c or _BARE_KEY.fullmatch(c) for c in cells) and any(cells)


_DATE_COLUMN = re.compile(r"^(?:as[ -]of|(?:last[ -])?updated|date|checkpoint|base(?:[ -]commit)?|since)$", re.I)
_CLASSIFIERS: dict[int, tuple["Config", Classifier]] = {}
# A table's cells read once per distinct (short) content: the memo's bounds keep a 50,000-row table's ids out.
_MEMO_TEXT = 32
_MEMO_CELLS = 4096
_CellKey = tuple[str, str, bool, bool, tuple[tuple[int, int, str], ...], tuple[tuple[int, int, str], ...]]
_CellReading = tuple[Verdict, AsOf | None, Mentions]


_OPEN_BOX_TEXT = re.compile(r"\[ \]\s")


def classifier_for(config: "Config") -> Classifier:
    hit = _CLASSIFIERS.get(id(config))
    if hit is None or hit[0] is not config:
        hit = (config, Classifier(config))
        _CLASSIFIERS[id(config)] = hit
    return hit[1]


def parse_record(path: str, data: bytes, config: "Config") -> RecordFile:
    """Parse one record. Never raises on odd input: what cannot be read becomes a Problem."""
    text, problems = source.decode(path, data)
    if text is None:
        return RecordFile(path=path, text="", problems=problems)
    rf = RecordFile(path=path, text=text, problems=problems)
    if not text.strip():
        return rf
    lines = text.split("\n")
    md_lines, front_as_of = source.front_matter(lines)
    try:
        tokens = MD.parse("\n".join(md_lines))
    except Exception as exc:  # markdown-it is robust, but one bad record must never stop the lint
        problems.append(Problem(path, 1, f"markdown parser failed ({type(exc).__name__}: {exc}); record skipped"))
        return rf
    blocks, code_lines = walk(tokens, lines)
    rf.suppressions, sup_problems = scan(path, lines, code_lines)
    problems.extend(sup_problems)
    _Builder(rf, config, front_as_of, lines, decimal_comma(text)).build(blocks)
    rf.problems.sort(key=lambda p: p.line)
    return rf


class _Builder:
    def __init__(
        self, rf: RecordFile, config: "Config", front_as_of: AsOf | None, lines: list[str], comma: bool = False
    ):
        self.rf = rf
        self.comma = comma  # the file writes its decimals with a comma (records/figures.decimal_comma)
        self.lines = lines
        self.config = config
        self.cls = classifier_for(config)
        self.front_as_of = front_as_of
        self.item_rows: dict[int, str | None] = {}  # id(item block) -> its row id, for nested items
        self.item_history: dict[int, bool] = {}  # id(item block) -> historical, for nested items
        self.struct = structure.Structure()
        self.listed: dict[int, Block] = {}  # id(item) -> the "Next owner must:" label its list is under
        self.legend: dict[str, str] | None = None

    def build(self, blocks: list[Block]) -> None:
        self._sections(blocks)
        self.struct = structure.analyse(self.rf.path, blocks, self.lines, self.config)
        self.listed = introduced_items(blocks, self._asks)
        for b in blocks:
            if b.kind == "table":
                self._table(b)
            elif b.inline.visible or b.inline.struck:
                self._statement(b)

    def _sections(self, blocks: list[Block]) -> None:
        """Heading row ids and as-ofs (heading text, or the paragraphs that open its section); the preamble."""
        preamble_open = True
        seen_title = False
        found: AsOf | None = self.front_as_of
        top_of_section = True
        for b in blocks:
            if b.kind == "heading" and b.heading is not None:
                h = b.heading
                if h.level >= 2 or seen_title:
                    preamble_open = False  # the preamble is the text before the first section (under the title)
                seen_title = True
                h.preamble = preamble_open
                row, _ = self.cls.title_ids(b.inline.text, self.config)
                h.row_id = row or (b.headings[-1].row_id if b.headings else None)
                h.as_of = as_of_in(b.inline.text, leading_date=True)
                top_of_section = True
            elif b.kind == "paragraph" and top_of_section and b.parent is None:
                own = as_of_in(b.inline.text, leading_date=False)
                if own and b.headings and b.headings[-1].as_of is None:
                    b.headings[-1].as_of = own
            else:
                top_of_section = False
            if preamble_open and found is None and b.kind != "table":
                found = as_of_in(b.inline.text, leading_date=False)
        self.rf.preamble_as_of = AsOf(found.sha, found.date, "preamble") if found else None

    def _asks(self, text: str) -> bool:
        """Does a label ask for work: a hand-off or a directive phrase ("Next owner must:", "TODO:")?"""
        phrase = self.cls.phrase_re
        return structure.find_handoff(text) is not None or phrase is not None and phrase.search(text) is not None

    def _resolve_as_of(self, own: AsOf | None, headings: tuple[Heading, ...], row: AsOf | None = None) -> AsOf | None:
        if own:
            return AsOf(own.sha, own.date, "statement")
        if row:
            return AsOf(row.sha, row.date, "row")
        for h in reversed(headings):
            if h.as_of and not h.preamble:
                return AsOf(h.as_of.sha, h.as_of.date, "section")
        return self.rf.preamble_as_of

    def _work_in_process(self, text: str, sections: tuple[str, ...]) -> bool:
        """In a how-to record (a runbook, a playbook), an open box under an Action items / TODO / Follow-ups
        heading ("- [ ] Give load_orders retries") is work someone owes, not an instruction; so is any item of a
        section named as a list of work ("## Known gaps", "## Action items"), box or no box. A box alone is not:
        a prompt or workflow's checklist instructs whoever runs it. The title does not name the list: a runbook
        titled "Failover TODOs" still gives instructions in its steps."""
        if _OPEN_BOX_TEXT.match(text) is not None and self.cls.in_directive_section(sections):
            return True
        return self.cls.in_work_list_section(sections[1:] if len(sections) > 1 else sections)

    def _statement(self, b: Block) -> None:
        inl = b.inline
        text, raw = self._capped(b.line, "statement", inl.text.strip(), b.raw)
        if text != inl.text:  # trimmed or capped
            inl = Inline(text=text, code=inl.code, links=inl.links, struck=inl.struck, visible=inl.visible)
        sections = tuple(h.title for h in b.headings)
        verdict = self.cls.classify(
            text, b.kind, None, sections, all_struck=inl.struck and not inl.visible, struck=inl.struck
        )
        if id(b) in self.listed and not (verdict.directive or verdict.historical or marks_done(text)):
            verdict = Verdict(True, False, text)  # a bullet under "Next owner must:" asks for its work (unless done)
        if self.struct.kind == "process" and verdict.directive and not self._work_in_process(text, sections):
            verdict = Verdict(False, verdict.historical, None)  # an instruction of a how-to, not work
        why = self._history(b)
        if not why:
            unless = self.struct.unless_asked.get(id(b), "")  # only a log's newest entry has one
            live = (
                not unless
                or verdict.directive
                or PREMISE_LABEL_RE.match(text) is not None
                or PRESENT_CAUSE_RE.search(text) is not None
            )
            why = "" if live else unless
        if why or (
            b.parent is not None
            and self.item_history.get(id(b.parent))
            and not _OPEN_BOX.match(b.raw)
            and not structure.find_handoff(text)
        ):
            why = why or "under a finished or historical item"
            verdict = Verdict(False, True, None)
        if b.kind == "item":
            self.item_history[id(b)] = verdict.historical or checked(text)  # under a ticked box: its history
        row_id, defines = self.cls.title_ids(text, self.config)
        if b.kind == "heading":
            row_id = b.heading.row_id if b.heading else row_id
        elif b.kind == "paragraph":
            row_id, defines = defines, None  # a paragraph led by an id belongs to it but defines nothing
        if row_id is None and b.parent is not None:
            row_id = self.item_rows.get(id(b.parent))
        if row_id is None and b.headings:
            row_id = b.headings[-1].row_id
        if b.kind == "item":
            self.item_rows[id(b)] = row_id
        own = as_of_in(text, leading_date=True)
        self.rf.statements.append(
            Statement(
                path=self.rf.path,
                line=b.line,
                end_line=b.end_line,
                kind=b.kind,
                text=text,
                raw=raw,
                section=sections,
                row_id=row_id,
                item_number=b.item_number,
                mentions=self._placed(
                    extract(inl, self.config, self.rf.path, comma=self.comma),
                    [(n, 0, len(self.lines[n - 1])) for n in range(b.line, b.end_line + 1) if n <= len(self.lines)],
                ),
                directive=verdict.directive,
                historical=verdict.historical,
                as_of=self._resolve_as_of(own, b.headings),
                defines=defines,
                directive_text=verdict.directive_text,
                history=why,
            )
        )

    def _table(self, b: Block) -> None:
        tb = b.table
        assert tb is not None
        sections = tuple(h.title for h in b.headings)
        id_names = {h.lower() for h in self.config.id_columns}
        id_cols = [k for k, h in enumerate(tb.headers) if h.lower() in id_names]
        id_col = id_cols[0] if id_cols else None
        date_cols = [k for k, h in enumerate(tb.headers) if _DATE_COLUMN.match(h.strip())]
        section_row = b.headings[-1].row_id if b.headings else None
        why = self._history(b)
        rows = []
        # A table with a state column but no column of next steps: an open row asks for its own work, which its
        # work cell (Title, Item, Feature, ...) names; a later commit doing that work makes the row stale.
        state_cols = {n.lower() for n in self.config.state_columns}
        state_col = next((k for k, h in enumerate(tb.headers) if h.strip().lower() in state_cols), None)
        work_col = None
        # A table of work under a heading that lists work ("Action items", "Follow-ups") with no state column:
        # each row is an open item unless it says it is done (struck through, a check mark, DONE).
        listed = state_col is None and bool(sections) and follow_up_section(sections[-1])
        note_col = None  # with no column of work: a notes column whose cell opens with an imperative names it
        if (state_col is not None or listed) and not any(self.cls.is_directive_column(h) for h in tb.headers):
            work_col = next(
                (
                    k
                    for k, h in enumerate(tb.headers)
                    if k not in id_cols and k != state_col and WORK_COLUMN.search(h) and not _ids_only(tb.rows, k)
                ),
                None,
            )
            if work_col is None and state_col is not None:
                note_col = next(
                    (
                        k
                        for k, h in enumerate(tb.headers)
                        if k not in id_cols and k != state_col and k not in date_cols and NOTE_COLUMN.search(h)
                    ),
                    None,
                )
        # Where a row says what it waits for ("In progress | blocked until the export API lands (`export_api`)"), like
        # a "Blocked on:" item: its state cell and its notes.
        waits_cols = (
            {k for k, h in enumerate(tb.headers) if k == state_col or NOTE_COLUMN.search(h)}
            if state_col is not None
            else set()
        )
        read: dict[_CellKey, _CellReading] = {}  # _read_cell's memo, for this table
        # what is the same for every cell of the table, worked out once: its structure's verdicts and the as-of
        # point of a cell that names none of its own (nor its row)
        process = self.struct.kind == "process"
        unless_asked = self.struct.unless_asked.get(id(b), "")
        table_as_of = self._resolve_as_of(None, b.headings)
        for index, (line, cells) in enumerate(tb.rows):
            row_id, define_col = self._row_id(tb.headers, cells, id_cols)
            row_as_of = next(
                (a for k in date_cols if k < len(cells) for a in [_cell_as_of(cells[k].inline.text)] if a), None
            )
            open_row = (work_col is not None or note_col is not None) and (
                state_col is not None
                and state_col < len(cells)
                and self.cls.is_open_state(cells[state_col].inline.text, self._legend())
                or listed
                and not any(k != work_col and marks_done(c.inline.text) for k, c in enumerate(cells))
            )
            # A row under way whose work names the code it builds (`MovimientoStock`, `MovimientoListView`) asks for
            # that code: once all of it has landed, RL101 can say so. Without code names its progress is tracked.
            building = (
                not open_row
                and work_col is not None
                and state_col is not None
                and state_col < len(cells)
                and self.cls.is_progress_state(cells[state_col].inline.text)
            )
            stated = cells[state_col].inline.text if state_col is not None and state_col < len(cells) else None
            stmts = []
            spans: list[tuple[int, int]] | None = None  # the row's cell spans, split only when a cell has a path
            for k, cell in enumerate(cells):
                header = tb.headers[k] if k < len(tb.headers) else ""
                text, raw = self._capped(line, "cell", cell.inline.text.strip(), cell.raw, header)
                inl = cell.inline
                if text != inl.text:  # trimmed or capped
                    inl = Inline(text=text, code=inl.code, links=inl.links, struck=inl.struck, visible=inl.visible)
                verdict, own, mentions = self._read_cell(read, text, inl, header, sections)
                is_work = k == work_col or k == note_col and self.cls.opens_with_imperative(text)
                if building and k == work_col and not verdict.historical and _names_code(mentions.symbols):
                    verdict = Verdict(True, False, text)
                elif open_row and is_work and not verdict.historical and text:
                    # "~~Move X~~ not needed": the struck part was the work
                    done = inl.struck and self.cls.struck_work(text)
                    verdict = Verdict(False, True, None) if done else Verdict(True, False, text)
                elif (  # a row not closed whose state or note says what it waits for: work left, whoever does it
                    k in waits_cols
                    and stated is not None
                    and not verdict.directive
                    and not verdict.historical
                    and (need := waits_for(text))
                    and leading_state(stated, self.config.closed_state_set) is None
                ):
                    verdict = Verdict(True, False, need)
                if process and verdict.directive:
                    verdict = Verdict(False, verdict.historical, None)
                why_cell = why or ("" if verdict.directive else unless_asked)
                if why_cell:
                    verdict = Verdict(False, True, None)
                if mentions.paths:
                    if spans is None:
                        spans = cell_spans(self.lines[line - 1]) if line <= len(self.lines) else []
                    mentions = self._placed(mentions, [(line, *spans[k])] if k < len(spans) else [])
                st = built(  # Statement(...), a table's many cells made faster (model.built)
                    Statement,
                    {
                        "path": self.rf.path,
                        "line": line,
                        "end_line": line,
                        "kind": "cell",
                        "text": text,
                        "raw": raw,
                        "section": sections,
                        "row_id": row_id or section_row,
                        "column": header,
                        "table_row": index,
                        "mentions": mentions,
                        "directive": verdict.directive,
                        "historical": verdict.historical,
                        "as_of": self._resolve_as_of(own, b.headings, row_as_of) if own or row_as_of else table_as_of,
                        "defines": row_id if k == define_col else None,
                        "directive_text": verdict.directive_text,
                        "history": why_cell,
                    },
                )
                stmts.append(st)
                self.rf.statements.append(st)
            rows.append(tuple(stmts))
        self.rf.tables.append(
            Table(
                path=self.rf.path,
                line=b.line,
                end_line=b.end_line,
                section=sections,
                headers=tuple(tb.headers),
                rows=tuple(rows),
                id_column=id_col,
            )
        )

    def _read_cell(
        self, read: dict[_CellKey, _CellReading], text: str, inl: Inline, header: str, sections: tuple[str, ...]
    ) -> _CellReading:
        """A cell's verdict, own as-of and mentions: functions of its content and column alone, so a table's
        repeated short cells (states, owners, "-", check marks) are read once; `read` holds them."""
        key = (text, header, inl.struck, inl.visible, tuple(inl.code), tuple(inl.links))
        got = read.get(key)
        if got is None:
            got = (
                self.cls.classify(
                    text, "cell", header, sections, all_struck=inl.struck and not inl.visible, struck=inl.struck
                ),
                as_of_in(text, leading_date=False),
                extract(inl, self.config, self.rf.path, header, self.comma),
            )
            if len(text) <= _MEMO_TEXT and len(read) < _MEMO_CELLS:
                read[key] = got
        return got

    def _row_id(self, headers: list[str], cells: list[Cell], id_cols: list[int]) -> tuple[str | None, int | None]:
        """(row id, index of the cell that defines it): the first id in an id-named column (ID/Row/Key/...),
        else the first cell led by an id, else the first id in a column named like "Rows" (a reference only)."""
        for k in id_cols:
            if k < len(cells):
                found = _first_id(cells[k].inline.text, self.config, leading=False)
                if not found:
                    # the table defines its ids (docs/records.md): a cell of the ID column that is one upper-case
                    # hyphenated token is one, whatever id_patterns says (SEC-2026-014, OPS-12)
                    m = _ID_CELL.fullmatch(cells[k].inline.text.strip(" *_`"))
                    found = m.group(0) if m else None
                if found:
                    return found, k
        for k, cell in enumerate(cells):
            found = _first_id(cell.inline.text, self.config, leading=True)
            if found:
                return found, k
        for k, h in enumerate(headers):
            if "row" in h.lower() and k < len(cells):
                found = _first_id(cells[k].inline.text, self.config, leading=False)
                if found:
                    return found, None
        return None, None

    def _legend(self) -> dict[str, str]:
        """The status emoji and words this record's own legend defines (read once, when a table needs it)."""
        if self.legend is None:
            self.legend = {**word_legend(self.lines), **legend(self.lines)}
        return self.legend

    def _history(self, b: Block) -> str:
        """Why the record's structure makes this block history ("" when it is current, or a live hand-off)."""
        if id(b) in self.struct.live:
            return ""
        return self.struct.history.get(id(b), "")

    def _placed(self, mentions: Mentions, regions: list[Region]) -> Mentions:
        """The mentions with each path reference's source line and columns (what a fix edits)."""
        if not mentions.paths:
            return mentions
        return replace(mentions, paths=place(mentions.paths, self.lines, regions))

    def _capped(self, line: int, what: str, text: str, raw: str, header: str | None = None) -> tuple[str, str]:
        """`text` and `raw` cut at MAX_TEXT, a Problem recorded when they were longer (`what`, or the cell of
        column `header`, is what the problem names)."""
        longest = max(len(text), len(raw))
        if longest > source.MAX_TEXT:
            what = what if header is None else f"cell `{header}`"
            self.rf.problems.append(source.cap_problem(self.rf.path, line, what, longest))
        return text[: source.MAX_TEXT], raw[: source.MAX_TEXT]


def _first_id(text: str, config: "Config", leading: bool) -> str | None:
    ids, claims = ids_in(text, config)
    found = sorted(ids + claims)
    if not found:
        return None
    if leading and text.lstrip()[:1] and found[0][0] != len(text) - len(text.lstrip()):
        return None
    return found[0][2]


def _cell_as_of(text: str) -> AsOf | None:
    text = text.strip()
    if FULL_SHA_RE.match(text):
        return AsOf(sha=text)
    return as_of_in(text, leading_date=True)


_CODE_NAME = re.compile(r"^[A-Za-z_][\w.:]*(?:[a-z][A-Z]|_)[\w.:]*[!?]?$")


def _names_code(symbols: tuple[str, ...]) -> bool:
    """Does a cell name code: an identifier in camelCase, PascalCase with an inner capital, or snake_case?"""
    return any(_CODE_NAME.match(s) for s in symbols)
