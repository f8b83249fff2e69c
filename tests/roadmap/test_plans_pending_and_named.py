"""Plan sections in other languages and an RFC's Future work, a status line's pending fix, and a name asked for that
the code already declared as a string; each with a negative control beside it.

- "下周计划", "次の作業", "Próximos pasos", "Nächste Woche", "Future work", "Follow-up work" list work to do; an RFC's
  "Unresolved questions" and a weekly report's "本周完成" (done this week) do not;
- a 🟡 component's "Fix pending: ..." asks for its fix; a 🟢 line asks for nothing;
- a Chinese plan item with English terms (remote_write, Thanos) meets the commit that did it, not one of another
  branch that never merged;
- "Export ... as a gauge (`x`)" written after a commit that declared the gauge `x` (as a string, in Go) is stale on
  arrival; a name only written in a comment, or only on an unmerged branch, is not.
"""

from __future__ import annotations

from roadmap.checks.named_already import asked_names
from roadmap.config import Config
from roadmap.lint import LintOptions, lint
from roadmap.records.parser import parse_record
from roadmap.records.plan_sections import plan_title
from roadmap.records.status_notes import pending_note


def _rl101(repo) -> list:
    return [f for f in lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings if f.code == "RL101"]


def _directives(path: str, text: str) -> set[str]:
    rf = parse_record(path, text.encode(), Config())
    return {st.text for st in rf.statements if st.directive}


def _line(repo, path: str, f) -> str:
    return (repo.path / path).read_text().split("\n")[f.line - 1]


# --- plan sections ------------------------------------------------------------------------------------------


def test_plan_titles_in_other_languages() -> None:
    for title in (
        "下周计划",
        "三、下周工作计划",
        "下一步",
        "次の作業",
        "今後の予定",
        "Próximos pasos",
        "Próximos passos",
        "Nächste Woche",
        "Prochaines étapes",
        "Future work",
        "Limitations and future work",
        "Follow-up work",
        "다음 단계",
    ):
        assert plan_title(title), title
    for title in ("本周完成", "进行中", "Unresolved questions", "Motivation", "Future of the project", "完了した作業"):
        assert not plan_title(title), title


def test_items_under_a_plan_section_ask_and_others_do_not() -> None:
    got = _directives(
        "docs/weekly/2026-w37.md",
        "# 周报 2026-W37\n\n## 本周完成\n\n- Grafana 面板迁移到新的数据源。\n\n"
        "## 下周计划\n\n- Prometheus 增加 remote_write 到 Thanos Receive。\n",
    )
    assert any("remote_write" in t for t in got) and not any("Grafana" in t for t in got)
    got = _directives(
        "rfcs/0012.md",
        "# RFC 0012\n\n## Unresolved questions\n\n- Per-tenant flush interval?\n- Hard memory cap on the buffer.\n\n"
        "## Future work\n\n- Compress batches with LZ4.\n",
    )
    assert got == {"Compress batches with LZ4."}
    got = _directives("docs/estado.md", "# Estado\n\n## Próximos pasos\n\n- Paginación del listado de pedidos.\n")
    assert got == {"Paginación del listado de pedidos."}


WEEKLY = "docs/weekly/2026-w37.md"
WEEKLY_TEXT = """# 基础设施组周报 2026-W37

## 本周完成

- CI runner 机型换成 c6i.2xlarge。

## 下周计划

- Prometheus 增加 remote_write 到 Thanos Receive，指标保留 90 天。
- Harbor 开启每周一次的垃圾回收（GC）定时任务，清理无 tag 的镜像层。
"""


def test_a_chinese_plan_item_meets_the_commit_that_did_it_not_an_unmerged_branch(git_repo) -> None:
    repo = git_repo()
    repo.commit(
        {"deploy/prometheus/values.yaml": "server:\n  retention: 15d\n"}, "init: 基础设施配置仓库", "2026-09-01"
    )
    repo.commit({WEEKLY: WEEKLY_TEXT}, "docs: 2026-W37 周报", "2026-09-11")
    repo.checkout("harbor-gc", create=True)  # the control: the GC job only on a branch that never merged
    repo.commit(
        {"deploy/harbor/values.yaml": "gc:\n  schedule: weekly\n"}, "harbor: 开启每周垃圾回收定时任务", "2026-09-14"
    )
    repo.checkout("main")
    repo.commit(
        {"deploy/prometheus/values.yaml": "server:\n  retention: 15d\n  remoteWrite:\n    - url: http://thanos\n"},
        "prometheus: 增加 remote_write 到 Thanos Receive，远端保留 90 天",
        "2026-09-15",
    )
    found = _rl101(repo)
    assert ["remote_write" in _line(repo, WEEKLY, f) for f in found] == [True]


# --- status notes -------------------------------------------------------------------------------------------


def test_a_pending_note_asks_unless_the_line_is_healthy() -> None:
    assert pending_note("🟡 Cart: stock is held. Fix pending: release it when the session expires.")
    assert pending_note("🔴 Search — mitigation in progress: route queries to the old index")
    assert pending_note("🟡 Pagos: timeouts. Corrección pendiente: subir el timeout del cliente a 10 s.")
    assert pending_note("🟡 购物车：库存未释放。修复中：会话过期时释放预留库存。")
    assert not pending_note("🟢 Cart: healthy. Fix pending: none.")
    assert not pending_note("🟢 Cart: healthy since the fix pending: release job landed in April.")
    assert not pending_note("Reviews are pending for two weeks now.")  # no label opening a clause


STATUS = "STATUS.md"
STATUS_TEXT = """# Checkout status

Legend: 🟢 healthy · 🟡 degraded · 🔴 broken

## Components

- 🟡 **Cart**: reserved stock is not released. Fix pending: release the reservation in a job when the session expires (`release_expired_reservations`).
- 🟢 **Sessions**: healthy. Old sessions are swept by `sweep_stale_sessions` every hour.
- 🟡 **Search**: multi-word queries rank badly. Fix pending: rank phrase matches first (`rank_phrase_matches`).
"""


def test_a_pending_fix_that_landed_is_stale_and_a_healthy_line_is_not(git_repo) -> None:
    repo = git_repo()
    repo.commit({"src/cart/jobs.py": "def purge():\n    pass\n"}, "initial import", "2026-03-02")
    repo.commit({STATUS: STATUS_TEXT}, "status: weekly update", "2026-03-30")
    repo.commit(
        {
            "src/cart/jobs.py": "def purge():\n    pass\n\n\ndef release_expired_reservations():\n    pass\n",
            "src/sessions.py": "def sweep_stale_sessions():\n    pass\n",
        },
        "cart: release reserved stock when the session expires",
        "2026-04-08",
    )
    found = _rl101(repo)
    assert ["release_expired_reservations" in _line(repo, STATUS, f) for f in found] == [True]
    assert {st.line for st in parse_record(STATUS, STATUS_TEXT.encode(), Config()).statements if st.directive} == {
        7,
        9,
    }


# --- names declared as strings ------------------------------------------------------------------------------


def test_the_names_a_directive_asks_to_make() -> None:
    assert asked_names("- Export the buffer depth as a Prometheus gauge (`ingest_buffer_depth`) so we can alert.") == (
        "ingest_buffer_depth",
    )
    assert asked_names("- Add a counter `dlq_replayed_total` for replays.") == ("dlq_replayed_total",)
    assert asked_names("- Expose a route called `/healthz/ready` for the probe.") == ("/healthz/ready",)
    assert asked_names("- Alert on the `ingest_buffer_depth` gauge above 10k.") == ()  # a use, not a making
    assert asked_names("- Fix the gauge `ingest_buffer_depth`: it is never reset.") == ()


RFC = "rfcs/0012-batched-ingest.md"
RFC_TEXT = """# RFC 0012: Batched writes

## Future work

- Export the buffer depth as a Prometheus gauge (`ingest_buffer_depth`) so we can alert when the worker falls behind.
- Export the flush latency as a Prometheus histogram (`ingest_flush_seconds`) so we can see slow flushes.
"""
GO_METRICS = """package ingest

import "github.com/prometheus/client_golang/prometheus"

var bufferDepth = prometheus.NewGauge(prometheus.GaugeOpts{
\tName: "ingest_buffer_depth",
\tHelp: "Events waiting in the buffer.",
})
"""
GO_COMMENT = """package ingest

// TODO: a histogram ingest_flush_seconds once batching lands
func flush() {}
"""


def test_a_gauge_declared_as_a_string_before_the_rfc_was_written_is_stale_on_arrival(git_repo) -> None:
    repo = git_repo()
    repo.commit({"ingest/worker.go": "package ingest\n\nfunc run() {}\n"}, "ingest: worker", "2026-02-02")
    repo.commit(
        {"ingest/metrics.go": GO_METRICS, "ingest/flush.go": GO_COMMENT},
        "ingest: export queue depth as a gauge",
        "2026-02-09",
    )
    repo.checkout("rfc/0012", create=True)  # written on a branch, merged after review
    repo.commit({RFC: RFC_TEXT}, "rfcs: 0012 batched writes", "2026-02-11")
    repo.checkout("main")
    repo.merge("rfc/0012", "Merge RFC 0012", "2026-02-18")
    found = _rl101(repo)
    # the histogram's name is only in a comment: nothing declared it
    assert ["ingest_buffer_depth" in _line(repo, RFC, f) for f in found] == [True]
    assert "already declared" in found[0].message and "export queue depth" in found[0].message


def test_a_gauge_only_on_an_unmerged_branch_is_not_declared(git_repo) -> None:
    repo = git_repo()
    repo.commit({"ingest/worker.go": "package ingest\n\nfunc run() {}\n"}, "ingest: worker", "2026-02-02")
    repo.checkout("metrics-spike", create=True)
    repo.commit({"ingest/metrics.go": GO_METRICS}, "ingest: export queue depth as a gauge", "2026-02-09")
    repo.checkout("main")
    repo.commit({RFC: RFC_TEXT}, "rfcs: 0012 batched writes", "2026-02-11")
    assert _rl101(repo) == []


# --- a name to spread is not a name to add -------------------------------------------------------------------


def test_a_request_to_spread_a_name_to_every_model_is_no_request_to_add_it() -> None:
    from roadmap.checks.added_already import _asks_to_add, _spreads

    spread = "- **Consistency**: Ensure all ORM models for resources implement the `plr_category` attribute."
    assert _asks_to_add(spread, "plr_category") and _spreads(spread, "plr_category")
    add = "- Add `plr_category` to all ORM models for resources."
    assert _asks_to_add(add, "plr_category") and not _spreads(add, "plr_category")
