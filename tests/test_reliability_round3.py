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
