"""KB integrity (`automanager kb check`) and counts (`automanager kb stats`).

The rules are ASP (check.lp); this module only runs them and words each violation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import clingo

from ..normalize import normalize
from ..reasoner import Reasoner, ReasonerError, ground_within_budget, program_text, value

CHECK_RULES = Path(__file__).with_name("check.lp")

MESSAGES = {
    "no_price": "{0} has no price",
    "no_items": "the menu has no dish or combo: add items to it (kb/packs/README.md shows how)",
    "no_category": "dish {0} has no category",
    "no_ingredient": "dish {0} has no ingredient",
    "bad_price": "{0} has a price that is not positive: {1} cents",
    "price_over_limit": "{0} costs {1} cents, over the policy maximum (max_item_price)",
    "bad_topping": "topping {1} of {0} is neither an ingredient nor a sauce",
    "bad_ingredient": "{0} includes {1}, which is neither an ingredient nor a sauce",
    "unpriced_topping": "topping {1} of {0} has no upgrade price",
    "bad_popular": "popular topping {1} of {0} is not one of its available toppings",
    "bad_combo_content": "combo {0} contains {1}, which is neither a dish nor an option group",
    "bad_group_member": "option group {0} lists {1}, which is not a dish",
    "empty_combo": "combo {0} contains nothing",
    "several_values": "{0} has more than one {1}",
    "dish_and_combo": "{0} is both a dish and a combo",
    "bad_alias": "alias '{0}' points to {1}, which is not on the menu",
    "alias_twice": "alias '{0}' of {1} also means another item",
    "alias_is_name": "alias '{0}' of {1} is how another item is written",
    "similar_names": "'{0}' and '{1}' differ only by case or punctuation",
    "bad_option_price": "option {1} of {0} would make it cost nothing or less",
    "undeclared_option": "{0} offers option {1}, which no option group declares",
    "bad_option_default": "{0}: option {1} cannot be its default (one default per group, one it offers)",
}


# the arguments that are whole numbers (cents, calories, counts), by predicate: kb/README.md
NUMBERS = {"original_price": 1, "original_cal": 1, "replacement_price": 3, "upgrade_price": 2, "upgrade_cal": 2,
           "extra_price": 1, "extra_cal": 1, "option_price": 3, "option_cal": 3, "group_upgrade_price": 2,
           "combo_count": 2, "max_line_quantity": 0, "max_order_quantity": 0, "max_item_price": 0, "max_item_calories": 0}


def check_numbers(files: list[Path], facts: Mapping[str, Iterable[tuple[Any, ...]]]) -> None:
    """Refuse a KB whose price, calories or count is not a whole number (a hand-edited "ten"),
    naming the file: ASP compares such a term with numbers without a word, so a total would
    silently leave it out and no chat can run on it."""
    wrong = sorted((name, row) for name, at in NUMBERS.items() for row in facts.get(name, [])
                   if not isinstance(row[at], int) or isinstance(row[at], bool))
    if wrong:
        name, row = wrong[0]
        where = next((path for path in files if f"{name}(" in program_text(path)), files[0])
        raise ReasonerError(f"{where}: {name}({', '.join(map(repr, row))}) has {row[NUMBERS[name]]!r} where a whole "
                            f"number belongs ({len(wrong)} such fact(s))")


class _Functions:
    """Python helpers callable from check.lp as @name(...)."""

    @staticmethod
    def normalize(name: clingo.Symbol) -> clingo.Symbol:
        return clingo.String(normalize(name.string))


def not_numbers(symbols: Iterable[clingo.Symbol]) -> dict[str, list[tuple[Any, ...]]]:
    """The facts whose whole-number argument (NUMBERS) is something else, as Python values: only
    they are read into Python (a menu has thousands of prices)."""
    wrong: dict[str, list[tuple[Any, ...]]] = {}
    for symbol in symbols:
        at, arguments = NUMBERS.get(symbol.name), symbol.arguments
        if at is not None and len(arguments) > at and arguments[at].type != clingo.SymbolType.Number:
            wrong.setdefault(symbol.name, []).append(tuple(map(value, arguments)))
    return wrong


def check_kb(files: list[Path]) -> list[str]:
    """Every integrity violation of the KB made of `files`, in plain words, sorted."""
    ground_within_budget(files)
    atoms = Reasoner([*files, CHECK_RULES], context=_Functions()).solve()
    check_numbers(files, not_numbers(Reasoner(files).shown()))  # check.lp shows its violations only
    return sorted(MESSAGES[kind].format(*args) for kind, *args in atoms.get("violation", []))


def kb_stats(files: list[Path]) -> Counter[str]:
    """How many facts of each predicate/arity the KB holds."""
    ground_within_budget(files)
    atoms = Reasoner(files).solve()
    return Counter(f"{name}/{len(args)}" for name, rows in atoms.items() for args in rows)
