"""The dialogue acts both bots read: what a sentence was understood to say, one typed class per
shape (clorm style, `terms.Term`). The offline parsers and the LLM reader make them; each bot's
boundary (`bots/base.py`) turns them into its rules' input facts `new_<name>(fields...)`, which
its .lp file documents.

An act prints as it is logged in transcripts and reports: `order('Garden Bowl', 2)`, its name
without `new_` and without the order line it belongs to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from .reasoner import Const, Value
from .terms import Term, predicate


class Act(Term):
    """One thing a sentence says. `line` (customer acts that have it): which order line of the
    sentence it belongs to, 0 for none."""

    vocab_name: ClassVar[str] = ""  # its name in the vocabulary: the bot reads it as new_<vocab_name>

    def __str__(self) -> str:
        shown = [show(getattr(self, field)) for field in self.fields if field != "line"]
        return f"{self.vocab_name}({', '.join(shown)})" if shown else self.vocab_name


A = TypeVar("A", bound=Act)


def show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, (Const, int)):
        return str(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(show(part) for part in value) + ")"
    return repr(value)


def act(name: str) -> Callable[[type[A]], type[A]]:
    """Declare the act `name`: the bot reads it as the fact `new_<name>`."""

    def declare(cls: type[A]) -> type[A]:
        cls.vocab_name = name
        return predicate("new_" + name)(cls)

    return declare


# Said by customers and managers alike: answers to the bot's question, leaving, nothing to act on.
@act("accept")
class Accept(Act):
    """Yes to the bot's last question."""


@act("decline")
class Decline(Act):
    """No to the bot's last question."""


@act("cancel")
class Cancel(Act):
    """Drop the whole order (customer); abandon the item being added (manager)."""


@act("quit")
class Quit(Act):
    """The person leaves."""


@act("irrelevant")
class Irrelevant(Act):
    """Nothing the bot can act on."""


@act("unsure")
class Unsure(Act):
    """Words of the line no reading took: its changes are said back first, not made."""


# The customer's acts (assistant.lp's header says what each means).
@act("order")
class Order(Act):
    food: str
    quantity: int
    line: int = 0


@act("specify")
class Specify(Act):
    combo: str
    dish: str
    line: int = 0


@act("update")
class Update(Act):
    """An option of the dish: operation add|no|less|extra|regular|unsay on an ingredient,
    change (old, new), option (group, value, yes|no)."""

    dish: str
    operation: Const
    option: Value
    line: int = 0


@act("update")
class UpdateUnits(Act):
    """An `Update` of only `units` of the dish's units."""

    dish: str
    operation: Const
    option: Value
    units: int
    line: int = 0


@act("need_recommend")
class NeedRecommend(Act):
    content: str
    type: Const  # category | upgrade


@act("query")
class Query(Act):
    kind: Const
    food: str
    quantity: int
    size: str | None


@act("remove")
class Remove(Act):
    food: str
    quantity: int | Const  # Const all: every unit


@act("set_quantity")
class SetQuantity(Act):
    food: str
    quantity: int
    line: int = 0


@act("replace")
class Replace(Act):
    old: str
    new: str
    line: int = 0


@act("copy")
class Copy(Act):
    food: str
    quantity: int | Const  # Const all: each unit of food once more
    line: int = 0


@act("refer")
class Refer(Act):
    kind: Const
    value: Value
    line: int = 0


@act("either")
class Either(Act):
    first: str
    second: str


@act("guess")
class Guess(Act):
    """A name only close to food: asked about (from the name matcher, never said by an LLM)."""

    food: str


@act("vague")
class Vague(Act):
    kind: str
    quantity: int


@act("greet")
class Greet(Act):
    kind: Const


@act("unknown")
class Unknown(Act):
    """The position-th name said is not on the menu."""

    position: int


@act("bare_list")
class BareList(Act):
    """The line's foods were said as a bare list or after "with" ("fries and a coke", "with
    fries"), no word saying they are more ("and a coke", "also"): right after a meal they are its
    picks. Without it, such foods are asked about."""


@act("complete")
class Complete(Act):
    """Nothing more to order."""


@act("stop")
class Stop(Act):
    """Add nothing more."""


@act("wrong")
class Wrong(Act):
    """The last line was misunderstood, and no fix said: nothing changes, the bot asks what to change."""


@act("review")
class Review(Act):
    """The order read back (a lane's review button)."""


# The manager's acts (admin.lp's header says what each means; each fact ends with the act's
# position in the sentence, added at the boundary).
@act("runout")
class Runout(Act):
    food: str


@act("runout")
class RunoutAs(Act):
    """Food ran out, said with the words of the dish `said_as`."""

    food: str
    said_as: str


@act("restore")
class Restore(Act):
    food: str


@act("restore")
class RestoreAs(Act):
    """Food is back; the same words also name `said_as`."""

    food: str
    said_as: str


@act("add")
class AddNew(Act):
    type: Const  # dish | combo | ingredient | sauce
    item: str


@act("add")
class AddUntyped(Act):
    """Something new whose type was not said."""

    item: str


@act("add")
class Add(Act):
    item: str
    property: Const
    value: Value


@act("edit")
class Edit(Act):
    item: str
    property: Const
    value: Value


@act("edit")
class EditSwap(Act):
    item: str
    property: Const
    old: Value
    new: Value


@act("delete")
class Delete(Act):
    item: str


@act("delete")
class DeleteAll(Act):
    item: str
    property: Const


@act("delete")
class DeleteValue(Act):
    item: str
    property: Const
    value: Value


@act("save")
class Save(Act):
    """Apply the pending menu changes now."""


@act("undo")
class Undo(Act):
    """Take back the last change."""


@act("undo")
class UndoItem(Act):
    """Drop every pending change to item."""

    item: str


@act("correct")
class Correct(Act):
    """The last turn's change was meant for this item instead."""

    item: str


@act("query")
class Ask(Act):
    """A manager's question: out, pending, rules, or price|calories|ingredient of item."""

    kind: Const
    item: str


@act("store_price")
class StorePrice(Act):
    """This store's own price of a menu item."""

    item: str
    cents: int


@act("chain_price")
class ChainPrice(Act):
    """The chain menu's price again in this store."""

    item: str


# Store rules, with the fields of automanager/rules.py (minutes after midnight, weekday masks,
# cents).
@act("rule_limit")
class RuleLimit(Act):
    scope: Const
    target: str
    most: int


@act("rule_hours")
class RuleHours(Act):
    scope: Const
    target: str
    start: int
    end: int
    days: int


@act("rule_deal_price")
class RuleDealPrice(Act):
    item: str
    cents: int
    days: int


@act("rule_deal_off")
class RuleDealOff(Act):
    kind: Const
    amount: int
    over: int


@act("rule_deal_free")
class RuleDealFree(Act):
    combo: str
    item: str


@act("rule_instead")
class RuleInstead(Act):
    out: str
    offer: str


@act("rule_suggest")
class RuleSuggest(Act):
    given: str
    offer: str


@act("rule_drop")
class RuleDrop(Act):
    """The rule so described dropped: kind any, named "all", number 0 and days 0 when not said."""

    kind: Const
    named: str
    number: int
    days: int


@act("rule_unclear")
class RuleUnclear(Act):
    """A line with a rule's cue the offline parser could not read as one."""


ANSWERS = (Accept, Decline, Cancel, Quit, Irrelevant, Unsure)
CUSTOMER_ACTS = (*ANSWERS, Order, Specify, Update, UpdateUnits, NeedRecommend, Query, Remove, SetQuantity, Replace,
                 Copy, Refer, Either, Guess, Vague, Greet, Unknown, Complete, Stop, Wrong, Review, BareList)
RULE_ACTS = (RuleLimit, RuleHours, RuleDealPrice, RuleDealOff, RuleDealFree, RuleInstead, RuleSuggest, RuleDrop,
             RuleUnclear)
MANAGER_ACTS = (*ANSWERS, Runout, RunoutAs, Restore, RestoreAs, AddNew, AddUntyped, Add, Edit, EditSwap, Delete,
                DeleteAll, DeleteValue, Save, Undo, UndoItem, Correct, Ask, StorePrice, ChainPrice, *RULE_ACTS)

# The acts that change the order: on a line only half heard (unsure) they are asked about first
# (assistant.lp keeps them as pending and a yes makes them).
CHANGES = (Order, Specify, Update, UpdateUnits, Remove, SetQuantity, Copy, Refer, Replace)

# The acts without fields, by the name a vocabulary form gives them.
BARE = {cls.vocab_name: cls for cls in (*CUSTOMER_ACTS, *MANAGER_ACTS) if not cls.fields}
