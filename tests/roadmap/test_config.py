"""Config: defaults need no file; pyproject/yaml are read key by key; mistakes name the file, the key and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadmap.config import Config, ConfigError, glob_match, load_config


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_any_file(tmp_path: Path) -> None:
    cfg = load_config(tmp_path)
    assert cfg == Config() and cfg.source == "defaults"
    assert cfg.records == ("agents/**/*.md", ".agents/**/*.md", ".agent/**/*.md")
    assert cfg.evidence.root == "docs/bench-evidence" and cfg.evidence.naming == "any"
    assert cfg.history.branch == "HEAD" and cfg.claims_ttl_days == 14 and cfg.fail_on == "error"
    assert "GATING" in cfg.states and cfg.closed_state_set >= {"DONE", "CLOSED", "SUPERSEDED"}


def test_pyproject_without_tool_roadmap_is_defaults(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    assert load_config(tmp_path).records == Config().records


def test_pyproject_tool_roadmap(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        """
[tool.roadmap]
records = ["records/*.md"]
exclude = ["records/old-*.md"]
claims_ttl_days = 7
fail_on = "warning"

[tool.roadmap.directives]
columns = ["Todo next"]

[tool.roadmap.evidence]
root = "bench"
naming = "date-last"
""",
    )
    cfg = load_config(tmp_path)
    assert cfg.records == ("records/*.md",) and cfg.exclude == ("records/old-*.md",)
    assert cfg.claims_ttl_days == 7 and cfg.fail_on == "warning"
    assert cfg.directives.columns == ("Todo next",) and cfg.directives.sections == Config().directives.sections
    assert cfg.evidence.root == "bench" and cfg.evidence.naming == "date-last" and cfg.evidence.kinds == "any"
    assert cfg.source.endswith("pyproject.toml")


def test_roadmap_yaml_is_picked_up_and_wins(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.roadmap]\nclaims_ttl_days = 3\n")
    write(tmp_path / "roadmap.yaml", "claims_ttl_days: 21\nhistory:\n  include: [src, docs]\n")
    cfg = load_config(tmp_path)
    assert cfg.claims_ttl_days == 21 and cfg.history.include == ("src", "docs")


def test_explicit_config_file(tmp_path: Path) -> None:
    path = write(tmp_path / "conf" / "lint.yaml", "id_patterns: ['RI-[0-9]+']\n")
    cfg = load_config(tmp_path, Path("conf/lint.yaml"))
    assert cfg.id_re.fullmatch("RI-12") and not cfg.id_re.fullmatch("ROAD-A-B")
    assert load_config(tmp_path, path).id_patterns == ("RI-[0-9]+",)


@pytest.mark.parametrize(
    "text,key,hint",
    [
        ("[tool.roadmap]\nrecrods = ['a']\n", "recrods", "records"),
        ("[tool.roadmap]\nrecords = 'a'\nfail_on = 'fatal'\n", "fail_on", "error, warning, info"),
        ("[tool.roadmap]\nclaims_ttl_days = 'two weeks'\n", "claims_ttl_days", "non-negative integer"),
        ("[tool.roadmap]\nrecords = [1, 2]\n", "records", "list of strings"),
        ("[tool.roadmap.evidence]\nroot = 'x'\nnamng = 'any'\n", "evidence.namng", "evidence.naming"),
        ("[tool.roadmap]\nevidence = 'docs'\n", "evidence", "table of keys"),
        ("[tool.roadmap]\nid_patterns = ['ROAD-(']\n", "id_patterns", "invalid regex"),
        ("[tool.roadmap.evidence]\nnaming = 'sideways'\n", "evidence.naming", "date-first"),
        ("[tool.roadmap]\nkinds = 'log'\n", "kinds", "glob = kind"),
        ("[tool.roadmap.kinds]\n'.agents/state.md' = 'diary'\n", 'kinds.".agents/state.md"', "current, log, closed"),
    ],
)
def test_bad_key_names_file_key_and_fix(tmp_path: Path, text: str, key: str, hint: str) -> None:
    write(tmp_path / "pyproject.toml", text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    msg = str(err.value)
    assert "pyproject.toml" in msg and f"`{key}`" in msg and hint in msg


def test_kinds_name_record_files_by_glob(tmp_path: Path) -> None:
    write(tmp_path / "roadmap.yaml", "kinds:\n  .agents/state.md: log\n  .agents/specs/old-*.md: closed\n")
    cfg = load_config(tmp_path)
    assert cfg.kind_of(".agents/state.md") == "log" and cfg.kind_of(".agents/specs/old-plan.md") == "closed"
    assert cfg.kind_of(".agents/roadmap.md") is None


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    write(tmp_path / "roadmap.yaml", "records:\n  - a\n bad: [\n")
    with pytest.raises(ConfigError, match=r"roadmap\.yaml: line \d+ invalid YAML"):
        load_config(tmp_path)


def test_toml_syntax_error_and_missing_file(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.roadmap\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path)
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path, Path("nope.yaml"))


def test_yaml_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    write(tmp_path / "roadmap.yaml", "- records\n")
    with pytest.raises(ConfigError, match="must be a table of keys"):
        load_config(tmp_path)


@pytest.mark.parametrize(
    "token,is_id",
    [
        ("ROAD-V1-C2-LOCAL-BF16", True),
        ("ENG-ASYNC-SCHED", True),
        ("SERVE-ASYNC-LLM", True),
        ("RM-RECORDS", True),
        ("ROW-2A", True),
        ("BF16", False),
        ("UTF-8", False),
        ("HTTP-429", False),
        ("2A-ROW", False),
        ("Road-A-B", False),
    ],
)
def test_default_id_pattern(token: str, is_id: bool) -> None:
    assert bool(Config().id_re.fullmatch(token)) is is_id


def test_default_claim_pattern() -> None:
    cfg = Config()
    assert cfg.claim_re.fullmatch("CLAIM-LOCAL-BF16-H32-AOT") and not cfg.claim_re.fullmatch("CLAIMS-X")


def test_fast_default_regexes_match_the_generic_whole_token_form() -> None:
    from roadmap.config import _whole_token

    cfg = Config()
    text = (
        "ROAD-A-B xROAD-A-B ROAD-A-B_x .ROAD-A-B -ROAD-A-B ROAD-A-B- (ROAD-V1-C2) UTF-8 CLAIM-X-1 aCLAIM-X "
        "row/ENG-X `RM-RECORDS` CLAIM-Y.md"
    )
    for fast, patterns in ((cfg.id_re, cfg.id_patterns), (cfg.claim_re, cfg.claim_patterns)):
        generic = _whole_token(patterns)
        assert [m.span() for m in fast.finditer(text)] == [m.span() for m in generic.finditer(text)]


@pytest.mark.parametrize(
    "pattern,path,ok",
    [
        ("agents/**/*.md", "agents/roadmap.md", True),
        ("agents/**/*.md", "agents/a/b/c.md", True),
        ("agents/**/*.md", "agentsx/roadmap.md", False),
        (".agents/specs/roadmap-*.md", ".agents/specs/roadmap-v1.md", True),
        (".agents/*.md", ".agents/specs/x.md", False),
        ("./agents/*.md", "agents/x.md", True),
    ],
)
def test_glob_match(pattern: str, path: str, ok: bool) -> None:
    assert glob_match(pattern, path) is ok
