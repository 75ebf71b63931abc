"""What both bots share: a turn's parsed predicates and saved state become facts; the ASP
answer becomes a `Decision` (the action atoms and the next state)."""

from __future__ import annotations

from dataclasses import dataclass, field

import clingo

from ..reasoner import Atoms, atom
from ..vocab import Pred


@dataclass
class Decision:
    actions: Atoms  # mode, ask, confirm, ... as the bot's .lp program shows them
    state: list[str] = field(default_factory=list)  # next state terms, as clingo prints them

    @property
    def mode(self) -> str:
        return self.actions["mode"][0][0]


def state_symbols(state: list[str]) -> list[clingo.Symbol]:
    """Saved state terms back into symbols (they were printed by clingo from validated names)."""
    return [clingo.Function("holds", [clingo.parse_term(term)]) for term in state]


def new_facts(preds: list[Pred], extra_arg) -> list[clingo.Symbol]:
    """`new_<name>(args..., extra)` for each predicate; extra_arg(index, pred) gives the last
    argument (the order line for the assistant, the position in the sentence for the admin),
    or None for none."""
    facts = []
    for index, pred in enumerate(preds, start=1):
        extra = extra_arg(index, pred)
        args = pred.args if extra is None else (*pred.args, extra)
        facts.append(atom("new_" + pred.name, *args))
    return facts


def split_next(actions: Atoms) -> Decision:
    next_state = [str(args[0]) for args in actions.pop("next", [])]
    return Decision(actions, next_state)
