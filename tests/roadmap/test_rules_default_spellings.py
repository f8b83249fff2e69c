"""RL104 finds a default flipped in code however the code spells the switch the record names: a Go flag named
`--enable-canary` in prose and `flag.Bool("enable-canary", ...)` in code, a snake_case setting that a Go struct
spells `AuditSink`-style, a dotted config key (`cache.warm_start`) whose code is a struct field, a Kconfig
`CONFIG_X=n` turned `=y`, and a value whose trailing comment changed with it.

Voices: a Go platform team's rollout notes, an embedded team's board checklist written in a second language, a
Rust service's design doc. Negative controls beside each: a longer name that merely starts with the switch's, a
switch whose line changed only its comment, a Kconfig option left at `n`."""

from __future__ import annotations

from roadmap.analysis.default_flips import spellings
from roadmap.lint import LintOptions, lint


def _findings(repo):
    return lint(repo.path, LintOptions(use_cache=False, select=("RL104",))).findings


def _lines(findings, repo, path):
    text = (repo.path / path).read_text().split("\n")
    return [text[f.line - 1] for f in findings if f.path == path]


def test_spellings_of_a_switch():
    assert {"enable-canary", "enable_canary", "EnableCanary", "enableCanary"} <= spellings("--enable-canary")
    assert {"warm_start", "WarmStart"} <= spellings("cache.warm_start")
    assert {"RequireMTLS", "RequireMtls", "requireMTLS"} <= spellings("require_mtls")
    assert spellings("CONFIG_BT_EXT_ADV") == {"CONFIG_BT_EXT_ADV"}


GO_V1 = """package main

import "flag"

var (
	canary = flag.Bool("enable-canary", false, "route 1% of traffic to the canary pool")
	shadow = flag.Bool("enable-shadow", false, "mirror traffic")  // off until the mirror cluster exists
)

var Defaults = Config{AuditSink: false, AuditSinkBuffered: false}
"""

NOTES = """# Rollout notes (platform)

- `--enable-canary` defaults to false; we turn it on once the canary pool has two weeks of clean SLOs.
- `--enable-shadow` is off by default and stays so until the mirror cluster is funded.
- `audit_sink` is opt-in while the compliance team reviews the log format.
"""


def test_go_flags_and_struct_fields_flipped_in_code(git_repo):
    repo = git_repo()
    repo.commit({"cmd/edge/main.go": GO_V1}, "edge: flags", "2026-02-01")
    repo.commit({"agents/rollout.md": NOTES}, "notes: rollout", "2026-02-02")
    v2 = (
        GO_V1.replace('"enable-canary", false', '"enable-canary", true')
        .replace("// off until the mirror cluster exists", "// mirror cluster: see infra#212")
        .replace("AuditSinkBuffered: false", "AuditSinkBuffered: true")
    )
    repo.commit({"cmd/edge/main.go": v2}, "edge: canary on for everyone; buffer the audit sink", "2026-02-20")
    found = _lines(_findings(repo), repo, "agents/rollout.md")
    assert any("`--enable-canary` defaults to false" in line for line in found)
    assert not any("--enable-shadow" in line for line in found)  # only its comment changed
    assert not any("audit_sink" in line for line in found)  # AuditSinkBuffered is another field
    v3 = v2.replace("AuditSink: false,", "AuditSink: true,")
    repo.commit({"cmd/edge/main.go": v3}, "edge: audit sink for all tenants", "2026-03-01")
    assert any("audit_sink" in line for line in _lines(_findings(repo), repo, "agents/rollout.md"))


BOARD = """# Board rev C bring-up

- [x] UART console work at 115200.
- [ ] Wi-Fi coexist (`CONFIG_BT_COEX`) is off default, we enable after RF team check.
- [ ] Low power (`CONFIG_PM_DEEP`) is off default, not stable yet.
"""


def test_kconfig_n_to_y(git_repo):
    repo = git_repo()
    repo.commit({"prj.conf": "CONFIG_BT_COEX=n\nCONFIG_PM_DEEP=n\n"}, "conf: first", "2026-04-01")
    repo.commit({".agents/board.md": BOARD}, "board checklist", "2026-04-02")
    repo.commit({"prj.conf": "CONFIG_BT_COEX=y\nCONFIG_PM_DEEP=n\n"}, "conf: coex after RF check", "2026-04-15")
    found = _lines(_findings(repo), repo, ".agents/board.md")
    assert any("CONFIG_BT_COEX" in line for line in found)
    assert not any("CONFIG_PM_DEEP" in line for line in found)


RUST_V1 = """pub struct CacheOptions {
    pub warm_start: bool,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions { warm_start: false } // cold start: warm-up reads off
    }
}
"""

DESIGN = """# 0012 cache warm start

Status: Accepted

- `cache.warm_start` is off by default; turn it on per node with `warm_start = true` under `[cache]`.
"""


def test_a_dotted_key_and_a_changed_comment(git_repo):
    repo = git_repo()
    repo.commit({"src/cache.rs": RUST_V1}, "cache: options", "2026-06-01")
    repo.commit({"agents/design/0012.md": DESIGN}, "design: warm start", "2026-06-02")
    v2 = RUST_V1.replace(
        "CacheOptions { warm_start: false } // cold start: warm-up reads off",
        "CacheOptions { warm_start: true } // warm-up reads on by default since 0012",
    )
    repo.commit({"src/cache.rs": v2}, "cache: warm start by default", "2026-06-20")
    assert any("cache.warm_start" in line for line in _lines(_findings(repo), repo, "agents/design/0012.md"))
