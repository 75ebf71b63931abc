"""Meals with pieces, sized picks and free sauces (menu.toml `parts` counts, `with_options`,
`choose_per_pieces`, `optional`): the tutorial's worked example (kb/packs/README.md, section 7)
is built as written and ordered from, and each field's mistakes are refused with what to fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from automanager.language.customer_templates import count
from automanager.menu.build import BuildError, build_kb
from automanager.star import CustomerChat
from automanager.store import Home

REPO = Path(__file__).resolve().parent.parent
TUTORIAL = REPO / "kb" / "packs" / "README.md"


def worked_example() -> str:
    """The toml block of the tutorial's section on pieces, buckets and sauces."""
    section = TUTORIAL.read_text(encoding="utf-8").split("## 7. Pieces")[1].split("\n## ")[0]
    return re.search(r"```toml\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


@pytest.fixture
def chicken(tmp_path, monkeypatch) -> Path:
    pack = tmp_path / "chicken"
    pack.mkdir()
    (pack / "menu.toml").write_text(worked_example(), encoding="utf-8")
    (pack / "menu.lp").write_text(build_kb(pack)[0], encoding="utf-8")
    monkeypatch.setenv("AUTOMANAGER_KB", str(pack))
    return pack


def chat(tmp_path: Path) -> CustomerChat:
    return CustomerChat(Home(tmp_path / "home"))


def facts(pack: Path, name: str) -> list[str]:
    return sorted(line for line in (pack / "menu.lp").read_text(encoding="utf-8").splitlines()
                  if line.startswith(name + "("))


def test_the_free_sauces_are_counted_from_the_pieces_rounded_down(chicken):
    assert 'combo_count("8 Piece Bucket","Sauce",2).' in facts(chicken, "combo_count")
    assert 'combo_count("3 Piece Tenders Meal","Sauce",1).' in facts(chicken, "combo_count")
    assert facts(chicken, "choice_option") == ['choice_option("Bucket Side",size,"large").']
    assert facts(chicken, "choice_optional") == ['choice_optional("Sauce").']


def test_a_bucket_rings_up_its_large_sides_and_both_free_sauces_at_the_meal_price(chicken, tmp_path):
    c = chat(tmp_path)
    turn = c.turn("a number 2 with mashed potatoes and coleslaw, ranch and honey mustard")
    assert [u["item"] for u in turn.order] == ["8 Piece Bucket"] and turn.reply.startswith("Got it: an 8 Piece"), turn.reply
    assert c.review()["total"][0][0] == 1999
    summary = c.turn("that's all").reply
    for said in ("large Mashed Potatoes", "large Coleslaw", "with Ranch", "with Honey Mustard", "$19.99"):
        assert said in summary, summary


def test_a_meals_picks_are_asked_and_no_to_its_optional_sauce_leaves_it_off(chicken, tmp_path):
    c = chat(tmp_path)
    c.turn("a number 1")
    asked = [c.turn("that's all").reply]
    for answer in ("coleslaw", "lemonade"):
        asked.append(c.turn(answer).reply)
    assert "sauce" in asked[-1].lower() and asked[-1].endswith("or none."), asked
    summary = c.turn("no").reply
    assert "no sauce" in summary and "$7.99" in summary, summary
    assert [u["item"] for u in c.turn("no").order] == ["3 Piece Tenders Meal"]


def test_a_sauce_past_the_free_ones_is_sold_on_its_own(chicken, tmp_path):
    c = chat(tmp_path)
    c.turn("a number 1 with coleslaw, a lemonade and ranch")
    turn = c.turn("and a honey mustard")
    assert sorted(u["item"] for u in turn.order) == ["3 Piece Tenders Meal", "Honey Mustard"], turn.reply
    assert c.review()["total"][0][0] == 799 + 35


def test_what_a_meal_comes_with_is_said_with_its_counts(chicken, tmp_path):
    reply = chat(tmp_path).turn("what comes in the 8 piece bucket?").reply
    assert "eight Tenders" in reply and "two Bucket Sides" in reply and "two Sauces" in reply, reply


@pytest.mark.parametrize("old, new, problem", [
    ('with_options = { size = "large" }', 'with_options = { size = "huge" }', "'huge' is not one of its size values"),
    ('with_options = { size = "large" }', 'with_options = { heat = "hot" }', "'heat' is not in [options]"),
    ('choose_per_pieces = { "Sauce" = 3 }     # two', 'choose_per_pieces = { "Sauces" = 3 }     # two',
     "'Sauces' is not in [choices]"),
    ('choose = { "Bucket Side" = 2 }', 'choose = { "Bucket Side" = 2, "Sauce" = 1 }', "'Sauce' is in choose too"),
])
def test_a_mistake_in_those_fields_is_refused_with_what_to_fix(tmp_path, old, new, problem):
    text = worked_example()
    assert old in text
    (tmp_path / "menu.toml").write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        build_kb(tmp_path)
    assert problem in str(caught.value)


@pytest.mark.parametrize("name, one, two", [
    ("8 Piece Bucket", "an 8 Piece Bucket", "two 8 Piece Buckets"),
    ("11 Piece Meal", "an 11 Piece Meal", "two 11 Piece Meals"),
    ("Green Beans", "an order of Green Beans", "two orders of Green Beans"),
    ("Orange Citrus", "an Orange Citrus", "two Orange Citrus"),  # a singular word ending in s
    ("Egg and Cheese Muffin", "an Egg and Cheese Muffin", "two Egg and Cheese Muffins"),
    ("Mac and Cheese", "an order of Mac and Cheese", "two orders of Mac and Cheese"),  # two foods joined
])
def test_a_name_is_said_with_its_article_and_plural(name, one, two):
    assert (count(name, 1), count(name, 2)) == (one, two)


def test_every_shipped_name_is_said_with_an_article_and_a_plural_that_reads_as_english():
    """Over the shipped packs: one of a name starts "a", "an" or "an order of" as its first
    sound asks; two of it never keeps "a", and a plural name is never made plural again."""
    vowel_sound = re.compile(r"(?i)^([aeio]|u(?!ni|se|su|tr)|8|11|18|80)")
    for pack in (REPO / "kb", *(REPO / "kb" / "packs" / name for name in ("pizza", "burger", "chicken"))):
        names = re.findall(r'^(?:dish|combo)\("([^"]+)"\)', (pack / "menu.lp").read_text(encoding="utf-8"), re.M)
        assert len(names) > 10
        for name in names:
            one, two = count(name, 1), count(name, 2)
            if not one.startswith("an order of"):
                assert one.split(" ", 1)[0] == ("an" if vowel_sound.match(name) else "a"), name
            assert two.startswith("two ") and " a " not in f" {two} ", name
            assert not two.endswith(("ss", "ses")) or name.endswith(("ss", "ses")), two  # never "Friess"


def test_no_sauce_said_of_a_meal_whose_sauce_is_optional_leaves_it_off(chicken, tmp_path):
    c = chat(tmp_path)
    c.turn("a number 1")
    c.turn("coleslaw and a lemonade")  # right after the meal: its side and drink
    assert "sauce" in c.turn("that's all").reply.lower()
    turn = c.turn("no sauce thanks")
    assert "no sauce" in turn.reply and "$7.99" in turn.reply, turn.reply
    assert [u["item"] for u in turn.order] == ["3 Piece Tenders Meal"]
