import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automanager import paths
from automanager.cli import app
from automanager.menu.build import build_kb
from automanager.menu.check import check_kb, kb_stats
from automanager.menu.model import Menu
from automanager.reasoner import Reasoner

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kb():
    return Reasoner(paths.kb_files()).solve()


def test_shipped_kb_passes_the_integrity_rules():
    result = runner.invoke(app, ["kb", "check"])
    assert result.exit_code == 0, result.output
    assert "no integrity violations" in result.output


def test_shipped_kb_has_at_least_1200_facts_and_the_whole_vocabulary():
    result = runner.invoke(app, ["kb", "stats", "--json"])
    assert result.exit_code == 0
    stats = json.loads(result.output)
    assert stats["total"] >= 1200
    vocabulary = """dish/1 combo/1 ingredient/1 sauce/1 original_price/2 original_cal/2 category/2
        included_ingredient/2 replaceable_ingredient/3 replacement_price/4 available_topping/2
        popular_topping/2 upgrade_price/3 upgrade_cal/3 option/3
        option_price/4 extra_price/2 extra_cal/2 combo_contain/2 combo_option_group/2
        group_upgrade_price/3 option_default/3 option_text/3 label/2
        label_word/2 best_seller/1""".split()
    missing = [p for p in vocabulary if stats["predicates"].get(p, 0) == 0]
    assert missing == []


def test_kb_holds_what_the_paper_dialogue_needs(kb):
    assert ("Cantina Chicken Soft Taco",) in kb["dish"]
    assert ("Cantina Chicken Soft Taco", "Slow-Roasted Chicken") in kb["included_ingredient"]
    assert ("Cantina Chicken Soft Taco", "chicken") in kb["label"]
    assert ("Soft Taco", "Tomatoes") in kb["available_topping"]
    assert ("Soft Taco", "Refried Beans") in kb["popular_topping"]
    assert ("Soft Taco", "style", "fresco") in kb["option"]
    assert ("Pepsi®", "size", "large") in kb["option"]
    assert ("Soft Taco",) in kb["best_seller"]
    assert ("chalupa", "Chalupa Supreme") in kb["alias"]


def test_prices_are_integer_cents_taken_from_the_source(kb):
    prices = dict(kb["original_price"])
    assert all(isinstance(p, int) for p in prices.values())
    assert prices["Soft Taco"] == 139  # "$1.39" in jhiney-menuItems.json
    assert prices["3 Soft Tacos Combo"] == 629


def test_the_build_is_reproducible():
    menu, notes = build_kb(paths.kb_dir())
    assert menu == (paths.kb_dir() / "menu.lp").read_text(encoding="utf-8")
    assert "Cantina Chicken Soft Taco" in notes and "public knowledge" in notes
    assert runner.invoke(app, ["kb", "build", "--check"]).exit_code == 0


def test_build_names_what_curation_lacks(tmp_path):
    kb_dir = tmp_path / "kb"
    shutil.copytree(paths.kb_dir(), kb_dir)
    curation = (kb_dir / "curation.toml").read_text(encoding="utf-8")
    curation = re.sub(r'\n"Hash Brown" = \["Hash Brown Patty"\]', "", curation)
    (kb_dir / "curation.toml").write_text(curation, encoding="utf-8")
    result = runner.invoke(app, ["kb", "build", "--kb", str(kb_dir)])
    assert result.exit_code == 2
    assert "Hash Brown" in result.output


BROKEN = """
dish("Ghost Taco").
dish("Plain Taco"). original_price("Plain Taco", 0). category("Plain Taco", "taco").
included_ingredient("Plain Taco", "Moon Dust").
available_topping("Plain Taco", "Sparkles"). upgrade_price("Plain Taco", "Sparkles", 10).
ingredient("Cheese"). ingredient("cheese!").
combo("Ghost Combo"). original_price("Ghost Combo", 500). combo_contain("Ghost Combo", "Nothing Burger").
dish("Gold Taco"). original_price("Gold Taco", 999999). category("Gold Taco", "taco").
original_price("Gold Taco", 4000).
included_ingredient("Gold Taco", "Cheese"). max_item_price(5000).
alias("ghost", "Spirit Burrito").
"""


def test_broken_kb_gets_every_violation_in_plain_words(tmp_path):
    (tmp_path / "menu.lp").write_text(BROKEN, encoding="utf-8")
    problems = check_kb(paths.kb_files(tmp_path))
    expected = [
        "Ghost Taco has no price",
        "dish Ghost Taco has no category",
        "dish Ghost Taco has no ingredient: list what it includes, or say its category has none "
        "(has_ingredients = false, for drinks)",
        "Plain Taco has a price that is not positive: 0 cents",
        "Plain Taco includes Moon Dust, which is neither an ingredient nor a sauce",
        "topping Sparkles of Plain Taco is neither an ingredient nor a sauce",
        "combo Ghost Combo contains Nothing Burger, which is neither a dish nor an option group",
        "'Cheese' and 'cheese!' differ only by case or punctuation",
        "Gold Taco costs 999999 cents, over the policy maximum (max_item_price)",
        "Gold Taco has more than one price",
        "alias 'ghost' points to Spirit Burrito, which is not on the menu",
    ]
    for message in expected:
        assert message in problems
    result = runner.invoke(app, ["kb", "check", "--kb", str(tmp_path)])
    assert result.exit_code == 1
    assert "Ghost Combo contains Nothing Burger" in result.output


def test_kb_that_does_not_parse_is_reported_with_file_and_line(tmp_path):
    (tmp_path / "menu.lp").write_text('dish("A").\ndish("B"\n', encoding="utf-8")
    result = runner.invoke(app, ["kb", "check", "--kb", str(tmp_path)])
    assert result.exit_code == 2
    assert "menu.lp:3" in result.output or "menu.lp:2" in result.output


def test_stats_counts_per_predicate(tmp_path):
    (tmp_path / "menu.lp").write_text('dish("A"). dish("B"). combo("C").', encoding="utf-8")
    assert kb_stats(paths.kb_files(tmp_path)) == {"dish/1": 2, "combo/1": 1}


def test_no_menu_name_appears_in_code_or_rules(kb):
    pizza = Menu.load(paths.kb_files(REPO / "kb" / "packs" / "pizza")).facts  # the second pack's names too
    names = {args[0] for facts in (kb, pizza) for pred in ("dish", "combo", "ingredient", "sauce")
             for args in facts.get(pred, [])}
    names = {n for n in names if len(n) > 4}  # short words ("Steak") can be ordinary English
    sources = [p for p in (REPO / "automanager").rglob("*") if p.suffix in {".py", ".lp"}]
    sources += list((REPO / "crs").glob("*.lp"))
    offenders = [(p.name, n) for p in sources for n in names if n in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_a_runout_makes_unavailable_only_the_option_values_that_contain_it():
    """A pack's option value declaring what it contains (menu.toml `contains`) is out while one of
    them is; the Taco Bell KB declares none, so no option of it is ever out."""
    from automanager.reasoner import atom
    crs = paths.data_dir("crs") / "crs.lp"
    pizza = Reasoner([*paths.kb_files(REPO / "kb" / "packs" / "pizza"), crs]).solve([atom("runout", "Pineapple")])
    assert pizza["option_unavailable"] == [("style", "hawaiian", "Pineapple")]
    taco = Reasoner([*paths.kb_files(), crs]).solve([atom("runout", "Seasoned Beef")])
    assert "option_unavailable" not in taco and "option_contains" not in taco and taco["unavailable"]
