"""Running scenarios: each in a fresh state dir, through the same chats the REPLs use, then
checking every expectation against what the bots said, stored and published.

Which customer session do order, total and ended mean? The one of the last customer step. A
customer step after the order was closed starts a new session (the next car), unless it is only a
last word to the closed one ("nope, thanks!").
`rejected` collects refusals from every customer session; `say` and `not_say` look at every
reply of both bots.

Above passing: did the scenario end with something nobody asked for (a unit, a stock mark, a menu
fact; eval/README.md "Changed without being asked")? A misunderstanding that asks or leaves
things as they were fails a scenario; one that changes things wrongly is the worse failure.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import clingo

from ..acts import Query
from ..bots.assistant import Assistant
from ..language.outputs import Answer, rows_of
from ..llm.openai_backend import LLMConfig, LLMError, OpenAIBackend, Usage
from ..menu.commit import facts_by_text
from ..menu.model import Menu
from ..names import NameMatcher
from ..normalize import normalize
from ..orders import OrderBook
from ..reasoner import Const, caches_written
from ..star import CustomerChat, ManagerChat, Turn
from ..state import Has, State, Unit
from ..store import Home
from ..terms import Term
from .scenario import ExpectedUnit, Scenario

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
    changed_without_asking: bool = False
    wrong_changes: list[str] = field(default_factory=list)  # what was changed, in short: "added <item>"

    def as_dict(self) -> dict:
        return asdict(self)


def run_scenario(scenario: Scenario, llm: LLMConfig | None = None, judge: OpenAIBackend | None = None,
                 root: Path | None = None, kb: Path | None = None) -> Result:
    result = Result(scenario.name, str(scenario.path or ""))
    with tempfile.TemporaryDirectory(dir=root) as tmp, caches_written():
        home = Home(Path(tmp), scenario.pack or kb)
        home.clock = scenario.now
        if scenario.tax:
            OrderBook(home).set_tax_rate(scenario.tax)
        manager: ManagerChat | None = None
        customers: dict[int, CustomerChat] = {}
        last: CustomerChat | None = None
        seen = Seen()
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
            result.turns.append(turn_record(step.role, step.session, turn))
            seen.note(home, last if step.role == "customer" else None)
        checker = Checker(home, scenario, result.turns, last, seen)
        if result.error is None:
            result.failures = checker.failures()
        result.wrong_changes = checker.wrong_changes()  # what a crash left rung up counts too
        result.changed_without_asking = bool(result.wrong_changes)
        if judge is not None:
            result.judge = grade(judge, scenario, result.turns)
    result.passed = result.error is None and not result.failures
    return result


def turn_record(role: str, session: int, turn: Turn) -> dict:
    return {"role": role, "session": session, "text": turn.text, "reply": turn.reply, "parsed": turn.parsed,
            "actions": turn.actions, "timings": turn.timings, "llm": turn.llm}


class Seen:
    """What was ever in place during a scenario, after any turn: each customer session's units and
    most units of each item, and every ingredient marked out. Something expected that was there once and is
    gone at the end was taken away: a wrong change, unlike something never understood."""

    def __init__(self) -> None:
        self.most: dict[CustomerChat, Counter] = {}
        self.units: dict[CustomerChat, set[tuple]] = {}  # every unit as it stood after a turn, canonical
        self.out: set[str] = set()

    def note(self, home: Home, customer: CustomerChat | None) -> None:
        self.out.update(home.stock_out())
        if customer is not None:
            units = Checker.state_units(customer.state)
            self.units.setdefault(customer, set()).update(units)
            self.most[customer] = self.most.get(customer, Counter()) | Counter(unit[0] for unit in units)


class Checker:
    def __init__(self, home: Home, scenario: Scenario, turns: list[dict], customer: CustomerChat | None,
                 seen: Seen | None = None):
        self.home, self.expect, self.turns, self.customer = home, scenario.expect, turns, customer
        self.seen = seen or Seen()
        known = {**self.version_facts(0), **self.latest_facts} if {"menu", "not_menu"} & self.expect.keys() else {}
        for key in ("menu", "not_menu"):
            if key in self.expect:
                self.expect = {**self.expect, key: [kb_spelling(f, known) for f in self.expect[key]]}
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
        if key == "paid":
            return round(expected * 100)
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
        if stated:
            return stated[-1]
        return self.customer.board()["total"] if self.customer.order() else None  # never said: as it stands

    def actual_paid(self, _expected) -> int | None:
        """What the customer was last told to pay: the total with its tax, where the store sets one."""
        ours = [t["actions"] for t in self.turns if t["role"] == "customer"]
        stated = [args[1] for actions in ours for args in actions.get("taxed", [])] or \
            [args[0] for actions in ours for args in actions.get("total", [])]
        return stated[-1] if stated and self.customer else None

    def actual_stock_out(self, _expected) -> list[str]:
        return sorted(self.home.stock_out())

    @cached_property
    def latest_facts(self) -> dict[str, clingo.Symbol]:
        return self.version_facts(self.home.latest_version())

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

    # -- changed without being asked (eval/README.md) ---------------------------------------------
    def wrong_changes(self) -> list[str]:
        """What the scenario ends with that nobody asked for, each said in short; judged only
        against the expectations the scenario has."""
        out = self.order_changes() if "order" in self.expect else []
        if "stock_out" in self.expect:
            out += self.stock_changes()
        if "menu" in self.expect or "not_menu" in self.expect:
            out += self.menu_changes()
        return [f"{n}x {change}" if n > 1 else change for change, n in Counter(out).items()]

    def order_changes(self) -> list[str]:
        """Units of the final order not among the expected ones: a unit of an expected item with
        other details is that unit changed, wrongly when it has a detail not expected (lacking one
        only is a change not understood, unless the unit as expected was in the order before); and
        expected units missing whose item was in this session's order before (taken off). What was
        never rung up was not understood, not changed."""
        actual = Counter(self.actual_order(None))
        expected = Counter(self.wanted("order", self.expect["order"]))
        missing = list((expected - actual).elements())
        before = self.seen.units.get(self.customer, set()) if self.customer else set()
        out = []
        for unit in sorted((actual - expected).elements()):
            twin = max((m for m in missing if m[0] == unit[0]), key=lambda m: len(set(m) & set(unit)), default=None)
            if twin is None:
                out.append(f"added {said(unit)}")
                continue
            missing.remove(twin)
            if beyond(unit, twin):
                out.append(f"{'resized' if beyond(unit, twin) == {'size'} else 'changed'} {said(unit)}, "
                           f"expected {said(twin)}")
            elif twin in before:
                out.append(f"took details off {said(twin)}, now {said(unit)}")
        now = Counter(unit[0] for unit in actual.elements())
        most = self.seen.most.get(self.customer, Counter()) if self.customer else Counter()
        for item, count in sorted(Counter(unit[0] for unit in missing).items()):
            out += [f"removed {item}"] * min(count, most[item] - now[item])
        return out

    def stock_changes(self) -> list[str]:
        """Marked out but not expected out; or expected out, marked out once, and back in at the end."""
        expected, actual = set(self.wanted("stock_out", self.expect["stock_out"])), set(self.home.stock_out())
        return [f"marked {name} out" for name in sorted(actual - expected)] + \
            [f"put {name} back in" for name in sorted((expected - actual) & self.seen.out)]

    def menu_changes(self) -> list[str]:
        """A fact put on the menu in the place of an expected one (the same predicate and all
        arguments but one, as a price set to another amount); an expected `menu` fact that was on
        the menu at some version and is gone; a `not_menu` fact the scenario put on the menu (one
        there from the start was left as it was, not changed)."""
        first, final = self.version_facts(0), self.latest_facts
        ever = {f for v in range(self.home.latest_version() + 1) for f in self.version_facts(v)}
        gone = [f for f in sorted(self.expect.get("menu", []), key=str) if str(f) not in final]
        new = [final[f] for f in sorted(final.keys() - first.keys() - {str(f) for f in self.expect.get("menu", [])})]
        instead = [(other, fact) for fact in gone for other in new if one_apart(other, fact)]
        named = {str(f) for pair in instead for f in pair}
        return [f"set {other} (expected {fact})" for other, fact in instead] + \
            [f"took {fact} off the menu" for fact in gone if str(fact) in ever and str(fact) not in named] + \
            [f"put {fact} on the menu" for fact in sorted(str(f) for f in self.expect.get("not_menu", []))
             if fact in final and fact not in first and fact not in named]

    def version_facts(self, version: int) -> dict[str, clingo.Symbol]:
        """A menu version's facts by their text."""
        return facts_by_text(self.home.menu_files(version))

    # -- units ---------------------------------------------------------------------------------
    @staticmethod
    def state_units(state: State) -> list[tuple]:
        units: dict[int, dict] = {unit.number: {"item": unit.food} for unit in state.all(Unit)}
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
                if wanted == "yes" and group == "size":  # two sizes on one unit read as both, never one
                    unit["size"] = " and ".join(sorted(filter(None, (unit.get("size"), said))))
                elif wanted == "yes":  # any other option: by its value
                    unit.setdefault("style", []).append(said)
            elif kind == "choice":
                _group, _slot, dish = has.parts()
                unit.setdefault("choices", []).append(dish)
        return [canonical(u) for u in units.values()]

    def canonical_units(self, expected: list[ExpectedUnit]) -> list[tuple]:
        out = []
        contains = set(self.menu.facts.get("combo_contain", []))
        for unit in expected:
            item = self.name(unit.item, "item")  # a combo's own dishes come with it: only its picks are choices
            data = {"item": item, "size": unit.size, "style": unit.style,
                    "choices": [c for c in (self.name(c, "item") for c in unit.choices) if (item, c) not in contains],
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
            state.append(Unit(number, item))
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
        decision = Assistant(self.menu.files).decide([Query(Const("total"), "all", 1, None)], State.of(state), [])
        totals = [a.value for a in rows_of(decision.actions, Answer) if (a.food, a.about) == ("order", "total")]
        return totals[0] if totals and isinstance(totals[0], int) else None


def canonical(unit: dict) -> tuple:
    """A unit as a sortable, comparable tuple: the item, then every non-empty detail, sorted."""
    details = []
    for kind in ("add", "no", "less", "extra", "change", "style", "choices"):
        if unit.get(kind):
            details.append((kind, tuple(sorted(unit[kind]))))
    if unit.get("size"):
        details.append(("size", unit["size"]))
    return (unit["item"], *details)


def said(unit: tuple) -> str:
    """A canonical unit in short: the item, then its details."""
    details = [f"{kind} {' '.join(value) if isinstance(value, tuple) else value}" for kind, value in unit[1:]]
    return unit[0] + (f" ({', '.join(details)})" if details else "")


def beyond(unit: tuple, twin: tuple) -> set[str]:
    """The kinds of detail a unit has that the expected one does not (a topping, a removal, another
    size or option); what it only lacks is not among them."""
    have, want = dict(unit[1:]), dict(twin[1:])
    return {kind for kind, value in have.items()
            if (set(value) - set(want.get(kind, ())) if isinstance(value, tuple) else value != want.get(kind))}


def kb_spelling(fact: clingo.Symbol, known: dict[str, clingo.Symbol]) -> clingo.Symbol:
    """An expected fact as the menu writes it: `category("Starry",drink)` is the KB's
    `category("Starry","drink")` when the menu spells that argument as a string."""
    if str(fact) in known:
        return fact
    quoted = clingo.Function(fact.name, [clingo.String(a.name) if a.type == clingo.SymbolType.Function
                                         and not a.arguments and a.name else a for a in fact.arguments])
    alike = [f for f in known.values() if f.name == fact.name and len(f.arguments) == len(fact.arguments)
             and all(a.type == b.type for a, b in zip(f.arguments, quoted.arguments))]
    return quoted if alike else fact


def one_apart(fact: clingo.Symbol, other: clingo.Symbol) -> bool:
    """The same predicate and arity, every argument but one the same: the same thing set otherwise."""
    if fact.name != other.name or len(fact.arguments) != len(other.arguments) or len(fact.arguments) < 2:
        return False
    return sum(a != b for a, b in zip(fact.arguments, other.arguments)) == 1


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

