"""Meals and combos written in a menu file: `[choices.<name>]` (what a pick may be, what a pricier
one adds) and `[[combo]]` (a price, fixed parts, choices, a number) build into the combo
predicates the Taco Bell pack uses, so the same rules price and ask them on any pack."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from automanager import paths
from automanager.acts import Order, Specify
from automanager.bots.assistant import Assistant
from automanager.cli import app
from automanager.menu.build import BuildError, build_kb
from automanager.menu.model import Menu
from automanager.state import State

BURGER = Path(__file__).resolve().parent.parent / "kb" / "packs" / "burger"
MENU = Menu.load(paths.kb_files(BURGER))
ASSISTANT = Assistant(MENU.files)
PRICE = dict(MENU.facts["original_price"])
SLOTS: dict[str, list[str]] = {}
for _group, _item in MENU.facts["combo_option_group"]:
    SLOTS.setdefault(_group, []).append(_item)
UPCHARGE = {(group, item): cents for group, item, cents in MENU.facts.get("group_upgrade_price", [])}
CHOOSES = {combo: [x for c, x in MENU.facts["combo_contain"] if c == combo and x in SLOTS] for combo in MENU.combos}


def test_the_burger_pack_builds_from_its_menu_file_and_passes_the_integrity_check():
    runner = CliRunner()
    assert runner.invoke(app, ["kb", "build", "--check", "--kb", str(BURGER)]).exit_code == 0
    assert "no integrity violations" in runner.invoke(app, ["kb", "check", "--kb", str(BURGER)]).output


def test_a_combo_number_is_a_name_of_the_combo():
    aliases = {word: name for word, name in MENU.facts["alias"]}
    assert aliases["number 2"] == aliases["#2"] == aliases["combo 2"] == "Double Cheeseburger Meal"


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
    decision = ASSISTANT.decide(said, State(), [])
    expected = PRICE[combo] + sum(UPCHARGE.get(pick, 0) for pick in picks)
    assert decision.actions["board_total"][0][0] == expected, (combo, picks)


@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(combo_orders(), st.sampled_from(sorted(PRICE)))
def test_a_pick_outside_every_choice_of_the_combo_is_refused_and_the_choices_named(order, stranger):
    combo, _ = order
    slots = CHOOSES[combo]
    if any(stranger in SLOTS[group] for group in slots) or stranger in MENU.combos:
        return
    decision = ASSISTANT.decide([Order(combo, 1, 1), Specify(combo, stranger, 2)], State(), [])
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
