"""Amounts and lists as the replies say them: both bots' templates and the store rules' words use
these."""

from __future__ import annotations

from ..receipt import dollars  # noqa: F401  (one way to write money: the reply says what the receipt prints)


def join(words: list[str], last: str = "and") -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} " + words[-1]
