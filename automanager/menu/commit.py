"""A new menu version from the manager's staged changes.

commit.lp (over view.lp) says which facts to add, retract, or drop with a name; this module
applies that to the facts of the current version and refuses the result when the integrity
rules (check.lp) find a problem the current version did not have.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import clingo

from ..files import digest
from ..reasoner import ReasonerError, TurnReasoner, facts_aspif, logged, program_text
from ..state import State
from ..terms import parse
from .check import check_kb, checked_predicates, violations

VIEW = Path(__file__).with_name("view.lp")  # the menu with the staged changes (also read by the admin CKT)
RULES = [VIEW, Path(__file__).with_name("commit.lp")]
STAGED = ("holds",)  # what a commit's call brings: the manager state with the staged changes; the rest is the KB's
FACTS: dict[str, dict[str, clingo.Symbol]] = {}  # KB text digest -> its facts, by their text
PROBLEMS: dict[str, tuple[str, ...]] = {}  # KB text digest -> its integrity problems
HEADER = """\
% A menu version made by `automanager manager` from the previous version and the manager's
% changes (see the audit log: `automanager state history`). Do not edit by hand.
"""


class CommitError(Exception):
    """The staged changes would break the menu; they stay pending."""


def kb_symbols(files: list[Path]) -> list[clingo.Symbol]:
    """Every fact of a KB, as symbols."""
    return list(facts_by_text(files).values())


def facts_by_text(files: list[Path]) -> dict[str, clingo.Symbol]:
    """Every fact of a KB by its text, kept per KB text (a commit knows its new version's facts)."""
    key = files_digest(files)
    if key not in FACTS:
        ctl = clingo.Control(logger=logged([]))
        for path in files:
            ctl.load(str(path))
        ctl.ground([("base", [])])
        remember(FACTS, key, {str(a.symbol): a.symbol for a in ctl.symbolic_atoms if a.is_fact})
    return FACTS[key]


def known_facts(files: list[Path]) -> list[clingo.Symbol] | None:
    """The facts of a KB this process has read or written already (a version it just
    published), or None."""
    facts = FACTS.get(files_digest(files))
    return None if facts is None else list(facts.values())


def files_digest(files: list[Path]) -> str:
    return digest(map(program_text, files))


def remember(cache: dict, key: str, value) -> None:
    if len(cache) >= 8:
        cache.pop(next(iter(cache)))
    cache[key] = value


def known_problems(files: list[Path]) -> set[str]:
    """The integrity problems a version already has, checked once per version text."""
    key = files_digest(files)
    if key not in PROBLEMS:
        remember(PROBLEMS, key, tuple(check_kb(files)))
    return set(PROBLEMS[key])


def committer(files: list[Path], cache: Path | None = None) -> TurnReasoner:
    """What works out a commit's changes over a version: grounded once per version (a manager
    chat does it in the background), so a commit does not parse the menu for it."""
    return TurnReasoner.shared(files, RULES, cache, inputs=STAGED)


def warm_committer(files: list[Path], cache: Path | None = None) -> None:
    try:
        committer(files, cache).warm()
    except ReasonerError:
        pass  # the commit meets the same problem and says it


def next_version_text(files: list[Path], staged: State, cache: Path | None = None) -> str:
    """The facts of the next version as an .lp text, checked against the integrity rules."""
    change = committer(files, cache).solve(staged.holds())
    drop = {args[0] for args in change.get("kb_drop", [])}
    retract = {args[0] for args in change.get("kb_retract", [])}
    kept = {text: sym for text, sym in facts_by_text(files).items()
            if text not in retract and not (drop and names_any(sym, drop))}
    added = {str(fact): parse(str(fact)) for fact in (args[0] for args in change.get("kb_add", [])) if fact not in kept}
    facts = {**kept, **added}
    ordered = sorted(facts)
    text = HEADER + "".join(f"{fact}.\n" for fact in ordered)
    with tempfile.TemporaryDirectory() as tmp:
        checked = Path(tmp) / "candidate.aspif"
        read = checked_predicates()  # the facts of the text the check reads, as aspif (read faster)
        checked.write_text(facts_aspif(fact for fact in ordered if fact.partition("(")[0] in read), encoding="utf-8")
        try:
            problems = violations([checked])
        except ReasonerError as exc:
            raise CommitError(f"the new menu does not load: {exc}") from exc
    new_problems = set(problems) - known_problems(files)
    if not new_problems:  # the next commit starts from these: no need to read or check them again
        key = digest([text])
        remember(FACTS, key, facts)
        remember(PROBLEMS, key, tuple(problems))
    if new_problems:
        raise CommitError("; ".join(sorted(new_problems)))
    return text


def names_any(sym: clingo.Symbol, names: set[str]) -> bool:
    return any(arg.type == clingo.SymbolType.String and arg.string in names for arg in sym.arguments)
