"""The words of the dialogue, not of food (dialogue.toml): the short answers customers give, the
words that refer back to what was said, and the function words every line is made of. One list
for every layer that needs it: the customer parser reads its answers and references here
(language/phrases.py); `kb build` and `kb check` refuse an item or combo called only by them
(menu/), and so may the manager's chat when it is taught an alias (bots/, language/taught.py):
`is_dialogue(phrase)` is the test all of them share."""

from __future__ import annotations

import re
import tomllib
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from .normalize import normalize

DIALOGUE_FILE = Path(__file__).with_name("dialogue.toml")
# "that s all", "i m done": a name keeps where its apostrophe was; the phrases fold it ("thats all")
CONTRACTION = re.compile(r"\b([a-z]+) (s|t|ll|re|ve|m|d)\b")


@cache
def dialogue_data() -> dict[str, Any]:
    """The file's tables as read: [replies], [references], [heard], [function_words], [name_cues]."""
    return tomllib.loads(DIALOGUE_FILE.read_text(encoding="utf-8"))


def replies() -> dict[str, list[str]]:
    """The short answers, as the customer parser reads them: yes, no, any (leave it to the bot) and
    the polite words around an answer."""
    table: dict[str, list[str]] = dialogue_data()["replies"]
    return table


def pronouns() -> list[str]:
    """Words that refer back to something already said ("that", "one of those")."""
    said: list[str] = dialogue_data()["references"]["pronouns"]
    return said


@cache
def function_words() -> frozenset[str]:
    """The single words (folded) that name no food: a phrase made only of them is dialogue."""
    return frozenset(normalize(word) for word in dialogue_data()["function_words"]["words"])


@cache
def heard_harmless() -> frozenset[str]:
    """The words (folded) whose doubt leaves a spoken line's meaning as it is: articles, fillers,
    politeness (a voice line unsure of only these is acted on)."""
    return frozenset(normalize(word) for word in dialogue_data()["heard"]["harmless"])


@cache
def name_cues() -> frozenset[str]:
    """Words (folded) customers say about deals and numbers, not food: a name holding one is warned of."""
    return frozenset(normalize(word) for word in dialogue_data()["name_cues"]["words"])


@cache
def dialogue_phrases() -> frozenset[str]:
    """Every short answer and reference (folded): a phrase that is one of them is dialogue."""
    lists = [*replies().values(), pronouns()]
    return frozenset(normalize(phrase) for phrases in lists for phrase in phrases)


@lru_cache(maxsize=16384)
def is_dialogue(phrase: str) -> bool:
    """Is `phrase` (a name or an alias, as written: "No", "that's all", "More Please") said to the
    bot rather than of food: one of the short answers or references, or made only of function
    words? Customers say it as talk, so an item called by it would be ordered by talk. Numbers are
    no dialogue words ("number one" calls a combo)."""
    said = normalize(phrase)
    if not said:
        return False
    words = function_words()
    return any(form in dialogue_phrases() or all(word in words for word in form.split())
               for form in {said, contracted(said)})


def contracted(said: str) -> str:
    """'that s all' -> 'thats all': a folded name keeps where its apostrophe was, the phrases do not."""
    return CONTRACTION.sub(r"\1\2", said)
