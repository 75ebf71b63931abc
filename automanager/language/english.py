"""Amounts and lists as the replies say them: both bots' templates and the store rules' words use
these."""

from __future__ import annotations

import inflect

from ..receipt import dollars  # noqa: F401  (one way to write money: the reply says what the receipt prints)

ENGLISH = inflect.engine()
ENGLISH.defnoun("(.*(?<!tat|mat))o", "$1os")  # burritos, combos (inflect says "burritoes"); potatoes stay


def join(words: list[str], last: str = "and") -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} " + words[-1]


def counted(n: int, noun: str) -> str:
    """A number of a common noun: "1 dish", "3 dishes"."""
    return f"{n} {noun if n == 1 else ENGLISH.plural_noun(noun)}"
