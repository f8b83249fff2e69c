"""Whose a reference is: ours (checked against this repository) or another project's (never checked).

A port's records cite upstream code as often as their own: `vllm/v1/core/sched/scheduler.py:348` in an Upstream
column, "MLX NVFP4 mode in `ops.cpp:4624`", "whisper.cpp 2c8d4f1". Such a reference is foreign when

- the nearest marker before it in its clause is a foreign one: "upstream", a project name (configured under
  `external`, a well-known one, or a name like `whisper.cpp` that is no file of ours), "mirror of", "port of",
  "pinned", `owner/repo#123`; an "our"/"ours"/"local" marker nearer to it makes it ours again;
- or right after it: "@ `702f481`" (pinned to another revision), "of MLX", "(upstream)";
- or its table column is named like Upstream/Reference/Source/Theirs or after an external project;
- or its section's heading says "upstream", unless its column is named as ours ("Our impl", "Local path");
- or its path lies under a configured external root (a vendored checkout).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roadmap.config import Config

# Projects a record in this field cites without saying "upstream"; `external` in the config adds more.
KNOWN_PROJECTS = frozenset(
    """vllm sglang llama.cpp ggml whisper.cpp mlx mlx-lm pytorch transformers tensorrt-llm
trt-llm flashinfer flash-attention flashattention cutlass xformers deepspeed megatron megatron-lm lmcache tgi
onnxruntime candle ollama exllamav2 faster-whisper nano-vllm mini-sglang gpt-fast llamafile mistral.rs fla
huggingface""".split()
)
_FOREIGN_WORDS = (
    r"upstream(?:'s)?|mirror(?:s|ed)?\s+(?:of|from)|port(?:ed)?\s+(?:of|from)|pinned|pins?|"
    r"fork(?:ed)?(?:\s+of|\s+from)?|vendored\s+from|third[- ]party|their|theirs|cf\."
)
_OURS_WORDS = r"our|ours|locally|local|here|we|this\s+repo(?:sitory)?"
_NAME = r"[A-Za-z][\w+-]*(?:\.[A-Za-z][\w+-]*)*"
_MARKER = re.compile(
    rf"(?i:\b(?P<foreign>{_FOREIGN_WORDS})\b)|(?i:\b(?P<ours>{_OURS_WORDS})\b)"
    rf"|(?P<issue>\b[\w.-]+(?:/[\w.-]+)?#\d+\b)|(?P<name>(?<![\w./-]){_NAME}(?:'s)?(?![\w/]))"
)
# Clause boundaries: a reference's context does not reach across them.
_CLAUSE = re.compile(r"[.;!?](?:\s|$)|\s[—–]\s|\|")
# Used with .match(text, pos): no `^` (it would only match at the start of the whole text).
_AFTER = re.compile(
    r"\W{0,3}(?:@\s*`?(?:pin\b|v?\d|[0-9a-f]{7,40}\b)|(?:\(\s*)?upstream\b"
    rf"|(?:of|in|from)\s+(?P<name>{_NAME}))",
    re.I,
)
_FOREIGN_COLUMN = re.compile(
    r"\b(?:upstream|reference|references|ref|refs|source|sources|origin|original|theirs|"
    r"mirror|external|third[- ]party)\b",
    re.I,
)
_OURS_COLUMN = re.compile(rf"\b(?:{_OURS_WORDS})\b", re.I)
_UPSTREAM = re.compile(r"\bupstream\b", re.I)
# `whisper.cpp`, `node.js`, `mistral.rs`: project names written like files (`.py` names are modules, not projects).
_CODE_EXT = re.compile(r"\.(?:cpp|js|rs|jl)$", re.I)
WINDOW = 100  # characters before a reference that can say whose it is


@dataclass(frozen=True)
class Names:
    """What counts as another project's name in this repository."""

    projects: frozenset[str]  # lower-case names: KNOWN_PROJECTS + configured external names
    own: str  # this repository's directory name, lower-case: never foreign
    basenames: frozenset[str]  # basenames of our files: `ops.cpp` here is a file, not a project

    def is_project(self, word: str) -> bool:
        w = word.lower()
        if w.endswith("'s"):
            w = w[:-2]
        if not w or w in self.basenames or w == self.own or ("." not in self.own and w.split(".")[0] == self.own):
            return False  # our own name (`tidewater.cpp` in the `tidewater` checkout), or a file of ours
        return w in self.projects or (_CODE_EXT.search(w) is not None and "." in w[1:-1])


def names_for(config: Config, own: str, basenames: frozenset[str]) -> Names:
    return Names(KNOWN_PROJECTS | config.external_names, own.lower(), basenames)


def foreign_column(header: str | None, names: Names) -> bool:
    """A column named Upstream/Reference/Source/Theirs, or after another project (`vLLM`), and not also "ours"."""
    if not header:
        return False
    if _OURS_COLUMN.search(header):
        return False
    return _FOREIGN_COLUMN.search(header) is not None or any(names.is_project(w) for w in re.findall(_NAME, header))


def ours_column(header: str | None) -> bool:
    """A column named as ours ("Our impl", "Ours", "Local path"): what it cites is ours even in a section about
    upstream ("# Op parity vs upstream" over a table with an Upstream column and an Our column)."""
    return header is not None and _OURS_COLUMN.search(header) is not None


def foreign_section(section: tuple[str, ...]) -> bool:
    """The innermost heading says the section is about upstream ("## Upstream behaviour")."""
    return bool(section) and _UPSTREAM.search(section[-1]) is not None and not _OURS_COLUMN.search(section[-1])


def _clause_start(text: str, start: int) -> int:
    lo = max(0, start - WINDOW)
    last = lo
    for m in _CLAUSE.finditer(text, lo, start):
        last = m.end()
    return last


def text_verdict(text: str, start: int, end: int, names: Names, floor: int = 0) -> str | None:
    """ "foreign" | "ours" | None for the reference at text[start:end], from the words around it in its clause.
    `floor` is where the previous reference of the statement ends: words before it belong to that one."""
    lo = max(floor, _clause_start(text, start))
    verdict = None
    for m in _MARKER.finditer(text, lo, start):  # the nearest marker before the reference decides
        kind = m.lastgroup
        if kind in ("foreign", "issue") or (kind == "name" and names.is_project(m.group(0))):
            verdict = "foreign"
        elif kind == "ours":
            verdict = "ours"
    if verdict is not None:
        return verdict
    after = _AFTER.match(text, end, end + 60)
    if after and (after.group("name") is None or names.is_project(after.group("name"))):
        return "foreign"
    return None


def under_external_root(path: str, config: Config) -> bool:
    return any(path.startswith(root) for root in config.external_roots)
