"""The menu as Python sees it: names to match user text against, read from the KB facts.

Only lookups live here (what is a dish, what is its category); every decision about the
menu is made by the ASP programs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from ..normalize import normalize
from ..reasoner import Atoms, Reasoner

ITEM_KINDS = ("dish", "combo")
TOPPING_KINDS = ("ingredient", "sauce")


@dataclass
class Menu:
    facts: Atoms
    files: list[Path] = field(default_factory=list)

    @classmethod
    def load(cls, files: list[Path]) -> Menu:
        """The menu of a KB; loaded once per process for each version of its files."""
        return _load(tuple((Path(f), Path(f).stat().st_mtime_ns, Path(f).stat().st_size) for f in files))

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
    def groups(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for group, dish in self.facts.get("combo_option_group", []):
            out.setdefault(group, set()).add(dish)
        return out

    def included(self, dish: str) -> set[str]:
        return {i for d, i in self.facts.get("included_ingredient", []) if d == dish}

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

    def is_drink(self, name: str) -> bool:
        return self.category_of.get(name) == "drink"

    @cached_property
    def styles(self) -> set[str]:
        """The special styles some dish can be made in (fresco, ...), as the KB names them."""
        return {str(style) for _, style in self.facts.get("available_special_style", [])}

    @cached_property
    def lexicon(self) -> dict[str, dict[str, str]]:
        """normalized phrase -> {"item"|"topping": canonical name}, with aliases and plurals."""
        table: dict[str, dict[str, str]] = {}

        def put(phrase: str, kind: str, name: str) -> None:
            key = normalize(phrase)
            if not key:
                return
            table.setdefault(key, {}).setdefault(kind, name)
            if not key.endswith("s"):
                table.setdefault(key + "s", {}).setdefault(kind, name)
            elif len(key) > 3:
                table.setdefault(key[:-1], {}).setdefault(kind, name)

        for name in sorted(self.items):
            for said in name_variants(name):
                put(said, "item", name)
        for name in sorted(self.toppings):
            put(name, "topping", name)
        for said, name in self.facts.get("alias", []):
            put(said, "item" if name in self.items else "topping", name)
        return table


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



@lru_cache(maxsize=16)
def _load(files: tuple[tuple[Path, int, int], ...]) -> Menu:
    paths = [path for path, _, _ in files]
    return Menu(Reasoner(paths).solve(), paths)
