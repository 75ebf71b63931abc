"""The assistant bot: one customer turn through the ASP programs.

Python only turns the parsed predicates and the saved state into facts; assistant.lp (the
CKTs) and crs/crs.lp (the collaborative rule set) decide what happens and what to say.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

import clingo

from .. import paths
from ..acts import CHANGES, CUSTOMER_ACTS, Act, Refer, Unknown, Unsure, Update
from ..language.customer_parser import Context
from ..normalize import normalize
from ..reasoner import TurnReasoner, Value, atom
from ..state import (
    AskedAbout,
    AskedKind,
    AskedPrice,
    Discussed,
    Has,
    Held,
    LastAsk,
    Pending,
    Recommended,
    Refused,
    SaidUnknown,
    State,
    Unit,
    Upgrade,
)
from ..terms import Term, encode
from .base import INPUTS, Decision, clock_facts, new_facts, split_next

PROGRAM = Path(__file__).with_name("assistant.lp")


class Assistant:
    def __init__(self, kb_files: list[Path], cache: Path | None = None):
        self.reasoner = TurnReasoner.shared(kb_files, [paths.data_dir("crs") / "crs.lp", PROGRAM], cache,
                                            inputs={*INPUTS, *(cls.name for cls in CUSTOMER_ACTS), "name_word", "new_heard",
                                                    "tax_rate"})

    def decide(self, acts: list[Act], state: State, runout: list[str], unknown: int = 0,
               prices: dict[str, int] | None = None, clock: datetime | None = None, tax: int = 0) -> Decision:
        """prices: the store's own price (cents) of the items it prices itself, over the chain menu's;
        tax: the store's sales tax in thousandths of a percent (0: none)."""
        facts = [atom("runout", name) for name in runout]
        facts += [atom("store_price", item, cents) for item, cents in sorted((prices or {}).items())]
        facts += [atom("tax_rate", tax)] if tax else []
        facts += clock_facts(clock)
        facts += state.holds()
        instead = {said.option[1] for said in acts if isinstance(said, Update) and str(said.operation) == "change"
                   and isinstance(said.option, tuple) and said.option[0] == ""}  # "X instead": X's words too
        pending = {name for typed in state if isinstance(typed, Pending) for name in strings_in(typed.change)}
        if instead or pending or any(isinstance(said, Refer) and str(said.kind) == "word" for said in acts):
            facts += [atom("name_word", name, word) for name in sorted(named_in(state) | instead | pending)
                      for word in words_of(name)]
        facts += heard(acts + [Unknown(k) for k in range(unknown)])
        return split_next(self.reasoner.solve(facts))


def heard(acts: list[Act]) -> list[clingo.Symbol]:
    """The facts of a turn; on a line only half heard (unsure) each change comes as
    new_heard(Fact): assistant.lp asks about it rather than making it."""
    unsure = any(isinstance(said, Unsure) for said in acts)
    return [clingo.Function("new_heard", [fact]) if unsure and isinstance(said, CHANGES) else fact
            for said, fact in zip(acts, new_facts(acts, CUSTOMER_ACTS))]


def named_in(state: State) -> set[str]:
    """The names of the foods of the order, of what was added on them and of their option values
    ("the meat one": the meat lovers pizza)."""
    names = {t.food for t in state if isinstance(t, Unit)}
    return names | {t.value for t in state if isinstance(t, Has) and str(t.kind) in ("add", "extra", "plain")
                    and isinstance(t.value, str)} | \
        {str(t.parts()[1]) for t in state if isinstance(t, Has) and str(t.kind) == "option" and str(t.parts()[2]) == "yes"}


def strings_in(value: Value | Term) -> set[str]:
    """The names inside a kept fact's arguments (a half-heard "X instead" waiting for a yes)."""
    if isinstance(value, (tuple, Term)):
        return {s for part in (value.field_values() if isinstance(value, Term) else value) for s in strings_in(part)}
    return {value} if isinstance(value, str) and value else set()


def words_of(name: str) -> set[str]:
    """The words a reference may name it by: each word of the name, also in the plural (and the
    singular of a plural name: "the mushroom one")."""
    return {w for word in normalize(name).split() for w in (word, word + "s", word.removesuffix("s"))}


def context(state: State) -> Context:
    """What the parser needs to read short answers: the last question, suggestions, the order."""
    ctx = Context()
    units: list[tuple[int, str]] = []
    for typed in state:
        if isinstance(typed, LastAsk):
            ctx.ask_target = typed.target
            ctx.ask_topic = str(encode(typed.topic) if isinstance(typed.topic, Term) else typed.topic)
        elif isinstance(typed, AskedAbout):
            ctx.ask_group.append(typed.food)
        elif isinstance(typed, Refused):
            ctx.refused = typed.food
        elif isinstance(typed, Recommended) and isinstance(typed.kind, Upgrade):
            ctx.recommended_toppings.append((typed.kind.dish, typed.food))
        elif isinstance(typed, Recommended):
            ctx.recommended_items.append(typed.food)
        elif isinstance(typed, Discussed):
            ctx.discussed, ctx.discussed_quantity, ctx.discussed_size = typed.food, typed.quantity, typed.size
        elif isinstance(typed, SaidUnknown):
            ctx.said_unknown = True
        elif isinstance(typed, Held):
            ctx.held = True
        elif isinstance(typed, AskedPrice):
            ctx.asked_price = True
        elif isinstance(typed, AskedKind):
            ctx.asked_kind = (typed.kind, typed.quantity)
        elif isinstance(typed, Pending):
            ctx.pending = True
        elif isinstance(typed, Unit):
            units.append((typed.number, typed.food))
    ctx.ordered = list(dict.fromkeys(food for _, food in sorted(units)))
    ctx.units = dict(Counter(food for _, food in units))
    if ctx.ask_group:  # a question about a kind of dish: its first dish is what a short answer is about
        ctx.ask_group.sort(key=ctx.ordered.index)
        ctx.ask_target = ctx.ask_group[0]
    return ctx
