"""What a command line names: the repository, where its config is looked for, and the records to report.

    target = locate(["agents/roadmap.md"])     # or [] for the repository containing the current directory
    config, target, notes = target.apply(load_config(target.root, None, target.start), force_exclude=False)

The cwd never narrows a run: from a subdirectory the whole repository is linted and the config is found upward
from there. PATH arguments narrow what is *reported*, never what is read as context; a named file is linted even
when the `records` globs miss it (as ruff lints a file it is given), unless `--force-exclude`, which pre-commit's
hook passes so that only record files among the changed ones are reported.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from roadmap.config import Config, glob_match
from roadmap.errors import UsageError
from roadmap.history.git import toplevel


@dataclass(frozen=True)
class Target:
    root: Path  # the git work tree
    start: Path  # where config discovery starts (up to `root`)
    only: tuple[str, ...] = ()  # repo-relative files and directories named: the report covers these alone
    files: tuple[str, ...] = ()  # the named files among them

    @property
    def narrowed(self) -> bool:
        return bool(self.only)

    def apply(self, config: Config, force_exclude: bool) -> tuple[Config, Target, list[str]]:
        """The config with the named files added to its records, the target without the files it will not lint,
        and a note per named file that is not linted (and why)."""
        extra: list[str] = []
        dropped: set[str] = set()
        notes: list[str] = []
        for path in self.files:
            if any(glob_match(g, path) for g in config.exclude):
                dropped.add(path)
                if not force_exclude:
                    notes.append(
                        f"{path} is not linted: `exclude` in {config.source} names it (remove it there to lint it)"
                    )
            elif not any(glob_match(g, path) for g in config.records):
                if force_exclude:
                    dropped.add(path)
                else:
                    extra.append(path)  # a glob of itself (`*` and `?` in a file name would match more)
        if extra:
            config = dataclasses.replace(config, records=(*config.records, *extra))
        only = tuple(p for p in self.only if p not in dropped)
        return config, dataclasses.replace(self, only=only, files=tuple(p for p in self.files if p in only)), notes


def locate(paths: Sequence[str], command: str = "roadmap lint") -> Target:
    """The repository containing the current directory (no `paths`), else the one containing the paths."""
    if not paths:
        cwd = Path.cwd()
        return Target(root=_root(cwd, command), start=cwd)
    root: Path | None = None
    whole = False  # the repository itself is named: nothing narrows the report
    only: list[str] = []
    files: list[str] = []
    for arg in paths:
        path = Path(arg)
        if not path.exists():
            raise UsageError(f"{arg}: no such file or directory; pass a path inside a git repository")
        here = _root(path if path.is_dir() else path.parent, command)
        if root is None:
            root = here
        elif here.resolve() != root.resolve():
            raise UsageError(
                f"{arg} is in another repository ({here}) than {paths[0]} ({root}); run {command} once per repository"
            )
        rel = os.path.relpath(path.resolve(), root.resolve()).replace(os.sep, "/")
        if rel.startswith(".."):
            raise UsageError(f"{arg} is outside the repository {root}")
        if rel == ".":
            whole = True
        else:
            only.append(rel)
            if path.is_file():
                files.append(rel)
    assert root is not None
    first = Path(paths[0])
    start = first if first.is_dir() else first.parent
    if whole:
        return Target(root=root, start=start, files=tuple(dict.fromkeys(files)))
    return Target(root=root, start=start, only=tuple(dict.fromkeys(only)), files=tuple(dict.fromkeys(files)))


def _root(base: Path, command: str) -> Path:
    root = toplevel(base)
    if root is None:
        raise UsageError(
            f"{base.resolve()} is not inside a git repository; run {command} inside a git checkout "
            f"or pass its path (`{command} path/to/repo`)"
        )
    return root
