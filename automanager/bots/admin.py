"""The administrator bot: one manager turn through the ASP programs.

admin.lp (the CKTs) decides over the KB, the staged changes (menu/view.lp) and the collaborative
rule set; Python only builds the facts. Stock changes and commits in the answer are carried
out by the chat (star/manager.py), which owns the shared state.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TypeGuard

from .. import paths
from ..acts import MANAGER_ACTS, Act, Add, DeleteValue
from ..language.taught import misread_as
from ..menu.commit import VIEW
from ..menu.model import Menu, word_means
from ..normalize import normalize
from ..reasoner import Const, TurnReasoner, atom
from ..state import Create, State
from .base import INPUTS, Decision, clock_facts, new_facts, split_next

PROGRAM = Path(__file__).with_name("admin.lp")


class Administrator:
    def __init__(self, kb_files: list[Path], cache: Path | None = None):
        self.kb_files, self.cache = kb_files, cache
        self.reasoner = TurnReasoner.shared(kb_files, [paths.data_dir("crs") / "crs.lp", VIEW, PROGRAM], cache,
                                            inputs={*INPUTS, *(cls.name for cls in MANAGER_ACTS), "word_means", "misread"})

    def decide(self, acts: list[Act], state: State, runout: list[str],
               prices: dict[str, int] | None = None, clock: datetime | None = None) -> Decision:
        """prices: this store's own prices (cents) over the chain menu's."""
        acts = [as_alias(said) for said in acts]
        facts = [atom("runout", name) for name in runout]
        facts += [atom("store_price", item, cents) for item, cents in sorted((prices or {}).items())]
        facts += clock_facts(clock)
        facts += state.holds()
        facts += new_facts(acts, MANAGER_ACTS, positioned=True)
        facts += self.word_facts(acts, state)
        return split_next(self.reasoner.solve(facts))

    def word_facts(self, acts: list[Act], state: State) -> list:
        """For each alias said: word_means(Word, Name), the items customers saying it already get,
        and misread(Word, Kind) when customers saying it alone mean something else."""
        said = {str(act.value) for act in acts if is_alias(act)}
        if not said:
            return []
        menu = Menu.load(self.kb_files, self.cache)
        created = [create.item for create in state.all(Create)]
        misread = [(word, misread_as(menu, word)) for word in sorted(said)]
        return [atom("word_means", word, name) for word in sorted(said) for name in sorted(word_means(menu, word, created))] \
            + [atom("misread", word, Const(kind)) for word, kind in misread if kind]


def is_alias(said: Act) -> TypeGuard[Add | DeleteValue]:
    """An alias added or taken off: add(Name, alias, Word), delete(Name, alias, Word)."""
    return isinstance(said, (Add, DeleteValue)) and str(said.property) == "alias" and isinstance(said.value, str)


def as_alias(said: Act) -> Act:
    """An alias is kept normalized, as names are compared ('Lava  Crunch!' is 'lava crunch'); its
    property is the constant alias however it was given."""
    if not is_alias(said):
        return said
    return said.but(property=Const("alias"), value=normalize(said.value))
