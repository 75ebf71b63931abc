"""The assistant bot: one customer turn through the ASP programs.

Python only turns the parsed predicates and the saved state into facts; assistant.lp (the
CKTs) and crs/crs.lp (the collaborative rule set) decide what happens and what to say.
"""

from __future__ import annotations

from pathlib import Path

import clingo

from .. import paths
from ..language.customer_parser import Context
from ..reasoner import TurnReasoner, atom
from ..vocab import Pred
from .base import Decision, new_facts, split_next, state_symbols

PROGRAM = Path(__file__).with_name("assistant.lp")
LINED = {"order", "update", "specify", "replace", "set_quantity"}  # facts that carry an order line


class Assistant:
    def __init__(self, kb_files: list[Path], cache: Path | None = None):
        self.reasoner = TurnReasoner.shared(kb_files, [paths.data_dir("crs") / "crs.lp", PROGRAM], cache)

    def decide(self, preds: list[Pred], state: list[str], runout: list[str], unknown: int = 0) -> Decision:
        facts = [atom("runout", name) for name in runout]
        facts += state_symbols(state)
        facts += new_facts(preds, lambda _i, pred: pred.line if pred.name in LINED else None)
        facts += [atom("new_unknown", k) for k in range(unknown)]
        return split_next(self.reasoner.solve(facts))


def context(state: list[str]) -> Context:
    """What the parser needs to read short answers: the last question, suggestions, the order."""
    ctx = Context()
    units: list[tuple[int, str]] = []
    for sym in (clingo.parse_term(term) for term in state):
        args = sym.arguments
        if sym.name == "last_ask":
            target, topic = args
            ctx.ask_target = target.string if target.type == clingo.SymbolType.String else None
            ctx.ask_topic = topic.name if not topic.arguments else str(topic)
        elif sym.name == "asked_about":
            ctx.ask_group.append(args[0].string)
        elif sym.name == "refused":
            ctx.refused = args[0].string
        elif sym.name == "recommended" and args[0].name == "category":
            ctx.recommended_items.append(args[1].string)
        elif sym.name == "recommended":
            ctx.recommended_toppings.append((args[0].arguments[0].string, args[1].string))
        elif sym.name == "discussed":
            ctx.discussed, ctx.discussed_quantity = args[0].string, args[1].number
            ctx.discussed_size = args[2].string if args[2].type == clingo.SymbolType.String else None
        elif sym.name == "said_unknown":
            ctx.said_unknown = True
        elif sym.name == "unit":
            units.append((args[0].number, args[1].string))
    ctx.ordered = list(dict.fromkeys(food for _, food in sorted(units)))
    if ctx.ask_group:  # a question about a kind of dish: its first dish is what a short answer is about
        ctx.ask_group.sort(key=ctx.ordered.index)
        ctx.ask_target = ctx.ask_group[0]
    return ctx
