"""The offline manager parser: sentences -> administrator predicates (before any reasoning)."""

from __future__ import annotations

import re

import pytest

from automanager import paths
from automanager.bots.admin import PROGRAM
from automanager.language.manager_parser import OFFLINE_ONLY, ManagerContext, ManagerParser
from automanager.menu.model import Menu
from automanager.vocab import MANAGER, RULES


@pytest.fixture(scope="module")
def parser():
    return ManagerParser(Menu.load(paths.kb_files()))


def asked(question, name="Grilled Beef Taco", kind="dish"):
    return ManagerContext(building=name, build_type=kind, ask_target=name, ask_topic=question)


@pytest.mark.parametrize("text, ctx, expected", [
    ("We have no more slow-roasted chicken.", None, ["runout('Slow-Roasted Chicken')"]),
    ("we're out of tomatoes and lettuce", None, ["runout('Tomatoes')", "runout('Iceberg Lettuce')"]),
    ("we ran out of tomatos", None, ["runout('Tomatoes')"]),  # misspelled: corrected against the KB
    ("we ran out of unicorn meat", None, ["runout('Unicorn Meat')"]),  # not read as the meat it mentions
    ("tomatoes are back in stock", None, ["restore('Tomatoes')"]),
    ("Add a new dish called Grilled Beef Taco", None, ["add(dish, 'Grilled Beef Taco')"]),
    ("add Grilled Beef Taco", None, ["add('Grilled Beef Taco')"]),
    ("add ingredient Pickled Onions", None, ["add(ingredient, 'Pickled Onions')"]),
    ("add a nacho fries dish for 2.49", None, ["add(dish, 'Nacho Fries')", "add('Nacho Fries', price, 249)"]),
    ("add guacamole as a popular topping for the soft taco", None, ["add('Soft Taco', popular, 'Guacamole')"]),
    ("a dish", asked("type", kind="unknown"), ["add(dish, 'Grilled Beef Taco')"]),
    ("it's a taco", asked("category"), ["add('Grilled Beef Taco', category, 'taco')"]),
    ("$3.49", asked("price"), ["add('Grilled Beef Taco', price, 349)"]),
    ("3.49", asked("price"), ["add('Grilled Beef Taco', price, 349)"]),
    ("beef, unicorn meat and cheese", asked("ingredient"),
     ["add('Grilled Beef Taco', ingredient, 'Seasoned Beef')", "add('Grilled Beef Taco', ingredient, 'Unicorn Meat')",
      "add('Grilled Beef Taco', ingredient, 'Cheddar Cheese')"]),
    ("about 450 calories", asked("calories"), ["add('Grilled Beef Taco', calories, 450)"]),
    ("450", asked("calories"), ["add('Grilled Beef Taco', calories, 450)"]),
    ("people like it with guacamole", asked("popular"), ["add('Grilled Beef Taco', popular, 'Guacamole')"]),
    ("none", asked("popular"), ["decline"]),
    ("add a combo called Taco Duo Box for $7.99 with two crunchy tacos and a drink, 900 calories", None,
     ["add(combo, 'Taco Duo Box')", "add('Taco Duo Box', price, 799)",
      "add('Taco Duo Box', contains, ('Crunchy Taco', 2))", "add('Taco Duo Box', contains, ('Drink', 1))",
      "add('Taco Duo Box', calories, 900)"]),
    ("change the price of the Crunchy Taco to $2.19", None, ["edit('Crunchy Taco', price, 219)"]),
    ("the soft taco now costs 1.99", None, ["edit('Soft Taco', price, 199)"]),
    ("set the calories of the bean burrito to 400", None, ["edit('Bean Burrito', calories, 400)"]),
    ("the big mac now costs $3.00", None, ["edit('Big Mac', price, 300)"]),
    ("replace lettuce with onions in the crunchy taco", None,
     ["edit('Crunchy Taco', ingredient, 'Iceberg Lettuce', 'Onions')"]),
    ("use onions instead of lettuce in the crunchy taco", None,
     ["edit('Crunchy Taco', ingredient, 'Iceberg Lettuce', 'Onions')"]),
    ("add guacamole to the crunchy taco", None, ["add('Crunchy Taco', ingredient, 'Guacamole')"]),
    ("add unicorn meat to the crunchy taco", None, ["add('Crunchy Taco', ingredient, 'Unicorn Meat')"]),
    ("remove lettuce from the crunchy taco", None, ["delete('Crunchy Taco', ingredient, 'Iceberg Lettuce')"]),
    ("take the Beefy 5-Layer Burrito off the menu", None, ["delete('Beefy 5-Layer Burrito')"]),
    ("remove the big mac from the menu", None, ["delete('Big Mac')"]),
    ("save the changes", None, ["save"]),
    ("bye", None, ["quit"]),
    ("cancel", None, ["cancel"]),
    ("yes", None, ["accept"]),
    ("what a lovely day", None, ["irrelevant"]),
])
def test_parse(parser, text, ctx, expected):
    assert [str(p) for p in parser.parse(text, ctx).acts] == expected


def test_the_vocabulary_is_the_one_the_ckt_reads():
    """Every predicate the parsers may emit has a new_* rule in admin.lp, and nothing else does (the
    LLM's vocabularies, the manager's and the store rules', and what only the offline parser says:
    store prices)."""
    handled = set(re.findall(r"\bnew_(\w+)\(", PROGRAM.read_text(encoding="utf-8")))
    assert handled == {form.pred for form in (*MANAGER.values(), *RULES.values())} | set(OFFLINE_ONLY)


def test_a_new_item_without_a_name_is_asked_for(parser):
    parse = parser.parse("add a new combo")
    assert [str(p) for p in parse.acts] == ["irrelevant"]
    assert "What is the new combo called?" in parse.hint


def test_an_edit_of_another_item_is_not_read_as_an_answer(parser):
    parse = parser.parse("change the price of the soft taco to three dollars", asked("category"))
    assert [str(p) for p in parse.acts] == ["edit('Soft Taco', price, 300)"]


@pytest.mark.parametrize("line, expected", [
    # amounts said in words, the threshold after any of its cues
    ("twenty percent off every order over fifty bucks", "rule_deal_off(percent, 20, 5000)"),
    ("knock four dollars off once the bill reaches thirty-five", "rule_deal_off(amount, 400, 3500)"),
    ("two bucks off at twenty", "rule_deal_off(amount, 200, 2000)"),
    ("take 3 dollars off anything above 18", "rule_deal_off(amount, 300, 1800)"),
    # a misspelt weekday is the weekday (the read-back says which)
    ("every tusday the bean burritos are 99 cents", "rule_deal_price('Bean Burrito', 99, 2)"),
    ("saterdays cheesy roll ups are 50 cents", "rule_deal_price('Cheesy Roll Up', 50, 32)"),
    # a rule dropped by a casual description
    ("the friday burrito special is over", "rule_drop(deal, 'burrito', 0, 16)"),
    ("we're done with the limit on tacos", "rule_drop(limit, 'taco', 0, 0)"),
    # described, not named: a kind of deal, a time of day, a fallback, a thing set up
    ("kill the fifteen percent thing", "rule_drop(percent, 'all', 15, 0)"),
    ("forget that drink thing we set up", "rule_drop(any, 'drink', 0, 0)"),
    ("the late night nacho thing, get rid of it", "rule_drop(hours, 'Nachos BellGrande®', 0, 0)"),
    ("stop offering chicken when the beef runs out", "rule_drop(instead, 'Grilled Chicken', 0, 0)"),
    ("lose the cap on drinks", "rule_drop(limit, 'drink', 0, 0)"),
])
def test_deals_in_words_misspelt_days_and_casual_drops(parser, line, expected):
    assert [str(p) for p in parser.parse(line).acts] == [expected]


def test_a_casual_drop_names_a_rule_by_the_category_of_its_dish(tmp_path):
    from automanager.star import ManagerChat
    from automanager.store import Home

    chat = ManagerChat(Home(tmp_path / "state"))
    for line in ("bean burritos are a dollar on fridays", "yes", "save"):
        chat.turn(line)
    turn = chat.turn("that friday burrito deal is done, kill it")
    assert "Drop the rule Bean Burrito at $1.00 each on Fridays?" in turn.reply
