"""Every mention kind a statement can carry: ids, claims, symbols, env vars, shas, dates, figures, paths, evidence."""

from __future__ import annotations

import pytest

from roadmap.config import Config
from roadmap.records import parse_record
from roadmap.records.model import Mentions, Statement


def first(md: str, path: str = "agents/notes.md") -> Statement:
    rf = parse_record(path, md.encode(), Config())
    assert rf.statements, rf
    return rf.statements[0]


def m(md: str, path: str = "agents/notes.md") -> Mentions:
    return first(md, path).mentions


@pytest.mark.parametrize(
    "text,ids",
    [
        ("Blocks ROAD-V1-C2-LOCAL-BF16 and ENG-ASYNC-SCHED.", ("ROAD-V1-C2-LOCAL-BF16", "ENG-ASYNC-SCHED")),
        ("See row/SERVE-ASYNC-LLM and `RM-RECORDS`.", ("SERVE-ASYNC-LLM", "RM-RECORDS")),
        ("BF16 weights, UTF-8 text, HTTP-429 replies, SHA-256 sums.", ()),
        ("States IN-PROGRESS and GATING are vocabulary, not ids.", ()),
        ("Not inside words: xROAD-A-B or ROAD-A-Bx_y or pre-ROAD-A-B.", ()),
    ],
)
def test_ids_whole_token_and_letter_part(text: str, ids: tuple[str, ...]) -> None:
    assert m(text).ids == ids


def test_claims_are_not_row_ids() -> None:
    got = m("Opened CLAIM-LOCAL-BF16-H32-AOT for ROAD-V1-C2-LOCAL-BF16.")
    assert got.claims == ("CLAIM-LOCAL-BF16-H32-AOT",)
    assert got.ids == ("ROAD-V1-C2-LOCAL-BF16",)


def test_symbols_from_code_spans_keep_flags_and_skip_other_kinds() -> None:
    got = m(
        "Add `AsyncDeviceInputs`, `GPUModelRunner::async_device_mirror()` and `--no-async-scheduling`; "
        "not `deed7c2a1`, `ROAD-A-B`, `src/a.py:3`, `2026-07-25` or `1.0283x`."
    )
    assert got.symbols == ("AsyncDeviceInputs", "GPUModelRunner::async_device_mirror", "--no-async-scheduling")
    assert got.shas == ("deed7c2a1",)


def test_commands_in_code_spans_yield_flags_and_pickaxe_terms() -> None:
    got = m("Run `engine bench throughput --no-async-scheduling --seed=0` and `git log -S'AsyncDeviceInputs'`.")
    assert got.symbols == ("--no-async-scheduling", "--seed", "AsyncDeviceInputs")


def test_bare_flags_in_text_are_symbols() -> None:
    assert m("Pass --enforce-eager to debug; a -- dash is not a flag.").symbols == ("--enforce-eager",)


def test_env_vars_with_underscore_or_assignment() -> None:
    got = m(
        "VT_ASYNC_DEVICE_MIRROR=0 is the rollback; `ENGINE_ASYNC_SCHEDULING=1`; CUDA=1 too; "
        "but CUDA alone and GPU are not."
    )
    assert got.env_vars == ("VT_ASYNC_DEVICE_MIRROR", "ENGINE_ASYNC_SCHEDULING", "CUDA")


@pytest.mark.parametrize(
    "text,shas",
    [
        ("deed7c2a1 and 1718bf155 landed; range abc1234..def5678.", ("deed7c2a1", "1718bf155", "abc1234", "def5678")),
        ("Inside backticks `cafe1234`.", ("cafe1234",)),
        ("Not shas: deadbeef (no digit), 20260727 (no letter), abc12 (short), xabc1234, abc1234x, v/abc1234.", ()),
        ("Full sha 0123456789abcdef0123456789abcdef01234567.", ("0123456789abcdef0123456789abcdef01234567",)),
    ],
)
def test_shas(text: str, shas: tuple[str, ...]) -> None:
    assert m(text).shas == shas


def test_dates_iso_only_and_in_order() -> None:
    got = m("2026-07-27 after 2026-07-25; not 2026-13-01 or 20260727 or spec-2026-08-09.md.")
    assert got.dates == ("2026-07-27", "2026-07-25")


def _figs(text: str) -> list[tuple[float, str | None, str | None]]:
    return [(f.value, f.unit, f.metric) for f in m(text).figures]


def test_figures_units_and_metrics() -> None:
    assert _figs("output throughput 6831.71 tok/s, TTFT p50 181.2 ms, peak VRAM 20.1 GiB, 1.0283x PASS") == [
        (6831.71, "tok/s", "output throughput"),
        (181.2, "ms", "ttft p50"),
        (20.1, "GiB", "peak vram"),
        (1.0283, "x", None),
    ]


def test_figures_chain_shares_unit_and_metric() -> None:
    assert _figs("throughput 6831.71 vs 6643.40 tok/s") == [
        (6831.71, "tok/s", "throughput"),
        (6643.40, "tok/s", "throughput"),
    ]


def test_figures_more_units() -> None:
    got = _figs(
        "497 calls took 20.975 s at 42.20 ms/call; +3.1% faster; 12 req/s; 1,234 tokens/s; 4.5 TFLOP/s; 3.2 GB/s"
    )
    assert [(v, u) for v, u, _ in got] == [
        (20.975, "s"),
        (42.2, "ms/call"),
        (3.1, "%"),
        (12.0, "req/s"),
        (1234.0, "tok/s"),
        (4.5, "TFLOP/s"),
        (3.2, "GB/s"),
    ]
    assert m("regressed -2.5% on p99").figures[0].value == -2.5


def test_not_figures() -> None:
    assert _figs("item 14, 497 calls, the 4B model, H200 x2, version 2.13.1, 2026-07-25, ROAD-V1-C2, sm120") == []


def test_figure_text_and_offset() -> None:
    st = first("Quoted 1.0283x here.")
    (fig,) = st.mentions.figures
    assert fig.text == "1.0283x" and st.text[fig.start : fig.start + len(fig.text)] == "1.0283x"


def test_table_cell_takes_unit_and_metric_from_header() -> None:
    rf = parse_record(
        "agents/r.md",
        b"| ID | Throughput (tok/s) | TTFT p50 (ms) |\n|---|---|---|\n| ROAD-A-B | 6831.71 | 181 |\n",
        Config(),
    )
    cells = {st.column: st for st in rf.statements}
    assert [(f.value, f.unit, f.metric) for f in cells["Throughput (tok/s)"].mentions.figures] == [
        (6831.71, "tok/s", "throughput")
    ]
    assert [(f.value, f.unit, f.metric) for f in cells["TTFT p50 (ms)"].mentions.figures] == [(181.0, "ms", "ttft p50")]


def test_struck_figures_are_not_current() -> None:
    assert _figs("throughput ~~5769.99 tok/s~~ 6831.71 tok/s") == [(6831.71, "tok/s", "throughput")]


def _paths(text: str, path: str = "agents/notes.md") -> list[tuple[str, int | None, int | None, str | None, str]]:
    return [(p.path, p.line, p.end_line, p.symbol, p.form) for p in m(text, path).paths]


def test_path_forms() -> None:
    assert _paths(
        "At src/vllm/v1/worker/gpu/runner.cpp:2430-2455, .agents/specs/x.md:39, "
        "engine/llm.py#L10-L20, roadmap/records/model.py::Statement and docs/bench-evidence/."
    ) == [
        ("src/vllm/v1/worker/gpu/runner.cpp", 2430, 2455, None, "colon"),
        (".agents/specs/x.md", 39, 39, None, "colon"),
        ("engine/llm.py", 10, 20, None, "hash"),
        ("roadmap/records/model.py", None, None, "Statement", "symbol"),
        ("docs/bench-evidence", None, None, None, "bare"),
    ]


def test_link_paths_resolve_against_the_record() -> None:
    got = m(
        "See [the runner](../engine/llm.py#L10-L20), [top](/README.md), [web](https://x.org/a.py), [a](#x).",
        "agents/sub/notes.md",
    )
    assert [(p.path, p.line, p.end_line, p.form) for p in got.paths] == [
        ("agents/engine/llm.py", 10, 20, "link"),
        ("README.md", None, None, "link"),
    ]
    assert got.paths[0].text == "[the runner](../engine/llm.py#L10-L20)"


def test_symbol_written_beside_a_path_line() -> None:
    got = _paths(
        "GPUModelRunner::async_device_mirror() (src/runner.cpp:2430-2455) and sample_tokens_async "
        "(runner.cpp:2687-2695) and see src/a.py:3"
    )
    assert got == [
        ("src/runner.cpp", 2430, 2455, "GPUModelRunner::async_device_mirror", "colon"),
        ("runner.cpp", 2687, 2695, "sample_tokens_async", "colon"),
        ("src/a.py", 3, 3, None, "colon"),
    ]


def test_not_paths() -> None:
    assert _paths("https://github.com/a/b.py, tok/s, and/or, Qwen/Qwen3-0.6B, e.g. 1.0283x, p50/p90, I/O") == []


def test_evidence_refs() -> None:
    got = m(
        "See docs/bench-evidence/20260727-throughput-4b/summary.md, 20260805-nano-qwen3-0.6b and "
        "serve-latency-20260807; not 20261399-x or 20260727."
    )
    assert got.evidence == ("20260805-nano-qwen3-0.6b", "serve-latency-20260807", "20260727-throughput-4b")


@pytest.mark.parametrize(
    "text,want",
    [
        ("Fix the loader in src/x.py.", [("src/x.py", None, None, None, "bare")]),
        ("See .agents/roadmap.md. Then rerun.", [(".agents/roadmap.md", None, None, None, "bare")]),
        ("(see src/v1.2.)", [("src/v1.2", None, None, None, "bare")]),
        (
            "Compare src/x.py:12, then src/y.py:3-4.",
            [("src/x.py", 12, 12, None, "colon"), ("src/y.py", 3, 4, None, "colon")],
        ),
        (
            "Stop at src/x.py... or src/z.py; no further",
            [("src/x.py", None, None, None, "bare"), ("src/z.py", None, None, None, "bare")],
        ),
        (
            "Keep src/x.py.bak and src/.hidden/y.py",
            [("src/x.py.bak", None, None, None, "bare"), ("src/.hidden/y.py", None, None, None, "bare")],
        ),
    ],
)
def test_paths_leave_sentence_punctuation_out(text: str, want: list) -> None:
    assert _paths(text) == want
    assert all(not p.text.endswith((".", ",")) for p in m(text).paths)


def test_evidence_names_leave_sentence_punctuation_out() -> None:
    got = m(
        "Rerun evidence is in docs/bench-evidence/20260730-throughput-4b. Also 20260731-nano-0.6b, "
        "and serve-latency-20260807."
    )
    assert got.evidence == ("20260731-nano-0.6b", "serve-latency-20260807", "20260730-throughput-4b")
    assert [p.path for p in got.paths] == ["docs/bench-evidence/20260730-throughput-4b"]


def test_a_code_span_path_with_a_full_stop_is_a_path_not_a_symbol() -> None:
    got = m("Moved to `src/x.py.` and `engine/llm.py`.")
    assert got.symbols == ()
    assert [p.path for p in got.paths] == ["src/x.py", "engine/llm.py"]
