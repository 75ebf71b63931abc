"""What both bots share: a turn's parsed predicates and saved state become facts; the ASP
answer becomes a `Decision` (the action atoms and the next state)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import clingo

from ..acts import Act
from ..language.outputs import Mode, rows_of
from ..reasoner import Atoms, Const, atom
from ..state import State
from ..terms import encode, make


@dataclass
class Decision:
    actions: Atoms  # mode, ask, confirm, ... as the bot's .lp program shows them
    state: State = field(default_factory=State)  # the next state

    @property
    def mode(self) -> str:
        return rows_of(self.actions, Mode)[0].mode


# what every call of either bot may bring besides the sentence's facts: the shared stock list,
# this store's prices, the clock and the saved state (the rest of what the rules read is the KB's)
INPUTS = ("runout", "store_price", "clock", "holds")

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def clock_facts(at: datetime | None) -> list[clingo.Symbol]:
    """clock(Date, Weekday, Minute): the local time a turn happens at (Date as YYYYMMDD, Weekday
    mon..sun, Minute of the day 0..1439), for the rules that depend on it (dayparts); none when no
    clock is set."""
    if at is None:
        return []
    return [atom("clock", at.year * 10000 + at.month * 100 + at.day, Const(WEEKDAYS[at.weekday()]),
                 at.hour * 60 + at.minute)]


def new_facts(acts: list[Act], reads: tuple[type[Act], ...], positioned: bool = False) -> list[clingo.Symbol]:
    """`new_<name>(fields...)` of each act, every field checked against its type (an LLM's reading
    reaches here too); `positioned`: each fact ends with the act's position in the sentence (1, 2, ...).
    TypeError when the bot does not read such an act."""
    facts = []
    for position, said in enumerate(acts, start=1):
        if type(said) not in reads:
            raise TypeError(f"{said} is not a predicate this bot reads")
        fact = encode(make(type(said), said.field_values()))
        facts.append(clingo.Function(fact.name, [*fact.arguments, clingo.Number(position)]) if positioned else fact)
    return facts


def split_next(actions: Atoms) -> Decision:
    return Decision(actions, State(str(args[0]) for args in actions.pop("next", [])))
