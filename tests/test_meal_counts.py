"""Meals with pieces, sized picks and free sauces (menu.toml `parts` counts, `with_options`,
`choose_per_pieces`, `optional`): the tutorial's worked example (kb/packs/README.md, section 7)
is built as written and ordered from, and each field's mistakes are refused with what to fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from automanager.menu.build import BuildError, build_kb
from automanager.star import CustomerChat
from automanager.store import Home

TUTORIAL = Path(__file__).resolve().parent.parent / "kb" / "packs" / "README.md"


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
    assert [u["item"] for u in turn.order] == ["8 Piece Bucket"], turn.reply
    assert "large Mashed Potatoes" in turn.reply or "large Mashed Potatoes" in c.turn("that's all").reply
    priced = c.review()
    assert priced["total"][0][0] == 1999
    reply = c.turn("that's all").reply
    assert "large Coleslaw" in reply and "Ranch" in reply and "Honey Mustard" in reply, reply


def test_a_meals_picks_are_asked_and_no_to_its_optional_sauce_leaves_it_off(chicken, tmp_path):
    c = chat(tmp_path)
    c.turn("a number 1")
    asked = [c.turn("that's all").reply]
    for answer in ("coleslaw", "lemonade"):
        asked.append(c.turn(answer).reply)
    assert "sauce" in asked[-1].lower(), asked
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
