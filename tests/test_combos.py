"""Meals and combos written in a menu file: `[choices.<name>]` (what a pick may be, what a pricier
one adds) and `[[combo]]` (a price, fixed parts, choices, a number) build into the combo
predicates the Taco Bell pack uses, so the same rules price and ask them on any pack."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from automanager import paths
from automanager.acts import Order, Specify, Update
from automanager.bots.assistant import Assistant
from automanager.cli import app
from automanager.language.customer_parser import option_value
from automanager.menu.build import BuildError, build_kb
from automanager.menu.model import Menu
from automanager.reasoner import Const
from automanager.state import State

BURGER = Path(__file__).resolve().parent.parent / "kb" / "packs" / "burger"
MENU = Menu.load(paths.kb_files(BURGER))
ASSISTANT = Assistant(MENU.files)
PRICE = dict(MENU.facts["original_price"])
SLOTS: dict[str, list[str]] = {}
for _group, _item in MENU.facts["combo_option_group"]:
    SLOTS.setdefault(_group, []).append(_item)
UPCHARGE = {(group, item): cents for group, item, cents in MENU.facts.get("group_upgrade_price", [])}
BREAKFAST = datetime.fromisoformat("2026-11-25T08:00")  # a Wednesday morning: every meal is served
CHOOSES = {combo: [x for c, x in MENU.facts["combo_contain"] if c == combo and x in SLOTS] for combo in MENU.combos}


def test_the_burger_pack_builds_from_its_menu_file_and_passes_the_integrity_check():
    runner = CliRunner()
    assert runner.invoke(app, ["kb", "build", "--check", "--kb", str(BURGER)]).exit_code == 0
    assert "no integrity violations" in runner.invoke(app, ["kb", "check", "--kb", str(BURGER)]).output


def test_a_combo_number_is_a_name_of_the_combo():
    aliases = {word: name for word, name in MENU.facts["alias"]}
    assert aliases["number 2"] == aliases["combo 2"] == aliases["meal number two"] == "Double Cheeseburger Meal"
    assert not any(word.replace(" ", "").isdigit() for word in aliases)  # a bare "2" is how many, never a meal


@pytest.mark.parametrize("line, expected", [
    ("#3 please", [("Bacon Cheeseburger Meal", 1)]),
    ("two #1s", [("Cheeseburger Meal", 2)]),
    ("2 number 3s and a number 4", [("Bacon Cheeseburger Meal", 2), ("Classic Burger Meal", 1)]),
    ("could I get 2 cheeseburgers", [("Cheeseburger", 2)]),  # the 2 is how many, not meal number 2
    ("three number ones", [("Cheeseburger Meal", 3)]),
])
def test_a_combo_number_and_a_count_are_told_apart(line, expected):
    from automanager.language.customer_parser import Context, CustomerParser

    acts = CustomerParser(MENU).parse(line, Context()).acts
    assert [(a.food, a.quantity) for a in acts if isinstance(a, Order)] == expected


def chat_on(pack: Path, tmp_path, monkeypatch, *lines: str):
    from automanager.star import CustomerChat
    from automanager.store import Home

    monkeypatch.setenv("AUTOMANAGER_KB", str(pack))
    chat = CustomerChat(Home(tmp_path / "home"))
    replies = [chat.turn(line).reply for line in lines]
    return chat, replies


def picks(unit: dict) -> set[str]:
    return set(unit.get("choice", []))


def test_a_meal_size_is_the_meals_and_priced_from_the_menu_file(tmp_path, monkeypatch):
    chat, replies = chat_on(BURGER, tmp_path, monkeypatch, "a large number 3 with onion rings and a diet coke",
                            "and a cheeseburger meal with fries and a root beer", "make that one a large meal too",
                            "that's all")
    assert "a large Cheeseburger Meal (with large French Fries, with large Root Beer)" in replies[-1]  # its picks resized
    first, second = chat.order()
    assert (first["item"], first["size"], picks(first)) == (
        "Bacon Cheeseburger Meal", ["large"], {'("Side",1,"Onion Rings")', '("Drink",1,"Diet Cola")'})
    assert (second["item"], second["size"], picks(second)) == (
        "Cheeseburger Meal", ["large"], {'("Side",1,"French Fries")', '("Drink",1,"Root Beer")'})
    large = dict(((d, v), p) for d, g, v, p in MENU.facts["option_price"] if str(g) == "size")
    said = [Order("Bacon Cheeseburger Meal", 1, 1), Specify("Bacon Cheeseburger Meal", "Onion Rings", 2)]
    large_meal = Update("Bacon Cheeseburger Meal", Const("option"), option_value("size", "large", True), 1)
    decision = ASSISTANT.decide(said + [large_meal], State(), [])
    assert decision.actions["board_total"][0][0] == PRICE["Bacon Cheeseburger Meal"] + 100 + \
        large[("Bacon Cheeseburger Meal", "large")]


def test_a_kids_meal_said_in_one_line_takes_its_own_small_picks(tmp_path, monkeypatch):
    chat, _ = chat_on(BURGER, tmp_path, monkeypatch, "a happy meal with nuggets, apples and a milk")
    [meal] = chat.order()
    assert (meal["item"], picks(meal)) == ("Kids Meal", {
        '("Kids Main",1,"Kids Nuggets")', '("Kids Side",1,"Apple Slices")', '("Kids Drink",1,"Milk")'})


def test_a_pick_outside_the_meals_choices_is_asked_about_not_rung_up(tmp_path, monkeypatch):
    chat, replies = chat_on(BURGER, tmp_path, monkeypatch, "a number 2 with a latte", "a root beer then")
    assert "Latte isn't one of the choices" in replies[0] and "Which drink" in replies[0]
    assert "Root Beer" in replies[0] and not any(unit["item"] == "Latte" for unit in chat.order())
    assert chat.order()[0]["choice"] == ['("Drink",1,"Root Beer")']


@pytest.mark.parametrize("change, problem", [
    (('items = ["Kids Burger", "Kids Nuggets"]', 'items = ["Kids Burger", "Kids Nugets"]'),
     r"line \d+, choice \"Kids Main\" field items \(entry 2\): 'Kids Nugets' is not the name of an \[\[item\]\]"),
    (('choose = { "Breakfast Drink" = 1 }', 'choose = { "Breakfast Drinks" = 1 }'),
     r"combo \"Breakfast Meal\" field choose.*'Breakfast Drinks' is not in \[choices\]"),
    (('parts = { "Cheeseburger" = 1 }', 'parts = { "Cheese Burger" = 1 }'),
     r"'Cheese Burger' is not the name of an \[\[item\]\]"),
    (('upcharges = { "Latte" = 120 }', 'upcharges = { "Mocha" = 120 }'),
     r"'Mocha' is not one of its items \(Coffee, Orange Juice, Latte\)"),
    (('name = "Kids Meal"', 'name = "Kids Burger"'), r"an \[\[item\]\] has this name too"),
    (('[choices."Kids Side"]\n', '[choices."Kids Side"]\ncategory = "side"\n'), r"not both and not neither"),
])
def test_a_mistake_in_a_combo_is_refused_naming_the_line_and_what_to_fix(tmp_path, change, problem):
    text = (BURGER / "menu.toml").read_text(encoding="utf-8")
    assert change[0] in text
    (tmp_path / "menu.toml").write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        build_kb(tmp_path)
    assert re.search(problem, str(caught.value)), str(caught.value)
    assert "curation" not in str(caught.value)  # only the pack's own file is named


@st.composite
def combo_orders(draw):
    combo = draw(st.sampled_from(sorted(c for c in CHOOSES if CHOOSES[c])))
    return combo, [(group, draw(st.sampled_from(sorted(SLOTS[group])))) for group in CHOOSES[combo]]


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(combo_orders())
def test_a_combo_costs_its_price_plus_the_upcharges_of_its_picks(order):
    combo, picks = order
    said = [Order(combo, 1, 1)] + [Specify(combo, item, line) for line, (_, item) in enumerate(picks, start=2)]
    decision = ASSISTANT.decide(said, State(), [], clock=BREAKFAST)
    expected = PRICE[combo] + sum(UPCHARGE.get(pick, 0) for pick in picks)
    assert decision.actions["board_total"][0][0] == expected, (combo, picks)


@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(combo_orders(), st.sampled_from(sorted(PRICE)))
def test_a_pick_outside_every_choice_of_the_combo_is_refused_and_the_choices_named(order, stranger):
    combo, _ = order
    slots = CHOOSES[combo]
    if any(stranger in SLOTS[group] for group in slots) or stranger in MENU.combos:
        return
    decision = ASSISTANT.decide([Order(combo, 1, 1), Specify(combo, stranger, 2)], State(), [], clock=BREAKFAST)
    chosen = [row for row in decision.state.holds() if "choice" in str(row)]
    assert not any(stranger in str(row) for row in chosen), (combo, stranger)
    assert decision.actions["board_total"][0][0] == PRICE[combo]


def test_kb_init_writes_a_starter_menu_that_builds_and_takes_a_meal(tmp_path, monkeypatch):
    from automanager.star import CustomerChat
    from automanager.store import Home

    pack = tmp_path / "pack"
    runner = CliRunner()
    assert runner.invoke(app, ["kb", "init", str(pack)]).exit_code == 0
    again = runner.invoke(app, ["kb", "init", str(pack)])
    assert again.exit_code == 2 and "already exists; nothing was written" in again.output
    assert runner.invoke(app, ["kb", "build", "--kb", str(pack)]).exit_code == 0
    monkeypatch.setenv("AUTOMANAGER_KB", str(pack))
    chat = CustomerChat(Home(tmp_path / "home"))
    chat.turn("a number one with a lemonade")
    assert chat.order() == [{"item": "Burger Meal", "choice": ['("Drink",1,"Lemonade")']}]  # the Drink choice, Lemonade


# ---- hours, options of one item, drinks without ingredients, words that would collide ----------------

def built_with(tmp_path, old: str, new: str) -> str:
    """The burger menu file with old changed to new, built: its error (or "" when it builds)."""
    text = (BURGER / "menu.toml").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "menu.toml").write_text(text.replace(old, new, 1), encoding="utf-8")
    try:
        build_kb(tmp_path)
    except BuildError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize("old, new, problem", [
    ('hours = { from = "06:00", until = "10:30" }   #', 'hours = { from = "06:00", until = "25:30" }   #',
     r'category "breakfast" field hours\.until: .*'),
    ('hours = { from = "06:00", until = "10:30" }   #', 'hours = { from = "10:30", until = "10:30" }   #',
     r"from and until are the same time"),
    ('hours = { from = "06:00", until = "10:30" }   #', 'hours = { from = "06:00", until = "10:30", days = ["monday"] }   #',
     r"days"),
    ('words = ["water", "a water"]', 'words = ["water", "large size"]',
     r"'large size' is also said for item \"Bottled Water\" words; an option word cannot name an item"),
    ('"skim milk" = { text = "with skim milk", words = ["skim", "nonfat milk"',
     '"skim milk" = { text = "with skim milk", words = ["skim", "milk"',
     r"'milk' is also said for item \"Milk\""),
    ('words = ["rootbeer"]', 'words = ["rootbeer", "4"]', r"'4' is only a number"),
    ('[categories.drink]\nhas_ingredients = false', '[categories.drink]',
     r"dish Bottled Water has no ingredient: .*has_ingredients = false"),
    ('default = "whole milk"', 'default = "soy milk"', r"item \"Coffee\" field options\.milk\.default: default 'soy milk'"),
])
def test_a_mistake_in_hours_options_or_words_is_refused_naming_both_places(tmp_path, old, new, problem):
    from automanager.cli import checked_before_writing

    error = built_with(tmp_path, old, new)
    if not error:  # an integrity rule (a dish with no ingredient) is checked on the built facts
        menu, _ = build_kb(tmp_path)
        error = "\n".join(checked_before_writing(tmp_path, menu))
    assert re.search(problem, error), error
    assert "curation" not in error


def test_menu_hours_refuse_breakfast_after_its_time_and_a_managers_rule_overrides_them(tmp_path):
    def served(bot: Assistant, at: str) -> bool:
        decision = bot.decide([Order("Sausage Egg Muffin", 1, 1)], State(), [], clock=datetime.fromisoformat(at))
        return any(row[:2] == ("order", "Sausage Egg Muffin") for row in decision.actions.get("confirm", []))

    assert served(ASSISTANT, "2026-11-25T08:00") and not served(ASSISTANT, "2026-11-25T11:00")
    rule = tmp_path / "rules.lp"  # the manager: breakfast until 11:30 on Saturdays
    rule.write_text('hours(category,"breakfast",360,690,32).\n', encoding="utf-8")
    bot = Assistant([*MENU.files, rule])
    assert served(bot, "2026-11-28T11:00") and not served(bot, "2026-11-28T11:45")  # Saturday: the rule's hours
    assert not served(bot, "2026-11-25T11:00") and served(bot, "2026-11-25T10:00")  # Wednesday: still the menu's


def test_an_items_own_option_is_offered_on_it_alone(tmp_path, monkeypatch):
    offers = {(item, str(group)) for item, group, _ in MENU.facts["option"]}
    assert ("Latte", "milk") in offers and ("Coffee", "milk") in offers and ("Hot Chocolate", "milk") not in offers
    assert ("Latte", "size") in offers  # and its category's options still
    chat, replies = chat_on(BURGER, tmp_path, monkeypatch, "a latte with oat milk", "and a hot chocolate with almond milk")
    assert "has no milk choice" in replies[1]
    assert chat.order() == [{"item": "Latte", "milk": ["oat milk"]}, {"item": "Hot Chocolate"}]


# ---- how a meal's picks are read ----------------------------------------------------------------------

def read(line: str) -> list[tuple[str, str, int]]:
    from automanager.language.customer_parser import Context, CustomerParser

    acts = CustomerParser(MENU).parse(line, Context()).acts
    return [("order", a.food, a.quantity) if isinstance(a, Order) else ("pick", a.dish, 1)
            for a in acts if isinstance(a, (Order, Specify))]


@pytest.mark.parametrize("line, expected", [
    ("a kids meal with nuggets, apples and milk",
     [("order", "Kids Meal", 1), ("pick", "Kids Nuggets", 1), ("pick", "Apple Slices", 1), ("pick", "Milk", 1)]),
    ("one kids meal, with the burger and an oj",  # "one kids" is no count of children
     [("order", "Kids Meal", 1), ("pick", "Kids Burger", 1), ("pick", "Orange Juice", 1)]),
    ("a kids meal and nuggets", [("order", "Kids Meal", 1), ("order", "Chicken Nuggets", 1)]),  # not said with it
    ("a number 1 with fries, and a cheeseburger",  # the kind of its burger: one more, not a pick
     [("order", "Cheeseburger Meal", 1), ("pick", "French Fries", 1), ("order", "Cheeseburger", 1)]),
    ("number 2 with a latte", [("order", "Double Cheeseburger Meal", 1), ("pick", "Latte", 1)]),  # refused, asked
    ("two number ones, both with fries and a coke",
     [("order", "Cheeseburger Meal", 2), ("pick", "French Fries", 1), ("pick", "French Fries", 1),
      ("pick", "Cola", 1), ("pick", "Cola", 1)]),
])
def test_what_is_said_with_a_meal_is_read_as_its_picks_or_as_foods_of_their_own(line, expected):
    assert read(line) == expected


def test_picks_said_on_both_after_ordering_go_to_each_meal(tmp_path, monkeypatch):
    chat, _ = chat_on(BURGER, tmp_path, monkeypatch, "two number 6s please", "onion rings and root beer on both")
    assert [picks(unit) for unit in chat.order()] == [{'("Side",1,"Onion Rings")', '("Drink",1,"Root Beer")'}] * 2


def test_a_meal_number_no_meal_has_is_said_back_not_dropped():
    from automanager.language.customer_parser import Context, CustomerParser

    parsed = CustomerParser(MENU).parse("a number 9 with a coke", Context())
    assert "number 9" in parsed.unknown and any(type(a).__name__ == "Unsure" for a in parsed.acts)
