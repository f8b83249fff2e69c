"""The command line that reproduces a measurement, written into result.json's `command`."""

from __future__ import annotations

import argparse
import shlex

# Flags that only say where evidence goes, not what was measured: left out of the reproduce command.
NOT_IN_COMMAND = {"output_dir", "result_only", "profile", "profile_steps"}
# Flags always written, even at their defaults: what was measured must read the same when a default changes.
ALWAYS = {
    "model",
    "load_format",
    "dtype",
    "seed",
    "dataset_name",
    "repeat",
    "warmup_passes",
    "batch_size",
    "input_len",
    "output_len",
}


def command_line(kind: str, parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """`engine bench KIND ...`: every flag that differs from its default, plus the model and workload flags."""
    argv = ["engine", "bench", kind]
    seen: set[str] = set()
    for action in parser._actions:  # argparse has no public walk over a parser's options
        if not action.option_strings or action.dest == "help" or action.dest in NOT_IN_COMMAND | seen:
            continue
        seen.add(action.dest)
        value = getattr(args, action.dest, None)
        if value is None or (value == action.default and action.dest not in ALWAYS):
            continue
        flag = action.option_strings[0]
        if action.dest == "dirty":  # two flags, one dest
            argv.append("--dirty" if value else "--clean")
        elif isinstance(action, argparse.BooleanOptionalAction):
            argv.append(flag if value else "--no-" + flag[2:])
        elif action.nargs == 0:
            argv += [flag] if value else []
        else:
            argv += [flag, str(value)]
    return shlex.join(argv)
