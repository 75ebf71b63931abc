"""What both bots share: a turn's parsed predicates and saved state become facts; the ASP
answer becomes a `Decision` (the action atoms and the next state)."""

from __future__ import annotations

from collections.abc import Callable
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


def new_facts(facts: Facts, preds: list[Pred], extra: Callable[[int, Pred], int]) -> list[clingo.Symbol]:
    """`new_<name>(args...)` for each predicate, typed and checked by the bot's `Facts`;
    extra(position, pred) gives the last argument where its shape has one (the order line for
    the assistant, the position in the sentence for the admin)."""
    return [encode(facts.fact(pred, extra(position, pred))) for position, pred in enumerate(preds, start=1)]


def split_next(actions: Atoms) -> Decision:
    return Decision(actions, State(str(args[0]) for args in actions.pop("next", [])))
