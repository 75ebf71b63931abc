"""What a line said that no reading took: the words left over once the words a reading covered,
the numbers and the words the cue language knows (a list kept as data) are set aside. A line with
such words was half heard: a change it implies is said back as a question, never made silently."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Set

from .text import Mention, number_words

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def pattern_words(sources: Iterable[str]) -> set[str]:
    """The words a set of cue patterns and word lists spells out (regular expressions included:
    their escapes are no words)."""
    found = [word for source in sources for word in re.findall(r"[a-z]+\??", re.sub(r"\\[A-Za-z]", " ", source))]
    return {form for word in found for form in ((word[:-1], word[:-2]) if word.endswith("?") else (word,))}


def strings(data: object) -> Iterator[str]:
    """Every string in a parsed data file (tables and lists walked through)."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from strings(value)


def leftover(tokens: list[str], mentions: list[Mention], used: Set[str], known: Set[str]) -> list[str]:
    """The words of `tokens` that are in no mention of a name the reading used, no number, and no
    known word (one-letter pieces of a contraction are none)."""
    covered = {i for m in mentions if {m.name, *m.alternatives.values()} & used for i in range(m.start, m.end)}
    return [t for i, t in enumerate(tokens)
            if i not in covered and len(t) > 1 and t not in known and not NUMBER.fullmatch(t)
            and number_words([t], 0) is None]
