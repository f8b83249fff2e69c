"""RecordFile <-> JSON-ready lists, for the parsed-records cache. Decoding treats its input as untrusted:
every field is checked against the model's type hints and anything else raises ValueError.

Dataclasses become positional lists (field order of the model); a table's rows are indices into the
record's statements, so decoded tables hold the very Statement objects of `RecordFile.statements`, as
parsed ones do. The codecs are compiled once per class from `typing.get_type_hints`, so a new model field
is picked up without touching this file.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import lru_cache
from typing import Any, Callable

from roadmap.records.model import AsOf, Problem, RecordFile, Statement, Suppression, Table

Decoder = Callable[[Any], Any]
Encoder = Callable[[Any], Any]


def encode_record(rf: RecordFile) -> list[Any]:
    index = {id(st): k for k, st in enumerate(rf.statements)}
    enc_st, enc_sup, enc_prob = _encoder(Statement), _encoder(Suppression), _encoder(Problem)
    tables = [
        [
            t.path,
            t.line,
            t.end_line,
            list(t.section),
            list(t.headers),
            [[index[id(st)] for st in row] for row in t.rows],
            t.id_column,
        ]
        for t in rf.tables
    ]
    return [
        rf.path,
        rf.text,
        [enc_st(st) for st in rf.statements],
        tables,
        [enc_sup(s) for s in rf.suppressions],
        [enc_prob(p) for p in rf.problems],
        _encoder(AsOf)(rf.preamble_as_of) if rf.preamble_as_of else None,
    ]


def decode_record(doc: Any) -> RecordFile:
    """Inverse of `encode_record`; ValueError on anything malformed."""
    path, text, statements, tables, suppressions, problems, preamble = _fixed_list(doc, 7)
    stmts = _decoder(list[Statement])(statements)
    out = RecordFile(
        path=_str(path),
        text=_str(text),
        statements=stmts,
        suppressions=_decoder(list[Suppression])(suppressions),
        problems=_decoder(list[Problem])(problems),
        preamble_as_of=_decoder(AsOf | None)(preamble),
    )
    strs = _decoder(tuple[str, ...])
    opt_int = _decoder(int | None)
    for t in _list(tables):
        tpath, line, end_line, section, headers, rows, id_column = _fixed_list(t, 7)
        body = []
        for row in _list(rows):
            cells = []
            for k in _list(row):
                if type(k) is not int or not 0 <= k < len(stmts):
                    raise ValueError("table cell index out of range")
                cells.append(stmts[k])
            body.append(tuple(cells))
        out.tables.append(
            Table(
                path=_str(tpath),
                line=_int(line),
                end_line=_int(end_line),
                section=strs(section),
                headers=strs(headers),
                rows=tuple(body),
                id_column=opt_int(id_column),
            )
        )
    return out


# ---------------------------------------------------------------- compiled per type
@lru_cache(maxsize=None)
def _encoder(tp: Any) -> Encoder:
    if dataclasses.is_dataclass(tp):
        parts = [(f.name, _encoder(h)) for f, h in _fields(tp)]
        return lambda obj: [enc(getattr(obj, name)) for name, enc in parts]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [_encoder(a) for a in args if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"unsupported union {tp}")
        one = inner[0]
        return lambda v: None if v is None else one(v)
    if origin in (tuple, list):
        item = _encoder(args[0])
        if item is _identity:
            return list
        return lambda v: [item(x) for x in v]
    if tp in (str, int, float, bool):
        return _identity
    raise TypeError(f"unsupported type {tp}")


@lru_cache(maxsize=None)
def _decoder(tp: Any) -> Decoder:
    if dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [_decoder(a) for a in args if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"unsupported union {tp}")
        one = inner[0]
        return lambda v: None if v is None else one(v)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])
        if item is _str:
            return _str_tuple
        return lambda v: tuple(item(x) for x in _list(v))
    if origin is list:
        item = _decoder(args[0])
        return lambda v: [item(x) for x in _list(v)]
    simple = {str: _str, int: _int, float: _float, bool: _bool}.get(tp)
    if simple is None:
        raise TypeError(f"unsupported type {tp}")
    return simple


def _dataclass_decoder(cls: Any) -> Decoder:
    parts = [_decoder(h) for _, h in _fields(cls)]
    n = len(parts)

    def decode(v: Any) -> Any:
        if type(v) is not list or len(v) != n:
            raise ValueError(f"malformed {cls.__name__}")
        return cls(*[dec(x) for dec, x in zip(parts, v)])

    return decode


def _fields(cls: Any) -> list[tuple[dataclasses.Field[Any], Any]]:
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls) if f.init]


def _identity(v: Any) -> Any:
    return v


def _str(v: Any) -> str:
    if type(v) is not str:
        raise ValueError("expected a string")
    return v


def _str_tuple(v: Any) -> tuple[str, ...]:
    if type(v) is not list or (v and set(map(type, v)) != _ONLY_STR):
        raise ValueError("expected a list of strings")
    return tuple(v)


_ONLY_STR = {str}


def _int(v: Any) -> int:
    if type(v) is not int:
        raise ValueError("expected an integer")
    return v


def _float(v: Any) -> float:
    if type(v) is float:
        return v
    if type(v) is int:
        return float(v)
    raise ValueError("expected a number")


def _bool(v: Any) -> bool:
    if type(v) is not bool:
        raise ValueError("expected a boolean")
    return v


def _list(v: Any) -> list[Any]:
    if type(v) is not list:
        raise ValueError("expected a list")
    return v


def _fixed_list(v: Any, n: int) -> list[Any]:
    if type(v) is not list or len(v) != n:
        raise ValueError(f"expected a list of {n} items")
    return v
