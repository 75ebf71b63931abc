"""The one door to clingo: programs from `.lp` files, instance facts from typed Python values.

`Reasoner`: each call builds a fresh `clingo.Control`, adds the program files (read once and
cached) and the facts, grounds, solves, and copies the shown atoms out as plain Python values.
`TurnReasoner` gives the same answers for the bots' many calls over one KB without parsing and
grounding the KB each time (that was two thirds of a turn): see its docstring. Free user text
never reaches clingo as program text: facts are `clingo.Symbol`s built by `atom()`.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import clingo
from clingo import ast

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


def program_text(path: Path) -> str:
    """Each `.lp` file is read from disk once per process (again if it changes on disk). Programs
    are added as text; when one fails, `locate_error` names the file and line."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise ReasonerError(f"cannot read ASP program {path}: {exc.strerror}") from exc
    return _program_text(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _program_text(path: Path, _mtime: int, _size: int) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReasonerError(f"cannot read ASP program {path}: {exc.strerror}") from exc


def locate_error(paths: Sequence[Path], fallback: str) -> ReasonerError:
    """The error of a program that failed, named by file and line: each file is loaded by path
    and grounded on its own (only after a failure: a good program never pays for it)."""
    for path in paths:
        messages: list[str] = []
        ctl = clingo.Control(["--warn=none"], logger=lambda _code, msg: messages.append(msg))
        try:
            ctl.load(str(path))
            ctl.ground([("base", [])], context=_AnyFunction())
        except RuntimeError as exc:
            return ReasonerError("".join(messages).strip() or f"{path}: {exc}")
    return ReasonerError(fallback)


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
            raise locate_error([*self.programs, *extra], "".join(messages).strip() or str(exc)) from exc
        if shown is None:
            raise ReasonerError("the program has no answer set (an integrity constraint failed)")
        atoms: Atoms = defaultdict(list)
        for sym in shown:
            atoms[sym.name].append(tuple(value(a) for a in sym.arguments))
        return {name: sorted(args, key=repr) for name, args in atoms.items()}


STEP = "t"  # the program parameter that keeps each call's atoms apart
OPEN = "call_open"  # the external atom that shows one call's answer


class TurnReasoner:
    """Many calls of one rule set over one KB, in a single multi-shot `clingo.Control`.

    The KB facts are parsed and grounded once (part `base`). The rules are rewritten so that
    every predicate that is not a KB predicate takes one more argument, the call number, and
    go into a part `step(t)`; each call adds its facts with its number, grounds `step(n)` and
    reads the atoms shown for n. Calls cannot see each other's atoms, so the answers are those
    of a fresh `Reasoner` (a test compares them). After RECYCLE calls, or any error, the
    Control is rebuilt, so memory stays bounded.
    """

    RECYCLE = 32
    _shared: dict[tuple, TurnReasoner] = {}
    _programs: dict[str, str] = {}  # digest of the rules and the KB's predicates -> rewritten text

    @classmethod
    def shared(cls, kb_files: Sequence[Path], rules: Sequence[Path], cache: Path | None = None) -> TurnReasoner:
        """One per KB and rule set in a process: chats of the same menu share the grounded KB."""
        key = (tuple(map(str, kb_files)), tuple(map(str, rules)))
        if key not in cls._shared:
            if len(cls._shared) >= 8:
                cls._shared.pop(next(iter(cls._shared)))
            cls._shared[key] = cls(kb_files, rules, cache)
        return cls._shared[key]

    def __init__(self, kb_files: Sequence[Path], rules: Sequence[Path], cache: Path | None = None):
        self.kb_files, self.rules = [Path(p) for p in kb_files], [Path(p) for p in rules]
        self.cache = cache  # a folder for the rewritten rules, so a new process need not rewrite them
        self._ctl: clingo.Control | None = None
        self._calls = 0
        self._lock = threading.Lock()  # a call during the warm-up waits for it

    def warm(self) -> None:
        """Ground the KB and the rules now (a chat does it in the background at start), so the
        first call costs what any call costs."""
        with self._lock:
            if self._ctl is None:
                self._ctl = self._start()

    def _start(self) -> clingo.Control:
        messages: list[str] = []
        ctl = clingo.Control(["--warn=none"], logger=lambda _code, msg: messages.append(msg))
        try:
            for path in self.kb_files:
                ctl.add("kb", [], program_text(path))
            ctl.ground([("kb", [])])
            kb = {(name, arity) for name, arity, _positive in ctl.symbolic_atoms.signatures}
            ctl.add("base", [], self._program(kb))
            ctl.ground([("base", [])])
        except RuntimeError as exc:
            raise locate_error([*self.kb_files, *self.rules], "".join(messages).strip() or str(exc)) from exc
        self._calls = 0
        return ctl

    def _program(self, kb: set[tuple[str, int]]) -> str:
        """The rewritten rules as program text. Rewriting walks every rule in Python (a few hundred
        ms); its result depends only on the rule files and which predicates the KB has, so it is
        made once per process and kept on disk (self.cache) for the next process."""
        texts = [program_text(path) for path in self.rules]
        digest = hashlib.sha256(repr((texts, sorted(kb))).encode()).hexdigest()[:24]
        if digest in self._programs:
            return self._programs[digest]
        stored = self.cache / f"rules-{digest}.lp" if self.cache else None
        try:
            text = stored.read_text(encoding="utf-8") if stored else None
        except OSError:
            text = None
        if text is None:
            statements: list[ast.AST] = []
            for program in texts:
                ast.parse_string(program, statements.append)
            text = "\n".join(str(statement) for statement in self._rewrite(statements, kb)) + "\n"
            if stored:
                save_quietly(stored, text)
        self._programs[digest] = text
        return text

    def _rewrite(self, statements: list[ast.AST], kb: set[tuple[str, int]]) -> list[ast.AST]:
        """Rules that depend on the KB only go to `base` (grounded once); the others go to
        `step(t)`, their call-dependent predicates taking t as one more argument."""
        where = statements[0].location
        step = ast.Function(where, STEP, [], False)
        rules = [s for s in statements if s.ast_type == ast.ASTType.Rule]
        static = static_predicates(rules, kb)

        def stepped(symbol: ast.AST) -> ast.AST:
            if symbol.ast_type == ast.ASTType.Pool:  # p(a;b) is the pool p(a);p(b)
                return symbol.update(arguments=[stepped(s) for s in symbol.arguments])
            if symbol.ast_type == ast.ASTType.Function and symbol.name and \
                    (symbol.name, len(symbol.arguments)) not in static:
                return symbol.update(arguments=[*symbol.arguments, step])
            return symbol

        class AddStep(ast.Transformer):
            def visit_SymbolicAtom(self, node):
                return node.update(symbol=stepped(node.symbol))

        base = [ast.Program(where, "base", [])]
        # "#show." hides every atom; only the show terms below are shown, and only while the
        # call's external `call_open(t)` is true (it is released after the call, so the model
        # stays as small as one call's answer however many calls the Control has seen)
        out: list[ast.AST] = []
        ast.parse_string(f"#program step({STEP}). #show. #external {OPEN}({STEP}).", out.append)
        for statement in statements:
            if statement.ast_type == ast.ASTType.Program:
                continue
            if statement.ast_type == ast.ASTType.ShowSignature:
                # #show p/n.  ->  #show (t, p(X1..Xn)) : p(X1..Xn[, t]).
                args = [ast.Variable(where, f"X{i}") for i in range(statement.arity)]
                term = ast.Function(where, "", [step, ast.Function(where, statement.name, args, False)], False)
                body = ast.Literal(where, ast.Sign.NoSign, ast.SymbolicAtom(
                    stepped(ast.Function(where, statement.name, args, False))))
                is_open = ast.Literal(where, ast.Sign.NoSign, ast.SymbolicAtom(ast.Function(where, OPEN, [step], False)))
                out.append(ast.ShowTerm(where, term, [body, is_open]))
            elif statement.ast_type == ast.ASTType.Rule and heads(statement) | body_atoms(statement) <= static:
                base.append(statement)
            else:
                out.append(AddStep()(statement))
        return base + out

    def solve(self, facts: Iterable[clingo.Symbol] = ()) -> Atoms:
        with self._lock:
            return self._solve(facts)

    def _solve(self, facts: Iterable[clingo.Symbol]) -> Atoms:
        if self._ctl is None or self._calls >= self.RECYCLE:
            self._ctl = self._start()
        ctl, self._calls = self._ctl, self._calls + 1
        number = clingo.Number(self._calls)
        try:
            with ctl.backend() as backend:
                for fact in facts:
                    stepped = clingo.Function(fact.name, [*fact.arguments, number], fact.positive)
                    backend.add_rule([backend.add_atom(stepped)])
            ctl.ground([("step", [number])])
            is_open = clingo.Function(OPEN, [number])
            ctl.assign_external(is_open, True)
            shown: list[clingo.Symbol] | None = None
            with ctl.solve(yield_=True) as handle:
                for model in handle:
                    shown = model.symbols(shown=True)
            ctl.release_external(is_open)
        except RuntimeError as exc:
            self._ctl = None
            raise ReasonerError(str(exc)) from exc
        if shown is None:
            self._ctl = None  # an unsatisfiable call would poison every later one
            raise ReasonerError("the program has no answer set (an integrity constraint failed)")
        atoms: Atoms = defaultdict(list)
        for sym in shown:
            call, inner = sym.arguments
            if call == number:
                atoms[inner.name].append(tuple(value(a) for a in inner.arguments))
        return {name: sorted(args, key=repr) for name, args in atoms.items()}


def save_quietly(path: Path, text: str) -> None:
    """Write a cache file in one step (a reader sees all of it or none); a cache that cannot be
    written is only slower, never an error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError:
        pass


def atoms_in(node: ast.AST) -> set[tuple[str, int]]:
    """The predicates (name, arity) of every atom in an AST node."""
    found: set[tuple[str, int]] = set()

    class Collect(ast.Transformer):
        def visit_SymbolicAtom(self, atom):
            symbols = atom.symbol.arguments if atom.symbol.ast_type == ast.ASTType.Pool else [atom.symbol]
            found.update((s.name, len(s.arguments)) for s in symbols if s.ast_type == ast.ASTType.Function)
            return atom

    Collect()(node)
    return found


def heads(statement: ast.AST) -> set[tuple[str, int]]:
    return atoms_in(statement.head) if statement.ast_type == ast.ASTType.Rule else set()


def body_atoms(rule: ast.AST) -> set[tuple[str, int]]:
    return set().union(*(atoms_in(literal) for literal in rule.body))


def static_predicates(rules: list[ast.AST], kb: set[tuple[str, int]]) -> set[tuple[str, int]]:
    """KB predicates, and those whose every rule depends on static predicates only."""
    defined = {p for rule in rules for p in heads(rule)}
    static = kb | defined
    changed = True
    while changed:
        changed = False
        for rule in rules:
            if heads(rule) & static and not body_atoms(rule) <= static:
                static -= heads(rule)
                changed = True
    return static
