"""Substitutions and suggestions a manager states (rule_instead, rule_suggest), read offline; the
lines of other acts that look like them stay theirs."""

from __future__ import annotations

import pytest

from automanager import paths
from automanager.language.manager_parser import ManagerParser
from automanager.menu.model import Menu


@pytest.fixture(scope="module")
def parser():
    return ManagerParser(Menu.load(paths.kb_files()))


@pytest.fixture(scope="module")
def pizza():
    return ManagerParser(Menu.load(paths.kb_files(paths.pack_dir("pizza"))))


def said(parser: ManagerParser, text: str) -> list[str]:
    return [str(p) for p in parser.parse(text).acts]


@pytest.mark.parametrize("text, expected", [
    ("if the beef runs out, offer grilled chicken instead", "rule_instead('Seasoned Beef', 'Grilled Chicken')"),
    ("when we're all out of refried beans, push black beans", "rule_instead('Refried Beans', 'Black Beans')"),
    ("sub steak for the beef when it's gone", "rule_instead('Seasoned Beef', 'Steak')"),
    ("offer a beef burrito instead if the bean burrito is sold out", "rule_instead('Bean Burrito', 'Beef Burrito')"),
    ("recommend the beef burrito when we don't have bean burritos", "rule_instead('Bean Burrito', 'Beef Burrito')"),
    ("if the seasoned beef is gone, offer a bean burrito", "rule_instead('Seasoned Beef', 'Bean Burrito')"),  # refused: unlike
    ("when the dragon fruit runs out offer steak", "rule_instead('Dragon Fruit', 'Steak')"),  # refused: not on the menu
    ("with any combo, suggest cinnamon twists", "rule_suggest('combo', 'Cinnamon Twists')"),
    ("for every meal we should offer cinnamon twists", "rule_suggest('combo', 'Cinnamon Twists')"),
    ("always offer a pepsi with a bean burrito", "rule_suggest('Bean Burrito', 'Pepsi®')"),
    ("upsell cinnamon twists with every taco", "rule_suggest('taco', 'Cinnamon Twists')"),
    ("when a guest orders nachos, suggest a pepsi", "rule_suggest('nachos', 'Pepsi®')"),
])
def test_a_rule_is_read(parser, text, expected):
    assert said(parser, text) == [expected]


@pytest.mark.parametrize("text", [
    "with a combo, offer a large drink",  # a size is no item
    "with every order suggest a drink",  # a kind of food is no item to offer
    "if the beef is out offer it instead",  # a pronoun is no name
])
def test_what_names_no_item_is_no_rule(parser, text):
    assert said(parser, text) == ["rule_unclear"]


@pytest.mark.parametrize("text, expected", [
    ("we're out of beef", "runout('Seasoned Beef')"),
    ("replace lettuce with onions in the crunchy taco", "edit('Crunchy Taco', ingredient, 'Iceberg Lettuce', 'Onions')"),
    ("use onions instead of lettuce in the crunchy taco", "edit('Crunchy Taco', ingredient, 'Iceberg Lettuce', 'Onions')"),
    ("we no longer offer the bean burrito", "delete('Bean Burrito')"),
])
def test_other_acts_stay_theirs(parser, text, expected):
    assert said(parser, text) == [expected]


def test_a_price_is_a_deals_not_a_suggestion(parser):
    assert parser.line_rule_offer("with any combo offer cinnamon twists for 1 dollar", "", None) is None  # type: ignore[arg-type]
    assert parser.line_rule_offer("a free pepsi with any combo", "", None) is None  # type: ignore[arg-type]


def test_a_topping_with_a_dish_is_left_to_the_older_readings(parser):
    assert parser.line_rule_offer("suggest guacamole with the bean burrito", "", None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("text, expected", [
    ("if coke is out, offer pepsi instead", "rule_instead('Coke', 'Pepsi')"),
    ("always offer a coke with every pizza", "rule_suggest('Pizza', 'Coke')"),
    ("with any drink suggest a pizza", "rule_suggest('drink', 'Pizza')"),
])
def test_the_pizza_pack(pizza, text, expected):
    assert said(pizza, text) == [expected]
