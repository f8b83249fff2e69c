"""An open row's work may sit in a column named for a remedy (Remediation, Fix, Mitigation, Action) rather than a
Task or Title: RL101 reads that cell as the row's directive. Voice: an IT-ops team's vulnerability table; the
negative control is a row whose state is closed."""

from __future__ import annotations

from roadmap.lint import LintOptions, lint

TABLE = """# Vulnerability follow-up (Q2)

| Ref | Severity | Mitigation | Status |
|---|---|---|---|
| VULN-301 | high | Rotate the `backup_agent_token` and read it from the vault instead of the env file | Open |
| VULN-302 | low | Pin `openssl_min_version` in the base image build | Closed |
"""


def test_a_mitigation_column_holds_the_open_rows_work(git_repo):
    repo = git_repo()
    repo.commit({"ops/backup.py": "import os\nTOKEN = os.environ['TOKEN']\n"}, "backup agent", "2026-04-01")
    repo.commit({"agents/vulns.md": TABLE}, "vuln table", "2026-04-02")
    code = "from ops.vault import read\nbackup_agent_token = read('backup/agent')\nopenssl_min_version = '3.0.13'\n"
    repo.commit({"ops/backup.py": code}, "backup: token from the vault, rotated", "2026-04-10")
    found = lint(repo.path, LintOptions(use_cache=False, select=("RL101",))).findings
    lines = (repo.path / "agents/vulns.md").read_text().split("\n")
    rows = {lines[f.line - 1].split("|")[1].strip() for f in found if f.path == "agents/vulns.md"}
    assert rows == {"VULN-301"}
