"""Every confirmation the rules can derive has a typed class and a reply, on both packs; and the
replies read from data say what they should for typed outputs in."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from clingo import ast

from automanager import paths
from automanager.language import customer_templates, manager_templates, outputs
from automanager.language.customer_templates import CustomerTemplates, dollars
from automanager.language.manager_templates import ManagerTemplates
from automanager.menu.model import Menu

BOTS = Path(__file__).resolve().parent.parent / "automanager" / "bots"
PACKS = [paths.data_dir("kb"), paths.data_dir("kb") / "packs" / "pizza"]


def constant(node: ast.AST) -> str | None:
    """The name of a constant term of a rule, else None."""
    if node.ast_type == ast.ASTType.SymbolicTerm and not node.symbol.arguments and node.symbol.name:
        return str(node.symbol.name)
    return None


def confirm_heads(program: Path, tag_at: int, name: str = "confirm") -> set[tuple[str, int]]:
    """(kind, fields after the kind) of every rule head confirm(...) (or `name`) with a constant kind."""
    found: set[tuple[str, int]] = set()

    def visit(statement: ast.AST) -> None:
        if statement.ast_type != ast.ASTType.Rule or statement.head.ast_type != ast.ASTType.Literal:
            return
        symbol = statement.head.atom.symbol
        if symbol.ast_type == ast.ASTType.Function and symbol.name == name:
            kind = constant(symbol.arguments[tag_at])
            if kind is None and name == "reject":
                return  # reject(K, R, V) :- bad_value(K, R, V): its reasons are bad_value's
            assert kind, f"{program}: {symbol} has no constant kind"
            found.add((kind, len(symbol.arguments) - 1))

    ast.parse_files([str(program)], visit)
    return found


def test_every_assistant_confirmation_has_a_typed_class_and_a_reply():
    heads = confirm_heads(BOTS / "assistant.lp", 0)
    declared = {(kind, len(cls.fields)) for kind, cls in outputs.CUSTOMER.items()}
    assert heads == declared
    replies = customer_templates.REPLIES
    texts = replies["confirm"]
    said_with = {"order": texts["got_it"], "defaulted": texts["skipped_defaulted"],  # in another's sentence
                 "update": replies["update"], "rejected_update": replies["rejected_update"]}  # tables of their own
    for kind, _ in heads:  # a kind's text, or its variants (kind_variant)
        assert kind in texts or any(key.startswith(kind + "_") for key in texts) or said_with.get(kind), kind


def test_every_administrator_refusal_has_a_typed_class_and_a_reply():
    """reject(K, reason, ...) heads, and the reasons bad_value/3 passes on, each a class of
    outputs.REFUSALS with as many fields and a text of the [reject] table (or [rule_refused]'s)."""
    heads = confirm_heads(BOTS / "admin.lp", 1, "reject") | {(reason, 2) for reason, _ in
                                                             confirm_heads(BOTS / "admin.lp", 1, "bad_value")}
    declared = {(reason, len(cls.fields)) for reason, cls in outputs.REFUSALS.items()}
    assert heads == declared
    for reason, _ in heads:
        assert reason in manager_templates.REPLIES["reject"] or reason == "rule_refused", reason


def test_every_administrator_confirmation_has_a_typed_class_and_a_reply():
    heads = confirm_heads(BOTS / "admin.lp", 1)
    assert heads == set(outputs.MANAGER)
    texts = {**manager_templates.REPLIES["confirm"], "noted": manager_templates.REPLIES["noted"]}
    for kind, _ in heads:
        assert kind in texts or any(key.startswith(kind + "_") for key in texts), kind


def test_every_administrator_rejection_and_question_has_a_reply():
    program = (BOTS / "admin.lp").read_text(encoding="utf-8")
    replies = tomllib.loads((BOTS.parent / "language" / "manager_replies.toml").read_text(encoding="utf-8"))
    for section, predicate in (("reject", "reject"), ("question", "ask")):
        said: set[str] = set()

        def visit(statement: ast.AST, predicate: str = predicate, said: set[str] = said) -> None:
            if statement.ast_type == ast.ASTType.Rule and statement.head.ast_type == ast.ASTType.Literal:
                symbol = statement.head.atom.symbol
                if symbol.ast_type == ast.ASTType.Function and symbol.name == predicate:
                    kind = constant(symbol.arguments[1])
                    if kind:
                        said.add(kind)

        ast.parse_string(program, visit)
        assert said, section
        read_backs = {"stale", "confirm_price", "confirm_runout", "confirm_store_price", "confirm_alias"}  # readback_* texts
        assert said - read_backs <= set(replies[section]) | {"rule_refused"}, section


def test_every_reason_a_rule_is_refused_has_a_reply():
    """bad(Rule, Why) and the conflict of refused/2: each Why has its sentence in [rule_refused]."""
    program = (BOTS / "admin.lp").read_text(encoding="utf-8")
    replies = tomllib.loads((BOTS.parent / "language" / "manager_replies.toml").read_text(encoding="utf-8"))
    reasons = set(re.findall(r"^(?:bad|refused)\((?:\w+\([^)]*\)|\w+), ([a-z]\w*)", program, re.MULTILINE))
    assert {"not_on_menu", "conflict", "not_a_deal", "no_hours"} <= reasons
    assert reasons <= set(replies["rule_refused"])


@pytest.mark.parametrize("pack", PACKS, ids=["taco", "pizza"])
def test_assistant_replies_from_typed_outputs(pack):
    menu = Menu.load(paths.kb_files(pack))
    dish = sorted(name for (name,) in menu.facts["dish"])[0]
    templates = CustomerTemplates(menu)
    actions = {"mode": [("else",)], "confirm": [
        ("order", dish, 2, 1), ("unavailable", dish, "Lettuce"), ("removed", dish, "all"), ("either", "A", "B"),
        ("too_many", dish, 10**9, 8), ("greeting", "thanks")]}
    text = templates.render(actions, [], {dish: 2})
    assert text.startswith("You're welcome! Got it: two ")
    assert f"Sorry, we can't offer the {dish} right now: we've run out of Lettuce." in text
    assert f"I can't put that many of the {dish} on one order: the most is 8 per item." in text
    assert f"I've taken the {dish} off your order." in text
    assert "Which one would you like: the A or the B?" in text


def test_manager_replies_from_typed_outputs():
    templates = ManagerTemplates({"taco", "drink"}, 5000, 3000, "Soft Taco")
    text = templates.render({"mode": [("else",)], "confirm": [
        (1, "runout", "Lettuce", 4), (2, "changed", "Soft Taco", "price", 139, 159), (3, "added", "Garden Bowl", "dish"),
        (4, "stock_undone", "Tomatoes", "out")]})
    assert text == ("Marked Lettuce out: that takes 4 dishes off for customers until it is "
                    "back. The price of Soft Taco changes from $1.39 to $1.59 (pending). Added Garden Bowl as a new "
                    "dish; it goes on the menu when you save or say bye. Undone: Tomatoes is back in stock.")
    assert templates.render({"mode": [("else",)], "confirm": [(1, "runout", "Salt", 0)]}).startswith(
        "Marked Salt out: customers can't order it until it is back.")


@pytest.mark.parametrize("cents, said", [(-1401, "-$14.01"), (-5, "-$0.05"), (0, "$0.00"), (419, "$4.19")])
def test_a_negative_amount_keeps_its_sign_in_front(cents, said):
    assert dollars(cents) == said


def test_a_meal_question_with_no_popular_pick_to_name_names_none():
    templates = CustomerTemplates(Menu.load(paths.kb_files(PACKS[0])))
    asked = {"mode": [("ask",)], "ask": [("Meal", 'choice(1,"Drink",1)')]}
    assert templates.render(asked, [], {}) == "Which drink would you like with your Meal?"  # never "Popular picks are ."
    named = templates.render({**asked, "ask_option": [("Pepsi", 0), ("Water", 1)]}, [], {})
    assert named == "Which drink would you like with your Meal? Popular picks are Pepsi or Water."
