"""A new menu version from the manager's staged changes.

commit.lp (over view.lp) says which facts to add, retract, or drop with a name; this module
applies that to the facts of the current version and refuses the result when the integrity
rules (check.lp) find a problem the current version did not have.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import clingo

from ..bots.base import state_symbols
from ..reasoner import Reasoner, ReasonerError
from .check import check_kb

VIEW = Path(__file__).with_name("view.lp")  # the menu with the staged changes (also read by the admin CKT)
RULES = [VIEW, Path(__file__).with_name("commit.lp")]
HEADER = """\
% A menu version made by `automanager manager` from the previous version and the manager's
% changes (see the audit log: `automanager state history`). Do not edit by hand.
"""


class CommitError(Exception):
    """The staged changes would break the menu; they stay pending."""


def kb_facts(files: list[Path]) -> list[clingo.Symbol]:
    """Every fact of a KB, as symbols."""
    ctl = clingo.Control(["--warn=none"])
    for path in files:
        ctl.load(str(path))
    ctl.ground([("base", [])])
    return [a.symbol for a in ctl.symbolic_atoms if a.is_fact]


def next_version_text(files: list[Path], staged: list[str]) -> str:
    """The facts of the next version as an .lp text, checked against the integrity rules."""
    change = Reasoner([*files, *RULES]).solve(state_symbols(staged))
    drop = {args[0] for args in change.get("kb_drop", [])}
    retract = {args[0] for args in change.get("kb_retract", [])}
    kept = {str(sym) for sym in kb_facts(files)
            if str(sym) not in retract
            and not any(arg.type == clingo.SymbolType.String and arg.string in drop for arg in sym.arguments)}
    facts = sorted(kept | {args[0] for args in change.get("kb_add", [])})
    text = HEADER + "".join(f"{fact}.\n" for fact in facts)
    with tempfile.TemporaryDirectory() as tmp:
        candidate = Path(tmp) / "candidate.lp"
        candidate.write_text(text, encoding="utf-8")
        try:
            new_problems = set(check_kb([candidate])) - set(check_kb(files))
        except ReasonerError as exc:
            raise CommitError(f"the new menu does not load: {exc}") from exc
    if new_problems:
        raise CommitError("; ".join(sorted(new_problems)))
    return text
