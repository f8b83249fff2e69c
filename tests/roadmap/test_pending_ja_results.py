"""Rules generalised from two blind scenarios (a Japanese TODO.md, an experiment log with results/*/metrics.json),
each stated in general terms and checked here in other words than the scenario's, with a negative control beside it.

- CJK bigrams count half when a directive's length is measured: a run of n characters is n - 1 bigrams for about
  n / 2 words, so a directive written without spaces is no "long plan" for it (RL101).
- A router declared with a prefix (FastAPI's `APIRouter(prefix=...)`, Flask's `url_prefix=`) serves its decorated
  handlers under it: `@router.get("")` there serves the prefix itself (RL101's endpoint rule).
- A section of notes (Notes, FYI, メモ, 備考, 备注, 메모) under a TODO title does not make its items directives: there
  an item asks by its own words (an imperative, an open box) only.
- A default stated as a value, in any language the records are kept in ("`X` defaults to 30", "既定で 30 分（`X`）",
  "`x` 默认为 8", "standardmäßig 10"), is stale when a later diff changed the literal of that setting's line away
  from the value and no later diff changed it back (RL104).
- In a log whose entries are dated sections, an undated sibling section (the numbers the team quotes, a summary
  table) is standing text: current, its figures compared with newer evidence (RL201).
- One lower-case letter before capitals is the prefix of an abbreviation (nDCG, mAP), not a word of its own.
- Evidence a news commit wrote while saying it reran the directive's work answers the rerun, whatever the entry is
  named (RL102).
"""

from __future__ import annotations

from roadmap.analysis.default_flips import stated_direction
from roadmap.analysis.endpoints import _paths_of, router_prefix
from roadmap.analysis.metric_terms import words_of
from roadmap.analysis.stated_defaults import stated_defaults
from roadmap.analysis.work import term_count, terms_of
from roadmap.config import Config
from roadmap.lint import LintOptions, lint
from roadmap.records import parse_record


def _findings(repo, *codes: str):
    return lint(repo.path, LintOptions(use_cache=False, select=codes)).findings


def _lines(repo, path: str, findings) -> list[str]:
    text = (repo.path / path).read_text().split("\n")
    return [text[f.line - 1] for f in findings if f.path == path]


def _statement(text: str, heading: str = "Facts"):
    rf = parse_record("docs/a.md", f"# A\n\n## {heading}\n\n{text}\n".encode(), Config())
    return rf.statements[-1]


# --- CJK length ---------------------------------------------------------------------------------------------------


def test_cjk_bigrams_count_half_a_word_each():
    zh = terms_of("为发票列表接口增加游标分页")
    assert term_count(zh) == (len(zh) + 1) // 2
    assert term_count(frozenset({"cursor", "pagin"})) == 2  # other terms count one each
    assert term_count(terms_of("增加游标分页 for `list_invoices`")) < len(terms_of("增加游标分页 for `list_invoices`"))


# --- a router's prefix ----------------------------------------------------------------------------------------------


FLASK = [
    'bp = Blueprint("invoices", __name__, url_prefix="/api/invoices")',
    "",
    '@bp.route("/", methods=["GET"])',
    "def list_invoices():",
    "    return page(after=request.args.get('after'))",
]


def test_a_routers_prefix_is_the_path_of_its_decorated_handlers():
    assert router_prefix(FLASK) == "/api/invoices"
    assert any(p == "/api/invoices" for p, _ in _paths_of(FLASK, 5, router_prefix(FLASK)))
    fastapi = [
        'router = APIRouter(prefix="/carts")',
        "",
        '@router.post("/{cart_id}/items")',
        "async def add():",
        "    x()",
    ]
    assert any(p == "/carts/{cart_id}/items" for p, _ in _paths_of(fastapi, 5, router_prefix(fastapi)))


def test_no_prefix_for_a_plain_function_or_a_file_of_two_routers():
    helper = ['router = APIRouter(prefix="/carts")', "", "def total(items):", "    return sum(items)"]
    assert _paths_of(helper, 4, router_prefix(helper)) == []
    two = ['a = APIRouter(prefix="/a")', 'b = APIRouter(prefix="/b")']
    assert router_prefix(two) == ""


INVOICES_V1 = """from fastapi import APIRouter

router = APIRouter(prefix="/invoices")


@router.get("")
async def list_invoices(page: int = 0):
    return await db.invoices(offset=page * 50)


@router.get("/{invoice_id}/pdf")
async def invoice_pdf(invoice_id: int):
    return render(invoice_id)
"""

INVOICES_V2 = INVOICES_V1.replace(
    "async def list_invoices(page: int = 0):\n    return await db.invoices(offset=page * 50)",
    "async def list_invoices(after: str | None = None):\n    return await db.invoices(after=decode(after))",
)

TODO_ZH = """# 待办

- [ ] 发票列表接口（`GET /invoices`）改用游标分页，`offset` 翻页在大客户下太慢（王）
- [ ] 发票 PDF 接口（`GET /invoices/{invoice_id}/pdf`）增加缓存，避免重复渲染（李）
"""


def test_a_chinese_directive_on_a_route_whose_handler_changed_landed(git_repo):
    repo = git_repo()
    repo.commit({"app/invoices.py": INVOICES_V1}, "chore: 初始化", "2026-03-01")
    repo.commit({"TODO.md": TODO_ZH}, "docs: 待办", "2026-03-02")
    repo.commit(
        {"app/invoices.py": INVOICES_V2},
        "feat(invoices): 发票列表改为键集分页\n\nGET /invoices 增加 after 参数，offset 分页废弃。大客户 p95 1.9s -> 60ms。",
        "2026-03-05",
    )
    found = _lines(repo, "TODO.md", _findings(repo, "RL101"))
    assert any("发票列表接口" in line for line in found)
    assert not any("发票 PDF 接口" in line for line in found)  # its handler was not touched


# --- notes sections -------------------------------------------------------------------------------------------------


def test_items_under_notes_in_a_todo_are_directives_by_their_own_words_only():
    text = (
        "# TODO\n\n## Open\n\n- The webhook sender has no retries\n\n"
        "## メモ\n\n- Webhook timeout is 10 s by default\n- 署名鍵は毎年 3 月に更新\n"
        "- Rotate the signing key after any leak\n- [ ] The signing key is in the repo\n"
    )
    rf = parse_record("TODO.md", text.encode(), Config())
    by_text = {st.text: st.directive for st in rf.statements if st.kind == "item"}
    assert by_text["The webhook sender has no retries"]  # a TODO's item asks, whatever its words
    assert not by_text["Webhook timeout is 10 s by default"] and not by_text["署名鍵は毎年 3 月に更新"]
    assert by_text["Rotate the signing key after any leak"]  # an imperative asks, in notes too
    assert by_text["[ ] The signing key is in the repo"]  # so does an open box


# --- defaults stated as values --------------------------------------------------------------------------------------


def test_defaults_stated_as_values_in_several_languages():
    assert stated_defaults(_statement("- The pool defaults to 8 connections (`DB_POOL_SIZE`).")) == {"DB_POOL_SIZE==8"}
    assert stated_defaults(_statement("- 连接池大小默认为 8（`DB_POOL_SIZE`）。")) == {"DB_POOL_SIZE==8"}
    assert stated_defaults(_statement("- `DB_POOL_SIZE` 기본값은 8 입니다.")) == {"DB_POOL_SIZE==8"}
    assert stated_defaults(_statement("- Die Poolgröße ist standardmäßig 8 (`DB_POOL_SIZE`).")) == {"DB_POOL_SIZE==8"}
    assert stated_defaults(_statement("- Uploads expire after 15 minutes by default (`UPLOAD_TTL_MIN`).")) == {
        "UPLOAD_TTL_MIN==15"
    }
    assert stated_defaults(_statement("- Eviction uses `lru` by default (`cache_policy`).")) == {"cache_policy==lru"}


def test_no_stated_default_in_a_request_a_past_value_or_an_on_off_word():
    assert stated_defaults(_statement("- [ ] Raise the `DB_POOL_SIZE` default to 16")) == frozenset()
    assert stated_defaults(_statement("- `DB_POOL_SIZE` no longer defaults to 8.")) == frozenset()
    assert stated_defaults(_statement("- `FAST_PATH` defaults to off.")) == frozenset()
    assert stated_defaults(_statement("- The pool holds 8 connections (`DB_POOL_SIZE`).")) == frozenset()


def test_a_diff_that_moves_a_settings_literal_off_the_stated_value():
    assert stated_direction("    pool_size: int = 8", "    pool_size: int = 16", "pool_size", "8") is False
    assert stated_direction("    pool_size: int = 16", "    pool_size: int = 8", "pool_size", "8") is True
    assert (
        stated_direction("const kBufBytes = 4u << 20;  // 4 MiB", "const kBufBytes = 8u << 20;", "kBufBytes", "4")
        is False
    )
    assert stated_direction("limit = 8  # was 4", "limit = 8  # was 2", "limit", "8") is None  # a comment changed
    assert stated_direction("cfg = {pool: 8, timeout: 30}", "cfg = {pool: 8, timeout: 60}", "pool", "8") is None


SETTINGS_V1 = "class Settings:\n    DB_POOL_SIZE: int = 8\n    DB_TIMEOUT_S: float = 5.0\n"
RUNBOOK_DE = """# Betriebshandbuch

## Datenbank

- Die Poolgröße ist standardmäßig 8 (`DB_POOL_SIZE`); bei Lastspitzen zuerst dort nachsehen.
- Abfragen brechen standardmäßig nach 5 Sekunden ab (`DB_TIMEOUT_S`).
"""


def test_a_german_stated_default_changed_by_a_diff_and_one_changed_back(git_repo):
    repo = git_repo()
    repo.commit({"app/settings.py": SETTINGS_V1}, "initial", "2026-04-01")
    repo.commit({"docs/runbook.md": RUNBOOK_DE}, "docs: Betriebshandbuch", "2026-04-02")
    repo.commit({"app/settings.py": SETTINGS_V1.replace("= 8", "= 20")}, "perf: größerer Pool", "2026-04-06")
    repo.commit({"app/settings.py": SETTINGS_V1.replace("= 8", "= 20").replace("5.0", "10.0")}, "try 10s", "2026-04-07")
    repo.commit({"app/settings.py": SETTINGS_V1.replace("= 8", "= 20")}, "revert timeout to 5s", "2026-04-08")
    found = _findings(repo, "RL104")
    lines = _lines(repo, "docs/runbook.md", found)
    assert any("DB_POOL_SIZE" in line for line in lines)
    assert not any("DB_TIMEOUT_S" in line for line in lines)  # 5 -> 10 -> 5: the stated default holds again


# --- a log's standing section ---------------------------------------------------------------------------------------


BENCH_LOG = """# Search latency journal

Newest entry first.

## 2026-02-10 — warm cache

- p95 41.0 ms on `evidence/2026-02-09_search-warm/stats.json`.

## Figures for the status update

| Scenario | p95 ms | Evidence |
|---|---|---|
| search-warm | 41.0 | `evidence/2026-02-09_search-warm/stats.json` |
"""


def test_a_logs_undated_section_is_current_and_its_dated_entry_is_not(git_repo):
    repo = git_repo()
    repo.commit(
        {"evidence/2026-02-09_search-warm/stats.json": '{"p95_ms": 41.0}\n', "notes/journal.md": BENCH_LOG},
        "journal",
        "2026-02-10",
    )
    repo.commit({"evidence/2026-02-20_search-warm/stats.json": '{"p95_ms": 33.5}\n'}, "bench: warm", "2026-02-20")
    rf = parse_record("notes/journal.md", BENCH_LOG.encode(), Config())
    cell = next(st for st in rf.statements if st.kind == "cell" and st.text == "41.0")
    entry = next(st for st in rf.statements if st.kind == "item")
    assert not cell.historical and entry.historical
    lines = _lines(repo, "notes/journal.md", _findings(repo, "RL201"))
    assert any(line.startswith("| search-warm | 41.0") for line in lines)
    assert not any(line.startswith("- p95 41.0") for line in lines)  # a dated entry is true as of its day


def test_a_log_without_dated_sections_keeps_its_sections_history():
    text = "# Ops log\n\nAppend only.\n\n## Week 12\n\n- Add a canary for the search API\n"
    rf = parse_record("notes/ops.md", text.encode(), Config())
    assert next(st for st in rf.statements if st.kind == "item").historical


# --- abbreviations with a lower-case prefix ---------------------------------------------------------------------------


def test_a_lower_case_prefix_stays_with_its_abbreviation():
    assert words_of("nDCG@10") == ["ndcg"] and words_of("mAP") == ["map"]
    assert words_of("firstTokenMs") == ["first", "token", "ms"] and words_of("xOffset") == ["x", "offset"]


# --- evidence written by the rerun's commit -------------------------------------------------------------------------


ABLATION_LOG = """# Ablations

## 2026-01-12 · ABL-4 · dropout

- **Next:** re-run the full-corpus ablation with `dropout=0.3` and compare perplexity.
- **Next:** rerun the tokenizer throughput benchmark on the new vocab.
"""


def test_evidence_written_by_the_commit_that_did_the_rerun_answers_it(git_repo):
    repo = git_repo()
    repo.commit({"train/config.py": "dropout = 0.1\n"}, "initial", "2026-01-10")
    repo.commit({"notes/ablations.md": ABLATION_LOG}, "log: abl-4", "2026-01-12")
    repo.commit(
        {"results/2026-01-15_abl4-d03/metrics.json": '{"ppl": 11.8}\n'},
        "abl4: re-run full-corpus ablation with dropout=0.3",
        "2026-01-15",
    )
    repo.commit(
        {"results/2026-01-16_tok-bench/metrics.json": '{"tok_per_s": 1.2e6}\n'},
        "bench: tokenizer throughput on the old vocab, new vocab is NOT rerun yet",
        "2026-01-16",
    )
    repo.commit(
        {"results/2026-01-17_vocab-64k/metrics.json": '{"merges": 64000}\n'},
        "tokenizer throughput: new vocab with 64k merges",
        "2026-01-17",
    )  # the directive's words, and evidence, but no rerun said
    found = _lines(repo, "notes/ablations.md", _findings(repo, "RL102"))
    assert any("full-corpus ablation" in line for line in found)
    assert not any("tokenizer throughput" in line for line in found)  # one commit says it was not rerun
