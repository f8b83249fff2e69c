"""Configuration: `[tool.roadmap]` in pyproject.toml or a `roadmap.yaml`, validated key by key.

Every default works without any config on this repo's layout (`agents/*.md`, `docs/bench-evidence/`) and on a
`.agents/` layout like the seed's (`.agents/specs/roadmap-*.md`, `.agents/coordination.md`, `.agents/claims/*.md`).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

import yaml

from roadmap.findings import SEVERITIES
from roadmap.safefs import DEFAULT_MAX_BYTES, Declined, read_contained, read_file

# An id: letter-initial upper-case parts joined by hyphens, at least one later part holding a letter, so
# ROAD-V1-C2-LOCAL-BF16 and RM-RECORDS match while UTF-8, HTTP-429 and BF16 do not. Whole-token.
DEFAULT_ID_PATTERN = r"(?=[A-Z0-9-]*-[0-9]*[A-Z])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+"
DEFAULT_CLAIM_PATTERN = r"CLAIM-[A-Z0-9]+(?:-[A-Z0-9]+)*"
MAX_CONFIG_BYTES = 1 << 20  # a config file past this is not read (a pyproject.toml is a few KiB)
FAIL_ON = (*SEVERITIES, "never")  # the lowest severity that fails a run (roadmap/exits.py); never: none does
NAMINGS = ("any", "date-first", "date-last")
# What a record file is (roadmap/records/structure.py): `current` is read as it stands; `log` is a dated, append-only
# record of what happened; `closed` a spec or plan of finished work; `template` an example to copy from; `process`
# says how to work (its imperatives are instructions, never work that lands).
KINDS = ("current", "log", "closed", "template", "process")
# `--output-format` (roadmap/render/): ruff's names; "text" is the older name of "full"
OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github", "markdown", "text")
CONFIG_FILES = ("roadmap.yaml", "roadmap.yml", "pyproject.toml")
EVIDENCE_KINDS = ("any", "dir", "file")


class ConfigError(Exception):
    """A config mistake; the message names the file, the key and the fix."""


@dataclass(frozen=True)
class DirectiveConfig:
    # A table cell asks for work when its column header is, starts with, or ends with one of these (case and
    # punctuation ignored): "Remaining to close the row", "Next handoff", "Left to do", "Open items".
    columns: tuple[str, ...] = (
        "Remaining",
        "Next",
        "Next actions",
        "next-actions",
        "Next steps",
        "Next step",
        "TODO",
        "To do",
        "To-do",
        "Left to do",
        "Still to do",
        "What's left",
        "Left",
        "Open items",
        "Action items",
        "Actions",
        "Follow-up",
        "Follow-ups",
        "Pending",
        "Outstanding",
        # what stands between a row and done is work left for it, whoever does it
        "Blockers",
        "Blocker",
        "Blocked by",
        "Blocked on",
    )
    # A list item asks for work under a heading containing one of these.
    sections: tuple[str, ...] = (
        "Punch-list",
        "Punch list",
        "Next steps",
        "Next actions",
        "TODO",
        "To do",
        "To-do",
        "Plan",
        "Action items",
        "Follow-ups",
        "Follow-up",
        "Open items",
        "Must land",
        "Remaining",
        "Tasks",
        "Work items",
        "Next up",
        "Left to do",
        "Still to do",
        "Next",
        # what a process or a system lacks, listed as such, is work owed ("## Known gaps" of a runbook)
        "Known gaps",
        # German
        "Nächste Schritte",
        "Offene Punkte",
        "Aufgaben",
        "Zu tun",
    )
    # Matched case-sensitively as whole words; "Must" therefore only fires where a sentence starts with it.
    phrases: tuple[str, ...] = (
        "Next owner must",
        "next owner must",
        "Next owner should",
        "Next session must",
        "Next agent must",
        "Next:",
        "Next step:",
        "Next steps:",
        "Next up:",
        "TODO",
        "FIXME",
        "Must",
        "Remaining:",
        "Left to do:",
        "To do:",
        "To-do:",
        "Todo:",
        "Follow-up:",
        "Action item:",
        "Action:",
        "Still to do:",
        "Open:",
        # what a piece of work waits for is work left, whoever does it ("Blocked on: needs per-topic backoff")
        "Blocked on:",
        "blocked on:",
        "Blocked by:",
        "blocked by:",
        "Blocker:",
        "Blockers:",
        "Waiting on:",
        "Waiting for:",
        # German hand-offs and labels ("Nächste Person muss ..." is a hand-off: records/structure.py)
        "Als Nächstes:",
        "Nächste Schritte:",
        "Zu tun:",
        "Offen:",
        "Offene Punkte:",
        "Blockiert durch:",
        "Blockiert von:",
        "Wartet auf:",
    )
    # An item or paragraph that starts with one of these (after dates, ids, owners) asks for work.
    verbs: tuple[str, ...] = (
        "add",
        "adopt",
        "align",
        "allow",
        "audit",
        "automate",
        "avoid",
        "backport",
        "batch",
        "benchmark",
        "bench",
        "bump",
        "build",
        "cache",
        "capture",
        "change",
        "check",
        "clean",
        "close",
        "collect",
        "compare",
        "compute",
        "configure",
        "confirm",
        "consolidate",
        "convert",
        "copy",
        "create",
        "cut",
        "debug",
        "decide",
        "deduplicate",
        "define",
        "delete",
        "deploy",
        "deprecate",
        "design",
        "detect",
        "document",
        "drop",
        "emit",
        "enable",
        "disable",
        "enforce",
        "ensure",
        "evaluate",
        "evict",
        "expose",
        "export",
        "extend",
        "extract",
        "factor",
        "fetch",
        "file",
        "finish",
        "fix",
        "flip",
        "flush",
        "fold",
        "force",
        "gate",
        "generate",
        "glue",
        "guard",
        "handle",
        "harden",
        "hook",
        "implement",
        "import",
        "improve",
        "inline",
        "instrument",
        "integrate",
        "introduce",
        "investigate",
        "isolate",
        "keep",
        "land",
        "limit",
        "load",
        "log",
        "make",
        "map",
        "mark",
        "measure",
        "merge",
        "migrate",
        "mirror",
        "move",
        "normalize",
        "normalise",
        "optimize",
        "optimise",
        "pack",
        "parallelize",
        "parse",
        "pass",
        "patch",
        "persist",
        "pin",
        "plumb",
        "pool",
        "port",
        "prefetch",
        "prevent",
        "profile",
        "promote",
        "propagate",
        "prototype",
        "prune",
        "publish",
        "push",
        "put",
        "quantize",
        "quantise",
        "raise",
        "re-bench",
        "rebench",
        "rebase",
        "reconcile",
        "record",
        "reduce",
        "refactor",
        "register",
        "reimplement",
        "re-measure",
        "remeasure",
        "remove",
        "rename",
        "render",
        "reorder",
        "replace",
        "reproduce",
        "require",
        "rerun",
        "re-run",
        "reset",
        "resolve",
        "restore",
        "restructure",
        "retire",
        "retry",
        "return",
        "reuse",
        "revert",
        "review",
        "rewrite",
        "rotate",
        "route",
        "run",
        "scale",
        "schedule",
        "separate",
        "serialize",
        "set",
        "shard",
        "share",
        "ship",
        "shrink",
        "simplify",
        "skip",
        "sort",
        "speed",
        "split",
        "stage",
        "start",
        "stop",
        "store",
        "stream",
        "strip",
        "support",
        "swap",
        "switch",
        "sync",
        "teach",
        "test",
        "tighten",
        "time",
        "track",
        "trace",
        "translate",
        "trim",
        "try",
        "tune",
        "turn",
        "unify",
        "update",
        "upgrade",
        "upload",
        "use",
        "validate",
        "vectorize",
        "verify",
        "wire",
        "wrap",
        "write",
    )


@dataclass(frozen=True)
class EvidenceConfig:
    root: str = "docs/bench-evidence"
    naming: str = "any"  # "date-first" (20260727-slug), "date-last" (slug-20260727) or "any"
    kinds: str = "any"  # "dir", "file" or "any"


@dataclass(frozen=True)
class HistoryConfig:
    branch: str = "HEAD"
    include: tuple[str, ...] = ()  # git pathspecs; empty = whole repository
    exclude: tuple[str, ...] = ()


# The default state words (Config.states, Config.closed_states): open and working states, then closed ones.
_OPEN_STATES: tuple[str, ...] = (
    "PLANNED",
    "OPEN",
    "ACTIVE",
    "IN-PROGRESS",
    "GATING",
    "BLOCKED",
    "TODO",
    "TO-DO",
    "BACKLOG",
    "NOT-STARTED",
    "READY",
    "PROPOSED",
    "DRAFT",
    "QUEUED",
    "PENDING",
    "NEW",
    "WIP",
    "DOING",
    "STARTED",
    "ONGOING",
    "IN-REVIEW",
    "REVIEW",
    "PARTIAL",
    "SPIKE",
    "CLAIMED",
    "PARKED",
    "PAUSED",
    "ON-HOLD",
    "DEFERRED",
    "WAITING",
    # the same in the languages records are kept in: Spanish, Portuguese, French, German, Italian
    *("PENDIENTE", "EN-CURSO", "EN-PROGRESO", "BLOQUEADO", "POR-HACER", "PLANIFICADO", "ABIERTO"),
    *("PENDENTE", "EM-ANDAMENTO", "EM-PROGRESSO", "A-FAZER", "PLANEJADO", "ABERTO"),
    *("EN-COURS", "À-FAIRE", "A-FAIRE", "BLOQUÉ", "BLOQUE", "PRÉVU", "OUVERT", "EN-ATTENTE"),
    *("OFFEN", "IN-ARBEIT", "BLOCKIERT", "GEPLANT", "IN-BEARBEITUNG", "WARTEND"),
    *("IN-CORSO", "DA-FARE", "BLOCCATO", "PIANIFICATO", "APERTO"),
    *("TE-DOEN", "BEZIG", "IN-UITVOERING", "GEPLAND", "GEBLOKKEERD"),
    *("DO-ZROBIENIA", "W-TOKU", "W-TRAKCIE", "ZABLOKOWANE", "ZAPLANOWANE", "OTWARTE"),
)
_CLOSED_STATES: tuple[str, ...] = (
    "DONE",
    "CLOSED",
    "LANDED",
    "SUPERSEDED",
    "DROPPED",
    "COMPLETE",
    "COMPLETED",
    "FINISHED",
    "SHIPPED",
    "MERGED",
    "RELEASED",
    "FIXED",
    "RESOLVED",
    "PORTED",
    "IMPLEMENTED",
    "DEPLOYED",
    "CANCELLED",
    "CANCELED",
    "ABANDONED",
    "WONTFIX",
    "REJECTED",
    "OBSOLETE",
    "RETIRED",
    "ARCHIVED",
    *("HECHO", "TERMINADO", "COMPLETADO", "CERRADO", "CANCELADO", "RESUELTO"),
    *("FEITO", "CONCLUÍDO", "CONCLUIDO", "FECHADO", "ENTREGUE"),
    *("FAIT", "TERMINÉ", "TERMINE", "FERMÉ", "FERME", "ABANDONNÉ", "LIVRÉ"),
    *("ERLEDIGT", "FERTIG", "ABGESCHLOSSEN", "GESCHLOSSEN", "VERWORFEN"),
    *("FATTO", "COMPLETATO", "CHIUSO", "COMPLETO"),
    *("KLAAR", "GEDAAN", "AFGEROND", "VOLTOOID", "GESLOTEN"),
    *("ZROBIONE", "GOTOWE", "ZAKOŃCZONE", "UKOŃCZONE", "ZAMKNIĘTE"),
)


@dataclass(frozen=True)
class Config:
    records: tuple[str, ...] = ("agents/**/*.md", ".agents/**/*.md", ".agent/**/*.md")
    exclude: tuple[str, ...] = ()
    id_patterns: tuple[str, ...] = (DEFAULT_ID_PATTERN,)
    claim_patterns: tuple[str, ...] = (DEFAULT_CLAIM_PATTERN,)
    # State words, upper case, spaces as hyphens ("in progress" is IN-PROGRESS); the words teams use most: the open
    # and working ones, then the closed ones (`closed_states`; a state set also holds every closed state).
    states: tuple[str, ...] = _OPEN_STATES + _CLOSED_STATES
    closed_states: tuple[str, ...] = _CLOSED_STATES
    # Files whose state column is authoritative for a row (globs, case-insensitive); other files must agree.
    canonical_states: tuple[str, ...] = (
        "agents/**/roadmap*.md",
        ".agents/**/roadmap*.md",
        ".agent/**/roadmap*.md",
        "agents/**/*development_matrix*.md",
        ".agents/**/*development_matrix*.md",
        ".agent/**/*development_matrix*.md",
    )
    # Record files whose kind the structure does not show (globs -> a KINDS value): `{".agents/state.md" = "log"}`.
    kinds: tuple[tuple[str, str], ...] = ()
    state_columns: tuple[str, ...] = (
        *("State", "Status", "Lifecycle"),
        *("Estado", "Situación", "Situação", "Situacao", "Zustand", "Statut", "État", "Etat", "Stato"),
    )
    id_columns: tuple[str, ...] = ("ID", "Id", "Row", "Row ID", "Key", "Claim", "Claim ID", "Item")
    directives: DirectiveConfig = field(default_factory=DirectiveConfig)
    evidence: EvidenceConfig = field(default_factory=EvidenceConfig)
    history: HistoryConfig = field(default_factory=HistoryConfig)
    claims_ttl_days: int = 14
    fail_on: str = "error"
    # Other projects the records cite (name -> where its checkout lives, or "unresolved"): references into them are
    # never checked against this tree (roadmap/analysis/ownership.py). Read from a table: `external: {vllm: ../vllm}`.
    external: tuple[tuple[str, str], ...] = ()
    # rule selection by code prefix, as ruff's (roadmap/selection.py); keys may be spelled with - or _
    select: tuple[str, ...] = ("ALL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, code prefixes), in file order
    output_format: str = "full"
    # `roadmap report` links commits here ({sha}: the full sha); empty: commits are not links
    commit_url: str = ""
    # no file larger than this is read (records, sources, evidence); roadmap/safefs.py
    max_file_bytes: int = DEFAULT_MAX_BYTES
    source: str = "defaults"  # where this config came from (a path, or "defaults"); not a config key
    # Ids a record's table defines in its id column that the id patterns miss (`FW-12`): ids all the same, found
    # by records/loader.py:with_table_ids; not a config key
    table_ids: tuple[str, ...] = ()

    @cached_property
    def id_re(self) -> re.Pattern[str]:
        base = _DEFAULT_ID_RE if self.id_patterns == (DEFAULT_ID_PATTERN,) else _whole_token(self.id_patterns)
        if not self.table_ids:
            return base
        return re.compile(f"(?:{base.pattern})|{_whole_token(('|'.join(map(re.escape, self.table_ids)),)).pattern}")

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
        return frozenset(s.upper() for s in (*self.states, *self.closed_states))

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
_CHOICES = {
    "fail_on": FAIL_ON,
    "evidence.naming": NAMINGS,
    "evidence.kinds": EVIDENCE_KINDS,
    "output_format": OUTPUT_FORMATS,
}
_CODE_KEYS = {"select", "extend_select", "ignore"}
_CODE_RE = re.compile(r"ALL|[A-Z]+[0-9]*")
_REGEX_KEYS = {"id_patterns", "claim_patterns"}
_MAPPINGS = {"kinds": KINDS}  # tables of glob -> one of the choices


def load_config(root: Path, config_file: Path | None = None, start: Path | None = None) -> Config:
    """The config for the repository at `root`: `config_file`, else the nearest `roadmap.yaml`/`.yml` or
    pyproject.toml with a [tool.roadmap] table from `start` (a directory inside `root`) up to `root`, else
    `root`'s own files. Paths in it are relative to `root`, wherever the file is."""
    root = Path(root)
    if config_file is not None:
        path = Path(config_file)
        if not path.is_absolute() and not path.exists():
            path = root / path
        if not path.is_file():
            raise ConfigError(f"{config_file}: config file not found; pass an existing file to --config")
        return _from_file(path, lambda: read_file(path, MAX_CONFIG_BYTES))
    for rel in _upward(root, start):
        for name in CONFIG_FILES:
            relpath = f"{rel}/{name}" if rel else name
            if not (root / relpath).is_file():
                continue
            # found in the repository, which may be a fork's: read it only from inside the work tree
            read = lambda r=relpath: read_contained(root, r, MAX_CONFIG_BYTES)
            if rel and name == "pyproject.toml" and not _has_roadmap_table(read):
                continue  # a subproject's pyproject.toml that does not configure roadmap
            return _from_file(root / relpath, read)
    return Config()


def _upward(root: Path, start: Path | None) -> list[str]:
    """Repo-relative directories from `start` up to the root ("" last); only the root when `start` is outside."""
    if start is None:
        return [""]
    try:
        rel = Path(start).resolve().relative_to(root.resolve())
    except ValueError:
        return [""]
    parts = rel.parts
    return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)] + [""]


def _has_roadmap_table(read: Callable[[], bytes]) -> bool:
    try:
        return "roadmap" in tomllib.loads(read().decode("utf-8")).get("tool", {})
    except (OSError, Declined, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, AttributeError):
        return True  # unreadable or broken: read it for real, so the error names this file


def _from_file(path: Path, read: Callable[[], bytes]) -> Config:
    try:
        text = read().decode("utf-8")
    except (OSError, Declined, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(
            f"{path}: cannot read config ({why}); check the file is a regular UTF-8 file inside the repository"
        ) from None
    if path.suffix == ".toml":
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML ({exc}); fix the syntax there") from None
        except RecursionError:
            raise ConfigError(f"{path}: nested too deeply to read; fix the structure there") from None
        table = (
            doc.get("tool", {}).get("roadmap")
            if path.name == "pyproject.toml"
            else doc.get("tool", {}).get("roadmap", doc)
        )
        where = "[tool.roadmap]"
        if table is None:  # a pyproject.toml that does not configure roadmap: the defaults, and their fallbacks
            return Config() if path.name == "pyproject.toml" else Config(source=str(path))
    else:
        try:
            table = yaml.safe_load(text)
        except RecursionError:
            raise ConfigError(f"{path}: nested too deeply to read; fix the structure there") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" line {mark.line + 1}" if mark is not None else ""
            raise ConfigError(
                f"{path}:{at} invalid YAML ({getattr(exc, 'problem', exc)}); fix the syntax there"
            ) from None
        where = "top level"
        if table is None:
            return Config(source=str(path))
    if not isinstance(table, dict):
        raise ConfigError(f'{path}: {where} must be a table of keys (e.g. `records: ["agents/**/*.md"]`)')
    config = _build(Config, table, path, prefix="", source=str(path))
    assert isinstance(config, Config)
    return config


def _build(cls: type, table: dict[str, Any], path: Path, prefix: str, source: str | None = None) -> Any:
    known = {f.name: f for f in fields(cls) if f.name not in ("source", "table_ids")}
    values: dict[str, Any] = {}
    for spelled, value in table.items():
        key = spelled.replace("-", "_") if isinstance(spelled, str) else spelled  # ruff's `extend-select`
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
        elif key == "per_file_ignores" and not prefix:
            values[key] = _per_file_ignores(value, path)
        elif key in _NESTED and not prefix:
            if not isinstance(value, dict):
                raise ConfigError(
                    f"{path}: key `{dotted}` must be a table of keys "
                    f"({', '.join(f.name for f in fields(_NESTED[key]))}), got {_tname(value)}"
                )
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
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k.strip() and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(
            f"{path}: key `external` must be a table of project name -> its checkout path or "
            f'"unresolved", got {_tname(value)}; e.g. `external = {{ vllm = "../vllm" }}`'
        )
    return tuple(sorted((k.strip(), v.strip() or "unresolved") for k, v in value.items()))


def _check_value(key: str, value: Any, default: Any, path: Path) -> Any:
    if isinstance(default, tuple):
        if isinstance(value, str):
            value = [value]  # one glob or pattern written without brackets is a common, harmless shorthand
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(
                f"{path}: key `{key}` must be a list of strings, got {_tname(value)}; "
                f"e.g. `{key.split('.')[-1]} = {_example(default)}`"
            )
        if key in _CODE_KEYS:
            value = [v.strip().upper() for v in value]
            bad = [v for v in value if not _CODE_RE.fullmatch(v)]
            if bad:
                raise ConfigError(
                    f"{path}: key `{key}` lists {bad[0]!r}, not a rule code prefix; e.g. "
                    f'`{key.replace("_", "-")} = ["RL3", "RL401"]`'
                )
        if key in _REGEX_KEYS:
            for pat in value:
                try:
                    re.compile(pat)
                except re.error as exc:
                    raise ConfigError(
                        f"{path}: key `{key}` has an invalid regex {pat!r} ({exc}); fix the pattern"
                    ) from None
        return tuple(value)
    if isinstance(default, bool) or not isinstance(default, (int, str)):
        raise AssertionError(f"unhandled config type for {key}")
    if isinstance(default, int):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(
                f"{path}: key `{key}` must be a non-negative integer, got {value!r}; e.g. `{key} = {default}`"
            )
        return value
    if not isinstance(value, str):
        raise ConfigError(f'{path}: key `{key}` must be a string, got {_tname(value)}; e.g. `{key} = "{default}"`')
    choices = _CHOICES.get(key)
    if choices and value not in choices:
        raise ConfigError(f"{path}: key `{key}` must be one of {', '.join(choices)}, got {value!r}")
    if (
        key == "commit_url"
        and value
        and (
            not value.startswith(("https://", "http://"))
            or "{sha}" not in value
            or any(c in value for c in "<>\"' \n\\")
        )
    ):
        raise ConfigError(
            f"{path}: key `commit_url` must be an http(s) URL with {{sha}} and no spaces or quotes, "
            f"got {value!r}; e.g. "
            f'`commit_url = "https://github.com/OWNER/REPO/commit/{{sha}}"`'
        )
    return value


def _check_mapping(key: str, value: Any, choices: tuple[str, ...], path: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise ConfigError(
            f"{path}: key `{key}` must be a table of glob = kind, got {_tname(value)}; "
            f'e.g. `{key} = {{".agents/state.md" = "log"}}`'
        )
    out = []
    for glob, kind in value.items():
        if not isinstance(kind, str) or kind not in choices:
            raise ConfigError(f'{path}: key `{key}."{glob}"` must be one of {", ".join(choices)}, got {kind!r}')
        out.append((str(glob), kind))
    return tuple(out)


def _per_file_ignores(value: Any, path: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    example = '`per-file-ignores = { "agents/archive/*.md" = ["RL1"] }`'
    if not isinstance(value, dict):
        raise ConfigError(
            f"{path}: key `per_file_ignores` must be a table of glob = [code prefixes], got "
            f"{_tname(value)}; e.g. {example}"
        )
    out = []
    for glob, codes in value.items():
        if isinstance(codes, str):
            codes = [codes]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(
                f"{path}: `per_file_ignores` entry {glob!r} must be a list of code prefixes, got "
                f"{_tname(codes)}; e.g. {example}"
            )
        prefixes = tuple(c.strip().upper() for c in codes)
        bad = [c for c in prefixes if not _CODE_RE.fullmatch(c)]
        if bad:
            raise ConfigError(
                f"{path}: `per_file_ignores` entry {glob!r} lists {bad[0]!r}, not a rule code prefix; e.g. {example}"
            )
        out.append((str(glob), prefixes))
    return tuple(out)


def _tname(value: Any) -> str:
    return {
        dict: "a table",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "nothing",
    }.get(type(value), type(value).__name__)


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


# Where records are read when no config was given and the default globs find no file: every markdown file but a
# project's standard files (README, CHANGELOG...), vendored code and test data. Teams keep plans, logs and notes in
# folders of every name (`docs/`, `protokoll/`, `journal/`, `status/`); a list of the usual ones missed the rest and
# left a repository with no record at all. The CLI says which globs it used and how to choose others.
FALLBACK_RECORDS: tuple[str, ...] = ("**/*.md",)
_STANDARD = ("README", "CHANGELOG", "CHANGES", "HISTORY", "LICENSE", "CONTRIBUTING", "CODE_OF_CONDUCT", "SECURITY")
FALLBACK_EXCLUDE: tuple[str, ...] = (
    *(f"**/{name}*.md" for name in (*_STANDARD, *(n.lower() for n in _STANDARD), *(n.title() for n in _STANDARD))),
    *(f"**/{d}/**" for d in ("node_modules", "vendor", "third_party", "site-packages", ".venv", "venv", ".github")),
    *(f"**/{d}/**" for d in ("test", "tests", "testdata", "fixtures", "__snapshots__")),
)


def with_fallback_records(config: Config, files: Iterable[str]) -> Config:
    """`config`, or, when it is the defaults and its globs match none of `files`, the fallback globs (when those
    match some file)."""
    if config.source != "defaults":
        return config
    files = list(files)
    if any(glob_match(g, p) for p in files for g in config.records):
        return config
    fallback = dataclasses.replace(config, records=FALLBACK_RECORDS, exclude=(*config.exclude, *FALLBACK_EXCLUDE))
    picked = any(
        any(glob_match(g, p) for g in fallback.records) and not any(glob_match(g, p) for g in fallback.exclude)
        for p in files
    )
    return fallback if picked else config
