"""Follow-up lines of a log, partial work, a statistic before a long metric name and a Series column beside the key
column: general behaviour found missing by the blind scenarios of 2026-12-04, each with its negative control."""

from __future__ import annotations

from roadmap.analysis.figure_context import metric_before
from roadmap.lint import LintOptions, lint

LOG = "experiments/LOG.md"
CONFIG = 'records:\n  - "experiments/*.md"\n  - "README.md"\n'


def _codes(repo, path: str, needle: str) -> set[str]:
    text = (repo.path / path).read_text().split("\n")
    return {
        f.code
        for f in lint(repo.path, LintOptions(use_cache=False)).findings
        if f.path == path and any(needle in text[n - 1] for n in range(f.line, (f.end_line or f.line) + 1))
    }


def _log(*entries: str) -> str:
    return "# Lab notes\n\nOldest first; follow-ups go on Next: lines.\n\n" + "\n\n".join(entries) + "\n"


def test_an_older_entrys_next_line_stays_open_until_a_later_entry_names_it(git_repo):
    repo = git_repo()
    first = (
        "## 2026-03-02\n- Baseline done.\n- Next: rerun bench-kv-get on the new disks.\n- Next: rerun bench-kv-put too."
    )
    repo.commit({"roadmap.yaml": CONFIG, LOG: _log(first)}, "notes", "2026-03-02")
    repo.commit(
        {"docs/bench-evidence/20260301-bench-kv-get/result.json": '{"series": "bench-kv-get", "ops": 1}'},
        "b",
        "2026-03-01",
    )
    later = "## 2026-03-05\n- bench-kv-put on the new disks: 41k ops/s."
    repo.commit({LOG: _log(first, later)}, "notes", "2026-03-05")
    repo.commit(
        {"docs/bench-evidence/20260306-bench-kv-get/result.json": '{"series": "bench-kv-get", "ops": 2}'},
        "b",
        "2026-03-06",
    )
    repo.commit(
        {"docs/bench-evidence/20260306-bench-kv-put/result.json": '{"series": "bench-kv-put", "ops": 3}'},
        "b",
        "2026-03-06",
    )
    assert "RL102" in _codes(repo, LOG, "Next: rerun bench-kv-get")  # nobody wrote about it since: still asked
    assert _codes(repo, LOG, "Next: rerun bench-kv-put") == set()  # the later entry took it up


def test_next_on_call_must_is_a_hand_off(git_repo):
    repo = git_repo()
    handoff = "# Handoff\n\n## 2026-03-02 ana -> li\n- Next on-call must rerun drill-failover after the patch window.\n"
    repo.commit({"roadmap.yaml": 'records: ["ops/*.md"]\n', "ops/handoff.md": handoff}, "handoff", "2026-03-02")
    repo.commit(
        {"docs/bench-evidence/20260304-drill-failover/result.json": '{"series": "drill-failover"}'}, "d", "2026-03-04"
    )
    assert "RL102" in _codes(repo, "ops/handoff.md", "Next on-call must rerun")


def _plan(cell: str) -> str:
    return f"# Plan\n\n| Ticket | Status | Next step |\n|---|---|---|\n| PAY-7 | in progress | {cell} |\n"


def test_a_commit_that_says_it_did_half_does_not_complete_the_item(git_repo):
    repo = git_repo()
    item = "move both settlement reads and settlement writes to the batch endpoint"
    repo.commit(
        {"roadmap.yaml": 'records: ["docs/*.md"]\n', "docs/PLAN.md": _plan(item), "settle.go": "package s\n"},
        "plan",
        "2026-03-02",
    )
    repo.commit(
        {"settle.go": "package s\n\nfunc readBatch() {}\n"},
        "settlement: read settlements through the batch endpoint\n\nThis is only the read half: settlement writes still go "
        "through the per-item endpoint until the acquirer enables signed manifests.",
        "2026-03-04",
    )
    assert "RL101" not in _codes(repo, "docs/PLAN.md", "move both settlement reads")
    repo.commit(
        {"settle.go": "package s\n\nfunc readBatch() {}\nfunc writeBatch() {}\n"},
        "settlement: move settlement reads and writes to the batch endpoint",
        "2026-03-09",
    )
    assert "RL101" in _codes(repo, "docs/PLAN.md", "move both settlement reads")  # a later commit did all of it


def test_a_statistic_before_a_long_metric_name_still_qualifies_it():
    text = "Current p99 regional failover time: 48 s"
    assert metric_before(text, text.index("48")).stat == "p99"
    text = "Regional failover time: 48 s"
    assert metric_before(text, text.index("48")).stat is None


def test_a_series_column_beside_the_key_column_names_the_rows_series(git_repo):
    repo = git_repo()
    table = "# churn\n\n| Model | Series | AUC |\n|---|---|---|\n| LightGBM | churn-gbm | 0.861 |\n| Baseline | - | 0.700 |\n"
    ev = "docs/bench-evidence/{}-churn-gbm/result.json"
    repo.commit(
        {
            "roadmap.yaml": CONFIG,
            "README.md": table,
            ev.format("20260301"): '{"series": "churn-gbm", "metrics": {"auc": 0.861}}',
        },
        "r",
        "2026-03-01",
    )
    repo.commit({ev.format("20260310"): '{"series": "churn-gbm", "metrics": {"auc": 0.874}}'}, "rerun", "2026-03-10")
    assert "RL201" in _codes(repo, "README.md", "| LightGBM | churn-gbm | 0.861 |")
    assert _codes(repo, "README.md", "| Baseline |") == set()  # no series: nothing to compare with


def _switch_repo(git_repo, record: str, flipped: bool, name: str):
    repo = git_repo(name)
    code = 'import os\n\nACTIVE = os.getenv("CACHE_X") == "1"\n'
    repo.commit(
        {"roadmap.yaml": 'records: ["docs/*.md"]\n', "docs/NOTES.md": record, "cache.py": code}, "init", "2026-03-02"
    )
    new = code.replace('== "1"', '!= "0"') if flipped else code + "\nTTL = 60\n"
    repo.commit({"cache.py": new}, "cache: tune", "2026-03-09")
    return repo


def test_a_default_written_in_spanish_or_german_is_checked_against_the_flip(git_repo):
    es = "# Notas\n\n- La caché está desactivada por defecto; para probarla, `CACHE_X=1`.\n"
    assert "RL104" in _codes(_switch_repo(git_repo, es, True, "es"), "docs/NOTES.md", "desactivada por defecto")
    de = "# Notizen\n\n- Der Cache ist standardmäßig deaktiviert; zum Testen `CACHE_X=1` setzen.\n"
    assert "RL104" in _codes(_switch_repo(git_repo, de, True, "de"), "docs/NOTES.md", "standardmäßig deaktiviert")
    assert "RL104" not in _codes(
        _switch_repo(git_repo, es, False, "es-unchanged"), "docs/NOTES.md", "desactivada por defecto"
    )


def _port_plan() -> str:
    return (
        "# Port notes\n\n## Tests to port\n\n"
        "- Port: the registry case (`GraniteMoeForCausalLM` resolves to our MoE factory); the forward doctest; "
        "the greedy parity run against upstream.\n"
    )


def _landing(extra: str) -> str:
    return (
        "feat(model): GraniteMoeForCausalLM registry stub and config parsing\n\n"
        "Registers the architecture and parses its config; the loader and the forward pass raise clear errors." + extra
    )


def _registry_repo(git_repo, extra: str):
    repo = git_repo()
    repo.commit(
        {"roadmap.yaml": 'records: ["notes/*.md"]\n', "notes/port.md": _port_plan(), "src/models.py": "MODELS = {}\n"},
        "notes: what to port",
        "2026-04-01",
    )
    repo.commit(
        {"src/models.py": "MODELS = {}\n\n\nclass GraniteMoeForCausalLM:\n    pass\n"}, _landing(extra), "2026-04-03"
    )
    return repo


def test_a_commit_that_says_a_named_piece_is_not_there_yet_does_not_complete_the_item(git_repo):
    # it introduces the symbol of the first request and says the forward pass is not there yet: the doctest of the
    # forward pass and the parity run are still to do
    repo = _registry_repo(git_repo, " No forward yet.")
    assert "RL101" not in _codes(repo, "notes/port.md", "Port: the registry case")


def test_the_same_commit_without_that_sentence_completes_it(git_repo):
    repo = _registry_repo(git_repo, "")
    assert "RL101" in _codes(repo, "notes/port.md", "Port: the registry case")


def test_something_not_there_yet_that_the_item_does_not_ask_for_changes_nothing(git_repo):
    repo = _registry_repo(git_repo, " No changelog entry yet.")
    assert "RL101" in _codes(repo, "notes/port.md", "Port: the registry case")


def _journal(*entries: str) -> str:
    return "# Ops journal\n\nNewest at the top.\n\n" + "\n\n".join(entries) + "\n"


def _refuted_diagnosis_repo(git_repo, entries: list[str]):
    repo = git_repo()
    repo.commit(
        {"roadmap.yaml": 'records: ["ops/*.md"]\n', "ops/journal.md": _journal(*entries), "gw.conf": "idle 75\n"},
        "ops: journal",
        "2026-05-04",
    )
    repo.commit(
        {"gw.conf": "idle 55\n"},
        "gateway: idle timeout 75 -> 55 s (INC-88)\n\nThe 504s were not queue saturation: the worker queue peaked at "
        "40 of 512 during the pages, so that diagnosis in the journal was wrong. Idle sockets were reused after the "
        "backend closed them.",
        "2026-05-08",
    )
    return repo


NEWEST = (
    "## 2026-05-04\n- Paged twice for gateway 504s (INC-88). The worker queue is saturated at 512 under the export "
    "job; that is what produces the 504s."
)


def test_the_newest_entrys_present_diagnosis_is_current_and_a_later_commit_refutes_it(git_repo):
    repo = _refuted_diagnosis_repo(git_repo, [NEWEST, "## 2026-04-20\n- Rotated the gateway certificates."])
    assert "RL103" in _codes(repo, "ops/journal.md", "that is what produces the 504s")


def test_the_same_diagnosis_in_an_older_entry_is_history(git_repo):
    newer = "## 2026-05-04\n- Rotated the gateway certificates."
    older = NEWEST.replace("2026-05-04", "2026-04-20")
    repo = _refuted_diagnosis_repo(git_repo, [newer, older])
    assert "RL103" not in _codes(repo, "ops/journal.md", "that is what produces the 504s")


def test_a_past_report_of_a_cause_in_the_newest_entry_stays_history(git_repo):
    past = NEWEST.replace(
        "The worker queue is saturated at 512 under the export job; that is what produces",
        "We thought the worker queue at 512 under the export job was what produced",
    )
    repo = _refuted_diagnosis_repo(git_repo, [past, "## 2026-04-20\n- Rotated the gateway certificates."])
    assert "RL103" not in _codes(repo, "ops/journal.md", "what produced the 504s")


def _board(*rows: str) -> str:
    return (
        "# Sprint 9\n\nStatus: 🔴 not started · 🟡 in progress · 🟢 done\n\n| Ticket | Owner | Status | Notes |\n"
        "|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def _board_repo(git_repo, rows: list[str], message: str):
    repo = git_repo()
    repo.commit(
        {"roadmap.yaml": 'records: ["sprint/*.md"]\n', "sprint/board.md": _board(*rows), "src/audio.c": "int x;\n"},
        "sprint 9 board",
        "2026-06-01",
    )
    repo.commit({"src/audio.c": "int x;\nint duck_music_on_dialogue;\n"}, message, "2026-06-03")
    return repo


LANDING = "audio: duck the music bus under dialogue lines\n\nThe music bus ducks by 9 dB while a dialogue line plays."


def test_a_notes_cell_that_opens_with_an_imperative_names_the_open_rows_work(git_repo):
    row = "| #412 | Ines | 🔴 | Make the music bus duck under dialogue lines |"
    repo = _board_repo(git_repo, [row], LANDING)
    assert "RL101" in _codes(repo, "sprint/board.md", "Make the music bus duck")


def test_a_notes_cell_that_comments_or_a_closed_row_asks_nothing(git_repo):
    rows = [
        "| #412 | Ines | 🔴 | the music bus under dialogue lines is too loud, says QA |",
        "| #413 | Ines | 🟢 | Make the music bus duck under dialogue lines |",
    ]
    repo = _board_repo(git_repo, rows, LANDING)
    assert _codes(repo, "sprint/board.md", "too loud") == set()
    assert _codes(repo, "sprint/board.md", "| #413 |") == set()


def test_a_cause_written_as_cause_is_in_a_notes_cell_can_be_refuted(git_repo):
    row = "| #415 | Sam | 🟡 | Stutter in the forest level — cause is the texture streamer re-reading mip chains |"
    repo = _board_repo(
        git_repo,
        [row],
        "fix forest stutter (#415)\n\nThe texture streamer does not re-read mip chains. That theory was wrong: the "
        "stutter is the audio thread waking every frame.",
    )
    assert "RL103" in _codes(repo, "sprint/board.md", "cause is the texture streamer")


def _bitacora_repo(git_repo, entries: list[str]):
    repo = git_repo()
    repo.commit(
        {
            "roadmap.yaml": 'records: ["docs/*.md"]\n',
            "docs/bitacora.md": "# Bitácora\n\n" + "\n\n".join(entries) + "\n",
            "db/indices.sql": "-- nada\n",
        },
        "docs: bitácora",
        "2026-11-05",
    )
    repo.commit(
        {"db/indices.sql": "CREATE INDEX pedidos_cliente ON pedidos (cliente_id);\n"},
        "db: índice en pedidos.cliente_id\n\nLos timeouts del listado no venían del pool de Hikari: el pool nunca pasó de "
        "12 conexiones activas. Lo del pool era una hipótesis equivocada.",
        "2026-11-10",
    )
    return repo


CAUSA = "## 2026-11-05\n- Timeouts en el listado de pedidos. El origen es el pool de Hikari, que se queda corto."


def test_a_spanish_diagnosis_in_the_newest_entry_is_refuted_in_spanish(git_repo):
    repo = _bitacora_repo(git_repo, ["## 2026-11-01\n- Desplegamos la 2.4.", CAUSA])
    assert "RL103" in _codes(repo, "docs/bitacora.md", "El origen es el pool de Hikari")


def test_the_spanish_diagnosis_in_an_older_entry_stays_history(git_repo):
    older = CAUSA.replace("2026-11-05", "2026-11-01")
    repo = _bitacora_repo(git_repo, [older, "## 2026-11-05\n- Desplegamos la 2.4."])
    assert _codes(repo, "docs/bitacora.md", "El origen es el pool de Hikari") == set()


def _trim_repo(git_repo, body: str):
    repo = git_repo()
    todo = "# TODO\n\n- [ ] Port adapter trimming from cutadapt to fastp, for single-end and paired-end libraries\n"
    repo.commit({"TODO.md": todo, "trim.py": "TOOL = 'cutadapt'\n"}, "todo", "2026-02-01")
    repo.commit({"trim.py": "TOOL = {'se': 'fastp', 'pe': 'cutadapt'}\n"}, body, "2026-02-05")
    return repo


def test_a_commit_that_says_the_item_stays_open_does_not_complete_it(git_repo):
    repo = _trim_repo(
        git_repo,
        "trim: single-end and paired-end adapter trimming through fastp instead of cutadapt\n\nThe TODO item stays "
        "open for the paired-end libraries: fastp moves their adapter calls.",
    )
    assert "RL101" not in _codes(repo, "TODO.md", "Port adapter trimming")


def test_the_same_commit_without_it_completes_the_item(git_repo):
    repo = _trim_repo(
        git_repo,
        "trim: single-end and paired-end adapter trimming through fastp instead of cutadapt\n\nBoth library kinds "
        "go through fastp now.",
    )
    assert "RL101" in _codes(repo, "TODO.md", "Port adapter trimming")


def test_a_metric_named_after_its_figure_is_read_when_nothing_before_names_one():
    from roadmap.analysis.figure_context import metric_after

    text = "callvar runs in 41.2 min wall, then 11.8 GB peak RSS and 3 runs of the suite"
    at = text.index("41.2 min") + len("41.2 min")
    assert metric_after(text, at).terms == frozenset({"wall"})
    at = text.index("11.8 GB") + len("11.8 GB")
    assert metric_after(text, at).terms == frozenset({"peak", "rss"})
    at = text.index("3 runs") + len("3")
    assert not metric_after(text, at).terms - {"run"}  # a count of runs: at most the word itself


def _compiler_repo(git_repo, flipped: str):
    repo = git_repo()
    status = (
        "# Status\n\n| Area | State | Notes |\n|---|---|---|\n"
        "| Loop unswitching | LANDED | opt-in via `-Zloop-unswitch`, off by default |\n"
        "| Tail merging | LANDED | opt-in via `-Ztail-merge`, off by default |\n"
    )
    code = "pub const LOOP_UNSWITCH_DEFAULT: bool = false;\npub const TAIL_MERGE_DEFAULT: bool = false;\n"
    repo.commit(
        {"roadmap.yaml": 'records: ["docs/*.md"]\n', "docs/status.md": status, "src/opts.rs": code}, "s", "2026-03-01"
    )
    repo.commit(
        {"src/opts.rs": code.replace(f"{flipped}: bool = false", f"{flipped}: bool = true")}, "opts: flip", "2026-03-05"
    )
    return repo


def test_a_compiler_flags_default_constant_turned_on_makes_its_opt_in_claim_stale(git_repo):
    repo = _compiler_repo(git_repo, "LOOP_UNSWITCH_DEFAULT")
    assert "RL104" in _codes(repo, "docs/status.md", "`-Zloop-unswitch`")
    assert "RL104" not in _codes(repo, "docs/status.md", "`-Ztail-merge`")  # its constant stayed false


def _plano(state: str) -> str:
    return (
        "# Plano do trimestre\n\nLegenda: 🟢 concluído · 🟡 em andamento · 🔴 não iniciado · ⏸️ pausado\n\n"
        "| # | Trabalho | Estado | Dono |\n|---|---|---|---|\n"
        f"| 3 | Reexecutar o benchmark `nightly-etl` depois do upgrade do Spark | {state} | Caio |\n"
    )


def _plano_repo(git_repo, state: str):
    repo = git_repo()
    repo.commit(
        {
            "docs/plano.md": _plano(state),
            "docs/bench-evidence/20260126-nightly-etl/result.json": '{"series": "nightly-etl", "metrics": {"min": 1}}',
        },
        "plano",
        "2026-01-28",
    )
    repo.commit(
        {"docs/bench-evidence/20260218-nightly-etl/result.json": '{"series": "nightly-etl", "metrics": {"min": 2}}'},
        "bench: nightly-etl no Spark 3.5",
        "2026-02-18",
    )
    return repo


def test_a_portuguese_plan_table_asks_for_its_rerun_by_its_own_legend(git_repo):
    repo = _plano_repo(git_repo, "🔴")  # "não iniciado" by the legend, in an Estado column, work in Trabalho
    assert "RL102" in _codes(repo, "docs/plano.md", "Reexecutar o benchmark")


def test_a_paused_row_of_that_table_asks_nothing(git_repo):
    repo = _plano_repo(git_repo, "⏸️")
    assert _codes(repo, "docs/plano.md", "Reexecutar o benchmark") == set()


def test_a_decimal_comma_before_a_unit_is_one_figure():
    from roadmap.records.figures import find_figures

    assert [(f.value, f.unit) for f in find_figures("Tempo atual: 47,5 min")] == [(47.5, "min")]
    assert [(f.value, f.unit) for f in find_figures("p99 1,250 ms")] == [(1250.0, "ms")]  # thousands
    assert find_figures("items 2,5 and 7") == []


def _flag_repo(git_repo, body: str):
    repo = git_repo()
    todo = (
        "# TODO\n\n- [ ] Add a `--min-base-quality` option to `pipeline/call.py` (the threshold is hard-coded today)\n"
    )
    repo.commit({"TODO.md": todo, "pipeline/call.py": "MIN_BQ = 20\n"}, "todo", "2026-03-01")
    repo.commit(
        {"pipeline/call.py": "import argparse\n"},
        "call: expose the BQ threshold on the CLI\n\n" + body,
        "2026-03-06",
    )
    return repo


def test_a_flag_renamed_short_by_the_commit_that_adds_it_counts_as_its_words(git_repo):
    repo = _flag_repo(git_repo, "--min-bq (default 20) replaces the hard-coded constant.")
    assert "RL101" in _codes(repo, "TODO.md", "--min-base-quality")


def test_initials_alone_are_not_the_renamed_flag(git_repo):
    repo = _flag_repo(git_repo, "The BQ default stays 20, read from the config file.")
    assert "RL101" not in _codes(repo, "TODO.md", "--min-base-quality")


def _calib(prefix_lines: int) -> str:
    head = "".join(f"// note {i}\n" for i in range(prefix_lines))
    body = "".join(f"  out[{i}] = raw[{i}] - bias_[{i}];\n" for i in range(10))
    return (
        head + "Sample ImuCalib::apply(const Sample& raw) const {\n  Sample out = raw;\n" + body + "  return out;\n}\n"
    )


def _anchor_repo(git_repo, ref: str):
    repo = git_repo(f"anchor-{ref}")
    note = f"# Notes\n\n- Calibration lives in `src/calib.cpp:{ref}` (`ImuCalib::apply`).\n"
    repo.commit({"agents/notes.md": note, "src/calib.cpp": _calib(7)}, "notes", "2026-02-01")  # apply at 8-21
    repo.commit({"src/calib.cpp": _calib(19)}, "calib: bias table loader above apply", "2026-02-10")  # now 20-33
    return repo


def test_a_range_that_now_ends_on_the_moved_definitions_first_line_drifted(git_repo):
    repo = _anchor_repo(git_repo, "8-20")
    assert "RL303" in _codes(repo, "agents/notes.md", "src/calib.cpp:8-20")


def test_a_range_that_still_holds_the_definition_did_not_drift(git_repo):
    repo = _anchor_repo(git_repo, "20-33")
    assert _codes(repo, "agents/notes.md", "src/calib.cpp:20-33") == set()
    repo = _anchor_repo(git_repo, "14-28")  # the header mid-range, most of the body inside: still read as there
    assert "RL303" not in _codes(repo, "agents/notes.md", "src/calib.cpp:14-28")


def test_min_after_a_clock_word_is_minutes_and_elsewhere_a_minimum():
    from roadmap.analysis.metric_terms import key_metric

    metric, unit = key_metric("metrics.wall_min")
    assert (metric.terms, metric.stat, unit) == (frozenset({"wall"}), None, "min")
    metric, unit = key_metric("metrics.ttft_ms.min")
    assert (metric.terms, metric.stat, unit) == (frozenset({"ttft"}), "min", "ms")
    assert key_metric("metrics.runtime_hours")[1] == "h"


def _results_log(line: str) -> str:
    return f"# Results log (newest first)\n\n{line}\n\n## 2026-02-10\n- Ran callvar: 41.2 min wall.\n"


def _results_repo(git_repo, line: str):
    repo = git_repo()
    old = '{"series": "callvar", "metrics": {"wall_min": 41.2}}'
    repo.commit(
        {"docs/results-log.md": _results_log(line), "bench/callvar/2026-02-10.json": old}, "results", "2026-02-10"
    )
    new = '{"series": "callvar", "metrics": {"wall_min": 29.6}}'
    repo.commit({"bench/callvar/2026-03-09.json": new}, "bench: callvar on htslib 1.19", "2026-03-09")
    return repo


def test_a_line_labelled_current_in_a_results_log_quotes_the_current_figure(git_repo):
    line = "**Current:** callvar (NA12878, 30x) runs in 41.2 min wall, see `bench/callvar/2026-02-10.json`."
    repo = _results_repo(git_repo, line)
    codes = _codes(repo, "docs/results-log.md", "**Current:**")
    assert "RL201" in codes and "RL202" not in codes  # 30x in parentheses is the run's condition, not its result


def test_the_same_line_without_the_label_is_the_logs_history(git_repo):
    repo = _results_repo(git_repo, "callvar (NA12878, 30x) ran in 41.2 min wall, see `bench/callvar/2026-02-10.json`.")
    assert "RL201" not in _codes(repo, "docs/results-log.md", "ran in 41.2 min")
