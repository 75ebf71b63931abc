"""Defects found by the third reliability round, each with the behaviour that replaces it."""

from __future__ import annotations

import pytest

from automanager.language.customer_templates import dollars
from automanager.star import ManagerChat
from automanager.store import Home


@pytest.mark.parametrize("answer", ["a", "the", "it's a", "its an", "um, a"])
def test_a_bare_article_answering_what_kind_of_item_is_asked_again(tmp_path, answer):
    """It crashed the manager ("cannot turn NoneType into an ASP term"): now the question stands."""
    chat = ManagerChat(Home(tmp_path))
    chat.step("add a new item called taco royale")
    chat.step("a dish")
    turn = chat.step(answer)
    assert "What kind of item is Taco Royale?" in turn.reply
    turn = chat.step("a taco")
    assert "Taco Royale" in turn.reply and "taco" in turn.reply.lower()


@pytest.mark.parametrize("cents, said", [(-1401, "-$14.01"), (-5, "-$0.05"), (0, "$0.00"), (419, "$4.19")])
def test_a_negative_amount_keeps_its_sign_in_front(cents, said):
    assert dollars(cents) == said


def test_an_edit_of_a_dish_another_manager_deleted_is_not_applied_and_said(tmp_path):
    """Both were applied with no word before: the audit held a price edit no version contained."""
    home = Home(tmp_path)
    first, second = ManagerChat(home), ManagerChat(home)
    first.step("the bean burrito now costs $1.99")
    second.step("take the bean burrito off the menu")
    second.step("yes")
    second.step("save")
    turn = first.step("save")
    assert "taken Bean Burrito off the menu since" in turn.reply and "Applied" not in turn.reply, turn.reply
    assert not any(row[1] == "Bean Burrito" for row in first.staged())
    from automanager.menu.model import Menu
    menu = Menu.load(home.menu_files(home.latest_version()))
    assert "Bean Burrito" not in menu.items and home.latest_version() == 1


@pytest.mark.parametrize("line, cents", [("the pizza now costs $14.49", 1449), ("make the pizza 15 dollars", 1500),
                                         ("change the price of pizza to 12.99", 1299)])
def test_a_pack_dish_named_like_its_category_can_be_repriced(tmp_path, line, cents):
    """On the pizza pack no wording changed the Pizza's price ("pizza" was read as a kind)."""
    from automanager import paths

    chat = ManagerChat(Home(tmp_path, paths.pack_dir("pizza")))
    chat.step(line)
    assert chat.staged() == [("edit", "Pizza", "price", 1399, cents)]


def test_a_json_record_is_one_line_for_readers_that_split_on_unicode_breaks(tmp_path):
    """U+2028, U+2029 and U+0085 (a pack's names may hold them) are escaped in --json records."""
    import json

    from automanager.repl import record
    from automanager.star import CustomerChat

    chat = CustomerChat(Home(tmp_path))
    fields = {"reply": "Got it: a Taco\u2028Deluxe, a Nacho\u0085Box and a Pie\u2029.", "parsed": []}
    line = record(chat, fields)
    assert len(line.splitlines()) == 1  # str.splitlines() breaks at all three
    assert json.loads(line)["reply"] == fields["reply"]


def test_a_pack_whose_facts_do_not_reach_the_bots_is_refused_at_start(tmp_path):
    """A menu.lp with a stray '#show.' crashed the first line (max() of an empty lexicon, exit 3)."""
    import shutil

    from typer.testing import CliRunner

    from automanager import paths
    from automanager.cli import app

    pack = tmp_path / "pack"
    shutil.copytree(paths.pack_dir("pizza"), pack)
    with (pack / "menu.lp").open("a", encoding="utf-8") as menu:
        menu.write("#show.\n")
    result = CliRunner().invoke(app, ["customer", "--kb", str(pack), "--state-dir", str(tmp_path / "state")],
                                input="a large pizza\n")
    assert result.exit_code == 2 and "no dishes or combos" in result.stderr, result.output


def _menu(home):
    from automanager.menu.model import Menu
    return Menu.load(home.menu_files(home.latest_version()))


def _delete_staged_then_other_saves(home, other_change: list[str]):
    """Manager one stages a delete of the Bean Burrito; manager two changes it and saves first."""
    first, second = ManagerChat(home), ManagerChat(home)
    first.step("take the bean burrito off the menu")
    first.step("yes")
    for line in [*other_change, "save"]:
        second.step(line)
    return first


def test_a_delete_of_a_dish_another_manager_changed_since_is_asked_not_applied(tmp_path):
    """The delete went through silently and the other manager's new price was lost."""
    home = Home(tmp_path)
    first = _delete_staged_then_other_saves(home, ["the bean burrito now costs $1.99"])
    turn = first.step("save")
    assert "changed Bean Burrito since you asked to delete it" in turn.reply and "$1.99" in turn.reply, turn.reply
    assert "Applied" not in turn.reply and home.latest_version() == 1
    assert "Bean Burrito" in _menu(home).items
    turn = first.step("yes")
    assert "Applied 1 change" in turn.reply, turn.reply
    assert "Bean Burrito" not in _menu(home).items


def test_no_to_a_stale_delete_keeps_the_other_managers_change(tmp_path):
    home = Home(tmp_path)
    first = _delete_staged_then_other_saves(home, ["add guacamole to the bean burrito"])
    turn = first.step("bye")
    assert "since you asked to delete it" in turn.reply, turn.reply
    turn = first.step("no")
    assert "stays on the menu" in turn.reply and "Applied" not in turn.reply, turn.reply
    assert "Bean Burrito" in _menu(home).items and home.latest_version() == 1
    assert not first.staged()


def test_a_delete_another_manager_published_first_is_not_applied_twice(tmp_path):
    home = Home(tmp_path)
    first = _delete_staged_then_other_saves(home, ["take the bean burrito off the menu", "yes"])
    turn = first.step("save")
    assert "taken Bean Burrito off the menu already" in turn.reply and "Applied" not in turn.reply, turn.reply
    assert home.latest_version() == 1
    assert [row["action"] for row in home.history()] == ["delete"]


def test_a_delete_with_nothing_changed_since_is_applied_without_a_question(tmp_path):
    home = Home(tmp_path)
    first = _delete_staged_then_other_saves(home, ["the crunchy taco now costs $2.09"])
    turn = first.step("save")
    assert "Applied 1 change" in turn.reply, turn.reply
    assert "Bean Burrito" not in _menu(home).items and "Crunchy Taco" in _menu(home).items



@pytest.mark.parametrize("change", ["remove the lettuce from the crunchy taco", "add guacamole to the bean burrito",
                                    "the bean burrito now costs $1.99"])
def test_the_same_change_saved_by_two_managers_is_applied_once(tmp_path, change):
    """It was applied twice: a second version and a second audit row for a change already made."""
    home = Home(tmp_path)
    first, second = ManagerChat(home), ManagerChat(home)
    first.step(change)
    second.step(change)
    second.step("save")
    turn = first.step("save")
    assert "same change" in turn.reply and "Applied" not in turn.reply, turn.reply
    assert home.latest_version() == 1 and len(home.history()) == 1


def test_a_value_added_and_taken_off_again_in_one_session_leaves_the_menu_as_it_was(tmp_path):
    home = Home(tmp_path)
    chat = ManagerChat(home)
    chat.step("add guacamole to the bean burrito")
    chat.step("remove the guacamole from the bean burrito")
    chat.step("save")
    assert ("Bean Burrito", "Guacamole") not in _menu(home).facts["included_ingredient"]
