"""The command line a ruff user expects: the cwd never narrows a run, PATHs narrow the report, named files are
linted even outside the globs (unless --force-exclude), no record file is exit 2, --output-format with concise,
--quiet, --exit-zero, --color, and select/extend-select/ignore/per-file-ignores in the config."""

from __future__ import annotations

import json

import pytest

from roadmap.cli import main

SRC = "def a():\n    return 1\n"  # 2 lines: any reference past line 2 is RL302


@pytest.fixture
def repo(git_repo):
    r = git_repo()
    r.commit(
        {
            "src/short.py": SRC,
            "agents/plan.md": "# Plan\n\nSee `src/short.py:99`.\n",
            "agents/sub/notes.md": "# Notes\n\nSee `src/short.py:50`.\n",
            "notes/outside.md": "# Outside\n\nSee `src/short.py:77`.\n",
        },
        "init",
        "2026-07-01",
    )
    return r


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def lines(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.strip()]


def test_from_a_subdirectory_the_whole_repository_is_linted(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo.path / "src")
    code, out, _ = run(capsys, "lint", "--output-format", "concise", "--quiet")
    assert code == 1
    assert [ln.split(" RL302 ")[0] for ln in lines(out)] == ["agents/plan.md:3:1:", "agents/sub/notes.md:3:1:"]
    monkeypatch.chdir(repo.path / "agents" / "sub")  # the cwd is inside the records: still not narrowed
    assert len(lines(run(capsys, "lint", "--output-format", "concise", "-q")[1])) == 2


def test_paths_narrow_the_report_and_several_may_be_given(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo.path)
    code, out, _ = run(capsys, "lint", "agents/sub", "--output-format", "json")
    assert code == 1 and {f["path"] for f in json.loads(out)["findings"]} == {"agents/sub/notes.md"}
    code, out, _ = run(capsys, "lint", "agents/plan.md", "agents/sub/notes.md", "--output-format", "json")
    assert {f["path"] for f in json.loads(out)["findings"]} == {"agents/plan.md", "agents/sub/notes.md"}


def test_a_named_file_outside_the_globs_is_linted(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo.path)
    code, out, _ = run(capsys, "lint", "notes/outside.md", "--output-format", "json")
    findings = json.loads(out)["findings"]
    assert code == 1 and [(f["path"], f["line"], f["code"]) for f in findings] == [("notes/outside.md", 3, "RL302")]


def test_force_exclude_reports_only_record_files_among_those_named(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo.path)
    code, out, err = run(capsys, "lint", "--force-exclude", "notes/outside.md", "--output-format", "json")
    assert (code, out) == (0, "") and "no record file among the named paths" in err
    code, out, _ = run(
        capsys, "lint", "--force-exclude", "notes/outside.md", "agents/plan.md", "--output-format", "json"
    )
    assert code == 1 and {f["path"] for f in json.loads(out)["findings"]} == {"agents/plan.md"}


def test_no_record_file_is_exit_2_with_the_config_hint(capsys, git_repo, monkeypatch):
    r = git_repo()
    r.commit({"README.md": "# Nothing to lint\n"}, "init", "2026-07-01")
    monkeypatch.chdir(r.path)
    code, out, err = run(capsys, "lint")
    assert code == 2 and out == ""
    assert err.startswith("roadmap: error: no record files match agents/**/*.md, .agents/**/*.md, .agent/**/*.md in ")
    assert "(config: defaults); set `records` in [tool.roadmap]" in err and err.count("\n") == 1


def test_config_is_found_upward_from_the_cwd(capsys, repo, monkeypatch):
    repo.commit(
        {
            "agents/pyproject.toml": "[project]\nname = 'x'\n",  # a pyproject.toml without the table
            "pyproject.toml": "[tool.roadmap]\nignore = ['RL302']\n",
        },
        "config",
        "2026-07-02",
    )
    monkeypatch.chdir(repo.path / "agents" / "sub")
    assert run(capsys, "lint")[0] == 0
    (repo.path / "agents" / "roadmap.yaml").write_text("select: [RL3]\n")  # nearer the cwd: wins
    assert run(capsys, "lint")[0] == 1
    monkeypatch.chdir(repo.path)  # not on the way up from the root
    assert run(capsys, "lint")[0] == 0


def test_concise_quiet_and_exit_zero(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo.path)
    code, out, err = run(capsys, "lint", "--output-format", "concise")
    assert code == 1 and err == ""
    assert out.splitlines()[0].startswith("agents/plan.md:3:1: RL302 ")
    assert out.splitlines()[-1] == "Found 2 findings (2 errors, 0 warnings, 0 info)."
    code, out, _ = run(capsys, "lint", "--format", "concise", "--quiet", "--exit-zero")
    assert code == 0 and len(out.splitlines()) == 2
    code, out, _ = run(capsys, "lint", "--quiet")  # full: the groups, no summary line
    assert code == 1 and "Found" not in out and "agents/plan.md" in out


def test_exit_zero_still_reports_usage_errors(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo.path)
    assert run(capsys, "lint", "--exit-zero", "--select", "XX1")[0] == 2


@pytest.mark.parametrize(
    "flag, env, coloured",
    [
        ("always", {}, True),
        ("never", {"FORCE_COLOR": "1"}, False),
        ("auto", {}, False),
        ("auto", {"FORCE_COLOR": "1"}, True),
        ("auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
)
def test_color(capsys, repo, monkeypatch, flag, env, coloured):
    monkeypatch.chdir(repo.path)
    for k in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    for fmt in ("full", "concise"):
        out = run(capsys, "lint", "--output-format", fmt, "--color", flag)[1]
        assert ("\x1b[" in out) is coloured, (fmt, out)


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith("roadmap 0.")


def test_output_format_from_config(capsys, repo, monkeypatch):
    repo.write({"roadmap.yaml": "output-format: concise\n"})
    monkeypatch.chdir(repo.path)
    assert run(capsys, "lint")[1].startswith("agents/plan.md:3:1: RL302 ")
    assert json.loads(run(capsys, "lint", "--output-format", "json")[1])["summary"]["error"] == 2


@pytest.mark.parametrize(
    "config, argv, expected",
    [
        ("ignore = ['RL3']", [], set()),
        ("select = ['RL303']", [], set()),
        ("select = ['RL303']\nextend-select = ['RL302']", [], {"agents/plan.md", "agents/sub/notes.md"}),
        ("ignore = ['RL3']", ["--extend-select", "RL302"], {"agents/plan.md", "agents/sub/notes.md"}),
        ("ignore = ['RL3']", ["--select", "RL302"], {"agents/plan.md", "agents/sub/notes.md"}),
        ("per-file-ignores = { 'agents/sub/*.md' = ['RL30'] }", [], {"agents/plan.md"}),
        ("[tool.roadmap.per-file-ignores]\n'agents/**/*.md' = 'RL302'", [], set()),
    ],
)
def test_selection_in_config_and_on_the_command_line(capsys, repo, monkeypatch, config, argv, expected):
    head = "" if config.startswith("[") else "[tool.roadmap]\n"
    repo.write({"pyproject.toml": head + config + "\n"})
    monkeypatch.chdir(repo.path)
    _, out, err = run(capsys, "lint", "--output-format", "json", *argv)
    assert {f["path"] for f in json.loads(out)["findings"]} == expected, err


@pytest.mark.parametrize(
    "config, message",
    [
        ("select = ['RL3O2']", "`select` lists 'RL3O2', not a rule code prefix"),
        ("ignore = ['XY9']", "`ignore` names 'XY9', which no rule code starts with"),
        ("per-file-ignores = ['RL3']", "`per_file_ignores` must be a table of glob = [code prefixes]"),
        ("per-file-ignores = { 'a.md' = 3 }", "entry 'a.md' must be a list of code prefixes"),
        ("commit_url = 'https://example.com/c/'", "`commit_url` must be an http(s) URL with {sha}"),
        ("output-format = 'pretty'", "`output_format` must be one of full, concise"),
    ],
)
def test_selection_mistakes_name_the_file_and_the_fix(capsys, repo, monkeypatch, config, message):
    repo.write({"pyproject.toml": f"[tool.roadmap]\n{config}\n"})
    monkeypatch.chdir(repo.path)
    code, _, err = run(capsys, "lint")
    assert code == 2 and message in err and "pyproject.toml" in err and err.count("\n") == 1, err


def test_without_config_and_without_agents_records_the_usual_places_are_read(capsys, git_repo, monkeypatch):
    r = git_repo()
    r.commit(
        {
            "README.md": "# Tool\n\n- [ ] Add a `--frobnicate` flag\n",  # a project's README: never a record here
            "TODO.md": "# TODO\n\n- [ ] Add a `--verbose` flag\n",
            "docs/plan.md": "# Plan\n\n- [ ] Write the `--quiet` docs\n",
            "notes.txt": "not markdown\n",
        },
        "init",
        "2026-07-01",
    )
    monkeypatch.chdir(r.path)
    code, out, err = run(capsys, "lint", "--output-format", "json")
    assert code == 0 and json.loads(out)["findings"] == []
    assert "roadmap: note: no file matches the default record globs" in err and err.count("\n") == 1
    from roadmap.lint import LintOptions, lint

    result = lint(r.path, LintOptions(use_cache=False))
    assert result.records == 2  # TODO.md and docs/plan.md; README.md excepted
    assert {rf.path for rf in result.context.records} == {"TODO.md", "docs/plan.md"}


def test_without_config_a_folder_of_any_name_is_read_but_not_tests_or_vendored_code(git_repo) -> None:
    """Records kept in `protokoll/` or `journal/` are read without a config; a README in any folder, test data and
    vendored packages are not records."""
    from roadmap.lint import LintOptions, lint

    r = git_repo()
    r.commit(
        {
            "protokoll/messungen.md": "# Messprotokoll\n\n- [ ] Nachmessung Probe B\n",
            "journal/2026-07.md": "# Journal\n\n- 2026-07-01: started the port\n",
            "src/parser/README.md": "# Parser\n\n- [ ] Document the grammar\n",
            "tests/fixtures/plan.md": "# Plan\n\n- [ ] A fixture, not a plan\n",
            "vendor/lib/TODO.md": "# TODO\n\n- [ ] Someone else's list\n",
            "Changelog.md": "# Changelog\n\n- Added the port\n",
        },
        "init",
        "2026-07-01",
    )
    result = lint(r.path, LintOptions(use_cache=False))
    assert result.context is not None
    assert {rf.path for rf in result.context.records} == {"protokoll/messungen.md", "journal/2026-07.md"}
