"""Both backends alike: a line the LLM reads exactly as the offline parser does gets the same
replies and leaves the same order and menu.

Scenarios of eval/scenarios run twice: offline, recording each line's parse; then through the
OpenAI backend against the fake server, which answers each parse request with that parse written
as the vocabulary's JSON forms. Any difference is the LLM path (structured.py) reading the same
acts otherwise than the offline parser meant them.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, completion

from automanager.acts import RULE_ACTS, Act, Ask
from automanager.evaluation.runner import run_scenario
from automanager.evaluation.scenario import load_scenarios
from automanager.llm.openai_backend import LLMConfig
from automanager.reasoner import Const
from automanager.rules import EVERY_DAY, days_of
from automanager.star import CustomerChat, ManagerChat

REPO = Path(__file__).resolve().parents[1]

# A sample of the project's own scenarios, 60 turns: orders with options and combo choices,
# references, copies, corrections, questions, names not sold; a manager's runouts, questions,
# prices, a dish built piece by piece, a store rule made and dropped, customers after them.
SAMPLE = [
    # the customer's
    "two-combos-each-its-own-drink", "combo-then-extra-drink-is-separate", "pizza-request-as-a-question",
    "pizza-refer-first-and-second", "refer-the-other-one", "pizza-same-again-but-another-size", "replace-an-item",
    "remove-an-item", "a-topping-choice-left-open-keeps-the-dish-and-asks", "customer-cannot-change-stock-or-menu",
    "pz-sem-option-price-alone", "what-combos-are-there", "vegetarian-options-listed",
    "unknown-word-on-a-name-is-said-back",
    "half-heard-removal-is-asked-and-a-yes-makes-it", "a-vague-kind-is-asked-and-answered-by-its-words",
    "a-size-one-completes-the-unit-ordered-without-one", "a-size-one-after-a-sized-unit-is-another",
    "foods-said-fine-as-they-are-answer-no", "counted-modifiers-after-plain-units-dress-those-units",
    "a-replacement-of-a-food-not-ordered-is-offered", "a-word-put-right-before-the-food-is-named",
    "a-dish-with-an-ingredient-it-never-takes-is-offered", "a-topping-instead-takes-the-place-of-the-one-like-it",
    # the manager's, with customers after
    "an-exact-sauce-name-is-the-sauce", "a-stock-question-changes-nothing", "second-customer-sees-committed-change",
    "manager-add-dish-piecemeal", "manager-edit-price-and-swap", "rule-item-is-limited", "rule-dropped-by-its-target",
    "a-warning-changes-nothing", "three-decimal-price-is-refused",
]


def dollars(cents: int) -> str:
    return f"{'-' if cents < 0 else ''}${abs(cents) // 100}.{abs(cents) % 100:02d}"


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def days(mask: int) -> str | None:
    return None if mask in (0, EVERY_DAY) else " ".join(days_of(mask))


def said(value: Any) -> Any:
    """A typed argument as an LLM writes it: constants by their word, names as they are."""
    return str(value) if isinstance(value, Const) else value


def spoken(act: Act) -> tuple[str, tuple[Any, ...]]:
    """An act's name as the vocabulary says it and its values but the order line."""
    return act.vocab_name, tuple(getattr(act, field) for field in act.fields if field != "line")


def customer_form(act: Act) -> dict[str, Any]:
    """One offline customer act as the JSON form of the customer vocabulary that means it."""
    name, values = spoken(act)
    a = [said(x) for x in values]
    if name == "order":
        return {"food": a[0], "quantity": a[1]}
    if name == "specify":
        return {"combo": a[0], "dish": a[1]}
    if name == "update":
        dish, op, option = a[0], a[1], values[2]
        form = {"dish": dish, "operation": op, "option": option, "new_option": None, "units": a[3] if len(a) > 3 else None}
        if op == "option":
            form.update(option=option[1], new_option=None if str(option[2]) == "yes" else "no")
        elif op == "change":
            form.update(option=option[0], new_option=option[1])
        return form
    if name == "need_recommend":
        return {"content": a[0], "type": a[1]}
    if name == "query":
        return {"kind": a[0], "food": a[1], "quantity": a[2], "size": None if a[3] == "none" else a[3]}
    if name == "remove":
        return {"food": a[0], "quantity": None if a[1] == "all" else a[1]}
    if name in ("set_quantity", "copy"):
        return {"food": a[0], "quantity": a[1]}
    if name == "refer":
        return {"kind": a[0], "value": str(a[1])}
    if name == "replace":
        return {"old": a[0], "new": a[1]}
    if name == "either":
        return {"first": a[0], "second": a[1]}
    if name == "greet":
        return {"kind": a[0]}
    if name == "vague":
        return {"kind": a[0], "quantity": a[1]}
    assert not a, f"{act}: no JSON form says it"
    return {}


def manager_form(act: Act) -> tuple[str, dict[str, Any]]:
    """One offline manager act as (form name, fields) of the manager or rules vocabulary."""
    name, values = spoken(act)
    a = [said(x) for x in values]

    def value(prop: str, v: Any) -> Any:
        if prop in ("price", "price_by"):
            return dollars(v)
        if prop == "contains":
            return v[0]
        return str(v)

    if name in ("runout", "restore"):
        return name, {"food": a[0]}
    if name == "add" and len(a) <= 2:
        return "add_new", {"type": a[0] if len(a) == 2 else None, "name": a[-1]}
    if name in ("add", "edit") and len(a) == 3:
        count = values[2][1] if a[1] == "contains" else None
        return name, {"name": a[0], "property": a[1], "value": value(a[1], values[2]),
                      **({"count": count} if name == "add" else {})}
    if name == "edit":
        return "edit_swap", {"name": a[0], "property": a[1], "old": value(a[1], a[2]), "new": value(a[1], a[3])}
    if name == "delete":
        if len(a) == 1:
            return "delete", {"name": a[0]}
        if len(a) == 2:
            return "delete_all", {"name": a[0], "property": a[1]}
        return "delete_value", {"name": a[0], "property": a[1], "value": value(a[1], values[2])}
    if name == "undo":
        return "undo", {"name": a[0] if a else None}
    if name == "correct":
        return "correct", {"name": a[0]}
    if name == "query":
        return "query", {"kind": a[0], "name": a[1]}
    if name == "rule_limit":
        return name, {"scope": a[0], "target": a[1], "most": a[2]}
    if name == "rule_hours":
        return name, {"scope": a[0], "target": a[1], "start": clock(a[2]), "end": clock(a[3]), "days": days(a[4])}
    if name == "rule_deal_price":
        return name, {"item": a[0], "price": dollars(a[1]), "days": days(a[2])}
    if name == "rule_deal_off":
        return name, {"kind": a[0], "amount": str(a[1]) if a[0] == "percent" else dollars(a[1]),
                      "over": dollars(a[2]) if a[2] else None}
    if name == "rule_deal_free":
        return name, {"combo": a[0], "item": a[1]}
    if name in ("rule_instead", "rule_suggest"):
        return name, dict(zip(("out", "offer") if name == "rule_instead" else ("given", "offer"), a))
    if name == "rule_drop":
        return name, {"kind": a[0], "name": None if a[1] == "all" else a[1], "number": str(a[2]) if a[2] else None,
                      "days": days(a[3])}
    assert not a, f"{act}: no JSON form says it"
    return name, {}


def as_json(role: str, parse: Any) -> dict[str, Any]:
    """An offline parse as the LLM's answer: its predicates in the vocabulary's JSON forms, a
    customer's by the order line they belong to (the forms have no line: a change follows the order
    it is about, and one about every unit of a dish said comes before its orders), and each name
    not on the menu as an order of it, the way a model writes a name it does not know."""
    forms = []
    for act in sorted(parse.acts, key=lambda act: getattr(act, "line", 0)) if role == "customer" else parse.acts:
        name, fields = (spoken(act)[0], customer_form(act)) if role == "customer" else manager_form(act)
        forms.append({"predicate": name, **fields})
    forms += [{"predicate": "order", "food": unknown, "quantity": 1} for unknown in parse.unknown]
    return {"predicates": forms}


class Mirror(FakeOpenAI):
    """The fake server answering each parse request with the offline parse of its line."""

    def __init__(self, parses: dict[tuple[str, str], deque]):
        super().__init__()
        self.offline = parses

    def answer(self, body: dict) -> tuple[int, dict]:
        role = body["response_format"]["json_schema"]["name"].removesuffix("_predicates")
        text = re.search(r"(?:Customer|Manager): (.*)\nJSON:$", body["messages"][-1]["content"], re.S).group(1)
        queue = self.offline[("customer" if role == "customer" else "manager", text)]
        rule = any(isinstance(act, RULE_ACTS) or isinstance(act, Ask) and str(act.kind) == "rules" for act in queue[0].acts)
        if role == "rules" and not rule:  # a line only hinting at a rule: the manager prompt reads it next
            return 200, completion('{"predicates": [{"predicate": "irrelevant"}]}')
        return 200, completion(json.dumps(as_json(role, queue.popleft())))


def record(monkeypatch) -> dict[tuple[str, str], deque]:
    """Each line's offline parse, in turn order, by role and text."""
    parses: dict[tuple[str, str], deque] = defaultdict(deque)
    for cls in (CustomerChat, ManagerChat):
        def understanding(self, text, ctx, usage, said=None, role="", _inner=cls.understand):
            parse = _inner(self, text, ctx, usage, said, role)
            parses[(self.role, text)].append(parse)
            return parse

        monkeypatch.setattr(cls, "understand", understanding)
    return parses


def outcome(result) -> list:
    return [(t["text"], t["reply"], sorted(t["parsed"]), t["actions"]) for t in result.turns] + \
        [(f.key, f.expected, f.actual) for f in result.failures] + [result.wrong_changes, result.error]


def scenarios():
    return [s for s in load_scenarios([REPO / "eval" / "scenarios"]) if s.name in SAMPLE]


def test_the_llm_reading_the_offline_acts_answers_as_the_offline_parser(monkeypatch, tmp_path):
    chosen = scenarios()
    assert sorted(s.name for s in chosen) == sorted(SAMPLE)
    assert sum(len(s.steps) for s in chosen) >= 50
    with monkeypatch.context() as patched:
        parses = record(patched)
        offline = {s.name: outcome(run_scenario(s, root=tmp_path)) for s in chosen}
    with Mirror(parses) as server:
        for key, value in (("OPENAI_BASE_URL", server.url), ("AUTOMANAGER_LLM_RETRIES", "0"),
                           ("AUTOMANAGER_LLM_DEADLINE", "20"), ("AUTOMANAGER_LLM_TIMEOUT", "20")):
            monkeypatch.setenv(key, value)
        config = LLMConfig.from_env("fake-model")
        for scenario in chosen:
            result = run_scenario(scenario, llm=config, root=tmp_path)
            assert [t["llm"].get("fallback") for t in result.turns] == [None] * len(result.turns)
            assert outcome(result) == offline[scenario.name], scenario.name
