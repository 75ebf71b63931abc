"""Properties of the offline customer parser over the whole menu (hypothesis, derandomized for
CI): a question about any item never changes the order, and in a list of items said in one
breath, with typos, every item is either ordered or named back as not understood."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automanager import paths
from automanager.acts import Order, Specify
from automanager.language.customer_parser import Context, CustomerParser
from automanager.menu.model import Menu
from automanager.normalize import normalize

MENU = Menu.load(paths.kb_files())
ITEMS = sorted(MENU.items)
CHANGES = {"order", "remove", "replace", "set_quantity", "update", "specify", "cancel"}
QUESTIONS = [
    "is the {} spicy?", "what's in the {}?", "how much is the {}?", "do you still have the {}?",
    "how many calories are in a {}?", "does the {} come with anything on it?", "is the {} vegetarian?",
    "what comes on the {}", "hey, do you guys have {} today?", "how big is the {}?",
    "um what toppings can go on a {}?", "is there meat in the {}?", "what does a {} cost",
    "could you tell me what's in the {}?", "are you out of {}?",
]
SEPARATORS = [", ", " and ", ", and ", " plus ", " "]


@pytest.fixture(scope="module")
def parser():
    return CustomerParser(MENU)


def said_name(name: str) -> str:
    return normalize(name)


@st.composite
def typo(draw, word: str) -> str:
    """One slip of the fingers inside a word (never the first letter): a letter dropped,
    doubled or swapped with the next."""
    if len(word) < 5 or not word.isalpha():
        return word
    i = draw(st.integers(1, len(word) - 2))
    kind = draw(st.sampled_from(["drop", "double", "swap"]))
    if kind == "drop":
        return word[:i] + word[i + 1:]
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


@st.composite
def item_lists(draw):
    items = draw(st.lists(st.sampled_from(ITEMS), min_size=2, max_size=5, unique=True))
    phrases = [said_name(name).split() for name in items]
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.integers(0, len(phrases) - 1))
        w = draw(st.integers(0, len(phrases[k]) - 1))
        phrases[k][w] = draw(typo(phrases[k][w]))
    said = [" ".join(words) for words in phrases]
    parts = [f"a {said[0]}"]
    for phrase in said[1:]:
        parts.append(draw(st.sampled_from(SEPARATORS)) + "a " + phrase)
    return items, said, "".join(parts)


@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ITEMS), st.sampled_from(QUESTIONS), st.lists(st.sampled_from(ITEMS), max_size=2))
def test_a_question_about_any_item_never_changes_the_order(parser, item, question, ordered):
    text = question.format(said_name(item))
    result = parser.parse(text, Context(ordered=list(dict.fromkeys(ordered))))
    changes = [str(p) for p in result.acts if p.vocab_name in CHANGES]
    assert changes == [], text


@settings(max_examples=120, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(item_lists())
def test_every_item_of_a_list_is_ordered_or_named_back(parser, spoken):
    items, said, text = spoken
    result = parser.parse(text, Context())
    ordered = [p.food for p in result.acts if isinstance(p, Order)]
    chosen = [p.dish for p in result.acts if isinstance(p, Specify)]  # a drink said after a combo is its drink
    named_back = " ".join(result.unknown).split()
    for name, phrase in zip(items, said):
        assert name in ordered + chosen or any(w in named_back for w in phrase.split()), (text, name, result)
    assert len(ordered + chosen) <= len(items), (text, ordered)  # nothing ordered that was not said
