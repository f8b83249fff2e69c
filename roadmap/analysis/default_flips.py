"""Defaults flipped by a code diff: the commits that turned a flag's default from off to on, read from the code.

A commit can turn a feature on without saying "default" anywhere in its message ("Fused AdamW for every run
after the 70B soak"): its diff changes `use_fused_adam: bool = False` to `= True`, an argparse flag from
`action="store_true"` to `default=True`, `os.Getenv("X") == "1"` to `!= "0"`, a config file's `x: false` to
`x: true`. For the flags the records call opt-in, this reads the history of the files that define them (one
`git grep` at the linted revision for where they live, one path-limited `git log -p` over those files) and
keeps, per flag, the commits whose hunks near the flag turn an off value into an on value (or the reverse).

A default the records state as a value (`NAME==30`, analysis/stated_defaults.py) is read the same way: a commit
that changes the literal the setting's line gives it from that value to another ends it (a Flip that is not
`on`: the stated value is no longer the default), and one that changes it back makes it the default again.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator

from roadmap.analysis.context import LintContext
from roadmap.analysis.facts import Flip
from roadmap.history.git import GitError, popen_git, read_object, run_git
from roadmap.safefs import Declined, read_contained

_OFF = r"(?:False|false|FALSE|0|off|Off|OFF|disabled|no|No|NO|None|nil|null)"
_ON = r"(?:True|true|TRUE|1|on|On|ON|enabled|yes|Yes|YES)"
_VALUE = re.compile(rf"(?<![\w.])[\"']?(?:{_OFF}|{_ON})[\"']?(?![\w.])")
_ON_RE = re.compile(rf"^[\"']?{_ON}[\"']?$")
_OFF_RE = re.compile(rf"^[\"']?{_OFF}[\"']?$")
_DEFAULT_ON = re.compile(
    rf"\bdefault(?:_value(?:_t)?)?\s*[=:]\s*[\"']?{_ON}[\"']?(?![\w.])|BooleanOptionalAction[^\n]*default\s*=\s*True"
)
# (clap's `#[arg(long, default_value_t = false)]` over the field it sets is a default too)
_DEFAULT_OFF = re.compile(rf"\bdefault(?:_value(?:_t)?)?\s*[=:]\s*[\"']?{_OFF}[\"']?(?![\w.])|store_true")
# An environment switch read as "on only when set" turned into "on unless cleared", or the reverse.
# (`===` and `!==` are JavaScript's.)
_OPT_IN_READ = re.compile(r"==\s*[\"'](?:1|true|on|yes)[\"']|\bis\s+not\s+None\b|!==?\s*[\"']{2}")
_OPT_OUT_READ = re.compile(r"!==?\s*[\"'](?:0|false|off|no)[\"']")
MAX_FLAGS = 200
_NO_CAP = 1 << 40  # git grep reads a code file whatever its size; so does _where
HUNK_REACH = 3  # a value change counts for a flag named within this many lines of it in the hunk


# Kconfig and .conf switches: `CONFIG_X=n` / `CONFIG_X=y` (n and y are values only right after `=`).
_KCONFIG = re.compile(r"=\s*([ny])(?![\w.])")


@dataclass(frozen=True)
class _Line:
    """What `_direction` asks of one side of a pair beyond the flag's own value, read once per line: a hunk pairs
    each removed line with every added one near a flag (157,786 pairs on vllm.cpp, from a few thousand lines)."""

    opt_in_read: bool
    opt_out_read: bool
    default_on: bool
    default_off: bool


@lru_cache(maxsize=1 << 14)
def _line(text: str) -> _Line:
    return _Line(
        bool(_OPT_IN_READ.search(text)),
        bool(_OPT_OUT_READ.search(text)),
        bool(_DEFAULT_ON.search(text)),
        bool(_DEFAULT_OFF.search(text)),
    )


def _skeleton(text: str) -> str:
    """The text with its on/off values masked: the line's shape, whatever another setting on it says."""
    return " ".join(_VALUE.sub("\x00", text).split())


def _own_value(line: str, flag: str) -> tuple[str, int] | None:
    """The value written right after the flag on its line and where it starts: `enable_x = false` -> "false"; in
    `bool a = false, bool enable_x = false` the value of `enable_x` is the second one, not the first."""
    m = re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", line)  # the whole name: not `EnableAuditLog`
    if m is None:
        return None
    end = m.end()
    k = _KCONFIG.match(line, end)
    if k:
        return ("0" if k.group(1) == "n" else "1"), k.start(1)
    m = _VALUE.search(line, end)
    return (m.group(0), m.start()) if m else None


def _direction(removed: str, added: str, flag: str) -> bool | None:
    """True when the change turns the flag's default on, False when off, None when it is neither. The value
    written after the flag on its own line counts (not another setting's on that line), when the line up to it
    keeps its shape (another setting before it may change, and a comment after it); a `default=` argument counts within a few lines of
    it (a call spread over lines)."""
    same_line = flag in removed and flag in added
    a, b = (_own_value(removed, flag), _own_value(added, flag)) if same_line else (None, None)
    if a is not None and b is not None and _skeleton(removed[: a[1]]) == _skeleton(added[: b[1]]):
        if a[0] != b[0]:
            if _OFF_RE.match(a[0]) and _ON_RE.match(b[0]):
                return True
            if _ON_RE.match(a[0]) and _OFF_RE.match(b[0]):
                return False
    listed = _default_list_direction(removed, added, flag)
    if listed is not None:
        return listed
    r, ad = _line(removed), _line(added)
    if same_line and r.opt_in_read and ad.opt_out_read:
        return True
    if same_line and r.opt_out_read and ad.opt_in_read:
        return False
    if ad.default_on and not r.default_on and r.default_off:
        return True
    if ad.default_off and r.default_on and not ad.default_on:
        return False
    return _literal_direction(removed, added, flag) if same_line else None


# A list of what is on by default, given on one line under a key that says so: Cargo's `default = ["compression"]`,
# `default-features = [...]`, `DEFAULT_PLUGINS = ("a", "b")`, `enabled_by_default: [x, y]`.
_DEFAULT_LIST = re.compile(r"^\s*[\"']?[\w.-]*default[\w.-]*[\"']?\s*[:=]\s*[\[({](?P<items>[^\])}]*)[\])}]", re.I)


def _default_list_direction(removed: str, added: str, flag: str) -> bool | None:
    """True when the flag joins a line's list of defaults (`default = []` -> `default = ["compression"]`), False
    when it leaves it; the same key on both sides. None for any other pair."""
    a, b = _DEFAULT_LIST.match(removed), _DEFAULT_LIST.match(added)
    if a is None or b is None or removed[: a.start("items")].split() != added[: b.start("items")].split():
        return None
    named = re.compile(rf"(?<![\w-]){re.escape(flag)}(?![\w-])")
    was, now = named.search(a.group("items")) is not None, named.search(b.group("items")) is not None
    return True if now and not was else False if was and not now else None


# The literals a setting's line gives after its name: numbers, on/off words, quoted words (an enum's value).
_LITERAL = re.compile(rf"(?<![\w.])(?:-?\d+(?:\.\d+)?|{_OFF}|{_ON}|\"[\w.+-]*\"|'[\w.+-]*')(?![\w.])")


def _literal_direction(removed: str, added: str, flag: str) -> bool | None:
    """A default given as a choice index or an enum value is a default like a boolean: on a line of the same shape
    that names the flag, a literal after the name that went from an off value (0, false, "off", None) to another
    one turns it on (`Choice("oversampling", {"1x", "2x"}, 0)` -> `..., 1)`, `mode = "off"` -> `"fast"`), and
    the reverse turns it off. A literal going from one on value to another (a version 1 -> 2) says nothing."""
    a, b = _after_name(removed, flag), _after_name(added, flag)
    if a is None or b is None or _skeleton_of(a[0]) != _skeleton_of(b[0]):
        return None
    was, now = _LITERAL.findall(a[1]), _LITERAL.findall(b[1])
    if len(was) != len(now) or _LITERAL.sub("\x00", a[1]).split() != _LITERAL.sub("\x00", b[1]).split():
        return None
    on = any(_is_off(x) and not _is_off(y) for x, y in zip(was, now))
    off = any(not _is_off(x) and _is_off(y) for x, y in zip(was, now))
    return True if on and not off else False if off and not on else None


# A name given a value (`AuditSink: false`, `b = 0`): when the flag is such a key, the next one's value is not its.
_KEY_AFTER = re.compile(r"[\"']?\s*[:=](?![:=])")
_NEXT_KEY = re.compile(r"(?<![\w.:])[A-Za-z_]\w*\s*[:=](?![:=])")


def _after_name(line: str, flag: str) -> tuple[str, str] | None:
    """(the line before the flag's name, what follows it that describes it). A flag written as a key
    (`AuditSink: false, AuditSinkBuffered: true`) has its value up to the next key; a flag named as an argument
    (`Choice("dither", choices=[...], initial=0)`) is described by the rest of the line."""
    m = re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", line)
    if m is None:
        return None
    tail = line[m.end() :]
    key = _KEY_AFTER.match(tail)
    other = _NEXT_KEY.search(tail, key.end()) if key else None
    return line[: m.start()], tail[: other.start()] if other else tail


def _skeleton_of(text: str) -> list[str]:
    return _LITERAL.sub("\x00", text).split()


def _is_off(literal: str) -> bool:
    v = literal.strip("\"'")
    return _OFF_RE.match(v) is not None or re.fullmatch(r"-?0+(?:\.0+)?", v) is not None


def _own_literals(line: str, flag: str) -> list[tuple[str, int]]:
    """The literals a setting of many values is given right after its name, and where each starts:
    `TERN_FLAG(std::string, jit_regalloc, "linear", ...)`, `regalloc: linear`, `flag.String("regalloc", "linear"`."""
    return [
        (m.group(1), m.start(1))
        for m in re.finditer(
            rf"(?<![\w-]){re.escape(flag)}(?![\w-])[\"']?\s*[,:=]\s*(?:default\s*=\s*)?[\"']?([A-Za-z][\w.+-]*)",
            line,
        )
    ]


def _value_direction(removed: str, added: str, flag: str, value: str) -> bool | None:
    """For a setting the records opt into with one of its values (`--jit-regalloc=graph`): True when the change
    makes that value the default, False when it stops being the default, None otherwise. The line up to the
    value keeps its shape (the same setting, the same call)."""
    if flag not in removed or flag not in added:
        return _attribute_direction(removed, added, value)
    a, b = _own_literals(removed, flag), _own_literals(added, flag)
    if len(a) != len(b):
        return None
    for (was_v, was_at), (now_v, now_at) in zip(a, b):
        if was_v == now_v:
            continue
        if " ".join(removed[:was_at].split()) != " ".join(added[:now_at].split()):
            return None
        was, now = was_v.lower() == value.lower(), now_v.lower() == value.lower()
        return True if now and not was else False if was and not now else None
    return None


# The literals of a setting's definition: numbers (C's `8u`, `0.75f`, `1_000` too), quoted words, qualified names.
_CODE_LITERAL = re.compile(
    r"(?<![\w.])(?:-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?[uUlLfF]{0,3}|\"[^\"\n]{0,60}\"|'[^'\n]{0,60}'|"
    r"[A-Za-z_]\w*(?:(?:::|\.)[A-Za-z_]\w*)+)(?![\w.])"
)
_COMMENT = re.compile(r"\s(?://|#|--).*$")


def stated_direction(removed: str, added: str, flag: str, value: str) -> bool | None:
    """For a default the records state as `value`: False when the change takes the setting's line off that value
    (`SESSION_TTL_MINUTES: int = 30` -> `= 60`, `kArenaBytes = 8u << 20` -> `16u << 20`), True when it puts it
    back, None when it is neither. Both lines name the setting and keep their shape but for their literals
    (comments left out), and the literal that changed is the value on one side."""
    a, b = _definition(_COMMENT.sub("", removed), flag), _definition(_COMMENT.sub("", added), flag)
    if a is None and b is None:
        return _attribute_direction(removed, added, value)  # the setting is named on a line near these
    if a is None or b is None or " ".join(a[0].split()) != " ".join(b[0].split()):
        return None
    was, now = _CODE_LITERAL.findall(a[1]), _CODE_LITERAL.findall(b[1])
    if len(was) != len(now) or _CODE_LITERAL.sub("\x00", a[1]).split() != _CODE_LITERAL.sub("\x00", b[1]).split():
        return None
    changed = [(x, y) for x, y in zip(was, now) if x != y]
    if not changed:
        return None
    if any(_same_value(x, value) and not _same_value(y, value) for x, y in changed):
        return False
    if any(_same_value(y, value) and not _same_value(x, value) for x, y in changed):
        return True
    return None


# The next setting of a line that lists several: `timeout: 30, retries: 3`, `{"a": 1, "b": 2}`.
_NEXT_SETTING = re.compile(r",\s*[\"']?[A-Za-z_][\w-]*[\"']?\s*[:=](?![:=])")


def _definition(line: str, flag: str) -> tuple[str, str] | None:
    """(the line before the setting's name, what follows it up to the next setting the line lists): a type
    between the name and its value stays (`SESSION_TTL_MINUTES: int = 30`)."""
    m = re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", line)
    if m is None:
        return None
    tail = line[m.end() :]
    other = _NEXT_SETTING.search(tail)
    return line[: m.start()], tail[: other.start()] if other else tail


def _same_value(literal: str, value: str) -> bool:
    """Is a code literal the stated value? `30`, `30.0`, `30u`, `"30"` are 30; `Priority::Distance` is `Distance`."""
    lit = literal.strip("\"'")
    if re.fullmatch(r"-?\d+(?:\.\d+)?", value):
        num = re.sub(r"[uUlLfF]+$", "", lit.replace("_", ""))
        try:
            return float(num) == float(value)
        except ValueError:
            return False
    return lit == value or lit.rsplit(".", 1)[-1].rsplit("::", 1)[-1] == value.rsplit("::", 1)[-1].rsplit(".", 1)[-1]


# A default given in an attribute or decorator beside the setting rather than on its line: clap's
# `#[arg(long, default_value_t = Format::Table)]` over `pub format: Format`, serde's `#[serde(default = "x")]`,
# click's `@click.option(..., default="table")` (the caller keeps the pair near a line naming the setting).
_DEFAULT_ARG = re.compile(r"\bdefault(?:_value(?:_t)?)?\s*=\s*[\"']?([A-Za-z_][\w:.]*|-?\d+(?:\.\d+)?)[\"']?")


def _attribute_direction(removed: str, added: str, value: str) -> bool | None:
    """For a pair of lines that give a default by an attribute (the setting named on a line near them): True when
    the change makes `value` the default, False when `value` stops being it (`Format::Table` is `table`)."""
    a, b = _DEFAULT_ARG.search(removed), _DEFAULT_ARG.search(added)
    if a is None or b is None or _DEFAULT_ARG.sub("", removed).split() != _DEFAULT_ARG.sub("", added).split():
        return None

    def last(v: str) -> str:
        return re.split(r"::|\.", v)[-1].lower() if not v[:1].isdigit() and v[:1] != "-" else v

    was, now = last(a.group(1)) == value.lower(), last(b.group(1)) == value.lower()
    return True if now and not was else False if was and not now else None


def flag_finder(flags: list[str]) -> re.Pattern[str]:
    """A regex whose findall is `git grep -F -o`'s list of matches: leftmost first, the longest flag there, on from
    its end. A trie (shared prefixes, longer continuations tried first) rather than 200 alternatives: at each
    place one short walk instead of 200 attempts (2.8 s of vllm.cpp's diff scan)."""
    trie: dict[str, Any] = {}
    for f in flags:
        node = trie
        for ch in f:
            node = node.setdefault(ch, {})
        node[""] = True

    def emit(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + emit(node[ch]) for ch in sorted(k for k in node if k)]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return "(?:" + body + ")?" if "" in node else body

    return re.compile(emit(trie) if trie else "(?!)")


def _where(ctx: LintContext, flags: list[str]) -> dict[str, set[str]]:
    """file -> the flags it names, at the linted revision (code files only; records are not code).

    What `git grep -F -I -o` reports, without `-o`: printing every match of 200 patterns took git 17-20 s on
    vllm.cpp, listing the files that have one (`-l`) 0.5 s. Each listed file is then read once and scanned the
    way `-o` scans a line: leftmost match first, the longest flag at that place, then on from its end."""
    args = ["grep", "-l", "-z", "-F", "-I", "--no-color"]
    for f in flags:
        args += ["-e", f]
    rev = ctx.tree.rev or None
    try:
        out = run_git(ctx.root, *args, *([rev] if rev else []), "--", ".", check=False)
    except GitError:
        return {}
    finder = flag_finder(flags)
    prefix = f"{rev}:" if rev else ""
    files: dict[str, set[str]] = {}
    for name in out.decode("utf-8", "surrogateescape").split("\0"):
        path = name[len(prefix) :] if prefix and name.startswith(prefix) else name
        if not path or path.endswith((".md", ".markdown", ".rst")):
            continue
        data = _grepped(ctx, rev, path)
        hits = set(finder.findall(data.decode("utf-8", "surrogateescape"))) if data else set()
        if hits:
            files[path] = hits
    return files


def _grepped(ctx: LintContext, rev: str | None, path: str) -> bytes | None:
    """The bytes git grep searched for `path`: the blob at `rev`; in the working tree the file itself, or the
    index's blob for an entry a sparse checkout leaves out (git grep reads that one from the index)."""
    if rev is not None:
        got = read_object(ctx.root, f"{rev}:{path}")
        return got[1] if got is not None and got[0] == "blob" else None
    try:
        return read_contained(ctx.root, path, _NO_CAP)
    except Declined:
        return None
    except OSError:
        got = read_object(ctx.root, f":{path}")
        return got[1] if got is not None and got[0] == "blob" else None


def spellings(flag: str) -> set[str]:
    """How code may spell the switch a record names: as written, a `--flag` or Go's `-flag` without its dashes (Go's
    `flag.Bool("enable-failover", ...)`, Python's `enable_failover`), a dotted config key by its last part
    (`wal.group_commit` -> `group_commit`), a snake_case setting in CamelCase (`require_mtls` -> `RequireMTLS`,
    `RequireMtls`, `requireMTLS`, `requireMtls`)."""
    out = {flag}
    base = flag
    if flag.startswith("--"):
        base = flag[2:]
        out |= {base, base.replace("-", "_")}
    elif re.match(r"-[A-Z][a-z]", flag):  # a compiler's option family: rustc's -Zincremental-igraph
        base = flag[2:]
        out |= {base, base.replace("-", "_")}
    elif re.match(r"-[a-z]", flag):  # Go's one-dash flags: `-http2` is `flag.Bool("http2", ...)`
        base = flag[1:]
        out |= {base, base.replace("-", "_")}
    elif "." in flag or "::" in flag:  # a config key or a member by its last part: `Desc::priority` -> `priority`
        base = re.split(r"\.|::", flag)[-1]
        out.add(base)
    parts = [p for p in re.split(r"[_-]", base) if p]
    if len(parts) >= 2 and all(p.isalnum() for p in parts) and base == base.lower():
        title = [p.capitalize() for p in parts]
        caps = [p.upper() if len(p) <= 4 else p.capitalize() for p in parts]
        for words in (title, caps):
            out.add("".join(words))
            out.add(words[0].lower() + "".join(words[1:]))
        # the constant holding its default: INCREMENTAL_IGRAPH_DEFAULT, DEFAULT_INCREMENTAL_IGRAPH
        upper = "_".join(p.upper() for p in parts)
        out |= {f"{upper}_DEFAULT", f"DEFAULT_{upper}"}
    return {s for s in out if len(s) >= 4}


def default_flips(ctx: LintContext, flags: set[str]) -> dict[str, list[Flip]]:
    """flag -> the commits (oldest first) whose diff turned its default on or off, for flags the code names (in
    any of its `spellings`)."""
    key = frozenset(flags)
    cached = ctx.facts.default_flips.get(key)
    if cached is not None:
        return cached
    found: dict[str, list[Flip]] = {f: [] for f in flags}
    of: dict[str, set[str]] = {}  # a spelling -> the record flags it spells
    for f in sorted(flags)[:MAX_FLAGS]:
        for sp in spellings(f.partition("=")[0]):  # `--jit-regalloc=graph`: the value the records opt in with
            of.setdefault(sp, set()).add(f)
    wanted = sorted(of)
    files = _where(ctx, wanted) if wanted else {}
    files = _without_common_stated(files, of)
    if files:
        _scan(_log_chunks(ctx, sorted(files)), flag_finder(wanted), found, of)
    ctx.facts.default_flips[key] = found
    return found


MAX_STATED_FILES = 12  # a setting is defined in a few files; a name in more is a concept the code passes around


def _without_common_stated(files: dict[str, set[str]], of: dict[str, set[str]]) -> dict[str, set[str]]:
    """`files` less what only stated-value claims (`NAME==VALUE`, analysis/stated_defaults.py) whose name is in
    more than MAX_STATED_FILES files brought in: such a name ("text_config", "kv_role") is read everywhere, and
    following it meant a `git log -p` over most of the tree for one value."""
    count: dict[str, int] = {}
    for names in files.values():
        for sp in names:
            count[sp] = count.get(sp, 0) + 1
    common = {sp for sp, n in count.items() if n > MAX_STATED_FILES and all("==" in f for f in of.get(sp, ()))}
    if not common:
        return files
    kept = {path: names - common for path, names in files.items()}
    return {path: names for path, names in kept.items() if names}


def _log_chunks(ctx: LintContext, files: list[str]) -> Iterator[str]:
    """Each commit's part of the path-limited `git log -p` (its sha line, then its patch), read as git writes
    it: holding the whole log, decoded and split, was most of a vllm.cpp run's peak memory (530 MiB)."""
    head = ctx.head or "HEAD"
    try:
        proc = popen_git(
            ctx.root,
            "log",
            "-p",
            "-U3",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--diff-merges=first-parent",
            "--reverse",
            "--format=%x00%H",
            "--end-of-options",
            head,
            "--",
            *files,
        )
    except (GitError, OSError):
        return
    assert proc.stdout is not None
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pieces: list[str] = []
    seen = 0  # NULs read: what precedes the first one is no commit's
    try:
        while True:
            block = proc.stdout.read(1 << 16)
            parts = decoder.decode(block, final=not block).split("\0")
            for part in parts[:-1]:
                pieces.append(part)
                if seen:
                    yield "".join(pieces)
                seen += 1
                pieces = []
            pieces.append(parts[-1])
            if not block:
                break
        if seen:
            yield "".join(pieces)
    finally:
        proc.kill()
        proc.wait()


def _scan(
    chunks: Iterable[str], finder: re.Pattern[str], found: dict[str, list[Flip]], of: dict[str, set[str]]
) -> None:
    """Read the log oldest first; a flip of a spelling counts for every record flag it spells (`of`)."""
    for chunk in chunks:
        if finder.search(chunk) is None:
            continue  # a patch that names no flag has no hunk that does: not split into lines (most commits)
        sha, _, patch = chunk.partition("\n")
        sha = sha.strip()
        path = ""
        hunk: list[str] = []
        changes = 0  # 1: the hunk removes a line, 2: it adds one
        for line in patch.split("\n") + ["@@"]:
            if line.startswith("+++ "):
                path = line[6:] if line.startswith("+++ b/") else ""
            elif line.startswith("@@") or line.startswith("diff --git"):
                # a pure addition or deletion flips nothing (_hunk): a new file is not searched for flags
                if hunk and path and changes == 3:
                    named = set(finder.findall("\n".join(hunk)))
                    if named:
                        _hunk(sha, path, hunk, sorted(named), found, of)
                hunk = []
                changes = 0
            elif line[:1] in " +-" and not line.startswith(("--- ", "+++ ")):
                hunk.append(line)
                changes |= 1 if line[:1] == "-" else 2 if line[:1] == "+" else 0


def _hunk(
    sha: str, path: str, hunk: list[str], named: list[str], found: dict[str, list[Flip]], of: dict[str, set[str]]
) -> None:
    """`named`: the flags the hunk mentions."""
    if not any(h[:1] == "-" for h in hunk) or not any(h[:1] == "+" for h in hunk):
        return  # a pure addition or deletion flips nothing
    flags = named
    removed = [(i, _continued(hunk, i, "+")) for i, h in enumerate(hunk) if h.startswith("-")]
    added = [(i, _continued(hunk, i, "-")) for i, h in enumerate(hunk) if h.startswith("+")]
    for flag in named:
        near = {i for i, h in enumerate(hunk) if flag in h}
        # lines naming another switch (not another spelling of this one) are that switch's
        others = {i for f in flags if not of[f] & of[flag] for i, h in enumerate(hunk) if f in h}
        close = {i for n in near for i in range(n - HUNK_REACH, n + HUNK_REACH + 1)} - others
        switches = sorted(o for o in of[flag] if "=" not in o)  # on/off
        valued = sorted(o for o in of[flag] if "=" in o and "==" not in o)  # opted into with one of its values
        stated = sorted(o for o in of[flag] if "==" in o)  # its default stated as a value
        for ri, r in removed:
            for ai, a in added:
                if ri not in close and ai not in close:
                    continue
                if _elsewhere(hunk, ri, r, flag) or _elsewhere(hunk, ai, a, flag):
                    continue
                direction = _direction(r, a, flag) if switches else None
                if direction is not None:
                    _add(found, switches, Flip(sha, path, r.strip(), a.strip(), direction))
                    break
        for orig in valued + stated:
            value = orig.partition("=")[2].lstrip("=")
            for ri, r in removed:
                for ai, a in added:
                    if ri not in close and ai not in close:
                        continue
                    if orig in stated:
                        direction = stated_direction(r, a, flag, value)
                    else:
                        direction = _value_direction(r, a, flag, value)
                    if direction is not None:
                        _add(found, [orig], Flip(sha, path, r.strip(), a.strip(), direction))
                        break


# An option a line declares (`"--tls-legacy"`, `'-pprof'`), and an attribute over the field it sets (clap's
# `#[arg(long, default_value_t = false)]`).
_OPTION = re.compile(r"[\"']-{1,2}[A-Za-z][\w-]*[\"']")
_ATTRIBUTE = re.compile(r"^\s*#!?\[")


def _elsewhere(hunk: list[str], i: int, line: str, flag: str) -> bool:
    """Is a changed line that does not name the flag another setting's: a line declaring another option
    (`p.add_argument("--tls-legacy", default=False)` beside `--compress`), or an attribute over a field that is not
    the flag (`#[arg(default_value_t = true)]` over `watch: bool`, near `color: bool`)?"""
    if flag in line:
        return False
    if _OPTION.search(line):
        return True
    if _ATTRIBUTE.match(line):
        side = hunk[i][:1]
        for h in hunk[i + 1 :]:
            if h[:1] not in (" ", side) or _ATTRIBUTE.match(h[1:]) or not h[1:].strip():
                continue
            return flag not in h
    return False


def _continued(hunk: list[str], i: int, other: str) -> str:
    """Line `i` of the hunk without its mark; when it continues an assignment the line before it opens on its side
    of the change (`export const ENABLE_X =` then `  process.env.X === "1";`), that line and this one as one."""
    text = hunk[i][1:]
    j = i - 1
    while j >= 0 and hunk[j][:1] == other:
        j -= 1  # a line of the other side of the change is not on this side
    if j >= 0:
        before = hunk[j][1:].rstrip()
        if before.endswith(("=", ":=")) and not before.endswith(("==", "!=", "<=", ">=")):
            return f"{before} {text.strip()}"
    return text


def _add(found: dict[str, list[Flip]], origs: list[str], flip: Flip) -> None:
    for orig in origs:
        if flip not in found[orig]:
            found[orig].append(flip)
