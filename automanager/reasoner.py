"""The one door to clingo: programs from `.lp` files, instance facts from typed Python values.

`Reasoner`: each call builds a fresh `clingo.Control`, adds the program files (read once and
cached) and the facts, grounds, solves, and copies the shown atoms out as plain Python values.
`TurnReasoner` gives the same answers for the bots' many calls over one KB without parsing and
grounding the KB each time (that was two thirds of a turn): see its docstring. Free user text
never reaches clingo as program text: facts are `clingo.Symbol`s built by `atom()`.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import stat
import subprocess
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import clingo
from clingo import ast

from .files import digest, drop_entry, read_cache, write_cache
from .settings import ConfigError, setting

Value = str | int | tuple[Any, ...]  # a Python view of a clingo term: str for strings and constants
WRITER = "state-writer:"  # the name of every thread that writes into a state dir begins so
KEEPER = WRITER + "kb-facts"
Atoms = dict[str, list[tuple[Any, ...]]]  # predicate name -> argument rows (Values), sorted; typed access: terms


LOG = logging.getLogger(__name__)
LOG.addHandler(logging.NullHandler())  # clingo's messages are for the log, not the user's terminal


def logged(errors: list[str]) -> Callable[[clingo.MessageCode, str], None]:
    """A `clingo.Control` logger: every message goes to the log (warnings are on: each one is a
    bug in the rules, see tests/test_asp_warnings.py), and errors to `errors` too, for the
    ReasonerError that names file and line."""

    def log(code: clingo.MessageCode, message: str) -> None:
        if code == clingo.MessageCode.RuntimeError:
            errors.append(message)
        LOG.warning("clingo %s: %s", code.name, message.strip())

    return log


@contextmanager
def caches_written() -> Iterator[None]:
    """On leaving, wait for the work this process does in the background in a state dir (caches
    kept, a new menu version loaded, the committer warmed: threads named WRITER...), so that a
    state dir removed right after (a scenario's, a benchmark's) is not written into meanwhile.
    One thread may start another: wait until none is left."""
    try:
        yield
    finally:
        while writing := [thread for thread in threading.enumerate()
                          if thread.name.startswith(WRITER) and thread is not threading.current_thread()]:
            for thread in writing:
                thread.join()


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
    kind = symbol.type  # each attribute is a call into clingo: read each once (a menu has ~15,000 terms)
    if kind == clingo.SymbolType.Number:
        return symbol.number
    if kind == clingo.SymbolType.String:
        return symbol.string
    if kind == clingo.SymbolType.Function:
        arguments = symbol.arguments
        if not arguments:
            return symbol.name
        if not symbol.name:
            return tuple(map(value, arguments))
    return str(symbol)


@lru_cache(maxsize=100_000)
def decoded(symbol: clingo.Symbol) -> tuple[str, tuple[Value, ...]]:
    """An atom's name and arguments as Python values, kept: a turn's answer repeats most of the
    last one (the order's state), and reading a term is a call into clingo per part of it."""
    return symbol.name, tuple(map(value, symbol.arguments))


PROGRAM_MAX = 64_000_000  # bytes: the largest menu pack's menu.lp is well under 1 MB
MAX_NUMBER = 2**31 - 1  # clingo's numbers are 32-bit


def program_text(path: Path) -> str:
    """Each `.lp` file is read from disk once per process (again if it changes on disk). Programs
    are added as text; when one fails, `locate_error` names the file and line. A damaged file (a
    folder, a symlink loop, a device such as /dev/zero, too large, not UTF-8) is one error naming it."""
    try:
        status = path.stat()
    except OSError as exc:
        raise ReasonerError(f"cannot read ASP program {path}: {exc.strerror}") from exc
    return _program_text(path, status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=64)
def _program_text(path: Path, _mtime: int, _size: int) -> str:
    try:
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:  # a pipe does not block
            mode = os.fstat(handle.fileno()).st_mode
            if not stat.S_ISREG(mode):
                kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a device or a pipe)"
                raise ReasonerError(f"cannot read ASP program {path}: it is {kind}")
            data = handle.read(PROGRAM_MAX + 1)  # bounded: the file may grow while it is read
    except OSError as exc:
        raise ReasonerError(f"cannot read ASP program {path}: {exc.strerror}") from exc
    if len(data) > PROGRAM_MAX:
        raise ReasonerError(f"cannot read ASP program {path}: larger than {PROGRAM_MAX:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReasonerError(f"cannot read ASP program {path}: not UTF-8 text (byte {exc.start}); save it as "
                            "UTF-8") from None
    refuse_wide_numbers(path, text)
    return text


# a string, a comment or a number of an ASP program: only the numbers outside the first two count
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|%\*.*?\*%|%[^\n]*|(?<![\w\'])([0-9]+)', re.DOTALL)


def refuse_wide_numbers(path: Path, text: str) -> None:
    """clingo's numbers are 32-bit and it wraps a wider one without a word (a price of 2147483648
    would be served as -$21474836.48): such a program is refused, naming the line."""
    for match in TOKEN.finditer(text):
        if match.group(1) and int(match.group(1)) > MAX_NUMBER:
            line = text.count("\n", 0, match.start()) + 1
            raise ReasonerError(f"{path}:{line}: {match.group(1)} is larger than the largest number the rules "
                                f"can hold ({MAX_NUMBER}); use a smaller one")


def locate_error(paths: Sequence[Path], fallback: str) -> ReasonerError:
    """The error of a program that failed, named by file and line: each file is loaded by path
    and grounded on its own (only after a failure: a good program never pays for it)."""
    for path in paths:
        messages: list[str] = []
        ctl = clingo.Control(logger=logged(messages))
        try:
            ctl.load(str(path))
            ctl.ground([("base", [])], context=_AnyFunction())
        except RuntimeError as exc:
            return ReasonerError("".join(messages).strip() or f"{path}: {exc}")
    return ReasonerError(fallback)


GROUND_SECONDS, GROUND_MB = "AUTOMANAGER_GROUND_SECONDS", "AUTOMANAGER_GROUND_MB"
OUT_OF_MEMORY = 3  # how the child of `ground_within_budget` says its grounding did not fit


class OverBudget(ReasonerError):
    """A KB did not finish grounding within its budget of time or memory."""


def ground_within_budget(files: Sequence[Path]) -> None:
    """Refuse a KB whose grounding would not end or not fit (a rule like `p(X+1) :- p(X).`, a
    range like `n(1..1000000000).`, a cross product): clingo cannot be interrupted while it
    grounds, and running out of memory ends the whole process, after a long wait. A KB of plain
    facts grounds in time and memory linear in its text, so it passes at once; any other is
    grounded first in a child process, limited to AUTOMANAGER_GROUND_SECONDS and
    AUTOMANAGER_GROUND_MB of memory more than it starts with."""
    texts = [program_text(path) for path in files]
    if kb_facts(texts) is not None:
        return
    try:
        seconds = setting(GROUND_SECONDS, float, 10.0, "a number of seconds above 0", lambda s: 0 < s < math.inf)
        megabytes = setting(GROUND_MB, int, 1024, "a whole number of megabytes above 0", lambda mb: mb > 0)
    except ConfigError as exc:
        raise ReasonerError(str(exc)) from None
    ruled = [path.name for path, text in zip(files, texts, strict=True) if kb_facts([text]) is None]
    where = f"the pack's {' and '.join(ruled)}"
    fix = "a menu is facts: look for rules, or ranges like n(1..1000000000), and remove them"
    # the package is found where this process found it; nothing of the working folder is imported
    found = os.pathsep.join([str(Path(__file__).parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])])
    try:
        child = subprocess.run([sys.executable, "-P", "-m", __spec__.name, str(megabytes), *map(str, files)],
                               capture_output=True, text=True, timeout=seconds, env={**os.environ, "PYTHONPATH": found})
    except subprocess.TimeoutExpired:
        raise OverBudget(f"{where} did not finish grounding within {seconds:g} s ({GROUND_SECONDS}); {fix}") from None
    if child.returncode == OUT_OF_MEMORY or child.returncode < 0:  # < 0: killed, by the system for its memory
        raise OverBudget(f"{where} needs more than {megabytes} MB to ground ({GROUND_MB}); {fix}")
    if child.returncode:
        said = child.stderr.strip().splitlines()
        raise ReasonerError(f"cannot check that {where} grounds within its budget: {said[-1] if said else child.returncode}")


def ground_in_child(megabytes: int, files: Sequence[str]) -> int:
    """The child of `ground_within_budget`: ground and solve the files as a load does, with at most
    `megabytes` more address space (where the system has the limit: not on Windows; macOS ignores
    it, the time budget still holds). Returns OUT_OF_MEMORY when they do not fit; 0 when they load,
    and also when they have an error: the parent loads them again and names its file and line."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as statm:
            used = int(statm.read().split()[0]) * resource.getpagesize()
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        wanted = used + megabytes * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard))
    except (ImportError, OSError, ValueError):
        pass
    ctl = clingo.Control(["--warn=none"])
    try:
        for path in files:
            ctl.load(path)
        ctl.ground([("base", [])], context=_AnyFunction())
        ctl.solve()
    except MemoryError:
        return OUT_OF_MEMORY
    except RuntimeError:
        pass
    return 0


class _AnyFunction:
    """Answers every @function during the one-off check of a single file."""

    def __getattr__(self, _name: str) -> Callable[..., clingo.Symbol]:
        return lambda *args: clingo.String("")


FACTS = ast.Location(ast.Position("<facts>", 1, 1), ast.Position("<facts>", 1, 1))  # where a call's facts are


class Reasoner:
    """A fixed set of program files; `solve()` adds per-call facts and returns the shown atoms."""

    def __init__(self, programs: Sequence[Path], context: object | None = None):
        self.programs = [Path(p) for p in programs]
        self.context = context

    def solve(self, facts: Iterable[clingo.Symbol] = (), extra: Sequence[Path] = ()) -> Atoms:
        return dict(LazyAtoms(self.shown(facts, extra)))

    def shown(self, facts: Iterable[clingo.Symbol] = (), extra: Sequence[Path] = ()) -> list[clingo.Symbol]:
        """The shown atoms of the answer, as clingo symbols."""
        messages: list[str] = []
        ctl = clingo.Control(logger=logged(messages))
        texts = [program_text(path) for path in [*self.programs, *extra]]
        try:
            for text in texts:
                ctl.add("base", [], text)
            # the facts as rules made from their symbols (a backend opened before grounding
            # made clingo warn about every #show with no atom)
            with ast.ProgramBuilder(ctl) as builder:
                for fact in facts:
                    builder.add(ast.Rule(FACTS, ast.Literal(FACTS, ast.Sign.NoSign, ast.SymbolicAtom(
                        ast.SymbolicTerm(FACTS, fact))), []))
            ctl.ground([("base", [])], context=self.context)
            shown: list[clingo.Symbol] | None = None
            with ctl.solve(yield_=True) as handle:
                for model in handle:
                    shown = model.symbols(shown=True)
        except RuntimeError as exc:
            raise locate_error([*self.programs, *extra], "".join(messages).strip() or str(exc)) from exc
        if shown is None:
            raise ReasonerError("the program has no answer set (an integrity constraint failed)")
        return shown


class LazyAtoms(Mapping[str, list[tuple[Any, ...]]]):
    """Atoms by predicate name, as Python values sorted as `Reasoner.solve` gives them; each
    predicate is turned into Python values when it is first read (every term is a few calls into
    clingo: for a whole menu that took longer than reading it)."""

    def __init__(self, symbols: Iterable[clingo.Symbol]):
        self._symbols: dict[str, list[clingo.Symbol]] = {}
        for symbol in symbols:
            self._symbols.setdefault(symbol.name, []).append(symbol)
        self._values: dict[str, list[tuple[Value, ...]]] = {}

    def __getitem__(self, name: str) -> list[tuple[Value, ...]]:
        if name not in self._values:
            rows = [tuple(map(value, symbol.arguments)) for symbol in self._symbols[name]]
            self._values[name] = sorted(rows, key=repr)
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._symbols)

    def __len__(self) -> int:
        return len(self._symbols)


# This module's own text: a rewrite kept on disk by another release of it is not used
REWRITER = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
STEP = "t"  # the program parameter that keeps each call's atoms apart
EVERY_CALL = "step"  # the part of the rules grounded in every call
OPEN = "call_open"  # the external atom that shows one call's answer


class TurnReasoner:
    """Many calls of one rule set over one KB, in a single multi-shot `clingo.Control`.

    The KB facts are parsed and grounded once (part `base`). The rules are rewritten so that
    every predicate that is not a KB predicate takes one more argument, the call number, and
    each call-dependent rule goes into a part of its own, `r<i>(t)`; a call adds its facts with
    its number, grounds the parts of the rules that can fire (`Relevance`) and reads the atoms
    shown for n. Calls cannot see each other's atoms, so the answers are those of a fresh
    `Reasoner` (a test compares them). After RECYCLE calls, or calls that brought RECYCLE_FACTS
    facts (each call's grounding slows with what the earlier ones left: after a few calls over a
    100-item order, a small turn grounded a third slower), or any error, the Control is rebuilt,
    so memory and the cost of a call stay bounded.

    A new Control need not parse the KB text (most of a cold turn's reasoning): the KB's facts
    the rules mention are kept (`Grounded`), in memory and on disk, as clingo's aspif, which it
    reads in less than half the time. A part is parsed when a call first needs it (a call needs
    about a quarter of them), or all at the warm-up.
    """

    RECYCLE, RECYCLE_FACTS = 32, 2000
    _shared: dict[tuple[Any, ...], TurnReasoner] = {}
    _programs: ClassVar[dict[str, Rewrite]] = {}  # digest of the rules and KB predicates -> rewrite
    _grounded: ClassVar[dict[str, Grounded]] = {}  # digest of the KB, the rules and this code -> its facts

    @classmethod
    def shared(cls, kb_files: Sequence[Path], rules: Sequence[Path], cache: Path | None = None,
               inputs: Iterable[str] | None = None) -> TurnReasoner:
        """One per KB and rule set in a process: chats of the same menu share the grounded KB."""
        inputs = frozenset(inputs) if inputs is not None else None
        key = (tuple(map(str, kb_files)), tuple(map(str, rules)), inputs)
        if key not in cls._shared:
            if len(cls._shared) >= 8:
                cls._shared.pop(next(iter(cls._shared)))
            cls._shared[key] = cls(kb_files, rules, cache, inputs)
        return cls._shared[key]

    def __init__(self, kb_files: Sequence[Path], rules: Sequence[Path], cache: Path | None = None,
                 inputs: Iterable[str] | None = None):
        """inputs: the names of the predicates a call's facts may have (the bot declares them).
        Everything else the rules read and do not derive from them is the KB's, grounded once,
        also when the KB has no such fact today (a pack without store rules); None: every
        predicate the KB lacks may come with a call."""
        self.kb_files, self.rules = [Path(p) for p in kb_files], [Path(p) for p in rules]
        self.inputs = frozenset(inputs) if inputs is not None else None
        self.cache = cache  # a folder for the rewritten rules, so a new process need not rewrite them
        self._ctl: clingo.Control | None = None
        self._relevance: Relevance | None = None
        self._parts: dict[str, str] = {}  # the text of each part not added to the Control yet
        self._unkept: tuple[Any, ...] | None = None  # what `Grounded.of` needs, when the KB was read from its text
        self._keeping: threading.Thread | None = None  # the thread keeping them
        self._calls = self._facts = 0  # calls made on this Control, and the facts they brought
        self._used: list[str] = []  # the keys of the cache entries the Control was made from
        self._lock = threading.Lock()  # a call during the warm-up waits for it

    def warm(self) -> None:
        """Ground the KB and the rules now (a chat does it in the background at start), so the
        first call costs what any call costs."""
        with self._lock:
            if self._ctl is None:
                self._ctl = self._start()
            self._add(self._ctl, list(self._parts))
            unkept, self._unkept = self._unkept, None
        self._keep_in_background(unkept)

    def _start(self, stored: bool = True) -> clingo.Control:
        messages: list[str] = []
        ctl = clingo.Control(logger=logged(messages))
        kb_texts = [program_text(path) for path in self.kb_files]
        key = digest([*kb_texts, "", *map(program_text, self.rules), REWRITER])
        grounded = self._stored(key, kb_texts) if stored else None
        self._used = [key] if grounded else []
        try:
            if grounded:
                rewrite = self._program(grounded.kb)
                ctl.add("base", [], grounded.facts)
            else:
                for text in kb_texts:
                    ctl.add("kb", [], text)
                ctl.ground([("kb", [])])
                kb = {(name, arity) for name, arity, _positive in ctl.symbolic_atoms.signatures}
                rewrite = self._program(kb, stored)
                self._unkept = key, kb, len(ctl.symbolic_atoms), rewrite, kb_texts
            ctl.add("base", [], rewrite.base)
            ctl.ground([("base", [])])
        except RuntimeError as exc:
            if stored and self._used:
                self._drop_used("clingo cannot read it")
                return self._start(stored=False)  # a cache clingo cannot read is only slower: made again
            raise locate_error([*self.kb_files, *self.rules], "".join(messages).strip() or str(exc)) from exc
        self._relevance, self._parts, self._calls, self._facts = rewrite.relevance, dict(rewrite.parts), 0, 0
        return ctl

    def _drop_used(self, why: str) -> None:
        """The cache entries the Control was made from go, from memory and disk (made again)."""
        for key in self._used:
            self._grounded.pop(key, None)
            self._programs.pop(key, None)
            if self.cache:
                for path in (self.cache / f"kb-{key}.cache", self.cache / f"rules-{key}.cache"):
                    if path.exists():
                        drop_entry(path, why)
        self._used = []

    def _add(self, ctl: clingo.Control, parts: Iterable[str]) -> None:
        """Parse the parts not parsed yet into the Control."""
        text = "".join(self._parts.pop(part, "") for part in parts)
        if text:
            ctl.add("base", [], text)

    def _stored(self, key: str, kb_texts: Sequence[str]) -> Grounded | None:
        """The KB's facts for these rules, from memory or the disk cache (an entry on disk is used
        only if its facts are those of the KB text: `Grounded.says`)."""
        if key not in self._grounded and self.cache:
            path = self.cache / f"kb-{key}.cache"
            saved, facts = read_cache(path)
            if saved is None:
                return None
            try:
                grounded = Grounded({(name, arity) for name, arity in saved}, facts)
            except (TypeError, ValueError):
                drop_entry(path, "not a KB's facts")
                return None
            try:
                rewrite = self._program(grounded.kb)
            except (RuntimeError, ValueError):
                rewrite = None
            if rewrite is None or not grounded.says(kb_texts, rewrite):
                drop_entry(path, "its facts are not the KB's")
                return None
            self._grounded[key] = grounded
        return self._grounded.get(key)

    def _keep_in_background(self, unkept: tuple[Any, ...] | None) -> None:
        """Keep the facts of a KB just read from its text for the next Control, in a thread of
        its own: neither the call that read it nor one waiting for the Control waits for this
        (the process does, at its end, so that the next one finds them)."""
        if unkept is not None:
            self._keeping = threading.Thread(target=self._keep, args=unkept, name=KEEPER)
            self._keeping.start()

    def _keep(self, key: str, *made_of: Any) -> None:
        grounded = Grounded.of(*made_of)
        if grounded is None:
            return
        if len(self._grounded) >= 8:
            self._grounded.pop(next(iter(self._grounded)), None)
        self._grounded[key] = grounded
        if self.cache:
            write_cache(self.cache / f"kb-{key}.cache", sorted(grounded.kb), grounded.facts)

    def _program(self, kb: set[tuple[str, int]], stored: bool = True) -> Rewrite:
        """The rewritten rules, and what each part needs. Rewriting walks every rule in Python (a
        few hundred ms); its result depends only on the rule files, which predicates the KB has
        and this code, so it is made once per process and kept on disk (self.cache) for the next
        (unless `stored` is false: then it is made again)."""
        texts = [program_text(path) for path in self.rules]
        key = digest([repr((texts, sorted(kb), sorted(self.inputs or ()), self.inputs is None, REWRITER))])
        if stored:
            self._used.append(key)
        if key in self._programs and stored:
            return self._programs[key]
        path = self.cache / f"rules-{key}.cache" if self.cache else None
        saved = read_cache(path) if stored else (None, "")
        rewrite = Rewrite.read(*saved) if saved[0] is not None else None
        if rewrite is None and saved[0] is not None and path:
            drop_entry(path, "not a rewrite")
        if rewrite is None:
            rewrite = self._rewrite(analysed(tuple(texts)), kb)
            if path:
                write_cache(path, *rewrite.saved())
        self._programs[key] = rewrite
        return rewrite

    def _rewrite(self, program: Analysed, kb: set[tuple[str, int]]) -> Rewrite:
        """Rules that depend on the KB only go to `base` (grounded once); the others get a part
        `r<i>(t)` each (`step(t)` when they need nothing a call brings), their call-dependent
        predicates taking t as one more argument."""
        rules = program.rules
        static = static_predicates(list(rules.values()), kb, self.inputs)
        never = never_true(list(rules.values()), static, kb)
        stepper = Stepper(program, static)
        base = ["#program base."]
        # "#show." hides every atom; only the show terms below are shown, and only while the
        # call's external `call_open(t)` is true (it is made false at the next call, so the model
        # stays as small as one call's answer however many calls the Control has seen)
        parts = {EVERY_CALL: [f"#program {EVERY_CALL}({STEP}).", "#show.", f"#external {OPEN}({STEP})."]}
        relevance = Relevance()
        for at, statement in enumerate(program.statements):
            if statement.ast_type in (ast.ASTType.Program, ast.ASTType.Comment, ast.ASTType.Defined):
                continue  # (every call-dependent predicate is declared below)
            needs: list[Pattern] = []
            if statement.ast_type == ast.ASTType.ShowSignature:
                needs, said = stepper.dynamic([(statement.name, *[None] * statement.arity)]), stepper.shown(statement)
            elif (rule := rules.get(at)) and any((p[0], len(p) - 1) in never for p in rule.needs):
                continue  # it needs what no fact or rule makes true: it never fires
            elif rule and rule.heads | rule.body <= static:
                base.append(stepper.text(at, statement))
                continue
            else:
                needs = stepper.dynamic(rule.needs) if rule else []
                said = stepper.text(at, statement)
            gives = rule.gives if rule else []
            part = relevance.add(needs, gives) if needs else EVERY_CALL
            if not needs:
                relevance.always.extend(gives)
            parts.setdefault(part, [f"#program {part}({STEP})."]).append(said)
        base += self._declare(program.mentioned, static, kb, parts, relevance)
        return Rewrite("".join(f"{line}\n" for line in base), {part: "".join(f"{line}\n" for line in lines)
                                                                for part, lines in parts.items()},
                       relevance, {name for name, _arity in program.mentioned} | {OPEN})

    def _declare(self, mentioned: set[tuple[str, int]], static: set[tuple[str, int]], kb: set[tuple[str, int]],
                 parts: dict[str, list[str]], relevance: Relevance) -> list[str]:
        """The base's declarations, and a part per input a call may bring. A call's facts come in
        with the grounding of the rules (a backend costs a step of its own): p(X1..Xn, t) for each
        fact p(X1..Xn) of the call, from `Given`. Each such predicate is declared: a call grounds
        only some parts, so clingo would warn about atoms the other parts define (a misspelling
        shows when the rules are one program)."""
        declared = [f"#defined {name}/{arity}." for name, arity in sorted((mentioned & static) - kb)]
        for name, arity in sorted(mentioned - static - {(OPEN, 1)}):
            declared.append(f"#defined {name}/{arity + 1}.")
            if self.inputs is not None and name not in self.inputs:
                continue  # derived: no call brings it
            variables = [f"X{i}" for i in range(arity)]
            fact = f"{name}({', '.join(variables)})" if arity else name
            parts[given_part(name, arity)] = [
                f"#program {given_part(name, arity)}({STEP}).",
                f"{name}({', '.join([*variables, STEP])}) :- {fact} = @given({name}, {arity}, {STEP})."]
            relevance.inputs.add((name, arity))
        return declared

    def solve(self, facts: Iterable[clingo.Symbol] = ()) -> Atoms:
        facts = list(facts)
        with self._lock:
            try:
                atoms = self._solve(facts)
            except ReasonerError as exc:
                if not self._used or not isinstance(exc.__cause__, RuntimeError):
                    raise
                # a part of rules read from the cache clingo cannot read: made again, asked again
                self._drop_used("clingo cannot read a part of it")
                self._ctl = self._start(stored=False)
                atoms = self._solve(facts)
            unkept, self._unkept = self._unkept, None
        self._keep_in_background(unkept)
        return atoms

    def _solve(self, facts: Iterable[clingo.Symbol]) -> Atoms:
        facts = list(facts)
        if self._ctl is None or self._calls >= self.RECYCLE or self._facts >= self.RECYCLE_FACTS:
            self._ctl = self._start()
        ctl, self._calls, self._facts = self._ctl, self._calls + 1, self._facts + len(facts)
        number = clingo.Number(self._calls)
        given, relevance = Given(facts), self._relevance
        assert relevance is not None  # set by _start
        if self.inputs is not None and (stray := {name for name, _ in given.facts} - self.inputs):
            raise ReasonerError(f"not an input of these rules: {', '.join(sorted(stray))}")
        parts = [EVERY_CALL, *(given_part(*sig) for sig in given.facts if sig in relevance.inputs),
                 *relevance.live(facts)]
        try:
            self._add(ctl, parts)
            if self._calls > 1:  # hide the last call's answer (now: right after a solve it costs a step)
                ctl.assign_external(clingo.Function(OPEN, [clingo.Number(self._calls - 1)]), False)
            ctl.ground([(part, [number]) for part in parts], context=given)
            ctl.assign_external(clingo.Function(OPEN, [number]), True)
            shown: list[clingo.Symbol] | None = None
            with ctl.solve(yield_=True) as handle:
                for model in handle:
                    shown = model.symbols(shown=True)
        except RuntimeError as exc:
            self._ctl = None
            raise ReasonerError(str(exc)) from exc
        if shown is None:
            self._ctl = None  # an unsatisfiable call would poison every later one
            raise ReasonerError("the program has no answer set (an integrity constraint failed)")
        atoms: Atoms = defaultdict(list)
        for sym in shown:  # (call, atom): only this call's are shown (call_open)
            name, row = decoded(sym.arguments[1])
            atoms[name].append(row)
        return {name: sorted(args, key=repr) for name, args in atoms.items()}


class Stepper:
    """Rule statements with the call's step t as one more argument of each call-dependent atom
    (those whose predicate is not static), kept per statement and which of its predicates are the
    call's (another KB mostly changes none of them)."""

    def __init__(self, program: Analysed, static: set[tuple[str, int]]):
        self.program, self.static = program, static
        self.where = program.statements[0].location
        self.step = ast.Function(self.where, STEP, [], False)
        stepped = self.stepped

        class AddStep(ast.Transformer):
            def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
                return node.update(symbol=stepped(node.symbol))

        self.add_step = AddStep()

    def stepped(self, symbol: ast.AST) -> ast.AST:
        if symbol.ast_type == ast.ASTType.Pool:  # p(a;b) is the pool p(a);p(b)
            return symbol.update(arguments=[self.stepped(s) for s in symbol.arguments])
        if symbol.ast_type == ast.ASTType.Function and symbol.name and \
                (symbol.name, len(symbol.arguments)) not in self.static:
            return symbol.update(arguments=[*symbol.arguments, self.step])
        return symbol

    def dynamic(self, patterns: list[Pattern]) -> list[Pattern]:
        return [p for p in patterns if (p[0], len(p) - 1) not in self.static]

    def text(self, at: int, statement: ast.AST) -> str:
        key = (at, frozenset(self.program.names[at] - self.static))
        if key not in self.program.texts:
            self.program.texts[key] = str(self.add_step(statement) if key[1] else statement)
        return self.program.texts[key]

    def shown(self, statement: ast.AST) -> str:
        """#show p/n.  ->  #show (t, p(X1..Xn)) : p(X1..Xn[, t]), call_open(t)."""
        where, step = self.where, self.step
        args = [ast.Variable(where, f"X{i}") for i in range(statement.arity)]
        term = ast.Function(where, "", [step, ast.Function(where, statement.name, args, False)], False)
        body = ast.Literal(where, ast.Sign.NoSign, ast.SymbolicAtom(
            self.stepped(ast.Function(where, statement.name, args, False))))
        is_open = ast.Literal(where, ast.Sign.NoSign, ast.SymbolicAtom(ast.Function(where, OPEN, [step], False)))
        return str(ast.ShowTerm(where, term, [body, is_open]))  # already stepped


@dataclass(frozen=True)
class Rewrite:
    """Rules rewritten for a KB: `base` (the rules over the KB only, grounded once) and the text
    of each part grounded per call, what each part needs, and the names of the predicates the
    rules mention (the KB's other facts make no difference to them)."""

    base: str
    parts: dict[str, str]
    relevance: Relevance
    mentions: set[str]

    def saved(self) -> tuple[dict[str, Any], str]:
        """As `write_cache` keeps it: the texts one after another, their lengths in the data."""
        texts = {"": self.base, **self.parts}
        return {"texts": [[part, len(text)] for part, text in texts.items()], "relevance": self.relevance.to_json(),
                "mentions": sorted(self.mentions)}, "".join(texts.values())

    @classmethod
    def read(cls, saved: Any, text: str) -> Rewrite | None:
        """A rewrite from what `saved` gave, or None if it is not one."""
        try:
            texts, at = {}, 0
            for part, length in saved["texts"]:
                texts[part], at = text[at:at + length], at + length
            return cls(texts.pop(""), texts, Relevance.from_json(saved["relevance"]), set(saved["mentions"]))
        except (LookupError, TypeError, ValueError):
            return None


@dataclass(frozen=True)
class Grounded:
    """What a KB gives a rule set: its predicates, and as aspif (clingo reads it faster than
    text) its facts of the predicates the rules mention."""

    kb: set[tuple[str, int]]
    facts: str

    @classmethod
    def of(cls, kb: set[tuple[str, int]], kb_atoms: int, rewrite: Rewrite, kb_texts: Sequence[str]) -> Grounded | None:
        """From the KB texts, whose grounding gave kb_atoms atoms; None when its facts would not
        say all the KB says: a statement is not one plain fact (a #const, a rule, a pool), or two
        are the same. The facts are taken as the text says them (asking clingo for each one's
        text took longer than reading the KB)."""
        facts = kb_facts(kb_texts)
        if facts is None or len(facts) != kb_atoms:  # each statement is one atom
            return None
        return cls(kb, aspif(facts, rewrite))

    def says(self, kb_texts: Sequence[str], rewrite: Rewrite) -> bool:
        """Are these the facts of the KB texts (as `of` makes them), of its predicates? A few ms,
        so a cache entry changed in a way its digest cannot tell is not used either."""
        facts = kb_facts(kb_texts)
        return facts is not None and self.facts == aspif(facts, rewrite) and \
            {name for name, _ in facts} == {name for name, _ in self.kb}


def aspif(facts: list[tuple[str, str]], rewrite: Rewrite) -> str:
    """The facts the rules mention as clingo's aspif."""
    return facts_aspif(text for name, text in facts if name in rewrite.mentions)


def facts_aspif(facts: Iterable[str]) -> str:
    """Facts (each a term's text) as clingo's aspif, which it reads in about half the time of
    the same facts as a program."""
    return "asp 1 0 0\n" + "".join(map(_aspif_line, facts)) + "0\n"


@lru_cache(maxsize=65536)  # a new menu version repeats all but a few facts of the last one
def _aspif_line(text: str) -> str:
    return f"4 {len(text.encode())} {text} 0\n"


# A KB statement: a comment, or one plain fact on one line: a name, maybe arguments (strings
# hold anything, the rest no '.', ';', ':', '#' or '%'; `kb_facts` checks the closing
# parenthesis), a dot
FACT = re.compile(r'\s*+(?:%\*.*?\*%|%[^\n]*+|([a-z_][A-Za-z0-9_\']*+)'
                  r'(\((?:[^"\\.%#;:\r\n]++|"(?:[^"\\\r\n]++|\\.)*+")*+)?\.)', re.DOTALL)


def kb_facts(texts: Sequence[str]) -> list[tuple[str, str]] | None:
    """Each fact of KB texts as (name, text); None unless every statement is one plain fact."""
    facts = []
    for text in texts:
        at, end = 0, len(text.rstrip())
        while at < end:
            match = FACT.match(text, at)
            if match is None:
                return None
            name, arguments = match.groups()
            if arguments and not arguments.rstrip().endswith(")"):
                return None
            if name:
                facts.append((name, name + (arguments or "").rstrip()))
            at = match.end()
    return facts


class Given:
    """A call's facts by predicate, for `@given(p, n, t)` (the rule `p(X.., t) :- p(X..) = @given(p, n, t)`
    adds the call number: no new symbol is made in Python)."""

    def __init__(self, facts: Iterable[clingo.Symbol]):
        self.facts: dict[tuple[str, int], list[clingo.Symbol]] = defaultdict(list)
        for fact in facts:
            name, *arguments = fact_shape(fact)
            self.facts[name, len(arguments)].append(fact)

    def given(self, name: clingo.Symbol, arity: clingo.Symbol, _call: clingo.Symbol) -> list[clingo.Symbol]:
        return self.facts.get((name.name, arity.number), [])


def given_part(name: str, arity: int) -> str:
    """The part that brings a call's facts of predicate name/arity."""
    return f"in_{name}_{arity}"


Pattern = tuple[Any, ...]  # an atom's shape: (name, *argument shapes), None for an argument that can be anything


class Relevance:
    """Which call-dependent rules can fire in a call, from the shapes of the call's facts.

    A rule needs each plain positive atom of its body. One whose need fits no fact of the call
    and no head of a rule that can fire derives nothing, so its part is not grounded: grounding
    a rule has a fixed cost whether or not it fires, and that cost was most of a call. Shapes
    keep functions and constants and forget numbers and strings, so the answer errs one way
    only: a rule may be grounded in vain, never left out when it could fire. Calls of the same
    shapes share the answer.
    """

    def __init__(self) -> None:
        self.parts: list[tuple[list[Pattern], list[Pattern]]] = []  # part r<i>: (needs, gives)
        self.always: list[Pattern] = []  # heads of the rules grounded in every call
        self.inputs: set[tuple[str, int]] = set()  # predicates a call's facts may have
        self._index: dict[tuple[str, int], list[tuple[int, int]]] | None = None
        self._answers: dict[frozenset[Pattern], list[str]] = {}

    def add(self, needs: list[Pattern], gives: list[Pattern]) -> str:
        self.parts.append((needs, gives))
        return f"r{len(self.parts) - 1}"

    def to_json(self) -> list[Any]:
        return [self.parts, self.always, sorted(self.inputs)]

    @classmethod
    def from_json(cls, saved: list[Any]) -> Relevance:
        relevance = cls()
        for needs, gives in saved[0]:
            relevance.add([atom_pattern(p) for p in needs], [atom_pattern(p) for p in gives])
        relevance.always = [atom_pattern(p) for p in saved[1]]
        relevance.inputs = {(name, arity) for name, arity in saved[2]}
        return relevance

    def live(self, facts: Sequence[clingo.Symbol]) -> list[str]:
        """The parts to ground for a call with these facts."""
        shapes = frozenset(map(fact_shape, facts))
        if shapes not in self._answers:
            if len(self._answers) >= 512:
                self._answers.clear()
            self._answers[shapes] = self._work_out(shapes)
        return self._answers[shapes]

    def _work_out(self, shapes: frozenset[Pattern]) -> list[str]:
        if self._index is None:
            self._index = defaultdict(list)
            for part, (needs, _gives) in enumerate(self.parts):
                for j, need in enumerate(needs):
                    self._index[need[0], len(need)].append((part, j))
        missing = [set(range(len(needs))) for needs, _gives in self.parts]
        seen: set[Pattern] = set()
        todo = [*shapes, *self.always]
        while todo:
            given = todo.pop()
            if given in seen:
                continue
            seen.add(given)
            for part, j in self._index.get((given[0], len(given)), ()):
                if j in missing[part] and fits(self.parts[part][0][j], given):
                    missing[part].discard(j)
                    if not missing[part]:
                        todo.extend(self.parts[part][1])
        return [f"r{part}" for part, left in enumerate(missing) if not left]


@lru_cache(maxsize=100_000)
def fact_shape(fact: clingo.Symbol) -> Pattern:
    """A fact's shape, kept (a call's facts are mostly the last call's: the saved state)."""
    return fact.name, *map(shape, fact.arguments)


def shape(symbol: clingo.Symbol) -> Pattern | None:
    """A ground term's shape: functions and constants by name, numbers and strings as anything."""
    if symbol.type == clingo.SymbolType.Function:
        return (symbol.name, *map(shape, symbol.arguments))
    return None


def function_shape(node: ast.AST) -> Pattern:
    """An atom's shape: its name, then its arguments' shapes."""
    return (node.name, *map(term_shape, node.arguments))


def term_shape(node: ast.AST) -> Pattern | None:
    """A rule's term's shape: variables, arithmetic and @-functions as anything."""
    if node.ast_type == ast.ASTType.Function and not node.external:
        return function_shape(node)
    if node.ast_type == ast.ASTType.SymbolicTerm:
        return shape(node.symbol)
    return None


def atom_pattern(saved: list[Any]) -> Pattern:
    """An atom's shape read back from JSON: its name, then its arguments' shapes."""
    return (saved[0], *map(as_pattern, saved[1:]))


def as_pattern(saved: list[Any] | None) -> Pattern | None:
    """A shape read back from JSON (lists) as tuples."""
    return None if saved is None else (saved[0], *map(as_pattern, saved[1:]))


def fits(need: Pattern | None, given: Pattern | None) -> bool:
    """Whether one atom can have both shapes."""
    if need is None or given is None:
        return True
    return len(need) == len(given) and need[0] == given[0] and all(map(fits, need[1:], given[1:]))


def required(rule: ast.AST) -> list[Pattern]:
    """The shapes of a rule's plain positive body atoms: it fires only when each is true."""
    return [function_shape(literal.atom.symbol) for literal in rule.body
            if literal.ast_type == ast.ASTType.Literal and literal.sign == ast.Sign.NoSign
            and literal.atom.ast_type == ast.ASTType.SymbolicAtom
            and literal.atom.symbol.ast_type == ast.ASTType.Function and not literal.atom.symbol.external]


def head_patterns(rule: ast.AST) -> list[Pattern]:
    """The shapes of every atom in a rule's head (a choice's conditions too: more is only safer)."""
    return [function_shape(symbol) for symbol in atom_symbols(rule.head)]


def atom_symbols(node: ast.AST) -> list[ast.AST]:
    """The symbol of every atom in an AST node (each one of a pool)."""
    found: list[ast.AST] = []

    class Collect(ast.Transformer):
        def visit_SymbolicAtom(self, atom: ast.AST) -> ast.AST:
            found.extend(atom.symbol.arguments if atom.symbol.ast_type == ast.ASTType.Pool else [atom.symbol])
            return atom

    Collect()(node)
    return [symbol for symbol in found if symbol.ast_type == ast.ASTType.Function]


def atoms_in(node: ast.AST) -> set[tuple[str, int]]:
    """The predicates (name, arity) of every atom in an AST node."""
    return {(symbol.name, len(symbol.arguments)) for symbol in atom_symbols(node)}


def heads(statement: ast.AST) -> set[tuple[str, int]]:
    return atoms_in(statement.head) if statement.ast_type == ast.ASTType.Rule else set()


def body_atoms(rule: ast.AST) -> set[tuple[str, int]]:
    return set().union(*(atoms_in(literal) for literal in rule.body))


@dataclass(frozen=True)
class RuleAtoms:
    """The predicates of a rule's head and body, and the shapes its body needs (read once: each
    is a walk over the rule's AST)."""

    heads: set[tuple[str, int]]
    body: set[tuple[str, int]]
    needs: list[Pattern]
    gives: list[Pattern]  # the shapes of its head atoms

    @classmethod
    def of(cls, rule: ast.AST) -> RuleAtoms:
        return cls(heads(rule), body_atoms(rule), required(rule), head_patterns(rule))


@dataclass(frozen=True)
class Analysed:
    """Rule files parsed, with what each rule's head and body hold: the same whatever KB the rules
    meet, so made once per text, while a rewrite is made per set of KB predicates (a store
    publishing its rules makes new ones)."""

    statements: list[ast.AST]
    rules: dict[int, RuleAtoms]  # by the statement's place
    names: list[set[tuple[str, int]]]  # the predicates each statement names
    mentioned: set[tuple[str, int]]  # every predicate any statement names
    texts: dict[tuple[int, frozenset[tuple[str, int]]], str]  # rewritten statements (`_rewrite`)


@lru_cache(maxsize=8)
def analysed(texts: tuple[str, ...]) -> Analysed:
    statements: list[ast.AST] = []
    for text in texts:
        ast.parse_string(text, statements.append)
    rules = {at: RuleAtoms.of(statement) for at, statement in enumerate(statements)
             if statement.ast_type == ast.ASTType.Rule}
    names = [atoms_in(statement) for statement in statements]
    return Analysed(statements, rules, names, set().union(*names), {})


def static_predicates(rules: list[RuleAtoms], kb: set[tuple[str, int]],
                      inputs: frozenset[str] | None = None) -> set[tuple[str, int]]:
    """KB predicates, and those whose every rule depends on static predicates only. With the
    call's inputs declared, every predicate but those and the ones derived from them."""
    defined = {p for rule in rules for p in rule.heads}
    static = kb | defined
    if inputs is not None:
        mentioned = defined.union(*(rule.body for rule in rules))
        static = (static | mentioned) - {p for p in mentioned if p[0] in inputs}
    changed = True
    while changed:
        changed = False
        for rule in rules:
            if rule.heads & static and not rule.body <= static:
                static -= rule.heads
                changed = True
    return static


def never_true(rules: list[RuleAtoms], static: set[tuple[str, int]], kb: set[tuple[str, int]]) -> set[tuple[str, int]]:
    """The static predicates that no KB fact and no rule can make true (a pack without store
    rules has no limit/3): a rule that needs one never fires, so it is not grounded at all."""
    possible = set(kb)
    changed = True
    while changed:
        changed = False
        for rule in rules:
            new = rule.heads - possible
            if new and all((p[0], len(p) - 1) in possible or (p[0], len(p) - 1) not in static for p in rule.needs):
                possible |= new
                changed = True
    return static - possible


if __name__ == "__main__":  # the child of `ground_within_budget`
    sys.exit(ground_in_child(int(sys.argv[1]), sys.argv[2:]))
