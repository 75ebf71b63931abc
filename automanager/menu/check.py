"""KB integrity (`automanager kb check`) and counts (`automanager kb stats`).

The rules are ASP (check.lp); this module only runs them and words each violation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import clingo

from ..dialogue import is_dialogue
from ..normalize import normalize
from ..reasoner import Reasoner, ReasonerError, analysed, ground_within_budget, program_text

CHECK_RULES = Path(__file__).with_name("check.lp")

MESSAGES = {
    "no_price": "{0} has no price",
    "no_items": "the menu has no dish or combo: add items to it (kb/packs/README.md shows how)",
    "no_category": "dish {0} has no category",
    "no_ingredient": "dish {0} has no ingredient: list what it includes, or say its category has none "
                     "(has_ingredients = false, for drinks)",
    "bad_price": "{0} has a price that is not positive: {1} cents",
    "price_over_limit": "{0} costs {1} cents, over the policy maximum (max_item_price)",
    "beyond": "{0} has {1}, over the most it may be ({2}): totals are summed in 32 bits",
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
    "dialogue_name": "{0} is named by what customers say to the bot, not a food (an answer, a word like that, the, "
                     "more or done: automanager/dialogue.toml lists them): a customer saying it would order it; name "
                     "it by its food",
    "dialogue_alias": "alias '{0}' of {1} is what customers say to the bot, not a food (an answer, a word like that, "
                      "the, more or done: automanager/dialogue.toml lists them): customers saying it would order "
                      "{1}; drop the alias",
}


# where a whole number belongs (cents, calories, counts), as ASP: loaded with every KB
WHOLE_NUMBERS = Path(__file__).with_name("numbers.lp")


def refuse_bad_numbers(files: list[Path], facts: Mapping[str, list[tuple[Any, ...]]]) -> None:
    """Refuse a KB with a fact of `not_whole/2` or `beyond/3` (numbers.lp), naming its file: no chat
    can run on it, as no total could be trusted."""
    wrong = [(fact, f"{held!r} where a whole number belongs") for fact, held in facts.get("not_whole", [])]
    wrong += [(fact, f"{held}, over the most it may be ({most})") for fact, held, most in facts.get("beyond", [])]
    if wrong:
        fact, why = sorted(wrong, key=repr)[0]
        where = next((path for path in files if f"{str(fact).split('(')[0]}(" in program_text(path)), files[0])
        raise ReasonerError(f"{where}: {fact} has {why} ({len(wrong)} such fact(s))")


class _Functions:
    """Python helpers callable from check.lp as @name(...)."""

    @staticmethod
    def normalize(name: clingo.Symbol) -> clingo.Symbol:
        return normalized(name.string)

    @staticmethod
    def dialogue(name: clingo.Symbol) -> clingo.Symbol:
        """1 for a name or alias made only of the dialogue's words (automanager/dialogue.toml), else 0."""
        return clingo.Number(int(name.type == clingo.SymbolType.String and is_dialogue(name.string)))


@lru_cache(maxsize=16384)
def normalized(name: str) -> clingo.Symbol:
    """A menu's names are checked again at every commit: each is worked out once."""
    return clingo.String(normalize(name))


def checked_predicates() -> set[str]:
    """The predicates the integrity rules read: a KB's other facts cannot change their answer."""
    return {name for name, _arity in analysed((program_text(WHOLE_NUMBERS), program_text(CHECK_RULES))).mentioned}


def check_kb(files: list[Path], located: bool = False) -> list[str]:
    """Every integrity violation of the KB made of `files`, in plain words, sorted; `located`: a
    violation about one fact says which file holds it (for people: a commit compares the words of
    two versions' violations, whose files differ)."""
    ground_within_budget(files)
    return violations(files, located)


def violations(files: list[Path], located: bool = False) -> list[str]:
    """`check_kb` of files known to be plain facts (a version a commit wrote), so they need no
    grounding budget."""
    atoms = Reasoner([*files, WHOLE_NUMBERS, CHECK_RULES], context=_Functions()).solve()
    refuse_bad_numbers(files, {"not_whole": atoms.get("not_whole", [])})  # `beyond` is listed
    return sorted(MESSAGES[kind].format(*args) + (held_in(files, kind, args) if located else "")
                  for kind, *args in atoms.get("violation", []))


# the facts a violation is about, as a KB file writes them: which file to fix is said with it
ABOUT: dict[str, Callable[..., list[clingo.Symbol]]] = {
    "dialogue_name": lambda name: [clingo.Function(kind, [clingo.String(name)]) for kind in ("dish", "combo")],
    "dialogue_alias": lambda said, name: [clingo.Function("alias", [clingo.String(said), clingo.String(name)])],
}


def held_in(files: list[Path], kind: str, args: list[Any]) -> str:
    """' (in <file>)': the file holding the fact violation `kind` is about; '' when it names none."""
    if kind not in ABOUT:
        return ""
    facts = ["".join(str(fact).split()) for fact in ABOUT[kind](*args)]
    found = next((path for path in files for fact in facts if fact in "".join(program_text(path).split())), None)
    return "" if found is None else f" (in {found})"


def kb_stats(files: list[Path]) -> Counter[str]:
    """How many facts of each predicate/arity the KB holds."""
    ground_within_budget(files)
    atoms = Reasoner(files).solve()
    return Counter(f"{name}/{len(args)}" for name, rows in atoms.items() for args in rows)
