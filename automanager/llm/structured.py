"""Validated JSON predicates from an LLM -> typed acts (acts.py), every name checked against the KB.

The LLM emits data in the closed vocabulary (vocab.py); here each name is corrected to a KB
name (names.NameMatcher) or reported as not on the menu, and values get their types (cents,
constants). The result has the same shape as the offline parsers' output, so the bots cannot
tell where a parse came from.
"""

from __future__ import annotations

from typing import Any

from ..acts import (
    BARE,
    Act,
    Add,
    AddNew,
    AddUntyped,
    Ask,
    Copy,
    Correct,
    Delete,
    DeleteAll,
    DeleteValue,
    Edit,
    EditSwap,
    Either,
    Greet,
    Irrelevant,
    NeedRecommend,
    Order,
    Query,
    Refer,
    Remove,
    Replace,
    Restore,
    RuleDealFree,
    RuleDealOff,
    RuleDealPrice,
    RuleDrop,
    RuleHours,
    RuleInstead,
    RuleLimit,
    RuleSuggest,
    Runout,
    SetQuantity,
    Specify,
    Undo,
    UndoItem,
    Update,
    UpdateUnits,
    Vague,
)
from ..language.phrases import manager_phrases
from ..language.reading import (
    ManagerContext,
    ManagerParse,
    Parse,
    asked_not_taken,
    cents,
    clock_minutes,
    new_name,
    said_name,
)
from ..names import NameMatcher
from ..normalize import normalize
from ..reasoner import Const
from ..rules import EVERY_DAY, days_mask
from ..vocab import VocabError, bounded

SPECIAL_CONTENT = {"all", "combo"}  # besides the menu's categories and labels


def named(names: NameMatcher, said: str, kinds: tuple[str, ...], corrected: list) -> str | None:
    """The KB name `said` means among `kinds`: of the kind it is the exact name or alias of first
    (the sauce, not the side dish named after it), else of each kind in turn, as the offline
    parser reads a name."""
    exact = [kind for kind in kinds if (m := names.spelled(said, kind)) and m.how in ("exact", "alias")]
    for kind in exact[:1] or kinds:
        name = names.lookup(said, kind, corrected)
        if name:
            return name
    return None


def tidy(said: str) -> str:
    """A name the LLM gave, tidied to be said back as said ("X isn't on our menu", as the offline
    parser says it back); VocabError when no name is left in it ("!!!", "123"): a reply repeats
    names, never the LLM's noise."""
    name = said_name(said)
    if not name:
        raise VocabError(f"{said!r} is not a name")
    return name


class CustomerReader:
    """JSON forms of the customer vocabulary -> a `Parse`."""

    def __init__(self, names: NameMatcher):
        self.names = names
        self.menu = names.menu

    def read(self, forms: list[tuple[str, dict[str, Any]]]) -> Parse:
        result = Parse([], [], [])
        lines: dict[str, int] = {}
        for (name, f), group in zip(forms, reference_groups(forms)):
            key = f" {group}"  # a reference's own line, shared by the change of dish "" it goes with
            if about_units(name, f) and key not in lines:
                lines[key] = next_line(lines)
            lines[""] = lines.get(key, 0)
            said = self.act(name, f, result, lines)
            if said:
                result.acts.append(said)
        asked_not_taken(result)
        if not result.acts and not result.unknown:
            result.acts.append(Irrelevant())
        return result

    def item(self, said: str, result: Parse) -> str | None:
        return self.name(said, "item", result)

    def name(self, said: str, kind: str, result: Parse, *more: str) -> str | None:
        name = named(self.names, said, (kind, *more), result.corrected)
        if name is None:
            result.unknown.append(tidy(said))
        return name

    def act(self, name: str, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        """The act of one form, its names checked; None when a name is not on the menu (said
        back instead). `lines`: each food's order line so far, for the changes said with it."""
        if not f:
            return BARE[name]()
        readers = {"order": self.ordered,
                   "specify": self.specified,
                   "update": self.update,
                   "need_recommend": self.recommend,
                   "query": self.query,
                   "remove": self.removed,
                   "set_quantity": self.quantity_set,
                   "refer": self.refer,
                   "copy": self.copied,
                   "replace": self.replaced,
                   "either": self.either,
                   "greet": self.greet,
                   "vague": self.vague}
        if name not in readers:
            raise VocabError(f"{name} takes no fields")
        return readers[name](f, result, lines)

    def ordered(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        food = self.item(f["food"], result)
        if food is None:
            return None
        lines[food] = next_line(lines)  # a food ordered again: its newest line
        return Order(food, f["quantity"], lines[food])

    def specified(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        combo, dish = self.item(f["combo"], result), self.item(f["dish"], result)
        if not (combo and dish):
            return None
        lines[f"{combo} / {dish}"] = next_line(lines)  # each choice its own line: one combo unit each
        return Specify(combo, dish, lines[f"{combo} / {dish}"])

    def recommend(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        content = normalize(f["content"])
        if f["type"] == "upgrade":
            dish = self.item(f["content"], result)
            return NeedRecommend(dish, Const("upgrade")) if dish else None
        if content not in SPECIAL_CONTENT and content.rstrip("s") in self.menu.categories:
            content = content.rstrip("s")
        if content not in SPECIAL_CONTENT | self.menu.categories | self.menu.labels:
            raise VocabError(f"need_recommend content {f['content']!r} is not a category, a label "
                             f"({', '.join(sorted(self.menu.labels)) or 'none'}), all or combo")
        return NeedRecommend(content, Const("category"))

    def query(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        said = normalize(f["food"])
        food: str | None = said
        if said == "all" or f["kind"] == "menu" and said in SPECIAL_CONTENT | self.menu.labels:
            pass  # "what meals do you have", "what vegetarian stuff": combos, a label
        elif f["kind"] == "menu" and said.rstrip("s") in self.menu.categories:
            food = said.rstrip("s")
        else:
            food = self.name(f["food"], "item", result, "topping")  # "is the guac out?" asks of an ingredient
            if food is None:
                return None
        quantity = f.get("quantity") if isinstance(f.get("quantity"), int) and f["quantity"] > 0 else 1
        option = self.menu.option_words.get(normalize(f.get("size") or ""), ("", ""))[1]  # a size, or any option
        return Query(Const(f["kind"]), food, quantity, option or None)

    def removed(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        food = "" if f["food"] == "" else self.item(f["food"], result)  # "": the units referred to
        quantity = f["quantity"] if f["quantity"] is not None else Const("all")
        return Remove(food, quantity) if food is not None else None

    def quantity_set(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        food = self.item(f["food"], result)
        return SetQuantity(food, f["quantity"], lines.get(food, 0)) if food else None

    def copied(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        food = "all" if normalize(f["food"]) == "all" else self.item(f["food"], result)
        quantity = f["quantity"] if isinstance(f["quantity"], int) and f["quantity"] > 0 else \
            Const("all") if f["quantity"] is None and food != "all" else 1
        if not food:
            return None
        lines[food] = next_line(lines)  # a change said with a copy is the copy's ("the same again but small")
        return Copy(food, quantity, lines[food])

    def replaced(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        old, new = self.item(f["old"], result), self.item(f["new"], result)
        if not (old and new):
            return None
        lines[new] = next_line(lines)  # and one said with a replacement is the new unit's
        return Replace(old, new, lines[new])

    def either(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:  # two dishes or drinks, two toppings, or two values of an option ("medium or large")
        first, second = (self.menu.option_words.get(normalize(said), ("", ""))[1] or
                         self.name(said, "item", result, "topping") for said in (f["first"], f["second"]))
        return Either(first, second) if first and second else None

    def greet(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        return Greet(Const(f["kind"]))

    def vague(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:  # "some tacos": a kind of food, asked about
        word = normalize(f["kind"])
        kind = next((k for k in (word, word.removesuffix("s"), word.removesuffix("es")) if k in self.menu.categories),
                    None)
        if kind is None:
            raise VocabError(f"vague kind {f['kind']!r} is not a category")
        quantity = f["quantity"] if isinstance(f.get("quantity"), int) and f["quantity"] > 0 else 0
        return Vague(kind, quantity)

    def refer(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        """Which ordered units a change of dish "" is about: its own line, shared by that change."""
        kind, said = f["kind"], str(f["value"])
        value: str | int | None
        if kind == "bare":  # the order said just before it, with no food named ("a large one", "two large pepperoni")
            line = max(lines.values(), default=0)
            return Refer(Const(kind), next((a.quantity for a in result.acts if isinstance(a, Order) and a.line == line),
                                           1), line)
        if kind == "recent":
            value = 1
        elif kind in ("nth", "one", "alike", "last", "other", "all"):  # a position or a count (assistant.lp)
            value = int(said) if said.lstrip("-").isdigit() else None
        elif kind == "category":
            value = normalize(said).rstrip("s") if normalize(said).rstrip("s") in self.menu.categories else None
        elif kind == "option":
            value = self.menu.option_words.get(normalize(said), ("", None))[1]
        elif kind == "word":
            value = normalize(said) or None
        else:
            value = self.name(said, "item" if kind == "food" else "topping", result)
        if value is None:
            raise VocabError(f"refer {kind}: {said!r} is nothing the order can be told apart by")
        return Refer(Const(kind), value, lines[""])

    def update(self, f: dict[str, Any], result: Parse, lines: dict[str, int]) -> Act | None:
        dish = "" if f["dish"] == "" else self.item(f["dish"], result)  # "": the units referred to
        if dish is None:
            return None
        op, option = f["operation"], normalize(f["option"])
        line = lines.get(dish, 0)
        if op == "option":
            if option not in self.menu.option_words:
                raise VocabError(f"update option: {f['option']!r} is no size, style or option on this menu")
            group, value = self.menu.option_words[option]
            wanted = normalize(f.get("new_option") or "") != "no"
            return Update(dish, Const("option"), (Const(group), value, Const("yes" if wanted else "no")), line)
        if op == "change":
            if not f["new_option"]:
                raise VocabError("update change needs new_option, the ingredient that replaces option")
            new = self.name(f["new_option"], "topping", result)  # option "": the one like it (assistant.lp instead)
            old = self.name(f["option"], "topping", result) if str(f["option"]).strip() else ""
            return Update(dish, Const("change"), (old, new), line) if old is not None and new else None
        topping = self.name(f["option"], "topping", result)
        units = f.get("units")
        if topping and isinstance(units, int) and units > 0 and not line:
            return UpdateUnits(dish, Const(op), topping, units, line)  # on that many units only
        return Update(dish, Const(op), topping, line) if topping else None


def about_units(name: str, f: dict[str, Any]) -> bool:
    """A reference, or a change of dish "": what the references of its line pick (a bare order's
    reference is that order's own line)."""
    return name == "refer" and f.get("kind") != "bare" or name == "update" and f["dish"] == ""


def reference_groups(forms: list[tuple[str, dict[str, Any]]]) -> list[int]:
    """Which references and changes of dish "" go together: said one after the other, in either
    order ("the first one, no onions", "no onions or lettuce on the first one"); a group said
    reference first ends at a reference after its change, one said change first at a change after
    its reference ("onions on the first and peppers on the second", either way)."""
    out, group, started, referred, changed = [], 0, "", False, False
    for name, f in forms:
        if about_units(name, f):
            kind = "refer" if name == "refer" else "change"
            if referred and changed and kind == started:
                group, started, referred, changed = group + 1, "", False, False
            started = started or kind
            referred, changed = referred or kind == "refer", changed or kind == "change"
        out.append(group)
    return out


def next_line(lines: dict[str, int]) -> int:
    """The next order line of a sentence: after every line given so far, so none is shared."""
    return 1 + max(lines.values(), default=0)


class ManagerReader:
    """JSON forms of the manager vocabulary -> a `ManagerParse`."""

    def __init__(self, names: NameMatcher):
        self.names = names
        self.menu = names.menu
        self.groups = {normalize(g): g for g in self.menu.groups}

    def read(self, forms: list[tuple[str, dict[str, Any]]], ctx: ManagerContext) -> ManagerParse:
        result = ManagerParse([])
        for name, f in forms:
            result.acts.append(self.act(name, f, ctx, result))
        if not result.acts:
            result.acts.append(Irrelevant())
        return result

    def known(self, said: str, kind: str, result: ManagerParse) -> str | None:
        return self.names.lookup(said, kind, result.corrected)

    def food(self, said: str, ctx: ManagerContext, result: ManagerParse) -> str:
        """A KB name, the item being added, or a new name as said (the CKT says if it is unknown)."""
        if ctx.building and normalize(said) == normalize(ctx.building):
            return ctx.building
        found = named(self.names, said, ("item", "topping"), result.corrected) or new_name(said)
        if not found:
            raise VocabError(f"{said!r} is not a name")
        return found

    def topping(self, said: str, result: ManagerParse) -> str:
        found = self.known(said, "topping", result) or new_name(said)
        if not found:
            raise VocabError(f"{said!r} is not an ingredient name")
        return found

    def value(self, prop: str, said: str, count: int | None, result: ManagerParse) -> Any:
        if prop in ("price", "price_by"):
            price = cents(str(said), bare_is_price=True)
            if price is None:
                raise VocabError(f"price {said!r} is not an amount in dollars")
            return price
        if prop == "calories":
            try:
                return bounded(str(said).split()[0])
            except (ValueError, IndexError):
                raise VocabError(f"calories {said!r} is not a number") from None
        if prop == "category":
            category = normalize(tidy(said))
            return category.rstrip("s") if category.rstrip("s") in self.menu.categories else category
        if prop == "popular" and normalize(said) in ("none", "nothing", "no"):
            return Const("none")
        if prop == "alias":  # the phrase customers say, as said (the administrator normalizes it)
            return str(said)
        if prop == "contains":
            item = self.groups.get(normalize(said)) or self.groups.get(normalize(said).rstrip("s")) or \
                self.known(said, "item", result) or tidy(said)
            return item, count or 1
        return self.topping(said, result)

    def act(self, name: str, f: dict[str, Any], ctx: ManagerContext, result: ManagerParse) -> Act:
        if not f:
            return BARE[name]()
        if name.startswith("rule_"):
            return self.rule(name, f, result)
        if name == "query" and f["kind"] == "rules":
            return Ask(Const("rules"), "all")
        if name in ("runout", "restore"):
            return (Runout if name == "runout" else Restore)(self.food(f["food"], ctx, result))
        if name == "add_new":
            said = new_name(f["name"])
            if not said:
                raise VocabError(f"{f['name']!r} is not a name for a new item")
            return AddNew(Const(f["type"]), said) if f["type"] else AddUntyped(said)
        if name == "delete":
            return Delete(self.food(f["name"], ctx, result))
        if name == "undo":
            return UndoItem(self.food(f["name"], ctx, result)) if f["name"] else Undo()
        if name == "correct":
            return Correct(self.food(f["name"], ctx, result))
        if name == "query":
            named = f["kind"] == "out" and normalize(f["name"]) not in ("all", "")  # "is the steak out?"
            about = self.food(f["name"], ctx, result) if named or f["kind"] not in ("out", "pending") else "all"
            return Ask(Const(f["kind"]), about)
        item = self.food(f["name"], ctx, result)
        prop = f["property"]
        if name in ("add", "edit"):
            return (Add if name == "add" else Edit)(item, Const(prop), self.value(prop, f["value"], f.get("count"), result))
        if name == "edit_swap":
            old, new = self.value(prop, f["old"], 1, result), self.value(prop, f["new"], 1, result)
            return EditSwap(item, Const(prop), old, new)
        if name == "delete_value":
            return DeleteValue(item, Const(prop), self.value(prop, f["value"], 1, result))
        return DeleteAll(item, Const(prop))  # delete_all

    # -- store rules (the rules vocabulary, vocab.RULES): names checked, times, days and money typed
    def rule(self, name: str, f: dict[str, Any], result: ManagerParse) -> Act:
        if name == "rule_limit":
            target = "all" if f["scope"] in ("any_item", "total") else self.subject(f["scope"], f["target"], result)
            return RuleLimit(Const(f["scope"]), target, bounded(f["most"]))
        if name == "rule_hours":
            start, end = self.clock(f["start"], 0), self.clock(f["end"], 1440)
            return RuleHours(Const(f["scope"]), self.subject(f["scope"], f["target"], result), start, end,
                             self.days(f["days"]))
        if name == "rule_deal_price":
            return RuleDealPrice(self.item(f["item"], result), self.money(f["price"]), self.days(f["days"]))
        if name == "rule_deal_off":
            amount = self.number(f["amount"]) if f["kind"] == "percent" else self.money(f["amount"])
            return RuleDealOff(Const(f["kind"]), amount, self.money(f["over"]) if f["over"] else 0)
        if name == "rule_deal_free":
            return RuleDealFree(self.subject("category", f["combo"], result), self.item(f["item"], result))
        if name == "rule_instead":
            return RuleInstead(self.any_name(f["out"], result), self.any_name(f["offer"], result))
        if name == "rule_suggest":
            return RuleSuggest(self.subject("category", f["given"], result), self.item(f["offer"], result))
        named = self.any_name(f["name"], result) if f["name"] else "all"
        number = (self.money(f["number"]) if "$" in f["number"] or "." in f["number"] else self.number(f["number"])) \
            if f["number"] else 0
        return RuleDrop(Const(f["kind"]), named, number, self.days(f["days"]) if f["days"] else 0)

    def subject(self, scope: str, said: str, result: ManagerParse) -> str:
        """An item, or for a category scope a category of the menu or 'combo' (any combo)."""
        word = normalize(tidy(said))
        if scope == "category":
            if word.rstrip("s") in ("combo", "any combo", "combo meal", "meal", "any meal"):
                return "combo"
            for category in (word, word.rstrip("s")):
                if category in self.menu.categories:
                    return category
        return self.item(said, result)

    def item(self, said: str, result: ManagerParse) -> str:
        found = self.known(said, "item", result)
        if not found:
            raise VocabError(f"{said!r} is not a dish or combo on the menu")
        return found

    def any_name(self, said: str, result: ManagerParse) -> str:
        found = named(self.names, said, ("item", "topping"), result.corrected)
        if not found:
            raise VocabError(f"{said!r} is not on the menu")
        return found

    @staticmethod
    def clock(said: str | None, default: int) -> int:
        if not said:
            return default
        minute = clock_minutes(said)
        if minute is None:
            raise VocabError(f"{said!r} is not a time of day")
        return minute

    @staticmethod
    def days(said: str | None) -> int:
        if not said:
            return EVERY_DAY
        words = manager_phrases().weekdays
        text = normalize(said)
        named = [day for word, days in words.items() if f" {word} " in f" {text} " for day in days]
        if not named:
            raise VocabError(f"{said!r} names no weekday")
        return days_mask(named)

    @staticmethod
    def money(said: str) -> int:
        price = cents(str(said), bare_is_price=True)
        if price is None:
            raise VocabError(f"{said!r} is not an amount in dollars")
        return price

    @staticmethod
    def number(said: str) -> int:
        try:
            return bounded(str(said).strip().rstrip("%"))
        except ValueError:
            raise VocabError(f"{said!r} is not a number") from None
