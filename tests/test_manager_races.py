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
