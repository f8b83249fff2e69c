"""Configuration: `[tool.roadmap]` in pyproject.toml or a `roadmap.yaml`, validated key by key.

Every default works without any config on this repo's layout (`agents/*.md`, `docs/bench-evidence/`) and on a
`.agents/` layout like the seed's (`.agents/specs/roadmap-*.md`, `.agents/coordination.md`, `.agents/claims/*.md`).
"""
from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Callable

import yaml

from roadmap.findings import SEVERITIES
from roadmap.safefs import DEFAULT_MAX_BYTES, Declined, read_contained, read_file

# An id: letter-initial upper-case parts joined by hyphens, at least one later part holding a letter, so
# ROAD-V1-C2-LOCAL-BF16 and RM-RECORDS match while UTF-8, HTTP-429 and BF16 do not. Whole-token.
DEFAULT_ID_PATTERN = r"(?=[A-Z0-9-]*-[0-9]*[A-Z])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+"
DEFAULT_CLAIM_PATTERN = r"CLAIM-[A-Z0-9]+(?:-[A-Z0-9]+)*"
MAX_CONFIG_BYTES = 1 << 20   # a config file past this is not read (a pyproject.toml is a few KiB)
FAIL_ON = (*SEVERITIES, "never")   # the lowest severity that fails a run (roadmap/exits.py); never: none does
NAMINGS = ("any", "date-first", "date-last")
# What a record file is (roadmap/records/structure.py): `current` is read as it stands; `log` is a dated, append-only
# record of what happened; `closed` a spec or plan of finished work; `template` an example to copy from; `process`
# says how to work (its imperatives are instructions, never work that lands).
KINDS = ("current", "log", "closed", "template", "process")
EVIDENCE_KINDS = ("any", "dir", "file")


class ConfigError(Exception):
    """A config mistake; the message names the file, the key and the fix."""


@dataclass(frozen=True)
class DirectiveConfig:
    columns: tuple[str, ...] = ("Remaining", "Remaining to close the row", "Next", "Next actions",
                                "next-actions", "Next steps", "TODO", "To do")
    sections: tuple[str, ...] = ("Punch-list", "Punch list", "Next steps", "Next actions", "TODO", "To do")
    # Matched case-sensitively as whole words; "Must" therefore only fires where a sentence starts with it.
    phrases: tuple[str, ...] = ("Next owner must", "next owner must", "Next owner should", "Next:", "Next step:",
                                "TODO", "FIXME", "Must")
    verbs: tuple[str, ...] = (
        "add", "audit", "benchmark", "bench", "build", "capture", "clean", "close", "compare", "create",
        "delete", "document", "drop", "enable", "disable", "ensure", "evaluate", "extend", "finish", "fix",
        "flip", "implement", "integrate", "investigate", "land", "make", "measure", "merge", "migrate", "move",
        "port", "profile", "publish", "re-bench", "rebench", "reconcile", "re-measure", "remeasure", "remove",
        "rename", "replace", "re-run", "rerun", "retire", "revert", "run", "ship", "split", "switch", "tune",
        "update", "verify", "wire", "write",
    )


@dataclass(frozen=True)
class EvidenceConfig:
    root: str = "docs/bench-evidence"
    naming: str = "any"        # "date-first" (20260727-slug), "date-last" (slug-20260727) or "any"
    kinds: str = "any"         # "dir", "file" or "any"


@dataclass(frozen=True)
class HistoryConfig:
    branch: str = "HEAD"
    include: tuple[str, ...] = ()   # git pathspecs; empty = whole repository
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    records: tuple[str, ...] = ("agents/**/*.md", ".agents/**/*.md", ".agent/**/*.md")
    exclude: tuple[str, ...] = ()
    id_patterns: tuple[str, ...] = (DEFAULT_ID_PATTERN,)
    claim_patterns: tuple[str, ...] = (DEFAULT_CLAIM_PATTERN,)
    # State words, upper case, spaces as hyphens ("in progress" is IN-PROGRESS); the words teams use most.
    states: tuple[str, ...] = (
        "PLANNED", "OPEN", "ACTIVE", "IN-PROGRESS", "GATING", "BLOCKED", "DONE", "CLOSED", "LANDED", "SUPERSEDED",
        "DROPPED", "TODO", "TO-DO", "BACKLOG", "NOT-STARTED", "READY", "PROPOSED", "DRAFT", "QUEUED", "PENDING",
        "NEW", "WIP", "DOING", "STARTED", "ONGOING", "IN-REVIEW", "REVIEW", "PARTIAL", "SPIKE", "CLAIMED", "PARKED",
        "PAUSED", "ON-HOLD", "DEFERRED", "WAITING", "COMPLETE", "COMPLETED", "FINISHED", "SHIPPED", "MERGED",
        "RELEASED", "FIXED", "RESOLVED", "PORTED", "CANCELLED", "CANCELED", "ABANDONED", "WONTFIX", "REJECTED",
        "OBSOLETE", "RETIRED", "ARCHIVED")
    closed_states: tuple[str, ...] = (
        "DONE", "CLOSED", "LANDED", "SUPERSEDED", "DROPPED", "COMPLETE", "COMPLETED", "FINISHED", "SHIPPED", "MERGED",
        "RELEASED", "FIXED", "RESOLVED", "PORTED", "CANCELLED", "CANCELED", "ABANDONED", "WONTFIX", "REJECTED",
        "OBSOLETE", "RETIRED", "ARCHIVED")
    # Files whose state column is authoritative for a row (globs, case-insensitive); other files must agree.
    canonical_states: tuple[str, ...] = ("agents/**/roadmap*.md", ".agents/**/roadmap*.md", ".agent/**/roadmap*.md",
                                         "agents/**/*development_matrix*.md", ".agents/**/*development_matrix*.md",
                                         ".agent/**/*development_matrix*.md")
    # Record files whose kind the structure does not show (globs -> a KINDS value): `{".agents/state.md" = "log"}`.
    kinds: tuple[tuple[str, str], ...] = ()
    state_columns: tuple[str, ...] = ("State", "Status", "Lifecycle")
    id_columns: tuple[str, ...] = ("ID", "Id", "Row", "Row ID", "Key", "Claim", "Claim ID", "Item")
    directives: DirectiveConfig = field(default_factory=DirectiveConfig)
    evidence: EvidenceConfig = field(default_factory=EvidenceConfig)
    history: HistoryConfig = field(default_factory=HistoryConfig)
    claims_ttl_days: int = 14
    fail_on: str = "error"
    # Other projects the records cite (name -> where its checkout lives, or "unresolved"): references into them are
    # never checked against this tree (roadmap/analysis/ownership.py). Read from a table: `external: {vllm: ../vllm}`.
    external: tuple[tuple[str, str], ...] = ()
    # no file larger than this is read (records, sources, evidence); roadmap/safefs.py
    max_file_bytes: int = DEFAULT_MAX_BYTES
    source: str = "defaults"   # where this config came from (a path, or "defaults"); not a config key

    @cached_property
    def id_re(self) -> re.Pattern[str]:
        if self.id_patterns == (DEFAULT_ID_PATTERN,):
            return _DEFAULT_ID_RE
        return _whole_token(self.id_patterns)

    @cached_property
    def claim_re(self) -> re.Pattern[str]:
        if self.claim_patterns == (DEFAULT_CLAIM_PATTERN,):
            return _DEFAULT_CLAIM_RE
        return _whole_token(self.claim_patterns)

    @cached_property
    def hyphenated_ids(self) -> bool:
        """True when the id and claim patterns are the defaults, which only match tokens with an "X-Y" in them."""
        return self.id_patterns == (DEFAULT_ID_PATTERN,) and self.claim_patterns == (DEFAULT_CLAIM_PATTERN,)

    @cached_property
    def external_names(self) -> frozenset[str]:
        """The configured other projects' names, lower-case (`vLLM` and `vllm` are one name)."""
        return frozenset(name.lower() for name, _ in self.external)

    @cached_property
    def external_roots(self) -> tuple[str, ...]:
        """Repo-relative directories holding another project's files (a vendored checkout), slash-terminated."""
        out = []
        for _, root in self.external:
            r = root.replace("\\", "/").strip()
            while r.startswith("./"):
                r = r[2:]
            if r and r != "unresolved" and not r.startswith(("/", "~", "../")) and "://" not in r:
                out.append(r.rstrip("/") + "/")
        return tuple(out)

    @cached_property
    def state_set(self) -> frozenset[str]:
        return frozenset(s.upper() for s in self.states)

    def is_canonical(self, path: str) -> bool:
        """Is `path` a canonical-state file? Case-insensitive: ROADMAP.md and roadmap.md are the same record."""
        return _canonical(self.canonical_states, path)

    def kind_of(self, path: str) -> str | None:
        """The kind `kinds` gives `path` (the first glob that matches), else None: the structure decides."""
        return next((kind for glob, kind in self.kinds if glob_match(glob, path)), None)

    @cached_property
    def closed_state_set(self) -> frozenset[str]:
        return frozenset(s.upper() for s in self.closed_states)


def _whole_token(patterns: tuple[str, ...]) -> re.Pattern[str]:
    body = "|".join(f"(?:{p})" for p in patterns) or r"(?!x)x"
    return re.compile(rf"(?<![\w.-])(?:{body})(?![\w-])")


# The default patterns, whole-token, with the boundary check placed after the first character: same matches
# as _whole_token(), but `re` can then skip to candidate letters in C instead of trying every position.
_DEFAULT_ID_RE = re.compile(r"[A-Z](?<![\w.-][A-Z])(?=[A-Z0-9-]*-[0-9]*[A-Z])[A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w-])")
_DEFAULT_CLAIM_RE = re.compile(r"C(?<![\w.-]C)LAIM-[A-Z0-9]+(?:-[A-Z0-9]+)*(?![\w-])")

_NESTED = {"directives": DirectiveConfig, "evidence": EvidenceConfig, "history": HistoryConfig}
_CHOICES = {"fail_on": FAIL_ON, "evidence.naming": NAMINGS, "evidence.kinds": EVIDENCE_KINDS}
_REGEX_KEYS = {"id_patterns", "claim_patterns"}
_MAPPINGS = {"kinds": KINDS}   # tables of glob -> one of the choices


def load_config(root: Path, config_file: Path | None = None) -> Config:
    """The config for the repository at `root`: `config_file`, else `roadmap.yaml`/`.yml`, else pyproject.toml."""
    root = Path(root)
    if config_file is not None:
        path = Path(config_file)
        if not path.is_absolute() and not path.exists():
            path = root / path
        if not path.is_file():
            raise ConfigError(f"{config_file}: config file not found; pass an existing file to --config")
        return _from_file(path, lambda: read_file(path, MAX_CONFIG_BYTES))
    for name in ("roadmap.yaml", "roadmap.yml", "pyproject.toml"):
        if (root / name).is_file():
            # found in the repository, which may be a fork's: read it only from inside the work tree
            return _from_file(root / name, lambda: read_contained(root, name, MAX_CONFIG_BYTES))
    return Config()


def _from_file(path: Path, read: Callable[[], bytes]) -> Config:
    try:
        text = read().decode("utf-8")
    except (OSError, Declined, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"{path}: cannot read config ({why}); check the file is a regular UTF-8 file inside "
                          "the repository") from None
    if path.suffix == ".toml":
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML ({exc}); fix the syntax there") from None
        except RecursionError:
            raise ConfigError(f"{path}: nested too deeply to read; fix the structure there") from None
        table = doc.get("tool", {}).get("roadmap") if path.name == "pyproject.toml" else doc.get("tool", {}).get("roadmap", doc)
        where = "[tool.roadmap]"
        if table is None:
            return Config(source=str(path))
    else:
        try:
            table = yaml.safe_load(text)
        except RecursionError:
            raise ConfigError(f"{path}: nested too deeply to read; fix the structure there") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" line {mark.line + 1}" if mark is not None else ""
            raise ConfigError(f"{path}:{at} invalid YAML ({getattr(exc, 'problem', exc)}); fix the syntax there") from None
        where = "top level"
        if table is None:
            return Config(source=str(path))
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {where} must be a table of keys (e.g. `records: [\"agents/**/*.md\"]`)")
    config = _build(Config, table, path, prefix="", source=str(path))
    assert isinstance(config, Config)
    return config


def _build(cls: type, table: dict[str, Any], path: Path, prefix: str, source: str | None = None) -> Any:
    known = {f.name: f for f in fields(cls) if f.name != "source"}
    values: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if key not in known:
            close = difflib.get_close_matches(str(key), list(known), n=1)
            hint = f"did you mean `{prefix}{close[0]}`?" if close else f"valid keys: {', '.join(sorted(known))}"
            raise ConfigError(f"{path}: unknown key `{dotted}`; {hint}")
        default = getattr(cls(), key)
        if key in _MAPPINGS and not prefix:
            values[key] = _check_mapping(dotted, value, _MAPPINGS[key], path)
        elif key == "external" and not prefix:
            values[key] = _external(value, path)
        elif key in _NESTED and not prefix:
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: key `{dotted}` must be a table of keys "
                                  f"({', '.join(f.name for f in fields(_NESTED[key]))}), got {_tname(value)}")
            values[key] = _build(_NESTED[key], value, path, prefix=f"{key}.")
        else:
            values[key] = _check_value(dotted, value, default, path)
    if source is not None:
        values["source"] = source
    return cls(**values)


def _external(value: Any, path: Path) -> tuple[tuple[str, str], ...]:
    """`{vllm: "../vllm", "llama.cpp": "unresolved"}` (or a list of names, each unresolved) -> sorted pairs."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = {v: "unresolved" for v in value}
    if not isinstance(value, dict) or not all(isinstance(k, str) and k.strip() and isinstance(v, str)
                                              for k, v in value.items()):
        raise ConfigError(f"{path}: key `external` must be a table of project name -> its checkout path or "
                          f"\"unresolved\", got {_tname(value)}; e.g. `external = {{ vllm = \"../vllm\" }}`")
    return tuple(sorted((k.strip(), v.strip() or "unresolved") for k, v in value.items()))


def _check_value(key: str, value: Any, default: Any, path: Path) -> Any:
    if isinstance(default, tuple):
        if isinstance(value, str):
            value = [value]  # one glob or pattern written without brackets is a common, harmless shorthand
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: key `{key}` must be a list of strings, got {_tname(value)}; "
                              f"e.g. `{key.split('.')[-1]} = {_example(default)}`")
        if key in _REGEX_KEYS:
            for pat in value:
                try:
                    re.compile(pat)
                except re.error as exc:
                    raise ConfigError(f"{path}: key `{key}` has an invalid regex {pat!r} ({exc}); fix the pattern") from None
        return tuple(value)
    if isinstance(default, bool) or not isinstance(default, (int, str)):
        raise AssertionError(f"unhandled config type for {key}")
    if isinstance(default, int):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"{path}: key `{key}` must be a non-negative integer, got {value!r}; e.g. `{key} = {default}`")
        return value
    if not isinstance(value, str):
        raise ConfigError(f"{path}: key `{key}` must be a string, got {_tname(value)}; e.g. `{key} = \"{default}\"`")
    choices = _CHOICES.get(key)
    if choices and value not in choices:
        raise ConfigError(f"{path}: key `{key}` must be one of {', '.join(choices)}, got {value!r}")
    return value


def _check_mapping(key: str, value: Any, choices: tuple[str, ...], path: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: key `{key}` must be a table of glob = kind, got {_tname(value)}; "
                          f"e.g. `{key} = {{\".agents/state.md\" = \"log\"}}`")
    out = []
    for glob, kind in value.items():
        if not isinstance(kind, str) or kind not in choices:
            raise ConfigError(f"{path}: key `{key}.\"{glob}\"` must be one of {', '.join(choices)}, got {kind!r}")
        out.append((str(glob), kind))
    return tuple(out)


def _tname(value: Any) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "nothing"}.get(type(value), type(value).__name__)


def _example(default: tuple[str, ...]) -> str:
    return "[" + ", ".join(f'"{v}"' for v in default[:2]) + "]"


@lru_cache(maxsize=512)
def _glob_re(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


@lru_cache(maxsize=4096)
def _canonical(globs: tuple[str, ...], path: str) -> bool:
    low = path.lower()
    return any(glob_match(g.lower(), low) for g in globs)


def glob_match(pattern: str, path: str) -> bool:
    """Path glob with `**` spanning directories (`agents/**/*.md` matches `agents/roadmap.md`)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return _glob_re(pattern).match(path) is not None
