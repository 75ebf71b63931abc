"""The administrator bot: one manager turn through the ASP programs.

admin.lp (the CKTs) decides over the KB, the staged changes (menu/view.lp) and the collaborative
rule set; Python only builds the facts. Stock changes and commits in the answer are carried
out by the chat (star/manager.py), which owns the shared state.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from .. import paths
from ..language.taught import misread_as
from ..menu.commit import VIEW
from ..menu.model import Menu, word_means
from ..normalize import normalize
from ..reasoner import Const, TurnReasoner, atom
from ..state import Create, State
from ..vocab import MANAGER_FACTS, Pred
from .base import INPUTS, Decision, clock_facts, new_facts, split_next

PROGRAM = Path(__file__).with_name("admin.lp")


class Administrator:
    def __init__(self, kb_files: list[Path], cache: Path | None = None):
        self.kb_files, self.cache = kb_files, cache
        self.reasoner = TurnReasoner.shared(kb_files, [paths.data_dir("crs") / "crs.lp", VIEW, PROGRAM], cache,
                                            inputs={*INPUTS, *MANAGER_FACTS.names, "word_means", "misread"})

    def decide(self, preds: list[Pred], state: State, runout: list[str],
               prices: dict[str, int] | None = None, clock: datetime | None = None) -> Decision:
        """prices: this store's own prices (cents) over the chain menu's."""
        preds = [as_alias(pred) for pred in preds]
        facts = [atom("runout", name) for name in runout]
        facts += [atom("store_price", item, cents) for item, cents in sorted((prices or {}).items())]
        facts += clock_facts(clock)
        facts += state.holds()
        facts += new_facts(MANAGER_FACTS, preds)
        facts += self.word_facts(preds, state)
        return split_next(self.reasoner.solve(facts))

    def word_facts(self, preds: list[Pred], state: State) -> list:
        """For each alias said: word_means(Word, Name), the items customers saying it already get,
        and misread(Word, Kind) when customers saying it alone mean something else."""
        said = {pred.args[2] for pred in preds if is_alias(pred)}
        if not said:
            return []
        menu = Menu.load(self.kb_files, self.cache)
        created = [create.item for create in state.all(Create)]
        misread = [(word, misread_as(menu, word)) for word in sorted(said)]
        return [atom("word_means", word, name) for word in sorted(said) for name in sorted(word_means(menu, word, created))] \
            + [atom("misread", word, Const(kind)) for word, kind in misread if kind]


def is_alias(pred: Pred) -> bool:
    """An alias added or taken off: add(Name, alias, Word), delete(Name, alias, Word)."""
    return pred.name in ("add", "delete") and len(pred.args) == 3 and str(pred.args[1]) == "alias" \
        and isinstance(pred.args[2], str)


def as_alias(pred: Pred) -> Pred:
    """An alias is kept normalized, as names are compared ('Lava  Crunch!' is 'lava crunch'); its
    property is the constant alias however it was given."""
    if not is_alias(pred):
        return pred
    return Pred(pred.name, (pred.args[0], Const("alias"), normalize(pred.args[2])), pred.line)
