"""Names of any script (issue 27): normalization keeps every letter, so a pack whose items are
named in Japanese, Arabic, Cyrillic, Greek or Devanagari can be ordered from and managed offline,
`kb check` tells different names apart, and no name is ever taken for one of another script.
Latin names normalize exactly as they did before."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automanager import paths
from automanager.cli import app
from automanager.language.text import tokenize
from automanager.menu.build import build_kb
from automanager.menu.model import Menu
from automanager.normalize import normalize
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home

NAMES = {"ピザ": "ピザ", "بيتزا": "بيتزا", "Пицца": "пицца", "पिज़्ज़ा": "पिज़्ज़ा", "Πίτα": "πιτα",
         "ラーメン": "ラーメン", "寿司": "寿司", "김치": "김치"}


@pytest.mark.parametrize("name, key", sorted(NAMES.items()))
def test_normalize_keeps_the_letters_of_every_script(name, key):
    assert normalize(name) == key and normalize(f" {name}!® ") == key


def test_different_names_stay_different():
    assert len({normalize(name) for name in NAMES}) == len(NAMES)
    assert normalize("ザ") != normalize("サ")  # NFKD splits off the dakuten; it is part of the letter
    assert normalize("Йогурт") != normalize("Иогурт")  # й is not и
    assert normalize("पिज़्ज़ा") != normalize("पज़्ज़ा")  # a vowel sign is a vowel


@pytest.mark.parametrize("said, name", [
    ("ｻﾞ", "ザ"),  # half-width kana
    ("ΠΙΤΑ", "Πίτα"),  # Greek capitals carry no tonos
    ("ПИЦЦА", "Пицца"),
    ("ピザ & ラーメン", "ピザ and ラーメン"),
])
def test_case_and_the_ways_of_writing_a_letter_do_not_count(said, name):
    assert normalize(said) == normalize(name)


def old_normalize(text: str) -> str:
    """The rule before issue 27, the oracle for Latin names: NFKD, no combining marks, casefold,
    runs of a-z and 0-9."""
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(re.findall(r"[a-z0-9]+", text.casefold().replace("&", " and ")))


@pytest.mark.parametrize("name, key", [
    ("Super Wrap®", "super wrap"), ("super  wrap", "super wrap"), ("Café", "cafe"), ("Crème Brûlée", "creme brulee"),
    ("Jalapeño Peppers", "jalapeno peppers"), ("Beefy 5-Layer Burrito", "beefy 5 layer burrito"),
    ("Mac & Cheese", "mac and cheese"), ("Pizza!", "pizza"), ("ＰＩＺＺＡ", "pizza"), ("7 Up", "7 up"),
    ("Doritos® Cheesy Gordita Crunch - Nacho Cheese", "doritos cheesy gordita crunch nacho cheese"),
])
def test_latin_names_normalize_as_before(name, key):
    assert normalize(name) == key == old_normalize(name)


@pytest.mark.parametrize("kb", [None, paths.pack_dir("pizza")], ids=["taco bell", "pizza"])
def test_every_shipped_name_normalizes_as_before(kb):
    menu = Menu.load(paths.kb_files(kb))
    said = [*menu.items, *menu.toppings, *(alias for alias, _ in menu.facts.get("alias", [])),
            *(word for _, _, word in menu.facts.get("option_word", []))]
    assert said and all(normalize(name) == old_normalize(name) for name in said)


def test_a_name_is_one_token_in_an_english_line():
    assert tokenize("can I get 2 ピザ, please") == ["can", "i", "get", "2", "ピザ", ",", "please"]
    assert tokenize("ピザ、ラーメン。") == ["ピザ", ",", "ラーメン", "."]
    assert "पिज़्ज़ा" in tokenize("a पिज़्ज़ा please")


MENU = """
[restaurant]
name = "World Kitchen"

[policy]
max_line_quantity = 25
max_order_quantity = 60
max_item_price = 6000
max_item_calories = 9000
readback_price_change_percent = 50
readback_runout_dishes = 3
combo_choices_named = 3
ask_questions = []

[ingredients]
"Dough" = { price = 0 }

[categories.dish]
"""
ITEMS = {"ピザ": 1200, "ラーメン": 900, "بيتزا": 1100, "Пицца": 1000, "Πίτα": 500, "पिज़्ज़ा": 1300, "Pita": 450}


def write_pack(folder: Path, names: dict[str, int]) -> Path:
    folder.mkdir()
    items = "".join(f'\n[[item]]\nname = "{name}"\ncategory = "dish"\nprice = {price}\ncal = 500\nincludes = ["Dough"]\n'
                    for name, price in names.items())
    (folder / "menu.toml").write_text(MENU + items, encoding="utf-8")
    menu, _ = build_kb(folder)
    (folder / "menu.lp").write_text(menu, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    return write_pack(tmp_path_factory.mktemp("scripts") / "pack", ITEMS)


def test_kb_check_tells_names_of_other_scripts_apart(pack):
    checked = CliRunner().invoke(app, ["kb", "check", "--kb", str(pack)])
    assert checked.exit_code == 0 and "no integrity violations" in checked.output, checked.output


def test_kb_check_still_flags_names_that_differ_by_case_or_punctuation(tmp_path):
    folder = write_pack(tmp_path / "pack", {"Pizza": 1000, "pizza!": 1100, "ピザ": 1200, "ピサ": 1200})
    checked = CliRunner().invoke(app, ["kb", "check", "--kb", str(folder)])
    assert checked.exit_code == 1 and "'Pizza' and 'pizza!' differ only by case or punctuation" in checked.output
    assert "ピサ" not in checked.output


@pytest.mark.parametrize("said, ordered", [
    ("ピザ", ["ピザ"]),
    ("2 ピザ", ["ピザ"] * 2),
    ("ピザ 2", ["ピザ"] * 2),
    ("can I get a ピザ please", ["ピザ"]),
    ("two ピザ", ["ピザ"] * 2),
    ("ピザ、ラーメン", ["ピザ", "ラーメン"]),
    ("بيتزا", ["بيتزا"]),
    ("2 بيتزا and a ラーメン", ["بيتزا", "بيتزا", "ラーメン"]),
    ("an пицца please", ["Пицца"]),
    ("three ΠΙΤΑ", ["Πίτα"] * 3),
    ("पिज़्ज़ा", ["पिज़्ज़ा"]),
    ("can I get two पिज़्ज़ा", ["पिज़्ज़ा"] * 2),
    ("a pita", ["Pita"]),
])
def test_a_customer_orders_names_of_any_script(pack, tmp_path, said, ordered):
    turn = CustomerChat(Home(tmp_path, pack)).turn(said)
    assert [unit["item"] for unit in turn.order] == ordered, turn.reply


@pytest.mark.parametrize("said", ["ピタ", "ピサ", "пица", "a pizza", "two pizzas please", "サ"])
def test_nothing_is_ordered_for_a_name_of_another_script_or_one_sign_off(pack, tmp_path, said):
    """Misunderstanding must be safe: kana one sign away is another word, and the Latin 'pizza'
    is none of the pack's pizzas."""
    turn = CustomerChat(Home(tmp_path, pack)).turn(said)
    assert turn.order == [], turn.reply


def test_the_plural_of_a_name_without_english_plurals_is_the_name(pack, tmp_path):
    turn = CustomerChat(Home(tmp_path, pack)).turn("2 ピザ")
    assert "two ピザ." in turn.reply and "ピザs" not in turn.reply.casefold()


def test_the_manager_runs_out_of_and_reprices_a_name_in_english_around_it(pack, tmp_path):
    home = Home(tmp_path, pack)
    manager = ManagerChat(home)
    assert "ピザ" in manager.turn("we ran out of ピザ").reply
    manager.turn("the بيتزا now costs $9.99")
    manager.turn("make the Пицца 11 dollars")
    assert sorted(manager.staged()) == [("edit", "Пицца", "price", 1000, 1100), ("edit", "بيتزا", "price", 1100, 999)]
    assert "Applied 2 changes" in manager.turn("save").reply
    customer = CustomerChat(home)
    refused = customer.turn("a ピザ and a بيتزا")
    assert [unit["item"] for unit in refused.order] == ["بيتزا"] and "ピザ" in refused.reply
    assert customer.review()["total"][0][0] == 999
