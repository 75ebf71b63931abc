"""The closed predicate vocabularies of both bots: the one definition the parsers, the LLM
prompts, the JSON schema and the validator are all made from, so they cannot drift apart.

An LLM writes a predicate as a JSON object in one of the `Form`s below ({"predicate": "order",
"food": "...", "quantity": 2}); each form says which act (acts.py) it becomes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Form:
    """One predicate as JSON: its fields and their types. A type is string, integer, or
    'a|b|c' (one of those words); a trailing '?' means the field may be null."""

    pred: str  # the ASP predicate it becomes (new_<pred> in the bot's .lp file)
    meaning: str
    fields: tuple[tuple[str, str], ...] = ()


def form(pred: str, meaning: str, **fields: str) -> Form:
    return Form(pred, meaning, tuple(fields.items()))


# Every number of the vocabulary (quantities, cents, calories) lies within +-MAX_NUMBER: clingo's
# numbers are 32-bit, and this is far above any cap the KB sets, so a huge number said is
# refused by the usual cap rule instead of overflowing.
MAX_NUMBER = 10**9


def bounded(number: str | float | int) -> int:
    """A number as said ('12', '3.5', '1e999', '-99999999999999999999') as an int within
    +-MAX_NUMBER, rounded toward zero; anything that is not a finite number is clamped too."""
    if isinstance(number, str) and re.fullmatch(r"\s*-?\d+\s*", number):
        number = int(number)  # exact, however long: float() would overflow
    try:
        value = number if isinstance(number, int) else float(number)
    except (TypeError, ValueError):
        raise ValueError(f"{number!r} is not a number") from None
    if value != value:  # NaN
        raise ValueError(f"{number!r} is not a number")
    return int(max(-MAX_NUMBER, min(MAX_NUMBER, value)))


UPDATE_OPS = "add|no|less|extra|regular|unsay|change|option"
QUERY_KINDS = "price|calories|ingredients|toppings|available|menu|total|sizes|why|choices|extra|with|options|deals"

# The customer vocabulary: the paper's predicates plus corrections (remove, set_quantity,
# replace, cancel, stop) and the answers to the bot's own questions (accept, decline).
CUSTOMER: dict[str, Form] = {
    "order": form("order", "quantity of a dish or combo", food="string", quantity="integer"),
    "specify": form("specify", "dish chosen for the combo",
                    combo="string", dish="string"),
    "update": form("update", "add|no|less|extra|regular: option an ingredient; unsay: take it back "
                   "('not X, Y'); change: new_option "
                   "replaces option; option: a menu value ('large'), new_option 'no' if unwanted; units: "
                   "how many (null: all)",
                   dish="string", operation=UPDATE_OPS, option="string", new_option="string?",
                   units="integer?"),
    "need_recommend": form("need_recommend", "a suggestion: category (content a category, all, a label, "
                           "combo) or upgrade (toppings for dish content)", content="string",
                           type="category|upgrade"),
    "query": form("query", "a question about food (name, category or all); why: that price or "
                  "not sold; choices: the combo's",
                  kind=QUERY_KINDS, food="string", quantity="integer?", size="string?"),
    "remove": form("remove", "take quantity of food off (null: all)", food="string", quantity="integer?"),
    "set_quantity": form("set_quantity", "exactly quantity of food ('make that two')", food="string",
                         quantity="integer"),
    "copy": form("copy", "quantity more like the last food (null: 'double that'); all: the order again",
                 food="string", quantity="integer?"),
    "refer": form("refer", "units a change/remove means",
                  kind="nth|last|other|all|category|option|topping|said|food|one|alike|bare|word|recent",
                  value="string"),
    "replace": form("replace", "new instead of old", old="string", new="string"),
    "either": form("either", "one of two, not said which",
                   first="string", second="string"),
    "complete": form("complete", "nothing more to order"),
    "accept": form("accept", "yes to the bot's last question"),
    "decline": form("decline", "no to the bot's last question"),
    "cancel": form("cancel", "drop the whole order"),
    "stop": form("stop", "add nothing more"),
    "wrong": form("wrong", "misheard, no fix said"),
    "quit": form("quit", "the customer leaves"),
    "greet": form("greet", "a greeting, small talk; noted: talk around the order",
                  kind="hello|how_are_you|thanks|noted|wait"),
    "vague": form("vague", "a category, no item named; quantity 0 if unsaid",
                  kind="string", quantity="integer"),
    "unsure": form("unsure", "words not understood"),
    "irrelevant": form("irrelevant", "nothing to act on"),
}
# alias: a phrase customers say for the item (the prompt stays within its token budget: no gloss)
PROPERTIES = "category|price|calories|ingredient|popular|contains|alias"

# The manager vocabulary: the paper's administrator predicates (add/1,2,3, edit/3,4,
# delete/1,2,3 as separate JSON forms) plus save, cancel and the answers to the bot's questions.
MANAGER: dict[str, Form] = {
    "runout": form("runout", "food (an ingredient, sauce, dish or combo) is out of stock", food="string"),
    "restore": form("restore", "food is back in stock", food="string"),
    "add_new": form("add", "a new dish, combo or ingredient called name (type null if not said)",
                    type="dish|combo|ingredient|sauce?", name="string"),
    "add": form("add", "name (new or on the menu) gets a value: a category; price in dollars; calories; "
                "an ingredient; popular: a topping people like on it, or none; contains: a dish or option "
                "group of a combo, with count",
                name="string", property=PROPERTIES, value="string", count="integer?"),
    "edit": form("edit", "the price (dollars), calories or category of name becomes value; price_by: the price "
                 "moves by value dollars ('50 cents off': -0.50)",
                 name="string", property="price|price_by|calories|category", value="string"),
    "edit_swap": form("edit", "new instead of old among the ingredients, popular toppings or contents of name",
                      name="string", property="ingredient|popular|contains", old="string", new="string"),
    "delete": form("delete", "take name off the menu", name="string"),
    "delete_value": form("delete", "remove one value from a property of name", name="string",
                         property="ingredient|popular|contains", value="string"),
    "delete_all": form("delete", "remove every value of a property of name (popular toppings)",
                       name="string", property="popular"),
    "save": form("save", "apply the pending menu changes now"),
    "cancel": form("cancel", "abandon the item being added"),
    "undo": form("undo", "take back the last change ('scratch that'; name null), or every pending "
                 "change to name", name="string?"),
    "correct": form("correct", "the last change was meant for name", name="string"),
    "query": form("query", "a question: out (what is out of stock) or pending (changes waiting), name all; "
                  "price|calories|ingredient of the item name", kind="out|pending|price|calories|ingredient",
                  name="string"),
    "accept": form("accept", "yes to the bot's last question"),
    "decline": form("decline", "no to the bot's last question (for popular toppings: none)"),
    "quit": form("quit", "the manager leaves ('bye'); pending menu changes are applied"),
    "irrelevant": form("irrelevant", "nothing the bot can act on"),
}

# The store rules a manager states (read with their own prompt, prompts/rules_parse.txt, when the
# line is about a rule: the manager prompt stays within its budget). Times as said ("10:30am",
# "17:00"), weekdays as said ("wed", "fri and sat", "weekends"; null: every day), money in dollars.
RULES: dict[str, Form] = {
    "rule_limit": form("rule_limit", "at most `most` per order of target: scope item (a dish or combo), category "
                       "(a category, or combo), any_item (of any one item) or total (items in all); target all "
                       "for any_item and total", scope="item|category|any_item|total", target="string",
                       most="integer"),
    "rule_hours": form("rule_hours", "target (an item, a category, or combo) served only from start until end "
                       "(null: opening, closing) on days", scope="item|category", target="string",
                       start="string?", end="string?", days="string?"),
    "rule_deal_price": form("rule_deal_price", "item costs price (dollars) on days", item="string",
                            price="string", days="string?"),
    "rule_deal_off": form("rule_deal_off", "amount (a percent, or dollars) off orders of over dollars or more "
                          "(null: every order)", kind="percent|amount", amount="string", over="string?"),
    "rule_deal_free": form("rule_deal_free", "one item free with each combo (a combo, or combo: any)",
                           combo="string", item="string"),
    "rule_instead": form("rule_instead", "when out is out of stock, offer offer instead", out="string",
                         offer="string"),
    "rule_suggest": form("rule_suggest", "offer offer when an order has given (an item, a category, or combo)",
                         given="string", offer="string"),
    "rule_drop": form("rule_drop", "drop the rule so described: its kind, a name, a number or days in it (null: "
                      "not said)", kind="any|limit|hours|deal|percent|amount|instead|suggest|any_item|total", name="string?",
                      number="string?", days="string?"),
    "query": form("query", "which rules are on (kind rules, name all)", kind="rules", name="string"),
    "accept": form("accept", "yes to the bot's last question"),
    "decline": form("decline", "no to the bot's last question"),
    "irrelevant": form("irrelevant", "not a store rule, or not clear enough to make one"),
}

VOCABULARIES = {"customer": CUSTOMER, "manager": MANAGER, "rules": RULES}


class VocabError(ValueError):
    """An LLM answer outside the vocabulary; the message is sent back to it once."""


def describe(vocabulary: dict[str, Form], fields: bool = True) -> str:
    """The vocabulary for a prompt, one form a line: `- name(field, field: type): meaning` (a
    field is a string unless its type is given; '?' marks one that may be null). Without
    fields, `- name: meaning`: for a request that sends the JSON schema, which has them."""
    lines = []
    for name, spec in vocabulary.items():
        said = ", ".join(f if t == "string" else f"{f}?" if t == "string?" else f"{f}: {t}" for f, t in spec.fields)
        lines.append(f"- {name}({said}): {spec.meaning}" if said and fields else f"- {name}: {spec.meaning}")
    return "\n".join(lines)


def json_schema(vocabulary: dict[str, Form]) -> dict[str, Any]:
    """A strict JSON schema (OpenAI structured outputs) of {"predicates": [form, ...]}."""

    def field_schema(kind: str) -> dict[str, Any]:
        nullable = kind.endswith("?")
        kind = kind.rstrip("?")
        if "|" in kind:
            words = kind.split("|")
            return {"type": ["string", "null"], "enum": [*words, None]} if nullable else {"type": "string", "enum": words}
        return {"type": [kind, "null"] if nullable else kind}

    alike: dict[tuple[tuple[str, str], ...], list[str]] = {}  # forms with the same fields share one variant (a shorter schema)
    for name, spec in vocabulary.items():
        alike.setdefault(spec.fields, []).append(name)
    variants = []
    for fields, names in alike.items():
        properties = {"predicate": {"type": "string", "enum": names}}
        properties.update({f: field_schema(t) for f, t in fields})
        variants.append({"type": "object", "properties": properties, "required": list(properties),
                         "additionalProperties": False})
    return {"type": "object", "properties": {"predicates": {"type": "array", "items": {"anyOf": variants}}},
            "required": ["predicates"], "additionalProperties": False}


def validate(vocabulary: dict[str, Form], data: Any) -> list[tuple[str, dict[str, Any]]]:
    """(form name, fields) of each predicate in an LLM answer, or VocabError saying what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("predicates"), list):
        raise VocabError('the answer must be a JSON object {"predicates": [...]}')
    out = []
    for item in data["predicates"]:
        if not isinstance(item, dict) or item.get("predicate") not in vocabulary:
            name = item.get("predicate") if isinstance(item, dict) else item
            raise VocabError(f"{name!r} is not a predicate of the vocabulary; use only: {', '.join(vocabulary)}")
        spec = vocabulary[item["predicate"]]
        wanted = dict(spec.fields)
        extra = set(item) - set(wanted) - {"predicate"}
        if extra:
            raise VocabError(f"{item['predicate']} has no field {', '.join(sorted(extra))}")
        fields = {}
        for field, kind in wanted.items():
            value = item.get(field)
            fields[field] = check(item["predicate"], field, kind, value)
        out.append((item["predicate"], fields))
    return out


def check(pred: str, field: str, kind: str, value: Any) -> Any:
    if value is None:
        if kind.endswith("?"):
            return None
        raise VocabError(f"{pred} needs {field}")
    kind = kind.rstrip("?")
    if "|" in kind:
        if str(value) not in kind.split("|"):
            raise VocabError(f"{pred}.{field} must be one of {kind.replace('|', ', ')}, not {value!r}")
        return str(value)
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and not value.is_integer()):
            raise VocabError(f"{pred}.{field} must be a whole number, not {value!r}")
        return bounded(value)
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise VocabError(f"{pred}.{field} must be text, not {value!r}")
    return str(value)
