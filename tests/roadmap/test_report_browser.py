"""The HTML report in a real browser: headless Chromium (Debian's `chromium`; tools/test installs it when it can)
loads the page without a console message and draws something (the screenshot's pixels vary).

The page has no scripts, so any console line is the browser complaining (a blocked resource, a CSP violation,
a parse error). Two controls prove the checks can fail: a page that logs an error is caught, a blank page
measures as blank.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from roadmap.cli import main

Image = pytest.importorskip(
    "PIL.Image", reason="Pillow reads the screenshot (it comes with matplotlib, the bench extra)"
)
ImageStat = pytest.importorskip("PIL.ImageStat")
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no headless Chromium on PATH (tools/test installs Debian's `chromium` with apt-get when it runs as root)",
)
CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\]? ?(.*)")


def _load(page: Path, tmp_path: Path) -> tuple[list[str], float]:
    """Console lines the page caused, and the greyscale variance of its screenshot."""
    shot = tmp_path / f"{page.stem}.png"
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1280,1600",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    if not shot.exists():
        pytest.skip(f"Chromium could not take a screenshot here: {proc.stderr.strip().splitlines()[-1:]}")
    console = [m.group(1) for line in proc.stderr.splitlines() if (m := CONSOLE.search(line))]
    with Image.open(shot) as img:
        return console, ImageStat.Stat(img.convert("L")).var[0]


def _result(day: str, tok_s: float) -> str:
    return json.dumps(
        {
            "schema": "evident.bench/1",
            "series": "tp-demo",
            "row": "ENG-DEMO",
            "created": f"{day}T10:00:00Z",
            "peers": [{"name": "peer", "ratio": 1.25, "complete": True}],
            "metrics": {"output_tok_per_s": {"median": tok_s, "min": tok_s, "max": tok_s}},
        }
    )


def test_the_html_report_loads_cleanly_and_is_not_blank(tmp_path, git_repo):
    repo = git_repo()
    roadmap = (
        "# Roadmap\n\n| ID | State | Remaining |\n|---|---|---|\n"
        "| ENG-DEMO | ACTIVE | Measure the demo again. <img src=x onerror=alert(1)> |\n"
        "| ENG-OLD | DONE | See `src/a.py:99`. |\n"
    )
    repo.commit(
        {
            "agents/roadmap.md": roadmap,
            "src/a.py": "a = 1\n",
            "docs/bench-evidence/20260801-tp-demo/result.json": _result("2026-08-01", 1000.5),
        },
        "feat",
        "2026-08-01",
    )
    repo.commit(
        {"docs/bench-evidence/20260809-tp-demo/result.json": _result("2026-08-09", 1100.25)}, "bench", "2026-08-09"
    )
    page = repo.path / "out" / "report.html"
    assert main(["report", str(repo.path), "--no-cache", "-o", str(page)]) == 0
    console, variance = _load(page, tmp_path)
    assert console == []
    assert variance > 500, f"the screenshot looks blank (greyscale variance {variance:.1f})"


def test_the_checks_catch_a_console_error_and_a_blank_page(tmp_path):
    noisy, blank = tmp_path / "noisy.html", tmp_path / "blank.html"
    noisy.write_text('<!DOCTYPE html><html><body><p>x</p><script>console.error("boom")</script></body></html>')
    blank.write_text('<!DOCTYPE html><html><body style="background:#fff"></body></html>')
    console, _ = _load(noisy, tmp_path)
    assert any("boom" in line for line in console), console
    console, variance = _load(blank, tmp_path)
    assert console == [] and variance < 1.0
