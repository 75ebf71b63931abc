"""The menu as Python sees it: names to match user text against, read from the KB facts.

Only lookups live here (what is a dish, what is its category); every decision about the
menu is made by the ASP programs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from ..files import digest, read_cache, write_cache
from ..normalize import normalize
from ..reasoner import REWRITER, LazyAtoms, Reasoner, ground_within_budget, program_text
from .check import WHOLE_NUMBERS, refuse_bad_numbers
from .commit import known_facts

ITEM_KINDS = ("dish", "combo")
TOPPING_KINDS = ("ingredient", "sauce")


def by_first(pairs: Iterable[tuple[Any, ...]]) -> dict[str, set[str]]:
    """Two-argument facts as the set of second arguments of each first one."""
    out: dict[str, set[str]] = {}
    for first, second in pairs:
        out.setdefault(first, set()).add(second)
    return out


@dataclass
class Menu:
    facts: Mapping[str, list[tuple[Any, ...]]]  # predicate -> argument rows of Values, sorted
    files: list[Path] = field(default_factory=list)

    @classmethod
    def load(cls, files: list[Path], cache: Path | None = None) -> Menu:
        """The menu of a KB; loaded once per process for each version of its files, and kept in
        the folder `cache` for the next process (reading the KB with clingo is most of a chat's
        start)."""
        return _load(tuple((Path(f), Path(f).stat().st_mtime_ns, Path(f).stat().st_size) for f in files), cache)

    def names(self, *kinds: str) -> list[str]:
        return sorted({args[0] for kind in kinds for args in self.facts.get(kind, [])})

    @cached_property
    def items(self) -> set[str]:
        return set(self.names(*ITEM_KINDS))

    @cached_property
    def combos(self) -> set[str]:
        return set(self.names("combo"))

    @cached_property
    def toppings(self) -> set[str]:
        return set(self.names(*TOPPING_KINDS))

    @cached_property
    def categories(self) -> set[str]:
        return {c for _, c in self.facts.get("category", [])}

    @cached_property
    def category_of(self) -> dict[str, str]:
        return dict(self.facts.get("category", []))

    @cached_property
    def group_of(self) -> dict[str, str]:
        """What a stock board files each food under: a dish's category, else its kind (combo,
        ingredient, sauce)."""
        return {**{name: kind for kind in (*TOPPING_KINDS, *ITEM_KINDS) for name in self.names(kind)},
                **self.category_of}

    @cached_property
    def groups(self) -> dict[str, set[str]]:
        return by_first(self.facts.get("combo_option_group", []))

    def included(self, dish: str) -> set[str]:
        return set(self._included.get(dish, ()))

    @cached_property
    def _included(self) -> dict[str, set[str]]:
        return by_first(self.facts.get("included_ingredient", []))

    @cached_property
    def made_to_order(self) -> set[str]:
        return {item for (item,) in self.facts.get("made_to_order", [])}

    def builds_with(self, item: str, topping: str) -> bool:
        """Is the item made to order with this topping on request ("a pepperoni pizza")?"""
        return item in self.made_to_order and ((item, topping) in self.topping_pairs or topping in self.included(item))

    @cached_property
    def topping_pairs(self) -> set[tuple[str, str]]:
        return set(self.facts.get("available_topping", []))

    def choice_slots(self, combo: str) -> int:
        """How many choices one unit of the combo takes (a drink, a dish from a group...)."""
        groups = {g for c, g in self.facts.get("combo_contain", []) if c == combo and g in self.groups}
        return sum(n for c, g, n in self.facts.get("combo_count", []) if c == combo and g in groups) or len(groups)

    def combo_choices(self, combo: str) -> set[str]:
        return {d for c, g in self.facts.get("combo_contain", []) if c == combo for d in self.groups.get(g, ())}

    @property
    def restaurant(self) -> str:
        rows = self.facts.get("restaurant", [])
        return rows[0][0] if rows else "our restaurant"

    @property
    def example_dish(self) -> str:
        """The best-selling dish (else the first one), for examples in help texts."""
        ranked = sorted(self.facts.get("popularity", []), key=lambda row: row[1])
        dishes = self.names("dish")
        return next((name for name, _ in ranked if name in dishes), dishes[0] if dishes else "dish")

    @cached_property
    def ranked_names(self) -> list[str]:
        """The names a speech recognizer is told to expect: the ranked ones (popularity/2), most
        popular first; every dish and combo when none is ranked (tiny.en is led astray by more)."""
        ranked = [name for name, _ in sorted(self.facts.get("popularity", []), key=lambda row: row[1])]
        return ranked or sorted(set(self.names("dish")) | set(self.combos), key=lambda name: (len(name), name))

    def is_drink(self, name: str) -> bool:
        return self.category_of.get(name) == "drink"

    @cached_property
    def label_words(self) -> dict[str, str]:
        """A word customers use for a label of the KB (label_word/2: "vegetarian" -> "veggie")."""
        return {normalize(word): label for label, word in self.facts.get("label_word", []) if " " not in word.strip()}

    @cached_property
    def labels(self) -> set[str]:
        return {label for _, label in self.facts.get("label", [])}

    @cached_property
    def option_words(self) -> dict[str, tuple[str, str]]:
        """normalized phrase -> (group, value) for every option value the KB declares: the value
        itself, the words people say for it (option_word/3) and their plurals."""
        table: dict[str, tuple[str, str]] = {}
        said = [(value, str(group), value) for group, value, _ in self.facts.get("option_text", [])]
        said += [(word, str(group), value) for group, value, word in self.facts.get("option_word", [])]
        for phrase, group, value in said:
            key = normalize(phrase)
            for variant in (key, key + "s"):
                table.setdefault(variant, (group, value))
        return table

    @cached_property
    def longest_phrase(self) -> int:
        """The most words a name or an option phrase has: how far a mention is looked for."""
        return max((len(k.split()) for k in [*self.lexicon, *self.option_words]), default=1)

    def options_of(self, item: str) -> set[tuple[str, str]]:
        return {(str(g), o) for i, g, o in self.facts.get("option", []) if i == item}

    @cached_property
    def option_text(self) -> dict[tuple[str, str], str]:
        """How the bot says an option value ("fresco style", "large")."""
        return {(str(g), o): text for g, o, text in self.facts.get("option_text", [])}

    @cached_property
    def option_defaults(self) -> set[tuple[str, str, str]]:
        """(item, group, value): what an item is when nothing is said; not worth saying back."""
        return {(item, str(group), value) for item, group, value in self.facts.get("option_default", [])}

    @cached_property
    def said_before_name(self) -> set[str]:
        return {str(g) for (g,) in self.facts.get("option_before_name", [])}

    @cached_property
    def option_groups(self) -> set[str]:
        return {str(g) for (g,) in self.facts.get("option_group", [])}

    @cached_property
    def lexicon(self) -> dict[str, dict[str, str]]:
        """normalized phrase -> {"item"|"topping": canonical name}, with aliases and plurals."""
        table: dict[str, dict[str, str]] = {}

        def put(phrase: str, kind: str, name: str) -> None:
            for key in said_keys(phrase):
                table.setdefault(key, {}).setdefault(kind, name)

        for name in sorted(self.items):
            for said in name_variants(name):
                put(said, "item", name)
        for name in sorted(self.toppings):
            put(name, "topping", name)
        for said, name in self.facts.get("alias", []):
            put(said, "item" if name in self.items else "topping", name)
        return table


def said_keys(phrase: str) -> list[str]:
    """The lexicon keys a phrase is found by: normalized, and its plural (or singular)."""
    key = normalize(phrase)
    if not key:
        return []
    if not key.endswith("s"):
        return [key, key + "s"]
    return [key, key[:-1]] if len(key) > 3 else [key]


def word_means(menu: Menu, word: str, created: list[str]) -> set[str]:
    """The items customers saying `word` (normalized) already get: the lexicon's (a name, a variant
    or plural of one, an alias or its plural), or a name staged for adding (`created`)."""
    found = {menu.lexicon.get(word, {}).get("item")} | {name for name in created if word in said_keys(name)}
    return {name for name in found if name}


NUMBER_NAMES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                "fifteen sixteen seventeen eighteen nineteen twenty").split()


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("oes") or word.endswith("ches") or word.endswith("shes"):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def name_variants(name: str) -> list[str]:
    """How a name with a number in it is said: '5' as 'five', and a combo's leading count left
    out with the rest in the singular ('2 Wraps Meal' is also 'wrap meal')."""
    words = normalize(name).split()
    spelled = [NUMBER_NAMES[int(w)] if w.isdigit() and int(w) < len(NUMBER_NAMES) else w for w in words]
    variants = [name, " ".join(spelled)]
    if len(words) > 2 and words[0].isdigit():
        rest = words[1:-2] + [singular(words[-2]), words[-1]]  # "tacos combo": "taco combo"
        variants += [" ".join(rest), " ".join([words[0]] + rest), " ".join([spelled[0]] + rest)]
    return variants



# This code, the normalization it uses, the number check and the reasoner that reads the KB: a menu
# kept on disk by another release is not used
CODE = digest([*(path.read_text(encoding="utf-8") for path in (Path(__file__), Path(__file__).parents[1] / "normalize.py",
                                                               WHOLE_NUMBERS)), REWRITER])


@lru_cache(maxsize=16)
def _load(files: tuple[tuple[Path, int, int], ...], cache: Path | None) -> Menu:
    paths = [path for path, _, _ in files]
    known = known_facts(paths)  # a version this process just published is not read back
    if known is not None:
        return Menu(LazyAtoms(known), paths)
    stored = cache / f"menu-{digest([*map(program_text, paths), CODE])}.cache" if cache else None
    saved, _ = read_cache(stored)
    try:
        tuples = set(saved["nested"])
        menu = Menu({name: [as_tuple(row) if name in tuples else tuple(row) for row in table]
                     for name, table in saved["facts"].items()}, paths)
        vars(menu)["lexicon"] = saved["lexicon"]  # as `Menu.lexicon` made it from these facts
        return menu
    except (LookupError, TypeError, AttributeError):
        ground_within_budget(paths)  # only here: a menu kept in the cache was loaded within it
        menu = Menu(LazyAtoms(Reasoner([*paths, WHOLE_NUMBERS]).shown()), paths)
        refuse_bad_numbers(paths, menu.facts)
    if stored:
        facts = {name: menu.facts[name] for name in menu.facts}
        nested = [name for name, table in facts.items() if any(isinstance(v, tuple) for row in table for v in row)]
        write_cache(stored, {"facts": facts, "nested": nested, "lexicon": menu.lexicon})
    return menu


def as_tuple(saved: list) -> tuple:
    """A row of values read back from JSON, whose tuples came back as lists."""
    return tuple(as_tuple(value) if isinstance(value, list) else value for value in saved)
