"""Property tests (hypothesis) of the promotions a manager states (deal_price/3, deal_off/3,
deal_free/2): for generated orders, weekdays and rules, the total the assistant states is the
rules' arithmetic worked out here, to the cent, and no deal makes a price negative or holds on a
day it was not stated for."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automanager import paths
from automanager.acts import CUSTOMER_ACTS, Order, Query
from automanager.bots.assistant import Assistant
from automanager.bots.base import WEEKDAYS, new_facts, split_next
from automanager.menu.model import Menu
from automanager.reasoner import Const, TurnReasoner, atom

MENU = Menu.load(paths.kb_files())
# the assistant's rules with the stated promotions coming with each call (a menu version per
# example would be slow; served, they are KB facts)
RULES = Assistant(MENU.files).reasoner
ASSISTANT = TurnReasoner(MENU.files, RULES.rules, inputs={*(RULES.inputs or ()), "deal_price", "deal_off", "deal_free"})
PRICE = dict(MENU.facts["original_price"])
COMBOS = sorted(MENU.names("combo"))[:4]
DISHES = sorted(f for f in PRICE if f not in MENU.combos)[:12]
ITEMS = DISHES + COMBOS
TOTAL = Query(Const("total"), "all", 1, None)


@st.composite
def deal_prices(draw):
    item = draw(st.sampled_from(ITEMS))
    return item, draw(st.integers(0, PRICE[item] + 50)), draw(st.integers(1, 127))  # some no deal: not lower


rules = st.fixed_dictionaries({
    "price": st.lists(deal_prices(), max_size=3, unique_by=lambda rule: rule[0]),
    "off": st.one_of(st.none(), st.tuples(st.just("percent"), st.integers(1, 100), st.integers(0, 3000)),
                     st.integers(1, 1500).flatmap(lambda a: st.tuples(st.just("amount"), st.just(a),
                                                                       st.integers(a, 3000)))),
    "free": st.lists(st.tuples(st.sampled_from(["combo", *COMBOS]), st.sampled_from(DISHES)), max_size=2,
                     unique_by=lambda rule: rule[0]),
})
orders = st.lists(st.tuples(st.sampled_from(ITEMS), st.integers(1, 4)), min_size=1, max_size=4)


def stated(rule_set: dict, weekday: str) -> list:
    facts = [atom("deal_price", f, p, d) for f, p, d in rule_set["price"]]
    facts += [atom("deal_off", Const(rule_set["off"][0]), *rule_set["off"][1:])] if rule_set["off"] else []
    facts += [atom("deal_free", c, f) for c, f in rule_set["free"]]
    return facts + [atom("clock", 20261123 + WEEKDAYS.index(weekday), Const(weekday), 720)]


def expected_total(rule_set: dict, weekday: str, units: list[str]) -> tuple[int, int]:
    """(subtotal, total) of units ordered as they come, by the rules' arithmetic: a deal price on its
    days when it is under the price; one unit of a dish free per combo unit its rule names; the
    best order discount once the subtotal reaches its threshold."""
    bit = 1 << WEEKDAYS.index(weekday)
    deal = {f: p for f, p, d in rule_set["price"] if d & bit and p < PRICE[f]}
    free = {}
    for dish in {f for _, f in rule_set["free"]}:
        combos = {c for c, f in rule_set["free"] if f == dish}
        free[dish] = min(units.count(dish), sum(1 for u in units if u in COMBOS and ("combo" in combos or u in combos)))
    subtotal = 0
    for food in set(units):
        n, paid_free = units.count(food), free.get(food, 0)
        subtotal += (n - paid_free) * deal.get(food, PRICE[food])  # a free unit costs nothing
    discount = 0
    if rule_set["off"] and subtotal >= rule_set["off"][2] and subtotal > 0:
        kind, amount, _ = rule_set["off"]
        discount = (subtotal * amount + 50) // 100 if kind == "percent" else min(amount, subtotal)
    return subtotal, subtotal - discount


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules, st.sampled_from(WEEKDAYS), orders)
def test_the_stated_total_is_the_promotions_arithmetic(rule_set, weekday, ordered):
    facts = stated(rule_set, weekday)
    said = [Order(food, n, line) for line, (food, n) in enumerate(ordered, start=1)]
    first = split_next(ASSISTANT.solve(facts + new_facts(said, CUSTOMER_ACTS)))
    units = [food for _, food, _ in first.actions["board"]]
    subtotal, total = expected_total(rule_set, weekday, units)
    assert all(price >= 0 for _, _, price in first.actions["board"]), first.actions["board"]
    assert sum(price for _, _, price in first.actions["board"]) == subtotal
    assert first.actions["board_total"][0][0] == total, (rule_set, weekday, units)
    asked = split_next(ASSISTANT.solve(facts + first.state.holds() + new_facts([TOTAL], CUSTOMER_ACTS)))
    assert [row[2] for row in asked.actions["answer"] if row[:2] == ("order", "total")] == [total]
    shown = asked.actions.get("discount", [])
    assert sum(cents for _, cents in shown) == subtotal - total


@given(st.sampled_from(ITEMS), st.sampled_from(WEEKDAYS), st.integers(1, 126))
@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_deal_price_on_a_day_it_was_not_stated_for(item, weekday, days):
    rule_set = {"price": [(item, max(PRICE[item] - 1, 0), days)], "off": None, "free": []}
    facts = stated(rule_set, weekday)
    decision = split_next(ASSISTANT.solve(facts + new_facts([Order(item, 2, 1)], CUSTOMER_ACTS)))
    on_day = bool(days >> WEEKDAYS.index(weekday) & 1)
    deal_said = [c for c in decision.actions.get("confirm", []) if c[0] == "deal_price"]
    assert bool(deal_said) == (on_day and PRICE[item] > 1)
    assert decision.actions["board_total"][0][0] == 2 * (PRICE[item] - 1 if on_day and PRICE[item] > 1 else PRICE[item])
