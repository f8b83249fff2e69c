"""Never crash on input: evidence, baselines and caches are parsed bounded (depth, integer digits, size, finite
numbers only); a bad file is a finding for that file and the run goes on; JSON output is always JSON; only a
bug of ours exits 3 (issue 10: each test is one of its repros, named after what it guards)."""

from __future__ import annotations

import json
import math

import pytest

from roadmap import safejson
from roadmap.cli import main
from roadmap.findings import Finding
from roadmap.lint import LintResult
from roadmap.render import FORMATS, render

EV = "docs/bench-evidence/20260727-tp"
DEEP = "[" * 200_000 + "]" * 200_000


def result(median: str = "6831.71") -> str:
    """A valid result.json but for the median, spliced in as raw JSON text."""
    doc = json.dumps(
        {
            "schema": "evident.bench/1",
            "series": "tp",
            "row": "ENG-TP",
            "created": "2026-07-27T10:00:00Z",
            "commit": "0" * 40,
            "dirty": False,
            "command": "engine bench throughput",
            "machine": {"gpu": "H200", "gpu_count": 1},
            "model": {"name": "m"},
            "workload": {"name": "nano"},
            "engine": {"block_size": 16},
            "runs": [{"output_tok_per_s": 1.0}],
            "metrics": {"output_tok_per_s": {"median": "MEDIAN", "min": 1.0, "max": 2.0}},
        }
    )
    return doc.replace('"MEDIAN"', median)


RECORD = "# Plan\n\n| ID | State | Throughput |\n|---|---|---|\n| ENG-TP | OPEN | 6831.71 tok/s ([ev](../docs/bench-evidence/20260727-tp)) |\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def evidence_repo(git_repo, body: str):
    repo = git_repo()
    repo.commit({"agents/roadmap.md": RECORD, f"{EV}/result.json": body}, "bench: evidence", "2026-07-27")
    return repo


def rl501(capsys, repo, *extra: str) -> tuple[int, list[dict]]:
    code, out, err = run(capsys, "lint", str(repo.path), "--format", "json", *extra)
    assert "internal error" not in err and "Traceback" not in err, err
    found = json.loads(out)["findings"]
    return code, [f for f in found if f["code"] == "RL501"]


def test_evidence_nested_200k_deep_is_a_finding(capsys, git_repo):
    repo = evidence_repo(git_repo, DEEP)
    for extra in ((), ("--ignore", "RL201"), ("--ignore", "RL201,RL202")):
        code, [bad] = rl501(capsys, repo, *extra)
        assert code == 1 and "nested deeper than" in bad["message"] and bad["path"] == f"{EV}/result.json"


def test_evidence_with_a_5000_digit_integer_is_a_finding(capsys, git_repo):
    repo = evidence_repo(git_repo, result("1" + "0" * 4999))
    code, [bad] = rl501(capsys, repo)
    assert code == 1 and "5000 digits" in bad["message"]


@pytest.mark.parametrize("median", ["1" + "0" * 400, "1e400", "Infinity", "-Infinity", "NaN"])
def test_evidence_with_a_non_finite_or_huge_median_is_invalid(capsys, git_repo, median):
    repo = evidence_repo(git_repo, result(median))
    code, [bad] = rl501(capsys, repo)
    assert code == 1 and "not valid JSON" in bad["message"]
    code, out, err = run(capsys, "evidence", "verify", "--path", str(repo.path))
    assert code == 1 and "FAIL" in out and "Traceback" not in err


# Short ids: pytest puts the test id in PYTEST_CURRENT_TEST, and a 200k-character one is more than one environment
# string may hold (128 KiB), so every git the test starts failed with "Argument list too long" (seen on the H200).
@pytest.mark.parametrize(
    "body",
    [DEEP, result("1" + "0" * 4999), result("1" + "0" * 400), result("NaN")],
    ids=["200k-deep", "5000-digits", "1e400", "nan"],
)
def test_evidence_list_and_verify_never_print_a_traceback(capsys, git_repo, body):
    repo = evidence_repo(git_repo, body)
    for action in ("list", "verify"):
        for fmt in ("text", "json"):
            code, out, err = run(capsys, "evidence", action, "--path", str(repo.path), "--format", fmt)
            assert code in (0, 1) and err == "", err
            if fmt == "json":
                json.loads(out, parse_constant=_no_constant)  # valid JSON: no bare NaN or Infinity


def test_report_with_a_huge_median_does_not_overflow(capsys, git_repo):
    repo = evidence_repo(git_repo, result("9" * 300))  # past float's range when formatted, were it read
    code, out, err = run(capsys, "report", str(repo.path))
    assert code == 0 and err == "" and "Coordination report" in out


def _no_constant(name: str) -> float:
    raise AssertionError(f"{name} is not JSON")


def test_json_output_is_json_even_with_non_finite_numbers_in_a_finding():
    f = Finding(
        "RL201",
        "figure-superseded",
        "error",
        "m",
        "a.md",
        1,
        1,
        evidence=[{"kind": "statement", "value": math.inf, "other": [math.nan, 1.5]}],
    )
    result = LintResult(root=None, head=None, findings=[f], rules=[])  # type: ignore[arg-type]
    for fmt in ("json", "sarif"):
        json.loads(render(result, fmt), parse_constant=_no_constant)
    assert FORMATS


def test_deeply_nested_baseline_is_a_usage_error(capsys, git_repo, tmp_path):
    repo = evidence_repo(git_repo, result())
    for body in (
        DEEP,
        '{"schema_version": 1, "findings": [' + "[" * 5000 + "]" * 5000 + "]}",
        '{"schema_version": 1' + "0" * 5000 + "}",
    ):
        baseline = tmp_path / "baseline.json"
        baseline.write_text(body)
        code, _, err = run(capsys, "lint", str(repo.path), "--baseline", str(baseline))
        assert code == 2 and err.startswith(f"roadmap: error: baseline {baseline}") and err.count("\n") == 1
        assert "write-baseline" in err and "Traceback" not in err


def test_baseline_that_is_a_device_is_not_read(capsys, git_repo):
    repo = evidence_repo(git_repo, result())
    code, _, err = run(capsys, "lint", str(repo.path), "--baseline", "/dev/zero")
    assert code == 2 and "cannot be read" in err


def test_corrupt_caches_are_rebuilt_not_trusted(capsys, git_repo):
    repo = evidence_repo(git_repo, result())
    first = run(capsys, "lint", str(repo.path), "--format", "json")
    cache = repo.path / ".roadmap_cache"
    files = [p for p in cache.rglob("*.json") if p.is_file()]
    assert files
    for p in files:  # a valid seal over a body nested far too deep
        magic, version = p.read_bytes().split(b"\n", 1)[0].split()[:2]
        from roadmap.cachedir import seal

        p.write_bytes(seal(magic, int(version), DEEP.encode()))
    assert run(capsys, "lint", str(repo.path), "--format", "json") == first


def test_safejson_bounds():
    with pytest.raises(safejson.JsonError, match="nested deeper than 64 levels") as deep:
        safejson.loads("[" * 65 + "]" * 65)
    assert (deep.value.lineno, deep.value.colno) == (1, 65)
    assert safejson.loads("[" * 64 + "]" * 64) is not None
    with pytest.raises(safejson.JsonError, match="65 digits"):
        safejson.loads("1" * 65)
    with pytest.raises(safejson.JsonError, match="larger than"):
        safejson.loads(b"[1]", max_bytes=2)
    with pytest.raises(safejson.JsonError, match="not UTF-8"):
        safejson.loads(b'"\xff"')
    assert safejson.loads('{"a": "[[[[\\"", "b": [1.5, -2]}') == {"a": '[[[["', "b": [1.5, -2]}
    assert safejson.dumps({"x": math.nan, "y": [math.inf]}) == '{"x": null, "y": [null]}'


def test_an_unexpected_crash_exits_3_never_1(capsys, git_repo, monkeypatch):
    repo = evidence_repo(git_repo, result())

    def crash(*args, **kwargs):
        raise MemoryError("simulated")

    monkeypatch.setattr("roadmap.evidence.load_evidence", crash)
    code, _, err = run(capsys, "evidence", "list", "--path", str(repo.path))
    assert code == 3 and err.startswith("roadmap: internal error: MemoryError")


def test_deeply_nested_config_is_a_usage_error(capsys, git_repo):
    for name, body in (
        ("roadmap.yaml", "[" * 100_000 + "]" * 100_000),
        ("pyproject.toml", "[tool.roadmap]\nx = " + "[" * 100_000 + "]" * 100_000),
    ):
        repo = git_repo(name)
        repo.commit({"agents/ok.md": "- fine\n", name: body}, "docs: records", "2026-07-01")
        code, _, err = run(capsys, "lint", str(repo.path))
        assert code == 2 and "nested too deeply" in err and "Traceback" not in err


def test_a_greek_mu_before_s_is_a_microsecond_not_a_crash(git_repo):
    """blz's CHANGELOG.md writes `1μs` with the Greek mu (U+03BC): lower() of the micro sign gives that letter, which
    the unit table did not hold, and the lint stopped with an internal KeyError."""
    from roadmap.lint import LintOptions, lint
    from roadmap.records.figures import _unit_at

    assert _unit_at("1\u03bcs of", 1)[0] == _unit_at("1\u00b5s of", 1)[0] == "us"
    r = git_repo()
    r.commit({"agents/plan.md": "# Plan\n\n- Lookup takes 1\u03bcs and 2\u00b5s at p99.\n"}, "plan", "2026-07-01")
    result = lint(r.path, LintOptions(use_cache=False))
    assert result.records == 1 and not [f for f in result.findings if f.severity == "error"]
