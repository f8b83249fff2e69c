"""Whose a reference is, and which hex tokens are commits: each positive beside the negative it must not become."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadmap.analysis.hexes import commit_context
from roadmap.analysis.ownership import foreign_column, foreign_section, names_for, text_verdict
from roadmap.config import Config, ConfigError, load_config
from roadmap.records.paths import find_paths

NAMES = names_for(Config(external=(("duckdb", "unresolved"),)), "tidewater", frozenset({"ops.cpp", "main.go"}))


def verdict(text: str, ref: str) -> str | None:
    i = text.index(ref)
    return text_verdict(text, i, i + len(ref), NAMES)


@pytest.mark.parametrize(
    "text, ref, expected",
    [
        ("upstream keeps it in `cmake/utils.cmake:393`", "cmake/utils.cmake:393", "foreign"),
        ("DuckDB's planner is `src/planner/bind.cpp:88`", "src/planner/bind.cpp:88", "foreign"),  # configured name
        ("see `src/planner/bind.cpp:88` in duckdb", "src/planner/bind.cpp:88", "foreign"),  # name after it
        ("MLX computes it in `ops.cpp:4624-4693`", "ops.cpp:4624-4693", "foreign"),
        ("as in whisper.cpp, `src/whisper.cpp:2870`", "src/whisper.cpp:2870", "foreign"),  # a name like a file
        ("`lib/x.py:12` @ `702f481`", "lib/x.py:12", "foreign"),  # pinned elsewhere
        ("ported from `kernels/attn.cu:40` (upstream)", "kernels/attn.cu:40", "foreign"),
        # ours: no marker, an ours marker nearer than the foreign one, the project's own name, our own file name
        ("the scheduler is `src/sched.go:40`", "src/sched.go:40", None),
        ("vLLM does it in Python; our port keeps it in `src/sched.go:40`", "src/sched.go:40", "ours"),
        ("tidewater.cpp keeps it in `src/sched.go:40`", "src/sched.go:40", None),
        ("main.go wires `src/sched.go:40`", "src/sched.go:40", None),
        # a clause boundary ends the foreign context of the sentence before
        ("Upstream is slower. The fix is in `src/sched.go:40`", "src/sched.go:40", None),
    ],
)
def test_text_verdict(text, ref, expected):
    assert verdict(text, ref) == expected


@pytest.mark.parametrize(
    "header, expected",
    [
        ("Upstream", True),
        ("vLLM", True),
        ("Reference", True),
        ("C original", True),
        ("duckdb file", True),
        ("Ours", False),
        ("Our code", False),
        ("Local target", False),
        ("Upstream -> ours", False),
        ("File", False),
    ],
)
def test_foreign_column(header, expected):
    assert foreign_column(header, NAMES) is expected


def test_foreign_section_is_about_upstream():
    assert foreign_section(("Port map", "Upstream behaviour"))
    assert not foreign_section(("Upstream behaviour", "Our changes"))
    assert not foreign_section(())


@pytest.mark.parametrize(
    "text, token, expected",
    [
        ("fixed in our commit 4be91c07d2, integer math", "4be91c07d2", "commit"),
        ("the flake was fixed by a3f9c02", "a3f9c02", "commit"),
        ("Base `deed7c2`", "deed7c2", "commit"),
        ("gate PASSED @ `669679a`", "669679a", "commit"),
        ("range abc1234..def5678 covers it", "def5678", "commit"),
        ("Reviewed-by: a; Landed-in: 1234abc", "1234abc", "commit"),
        ("commit hash `deadbee1`", "deadbee1", "commit"),
        ("Fixed the flake (a3f9c02).", "a3f9c02", "commit"),  # a landing verb further back
        ("a3f9c02 fix(ctrl): wait for the pod", "a3f9c02", "commit"),  # a pasted `git log --oneline`
        ("landed the cache; trace 179a0fc", "179a0fc", "none"),  # the verb is in another clause
        # digests, elisions, and hex with no commit word
        ("weights sha256 `60ed5bc3dd14`", "60ed5bc3dd14", "digest"),
        ("log digests `75b25ae3…3de8` and `a97d9d22…886e`", "a97d9d22", "digest"),
        ("token md5 `d235db12f2cd304007530286a1755c95`", "d235db12f2cd304007530286a1755c95", "digest"),
        ("the fingerprint is `0badc0de12`", "0badc0de12", "digest"),
        ("trace `179a0fc` (status ok)", "179a0fc", "none"),
        ("lever a0dda669 running", "a0dda669", "none"),
    ],
)
def test_commit_context(text, token, expected):
    i = text.index(token)
    assert commit_context(text, i, i + len(token)) == expected


def test_commit_column_makes_a_bare_sha_a_commit():
    assert commit_context("deed7c2", 0, 7, column="Landed in") == "commit"
    assert commit_context("deed7c2", 0, 7, column="Notes") == "none"


@pytest.mark.parametrize(
    "text, symbol",
    [
        ("`src/a.rs#L39-L69` `admit_waiting`", "admit_waiting"),  # after, in its own code span
        ("`include/p.h:109` `class Platform`", "Platform"),  # the keyword is not the symbol
        ("`Runner::step()` (src/r.cpp:40)", "Runner::step"),
        ("only SiLU (`include/ops.h:91` `kSiluAndMul`)", "kSiluAndMul"),  # code beats a word of prose
        ("as `false` (`src/cuda.cpp:37`)", None),  # a literal
        ("`-tp` in `src/cli.cpp:66`", None),  # a flag's tail
        ("digest `702f4814…c276` (`tools/pin.py:28`)", None),  # a hex fragment
        ("the `static_assert`s `src/blocks.h:36-94`", None),  # a code span with a word glued on
        ("`P` near `.ci/ci.yml:96`", None),  # too short to find again
    ],
)
def test_symbol_beside_a_reference(text, symbol):
    code, plain, pos = [], [], 0
    for k, piece in enumerate(text.split("`")):
        if k % 2:
            code.append((pos, pos + len(piece), piece))
        plain.append(piece)
        pos += len(piece)
    refs, _ = find_paths("".join(plain), code, [])
    assert refs and refs[0].symbol == symbol


def test_external_config_table_list_and_mistakes(tmp_path: Path):
    (tmp_path / "roadmap.yaml").write_text("external:\n  vllm: ../vllm\n  llama.cpp: unresolved\n")
    cfg = load_config(tmp_path)
    assert cfg.external == (("llama.cpp", "unresolved"), ("vllm", "../vllm"))
    assert cfg.external_names == {"vllm", "llama.cpp"} and cfg.external_roots == ()
    (tmp_path / "roadmap.yaml").write_text("external: [ggml]\n")
    assert load_config(tmp_path).external == (("ggml", "unresolved"),)
    (tmp_path / "roadmap.yaml").write_text("external:\n  sqlite: ./vendor/sqlite/\n")
    assert load_config(tmp_path).external_roots == ("vendor/sqlite/",)
    (tmp_path / "roadmap.yaml").write_text("external: 3\n")
    with pytest.raises(ConfigError, match=r"roadmap.yaml: key `external` must be a table"):
        load_config(tmp_path)


def test_external_in_pyproject(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.roadmap.external]\nvllm = "../vllm"\n')
    assert load_config(tmp_path).external == (("vllm", "../vllm"),)


@pytest.mark.parametrize(
    "text, line, end",
    [
        ("see src/x.py:40–60 now", 40, 60),  # an en dash, as prose writes ranges
        ("src/x.py:L120", 120, 120),
        ("src/x.py#L3–L9", 3, 9),
    ],
)
def test_line_range_spellings(text, line, end):
    refs, _ = find_paths(text, [], [])
    assert refs and (refs[0].path, refs[0].line, refs[0].end_line) == ("src/x.py", line, end)


@pytest.mark.parametrize(
    "markdown, symbol",
    [
        ("[`admit_waiting`](../src/a.rs#L39-L69)", "admit_waiting"),
        ("[`vt::MatmulBT` routes block dtypes](../src/ops.cpp#L158)", "vt::MatmulBT"),
        ("[the loop](../src/a.rs#L5)", None),  # plain link text names no symbol
        ("[`dtype.cpp`](../src/dtype.cpp#L32)", None),  # a file name in code
        ("[`test_bench`](../tests/test_bench.cpp#L143)", None),  # the file's own name
    ],
)
def test_symbol_of_a_line_link(markdown, symbol):
    from roadmap.records.parser import parse_record

    rf = parse_record("agents/x.md", f"# x\n\n- {markdown}\n".encode(), Config())
    refs = [p for st in rf.statements for p in st.mentions.paths]
    assert refs and refs[0].symbol == symbol
