"""The closed predicate vocabularies the parsers may emit, and their validation.

A predicate is data (`Pred`), never ASP text: its arguments are str, int, or `Const` for the
closed sets (operations, sizes, query kinds). Anything outside the schema becomes `irrelevant`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .reasoner import Const


@dataclass(frozen=True)
class Pred:
    name: str
    args: tuple[Any, ...] = ()
    line: int = 0  # which order line of the sentence an order or update belongs to (0: none)

    def __str__(self) -> str:
        def show(a: Any) -> str:
            if isinstance(a, Const) or isinstance(a, int):
                return str(a)
            if isinstance(a, tuple):
                return "(" + ", ".join(show(x) for x in a) + ")"
            return repr(a)

        return f"{self.name}({', '.join(show(a) for a in self.args)})" if self.args else self.name


INGREDIENT_OPS = ("add", "no", "less", "extra")
STYLES = ("fresco", "supreme", "grill")
SIZES = ("regular", "large")
QUERY_KINDS = ("price", "calories", "ingredients", "toppings", "available", "menu", "total")
RECOMMEND_TYPES = ("category", "upgrade")

# The customer vocabulary: name -> meaning. The paper's predicates plus corrections
# (remove, set_quantity, replace, cancel, stop) and the answers to the bot's own
# questions (accept, decline).
CUSTOMER = {
    "order": "order(Food, Number): the customer wants Number of a dish or combo",
    "specify": "specify(Combo, Dish): Dish is the customer's choice for one of Combo's option groups",
    "update": "update(Dish, Operation, Option): add|no|less|extra an ingredient, change (Old, New), "
    "fresco|supreme|grill yes|no, size regular|large",
    "need_recommend": "need_recommend(Content, Type): a suggestion; Type category (Content a category, "
    "all, veggie, chicken, combo) or upgrade (Content a dish: which toppings)",
    "query": "query(Kind, Food): a question; Kind price|calories|ingredients|toppings|available|menu|total; "
    "Food may be all",
    "remove": "remove(Food, Number|all): take units off the order",
    "set_quantity": "set_quantity(Food, Number): the order should hold exactly Number of Food",
    "replace": "replace(Old, New): a correction, New instead of Old",
    "complete": "complete: the customer has ordered everything",
    "accept": "accept: yes to the bot's last question or suggestion",
    "decline": "decline: no to the bot's last question",
    "cancel": "cancel: cancel the whole order",
    "stop": "stop: stop whatever the bot is doing; add nothing",
    "quit": "quit: the customer leaves",
    "irrelevant": "irrelevant: nothing the bot can act on",
}

PROPERTIES = ("category", "price", "calories", "ingredient", "popular", "contains")
ITEM_TYPES = ("dish", "combo", "ingredient")

# The manager vocabulary: the paper's administrator predicates plus the answers to the bot's own
# questions (accept, decline), save (apply the pending menu changes now) and cancel.
MANAGER = {
    "runout": "runout(Food): Food (an ingredient, sauce, dish or combo) is out of stock",
    "restore": "restore(Food): Food is back in stock",
    "add": "add(Type, Name): a new dish|combo|ingredient; add(Name): something new, type not said; "
    "add(Name, Property, Value): Name gets Value for Property (category a category, price cents, calories, "
    "ingredient a name, popular a topping or none, contains (Item, Count))",
    "edit": "edit(Name, Property, Value): price|calories|category becomes Value; "
    "edit(Name, Property, Old, New): New instead of Old (ingredient, popular, contains)",
    "delete": "delete(Name): off the menu; delete(Name, Property, Value): remove one value; "
    "delete(Name, Property): remove every value (popular)",
    "save": "save: apply the pending menu changes now",
    "cancel": "cancel: abandon the item being added",
    "accept": "accept: yes to the bot's last question",
    "decline": "decline: no to the bot's last question (for popular toppings: none)",
    "quit": "quit: the manager leaves; pending menu changes are applied",
    "irrelevant": "irrelevant: nothing the bot can act on",
}
