"""Phrases that can never be another name of a menu item, and why: said alone, a customer would
mean something else by them (an answer, "that's all", "cancel", a count: the cue phrases know
them), they are words said around any name (the function words of automanager/dialogue.toml),
or many names of the menu share them. The administrator refuses such an alias (admin.lp)."""

from __future__ import annotations

from ..dialogue import contracted, function_words
from ..menu.model import Menu, singular
from ..normalize import normalize
from .heard import NUMBER
from .phrases import phrases
from .text import number_words


def misread_as(menu: Menu, phrase: str) -> str | None:
    """'dialogue', 'filler', 'number' or 'common' for a phrase (normalized) customers would be misread by
    if it named an item; None for a phrase that may be taught."""
    said = phrases()
    words = phrase.split()
    if not words:
        return None
    for flat in {phrase, contracted(phrase)}:  # names keep "that's" as "that s"; cues fold it
        if said.reply(flat) is not None or any(cue.whole(flat) for cue in
                                               (*said.acts.values(), said.any, said.polite, said.pronouns)):
            return "dialogue"
    if all(w in function_words() for w in words):  # "the", "with", "extra", "more": said around every name
        return "filler"
    if all(NUMBER.fullmatch(w) for w in words) or (number_words(words, 0) or (0, 0))[1] == len(words):
        return "number"
    if phrase in common_words(menu):
        return "common"
    return None


def common_words(menu: Menu) -> set[str]:
    """A word of two or more item names (and its singular), and every topping, category and
    option said as one phrase: customers saying one of them alone mean more than one thing."""
    seen: dict[str, set[str]] = {}
    for name in menu.items:
        for word in normalize(name).split():
            for key in (word, singular(word)):
                seen.setdefault(key, set()).add(name)
    shared = {word for word, names in seen.items() if len(names) > 1}
    kinds = {normalize(n) for n in menu.toppings | menu.categories | menu.option_groups} | set(menu.option_words)
    return shared | {singular(k) for k in shared} | kinds
