"""Two managers staging changes to the same dish and saving one after the other, every pair of
change kinds in both orders: no change is lost without the manager being asked or told, and no
change is applied twice. Each published version is checked against the one before it. On both
database engines."""

from __future__ import annotations

import itertools

import pytest

from automanager.menu.model import Menu
from automanager.star import ManagerChat
from automanager.store import Home

DISH = "Bean Burrito"
CHANGES = {  # kind -> what a manager says to stage it
    "price": ["the bean burrito now costs $1.99"],
    "other price": ["the bean burrito now costs $2.29", "yes"],  # a large rise is read back first
    "delete": ["take the bean burrito off the menu", "yes"],
    "add ingredient": ["add guacamole to the bean burrito"],
    "remove ingredient": ["remove the onions from the bean burrito"],
}
TOLD = ("another manager", "Another manager")
pytestmark = pytest.mark.usefixtures("engine")  # on SQLite and on PostgreSQL


def facts(home: Home, version: int) -> Menu:
    return Menu.load(home.menu_files(version))


def real_change(before: Menu, after: Menu, row: dict) -> bool:
    """An audit row says what the version changed; true only when the two menus differ so."""
    item, prop, old, new = row["item"], row["property"], row["old"], row["new"]
    if prop == "item":
        return row["action"] == "delete" and item in before.items and item not in after.items
    if prop == "price":
        return (item, int(old)) in before.facts["original_price"] and (item, int(new)) in after.facts["original_price"]
    value = new if row["action"] == "add" else old
    held = [(item, value) in menu.facts["included_ingredient"] for menu in (before, after)]
    return held == ([False, True] if row["action"] == "add" else [True, False])


@pytest.mark.parametrize("first, second", list(itertools.permutations(CHANGES, 2)) + [(k, k) for k in CHANGES])
def test_two_managers_lose_and_double_nothing(tmp_path, first, second):
    home = Home(tmp_path)
    late, early = ManagerChat(home), ManagerChat(home)
    for line in CHANGES[first]:
        late.step(line)
    for line in [*CHANGES[second], "save"]:
        early.step(line)
    replies = [late.step("save").reply]
    while late.staged() and len(replies) < 4:  # a question about the other manager's change: yes
        replies.append(late.step("yes").reply)
    history = list(reversed(home.history()))
    versions = sorted({row["version"] for row in history})
    assert versions == list(range(1, home.latest_version() + 1)), "a version with no change, or a change in none"
    for row in history:
        assert real_change(facts(home, row["version"] - 1), facts(home, row["version"]), row), (row, replies)
    overwritten = first == second or "delete" in (first, second) or {first, second} == {"price", "other price"}
    if overwritten:  # the second save met the first one's change: never applied without a word
        assert any(word in reply for reply in replies for word in TOLD), replies
    assert not late.staged(), replies


# -- a delete, an edit or the same change against what another manager published since ----------


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
    menu = facts(home, home.latest_version())
    assert "Bean Burrito" not in menu.items and home.latest_version() == 1




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
    assert "Bean Burrito" in facts(home, home.latest_version()).items
    turn = first.step("yes")
    assert "Applied 1 change" in turn.reply, turn.reply
    assert "Bean Burrito" not in facts(home, home.latest_version()).items


def test_no_to_a_stale_delete_keeps_the_other_managers_change(tmp_path):
    home = Home(tmp_path)
    first = _delete_staged_then_other_saves(home, ["add guacamole to the bean burrito"])
    turn = first.step("bye")
    assert "since you asked to delete it" in turn.reply, turn.reply
    turn = first.step("no")
    assert "stays on the menu" in turn.reply and "Applied" not in turn.reply, turn.reply
    assert "Bean Burrito" in facts(home, home.latest_version()).items and home.latest_version() == 1
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
    assert "Bean Burrito" not in facts(home, home.latest_version()).items and "Crunchy Taco" in facts(home, home.latest_version()).items


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
    assert ("Bean Burrito", "Guacamole") not in facts(home, home.latest_version()).facts["included_ingredient"]
