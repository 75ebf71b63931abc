"""The menu file's declared schema (automanager/menu/schema.py): a mistake is named by file, line
and field, and what the old hand-written checks let through (a misspelled field, "no" for a
yes/no, a price for a value the category does not offer) is refused."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

from automanager.menu import schema
from automanager.menu.build import BuildError, build_kb
from automanager.menu.schema import MAX_DEPTH, MenuSchema

REPO = Path(__file__).resolve().parents[1]
PACK = REPO / "kb" / "packs" / "pizza"
MENU = (PACK / "menu.toml").read_text(encoding="utf-8")
PIZZA = 'name = "Pizza"\ncategory = "pizza"\nprice = 1399\ncal = 2200\nbest_seller = true\n'


def refused(tmp_path: Path, old: str, new: str) -> tuple[str, str]:
    """The build's error for the shipped menu with old changed to new, and the changed text."""
    assert old in MENU
    text = MENU.replace(old, new, 1)
    (tmp_path / "menu.toml").write_text(text, encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        build_kb(tmp_path)
    return str(caught.value), text


def line_of(text: str, line: str, after: int = 0) -> int:
    """The number of the first line of text that is exactly `line`, after line number `after`."""
    lines = text.splitlines()
    return next(n for n, s in enumerate(lines, start=1) if n > after and s == line)


def test_a_wrong_type_price_names_line_item_and_field(tmp_path):
    error, text = refused(tmp_path, PIZZA, PIZZA.replace("price = 1399", "price = 12.5"))
    assert error == f'menu.toml, line {line_of(text, "price = 12.5")}, item "Pizza" field price: ' \
                    "must be a whole number of cents, not 12.5"


def test_an_unknown_field_is_named_with_the_fields_it_may_be(tmp_path):
    error, text = refused(tmp_path, PIZZA, PIZZA.replace("best_seller", "bestseller"))
    assert error.startswith(f'menu.toml, line {line_of(text, "bestseller = true")}, item "Pizza" field bestseller: ')
    assert "best_seller" in error.split(":", 1)[1]  # what it should have been


def test_a_missing_name_names_the_items_header_line(tmp_path):
    error, text = refused(tmp_path, 'name = "Coke"\n', "")
    first = line_of(text, "[[item]]")
    assert error == f"menu.toml, line {line_of(text, '[[item]]', after=first)}, item 2 field name: is missing"


def test_too_long_text_names_the_entry_and_which_word(tmp_path):
    long = "x" * 201
    error, text = refused(tmp_path, 'words = ["feta"]', f'words = ["feta", "{long}"]')
    line = next(n for n, s in enumerate(text.splitlines(), start=1) if long in s)
    assert error == (f'menu.toml, line {line}, ingredient "Feta Cheese" field words (entry 2): must be 1 to 200 '
                     "characters on one line, without control characters")


def test_too_deep_nesting_is_refused_before_parsing_with_its_line(tmp_path):
    nest = "x = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    error, text = refused(tmp_path, "[policy]", f"[policy]\n{nest}")
    assert error.startswith(f"menu.toml, line {line_of(text, nest)}: brackets nested more than {MAX_DEPTH} deep")
    dotted = ".".join(["a"] * 100_000) + " = 1"  # tomllib takes time and memory by its length squared
    error, text = refused(tmp_path, "[policy]", f"[policy]\n{dotted}")
    assert error.startswith(f"menu.toml, line {line_of(text, dotted)}: dotted keys nested more than")


def test_a_bad_default_names_its_line_and_the_values(tmp_path):
    error, text = refused(tmp_path, 'default = "medium"\n[categories.pizza.options.crust]',
                          'default = "jumbo"\n[categories.pizza.options.crust]')
    line = line_of(text, 'default = "jumbo"')
    assert error.startswith(f'menu.toml, line {line}, category "pizza" field options.size.default: '
                            "default 'jumbo' is not one of its size values (personal, lunch")


# mistakes the hand-written checks let through: each built a menu.lp that said something else
LET_THROUGH = {
    "a misspelled field": (PIZZA, PIZZA.replace("best_seller", "best_sellr"), "field best_sellr: is no field"),
    "'no' for a yes/no": (PIZZA, PIZZA.replace("best_seller = true", 'best_seller = "no"'),
                          'field best_seller: must be true or false, not "no"'),
    "a misspelled table": ('[[item]]\nname = "Coke"', '[[items]]\nname = "Coke"', "items: is no field"),
    "a price for a value not offered": ("prices = { bottle = 50 }", "prices = { botle = 50 }",
                                        "options.container.prices.botle: 'botle' is not one of its container values"),
    "a popular topping no ingredient declares": ('popular_toppings = ["Pepperoni"', 'popular_toppings = ["Peperoni"',
                                                 "field popular_toppings (entry 1): 'Peperoni' is not in [ingredients]"),
    "a style containing no declared ingredient": ('contains = ["Ham", "Pineapple"]', 'contains = ["Ham", "Pinapple"]',
                                                  'option group "style" field values.hawaiian.contains (entry 2): '
                                                  "'Pinapple' is not in [ingredients]"),
    "negative calories": (PIZZA, PIZZA.replace("cal = 2200", "cal = -5"), "field cal: must be at least 0 calories"),
    "a text for yes/no of a group": ("[options.size]\nexclusive = true", '[options.size]\nexclusive = "false"',
                                     'option group "size" field exclusive: must be true or false'),
}


@pytest.mark.parametrize("mistake", sorted(LET_THROUGH))
def test_what_the_old_checks_let_through_is_refused_with_line_and_field(tmp_path, mistake):
    old, new, problem = LET_THROUGH[mistake]
    error, _ = refused(tmp_path, old, new)
    assert re.match(r"menu\.toml, line \d+, ", error) and problem in error, error


def schema_fields(model: type[BaseModel]) -> set[str]:
    """Every field name of a model and of the models its fields hold, as a menu file spells it."""
    names = set()
    for name, info in model.model_fields.items():
        names.add(info.alias or name)
        for inner in re.findall(r"automanager\.menu\.schema\.(\w+)", repr(info.annotation)):
            names |= schema_fields(getattr(schema, inner))
    return names


def test_the_tutorials_reference_builds_and_uses_every_field_of_the_schema(tmp_path):
    """kb/packs/README.md is the tutorial; its reference example is a whole menu that builds, and
    holds every field the schema has, so no field goes undocumented."""
    readme = (REPO / "kb" / "packs" / "README.md").read_text(encoding="utf-8")
    example = re.search(r"## Reference.*?```toml\n(.*?)```", readme, re.S)
    assert example is not None
    menu = MenuSchema.model_validate(tomllib.loads(example.group(1)))
    assert menu.item[0].name == "Pizza" and menu.categories["pizza"].toppings == "all"
    (tmp_path / "menu.toml").write_text(example.group(1), encoding="utf-8")
    build_kb(tmp_path)
    used = set(re.findall(r"^\s*\[*\s*(?:[\w.]+\.)?([a-z_]+)\s*[=\]]", example.group(1), re.M))
    used |= set(re.findall(r"[{,]\s*([a-z_]+)\s*=", example.group(1)))
    used |= set(re.findall(r"^\[+([a-z_]+)", example.group(1), re.M))  # [categories.pizza]
    assert schema_fields(MenuSchema) - used == set()


def test_a_bad_name_of_an_entry_is_named_as_its_name(tmp_path):
    error, text = refused(tmp_path, "[options.size]\nexclusive = true\nbefore_name = true\n[options.size.values]",
                          "[options.Size]\nexclusive = true\nbefore_name = true\n[options.Size.values]")
    assert error.startswith(f'menu.toml, line {line_of(text, "[options.Size]")}, option group "Size" (its name): '
                            '"Size": use lowercase letters')


def test_a_line_of_a_multiline_string_that_looks_like_a_key_does_not_break_the_line_finder(tmp_path):
    """'\\q' is no TOML escape; in a literal string it is text, and the line finder must not choke on it."""
    error, text = refused(tmp_path, PIZZA, PIZZA + "labels = ['''\n\"\\q\" = 1\n''']\n")
    assert "item \"Pizza\" field labels (entry 1): must be 1 to 200 characters" in error


def test_kb_build_warns_of_names_a_chat_will_mishear_and_builds_anyway(tmp_path):
    from typer.testing import CliRunner

    from automanager.cli import app

    burger = (REPO / "kb" / "packs" / "burger" / "menu.toml").read_text(encoding="utf-8")
    text = burger.replace('"Greens" = {}', '"Greens" = {}\n"Apple Slices" = {}', 1)  # called as a side is
    text = text.replace('name = "Bacon Cheeseburger Meal"', 'name = "Bacon Morning Deal"', 1)
    assert text.count("Apple Slices") > burger.count("Apple Slices") and "Morning Deal" in text
    (tmp_path / "menu.toml").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["kb", "build", "--kb", str(tmp_path)])
    assert result.exit_code == 0 and (tmp_path / "menu.lp").is_file(), result.stderr
    warned = [line for line in result.stderr.replace("\n", " ").split("warning: ") if line.strip()]
    said = {line.split(":")[0]: line for line in warned}
    places = [(text.splitlines().index(line) + 1, what) for line, what in [
        ('"Apple Slices" = {}', 'ingredient "Apple Slices"'),
        ('name = "Bacon Morning Deal"', 'combo "Bacon Morning Deal" field name'),
        (burger.splitlines()[41], 'ingredient "American Cheese"'), (burger.splitlines()[59], 'ingredient "Egg"')]]
    assert set(said) == {f"menu.toml, line {n}, {what}" for n, what in places}, said
    assert any("as the item \"Apple Slices\" is" in line and "Name the ingredient differently" in line for line in warned)
    assert any('holds "deal"' in line and "Name it by its food" in line for line in warned)


def test_an_item_leaves_out_an_option_group_of_its_category(tmp_path):
    from automanager.star import CustomerChat
    from automanager.store import Home

    burger = (REPO / "kb" / "packs" / "burger" / "menu.toml").read_text(encoding="utf-8")
    bottled = 'name = "Orange Juice"\ncategory = "drink"\nwithout_options = ["size"]\n'
    text = burger.replace('name = "Orange Juice"\ncategory = "drink"\n', bottled, 1)
    assert bottled in text
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "menu.toml").write_text(text, encoding="utf-8")
    menu, _ = build_kb(pack)
    assert 'option("Orange Juice",size,' not in menu and 'option("Root Beer",size,' in menu
    (pack / "menu.lp").write_text(menu, encoding="utf-8")
    chat = CustomerChat(Home(tmp_path / "home", pack))
    chat.turn("an orange juice and a root beer")
    asked = chat.turn("that's all").reply
    assert "Root Beer" in asked and "Orange Juice" not in asked  # only the sized drink's size is asked
    for wrong, problem in [('without_options = ["milk"]', "'milk' is no option group its category 'drink' offers "
                            "(it offers: size)"), ('without_options = ["Size"]', "field without_options")]:
        (pack / "menu.toml").write_text(text.replace('without_options = ["size"]', wrong), encoding="utf-8")
        with pytest.raises(BuildError) as caught:
            build_kb(pack)
        assert problem in str(caught.value) and f"line {line_of(text, bottled.splitlines()[2])}" in str(caught.value)
