"""Which rules run, and where their findings are ignored: ruff's `select`, `extend-select`, `ignore` and
`per-file-ignores`, over rule-code prefixes.

    codes = resolve(all_codes, [Layer.of(config), Layer("the command line", select=("RL3",))])

Layers apply in order (the config, then the command line): a layer's `select` starts the set afresh, its
`extend-select` adds, its `ignore` removes. Inside one layer the longest matching prefix decides, so
`select = ["RL303"]` with `ignore = ["RL3"]` keeps RL303; on a tie `ignore` wins. `ALL` matches every code.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from roadmap.config import Config, ConfigError, glob_match
from roadmap.errors import UsageError
from roadmap.findings import Finding


@dataclass(frozen=True)
class Layer:
    where: str  # "the command line", or the config file (for error messages)
    select: tuple[str, ...] | None = None  # None: keep what the layers before chose
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    from_config: bool = False

    @classmethod
    def of(cls, config: Config) -> Layer:
        return cls(
            config.source,
            select=config.select,
            extend_select=config.extend_select,
            ignore=config.ignore,
            from_config=True,
        )


def _longest(code: str, prefixes: Sequence[str]) -> int:
    """The length of the longest prefix in `prefixes` that `code` starts with (ALL: 0), -1 when none does."""
    return max((0 if p == "ALL" else len(p) for p in prefixes if p == "ALL" or code.startswith(p)), default=-1)


def _check(codes: Sequence[str], layer: Layer) -> None:
    for key, prefixes in (
        ("select", layer.select or ()),
        ("extend-select", layer.extend_select),
        ("ignore", layer.ignore),
    ):
        for p in prefixes:
            if p == "ALL" or any(c.startswith(p) for c in codes):
                continue
            close = difflib.get_close_matches(p, list(codes), n=1)
            hint = f"did you mean {close[0]}?" if close else "run `roadmap rule` to list the rule codes"
            if layer.from_config:
                raise ConfigError(f"{layer.where}: `{key}` names {p!r}, which no rule code starts with; {hint}")
            raise UsageError(f"no rule matches {p!r} (--{key}); {hint}")


def resolve(codes: Sequence[str], layers: Sequence[Layer]) -> list[str]:
    """The codes (of `codes`, in their order) that the layers leave selected."""
    on = {c: True for c in codes}
    for layer in layers:
        _check(codes, layer)
        chosen = (*(layer.select or ()), *layer.extend_select)
        for c in codes:
            s, i = _longest(c, chosen), _longest(c, layer.ignore)
            if s > i:
                on[c] = True
            elif i >= 0 or layer.select is not None:
                on[c] = False
    return [c for c in codes if on[c]]


def per_file_ignored(finding: Finding, config: Config) -> bool:
    """Does `per-file-ignores` ignore this finding (a glob matching its path, listing a prefix of its code)?"""
    return any(
        _longest(finding.code, prefixes) >= 0 and glob_match(glob, finding.path)
        for glob, prefixes in config.per_file_ignores
    )
