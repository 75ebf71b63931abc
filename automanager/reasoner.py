"""The one door to clingo: programs from `.lp` files, instance facts from typed Python values.

Each call builds a fresh `clingo.Control` (simple, no leaked state between turns), adds the
program files (read once and cached) and the facts, grounds, solves, and copies the shown
atoms out as plain Python values. Free user text never reaches clingo as program text: facts
are `clingo.Symbol`s built by `atom()` from str/int values.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import clingo

Value = str | int | tuple  # a Python view of a clingo term: str for strings and constants
Atoms = dict[str, list[tuple[Value, ...]]]  # predicate name -> argument tuples, sorted


class ReasonerError(Exception):
    """A program could not be parsed, grounded or solved; the message names file and line."""


def term(value: Any) -> clingo.Symbol:
    """A typed Python value as a clingo term: int -> number, str -> string, Const -> constant."""
    if isinstance(value, clingo.Symbol):
        return value
    if isinstance(value, bool):
        raise TypeError("booleans are not ASP terms; use a constant")
    if isinstance(value, int):
        return clingo.Number(value)
    if isinstance(value, Const):
        return clingo.Function(str(value))
    if isinstance(value, str):
        return clingo.String(value)
    if isinstance(value, tuple):
        return clingo.Tuple_([term(v) for v in value])
    raise TypeError(f"cannot turn {type(value).__name__} into an ASP term")


class Const(str):
    """A string meant as an ASP constant (fresco, large), not as a quoted string."""

    __slots__ = ()

    def __new__(cls, name: str) -> Const:
        if not re.fullmatch(r"[a-z][A-Za-z0-9_]*", name):
            raise ValueError(f"{name!r} is not an ASP constant")
        return super().__new__(cls, name)


def atom(name: str, *args: Any) -> clingo.Symbol:
    """Build a fact such as atom("order", "Bean Bowl", 2) -> order("Bean Bowl",2)."""
    return clingo.Function(name, [term(a) for a in args])


def value(symbol: clingo.Symbol) -> Value:
    """A clingo term as a plain Python value (strings and constants both become str)."""
    if symbol.type == clingo.SymbolType.Number:
        return symbol.number
    if symbol.type == clingo.SymbolType.String:
        return symbol.string
    if symbol.type == clingo.SymbolType.Function and not symbol.arguments:
        return symbol.name
    if symbol.type == clingo.SymbolType.Function and not symbol.name:
        return tuple(value(a) for a in symbol.arguments)
    return str(symbol)


@lru_cache(maxsize=None)
def program_text(path: Path) -> str:
    """Each `.lp` file is read from disk once per process, and checked on its own first.

    The check loads the file by path so that clingo's syntax and safety errors name the
    file and line; later calls add the cached text.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReasonerError(f"cannot read ASP program {path}: {exc.strerror}") from exc
    messages: list[str] = []
    ctl = clingo.Control(["--warn=none"], logger=lambda _code, msg: messages.append(msg))
    try:
        ctl.load(str(path))
        ctl.ground([("base", [])], context=_AnyFunction())
    except RuntimeError as exc:
        raise ReasonerError("".join(messages).strip() or f"{path}: {exc}") from exc
    return text


class _AnyFunction:
    """Answers every @function during the one-off check of a single file."""

    def __getattr__(self, _name: str):
        return lambda *args: clingo.String("")


class Reasoner:
    """A fixed set of program files; `solve()` adds per-call facts and returns the shown atoms."""

    def __init__(self, programs: Sequence[Path], context: object | None = None):
        self.programs = [Path(p) for p in programs]
        self.context = context

    def solve(self, facts: Iterable[clingo.Symbol] = (), extra: Sequence[Path] = ()) -> Atoms:
        messages: list[str] = []
        ctl = clingo.Control(["--warn=none"], logger=lambda _code, msg: messages.append(msg))
        texts = [program_text(path) for path in [*self.programs, *extra]]
        try:
            for text in texts:
                ctl.add("base", [], text)
            with ctl.backend() as backend:
                for fact in facts:
                    backend.add_rule([backend.add_atom(fact)])
            ctl.ground([("base", [])], context=self.context)
            shown: list[clingo.Symbol] | None = None
            with ctl.solve(yield_=True) as handle:
                for model in handle:
                    shown = model.symbols(shown=True)
        except RuntimeError as exc:
            raise ReasonerError("".join(messages).strip() or str(exc)) from exc
        if shown is None:
            raise ReasonerError("the program has no answer set (an integrity constraint failed)")
        atoms: Atoms = defaultdict(list)
        for sym in shown:
            atoms[sym.name].append(tuple(value(a) for a in sym.arguments))
        return {name: sorted(args, key=repr) for name, args in atoms.items()}
