"""JSON from untrusted bytes (evidence, baselines), bounded: size, nesting depth, integer digits, and only
finite numbers. Every failure is one JsonError with a line and column, never a RecursionError, an
OverflowError or a ValueError from deep inside the interpreter.

    doc = loads(data)                     # JsonError("nested deeper than 64 levels", line 1, column 65)

Why each bound: the C decoder recurses per level (200,000 levels raise RecursionError, and whatever walks
the result recurses too); Python refuses to convert integers past 4,300 digits, and an integer past about
309 digits overflows `float()`; `NaN`/`Infinity` are not JSON, so output that copies them is not JSON either.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64
MAX_INT_DIGITS = 64
MAX_BYTES = 16 << 20
# strings (unrolled, possessive: linear even on an unterminated one) or a stray escape, which must not open one
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|\\.', re.S)
_BRACKETS = re.compile(r"[^\[\]{}]+")
_TOKEN = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|\\.|[\[\]{}]', re.S)
_STEP = str.maketrans({"[": "(", "{": "(", "]": ")", "}": ")"})


class JsonError(ValueError):
    """Input that is not bounded, finite JSON: `msg` at `lineno`/`colno` (1-based)."""

    def __init__(self, msg: str, lineno: int = 1, colno: int = 1):
        super().__init__(f"{msg} (line {lineno} column {colno})")
        self.msg = msg
        self.lineno = lineno
        self.colno = colno


class _Refused(Exception):
    def __init__(self, msg: str, literal: str):
        super().__init__(msg)
        self.msg = msg
        self.literal = literal


def loads(
    data: bytes | str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH, max_int_digits: int = MAX_INT_DIGITS
) -> Any:
    """The parsed document, or JsonError. Bytes must be UTF-8 (a BOM is not JSON either)."""
    if len(data) > max_bytes:
        raise JsonError(f"{len(data)} bytes, larger than the {max_bytes} byte limit")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonError(
                f"not UTF-8 ({exc.reason} at byte {exc.start})", data.count(b"\n", 0, exc.start) + 1
            ) from None
    else:
        text = data
    _check_depth(text, max_depth)

    def parse_int(s: str) -> int:
        if len(s) - s.startswith("-") > max_int_digits:
            raise _Refused(f"an integer of {len(s) - s.startswith('-')} digits, more than {max_int_digits}", s)
        return int(s)

    def parse_float(s: str) -> float:
        value = float(s)
        if not math.isfinite(value):
            raise _Refused(f"a number out of range ({s[:20]}{'...' if len(s) > 20 else ''} is not finite)", s)
        if len(s.split(".")[0].split("e")[0].split("E")[0].lstrip("-")) > max_int_digits:
            raise _Refused(f"a number with more than {max_int_digits} integer digits", s)
        return value

    def parse_constant(s: str) -> float:
        raise _Refused(f"{s} is not a JSON number (only finite numbers are)", s)

    try:
        return json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant)
    except _Refused as exc:
        line, col = _locate(text, exc.literal)
        raise JsonError(exc.msg, line, col) from None
    except json.JSONDecodeError as exc:
        raise JsonError(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:  # unreachable after _check_depth, kept so no input can escape as one
        raise JsonError(f"nested deeper than {max_depth} levels") from None


def dumps(obj: Any, **kwargs: Any) -> str:
    """json.dumps that never writes `NaN`/`Infinity` (not JSON): a non-finite float becomes null."""
    return json.dumps(finite(obj), allow_nan=False, **kwargs)


def finite(obj: Any) -> Any:
    """`obj` with every non-finite float replaced by None (dicts and lists copied, other values kept)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def _check_depth(text: str, max_depth: int) -> None:
    brackets = _BRACKETS.sub("", _STRING.sub("", text)).translate(_STEP)
    if brackets.count("(") <= max_depth:
        return
    deepest = max(accumulate(1 if c == "(" else -1 for c in brackets))
    if deepest <= max_depth:
        return
    depth = 0
    for m in _TOKEN.finditer(text):  # the rare failing case: find where, for the message
        c = m.group()[0]
        depth += 1 if c in "[{" else -1 if c in "]}" else 0
        if depth > max_depth:
            line = text.count("\n", 0, m.start()) + 1
            raise JsonError(f"nested deeper than {max_depth} levels", line, m.start() - text.rfind("\n", 0, m.start()))
    raise JsonError(f"nested deeper than {max_depth} levels")


def _locate(text: str, literal: str) -> tuple[int, int]:
    """Line and column of the first `literal` outside a string (good enough to point a person at it)."""
    masked = _STRING.sub(lambda m: " " * len(m.group()), text)
    at = masked.find(literal)
    if at < 0:
        return 1, 1
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
