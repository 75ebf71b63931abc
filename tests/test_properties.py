"""Property-based tests (hypothesis) of the assistant's reasoning over random conversations:
totals are the sum of their parts, an order never holds what ran out, a refused update changes
nothing, and no order passes the caps."""

from __future__ import annotations

import clingo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automanager import paths
from automanager.acts import (
    CUSTOMER_ACTS,
    Accept,
    Cancel,
    Complete,
    Decline,
    Order,
    Remove,
    Replace,
    SetQuantity,
    Stop,
    Update,
)
from automanager.bots.assistant import Assistant
from automanager.bots.base import new_facts, split_next
from automanager.menu.model import Menu
from automanager.reasoner import Const, TurnReasoner, atom
from automanager.state import State
from automanager.vocab import CUSTOMER

MENU = Menu.load(paths.kb_files())
ASSISTANT = Assistant(MENU.files)
TOPPINGS: dict[str, list[str]] = {}
for _dish, _topping in MENU.facts["available_topping"]:
    TOPPINGS.setdefault(_dish, []).append(_topping)
DISHES = sorted(TOPPINGS)[:25]
DRINKS = sorted({d for d, g, _ in MENU.facts["option"] if g == "size"})[:5]
ITEMS = DISHES + DRINKS + sorted(MENU.names("combo"))[:4]
INCLUDED: dict[str, set[str]] = {}
for _dish, _ingredient in MENU.facts["included_ingredient"]:
    INCLUDED.setdefault(_dish, set()).add(_ingredient)
OUT_CANDIDATES = sorted({i for items in INCLUDED.values() for i in items})[:12]
POLICY = {name: rows[0][0] for name, rows in MENU.facts.items() if name.startswith("max_")}

quantities = st.integers(min_value=-2, max_value=30)
dishes = st.sampled_from(DISHES)


@st.composite
def updates(draw):
    dish = draw(dishes)
    op = draw(st.sampled_from(["add", "no", "less", "extra"]))
    return Update(dish, Const(op), draw(st.sampled_from(TOPPINGS[dish] + OUT_CANDIDATES[:3])))


acts = st.one_of(
    st.builds(Order, st.sampled_from(ITEMS), quantities,
              st.integers(1, 3)),
    updates(),
    st.builds(lambda d: Update(d, Const("option"), (Const("size"), "large", Const("yes"))), st.sampled_from(DRINKS)),
    st.builds(Remove, st.sampled_from(ITEMS), st.one_of(st.integers(1, 3),
                                                                                     st.just(Const("all")))),
    st.builds(lambda f, n: SetQuantity(f, n, 1), st.sampled_from(ITEMS), quantities),
    st.sampled_from([Complete(), Decline(), Accept(), Stop(), Cancel()]),
)
turns = st.lists(st.tuples(st.lists(acts, min_size=1, max_size=3),
                           st.lists(st.sampled_from(OUT_CANDIDATES), max_size=2, unique=True)),
                 min_size=1, max_size=8)


def units(state: State) -> tuple[dict[int, str], set[tuple]]:
    items, details = {}, set()
    for sym in map(clingo.parse_term, state.texts):
        if sym.name == "unit":
            items[sym.arguments[0].number] = sym.arguments[1].string
        elif sym.name == "has":
            details.add((sym.arguments[0].number, str(sym.arguments[1]), str(sym.arguments[2])))
    return items, details


def topping_names(details: set[tuple]) -> set[str]:
    return {value.strip('"') for _, kind, value in details if kind in ("add", "extra")}


@settings(max_examples=80, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns)
def test_random_conversations_keep_every_invariant(conversation):
    state = State()
    for said, runout in conversation:
        before = units(state)
        decision = ASSISTANT.decide(said, state, runout)
        state = decision.state
        items, details = units(state)
        # quantities never exceed the caps, and every unit has its own number
        assert len(items) <= POLICY["max_order_quantity"]
        assert len([s for s in state.texts if s.startswith("unit(")]) == len(items)
        # an order never holds an item or a topping that ran out (a unit made without the
        # ingredient that ran out, or with it swapped for another, does not need it)
        for unit, item in items.items():
            without = {value.strip('"') for u, kind, value in details if u == unit and kind == "no"}
            without |= {value.strip("()").split(",")[0].strip().strip('"')
                        for u, kind, value in details if u == unit and kind == "change"}
            assert not (INCLUDED.get(item, set()) & set(runout)) - without, (item, runout, without)
            assert item not in runout
        assert not (topping_names(details) & set(runout))
        # a priced total is the sum of its parts
        if "total" in decision.actions:
            checks = decision.actions.get("check", [])
            assert decision.actions["total"][0][0] == sum(price for _, _, price in checks)
            prices = dict(MENU.facts["original_price"])
            assert all(price >= prices[food] for _, food, price in checks)
        # a refused update changes nothing
        refused = [c for c in decision.actions.get("confirm", []) if c[0] == "rejected_update"]
        # (units that ran out, or a question settled by default after its third ask, change it
        # for their own reasons)
        own_reasons = ("ran_out", "skipped", "default_choice")
        other = [c for c in decision.actions.get("confirm", []) if c[0] in own_reasons]
        if refused and not other and all(p.vocab_name == "update" for p in said):
            accepted = [c for c in decision.actions.get("confirm", []) if c[0] == "update"]
            if not accepted:
                assert (items, details) == before, said


# ---- rules a manager stated: no order the bot accepts breaks an enabled limit ------------------
CATEGORY = dict(MENU.facts["category"])
COMBOS = set(MENU.names("combo"))
KINDS = sorted({CATEGORY[item] for item in ITEMS if item in CATEGORY}) + ["combo"]


def in_kind(item: str, kind: str) -> bool:
    return item in COMBOS if kind == "combo" else CATEGORY.get(item) == kind


limits = st.lists(st.one_of(
    st.tuples(st.just("item"), st.sampled_from(ITEMS), st.integers(1, 6)),
    st.tuples(st.just("category"), st.sampled_from(KINDS), st.integers(1, 8)),
    st.tuples(st.just("any_item"), st.just("all"), st.integers(1, 6)),
    st.tuples(st.just("total"), st.just("all"), st.integers(1, 12)),
), min_size=1, max_size=3, unique_by=lambda rule: rule[:2])
order_preds = st.one_of(
    st.builds(Order, st.sampled_from(ITEMS), st.integers(1, 8),
              st.integers(1, 3)),
    st.builds(lambda f, n: SetQuantity(f, n, 1), st.sampled_from(ITEMS), st.integers(0, 8)),
    st.builds(lambda old, new: Replace(old, new, 1), st.sampled_from(ITEMS), st.sampled_from(ITEMS)),
    st.builds(Remove, st.sampled_from(ITEMS), st.integers(1, 3)),
    st.sampled_from([Complete(), Decline(), Accept()]),
)


# the stated limits come with each call here (a menu version per example would be slow)
LIMITED = TurnReasoner(MENU.files, ASSISTANT.reasoner.rules, inputs={*(ASSISTANT.reasoner.inputs or ()), "limit"})


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(limits, st.lists(st.lists(order_preds, min_size=1, max_size=3), min_size=1, max_size=6))
def test_no_accepted_order_breaks_a_stated_limit(rules, conversation):
    stated = [atom("limit", Const(scope), target, most) for scope, target, most in rules]
    state = State()
    for said in conversation:
        facts = stated + state.holds() + new_facts(said, CUSTOMER_ACTS)
        state = split_next(LIMITED.solve(facts)).state
        items = list(units(state)[0].values())
        for scope, target, most in rules:
            if scope == "item":
                counted = items.count(target)
            elif scope == "category":
                counted = sum(in_kind(item, target) for item in items)
            elif scope == "any_item":
                counted = max((items.count(item) for item in items), default=0)
            else:
                counted = len(items)
            assert counted <= most, (scope, target, most, items, said)


def test_a_customer_line_stating_a_limit_is_no_rule_the_bot_reads():
    """A customer can never make, change or drop a rule: the customer vocabulary has no rule
    predicate, and the assistant's facts have no way to say one."""
    assert not {"rule_limit", "rule_drop", "limit"} & set(CUSTOMER)
    assert not {"new_rule_limit", "new_rule_drop", "new_limit"} & {cls.name for cls in CUSTOMER_ACTS}
