"""Amounts and lists as the replies say them: both bots' templates and the store rules' words use
these."""

from __future__ import annotations


def dollars(cents: int) -> str:
    """'$4.19'; a negative amount as '-$14.01' (never '$-15.99' from floor division)."""
    sign, cents = ("-", -cents) if cents < 0 else ("", cents)
    return f"{sign}${cents // 100}.{cents % 100:02d}"


def join(words: list[str], last: str = "and") -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {last} " + words[-1]
