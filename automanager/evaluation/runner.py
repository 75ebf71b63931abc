"""Running scenarios: each in a fresh state dir, through the same chats the REPLs use, then
checking every expectation against what the bots said, stored and published.

Which customer session do order, total and ended mean? The one of the last customer step. A
customer step after the order was closed starts a new session (the next car), unless it is only a
last word to the closed one ("nope, thanks!").
`rejected` collects refusals from every customer session; `say` and `not_say` look at every
reply of both bots.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..bots.assistant import Assistant
from ..llm.openai_backend import LLMConfig, LLMError, OpenAIBackend, Usage
from ..menu.commit import kb_facts
from ..menu.model import Menu
from ..names import NameMatcher
from ..normalize import normalize
from ..reasoner import Const, caches_written
from ..star import CustomerChat, ManagerChat, Turn
from ..state import Has, State
from ..state import Unit as StateUnit
from ..store import Home
from ..terms import Term
from ..vocab import Pred
from .scenario import Scenario, Unit

CRITERIA = ("understanding", "truthfulness", "coherency", "fluency", "task_ease", "expected_behavior",
            "total_satisfaction")


@dataclass
class Failure:
    key: str
    expected: Any
    actual: Any


@dataclass
class Result:
    name: str
    file: str
    passed: bool = False
    failures: list[Failure] = field(default_factory=list)
    turns: list[dict] = field(default_factory=list)
    judge: dict | None = None
    error: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def run_scenario(scenario: Scenario, llm: LLMConfig | None = None, judge: OpenAIBackend | None = None,
                 root: Path | None = None, kb: Path | None = None) -> Result:
    result = Result(scenario.name, str(scenario.path or ""))
    with tempfile.TemporaryDirectory(dir=root) as tmp, caches_written():
        home = Home(Path(tmp), scenario.pack or kb)
        home.clock = scenario.now
        manager: ManagerChat | None = None
        customers: dict[int, CustomerChat] = {}
        last: CustomerChat | None = None
        for step in scenario.steps:
            try:
                if step.role == "manager":
                    if manager is None or manager.ended:
                        manager = ManagerChat(home, None, llm)
                    turn = manager.turn(step.text)
                else:
                    chat = customers.get(step.session)
                    if chat is None or (chat.ended and not chat.parting(step.text)):  # the next car
                        customers[step.session] = CustomerChat(home, None, llm)
                    last = customers[step.session]
                    turn = last.turn(step.text)
            except Exception as exc:  # a crash is a finding, not the end of the suite
                result.error = f"step at line {step.line} ({step.role}: {step.text!r}) crashed: " \
                               f"{type(exc).__name__}: {exc}"
                break
            result.turns.append(record(step.role, step.session, turn))
        if result.error is None:
            result.failures = Checker(home, scenario, result.turns, last).failures()
        if judge is not None:
            result.judge = grade(judge, scenario, result.turns)
    result.passed = result.error is None and not result.failures
    return result


def record(role: str, session: int, turn: Turn) -> dict:
    return {"role": role, "session": session, "text": turn.text, "reply": turn.reply, "parsed": turn.parsed,
            "actions": turn.actions, "timings": turn.timings, "llm": turn.llm}


class Checker:
    def __init__(self, home: Home, scenario: Scenario, turns: list[dict], customer: CustomerChat | None):
        self.home, self.expect, self.turns, self.customer = home, scenario.expect, turns, customer
        self.menu = customer.menu if customer else Menu.load(home.menu_files(home.latest_version()))
        self.names = customer.names if customer else NameMatcher(self.menu, home.root / "cache")

    def name(self, said: str, *kinds: str) -> str:
        """The KB name an expectation means: an exact name of any kind first (a sauce is the sauce,
        not the side dish named after it), then each kind in turn; the embeddings only when no
        kind has the name or a close spelling of it."""
        matches = [m for m in (self.names.spelled(said, kind) for kind in kinds) if m] or \
            [m for m in (self.names.match(said, kind) for kind in kinds) if m]
        exact = next((m for m in matches if m.how == "exact"), None)
        return (exact or matches[0]).name if matches else said

    def failures(self) -> list[Failure]:
        out = []
        for key, expected in self.expect.items():
            actual = getattr(self, "actual_" + key)(expected)
            wanted = self.wanted(key, expected)
            if wanted != actual:
                out.append(Failure(key, jsonable(wanted), jsonable(actual)))
        return out

    def wanted(self, key: str, expected: Any) -> Any:
        if key in ("rejected", "stock_out"):
            return sorted({self.name(n, "item", "topping") for n in expected})
        if key == "order":
            return sorted(self.canonical_units(expected))
        if key == "total":
            return self.auto_total(expected) if expected == "auto" else round(expected * 100)
        if key in ("menu", "not_menu"):
            return sorted(str(s) for s in expected)
        if key in ("say", "not_say"):
            return sorted(expected)
        return expected  # ended

    # -- what happened -------------------------------------------------------------------------
    def customer_actions(self, rows: str) -> list[tuple]:
        return [tuple(args) for t in self.turns if t["role"] == "customer" for args in t["actions"].get(rows, [])]

    def actual_rejected(self, _expected) -> list[str]:
        refused = set()
        for kind, *args in self.customer_actions("confirm"):
            if kind in ("unavailable", "ran_out"):
                refused.add(args[0])
            elif kind == "topping_ran_out":
                refused.add(args[1])
            elif kind == "rejected_update" and args[-1] == "unavailable":
                option = args[2]
                refused.add(option[1] if isinstance(option, (list, tuple)) else option)
        return sorted(refused)

    def actual_order(self, _expected) -> list[tuple]:
        return sorted(self.state_units(self.customer.state)) if self.customer else []

    def actual_total(self, _expected) -> int | None:
        if not self.customer:
            return None
        ours = [t for t in self.turns if t["role"] == "customer"]
        stated = [args[0] for t in ours for args in t["actions"].get("total", [])]
        return stated[-1] if stated else None

    def actual_stock_out(self, _expected) -> list[str]:
        return sorted(self.home.stock_out())

    @cached_property
    def latest_facts(self) -> set[str]:
        return {str(s) for s in kb_facts(self.home.menu_files(self.home.latest_version()))}

    def actual_menu(self, expected) -> list[str]:
        return sorted(str(s) for s in expected if str(s) in self.latest_facts)

    def actual_not_menu(self, expected) -> list[str]:
        return sorted(str(s) for s in expected if str(s) not in self.latest_facts)

    def replies(self) -> list[str]:
        return [t["reply"].casefold() for t in self.turns]

    def actual_say(self, expected) -> list[str]:
        return sorted(s for s in expected if any(s.casefold() in r for r in self.replies()))

    def actual_not_say(self, expected) -> list[str]:
        return sorted(s for s in expected if not any(s.casefold() in r for r in self.replies()))

    def actual_ended(self, _expected) -> bool:
        return bool(self.customer and self.customer.ended)

    # -- units ---------------------------------------------------------------------------------
    @staticmethod
    def state_units(state: State) -> list[tuple]:
        units: dict[int, dict] = {unit.number: {"item": unit.food} for unit in state.all(StateUnit)}
        for has in state.all(Has):
            if has.unit not in units:
                continue
            unit, kind, value = units[has.unit], str(has.kind), has.value
            if kind in ("add", "no", "less", "extra"):
                unit.setdefault(kind, []).append(value)
            elif kind == "change":
                old, new = has.parts()
                unit.setdefault("change", []).append(f"{old} > {new}")
            elif kind == "option":
                group, said, wanted = has.parts()
                if wanted == "yes" and group == "size":
                    unit["size"] = said
                elif wanted == "yes":  # any other option: by its value
                    unit.setdefault("style", []).append(said)
            elif kind == "choice":
                _group, _slot, dish = has.parts()
                unit.setdefault("choices", []).append(dish)
        return [canonical(u) for u in units.values()]

    def canonical_units(self, expected: list[Unit]) -> list[tuple]:
        out = []
        for unit in expected:
            data = {"item": self.name(unit.item, "item"), "size": unit.size, "style": unit.style,
                    "choices": [self.name(c, "item") for c in unit.choices],
                    "change": [f"{self.name(o, 'topping')} > {self.name(n, 'topping')}" for o, n in unit.change]}
            for kind in ("add", "no", "less", "extra"):
                data[kind] = [self.name(t, "topping") for t in getattr(unit, kind)]
            out += [canonical(data)] * unit.quantity
        return out

    def auto_total(self, _expected) -> int | None:
        """The expected order priced by the assistant's own rules over the same menu."""
        state: list[Term] = []
        for number, unit in enumerate(self.canonical_units(self.expect.get("order", [])), start=1):
            item = unit[0]
            state.append(StateUnit(number, item))
            fields = dict(unit[1:])
            for kind in ("add", "no", "less", "extra"):
                state += [Has(number, Const(kind), t) for t in fields.get(kind, ())]
            for change in fields.get("change", ()):
                old, new = change.split(" > ")
                state.append(Has(number, Const("change"), (old, new)))
            said = [("size", fields["size"])] if fields.get("size") else []
            said += [self.menu.option_words.get(normalize(s), ("style", s)) for s in fields.get("style", ())]
            state += [Has(number, Const("option"), (Const(g), v, Const("yes"))) for g, v in said]
            slots: Counter = Counter()
            for dish in fields.get("choices", ()):
                group = next((g for g, members in self.menu.groups.items() if dish in members
                              and (item, g) in self.menu.facts.get("combo_contain", [])), None)
                if group:
                    slots[group] += 1
                    state.append(Has(number, Const("choice"), (group, slots[group], dish)))
        decision = Assistant(self.menu.files).decide([Pred("query", (Const("total"), "all", 1, Const("none")))], State.of(state), [])
        return next((args[2] for args in decision.actions.get("answer", []) if args[:2] == ("order", "total")), None)


def canonical(unit: dict) -> tuple:
    """A unit as a sortable, comparable tuple: the item, then every non-empty detail, sorted."""
    details = []
    for kind in ("add", "no", "less", "extra", "change", "style", "choices"):
        if unit.get(kind):
            details.append((kind, tuple(sorted(unit[kind]))))
    if unit.get("size"):
        details.append(("size", unit["size"]))
    return (unit["item"], *details)


def jsonable(value: Any) -> Any:
    """Units as readable dicts for reports; everything else as is."""
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        return [{"item": u[0], **{k: (list(v) if isinstance(v, tuple) else v) for k, v in u[1:]}} for u in value]
    return value


def grade(judge: OpenAIBackend, scenario: Scenario, turns: list[dict]) -> dict:
    """An LLM's 1-10 grades of the transcript on the paper's seven criteria (or the error)."""
    transcript = "\n".join(f"{t['role']}: {t['text']}\nbot: {t['reply']}" for t in turns)
    schema = {"type": "object", "properties": {c: {"type": "integer"} for c in CRITERIA},
              "required": list(CRITERIA), "additionalProperties": False}
    prompt, name = judge.prompts.render("judge", "customer")
    messages = [{"role": "system", "content": prompt},
                {"role": "user", "content": f"Scenario: {scenario.name}. {scenario.about}\n\n{transcript}\n\nGrades:"}]
    usage = Usage()
    try:
        content = judge.complete(messages, usage, {"type": "json_schema", "json_schema": {
            "name": "grades", "strict": True, "schema": schema}})
        grades = json.loads(content)
        scores = {c: int(grades[c]) for c in CRITERIA}
    except (LLMError, ValueError, KeyError, TypeError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}", "prompt": name}
    if not all(1 <= s <= 10 for s in scores.values()):
        return {"error": f"grades outside 1-10: {scores}", "prompt": name}
    return {**scores, "prompt": name}

