"""Template responses for the administrator: next-action predicates -> English.

Confirmations and rejections in the order the manager said things, then the question. Every
name and value comes from the predicates; nothing here decides anything.
"""

from __future__ import annotations

from ..reasoner import Atoms
from ..vocab import MAX_NUMBER
from .customer_templates import dollars, join

PROPERTY_NAMES = {"price": "price", "calories": "calories", "category": "category", "ingredient": "ingredients",
                  "popular": "popular toppings", "contains": "contents", "type": "type"}
NOTED_NAMES = {"price": "price", "calories": "calories", "category": "category", "ingredient": "ingredient",
               "popular": "popular topping", "contains": "content"}
QUESTIONS = {
    "type": "Is {0} a dish, a combo or an ingredient?",
    "category": "What kind of item is {0}? The categories are {cats}.",
    "price": "How much does {0} cost?",
    "ingredient": "What ingredients go into {0}?",
    "calories": "How many calories does {0} have?",
    "popular": "Which toppings do people like on {0}? Say 'none' if there are none.",
    "contains": "What does {0} contain? For example: 'two crunchy tacos and a drink'.",
    "new_ingredient": "{0} is not an ingredient we have. Shall I add it as a new ingredient?",
    "confirm_delete": "Delete {0} from the menu? Say yes to delete it, or no to keep it.",
}
REJECTIONS = {
    "not_on_menu": "{0} is not on the menu, so I changed nothing.",
    "not_out": "{0} was not out of stock, so there is nothing to restore.",
    "duplicate": "{0} is already on the menu; say what to change about it instead.",
    "busy": "I am still adding {1}; finish it or say 'cancel' before adding {0}.",
    "say_which": "{0} has several {1}; say which one to replace with which (\"replace X with Y in {0}\").",
    "bad_property": "I can't set the {1} of {0}.",
    "bad_price": "{0} is not a valid price: it must be more than $0.00.",
    "price_over_limit": "{0} is over the most an item may cost ({limit}); say the price again.",
    "bad_calories": "{0} calories can't be right; calories can't be negative.",
    "calories_over_limit": "{0} calories is over the limit of {cal_limit}; say it again.",
    "unknown_category": "'{0}' is not a category we have. The categories are {cats}.",
    "unknown_ingredient": "{0} is not an ingredient we have.",
    "category_first": "Tell me what kind of item it is before its popular toppings (I can't add {0} yet).",
    "not_a_topping": "{0} is not a topping that can go on that kind of item.",
    "unknown_content": "{0} is not a dish on the menu, so a combo can't contain it.",
    "bad_quantity": "{0} is not a sensible count for a combo.",
    "unchanged": "The {1} of {0} is already {2}.",
    "already": "{0} already has {1}.",
    "not_included": "{0} does not have {1}, so I changed nothing.",
    "last_one": "{0} must keep at least one of its {1}; add another before removing this one.",
    "required": "{0} must keep its {1}; change it instead of deleting it.",
    "in_combo": "{0} is part of {1}; change or delete that first.",
    "in_use": "{0} is in {1} dishes; remove it from them first, or mark it out of stock instead.",
}


def show_value(prop: str, value) -> str:
    """A property value for people: prices in dollars, combo contents as 'count x item'."""
    if prop in ("price", "calories") and isinstance(value, str) and value.lstrip("-").isdigit():
        value = int(value)  # values read back from the audit log are text
    if prop in ("price", "calories") and isinstance(value, int) and abs(value) >= MAX_NUMBER:
        return "That amount" if prop == "price" else "That many"  # clamped: not the number said
    if prop == "price" and isinstance(value, int):
        return dollars(value) if value >= 0 else "-" + dollars(-value)
    if prop == "contains" and isinstance(value, tuple):
        return f"{value[1]} x {value[0]}"
    return str(value)


class ManagerTemplates:
    def __init__(self, categories: set[str], max_price: int, max_calories: int, example: str):
        self.example = example  # a dish of this menu, for examples in help texts
        self.categories = join(sorted(categories))
        self.limits = {"limit": dollars(max_price), "cal_limit": max_calories, "cats": self.categories}

    def greeting(self) -> str:
        return ("Hey there, can I assist you with anything? Tell me what ran out or came back, or what to "
                "add, change or remove on the menu.")


    def render(self, actions: Atoms, note: str = "", hint: str = "") -> str:
        """Confirmations and rejections in sentence order, then `note` (what was applied), then
        the question or the goodbye."""
        said = sorted([(args[0], len(args), "confirm", args[1:]) for args in actions.get("confirm", [])] +
                      [(args[0], len(args), "reject", args[1:]) for args in actions.get("reject", [])],
                      key=lambda r: r[:2])
        parts, noted, at = [], {}, 0
        for _, _, how, (kind, *args) in said:
            if how == "confirm" and kind == "noted":  # "Got it: ingredients beef and cheese."
                if not noted:
                    at = len(parts)
                noted.setdefault(args[1], []).append(show_value(args[1], args[2]))
                continue
            if how == "confirm" and kind == "value_is" and len(args) == 3:  # several values: one sentence
                values = [a[4] for a in actions.get("confirm", []) if a[1] == "value_is" and tuple(a[2:4]) == tuple(args[:2])]
                if args[2] != values[0]:
                    continue
                args = [args[0], args[1], join([show_value(args[1], v) for v in values])]
            if how == "confirm" and kind == "irrelevant" and hint:
                parts.append(hint)
                continue
            parts.append(self.confirmation(kind, args) if how == "confirm" else self.rejection(kind, args))
        if noted:
            parts.insert(at, "Got it: " + "; ".join(
                f"{PROPERTY_NAMES[prop] if len(values) > 1 or prop == 'calories' else NOTED_NAMES[prop]} "
                f"{join(values)}" for prop, values in noted.items()) + ".")
        parts.append(note)
        for name, question in actions.get("ask", []):
            if question == "stale":
                parts.append(self.stale_question(*actions["stale"][0]))
            elif question in ("confirm_price", "confirm_runout"):
                parts += [self.readback(*args) for args in actions.get("readback", []) if args[0] == name]
            else:
                parts.append(QUESTIONS[question].format(name, **self.limits))
        if ("quit",) in actions.get("mode", []):
            parts.append("Thanks, bye!")
        elif not any(parts):
            parts.append("Anything else? You can report stock, or add, change or remove menu items.")
        return " ".join(p for p in parts if p)

    @staticmethod
    def readback(name: str, what: str, a, b) -> str:
        """The question before a surprising change: exactly what would change, and how to answer."""
        if what == "price":
            change = f" That is a {round(abs(b - a) * 100 / a)}% {'cut' if b < a else 'rise'}." if a else ""
            return (f"Change the price of {name} from {dollars(a)} to {dollars(b)}?{change} Say yes to change it, "
                    f"or no to keep {dollars(a)}.")
        return (f"Mark {name} out of stock? That takes {a} dishes off for customers. Say yes to mark it out, "
                f"or no to leave it.")

    @staticmethod
    def stale_question(name: str, prop: str, now, new) -> str:
        return (f"The {PROPERTY_NAMES[prop]} of {name} was changed to {show_value(prop, now)} by another manager "
                f"since you asked; still set it to {show_value(prop, new)}? Nothing is applied until you say.")

    def rejection(self, reason: str, args: list) -> str:
        if reason in ("bad_price", "price_over_limit"):
            args = [show_value("price", args[0])]
        if reason == "unchanged":
            args = [args[0], PROPERTY_NAMES[args[1]], show_value(args[1], args[2])]
        if reason in ("say_which", "bad_property", "last_one", "required"):
            args = [args[0], PROPERTY_NAMES.get(args[1], args[1])]
        if reason == "bad_quantity":
            args = [args[0]]
        return REJECTIONS[reason].format(*args, **self.limits)

    def confirmation(self, kind: str, args: list) -> str:
        if kind == "runout":
            name, dishes = args
            effect = f" That takes {dishes} dishes off for customers until it is back." if dishes else \
                " Customers can't order it until it is back."
            return f"Understood, we're running short on {name}.{effect}"
        if kind == "as_ingredient":
            return (f"{args[0]} is both a dish and an ingredient: I took it as the ingredient, which covers "
                    "every dish made with it.")
        if kind == "already_out":
            return f"{args[0]} is already marked as out of stock."
        if kind == "restore":
            return f"Great, {args[0]} is back in stock; customers can order it again."
        if kind == "added" and len(args) == 2:
            name, what = args
            return f"Added {name} as a new {what}; it goes on the menu when you save or say bye."
        if kind == "added":
            name, prop, value = args
            return f"{name} now has {show_value(prop, value)} among its {PROPERTY_NAMES[prop]} (pending)."
        if kind == "changed":
            name, prop, old, new = args
            return f"The {PROPERTY_NAMES[prop] if prop != 'ingredient' else 'ingredient'} of {name} changes " \
                   f"from {show_value(prop, old)} to {show_value(prop, new)} (pending)."
        if kind == "removed":
            name, prop, old = args
            return f"{show_value(prop, old)} comes off the {PROPERTY_NAMES[prop]} of {name} (pending)."
        if kind == "deleted":
            return f"{args[0]} comes off the menu when you save or say bye."
        if kind == "cancelled":
            return f"Cancelled: {args[0]} will not be added."
        if kind == "nothing_to_cancel":
            return "There is nothing being added to cancel."
        if kind == "stock_is":
            return f"{args[0]} is out of stock."
        if kind == "stock_in":
            return f"{args[0]} is in stock."
        if kind == "stock_off":
            return f"{args[0]} is off for customers: {args[1]} is out of stock."
        if kind == "stock_none":
            return "Nothing is out of stock right now."
        if kind == "pending_is":
            return "Pending: " + describe(*[None if a == "none" else a for a in args]) + "."
        if kind == "pending_none":
            return "Nothing is pending."
        if kind == "value_is":
            return f"The {PROPERTY_NAMES[args[1]] if args[1] != 'ingredient' else 'ingredients'} of {args[0]}: " \
                   f"{show_value(args[1], args[2])}."
        if kind == "kept_price":
            return f"All right, the price of {args[0]} stays {show_value('price', args[1])}."
        if kind == "kept_stock":
            return f"All right, {args[0]} stays in stock."
        if kind == "kept":
            return f"All right, {args[0]} stays on the menu."
        if kind == "undone":
            return f"Undone: the pending change to {args[0]} is dropped."
        if kind == "stock_undone":
            return f"Undone: {args[0]} is {'back in stock' if args[1] == 'out' else 'out of stock again'}."
        if kind == "nothing_pending":
            return f"There is no pending change to {args[0]}, so nothing changed."
        if kind == "nothing_to_undo":
            return "There is no pending change to undo."
        if kind == "declined":
            return f"All right, I won't add {args[0]}."
        if kind == "rebased":
            name, prop, now, new = args
            return f"The {PROPERTY_NAMES[prop]} of {name} goes from {show_value(prop, now)} to {show_value(prop, new)}."
        if kind == "kept_theirs":
            name, prop, now = args
            return f"All right, the {PROPERTY_NAMES[prop]} of {name} stays {show_value(prop, now)}."
        if kind == "answer_first":
            return "Before I save, one question is still open:"
        if kind == "nothing_to_save":
            return "There are no pending changes to save."
        if kind == "abandoned":
            name, prop = args
            return f"I did not add {name}: its {PROPERTY_NAMES[prop]} was still missing."
        if kind == "irrelevant":
            return ("Sorry, I didn't catch a stock or menu change there. Try \"we're out of tomatoes\", "
                    f"\"the {self.example} now costs $1.99\" or \"add a new dish called ...\".")
        raise KeyError(kind)


def describe(action: str, item: str, prop: str, old, new) -> str:
    """One staged or applied change in words, for /pending, /history and `automanager state`."""
    if prop == "stock":
        return f"{item} {'out of stock' if action == 'runout' else 'back in stock'}"
    if prop in ("dish", "combo", "ingredient", "sauce") and old is None and new is None:
        return f"{action} {prop} {item}"
    if prop == "item":
        return f"{action} {item}"
    if action == "edit":
        return f"edit {item}: {PROPERTY_NAMES.get(prop, prop)} {show_value(prop, old)} -> {show_value(prop, new)}"
    shown = show_value(prop, new if action == "add" else old)
    return f"{action} {item}: {PROPERTY_NAMES.get(prop, prop)} {shown}"
