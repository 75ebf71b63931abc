"""The STAR turn loop: text -> predicates -> ASP decision -> text, with the state saved each turn."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

import clingo

from . import paths
from .bots.assistant import Assistant, context
from .llm.customer_parser import CustomerParser
from .llm.customer_templates import CustomerTemplates
from .menu.model import Menu
from .store import Home

MAX_INPUT = 2000  # characters of one turn that are read; the rest is ignored, and said so


@dataclass
class Turn:
    text: str
    reply: str
    parsed: list[str]
    actions: dict
    order: list[dict]
    timings: dict = field(default_factory=dict)
    corrected: list = field(default_factory=list)


class CustomerChat:
    """One customer conversation, offline backend: parse, decide, render, save."""

    def __init__(self, home: Home, session_id: str | None = None, menu: Menu | None = None):
        self.home = home
        self.menu = menu or Menu.load(paths.kb_files())
        self.assistant = Assistant(self.menu.files)
        self.parser = CustomerParser(self.menu)
        self.templates = CustomerTemplates(self.menu)
        if session_id:
            data = home.load_session(session_id)
            self.session_id, self.state, self.history = session_id, data["state"], data["turns"]
        else:
            self.session_id, self.state, self.history = home.new_session_id(), [], []

    @property
    def ended(self) -> bool:
        return "phase(ended)" in self.state

    def greeting(self) -> str:
        return self.templates.greeting()

    def turn(self, text: str) -> Turn:
        start = time.perf_counter()
        clipped = text[:MAX_INPUT]
        parse = self.parser.parse(clipped, context(self.state))
        parsed_at = time.perf_counter()
        decision = self.assistant.decide(parse.preds, self.state, self.home.stock_out(), len(parse.unknown))
        decided_at = time.perf_counter()
        reply = self.templates.render(decision.actions, parse.unknown)
        if len(text) > MAX_INPUT:
            reply = f"(I only read the first {MAX_INPUT} characters.) " + reply
        self.state = decision.state
        turn = Turn(
            text=text[:MAX_INPUT], reply=reply, parsed=[str(p) for p in parse.preds], actions=decision.actions,
            order=self.order(), corrected=parse.corrected,
            timings={"parse_ms": round((parsed_at - start) * 1000, 2),
                     "reasoning_ms": round((decided_at - parsed_at) * 1000, 2),
                     "total_ms": round((time.perf_counter() - start) * 1000, 2)},
        )
        self.history.append({"user": turn.text, "bot": reply, "at": datetime.now(timezone.utc).isoformat()})
        self.home.save_session(self.session_id, {"session": self.session_id, "state": self.state, "turns": self.history})
        return turn

    def order(self) -> list[dict]:
        """The order so far, one entry per unit, from the saved state."""
        units: dict[int, dict] = {}
        for sym in map(clingo.parse_term, self.state):
            if sym.name == "unit":
                units.setdefault(sym.arguments[0].number, {})["item"] = sym.arguments[1].string
        for sym in map(clingo.parse_term, self.state):
            if sym.name == "has" and sym.arguments[0].number in units:
                unit = units[sym.arguments[0].number]
                kind, value = sym.arguments[1].name, sym.arguments[2]
                unit.setdefault(kind, []).append(str(value).strip('"'))
        return [units[k] for k in sorted(units)]
