"""Text helpers both offline parsers share: folding, tokens, numbers, menu names, yes and no."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..menu.model import Menu
from ..vocab import bounded

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "both": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "dozen": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50, "hundred": 100, "thousand": 1000,
    "million": 1_000_000, "billion": 1_000_000_000, "zero": 0, "none": 0,
}
MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
ACCEPT = re.compile(r"^(yes|yeah|yep|yup|sure|ok|okay|please|sounds good|great|perfect|alright|"
                    r"of course|definitely|absolutely|lets do (it|that)|id like that|ill take (it|that)|"
                    r"why not|go ahead|do it)( please| thanks| thank you)*$")
DECLINE = re.compile(r"^(no|nope|nah|no thanks|no thank you|none|not really|im good|im fine|"
                     r"thats fine|nothing|no need|not today|leave it|as is|its fine|keep it)( thanks| thank you)*$")


@dataclass
class Mention:
    start: int
    end: int
    kind: str  # item | topping
    name: str
    alternatives: dict[str, str]  # every kind this phrase can be


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return re.sub(r"['’`]", "", text).replace("&", " and ")


def tokenize(text: str) -> list[str]:
    return re.findall(r"-?\d+(?:\.\d+)?(?:e\d+)?|[a-z]+|[,.;!?]", fold(text))


def number_at(tokens: list[str], i: int) -> tuple[int, int] | None:
    """(value, tokens used) of a number starting at tokens[i]: '2', 'two', 'a couple of', '18 thousand'."""
    word = tokens[i]
    if re.fullmatch(r"-?\d+(\.\d+)?(e\d+)?", word):
        value, used = bounded(word), 1
    elif word in ("couple", "pair") or tokens[i:i + 2] in (["a", "couple"], ["a", "pair"]):
        skip = 2 if word == "a" else 1
        return 2, skip + (1 if tokens[i + skip:i + skip + 1] == ["of"] else 0)
    elif word == "few" or tokens[i:i + 2] == ["a", "few"]:
        return 3, 2 if word == "a" else 1
    elif word in NUMBER_WORDS:
        value, used = NUMBER_WORDS[word], 1
        if word in ("a", "an") and tokens[i + 1:i + 2] and tokens[i + 1] in MULTIPLIERS:
            value, used = MULTIPLIERS[tokens[i + 1]], 2
    else:
        return None
    while i + used < len(tokens) and tokens[i + used] in MULTIPLIERS and value < MULTIPLIERS[tokens[i + used]]:
        value *= MULTIPLIERS[tokens[i + used]]
        used += 1
    return bounded(value), used


def find_mentions(menu: Menu, tokens: list[str]) -> list[Mention]:
    """Menu names in the tokens, longest match first: dishes, combos, ingredients, sauces."""
    longest = max(len(k.split()) for k in menu.lexicon)
    found, i = [], 0
    while i < len(tokens):
        for n in range(min(longest, len(tokens) - i), 0, -1):
            entry = menu.lexicon.get(" ".join(tokens[i:i + n]))
            if entry:
                kind = "item" if "item" in entry else "topping"
                found.append(Mention(i, i + n, kind, entry[kind], entry))
                i += n
                break
        else:
            i += 1
    return found
