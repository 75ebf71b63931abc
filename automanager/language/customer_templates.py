"""Template responses for the assistant: next-action predicates -> English.

Confirmation first, then the action. Every price, name and list comes from the predicates;
nothing here decides anything.
"""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..menu.model import Menu
from ..normalize import latin
from ..reasoner import Atoms
from ..rules import DealFree, Hours, read_rule
from ..terms import Term
from ..vocab import MAX_NUMBER
from .english import ENGLISH, dollars, join
from .outputs import (
    HEARD,
    Answer,
    Ask,
    AskAbout,
    AskOption,
    AskStyle,
    AskTopping,
    AskValue,
    BoardDetail,
    BoardUnit,
    DealFreeWith,
    DealPriceOn,
    Detail,
    Discount,
    HeardCopy,
    HeardOrder,
    HeardQuantity,
    Mode,
    NoAnswer,
    Priced,
    PricePart,
    Recommend,
    RejectedUpdate,
    Taxed,
    Total,
    Updated,
    assistant_said,
    rows_of,
)
from .rule_words import days_text, rule_text, when_text

REPLIES = tomllib.loads(Path(__file__).with_name("customer_replies.toml").read_text(encoding="utf-8"))
SPEAK = REPLIES["speak"]

OP_WORDS = {"add": "add", "no": "leave off", "less": "go light on", "extra": "add extra", "regular": "keep regular"}
CHANGE_WORDS = {"add": "{}", "plain": "{}", "extra": "extra {}", "no": "no {}", "less": "light {}",
                "regular": "regular {}", "unsay": "not {}", "change": "{1} instead of {0}"}


def change_words(op: str, opt) -> str:
    """A change to a dish in a few words: "extra <cheese>", "<beans> instead of <rice>"."""
    if op == "change" and not opt[0]:  # "X instead" with the one it replaces left to the rules
        return f"{opt[1]} instead of what it has"
    return CHANGE_WORDS[op].format(*opt) if op == "change" else CHANGE_WORDS[op].format(opt)


def served_hours(rules: list[Any]) -> dict[str, str]:
    """{what}, {is_are} and {hours} of the hours rules of one target ('breakfast items', 'are',
    'until 10:30am on weekdays and until 11am on weekends') for a not_served reply."""
    hours = sorted((r for r in map(read_rule, rules) if isinstance(r, Hours)), key=lambda r: (r.days, r.start))
    text = REPLIES["confirm"]
    if not hours:
        return {"what": "", "is_are": "", "hours": ""}
    first = hours[0]
    key = "combo" if first.scope == "category" and first.target == "combo" else first.scope
    return {"what": text[f"not_served_{key}"].format(target=first.target),
            "is_are": text["not_served_is" if key == "item" else "not_served_are"],
            "hours": text["not_served_hours_join"].join(dict.fromkeys(when_text(r) for r in hours))}


def fields(said: Term) -> dict[str, Any]:
    """A typed output's fields by name, for its reply's placeholders."""
    return dict(zip(said.fields, said.field_values()))


@lru_cache(maxsize=4096)  # inflect takes tens of microseconds a word, and a menu's names repeat
def plural(name: str, n: int) -> str:
    """A menu name for n of it: its head noun made plural ("<Cups> of <Tea>", "<Bowls> - <Veggie>",
    "<Crunches>"); a name already plural stays as it is."""
    if n == 1:
        return name
    head, rest = re.fullmatch(r"(.*?)((?: of | - ).*)?", name, re.S).groups()  # type: ignore[union-attr]  # matches any text
    before, _, last = head.rpartition(" ")
    word = last.rstrip("®™")
    if not word.isalpha() or not latin(word) or word.lower().endswith("s"):
        return name  # already plural, or a name of a script English plurals do not apply to
    many = ENGLISH.plural_noun(word.lower())
    many = many[:1].upper() + many[1:] if word[:1].isupper() else many
    return f"{before} " * bool(before) + many + last[len(word):] + (rest or "")


def pieces(name: str, n: int) -> str:
    """A meal's part with how many: "three Tenders", "a Burger" (never "orders of")."""
    return a_name(name) if n == 1 else f"{said_number(n)} {plural(name, n)}"


def said_number(n: int) -> str:
    return str(ENGLISH.number_to_words(n)) if n <= 20 else f"{n:,}"


@lru_cache(maxsize=4096)
def count(name: str, n: int, by_the_order: bool = False) -> str:
    """n of a menu item in words: "a <Burrito>", "an <8 Piece Bucket>", "three <Cups of Tea>", "an
    order of <Twists>" (an item sold by the portion, or whose name is plural: "<Wedges>")."""
    if by_the_order or portion_name(name):
        return f"an order of {name}" if n == 1 else f"{said_number(n)} orders of {name}"
    return a_name(name) if n == 1 else f"{said_number(n)} {plural(name, n)}"


def a_name(name: str) -> str:
    """"a" or "an" before a name, a leading number read as said ("an 8 Piece", "an 11 Piece")."""
    number = re.match(r"\d+", name)
    said = str(ENGLISH.number_to_words(number.group())) if number else name
    return ENGLISH.a(said).split(" ", 1)[0] + " " + name


@lru_cache(maxsize=4096)
def portion_name(name: str) -> bool:
    """Is the name said by the portion: its head noun plural ("Potato <Wedges>", "<Fries>"; not
    "Orange <Citrus>"), or two foods joined ("Bangers and Mash": never "two Bangers and Mashes")?"""
    words = re.split(r" of | - ", name)[0].split(" ")
    if len(words) == 3 and words[1].lower() in ("and", "&", "n"):
        return True
    head = words[-1].rstrip("®™")
    if not head.isalpha() or not latin(head) or head.lower().endswith(("us", "ss", "is")):
        return False
    one = ENGLISH.singular_noun(head.lower())  # False when the word is not a plural
    return isinstance(one, str) and ENGLISH.plural_noun(one) == head.lower()


@dataclass
class OrderLine:
    """Equal units of an order: "two large <drinks>" at one unit price."""

    name: str  # with its size when it is not the regular one
    item: str
    modifiers: str
    unit_price: int
    quantity: int = 0


class CustomerTemplates:
    def __init__(self, menu: Menu):
        self.menu = menu
        self.by_the_order = {name for (name,) in menu.facts.get("by_the_order", [])}

    def count(self, name: str, n: int) -> str:
        return count(name, n, name in self.by_the_order)

    def greeting(self) -> str:
        return SPEAK["greeting"].format(restaurant=self.menu.restaurant)

    def welcome_back(self, priced: Atoms) -> str:
        return self.read_back("welcome_back", priced) if self.lines(priced) else SPEAK["welcome_back_empty"]

    def read_back(self, reply: str, priced: Atoms) -> str:
        """The order read back in a reply of {lines} and {total}: on a return, and after "that's not what I said"."""
        return SPEAK[reply].format(lines=join(self.lines(priced)), total=dollars(rows_of(priced, Total)[0].cents))

    def render(self, actions: Atoms, unknown: list[str], counts: dict[str, int] | None = None) -> str:
        """counts: units of each dish in the order after the turn ("your taco" or "your tacos")."""
        self.counts = counts or {}
        parts = self.confirmations(actions, unknown)
        parts.append(self.action(actions))
        return " ".join(p for p in parts if p)

    # -- confirmations -------------------------------------------------------------------
    def confirmations(self, actions: Atoms, unknown: list[str]) -> list[str]:
        said: dict[str, list[Any]] = defaultdict(list)  # typed outputs by kind
        for output in assistant_said(actions):
            said[str(output.tag)].append(output)
        text = REPLIES["confirm"]
        out = [text[f"greeting_{g.kind}"] for g in said.pop("greeting", [])]
        heard = [c for cls in HEARD for c in said.pop(cls.tag or "", [])]
        out += self.orders_said(said, unknown, bool(heard))
        out += self.changes_said(said)
        out += self.questions_said(said, actions)
        if heard:
            out.append(self.heard_question(heard))
        return out

    def orders_said(self, said: dict[str, list[Any]], unknown: list[str], heard: bool) -> list[str]:
        """What was ordered, and what was refused of it (out, too many, not served now, over a rule)."""
        text = REPLIES["confirm"]
        out: list[str] = []
        key = "unknown_heard" if heard else "unknown"
        out += [text[key].format(word=unknown[u.index]) if u.index < len(unknown) else ""
                for u in said.pop("unknown", [])]
        lines: dict[str, int] = {}  # in the order said, each food once
        for o in sorted(said.pop("order", []), key=lambda o: o.line):
            lines[o.food] = lines.get(o.food, 0) + o.quantity
        ordered = self.ordered_with_changes(lines, said)
        if len(ordered) > 1 and any(" with " in line for line in ordered):
            out.append(text["got_it_with"].format(first=", ".join(ordered[:-1]), last=ordered[-1]))
        elif ordered:
            out.append(text["got_it"].format(items=join(ordered)))
        out += [text["unavailable"].format(**fields(c)) for c in said.pop("unavailable", [])]
        out += [text["ran_out"].format(**fields(c)) for c in said.pop("ran_out", [])]
        out += [text["topping_ran_out"].format(**fields(c)) for c in said.pop("topping_ran_out", [])]
        out += [text[kind].format(ingredient=c.ingredient, option=self.option_said(c.group, c.value), dish=c.dish)
                for kind in ("option_out", "option_ran_out") for c in said.pop(kind, [])]
        out += [text["two_values"].format(dish=c.dish, first=self.option_said(c.group, c.first),
                                          second=self.option_said(c.group, c.second)) for c in said.pop("two_values", [])]
        out += [text["too_many"].format(**fields(c), amount=text["too_many_amount"] if c.quantity >= MAX_NUMBER
                                        else f"{c.quantity:,}") for c in said.pop("too_many", [])]
        out += [text["bad_quantity"].format(**fields(c)) for c in said.pop("bad_quantity", [])]
        out += [text["order_limit"].format(**fields(c)) for c in said.pop("order_limit", [])]
        out += self.not_served(said.pop("not_served", []))
        out += [text["over_rule_" + ("combo" if c.scope == "category" and c.target == "combo" else c.scope)
                     + ("_one" if c.most == 1 and c.scope == "category" and c.target == "combo" else "")].format(
            **fields(c)) for c in dict.fromkeys(said.pop("over_rule", []))]
        out += [self.deal_text(c) for c in said.pop("deal_price", []) + said.pop("deal_free", [])]
        return out

    def changes_said(self, said: dict[str, list[Any]]) -> list[str]:
        """What was changed, chosen, removed, replaced, copied or called off."""
        text = REPLIES["confirm"]
        out: list[str] = []
        out += [self.update_text(c) for c in said.pop("update", [])]
        out += [text["restored"].format(topping=c.topping, dishes=plural(c.dish, self.counts.get(c.dish, 1)))
                for c in said.pop("restored", [])]
        out += [self.rejected_update(c) for c in said.pop("rejected_update", [])]
        out += [text["specify"].format(**fields(c)) for c in said.pop("specify", [])]
        out += [text["swapped"].format(**fields(c)) for c in said.pop("swapped", [])]
        out += [text[f"rejected_specify_{c.reason}"].format(**fields(c)) for c in said.pop("rejected_specify", [])]
        out += [text["default_choice"].format(a_dish=a_name(c.dish), combo=c.combo)
                for c in said.pop("default_choice", [])]
        defaults = [self.option_said(c.group, c.option) for c in said.pop("defaulted", [])]
        for c in said.pop("skipped", []):
            if c.topic == "options":
                out.append(text["skipped_options"])
            elif defaults:
                out.append(text["skipped_defaulted"].format(a_defaults=a_name(join(defaults))))
        out += [text["removed_all"].format(food=c.food) if c.count == "all"
                else text["removed_some"].format(amount=self.count(c.food, c.count)) for c in said.pop("removed", [])]
        out += [text["not_in_order"].format(**fields(c)) for c in said.pop("not_in_order", [])]
        out += [text["quantity"].format(amount=self.count(c.food, c.quantity)) if c.quantity
                else text["quantity_none"].format(foods=plural(c.food, 2)) for c in said.pop("quantity", [])]
        out += [text["replaced"].format(**fields(c)) for c in said.pop("replaced", [])]
        copies = said.pop("copied", [])
        if copies:
            changed = "copied_changed" if said.pop("copied_changed", []) else "copied"  # "another one but medium"
            out.append(text[changed].format(amounts=join([self.more(c.food, c.quantity) for c in copies])))
        out += [text[kind] for kind in ("cancelled", "stopped", "wrong", "irrelevant", "empty_order") if said.pop(kind, [])]
        return out

    def questions_said(self, said: dict[str, list[Any]], actions: Atoms) -> list[str]:
        """What the bot asks back: which of two, which unit, did you mean, an offer, which kind."""
        text = REPLIES["confirm"]
        out: list[str] = []
        out += [text["either"].format(**fields(c)) for c in said.pop("either", [])]
        units = self.units_told_apart(actions, {c.unit for c in said.pop("which_unit", [])})
        out += [text["which_unit"].format(units=" or ".join(units)) if c.first == c.second and units else
                text["which_one_same" if c.first == c.second else "which_one"].format(**fields(c))
                for c in said.pop("which_one", [])]
        out += [text["no_such_unit"] for _ in said.pop("no_such_unit", [])[:1]]
        out += [text["did_you_mean"].format(**fields(c)) for c in said.pop("did_you_mean", [])[:1]]
        out += [text["replace_unfounded"].format(**fields(c)) for c in said.pop("replace_unfounded", [])[:1]]
        out += [text["not_on_it"].format(**fields(c)) for c in said.pop("not_on_it", [])[:1]]
        out += [text["offer_instead"].format(food=c.food, amount=self.count(c.offer, c.quantity))
                for c in said.pop("offer_instead", [])[:1]]  # an offer is the reply's last question
        out += [text["offer_change"].format(foods=plural(c.food, c.quantity), **fields(c))
                for c in said.pop("offer_change", [])[:1]]
        out += [text["offer_suggest"].format(amount=self.count(c.offer, 1)) for c in said.pop("offer_suggest", [])[:1]]
        out += [text["heard_dropped"] for _ in said.pop("heard_dropped", [])]
        picks: dict[str, list[str]] = defaultdict(list)  # the foods asked about, by the meal they may be for
        for c in said.pop("pick_or_own", []):
            picks[c.combo].append(c.dish)
        out += [text["pick_or_own" if len(dishes) == 1 else "pick_or_own_many"].format(combo=combo, dish=join(sorted(dishes)))
                for combo, dishes in picks.items()]
        left = sorted(c.dish for c in said.pop("pick_left_off", []))
        out += [text["pick_left_off"].format(dish=join(left))] if left else []
        kinds: dict[str, list[str]] = defaultdict(list)
        for c in said.pop("which_kind", []):
            kinds[c.kind] += [c.food] if c.food else []
        out += [text["which_kind"].format(kind=kind, foods=join(foods, "or")) if len(foods) > 1 else
                text["how_many_kind"].format(foods=plural(foods[0], 2)) if foods else
                text["which_kind_none"].format(kinds=kind + "s") for kind, foods in kinds.items()]
        return out

    def heard_question(self, heard: list[Any]) -> str:
        """The changes of a line only half heard, asked about: "Did you want a <dish>?", "Did you
        want me to take the <dish> off?"."""
        text = REPLIES["confirm"]
        only_orders = all(isinstance(c, HeardOrder) for c in heard)
        changes = []
        for c in dict.fromkeys(heard):
            if isinstance(c, HeardOrder):
                changes.append(text["heard_order" if only_orders else "heard_order_me"].format(
                    amount=self.count(c.food, c.quantity)))
            elif isinstance(c, HeardQuantity):
                changes.append(text["heard_quantity"].format(amount=self.count(c.food, c.quantity)) if c.quantity
                               else text["heard_quantity_none"].format(food=c.food))
            elif isinstance(c, HeardCopy):
                changes.append(text["heard_copy_all"] if c.food == "all" else
                               text["heard_copy"].format(amounts=self.more(c.food, c.quantity)))
            elif c.tag == "heard_update" and c.operation == "option":
                changes.append(text["heard_option"].format(dish=c.dish, option=self.option_said(*c.option[:2])))
            elif c.tag == "heard_update":
                changes.append(text["heard_update"].format(dish=c.dish, change=change_words(c.operation, c.option)))
            else:
                changes.append(text[c.tag].format(**fields(c)))
        return str(text["heard_ask" if only_orders else "heard_ask_me"].format(changes=join(changes)))

    def not_served(self, refused: list[Any]) -> list[str]:
        """'Sorry, breakfast items are served only until 10:30am, so I haven't added the <dish>.'"""
        rules: dict[str, list[Any]] = defaultdict(list)
        for c in dict.fromkeys(refused):
            rules[c.food].append(c.rule)
        return [REPLIES["confirm"]["not_served_own" if said["what"] == REPLIES["confirm"]["not_served_item"].format(
            target=food) else "not_served"].format(food=food, **said)
            for food, rules_of in rules.items() for said in [served_hours(rules_of)]]

    def deal_text(self, c: DealPriceOn | DealFreeWith) -> str:
        """Why a price is lower: today's deal price of what was ordered, or what a combo makes free."""
        text = REPLIES["confirm"]
        if isinstance(c, DealPriceOn):
            key = "deal_price_every" if c.day == "all" else "deal_price_day"
            return str(text[key].format(day=text["deal_day"].get(c.day, ""), foods=plural(c.food, 2),
                                        price=dollars(c.price)))
        return str(text["deal_free"].format(rule=rule_text(DealFree(c.combo, c.item)), amount=self.count(c.item, c.units),
                                            verb=text["deal_free_is" if c.units == 1 else "deal_free_are"]))

    def discount_text(self, actions: Atoms, key: str = "deal_off") -> str:
        """The order's discount (discount/2) after its total: ', after $2.00 off (10% off orders of
        $20.00 or more)'; '' for none."""
        for discount in rows_of(actions, Discount)[:1]:
            rule = read_rule(discount.said)
            return str(REPLIES["confirm"][key].format(rule=rule_text(rule) if rule else "",
                                                      amount=dollars(discount.cents)))
        return ""

    @staticmethod
    def tax_text(actions: Atoms, key: str = "taxed") -> str:
        """After a total and its discount: ' plus $0.72 tax, $9.50 in all' (key taxed) or ', with
        $0.72 tax' (tax_included, said of what is paid); '' where the store sets no tax."""
        for taxed in rows_of(actions, Taxed)[:1]:
            return str(REPLIES["confirm"][key].format(tax=dollars(taxed.tax), total=dollars(taxed.total)))
        return ""

    def more(self, food: str, n: int) -> str:
        """'another <dish>', 'two more <dishes>'."""
        if n == 1:
            return REPLIES["confirm"]["copied_one"].format(food=food)
        number, rest = self.count(food, n).split(" ", 1)
        return REPLIES["confirm"]["copied_more"].format(number=number, foods=rest)

    def ordered_with_changes(self, lines: dict[str, int], said: dict[str, list[Any]]) -> list[str]:
        """The foods ordered this turn, each with the changes said for all of its units in the same
        breath: "two large <dishes> with <this> and extra <that>". A change on only some units,
        or on a food ordered before, keeps a sentence of its own."""
        before: dict[str, list[str]] = defaultdict(list)  # "large", "thin crust"
        after: dict[str, list[str]] = defaultdict(list)  # "fresco style", "in a bottle"
        details: dict[str, list[str]] = defaultdict(list)  # "with" what
        rest = []
        for c in said.pop("update", []):
            d, op, opt = c.dish, c.operation, c.option
            whole = d in lines and c.units == lines[d] == self.counts.get(d, lines[d])
            if whole and op == "option" and opt[2] == "yes":
                if self.worth_saying(d, opt[0], opt[1]):  # "a medium Coke" is a Coke
                    (before if opt[0] in self.menu.said_before_name else after)[d].append(self.option_said(*opt[:2]))
            elif whole and op in CHANGE_WORDS:
                details[d].append(change_words(op, opt))
            else:
                rest.append(c)
        said["update"] = rest
        return [" ".join([self.count(" ".join([*before[f], f]), n), *after[f]]) +
                (f" with {join(details[f])}" if details[f] else "") for f, n in lines.items()]

    def update_text(self, c: Updated) -> str:
        """What an update did, and on how many of the dish: "your <tacos>" or "one of your <tacos>"."""
        text, ordered, opt = REPLIES["update"], self.counts.get(c.dish, 1), c.option
        where = text["where_all" if c.units >= ordered else "where_some"].format(
            dishes=plural(c.dish, ordered), units=said_number(c.units))
        if c.operation == "add" and opt in self.menu.included(c.dish):
            return str(text["included"].format(option=opt, where=where))
        if c.operation in OP_WORDS or c.operation == "unsay":
            return str(text[c.operation].format(option=opt, where=where))
        if c.operation == "change":
            return str(text["change"].format(old=opt[0], new=opt[1], where=where))
        said = self.option_said(opt[0], opt[1])
        return str(text["option"].format(Option=said[0].upper() + said[1:], where=where) if opt[2] == "yes"
                   else text["option_no"].format(option=said, where=where))

    def group_of(self, item: str, value: str) -> str:
        """The option group of a value the item offers."""
        return next((g for g, v in sorted(self.menu.options_of(item)) if v == value), "size")

    def worth_saying(self, item: str | None, group: str, value: str) -> bool:
        """An option value is said back unless it is what the item is anyway (its default)."""
        return (item, group, value) not in self.menu.option_defaults

    def option_said(self, group: str, value: str) -> str:
        """How an option value is said ("fresco style", "large"): option_text/3 of the KB."""
        return self.menu.option_text.get((group, value), value)

    def rejected_update(self, c: RejectedUpdate) -> str:
        text, d, opt = REPLIES["rejected_update"], c.dish, c.option
        if c.reason in ("not_ordered", "not_topping", "not_included"):
            return str(text[c.reason].format(dish=d, option=opt, verb=OP_WORDS.get(c.operation, "")))
        if c.reason == "unavailable":
            return str(text["unavailable"].format(option=opt[1] if isinstance(opt, tuple) else opt))
        if c.reason == "which_instead":
            return str(text["which_instead"].format(dish=d, new=opt[1]))
        if c.reason == "not_replaceable":
            return str(text["not_replaceable"].format(dish=d, old=opt[0], new=opt[1]))
        if not any(g == opt[0] for g, _ in self.menu.options_of(d)):
            return str(text["one_option"].format(dish=d, group=opt[0]))
        return str(text["not_offered"].format(dish=d, option=self.option_said(opt[0], opt[1])))

    # -- the action ----------------------------------------------------------------------
    def action(self, actions: Atoms) -> str:
        mode = rows_of(actions, Mode)[0].mode
        if mode == "quit" and not actions.get("total"):
            return SPEAK["goodbye"].format(restaurant=self.menu.restaurant)
        if mode == "parting":
            return SPEAK["parting"]
        if mode in ("close", "quit"):
            paid = rows_of(actions, Taxed)[0].total if actions.get("taxed") else rows_of(actions, Total)[0].cents
            return SPEAK["closed_goodbye" if mode == "quit" else "closed"].format(
                total=dollars(paid), discount=self.discount_text(actions) + self.tax_text(actions, "tax_included"),
                restaurant=self.menu.restaurant)
        if mode == "ask":
            return self.question(actions)
        if mode == "recommend":
            return self.recommendation(actions)
        if mode == "answer":
            return self.answer(actions)
        if mode == "check":
            return self.check(actions)
        if mode == "fix":
            return self.read_back("fix", actions)
        if actions.get("which_first"):
            return ""  # the confirmation asked which of two
        return SPEAK["what_first" if actions.get("nothing_ordered") else "what_else"]

    def question(self, actions: Atoms) -> str:
        """The question of the moment; one about a kind of dish names the dishes it is about."""
        ask = rows_of(actions, Ask)[0]
        target, topic = ask.target, ask.topic
        about = [a.food for a in rows_of(actions, AskAbout)]
        about.sort(key=lambda d: list(self.counts).index(d) if d in self.counts else len(self.counts))
        dishes = join([plural(d, self.counts.get(d, 1)) for d in about])
        styles = [self.option_said(s.group, s.value) for s in rows_of(actions, AskStyle)]
        style = styles[0] if styles else ""
        if topic == "options":
            wanted = " or ".join(w for w in ("toppings" if actions.get("ask_toppings") else "", style) if w)
            return SPEAK["ask_options"].format(wanted=wanted, dishes=dishes)
        if topic == "which":
            toppings = sorted(t.topping for t in rows_of(actions, AskTopping))
            offer = [f"add {join(toppings).replace(' and ', ' or ')}" if toppings else "",
                     f"have {'them' if len(about) > 1 or self.counts.get(about[0], 1) > 1 else 'it'} {style}"
                     if style else ""]
            return SPEAK["ask_which"].format(dishes=dishes, offer=" or ".join(o for o in offer if o))
        if topic.startswith("pick("):
            values = dict.fromkeys(self.option_said(v.group, v.option)
                                   for v in sorted(rows_of(actions, AskValue), key=lambda v: v.rank))
            return SPEAK["ask_pick"].format(group=topic[5:-1], dishes=dishes,
                                            values=join(list(values)).replace(" and ", " or "))
        group = topic.split(",")[1].strip('"') if "," in topic else "choice"
        options = [o.food for o in sorted(rows_of(actions, AskOption), key=lambda o: o.rank)]
        if not options:  # none to name (the picks are of a kind the rules rank none of): never "Popular picks are ."
            return SPEAK["ask_choice_unnamed"].format(group=group.lower(), target=target)
        if len(options) == 1 and not actions.get("more_options"):  # one to have: a yes takes it
            return SPEAK["ask_choice_one"].format(option=options[0], target=target)
        return SPEAK["ask_choice"].format(group=group.lower(), target=target,
                                          options=join(options).replace(" and ", " or "),
                                          more=SPEAK["ask_choice_more"] if actions.get("more_options") else
                                          SPEAK["ask_choice_none"] if actions.get("none_allowed") else "")

    @staticmethod
    def recommendation(actions: Atoms) -> str:
        dishes = [r.food for r in rows_of(actions, Recommend) if r.kind == "category"]
        if dishes:
            return SPEAK["suggest_dish"].format(dish=dishes[0])
        toppings = defaultdict(list)
        for r in rows_of(actions, Recommend):
            toppings[r.kind].append(r.food)
        for target, names in toppings.items():
            dish = target[len('upgrade("'):-2]
            return SPEAK["suggest_toppings"].format(toppings=join(names), dish=dish)
        return SPEAK["suggest_nothing"]

    def answer(self, actions: Atoms) -> str:
        facts: dict[tuple, list] = defaultdict(list)
        for a in rows_of(actions, Answer):
            facts[(a.food, a.about)].append(a.value)
        out = [self.answered(f, prop, values, actions) for (f, prop), values in facts.items()]
        out += self.explanation(actions)
        if actions.get("explain") and ("order", "total") not in facts and actions.get("discount"):
            out.append(self.discount_text(actions, "deal_why_off"))  # the order's discount too
        said = REPLIES["answer"]
        out += [said["none_all"] if n.food == "all" else said["none"].format(kind=n.kind, food=n.food)
                for n in rows_of(actions, NoAnswer)]
        return " ".join(o for o in out if o)

    def answered(self, f: str, prop: Any, values: list, actions: Atoms) -> str:
        """One answer/3 group (an item, what was asked of it, its values) as the replies file words it."""
        if isinstance(prop, tuple):
            return self.answered_of(f, prop, values)
        said, everything = REPLIES["answer"], f == "all"
        items = join(sorted(str(v) for v in values))
        if prop == "not_served":
            confirm = REPLIES["confirm"]
            return confirm["not_served_all"].format(foods=items) if everything else \
                confirm["not_served_answer"].format(**served_hours(values))
        if prop == "overview":
            return self.overview(values)
        if prop == "contains":  # a meal's parts and choices, each with how many: "3 Tenders and a Side"
            parts = sorted(values, key=lambda v: (v[0] in self.menu.groups, v[0]))  # its fixed parts first
            return said["contains"].format(food=f, items=join([pieces(x, n) if x not in self.menu.groups else self.count(x, n)
                                                               for x, n in parts]))
        if prop == "deal":
            deals = [rule_text(rule) for v in values if (rule := read_rule(v))]
            return REPLIES["confirm"]["deals"].format(deals=join(deals)) if deals else REPLIES["confirm"]["no_deals"]
        if prop == "size" and values != ["one"]:
            sizes = join(list(dict.fromkeys(self.option_said("size", o)
                                            for o, _ in sorted(values, key=lambda v: (v[1], v[0])))))
            return said["size_kind" if f in self.menu.categories else "size"].format(food=f, foods=plural(f, 2),
                                                                                       sizes=sizes)
        key = {"size": "size_one", "available": "available_all" if everything else "available",
               "unavailable": "unavailable_all" if everything else "unavailable"}.get(prop, prop)
        if key not in said:
            return ""
        first = values[0]  # a price, a count of calories or what ran out
        discount = self.discount_text(actions) + self.tax_text(actions) if prop == "total" else ""
        return said[key].format(food=f, foods=plural(f, 2), items=items, choices=items.replace(" and ", " or "),
                                price=dollars(first) if isinstance(first, int) else "", calories=first,
                                ingredient=first, discount=discount)

    @staticmethod
    def overview(values: list) -> str:
        """The menu's kinds, the one with the most popular food first, each with its few foods."""
        kinds: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for kind, rank, food in values:
            kinds[kind].append((rank, food))
        said = REPLIES["answer"]
        return said["overview"].format(kinds=join([
            said["overview_kind"].format(foods=plural(kind, 2), items=join([food for _, food in sorted(foods)]))
            for kind, foods in sorted(kinds.items(), key=lambda k: (min(k[1]), k[0]))]))

    def answered_of(self, f: str, prop: tuple, values: list) -> str:
        """An answer about a number of an item, a size, an option or a deal day (a tuple property)."""
        said, kind = REPLIES["answer"], prop[0]
        if kind in ("price_for", "calories_for"):
            n, size = prop[1], prop[2]
            what = count(f"{size} {f}" if size != "none" else f, n)
            text = said[f"{kind}_{'many' if n > 1 else 'one'}"].format(what=what, price=dollars(values[0]),
                                                                         calories=values[0])
        elif kind == "deal_today":
            text = REPLIES["confirm"]["deal_price_asked"].format(day=REPLIES["confirm"]["deal_day"].get(prop[1], ""),
                                                                 price=dollars(values[0]))
        elif kind in ("extra_for", "price_with"):
            option = self.option_said(self.group_of(f, prop[1]), prop[1])
            key = kind if kind == "price_with" or values[0] > 0 else "extra_for_free" if values[0] == 0 \
                else "extra_for_less"
            text = said[key].format(option=option, food=f, price=dollars(abs(values[0])))
        elif kind == "option_values":
            options = list(dict.fromkeys(self.option_said(prop[1], o) for o, _ in sorted(values, key=lambda v: (v[1], v[0]))))
            text = said["option_values"].format(food=f, options=join(options))
        else:
            return ""
        return text[0].upper() + text[1:]

    def check(self, actions: Atoms) -> str:
        """The priced summary: equal units grouped, in the order they were said."""
        return SPEAK["summary"].format(lines=join(self.lines(actions)), total=dollars(rows_of(actions, Total)[0].cents),
                                       discount=self.discount_text(actions) + self.tax_text(actions))

    def lines(self, actions: Atoms) -> list[str]:
        return [f"{self.count(line.name, line.quantity)}" + (f" ({line.modifiers})" if line.modifiers else "") +
                f" at {dollars(line.unit_price)}" + (" each" if line.quantity > 1 else "")
                for line in self.groups(rows_of(actions, Priced), rows_of(actions, Detail))]

    def groups(self, priced: Sequence[Priced | BoardUnit], changes: Sequence[Detail | BoardDetail]) -> list[OrderLine]:
        """The priced units (check/3 and detail/3, or board/3 and board_detail/3) as lines of equal
        units, in the order said. Options said before the name come first ("a large <drink>"); an
        item's default is not said."""
        details: dict[int, list[str]] = defaultdict(list)
        before: dict[int, list[str]] = defaultdict(list)
        food_of = {p.unit: p.food for p in priced}
        resized = {(d.unit, d.value[0]): self.option_said(*d.value[1]) for d in changes if d.kind == "pick_option"}
        for unit, kind, value in sorted((d.unit, d.kind, d.value) for d in changes):
            if kind == "option" and value[2] == "yes" and self.worth_saying(food_of.get(unit), *value[:2]):
                text = self.option_said(value[0], value[1])
                (before if value[0] in self.menu.said_before_name else details)[unit].append(text)
            elif kind in CHANGE_WORDS:
                details[unit].append(("with " if kind in ("add", "plain") else "") + change_words(kind, value))
            elif kind == "choice":  # a large meal's large fries
                size = resized.get((unit, value))
                details[unit].append(f"with {size} {value[2]}" if size else f"with {value[2]}")
            elif kind == "no_pick":  # an optional choice the customer went without
                details[unit].append(REPLIES["confirm"]["no_pick"].format(choice=value[0].lower()))
            elif kind in ("deal", "free"):  # a manager's promotion: the deal price's days, the free item's combo
                details[unit].append(REPLIES["confirm"]["deal_detail_" + kind].format(
                    days=days_text(value) if kind == "deal" else "", combo=value))
        lines: dict[tuple, OrderLine] = {}
        for unit, food, price in sorted((p.unit, p.food, p.cents) for p in priced):
            key = (" ".join([*before[unit], food]), ", ".join(sorted(details[unit])), price)
            line = lines.setdefault(key, OrderLine(key[0], food, key[1], price))
            line.quantity += 1
        return list(lines.values())

    def units_told_apart(self, actions: Atoms, units: set[int]) -> list[str]:
        """'the large X with Y', 'the small X with Z': the units of the order
        (board/3, board_detail/3) a question is about, each as it differs; [] if they read alike."""
        lines = self.groups([b for b in rows_of(actions, BoardUnit) if b.unit in units],
                            [d for d in rows_of(actions, BoardDetail) if d.unit in units])
        said = [f"the {line.name}" + (f" {line.modifiers}" if line.modifiers.startswith("with") else
                                      f" ({line.modifiers})" if line.modifiers else "") for line in lines]
        return said if len(set(said)) > 1 else []

    def explanation(self, actions: Atoms) -> list[str]:
        """Why a unit costs what it does, from the pricing rules' parts (explain/5)."""
        parts: dict[tuple, list[tuple]] = defaultdict(list)
        for unit, food, kind, what, cents in sorted((p.unit, p.food, p.kind, p.what, p.cents)
                                                    for p in rows_of(actions, PricePart)):
            if cents or kind == "base":  # what costs nothing does not explain a price
                parts[(unit, food)].append((kind, what, cents))
        said, out = set(), []
        plain = [key for key, rows in parts.items() if len(rows) == 1]
        if len(parts) > 1 and plain:  # the whole order: what was added is what needs saying
            parts = {key: rows for key, rows in parts.items() if key not in plain}
            out.append(SPEAK["menu_price_rest" if parts else "menu_price_all"])
        for (_unit, food), rows in parts.items():
            words = [REPLIES["confirm"]["deal_part_off"].format(amount=dollars(-c), what=self.part_name(food, k, w)) if c < 0
                     else SPEAK["part_price"].format(price=dollars(c), what=self.part_name(food, k, w)) for k, w, c in
                     sorted(rows, key=lambda r: r[0] != "base")]
            sentence = SPEAK["why_parts"].format(food=food, price=dollars(sum(c for _, _, c in rows)), parts=join(words)) \
                if len(rows) > 1 else SPEAK["why_plain"].format(food=food, price=dollars(rows[0][2]))
            if sentence not in said:
                said.add(sentence)
                out.insert(len(said) - 1, sentence)
        return out

    def part_name(self, food: str, kind: str, what) -> str:
        if kind == "base":
            return f"the {food} itself"
        if kind == "change":
            return f"{what[1]} instead of {what[0]}"
        if kind in ("deal", "free"):  # a manager's promotion: the deal price's days, the free item's combo
            return str(REPLIES["confirm"]["deal_part_" + kind].format(days=days_text(what) if kind == "deal" else "",
                                                               combo=what, food=food))
        if kind == "option":  # "fresco style", "thin crust", "the large size"
            text = self.option_said(*what)
            return text if what[0] in text.split() else f"the {text} {what[0]}"
        return {"add": f"adding {what}", "extra": f"extra {what}", "choice": f"choosing {what}"}.get(kind, str(what))
