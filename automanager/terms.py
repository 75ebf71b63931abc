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
`Value` / `tuple` for a term kept as a plain value. `decode` keeps such a value exact (a constant
as a `Const`, a nested term as its typed predicate), so that `encode` gives the same term back:
the session state makes that round trip every turn. `make` builds a predicate from the values a
parser gives and checks each against its field's type.
"""

from __future__ import annotations

import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Self, TypeVar

import clingo

from .reasoner import Const, Value, term

NONE = "none"  # the constant for a field that has no value


class Term:
    """The base of every typed predicate; `name` and `tag` are set by `@predicate`."""

    name: ClassVar[str] = ""
    tag: ClassVar[str | None] = None  # the constant argument telling kinds of `name` apart
    tag_at: ClassVar[int] = 0  # its position: first, or after the fields before it (confirm(K, kind, ...))

    def symbol(self) -> clingo.Symbol:
        return encode(self)

    # Construction, immutability, equality, hashing and repr by the fields, once here: making
    # them for each class (as a dataclass does, ~0.4 ms a class) cost a chat's first turn 40 ms.
    fields: ClassVar[tuple[str, ...]] = ()  # the field names in order, from the annotations
    defaults: ClassVar[dict[str, Any]] = {}  # the value of a field left out, when its class gives one

    def __init__(self, *args: Any, **named: Any) -> None:
        if len(args) > len(self.fields) or set(named) - set(self.fields[len(args):]):
            raise TypeError(f"{self.__class__.__name__} takes {', '.join(self.fields) or 'no fields'}, "
                            f"not {args!r} {named!r}")
        given = {**self.defaults, **dict(zip(self.fields, args)), **named}
        missing = [field for field in self.fields if field not in given]
        if missing:
            raise TypeError(f"{self.__class__.__name__} needs {', '.join(missing)}")
        for field in self.fields:
            object.__setattr__(self, field, given[field])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self.__class__.__name__} is immutable: make a new one")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self.__class__.__name__} is immutable")

    def field_values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, field) for field in self.fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.field_values() == other.field_values()

    def __hash__(self) -> int:
        return hash((self.__class__, self.field_values()))

    def but(self, **changes: Any) -> Self:
        """A copy with the given fields changed (the instance itself is immutable)."""
        return self.__class__(**{**dict(zip(self.fields, self.field_values())), **changes})

    def __repr__(self) -> str:
        fields = ", ".join(f"{field}={getattr(self, field)!r}" for field in self.fields)
        return f"{self.__class__.__name__}({fields})"


T = TypeVar("T", bound=Term)
REGISTRY: dict[tuple[str, str | None, int], type[Term]] = {}
Reader = Callable[[Any], Any]


@typing.dataclass_transform(frozen_default=True)  # type checkers see the fields as the constructor's
def predicate(name: str, tag: str | None = None, tag_at: int = 0) -> Callable[[type[T]], type[T]]:
    """Declare a typed predicate `name(fields...)`, or `name(tag, fields...)` for a tagged kind
    (`tag_at` fields before the tag: `name(field, tag, fields...)`)."""

    def register(cls: type[T]) -> type[T]:
        declared = {field: kind for field, kind in vars(cls).get("__annotations__", {}).items()
                    if not str(kind).startswith(("ClassVar", "typing.ClassVar"))}
        clash = {"name", "tag", "tag_at", "fields", "defaults"} & set(declared)
        if clash:
            raise TypeError(f"{cls.__name__}: a field cannot be called {' or '.join(sorted(clash))} (Term keeps the "
                            "predicate's name and tag there)")
        cls.fields = tuple(declared)
        cls.defaults = {field: vars(cls)[field] for field in declared if field in vars(cls)}
        cls.name, cls.tag, cls.tag_at = name, tag, tag_at
        key = (name, tag, len(cls.fields) + (tag is not None))
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
    args = [clingo.Function(NONE) if getattr(obj, field) is None else as_term(getattr(obj, field))
            for field in obj.fields]
    if obj.tag:
        args.insert(obj.tag_at, clingo.Function(obj.tag))
    return clingo.Function(obj.name, args)


def as_term(field_value: Any) -> clingo.Symbol:
    return encode(field_value) if isinstance(field_value, Term) else term(field_value)


def parse(text: str) -> clingo.Symbol:
    """A term from its text as clingo prints it (a saved state term, a fact shown as text);
    ValueError when it is not one."""
    try:
        return clingo.parse_term(text)
    except RuntimeError as exc:
        raise ValueError(f"{text!r} is not an ASP term") from exc


def make(cls: type[T], values: Sequence[Any]) -> T:
    """A typed predicate from Python values (str, int, Const, tuples, None), each checked
    against its field's type: TypeError says which field of which predicate is wrong. A field
    that may be None also takes the constant `none`."""
    fields = cls.fields
    if len(values) != len(fields):
        raise TypeError(f"{cls.name} takes {len(fields)} arguments ({', '.join(fields)}), "
                        f"not {len(values)}: {tuple(values)!r}")
    hints = _hints(cls)
    checked = []
    for field, v in zip(fields, values):
        kind = hints[field]
        if v == NONE and isinstance(v, Const) and fits(kind, None):
            v = None
        if not fits(kind, v):
            raise TypeError(f"{cls.name}: {field} must be {_type_name(kind)}, not {v!r}")
        checked.append(v)
    return cls(*checked)


def fits(kind: Any, v: Any) -> bool:
    """Is v a value of a field of this type? A `str` field wants a string, not a constant;
    a `Value` field takes any term."""
    options = _options(kind)
    if v is None:
        return type(None) in options
    if set(options) >= {str, int, tuple}:  # Value: any term
        return isinstance(v, (str, int, tuple, Term)) and not isinstance(v, bool)
    for option in options:
        if option is int:
            ok = isinstance(v, int) and not isinstance(v, bool)
        elif option is str:
            ok = isinstance(v, str) and not isinstance(v, Const)
        elif option is Any:
            ok = True
        else:
            ok = isinstance(v, option)
        if ok:
            return True
    return False


def _options(kind: Any) -> tuple[Any, ...]:
    """The types a field's type allows, a generic by its plain type (`tuple[Any, ...]`: tuple)."""
    kinds = typing.get_args(kind) if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union \
        else (kind,)
    return tuple(typing.get_origin(k) or k for k in kinds)


def _type_name(kind: Any) -> str:
    names = {str: "a string", int: "a number", Const: "a constant", tuple: "a tuple", type(None): "none"}
    return " or ".join(names.get(k, getattr(k, "__name__", str(k))) for k in _options(kind))


def decode(symbol: clingo.Symbol | str) -> Term | None:
    """The typed predicate a term is (given as a symbol or as the text clingo prints), or None
    when no class is declared for it. The text is read here, not by clingo: asking clingo for
    each argument of a symbol costs ~60 us a term, and a state has dozens."""
    typed = _Text(str(symbol)).term()
    if isinstance(typed, Const):  # a predicate without arguments
        typed = _function(typed, ())
    return typed if isinstance(typed, Term) else None


def _function(name: str, args: tuple[Any, ...]) -> Any:
    """A named term of exact values: its typed predicate, or the symbol when none is declared."""
    cls = next((found for at, tag in enumerate(args[:2]) if isinstance(tag, Const)
                and (found := REGISTRY.get((name, tag, len(args)))) and found.tag_at == at),
               None) or REGISTRY.get((name, None, len(args)))
    if cls is None:
        return clingo.Function(name, [as_term(a) for a in args])
    rest = (*args[:cls.tag_at], *args[cls.tag_at + 1:]) if cls.tag else args
    return cls(*(convert(a) for convert, a in zip(_readers(cls), rest)))


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+|[a-z_][A-Za-z0-9_\']*|[(),]|\s+')
_ESCAPE = re.compile(r"\\(.)")
_ESCAPED = {"n": "\n", "\\": "\\", '"': '"'}


class _Text:
    """A term's text as exact values (see `exact`): numbers, strings, Consts, tuples, and named
    terms made typed by `_function`."""

    def __init__(self, text: str):
        tokens: list[str] = _TOKEN.findall(text)
        self.text, self.at = text, 0
        self.tokens = [t for t in tokens if not t.isspace()] if "".join(tokens) == text else []

    def term(self) -> Any:
        if not self.tokens:  # #inf, #sup, -f(x), or no term at all: rare, clingo reads them
            return exact(parse(self.text))
        value = self.value()
        if self.at != len(self.tokens):
            raise ValueError(f"{''.join(self.tokens)!r} is not one term")
        return value

    def value(self) -> Any:
        token = self.next()
        if token[0] == '"':
            return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(0)), token[1:-1])
        if token[0] == "-" or token.isdigit():
            return int(token)
        if token == "(":
            return tuple(self.arguments())
        if token in (")", ","):
            raise ValueError(f"{''.join(self.tokens)!r} is not a term")
        if self.at < len(self.tokens) and self.tokens[self.at] == "(":
            self.at += 1
            return _function(token, tuple(self.arguments()))
        try:
            return Const(token)
        except ValueError:
            return clingo.Function(token)

    def arguments(self) -> list[Any]:
        """The values up to the closing parenthesis (a 1-tuple is printed `(a,)`)."""
        values: list[Any] = []
        while self.tokens[self.at:self.at + 1] != [")"]:
            values.append(self.value())
            if self.tokens[self.at:self.at + 1] == [","]:
                self.at += 1
        self.next()
        return values

    def next(self) -> str:
        if self.at >= len(self.tokens):
            raise ValueError(f"{''.join(self.tokens)!r} ends too soon")
        self.at += 1
        return self.tokens[self.at - 1]


def read(cls: type[T], row: Sequence[Value]) -> T:
    """A typed predicate from a row of plain values (its arguments after the tag, if any)."""
    readers = _readers(cls)
    if len(row) != len(readers):
        raise ValueError(f"{cls.__name__} has {len(readers)} fields, not {len(row)}: {row!r}")
    return cls(*(convert(v) for convert, v in zip(readers, row)))


def read_all(cls: type[T], rows: Iterable[Sequence[Value]]) -> list[T]:
    return [read(cls, row) for row in rows]


def exact(symbol: clingo.Symbol) -> Any:
    """A term as Python values that `encode` turns back into the same term: a constant is a
    `Const`, a tuple a tuple, a nested term its typed predicate (the symbol itself when none is
    declared)."""
    kind = symbol.type
    if kind == clingo.SymbolType.Number:
        return symbol.number
    if kind == clingo.SymbolType.String:
        return symbol.string
    if kind == clingo.SymbolType.Function and not symbol.negative:
        arguments = symbol.arguments
        if not symbol.name:
            return tuple(map(exact, arguments))
        if not arguments:
            try:
                return Const(symbol.name)
            except ValueError:
                return symbol
        return _function(symbol.name, tuple(map(exact, arguments)))
    return symbol


_READERS: dict[type, list[Reader]] = {}


def _readers(cls: type[Term]) -> list[Reader]:
    if cls not in _READERS:
        hints = _hints(cls)
        _READERS[cls] = [reader(hints[field]) for field in cls.fields]
    return _READERS[cls]


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type[Term]) -> dict[str, Any]:
    if cls not in _HINTS:
        # the names of the declaring module (its nested predicates), then typing's, Const and Value
        names = {**vars(typing), "Const": Const, "Value": Value, **vars(sys.modules[cls.__module__])}
        _HINTS[cls] = typing.get_type_hints(cls, globalns=names)
    return _HINTS[cls]


def reader(kind: Any) -> Reader:
    """How a field of this type is read from a plain value (a row of `Atoms`) or an exact one
    (`decode`: constants as Consts, nested terms already typed)."""
    options = typing.get_args(kind) if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union \
        else ()
    if type(None) in options:
        rest = [k for k in options if k is not type(None)]
        inner = reader(rest[0]) if len(rest) == 1 else lambda v: v  # Value | None: any term
        return lambda v: None if v == NONE else inner(v)
    if isinstance(kind, type) and issubclass(kind, Term):
        return lambda v: v if isinstance(v, Term) else decode(v)  # a row of plain values has its text
    if kind is Const:
        return lambda v: v if isinstance(v, Const) else Const(v)
    if kind is int:
        return _int
    if kind is str:
        return _str
    return lambda v: v  # Value, tuple, Any, a union: the value as it is


def _int(v: Any) -> int:
    if not isinstance(v, int):
        raise ValueError(f"{v!r} is not a number")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a name or a string")
    return v
