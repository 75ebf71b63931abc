"""The administrator bot: one manager turn through the ASP programs.

admin.lp (the CKTs) decides over the KB, the staged changes (menu/view.lp) and the collaborative
rule set; Python only builds the facts. Stock changes and commits in the answer are carried
out by the chat (star.py), which owns the shared state.
"""

from __future__ import annotations

from pathlib import Path

from .. import paths
from ..menu.commit import VIEW
from ..reasoner import TurnReasoner, atom
from ..state import State
from ..vocab import MANAGER_FACTS, Pred
from .base import Decision, new_facts, split_next

PROGRAM = Path(__file__).with_name("admin.lp")


class Administrator:
    def __init__(self, kb_files: list[Path], cache: Path | None = None):
        self.reasoner = TurnReasoner.shared(kb_files, [paths.data_dir("crs") / "crs.lp", VIEW, PROGRAM], cache)

    def decide(self, preds: list[Pred], state: State, runout: list[str]) -> Decision:
        facts = [atom("runout", name) for name in runout]
        facts += state.holds()
        facts += new_facts(MANAGER_FACTS, preds)
        return split_next(self.reasoner.solve(facts))
