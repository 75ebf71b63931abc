"""Typed predicates: the one boundary between Python values and clingo terms.

Every predicate the Python side writes (the vocabularies' `new_*` facts, the session state) or
reads (what the rules show: the `confirm` kinds, asks, prices) is a frozen dataclass declared
once with `@predicate`, its fields typed. `encode` turns an instance into a clingo symbol;
`decode` (from a symbol) and `read` (from a row of `reasoner.Value`s, as `Atoms` hold them) are
the only code that reads a term's arguments by position. Kinds of one predicate that differ by
a constant first argument (`confirm(added, ...)`, `confirm(removed, ...)`) are told apart by
their `tag`.

Field types: `str` (a string, or a constant read as its name), `int`, `Const` (a constant),
`X | None` (the constant `none` is None), another `@predicate` class (a nested term), and
`Value` / `tuple` for a term kept as a plain value.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

import clingo

from .reasoner import Const, Value, term, value

NONE = "none"  # the constant for a field that has no value


class Term:
    """The base of every typed predicate; `name` and `tag` are set by `@predicate`."""

    name: ClassVar[str] = ""
    tag: ClassVar[str | None] = None  # the constant first argument telling kinds of `name` apart

    def symbol(self) -> clingo.Symbol:
        return encode(self)


T = TypeVar("T", bound=Term)
REGISTRY: dict[tuple[str, str | None, int], type[Term]] = {}
Reader = Callable[[Any], Any]


def predicate(name: str, tag: str | None = None) -> Callable[[type[T]], type[T]]:
    """Declare a typed predicate `name(fields...)`, or `name(tag, fields...)` for a tagged kind."""

    def register(cls: type[T]) -> type[T]:
        cls = dataclasses.dataclass(frozen=True)(cls)
        cls.name, cls.tag = name, tag
        key = (name, tag, len(dataclasses.fields(cls)) + (tag is not None))  # type: ignore[arg-type]
        if key in REGISTRY:
            raise TypeError(f"{name}/{key[2]} {tag or ''} is declared twice: {REGISTRY[key].__name__}, {cls.__name__}")
        REGISTRY[key] = cls
        return cls

    return register


def kinds(name: str) -> dict[str | None, type[Term]]:
    """The declared kinds of a predicate by tag (None for an untagged one)."""
    return {tag: cls for (pred, tag, _), cls in REGISTRY.items() if pred == name}


def encode(obj: Term) -> clingo.Symbol:
    """The clingo symbol of a typed predicate; None fields become the constant `none`."""
    args = [clingo.Function(NONE) if getattr(obj, f.name) is None else as_term(getattr(obj, f.name))
            for f in dataclasses.fields(obj)]  # type: ignore[arg-type]
    return clingo.Function(obj.name, ([clingo.Function(obj.tag)] if obj.tag else []) + args)


def as_term(field_value: Any) -> clingo.Symbol:
    return encode(field_value) if isinstance(field_value, Term) else term(field_value)


def decode(symbol: clingo.Symbol) -> Term | None:
    """The typed predicate a symbol is, or None when no class is declared for it."""
    args = symbol.arguments
    tag = args[0].name if args and args[0].type == clingo.SymbolType.Function and not args[0].arguments else None
    cls = REGISTRY.get((symbol.name, tag, len(args))) or REGISTRY.get((symbol.name, None, len(args)))
    if cls is None:
        return None
    rest = args[1:] if cls.tag else args
    return cls(*(convert(symbol_value(a)) for convert, a in zip(_readers(cls), rest)))


def read(cls: type[T], row: Sequence[Value]) -> T:
    """A typed predicate from a row of plain values (its arguments after the tag, if any)."""
    readers = _readers(cls)
    if len(row) != len(readers):
        raise ValueError(f"{cls.__name__} has {len(readers)} fields, not {len(row)}: {row!r}")
    return cls(*(convert(v) for convert, v in zip(readers, row)))


def read_all(cls: type[T], rows: Iterable[Sequence[Value]]) -> list[T]:
    return [read(cls, row) for row in rows]


class _Nested:
    """A nested term's symbol, kept until its field's reader knows which class it is."""

    def __init__(self, symbol: clingo.Symbol):
        self.symbol = symbol


def symbol_value(symbol: clingo.Symbol) -> Any:
    if symbol.type == clingo.SymbolType.Function and symbol.name and symbol.arguments:
        return _Nested(symbol)
    return value(symbol)


_READERS: dict[type, list[Reader]] = {}


def _readers(cls: type[Term]) -> list[Reader]:
    if cls not in _READERS:
        hints = typing.get_type_hints(cls, globalns={**vars(typing), "Const": Const, "Value": Value})
        _READERS[cls] = [reader(hints[f.name]) for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    return _READERS[cls]


def reader(kind: Any) -> Reader:
    """How a field of this type is read from a plain value (or a nested term's symbol)."""
    options = typing.get_args(kind) if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union \
        else ()
    if type(None) in options:
        inner = reader(next(k for k in options if k is not type(None)))
        return lambda v: None if v == NONE else inner(v)
    if isinstance(kind, type) and issubclass(kind, Term):
        return lambda v: decode(v.symbol if isinstance(v, _Nested) else clingo.parse_term(v)) if not isinstance(v, Term) \
            else v
    if kind is Const:
        return lambda v: Const(v)
    if kind is int:
        return _int
    if kind is str:
        return _str
    return lambda v: value(v.symbol) if isinstance(v, _Nested) else v  # Value, tuple, Any


def _int(v: Any) -> int:
    if not isinstance(v, int):
        raise ValueError(f"{v!r} is not a number")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a name or a string")
    return v
