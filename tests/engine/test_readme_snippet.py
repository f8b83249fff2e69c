"""The README's Python snippet runs as written with the embedded model and answers the question (issue 12: it used
to call generate() on the instruct model and printed '')."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_python_snippet_answers(smollm2_gguf_path: Path, one_torch_thread) -> None:
    snippet = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert snippet is not None, "README.md has no ```python block"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(snippet.group(1), "README.md", "exec"), {})
    assert "Paris" in printed.getvalue(), printed.getvalue()
