"""Amounts in words both the reply templates and the rule sentences say: money in dollars, and a
list joined with "and"."""

from __future__ import annotations


def dollars(cents: int) -> str:
    """'$4.19'; a negative amount as '-$14.01' (never '$-15.99' from floor division)."""
    sign, cents = ("-", -cents) if cents < 0 else ("", cents)
    return f"{sign}${cents // 100}.{cents % 100:02d}"


def join(words: list[str]) -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
