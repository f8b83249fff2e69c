"""RecordFile <-> JSON-ready lists, for the parsed-records cache. Decoding treats its input as untrusted:
every field is checked against the model's type hints and anything else raises ValueError.

Dataclasses become positional lists (field order of the model); a table's rows are indices into the
record's statements, so decoded tables hold the very Statement objects of `RecordFile.statements`, as
parsed ones do. The codecs are compiled once per class from `typing.get_type_hints`, so a new model field
is picked up without touching this file.

A statement repeats much of its record: its path (always the record's), its section (the same headings for a
whole table), its raw source (mostly its own lines of the record, or its text), and often no mentions at all.
Those are not written again: the path not at all, the section as an index into the record's list of sections,
empty mentions as null, a raw source that is the statement's text or lines as 0 or 1. On mudler/vllm.cpp's
records this took the cache from 30 MB of JSON to 21 MB, and its encoding and dumping from 1.06 s to 0.75 s.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import lru_cache
from typing import Any, Callable

from roadmap.records.model import AsOf, Mentions, Problem, RecordFile, Statement, Suppression, Table

Decoder = Callable[[Any], Any]
Encoder = Callable[[Any], Any]


def encode_record(rf: RecordFile) -> list[Any]:
    index = {id(st): k for k, st in enumerate(rf.statements)}
    sections: dict[tuple[str, ...], int] = {}
    enc_st = _statement_encoder(rf.path, rf.text.split("\n"), sections)
    enc_sup, enc_prob = _encoder(Suppression), _encoder(Problem)
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
    statements = [enc_st(st) for st in rf.statements]
    return [
        rf.path,
        rf.text,
        [[list(sec) for sec in sections], statements],
        tables,
        [enc_sup(s) for s in rf.suppressions],
        [enc_prob(p) for p in rf.problems],
        _encoder(AsOf)(rf.preamble_as_of) if rf.preamble_as_of else None,
    ]


def decode_record(doc: Any) -> RecordFile:
    """Inverse of `encode_record`; ValueError on anything malformed."""
    path, text, statements, tables, suppressions, problems, preamble = _fixed_list(doc, 7)
    sections, rows = _fixed_list(statements, 2)
    stmts = _decode_statements(_str(path), _str(text), [_str_tuple(sec) for sec in _list(sections)], _list(rows))
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


# ---------------------------------------------------------------- statements, sharing what their record repeats
_EMPTY = Mentions()


def _statement_fields() -> list[tuple[str, Any]]:
    return [(f.name, h) for f, h in _fields(Statement)]


def _statement_encoder(path: str, lines: list[str], sections: dict[tuple[str, ...], int]) -> Encoder:
    fields = _fields_encoder(Statement, _SHARED)
    enc_mentions = _encoder(Mentions)

    def encode(st: Statement) -> list[Any]:
        if st.path != path:
            raise ValueError(f"a statement of {st.path} in the record {path}")
        sec = sections.setdefault(st.section, len(sections))
        mentions = None if st.mentions == _EMPTY else enc_mentions(st.mentions)
        raw: str | int = st.raw
        if raw == st.text:
            raw = _RAW_IS_TEXT
        elif raw == "\n".join(lines[st.line - 1 : st.end_line]):
            raw = _RAW_IS_LINES
        return [sec, mentions, raw, *fields(st)]

    return encode


def _decode_statements(path: str, text: str, sections: list[tuple[str, ...]], rows: list[Any]) -> list[Statement]:
    fields = [(name, _decoder(h)) for name, h in _statement_fields() if name not in _SHARED]
    names = [name for name, _ in fields]
    decoders = [dec for _, dec in fields]
    n = len(fields) + 3
    dec_mentions = _decoder(Mentions)
    lines: list[str] | None = None
    out = []
    for row in rows:
        if type(row) is not list or len(row) != n:
            raise ValueError("malformed Statement")
        sec, mentions, raw = row[0], row[1], row[2]
        if type(sec) is not int or not 0 <= sec < len(sections):
            raise ValueError("statement section index out of range")
        values = {name: dec(x) for name, dec, x in zip(names, decoders, row[3:])}
        if raw == _RAW_IS_TEXT and type(raw) is int:
            raw = values["text"]
        elif raw == _RAW_IS_LINES and type(raw) is int:
            lines = text.split("\n") if lines is None else lines
            raw = "\n".join(lines[values["line"] - 1 : values["end_line"]])
        out.append(
            Statement(
                path=path,
                section=sections[sec],
                mentions=_EMPTY if mentions is None else dec_mentions(mentions),
                raw=_str(raw),
                **values,
            )
        )
    return out


_SHARED = frozenset({"path", "section", "mentions", "raw"})  # written per record (see the module's docstring)
_RAW_IS_TEXT, _RAW_IS_LINES = 0, 1  # a statement's raw source as its text, or as its lines of the record


# ---------------------------------------------------------------- compiled per type
@lru_cache(maxsize=None)
def _encoder(tp: Any) -> Encoder:
    if dataclasses.is_dataclass(tp):
        return _dataclass_encoder(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [_encoder(a) for a in args if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"unsupported union {tp}")
        one = inner[0]
        if one is _identity:
            return _identity
        return lambda v: None if v is None else one(v)
    if origin in (tuple, list):
        item = _encoder(args[0])
        if item is _identity:
            return list
        return lambda v: [item(x) for x in v] if v else []
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


def _dataclass_encoder(cls: Any) -> Encoder:
    return _fields_encoder(cls, frozenset())


@lru_cache(maxsize=None)
def _fields_encoder(cls: Any, skip: frozenset[str]) -> Encoder:
    """[field values in order, but those in `skip`], each through its encoder: one function per class, its fields
    read by name in its own code (as `dataclasses` builds __init__), so a plain field costs an attribute read and
    no call."""
    env: dict[str, Any] = {}
    items = []
    for k, (f, h) in enumerate(_fields(cls)):
        if f.name in skip:
            continue
        if not f.name.isidentifier():
            raise TypeError(f"unsupported field name {f.name!r}")
        enc = _encoder(h)
        if enc is _identity:
            items.append(f"obj.{f.name}")
        else:
            env[f"_e{k}"] = enc
            items.append(f"_e{k}(obj.{f.name})")
    exec(f"def encode(obj):\n    return [{', '.join(items)}]", env)  # noqa: S102 - field names of our own model
    encode: Encoder = env["encode"]
    return encode


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
