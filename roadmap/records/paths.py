"""Path references in record text: `path:10-20`, `path#L10-L20`, `[t](path#L10)`, `path::Symbol`, bare `dir/file.py`.

Text references are repo-relative as written; markdown link targets are relative to the record file (markdown's
own rule), so they are resolved against the record's directory.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left
from itertools import islice
from typing import Iterator
from urllib.parse import unquote

from roadmap.records.model import PathRef

# Extensions a bare name without a slash must carry to be read as a file (a slash path needs any extension).
_EXTS = (
    "md|mdx|rst|txt|py|pyi|ipynb|cpp|cc|cxx|c|h|hpp|hh|cu|cuh|rs|go|java|kt|ts|tsx|js|jsx|json|jsonl|yaml|yml|"
    "toml|sh|bash|cfg|ini|csv|tsv|html|css|cmake|proto|sql|lock|safetensors|gguf|png|svg|pdf|jpg|log|ptx|mlir"
)
_DIR_ROOTS = {
    "src",
    "docs",
    "tests",
    "test",
    "engine",
    "roadmap",
    "agents",
    "tools",
    "include",
    "lib",
    "scripts",
    "specs",
    "bench",
    "benchmarks",
    "csrc",
    "vllm",
    "configs",
    "examples",
    "python",
    "kernels",
}
# A path segment never ends with a dot: `See src/x.py.` names src/x.py (the dot ends the sentence).
_SEG = r"[\w@+-](?:[\w.@+-]*[\w@+-])?"
PATH_RE = re.compile(
    rf"(?<![\w/.:@#-])(?P<path>(?:\.{{1,2}}/)*(?:\.?{_SEG}/)+(?:{_SEG})?|{_SEG}\.(?:{_EXTS}))"
    r"(?P<loc>:L?(?P<l1>\d+)(?:[-–]L?(?P<l2>\d+))?|#L(?P<h1>\d+)(?:[-–]L?(?P<h2>\d+))?"
    r"|::(?P<sym>[A-Za-z_]\w*(?:(?:::|\.)[A-Za-z_]\w*)*)(?:\(\))?)?(?![\w/])"
)
_DOT_EXT = re.compile(rf"\.(?:{_EXTS})(?![\w])")
# What every PATH_RE match contains: a slash, or a dot and a known extension. Led by a literal character, so `re`
# skips to candidates in C; PATH_RE itself opens with a lookbehind and is tried at every position of the text.
_PATH_MARK = re.compile(rf"/|\.(?:{_EXTS})(?![\w])")
_HAS_EXT = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,9}$")
_DOMAIN = re.compile(r"^(?:www\.)?[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|dev|ai|co|edu|gov|app|hf)$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_FRAGMENT = re.compile(r"^L(\d+)(?:-L?(\d+))?$")
# A code-looking symbol right before a reference: `Cls::method()`, snake_case, CamelCase, dotted.
_IDENT = re.compile(r"[A-Za-z_]\w*(?:(?:::|\.)[A-Za-z_]\w*)*")
_ASCII_LETTER = re.compile(r"[A-Za-z]")  # what str.isalpha() accepts in ASCII text, found in C
# Used with .match(text, pos): no `^`, which would only ever match at the start of the whole text.
# After the reference, in parentheses or not, a symbol in a code span, maybe after the word saying what kind of thing
# it is: `rds.tf:11-15` (variable `replica_count`), `app.py:40` (function `load`), `x.yaml:3` (key `minAvailable`).
_SYM_AFTER = re.compile(
    r"\s*[(\[]?\s*(?:(?:variable|var|const|constant|function|func|method|class|struct|enum|type|resource|module|"
    r"output|field|key|setting|option|flag|macro|target|rule|job|section|table|column)\s+)?"
    r"(?:`)?([A-Za-z_][\w]*(?:(?:::|\.)[A-Za-z_]\w*)*)(?:\(\))?"
)


def _looks_like_file(path: str) -> bool:
    if not (_ASCII_LETTER.search(path) if path.isascii() else any(c.isalpha() for c in path)):
        return False
    first = path.lstrip("./").split("/", 1)[0]
    if _DOMAIN.match(first):
        return False
    if path.endswith("/"):
        return len(path) > 2
    if "/" not in path:
        return True  # a bare name only matched with a known extension
    return bool(_HAS_EXT.search(path)) or first in _DIR_ROOTS or path.startswith((".agents/", "./", "../"))


def _codeish(sym: str, in_code: bool) -> bool:
    """A code symbol, not a word: `Cls::run`, `snake_case`, `a.b`, `camelCase`/`PascalCase` anywhere; in a code
    span also a plain identifier of three letters or more. `API`, `PUBLIC` and `P` in prose are words."""
    if "::" in sym or "_" in sym or "." in sym:
        return True
    camel = any(c.islower() for c in sym) and any(c.isupper() for c in sym[1:])
    return camel or (in_code and len(sym) >= 3 and not sym.isupper())


def _clean(path: str) -> str:
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip("/") or path


def find_paths(
    text: str, code: list[tuple[int, int, str]], skip: list[tuple[int, int]]
) -> tuple[list[PathRef], list[tuple[int, int]]]:
    """Path refs written in `text` (not inside `skip` spans, e.g. link texts) and the spans they cover."""
    refs: list[PathRef] = []
    spans: list[tuple[int, int]] = []
    for m in _path_matches(text):
        path = m.group("path")
        if not _looks_like_file(path) or (skip and any(s <= m.start() < e for s, e in skip)):
            continue
        line = m.group("l1") or m.group("h1")
        end = m.group("l2") or m.group("h2")
        form = "colon" if m.group("l1") else "hash" if m.group("h1") else "symbol" if m.group("sym") else "bare"
        symbol = m.group("sym")
        if line and symbol is None:
            symbol = _symbol_beside(text, m.start(), m.end(), code)
        refs.append(
            PathRef(
                path=_clean(path),
                line=int(line) if line else None,
                end_line=int(end) if end else (int(line) if line else None),
                symbol=symbol,
                text=m.group(0),
                form=form,
            )
        )
        spans.append((m.start(), m.end()))
    return refs, spans


def _path_matches(text: str) -> Iterator[re.Match[str]]:
    """PATH_RE.finditer(text), run only over the space-delimited words that hold a slash or a `.ext`.

    A match holds no space and always a _PATH_MARK, so it lies inside one such word; cutting the search at the
    word's closing space changes nothing (PATH_RE's lookahead rejects neither a space nor the end), and its
    lookbehind still sees the character before the word. Same matches, in the same order."""
    pos, n = 0, len(text)
    while pos < n:
        mark = _PATH_MARK.search(text, pos)
        if mark is None:
            return
        space = text.rfind(" ", pos, mark.start())
        start = space + 1 if space >= 0 else pos
        end = text.find(" ", mark.end())
        if end < 0:
            end = n
        yield from PATH_RE.finditer(text, start, end)
        pos = end + 1


def _symbol_beside(text: str, start: int, end: int, code: list[tuple[int, int, str]]) -> str | None:
    """The code symbol written right before (`sym` (path:1)) or right after (`path:1` `sym`) a reference; a
    symbol in a code span wins over a word of prose."""
    before, before_in_code = _symbol_before(text, start, code)
    if before and before_in_code:
        return before
    after = _symbol_after(text, end, code)
    return after or before


def _symbol_before(text: str, start: int, code: list[tuple[int, int, str]]) -> tuple[str | None, bool]:
    # Walk back over "(", "in"/"at"/"@" and spaces, then take the identifier that ends there (no regex backtracking):
    # `password_ref` @ config/app.yaml:14 is terse notes' "at".
    before = text[max(0, start - 120) : start].rstrip().rstrip("([").rstrip()
    if before.endswith(" @"):
        before = before[:-2].rstrip()
    for word in (" in", " at"):
        if before.endswith(word):
            before = before[: -len(word)].rstrip()
    if before.endswith("()"):
        before = before[:-2]
    i = len(before)
    while i > 0 and (before[i - 1].isalnum() or before[i - 1] in "_:."):
        i -= 1
    sym = before[i:].strip(":.")
    if i > 0 and before[i - 1] in "-/$%…":
        return None, False  # `-tp`, `--flag`, `a/b`, `702f4814…c276`: the tail of something else, not a symbol
    if sym and (sym[0].isalpha() or sym[0] == "_") and _IDENT.fullmatch(sym) and _named(sym):
        abs_start = max(0, start - 120) + i
        abs_end = abs_start + len(sym)
        in_code = any(s <= abs_start and abs_end <= e for s, e, _ in code)
        if not in_code and any(s <= abs_start < e for s, e, _ in code):
            return None, False  # `static_assert`s: a code span with a word's ending glued on
        if _codeish(sym, in_code):
            return sym, in_code
    return None, False


def _symbol_after(text: str, end: int, code: list[tuple[int, int, str]]) -> str | None:
    """`path:1` `sym`, `path:1` (`Cls::sym()`), `path:1` `class Sym`: a whole code span naming one symbol."""
    after = _SYM_AFTER.match(text, end, min(len(text), end + 120))
    if not after:
        return None
    span = next(((s, e, c) for s, e, c in code if s <= after.start(1) < e), None)
    if span is None:
        return None
    content = _DECL.sub("", span[2].strip())
    content = re.sub(r"\(.*\)$", "", content).strip()
    if _IDENT.fullmatch(content) and _named(content) and _codeish(content, True):
        return content
    return None


# `class Platform`, `fn shift`: the declaration keyword is not the symbol.
_DECL = re.compile(
    r"^(?:(?:pub(?:\(crate\))?|static|inline|virtual|const|async|export)\s+)*"
    r"(?:class|struct|enum|union|fn|def|func|function|type|trait|impl|interface|namespace|macro)\s+"
)
# Literals and keywords are not symbols one can find again: `false` (cuda.cpp:37).
_NOT_NAMES = frozenset(
    """true false null nullptr none None True False NULL self this return static const void int
auto bool char float double class struct enum def fn if else for while typeid sizeof decltype alignof new delete
operator template typename""".split()
)


def _named(sym: str) -> bool:
    """A name, not a keyword, a literal or a hex fragment (`c276` of an elided digest)."""
    last = re.split(r"::|\.", sym)[-1]
    return last not in _NOT_NAMES and re.fullmatch(r"[0-9a-f]*\d[0-9a-f]*", last) is None


def link_symbol(text: str, start: int, end: int, code: list[tuple[int, int, str]]) -> str | None:
    """The symbol of a line link: its text, when that is one code span naming a symbol
    (`[`admit_waiting`](src/a.rs#L39)`).
    Not a symbol beside it: cells of links (`[ops.h:518](...), [ops.cpp:1466](...)`) sit between other names."""
    inner = []
    for s, e, c in islice(code, bisect_left(code, (start,)), None):  # code spans are in text order
        if s > end:
            break
        if e <= end:
            inner.append(c)
    if len(inner) != 1:
        return None  # plain link text (`[the loop](a.rs#L5)`, `[dtype.cpp](dtype.cpp#L32)`) names no symbol
    label = re.sub(r"\(.*\)$", "", _DECL.sub("", inner[0].strip())).strip()
    if _DOT_EXT.search(label):
        return None  # a file name in code (`dtype.cpp`), not a symbol in it
    if _IDENT.fullmatch(label) and _named(label) and _codeish(label, True):
        return label
    return None


def link_ref(href: str, link_text: str, record_path: str) -> PathRef | None:
    """A PathRef for a markdown link target that is a repository file, else None (URLs, anchors, mail)."""
    href = href.strip()
    if not href or href.startswith("#") or _SCHEME.match(href) or href.startswith("//"):
        return None
    target, _, frag = href.partition("#")
    target = unquote(target.split("?", 1)[0])
    if not target:
        return None
    if target.startswith("/"):
        path = target.lstrip("/")
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(record_path), target))
    fm = _FRAGMENT.match(frag)
    line = int(fm.group(1)) if fm else None
    end = int(fm.group(2)) if fm and fm.group(2) else line
    return PathRef(path=_clean(path), line=line, end_line=end, symbol=None, text=f"[{link_text}]({href})", form="link")
