"""Words the menu does not know: a food or drink it lacks ("wings": said back as not on the menu)
or talk around the order ("for pickup", "I suppose": read as nothing, so a clear order is not held
back for them). Decided by the nearest labelled examples (food_words.toml, and the menu's own
names as food) in the sentence-embedding model the name matcher already ships; a word no English
dictionary knows may be a name said wrong, and is never talk."""

from __future__ import annotations

import tomllib
from functools import cache, lru_cache
from pathlib import Path

from ..names import Embedder

DATA = tomllib.loads(Path(__file__).with_name("food_words.toml").read_text(encoding="utf-8"))
DECIDE = DATA["decide"]


@cache
def dictionary():
    """The English word list of pyspellchecker (word frequencies), loaded once."""
    from spellchecker import SpellChecker

    return SpellChecker(distance=1)


def english(word: str) -> bool:
    """Is the word one English speakers use (not a typo, not a name of the menu's own spelling)?"""
    return dictionary().word_usage_frequency(word) >= DECIDE["least_frequency"]


@lru_cache(maxsize=8)  # a few menus (versions, packs) at once
def example_vectors(food_names: tuple[str, ...]):
    """The food and talk examples embedded, once per process and menu: every car of a lane is a new
    chat, and embedding them again cost its first unknown word most of a second."""
    return Embedder.encode([*DATA["examples"]["food"], *food_names]), Embedder.encode(DATA["examples"]["talk"])


class FoodSense:
    """Tells talk from a food the menu lacks; one per menu (its names are food examples)."""

    def __init__(self, food_names: list[str]):
        self.food_names = tuple(sorted(set(food_names)))
        self._seen: dict[str, bool] = {}

    def vectors(self):
        return example_vectors(self.food_names)

    def talk(self, words: list[str]) -> bool:
        """Are these words (left over beside a clause's reading) talk, not a food or drink?"""
        if not words or not all(w.isalpha() and english(w) for w in words):
            return False
        said = " ".join(words)
        if said not in self._seen:
            import numpy as np

            food, talk = self.vectors()
            query = Embedder.encode([said])[0]
            k = DECIDE["nearest"]
            near_food = float(np.sort(food @ query)[-k:].mean())
            near_talk = float(np.sort(talk @ query)[-k:].mean())
            self._seen[said] = near_talk - near_food >= DECIDE["talk_margin"]
        return self._seen[said]
