"""What both bots share: a turn's parsed predicates and saved state become facts; the ASP
answer becomes a `Decision` (the action atoms and the next state)."""

from __future__ import annotations

from dataclasses import dataclass, field

import clingo

from ..reasoner import Atoms
from ..state import State
from ..terms import encode
from ..vocab import Facts, Pred


@dataclass
class Decision:
    actions: Atoms  # mode, ask, confirm, ... as the bot's .lp program shows them
    state: State = field(default_factory=State)  # the next state

    @property
    def mode(self) -> str:
        return self.actions["mode"][0][0]


def new_facts(facts: Facts, preds: list[Pred]) -> list[clingo.Symbol]:
    """`new_<name>(args...)` for each predicate, typed and checked by the bot's `Facts`."""
    return [encode(facts.fact(pred, position)) for position, pred in enumerate(preds, start=1)]


def split_next(actions: Atoms) -> Decision:
    return Decision(actions, State(str(args[0]) for args in actions.pop("next", [])))
