"""The administrator bot: one manager turn through the ASP programs.

admin.lp (the CKTs) decides over the KB, the staged changes (menu/view.lp) and the collaborative
rule set; Python only builds the facts. Stock changes and commits in the answer are carried
out by the chat (star.py), which owns the shared state.
"""

from __future__ import annotations

from pathlib import Path

import clingo

from .. import paths
from ..menu.commit import VIEW
from ..reasoner import TurnReasoner, atom
from ..vocab import Pred
from .base import Decision, new_facts, split_next, state_symbols

PROGRAM = Path(__file__).with_name("admin.lp")


class Administrator:
    def __init__(self, kb_files: list[Path], cache: Path | None = None):
        self.reasoner = TurnReasoner.shared(kb_files, [paths.data_dir("crs") / "crs.lp", VIEW, PROGRAM], cache)

    def decide(self, preds: list[Pred], state: list[str], runout: list[str]) -> Decision:
        facts = [atom("runout", name) for name in runout]
        facts += state_symbols(state)
        facts += new_facts(preds, lambda index, _pred: index)
        return split_next(self.reasoner.solve(facts))


def without_staged(state: list[str]) -> list[str]:
    """The state once the staged changes are applied to the menu: they are no longer pending."""
    return [term for term in state if clingo.parse_term(term).name not in ("staged", "effect")]
