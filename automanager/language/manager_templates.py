"""Template responses for the administrator: next-action predicates -> English.

Confirmations and rejections in the order the manager said things, then the question. Every
name and value comes from the predicates; nothing here decides anything.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ..reasoner import Atoms, value
from ..rules import read_rule
from ..terms import Term, parse, read
from ..vocab import MAX_NUMBER
from . import outputs
from .english import counted, dollars, join
from .rule_words import rule_text

REPLIES = tomllib.loads(Path(__file__).with_name("manager_replies.toml").read_text(encoding="utf-8"))
PROPERTY_NAMES = {prop: many for prop, (many, _one) in REPLIES["words"].items()}  # "ingredients"
NOTED_NAMES = {prop: one for prop, (_many, one) in REPLIES["words"].items()}  # "ingredient"


def show_value(prop: str, value) -> str:
    """A property value for people: prices in dollars, combo contents as 'count x item'."""
    if prop in ("price", "calories") and isinstance(value, str) and value.lstrip("-").isdigit():
        value = int(value)  # values read back from the audit log are text
    if prop in ("price", "calories") and isinstance(value, int) and abs(value) >= MAX_NUMBER:
        return "That amount" if prop == "price" else "That many"  # clamped: not the number said
    if prop == "price" and isinstance(value, int):
        return dollars(value)
    if prop == "contains" and isinstance(value, tuple):
        return f"{value[1]} x {value[0]}"
    return str(value)


class ManagerTemplates:
    def __init__(self, categories: set[str], max_price: int, max_calories: int, example: str):
        self.example = example  # a dish of this menu, for examples in help texts
        self.categories = join(sorted(categories))
        self.limits = {"limit": dollars(max_price), "cal_limit": max_calories, "cats": self.categories}

    def greeting(self) -> str:
        return str(REPLIES["greeting"])

    def render(self, actions: Atoms, note: str = "", hint: str = "") -> str:
        """Confirmations and rejections in sentence order, then `note` (what was applied), then
        the question or the goodbye."""
        confirmed = [read(outputs.MANAGER[(kind, len(rest) + 1)], (at, *rest)) for at, kind, *rest in actions.get("confirm", [])]
        refused = [read(outputs.REFUSALS[reason], (at, *rest)) for at, reason, *rest in actions.get("reject", [])]
        said: list[tuple[int, int, Term, bool]] = sorted(
            [(typed.field_values()[0], len(typed.fields) + 1, typed, False) for typed in confirmed]
            + [(typed.field_values()[0], len(typed.fields) + 1, typed, True) for typed in refused], key=lambda r: r[:2])
        parts: list[str] = []
        noted: dict[str, list[str]] = {}
        at = 0
        for _, _, output, is_refusal in said:
            if is_refusal:
                parts.append(self.rejection(output))
            elif isinstance(output, outputs.Noted):  # "Got it: ingredients beef and cheese."
                if not noted:
                    at = len(parts)
                noted.setdefault(output.property, []).append(show_value(output.property, output.value))
            elif isinstance(output, outputs.StockIs):  # what is out: one sentence, said at the first
                out = [c.item for c in confirmed if isinstance(c, outputs.StockIs)]
                if output.item == out[0]:
                    parts.append(self.confirmation(output, item=join(out)))
            elif isinstance(output, outputs.ValueIs):  # several values: one sentence, said at the first
                values = [c.value for c in confirmed
                          if isinstance(c, outputs.ValueIs) and (c.item, c.property) == (output.item, output.property)]
                if output.value == values[0]:
                    parts.append(self.confirmation(output, value=join([show_value(output.property, v)
                                                                       for v in values])))
            elif output.tag == "irrelevant" and hint:
                parts.append(hint)
            else:
                parts.append(self.confirmation(output))
        if noted:
            parts.insert(at, REPLIES["noted"].format(notes="; ".join(
                f"{PROPERTY_NAMES[prop] if len(values) > 1 or prop == 'calories' else NOTED_NAMES[prop]} "
                f"{join(values)}" for prop, values in noted.items())))
        parts.append(note)
        for ask in outputs.rows_of(actions, outputs.Ask):
            name, question = str(ask.target), ask.topic  # the item the question is about
            if question == "stale":
                parts.append(self.stale_question(outputs.rows_of(actions, outputs.Stale)[0]))
            elif question == "stale_delete":
                parts.append(self.stale_delete_question(name, outputs.rows_of(actions, outputs.Since)))
            elif question in ("confirm_price", "confirm_runout", "confirm_store_price", "confirm_rule",
                              "confirm_unrule", "confirm_alias", "confirm_giveaway"):
                parts += [self.readback(r) for r in outputs.rows_of(actions, outputs.Readback) if r.item == name]
            else:
                parts.append(REPLIES["question"][question].format(name, **self.limits))
        if any(m.mode == "quit" for m in outputs.rows_of(actions, outputs.Mode)):
            parts.append(REPLIES["goodbye"])
        elif not any(parts):
            parts.append(REPLIES["anything_else"])
        return " ".join(p for p in parts if p)

    @staticmethod
    def readback(said: outputs.Readback) -> str:
        """The question before a surprising change: exactly what would change, and how to answer."""
        name, what, a, b = said.item, said.what, said.old, said.new
        asked = REPLIES["question"]
        if what in ("price", "store_price"):
            move = asked["readback_price_move"].format(round(abs(b - a) * 100 / a), "cut" if b < a else "rise") \
                if a else ""
            return str(asked[f"readback_{what}"].format(name, dollars(a), dollars(b), move))
        if what in ("rule", "unrule", "giveaway"):
            return str(asked[f"readback_{what}"].format(said_rule(a)))
        if what == "alias":
            return str(asked["readback_alias"].format(name, a))
        return str(asked["readback_runout" if a else "readback_runout_none"].format(name, counted(a, "dish")))

    @staticmethod
    def unheard(words: list[str]) -> str:
        """What a half-heard line's question starts with: the words not understood."""
        return str(REPLIES["unheard"].format(words=join([f'"{w}"' for w in dict.fromkeys(words)])))

    @staticmethod
    def stale_question(stale: outputs.Stale) -> str:
        return str(REPLIES["question"]["stale"].format(stale.item, PROPERTY_NAMES[stale.property],
                                                       show_value(stale.property, stale.now),
                                                       show_value(stale.property, stale.new)))

    @staticmethod
    def stale_delete_question(name: str, since: list[outputs.Since]) -> str:
        """Asked before deleting an item another manager changed since; names what moved."""
        asked = REPLIES["question"]
        moved = join([asked["stale_delete_value"].format(PROPERTY_NAMES[s.property], show_value(s.property, s.now))
                      for s in since if s.item == name])
        return str(asked["stale_delete"].format(name, asked["stale_delete_what"].format(moved) if moved else ""))

    def rejection(self, refused: Term) -> str:
        """Why something said was refused, in its reason's words; values shown for people."""
        fields = dict(zip(refused.fields[1:], refused.field_values()[1:]))
        if refused.tag == "rule_refused":
            return self.rule_refusal(fields["rule"], fields["why"])
        if "price" in fields:
            fields["price"] = show_value("price", fields["price"])
        if "property" in fields:
            prop = fields["property"]
            fields["property"] = PROPERTY_NAMES.get(prop, prop)
            if "value" in fields:
                fields["value"] = show_value(prop, fields["value"])
        return str(REPLIES["reject"][str(refused.tag)].format(**fields, **self.limits))

    def rule_refusal(self, rule: Any, why: Any) -> str:
        """Why a rule said was not made: its canonical sentence and the reason, in words."""
        reason = parse(str(why))
        args = [said_rule(arg) if read_rule(arg) else show_number(reason.name, value(arg)) for arg in reason.arguments]
        return str(REPLIES["rule_refused"][reason.name].format(*args, rule=said_rule(rule), **self.limits))

    def confirmation(self, said: Term, **words: str) -> str:
        """The reply of one confirmation: its kind's text (or a variant of it) with its fields,
        values shown for people."""
        fields = dict(zip(said.fields, said.field_values()))
        prop = fields.get("property")
        for name in ("value", "old", "new", "now"):
            if name in fields and prop:
                fields[name] = show_value(prop, fields[name])
        if prop:
            fields["property"] = "ingredient" if said.tag == "changed" and prop == "ingredient" \
                else PROPERTY_NAMES[prop]
        if said.tag in ("kept_price", "chain_price"):
            fields["price"] = show_value("price", fields["price"])
        if said.tag == "store_price":
            fields["old"], fields["new"] = show_value("price", fields["old"]), show_value("price", fields["new"])
        if "rule" in fields:
            fields["rule"] = said_rule(fields["rule"])
        if isinstance(said, outputs.PendingIs):
            fields["change"] = describe(said.action, said.item, said.property, *[None if value == "none" else value
                                                                              for value in (said.old, said.new)])
        if "dishes" in fields and isinstance(fields["dishes"], int):
            fields["dishes"] = counted(fields["dishes"], "dish")
        key = str(said.tag)
        if isinstance(said, outputs.RunOut) and not said.dishes:
            key = "runout_none"
        elif said.tag == "added":
            key = "added_item" if isinstance(said, outputs.AddedItem) else "added_value"
        elif isinstance(said, outputs.StockUndone):
            key = f"stock_undone_{said.was}"
        return str(REPLIES["confirm"][key].format(**{**fields, **words}, example=self.example))


def said_rule(value: Any) -> str:
    """A rule (a term, or its text from the state or the audit log) in its canonical sentence."""
    rule = read_rule(value)
    return rule_text(rule) if rule else str(value)


def show_number(reason: str, number: Any) -> str:
    """A number a refusal names: cents in dollars for the price and amount reasons."""
    return dollars(number) if isinstance(number, int) and reason in CENTS_REASONS else str(number)


CENTS_REASONS = ("bad_deal_price", "not_a_deal", "off_over_total", "bad_over")


def describe(action: str, item: str, prop: str, old, new) -> str:
    """One staged or applied change in words, for /pending, /history and `automanager state`."""
    if prop == "stock":
        return f"{item} {'out of stock' if action == 'runout' else 'back in stock'}"
    if prop in ("dish", "combo", "ingredient", "sauce") and old is None and new is None:
        return f"{action} {prop} {item}"
    if prop == "item":
        return f"{action} {item}"
    if prop == "rule":
        return f"{'rule' if action == 'add' else 'drop the rule'}: {said_rule(new if action == 'add' else old)}"
    if prop == "alias":
        return f"{action} {item}: customers say \"{new if action == 'add' else old}\""
    if action in ("store_price", "chain_price"):  # a store's own price, or the chain menu's again
        said = "store price" if action == "store_price" else "back to the chain price"
        return f"{said} of {item}: {show_value('price', old)} -> {show_value('price', new)}"
    if action == "edit":
        return f"edit {item}: {PROPERTY_NAMES.get(prop, prop)} {show_value(prop, old)} -> {show_value(prop, new)}"
    shown = show_value(prop, new if action == "add" else old)
    return f"{action} {item}: {PROPERTY_NAMES.get(prop, prop)} {shown}"
