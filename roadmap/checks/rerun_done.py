"""RL102 rerun-done: a directive asks for a rerun that evidence dated after it already records."""

from __future__ import annotations

import re

from roadmap.analysis.context import LintContext
from roadmap.analysis.evidence_index import cited_with_row, row_of, series_finder
from roadmap.analysis.facts import News, Reason
from roadmap.analysis.metric_terms import long_form, words_of
from roadmap.analysis.repeated_run import repeated_series
from roadmap.analysis.rerun_commits import rerun_entries
from roadmap.analysis.stale import hits_for
from roadmap.analysis.surfaces import subject_ids
from roadmap.analysis.terms import distinctive_terms, id_parts, size_terms, split_terms, tokens
from roadmap.evidence.store import EvidenceEntry
from roadmap.findings import Hit, Related
from roadmap.records.model import Statement
from roadmap.regex_hints import Hinted

# The rerun phrases (each searched only where a literal it needs is: regex_hints.py). Spanish, Portuguese, German,
# French, Italian: "Reexecutar o benchmark", "volver a medir", "erneut messen"; Chinese, Japanese, Korean (no word
# boundaries there): 重新压测, 重跑, 复测, 再測定, 재측정.
# What German repeats when it reruns: a run, a measurement, a benchmark, an experiment, a simulation (Skalierungslauf,
# Messreihe, Rechnung); not a procedure or a course (Ablauf, Verlauf), a step or a question.
_RUN_NOUN_DE = (
    r"[\w-]*?(?:(?<!ab)(?<!ver)(?:lauf|läufe)|messung(?:en)?|messreihen?|benchmarks?|runs?|experimente?|"
    r"simulation(?:en)?|rechnung(?:en)?)\b"
)
_RERUN_PHRASES = (
    r"\bre-?(?:run|measure|bench(?:mark)?|take|profile|do|capture|time)\b",
    r"\b(?:measure|run|bench(?:mark)?)\s+(?:[\w./-]+\s+){0,3}again\b",
    r"\brepeat the\b",
    r"\bre-?e(?:xecutar|jecutar)\b",
    r"\bre-?medir\b",
    r"\bvolver\s+a\s+(?:ejecutar|correr|medir|lanzar)\b",
    r"\brodar\s+(?:[\w./-]+\s+){0,3}(?:de\s+novo|novamente)\b",
    r"\berneut\s+(?:aus)?(?:führen|messen|laufen)\b",
    r"\bneu\s+messen\b",
    # "Nachmessung Probe B bei 300 K", "nachmessen", "Wiederholungsmessung": a measurement taken again
    r"\bnachmess(?:ung(?:en)?|en)\b|\bwiederholungs(?:messung|lauf)\w*",
    # "Skalierungslauf auf 64 Knoten wiederholen", "wiederhole die Messung": a run repeated, not a step or a question
    rf"\b{_RUN_NOUN_DE}(?:\s+[^\s.;:!?]+){{0,6}}?\s+wiederhol(?:en|e)\b"
    rf"|\bwiederhol(?:en|e)\s+(?:[^\s.;:!?]+\s+){{0,3}}?{_RUN_NOUN_DE}",
    # "répéter la mesure", "repetir la medición", "repetir o benchmark", "ripetere la misura"
    r"\b(?:répéter|repeter|repetir|ripetere)\s+(?:(?:la|le|les|el|los|las|il|lo|gli|i|a|o|os|as)\s+|l['’])"
    r"(?:[^\W\d_]+\s+)?(?:mesures?|medici[oó]n(?:es)?|medidas?|medi[cç](?:[aã]o|[oõ]es)|misur(?:a|e|azion[ei])|"
    r"bench(?:mark)?s?|runs?|essais?|exp[eé]rien\w*|experimentos?|esperiment[oi]|simula(?:tion|ción|ção|zione)\w*|"
    r"pruebas?|prov[ae]|corridas?|ejecuci[oó]n|execu[cç][aã]o|esecuzione|campagnes?)\b",
    r"\brelancer\b",
    r"\brefaire\s+(?:le|la|les)\s+(?:mesure|bench)",
    r"\brieseguire\b",
    r"\brilanciare\b",
    r"\brimisurare\b",
    r"重新(?:压测|壓測|测试|測試|测量|測量|测|測|跑|运行|運行|执行|執行|评测|評測|基准|基準|做)|重跑|重测|重測|复测|複測"
    r"|再(?:跑|测|測)一(?:次|遍)|再(?:測定|計測|実行|ベンチ)|재(?:측정|실행|벤치)|다시\s*(?:측정|실행)",
)
RERUN = re.compile("|".join(_RERUN_PHRASES), re.I)
says_rerun = Hinted(RERUN).search  # bool(RERUN.search(text)), each phrase tried only where it can be (regex_hints.py)
# A list item or paragraph that opens with a rerun verb asks for one, whatever the directive vocabulary says
# ("Re-capture forest-level on PS5 once ...").
_OPENS_WITH_RERUN = re.compile(
    r"^\W{0,3}(?:\[ \]\s*)?(?:re-?(?:run|measure|bench(?:mark)?|take|profile|do|capture|time)\b|"
    r"re-?e(?:xecutar|jecutar)\b|re-?medir\b|relancer\b|rieseguire\b)",
    re.I,
)
# "nothing to rerun until ...", "no need to re-bench", "rerun not needed": a rerun the text says is not asked for
_NO_RERUN = re.compile(
    r"\b(?:nothing|no need|no reason|not|never|don't|do not|no)\b(?:\s+\w+){0,2}\s+"
    r"re-?(?:run|measure|bench\w*|do)\b|\bre-?(?:run|measure|bench\w*)(?:ning)?\s+(?:is\s+)?"
    r"(?:not|no longer)\s+(?:needed|required)\b|\bwithout\s+re-?running\b",
    re.I,
)
MIN_SLUG_COVERAGE = 2 / 3
# A question or step heading's label: "Q2.", "3.", "2.1", "Step 4:".
_HEADING_LABEL = re.compile(r"^\W{0,3}(?:[A-Z]{1,3}\d+(?:\.\d+)*|\d+(?:\.\d+)*|(?i:step)\s+\d+)[.):]\s+")
# JSON values that name what was measured: a dataset, a model, a benchmark ("wikitext-2", "llama-3-8b").
_NAME_VALUE = re.compile(r"^[A-Za-z][\w.+-]{1,60}$")


def match(st: Statement, entry: EvidenceEntry, named: frozenset[str] = frozenset()) -> str | None:
    """How an evidence entry is the statement's series: "named" (the statement, or its table row, names or
    cites that series), "row" (it records one of the statement's rows or claims), "series" (every word of its
    slug is the statement's), "partial" (two thirds of them), else None. A statement that names series is
    about those alone (`silesia-l3` is not `silesia-l3-lowmem`); two model sizes (`4b`, `8b`) never match, nor two data splits (held-out, val)."""
    if named:
        return "named" if entry.series.lower() in named or rerun_of(entry) in named else None
    ids = subject_ids(st)
    words = set(tokens(st.text)) | id_parts(ids)
    slug = distinctive_terms(entry.series.replace("-", " ").replace("_", " "))
    want, have = size_terms(words), size_terms(slug)
    if want and have and not (want & have):
        return None
    want, have = split_terms(st.text), split_terms(entry.series)
    if want and have and not (want & have):
        return None  # "re-run the held-out eval" is not answered by a run on the val split
    if entry.row:
        return "row" if entry.row in ids else None
    parts = set(words_of(entry.series))
    if parts - _CONTAINERS:
        parts -= _CONTAINERS  # `resultats/convergence`: the folder says where results go, not which
    if len(parts) == 1 and next(iter(parts)) in _script_stems(st):
        return "series"  # "relancer le benchmark de convergence (`bench/convergence.jl`)": the script it names
    if len(parts) >= 2 and parts <= set(words_of(st.text)):
        return "series"  # "rerun the 1k ingest benchmark": every word, sizes and counts too
    if len(slug) >= 2 and len(slug & words) >= 2 and len(slug & words) / len(slug) >= MIN_SLUG_COVERAGE:
        return "series" if slug <= words else "partial"
    if len(parts) == 1 and _named_metric(st, entry, next(iter(parts))):
        return "partial"
    return None


# A run folder named as a rerun of a series (`exp-07-relance`, `scaling-64n_rerun2`, `baseline-retry`): a run of that
# series. "-v2", "-fixed" or "-lowmem" name another variant, not the same run again.
_RERUN_SUFFIX = re.compile(
    r"^(.+?)[-_.](?:re-?runs?|re-?launch(?:ed)?|relance|relanc[ée]e?|retry|redo|repeat(?:ed)?|again|bis|"
    r"wiederholung|nachmessung|repeti[cç](?:[aã]o|i[oó]n)|rilancio|rieseguit[oa]|re-?ejecuci[oó]n|reexecu[cç][aã]o)"
    r"(?:[-_]?\d{1,2})?$",
    re.I,
)
# What a foreign result file calls the run it is of ({"run": "exp-07", "relance": true}).
_RUN_KEYS = ("run", "run_name", "experiment", "exp")


def rerun_of(entry: EvidenceEntry) -> str | None:
    """The series (lower case) an entry reruns, when its name says so (`exp-07-relance` is exp-07 again) or its
    result file names another run as its own (`"run": "exp-07"` in runs/exp-07-relance/metrics.json); else None."""
    m = _RERUN_SUFFIX.match(entry.series)
    if m:
        return m.group(1).lower()
    raw = entry.raw or {}
    for key in _RUN_KEYS:
        value = raw.get(key)
        if (
            isinstance(value, str)
            and _NAME_VALUE.match(value.strip())
            and value.strip().lower() != entry.series.lower()
        ):
            return value.strip().lower()
    return None


# Folder names that hold results of any series: a series `resultats/convergence` is the `convergence` series.
_CONTAINERS = frozenset(
    "results result resultats résultats resultados ergebnisse risultati output outputs out runs data bench benches "
    "benchmarks benchmark perf logs evidence".split()
)


def _script_stems(st: Statement) -> set[str]:
    """The stems of the code files a statement names (`bench/convergence.jl` -> convergence)."""
    out = set()
    for p in st.mentions.paths:
        base = p.path.rstrip("/").rsplit("/", 1)[-1]
        stem, dot, ext = base.rpartition(".")
        if dot and stem and ext.lower() not in ("md", "txt", "json", "csv", "log"):
            out.add(stem.lower())
    return out


def _named_metric(st: Statement, entry: EvidenceEntry, word: str) -> bool:
    """A one-word series (`results/ppl/`) is the statement's when the statement names it, or what it stands for
    (ppl: perplexity), and also a name the entry's JSON records as a value ("dataset": "wikitext-2"): one word
    alone is said by too many statements."""
    said = set(words_of(st.text))
    if word not in said and long_form(word) not in said:
        return False
    values = [v for v in (entry.raw or {}).values() if isinstance(v, str) and _NAME_VALUE.match(v)]
    for v in values:
        named = [w for w in words_of(v) if not w.isdigit() and len(w) >= 3]
        if named and set(named) <= said:
            return True
    return False


def applies(st: Statement) -> bool:
    text = st.directive_text or st.text
    asks = st.directive or (st.kind in ("item", "paragraph") and _OPENS_WITH_RERUN.match(text) is not None)
    # an open question or step titled as a rerun ("### Q2. Re-measure perplexity once ...") asks for it
    asks = asks or st.kind == "heading" and _OPENS_WITH_RERUN.match(_HEADING_LABEL.sub("", text, count=1)) is not None
    if not (asks and says_rerun(text)):
        return False
    return bool(RERUN.search(_NO_RERUN.sub(" ", text))) if _NO_RERUN.search(text) else True


def detect(ctx: LintContext, st: Statement, news: News) -> Reason | None:
    if not news.date:
        return None
    store = ctx.get_evidence()
    table, cells = row_of(ctx, st)
    named, _ = series_finder(ctx).series(st, table, cells)
    # The run it cites as the last one: a newer run of that series answers the rerun even when it is older
    # than the text (written after the rerun, from the old run: stale on arrival).
    own = [e.date for e in cited_with_row(ctx, st) if e.date and e.series.lower() in named]
    since = min(news.date, max(own)) if own else news.date
    hits = [(e, how) for e in store.entries if e.date and e.date > since and (how := match(st, e, named))]
    if not named:  # evidence written by a commit that says it did this rerun, whatever the entry is named
        seen = {e.path for e, _ in hits}
        hits += [(e, "commit") for e in rerun_entries(ctx, st, news, says_rerun) if e.path not in seen]
        hits.sort(key=lambda h: (h[0].date or "", h[0].name))
    if not hits and not named and (repeated := repeated_series(ctx, st)):  # a cited run, by its day or count
        hits = [(e, "cited") for e in store.entries if e.date and e.date > since and e.series.lower() == repeated]
    if not hits:
        return None
    entries = [e for e, _ in hits]
    names = ", ".join(e.name for e in entries)
    n = len(entries)
    phrase = f"asks for a rerun done {n} time{'s' if n > 1 else ''} since {since}: {names}"
    if since < news.date and any(e.date and e.date <= news.date for e in entries):
        phrase += f" (the run it cites is older than the text, {news.date})"
    newest = entries[-1]
    fix = f"cite the newest entry ({newest.path}, {newest.date}) instead of asking for the rerun"
    strong = any(how in ("row", "named") for _, how in hits) or (n >= 2 and all(how == "series" for _, how in hits))
    severity = "error" if strong else "warning"
    return Reason("RL102", severity, phrase, fix, evidence=entries, news=news)


def rerun_done(ctx: LintContext) -> list[Hit]:
    """What it does:
    Flags a directive that asks to rerun, re-measure, re-bench or redo something when the evidence root
    holds entries dated after the directive was written for the same series: the series the directive
    names or cites (for a table cell, the series its row names or cites: a Series column, a "last run"
    evidence name), else the same row (the entry's `row`, from result.json or a `Row:` line), else the same
    slug words (model sizes must agree). Evidence named date first or date last, as a folder or a file,
    counts, and so do the dated files and folders inside a series folder (`results/ppl/2026-09-06.json`); a
    one-word series matches when the directive names it (or what it stands for: ppl, perplexity) and a name
    the entry's JSON records as a value (its dataset or model). Run folders kept without a date
    (`runs/exp-07/metrics.json`, where no evidence is dated) are dated by the commit that added them, and one named
    as a rerun of a run (`exp-07-relance`, `lm-07-rerun`) or whose result names that run as its own (`"run":
    "exp-07"`) is that run's series (`exp-08` or `lm-07-v2` is another). Evidence that a news commit wrote counts too,
    whatever its name, when the commit says it reran the directive's work (a rerun verb, and the directive's
    terms in its subject: "exp031: rerun May holdout eval with max_session_len=200"). An open question or step titled as a rerun
    ("### Q2. Re-measure ...") asks for it. The rerun may be asked in other languages: "volver a medir",
    "erneut messen", "Skalierungslauf wiederholen", "répéter la mesure", 重新压测, 再計測, 재측정 (a repeated step
    or question is no rerun). A request that names no series repeats a run its record cites when the day of that
    run ("wie am 04.03.", "the March 4 run") or a count its name holds ("auf 64 Knoten" for `scaling-64n`) singles
    out one series (a warning). A directive that names one series never matches a look-alike
    (`pq-scan` is not `pq-train`), and "nothing to rerun" asks for nothing. Every such entry is listed; the other places asking for the
    same rerun are related locations.

    Why:
    A rerun request that was already answered hides the answer: the next person reruns instead of reading
    the newest entry, and the figures the records quote stay old.

    Example:
    "... then rerun the exact 4B series" written on 2026-07-25, while docs/bench-evidence holds
    20260727-local-bf16-4b, 20260728-local-bf16-4b.md, ... for that row.

    Fix:
    Records only: replace the rerun request with the newest entry's result, or say what the next rerun
    must change.
    """
    return _join(ctx, list(hits_for(ctx, "RL102")))


_REPEATED = re.compile(r" \[repeated on \d+ other surfaces?\]$")
_FIX_HEAD = re.compile(r"^Records-only fix on \d+ surfaces? \([^)]*\): ")


def _join(ctx: LintContext, hits: list[Hit]) -> list[Hit]:
    """One rerun asked in places no row id joins (a checklist item, the "next" cell of the series' table row),
    answered by the same evidence entries, is one finding: the place that names the series in its own words
    leads and the others are related locations. Findings with other reasons, or of another row, stay apart."""
    out: list[Hit] = []
    groups: dict[tuple[tuple[str, ...], str | None], list[Hit]] = {}
    for h in hits:
        entries = tuple(sorted(e["path"] for e in h.evidence if e.get("kind") == "evidence"))
        reasons = {r for e in h.evidence for r in e.get("reasons", ())}
        if not entries or reasons != {"RL102"}:
            out.append(h)
            continue
        rows = [k for k in groups if k[0] == entries and (k[1] is None or h.record_id in (None, k[1]))]
        groups.setdefault(rows[0] if rows else (entries, h.record_id), []).append(h)
    store = ctx.get_evidence()
    for (entries, _), group in groups.items():
        series = {e.series for p in entries if (e := store.get(p)) is not None}
        group.sort(key=lambda h: (not _names_series(ctx, h, series), h.path, h.line))
        out.append(group[0] if len(group) == 1 else _merged(group))
    return sorted(out, key=lambda h: (h.path, h.line))


def _names_series(ctx: LintContext, h: Hit, series: set[str]) -> bool:
    """Does the directive the finding is on name the series in its own words (not through its table row)?"""
    rf = ctx.record(h.path)
    asking = [st for st in rf.statements if st.line == h.line and applies(st)] if rf else []
    return any(set(words_of(name)) <= set(words_of(st.text)) for st in asking for name in series)


def _merged(group: list[Hit]) -> Hit:
    lead, rest = group[0], group[1:]
    related = list(lead.related)
    for h in rest:
        related.append(Related(h.path, h.line, "asks for the same rerun: " + _REPEATED.sub("", h.message)))
        related.extend(h.related)
    n = len(related)
    message = _REPEATED.sub("", lead.message) + f" [repeated on {n} other surface{'s' if n > 1 else ''}]"
    where = ", ".join([f"{lead.path}:{lead.line}", *(f"{r.path}:{r.line}" for r in related)])
    fix = _FIX_HEAD.sub(f"Records-only fix on {n + 1} surfaces ({where}): ", lead.fix or "")
    return Hit(
        message=message,
        path=lead.path,
        line=lead.line,
        end_line=lead.end_line,
        severity=lead.severity,
        record_id=lead.record_id,
        related=related,
        evidence=lead.evidence,
        fix=fix,
        key=lead.key,
    )
