"""What the bots' rules say back, as typed predicates: each `confirm` kind that `assistant.lp`
and `admin.lp` can derive, and their other outputs (the question, answers, the priced order,
read-backs, the stock and store prices a manager's turn sets), declared once with the meaning of
each argument. The replies and the chats read these by field (`rows_of`), never a row's
positions (only the administrator's `reject(K, reason, ...)` is still read by position); the
test in tests/test_replies.py keeps the confirm kinds equal to the rules' heads.

The assistant's are `confirm(kind, ...)`; the administrator's `confirm(K, kind, ...)`, K the
place in the manager's sentence the confirmation answers (`at`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..reasoner import Const, Value
from ..rules import Rule
from ..terms import T, Term, predicate, read, read_all

# ---- the assistant: confirm(kind, ...) --------------------------------------------------------


@predicate("confirm", "order")
class Ordered(Term):
    food: str
    quantity: int
    line: int  # which order line of the sentence


@predicate("confirm", "unavailable")
class Unavailable(Term):
    food: str
    ingredient: str  # the first of what ran out


@predicate("confirm", "too_many")
class TooMany(Term):
    food: str
    quantity: int
    most: int  # the most of one item on an order


@predicate("confirm", "bad_quantity")
class BadQuantity(Term):
    food: str
    quantity: int


@predicate("confirm", "over_rule")
class OverRule(Term):
    scope: str  # a rule a manager stated: item, category, any_item or total
    target: str  # a dish or combo, a category (or "combo"), or "all"
    most: int  # at most this many per order


@predicate("confirm", "not_served")
class NotServed(Term):
    food: str  # refused: not served at this time of day or on this weekday
    rule: Rule  # the hours rule (automanager/rules.py Hours) that keeps it from being served now


@predicate("confirm", "deal_price")
class DealPriceOn(Term):
    food: str  # what this turn ordered, at a manager's deal price today
    price: int  # cents, each
    day: str  # today's weekday (mon..sun), or all: the deal holds every day


@predicate("confirm", "deal_free")
class DealFreeWith(Term):
    combo: str  # the combo the rule names, or "combo": any combo
    item: str  # the dish one unit of which is free with each such combo
    units: int  # how many units of it in the order are free


@predicate("confirm", "order_limit")
class OrderLimit(Term):
    most: int  # the most items on one order


@predicate("confirm", "update")
class Updated(Term):
    dish: str
    operation: str  # add, no, less, extra, change, option
    option: Any  # an ingredient; (old, new) for change; (group, value, yes|no) for option
    units: int  # how many of the dish it applies to


@predicate("confirm", "restored")
class Restored(Term):
    dish: str
    topping: str


@predicate("confirm", "rejected_update")
class RejectedUpdate(Term):
    dish: str
    operation: str
    option: Any
    reason: str


@predicate("confirm", "option_out")
class OptionOut(Term):
    dish: str
    group: str
    value: str  # refused: an option value that puts an ingredient that ran out on the dish
    ingredient: str  # the first of its ingredients that ran out


@predicate("confirm", "two_values")
class TwoValues(Term):
    dish: str
    group: str
    first: str  # two values of an exclusive group said for one unit: neither was applied
    second: str


@predicate("confirm", "specify")
class Specified(Term):
    combo: str
    dish: str


@predicate("confirm", "rejected_specify")
class RejectedSpecify(Term):
    combo: str
    dish: str
    reason: str  # not_ordered, not_a_choice, unavailable, no_open_slot


@predicate("confirm", "swapped")
class Swapped(Term):
    combo: str
    old: str
    dish: str


@predicate("confirm", "default_choice")
class DefaultChoice(Term):
    combo: str
    group: Any
    dish: str


@predicate("confirm", "skipped")
class Skipped(Term):
    group: Any
    topic: str  # options, or the option group asked about


@predicate("confirm", "defaulted")
class Defaulted(Term):
    group: str
    option: str


@predicate("confirm", "removed")
class Removed(Term):
    food: str
    count: Any  # a number of units, or all


@predicate("confirm", "not_in_order")
class NotInOrder(Term):
    food: str


@predicate("confirm", "quantity")
class QuantitySet(Term):
    food: str
    quantity: int


@predicate("confirm", "replaced")
class Replaced(Term):
    old: str
    new: str


@predicate("confirm", "ran_out")
class RanOut(Term):
    food: str
    ingredient: str


@predicate("confirm", "topping_ran_out")
class ToppingRanOut(Term):
    dish: str
    topping: str


@predicate("confirm", "option_ran_out")
class OptionRanOut(Term):
    dish: str
    group: str
    value: str  # taken off: an option value the dish had, out of one of its ingredients since
    ingredient: str  # the first of its ingredients that ran out


@predicate("confirm", "cancelled")
class Cancelled(Term):
    pass


@predicate("confirm", "stopped")
class Stopped(Term):
    pass


@predicate("confirm", "wrong")
class Misheard(Term):
    pass


@predicate("confirm", "irrelevant")
class NotUnderstood(Term):
    pass


@predicate("confirm", "empty_order")
class EmptyOrder(Term):
    pass


@predicate("confirm", "greeting")
class Greeting(Term):
    kind: str  # hello, how_are_you, thanks, noted (a line of talk around the order alone), wait


@predicate("confirm", "unknown")
class Unknown(Term):
    index: int  # which of the words said back as not on the menu


@predicate("confirm", "either")
class Either(Term):
    first: str
    second: str


@predicate("confirm", "copied")
class Copied(Term):
    food: str
    quantity: int


@predicate("confirm", "copied_changed")
class CopiedChanged(Term):
    """The copies were said with changes of their own ("another one but medium")."""


@predicate("confirm", "did_you_mean")
class DidYouMean(Term):
    food: str


@predicate("confirm", "not_on_it")
class NotOnIt(Term):
    """A dish ordered with an ingredient it never takes: nothing rung up, the dish alone offered."""
    dish: str
    topping: str


@predicate("confirm", "replace_unfounded")
class ReplaceUnfounded(Term):
    """A correction of a food the order does not have: nothing changed, the new food offered."""
    old: str
    new: str


@predicate("confirm", "which_one")
class WhichOne(Term):
    first: str  # the same food twice: units of one food made differently
    second: str


@predicate("confirm", "which_unit")
class WhichUnit(Term):
    unit: int  # a unit a reference said of one fits ("the large X with Y or the small one")


@predicate("confirm", "no_such_unit")
class NoSuchUnit(Term):
    pass


# substitutions and suggestions a manager stated (instead/2, suggest/2): the offer a bare yes takes
@predicate("confirm", "offer_instead")
class OfferInstead(Term):
    food: str  # refused: it, or what it needs, ran out
    offer: str  # offered in its place
    quantity: int  # as many as were asked for


@predicate("confirm", "offer_change")
class OfferChange(Term):
    food: str  # refused: an ingredient it needs ran out
    old: str  # that ingredient
    new: str  # the one the dish can be made with instead
    quantity: int  # as many as were asked for


@predicate("confirm", "offer_suggest")
class OfferSuggest(Term):
    given: str  # what the order has: an item, a category or "combo"
    offer: str  # one of it, offered with that


@predicate("confirm", "which_kind")
class WhichKind(Term):
    """A kind of food asked for without saying which: one of the few of it named in the question."""
    kind: str  # a category, or a food asked for with no count ("a few cokes")
    food: str  # one of its most popular foods ("" when none can be had now)


# a line only half heard: each change it would make, asked about rather than made
@predicate("confirm", "heard_order")
class HeardOrder(Term):
    food: str
    quantity: int


@predicate("confirm", "heard_specify")
class HeardSpecify(Term):
    combo: str
    dish: str


@predicate("confirm", "heard_update")
class HeardUpdate(Term):
    dish: str
    operation: str  # as Updated
    option: Any


@predicate("confirm", "heard_remove")
class HeardRemove(Term):
    food: str


@predicate("confirm", "heard_quantity")
class HeardQuantity(Term):
    food: str
    quantity: int


@predicate("confirm", "heard_copy")
class HeardCopy(Term):
    food: str  # or "all": the whole order again
    quantity: int


@predicate("confirm", "heard_replace")
class HeardReplace(Term):
    old: str
    new: str


@predicate("confirm", "heard_units")
class HeardUnits(Term):
    """A change of ordered units referred to ("the second one"), asked about as a whole."""


@predicate("confirm", "pick_or_own")
class PickOrOwn(Term):
    """A choice of an ordered combo said alone later: for the combo, or on its own? Asked."""
    combo: str
    dish: str


@predicate("confirm", "pick_left_off")
class PickLeftOff(Term):
    """That question unanswered twice: the dish is left off, and said to be."""
    dish: str


@predicate("confirm", "heard_dropped")
class HeardDropped(Term):
    """No to a half-heard change: the order stays as it was."""


HEARD = (HeardOrder, HeardSpecify, HeardUpdate, HeardRemove, HeardQuantity, HeardCopy, HeardReplace, HeardUnits)

CUSTOMER = {cls.tag: cls for cls in (*HEARD, HeardDropped, PickOrOwn, PickLeftOff, WhichKind,
    Ordered, Unavailable, TooMany, BadQuantity, OrderLimit, Updated, Restored, RejectedUpdate, OptionOut, TwoValues, Specified, OverRule,
    DealPriceOn, DealFreeWith,
    RejectedSpecify, Swapped, DefaultChoice, Skipped, Defaulted, Removed, NotInOrder, QuantitySet, Replaced,
    RanOut, ToppingRanOut, OptionRanOut, Cancelled, Stopped, Misheard, NotUnderstood, EmptyOrder, Greeting, Unknown, Either, WhichOne,
    WhichUnit, NoSuchUnit, DidYouMean, ReplaceUnfounded, NotOnIt, Copied, CopiedChanged, OfferInstead, OfferChange, OfferSuggest,
    NotServed)}


# ---- the administrator: confirm(K, kind, ...) --------------------------------------------------


# ---- the assistant's other outputs: the reply's mode, its question, answers, suggestions, the
# priced order (check/detail/total), the board and the parts of a price (explain) -------------


@predicate("mode")
class Mode(Term):
    mode: Const  # else, ask, answer, recommend, check, fix, close, quit, parting


@predicate("ask")
class Ask(Term):
    target: Value  # a dish, a combo, or the kind of dish asked about
    topic: str  # options, which, pick(<group>), or the combo question's "choice,<group>"


@predicate("ask_about")
class AskAbout(Term):
    food: str  # a dish the question is about


@predicate("ask_style")
class AskStyle(Term):
    group: str
    value: str  # a style the question offers


@predicate("ask_topping")
class AskTopping(Term):
    topping: str  # a topping the question offers


@predicate("ask_value")
class AskValue(Term):
    group: str
    option: str
    rank: int  # the order it is said in


@predicate("ask_option")
class AskOption(Term):
    food: str  # a choice of the combo question
    rank: int  # how popular: the most popular first


@predicate("recommend")
class Recommend(Term):
    kind: str  # category, or upgrade("<dish>") for the toppings people add to it
    food: str


@predicate("answer")
class Answer(Term):
    food: str  # an item, a category, or "all"
    about: Value  # price, calories, ingredient, ..., or (price_for, N, Size) and the like
    value: Value


@predicate("answer_none")
class NoAnswer(Term):
    kind: str  # what was asked
    food: str  # of what ("all": no item named)


@predicate("check")
class Priced(Term):
    unit: int
    food: str
    cents: int  # the unit's price


@predicate("detail")
class Detail(Term):
    unit: int
    kind: str  # add, no, change, option, choice, deal, free, ...
    value: Any  # by kind: a topping, (old, new), (group, value, yes), (combo, slot, dish), the days, a combo


@predicate("board")
class BoardUnit(Term):
    unit: int
    food: str
    cents: int


@predicate("board_detail")
class BoardDetail(Term):
    unit: int
    kind: str
    value: Any  # as Detail's


@predicate("total")
class Total(Term):
    cents: int


@predicate("board_total")
class BoardTotal(Term):
    cents: int


@predicate("board_bill")
class BoardBill(Term):
    """The order's money as a ticket and a receipt show it (cents)."""
    subtotal: int  # the units' prices
    discount: int
    tax: int
    total: int  # what is paid: subtotal - discount + tax


@predicate("lost")
class Lost(Term):
    """What a customer asked for and could not have because something ran out."""
    food: str
    quantity: int
    cents: int  # what it would have cost


@predicate("taxed")
class Taxed(Term):
    """A total said with its sales tax: '$8.78 plus $0.72 tax, $9.50 in all'."""
    tax: int
    total: int


@predicate("discount")
class Discount(Term):
    said: Value  # the order discount rule that gives it
    cents: int


@predicate("explain")
class PricePart(Term):
    unit: int
    food: str
    kind: str  # base, add, change, option, deal, free, ...
    what: Value
    cents: int


# the administrator's: ask/2 (Ask: the item, the question), mode/1 (Mode), and what its read-backs
# and questions about another manager's changes name


@predicate("readback")
class Readback(Term):
    item: str
    what: str  # price, store_price, runout, rule, unrule, giveaway, alias
    old: Any  # by what: the price now, the dishes a runout takes off, the rule, the alias
    new: Any  # the price asked for, or none


@predicate("stale")
class Stale(Term):
    item: str  # changed by another manager since this one asked
    property: str
    now: Any  # its value now
    new: Any  # the value this manager asked for


@predicate("since")
class Since(Term):
    item: str  # another manager changed it since this one asked to delete it
    property: str
    now: Any


# ---- the administrator: reject(K, reason, ...), what was refused and why -----------------------


refusal = partial(predicate, "reject", tag_at=1)  # `@predicate` for the administrator's reject(K, reason, ...)


@refusal("not_on_menu")
class RefusedNotOnMenu(Term):
    at: int
    item: Any


@refusal("no_rule")
class RefusedNoRule(Term):
    at: int


@refusal("which_rule")
class RefusedWhichRule(Term):
    at: int


@refusal("not_out")
class RefusedNotOut(Term):
    at: int
    item: str


@refusal("no_store_price")
class RefusedNoStorePrice(Term):
    at: int
    item: str


@refusal("duplicate")
class RefusedDuplicate(Term):
    at: int
    item: str


@refusal("busy")
class RefusedBusy(Term):
    at: int
    item: str
    building: str


@refusal("say_which")
class RefusedSayWhich(Term):
    at: int
    item: str
    property: str


@refusal("bad_property")
class RefusedBadProperty(Term):
    at: int
    item: str
    property: str


@refusal("bad_price")
class RefusedBadPrice(Term):
    at: int
    price: int  # cents


@refusal("price_over_limit")
class RefusedPriceOverLimit(Term):
    at: int
    price: int  # cents


@refusal("bad_calories")
class RefusedBadCalories(Term):
    at: int
    calories: int


@refusal("calories_over_limit")
class RefusedCaloriesOverLimit(Term):
    at: int
    calories: int


@refusal("unknown_category")
class RefusedUnknownCategory(Term):
    at: int
    category: Any


@refusal("unknown_ingredient")
class RefusedUnknownIngredient(Term):
    at: int
    ingredient: Any


@refusal("category_first")
class RefusedCategoryFirst(Term):
    at: int
    topping: Any


@refusal("not_a_topping")
class RefusedNotATopping(Term):
    at: int
    topping: Any


@refusal("unknown_content")
class RefusedUnknownContent(Term):
    at: int
    content: Any


@refusal("bad_quantity")
class RefusedBadQuantity(Term):
    at: int
    count: int


@refusal("unchanged")
class RefusedUnchanged(Term):
    at: int
    item: str
    property: str
    value: Any


@refusal("already")
class RefusedAlready(Term):
    at: int
    item: str
    value: Any


@refusal("not_included")
class RefusedNotIncluded(Term):
    at: int
    item: str
    value: Any


@refusal("last_one")
class RefusedLastOne(Term):
    at: int
    item: str
    property: str


@refusal("required")
class RefusedRequired(Term):
    at: int
    item: str
    property: str


@refusal("in_combo")
class RefusedInCombo(Term):
    at: int
    item: str
    combo: str


@refusal("empty_alias")
class RefusedEmptyAlias(Term):
    at: int
    item: str


@refusal("alias_taken")
class RefusedAliasTaken(Term):
    at: int
    word: str
    item: str


@refusal("alias_means")
class RefusedAliasMeans(Term):
    at: int
    word: str
    item: str


@refusal("alias_dialogue")
class RefusedAliasDialogue(Term):
    at: int
    word: str


@refusal("alias_filler")
class RefusedAliasFiller(Term):
    at: int
    word: str


@refusal("alias_number")
class RefusedAliasNumber(Term):
    at: int
    word: str


@refusal("alias_common")
class RefusedAliasCommon(Term):
    at: int
    word: str


@refusal("in_use")
class RefusedInUse(Term):
    at: int
    item: str
    dishes: int


@refusal("rule_refused")
class RefusedRuleRefused(Term):
    at: int
    rule: Any
    why: Any


REFUSALS: dict[str | None, type[Term]] = {cls.tag: cls for cls in (
    RefusedNotOnMenu, RefusedNoRule, RefusedWhichRule, RefusedNotOut, RefusedNoStorePrice, RefusedDuplicate, RefusedBusy, RefusedSayWhich, RefusedBadProperty, RefusedBadPrice, RefusedPriceOverLimit, RefusedBadCalories, RefusedCaloriesOverLimit, RefusedUnknownCategory, RefusedUnknownIngredient, RefusedCategoryFirst, RefusedNotATopping, RefusedUnknownContent, RefusedBadQuantity, RefusedUnchanged, RefusedAlready, RefusedNotIncluded, RefusedLastOne, RefusedRequired, RefusedInCombo, RefusedEmptyAlias, RefusedAliasTaken, RefusedAliasMeans, RefusedAliasDialogue, RefusedAliasFiller, RefusedAliasNumber, RefusedAliasCommon, RefusedInUse, RefusedRuleRefused)}


# what a manager's turn does at once, beside the confirmations: the shared stock list and the
# store's own prices


@predicate("stock")
class StockMove(Term):
    change: Const  # out or back
    food: str


@predicate("set_store_price")
class StorePriceOf(Term):
    item: str
    cents: int


@predicate("drop_store_price")
class StorePriceDropped(Term):
    item: str


def rows_of(actions: Any, kind: type[T]) -> list[T]:
    """The rows of one output of a decision, typed."""
    return read_all(kind, actions.get(kind.name, []))


admin = partial(predicate, "confirm", tag_at=1)  # `@predicate` for the administrator's confirm(K, kind, ...)


@admin("runout")
class RunOut(Term):
    at: int
    item: str
    dishes: int  # how many dishes it takes off


@admin("store_price")
class StorePriceSet(Term):
    at: int
    item: str
    old: int  # what this store charged before (its own price, else the chain menu's)
    new: int  # this store's price now


@admin("chain_price")
class ChainPriceAgain(Term):
    at: int
    item: str
    price: int  # the chain menu's price, charged here again


@admin("already_out")
class AlreadyOut(Term):
    at: int
    item: str


@admin("kept_stock")
class KeptStock(Term):
    at: int
    item: str


@admin("restore")
class BackInStock(Term):
    at: int
    item: str


@admin("as_ingredient")
class AsIngredient(Term):
    at: int
    item: str


@admin("read_as")
class ReadAs(Term):
    at: int
    item: str  # the ingredient the words were read as
    dish: str  # the dish the same words name


@admin("cancelled")
class AddCancelled(Term):
    at: int
    item: str


@admin("nothing_to_cancel")
class NothingToCancel(Term):
    at: int


@admin("kept_price")
class KeptPrice(Term):
    at: int
    item: str
    price: int


@admin("changed")
class Changed(Term):
    at: int
    item: str
    property: str
    old: Any
    new: Any


@admin("added")
class AddedItem(Term):
    at: int
    item: str
    type: str  # dish, combo, ingredient, sauce


@admin("added")
class AddedValue(Term):
    at: int
    item: str
    property: str
    value: Any


@admin("alias_added")
class AliasAdded(Term):
    at: int
    item: str
    word: str  # what customers say for it, normalized


@admin("alias_removed")
class AliasRemoved(Term):
    at: int
    item: str
    word: str


@admin("alias_left")
class AliasLeft(Term):
    at: int
    item: str
    word: str  # read back and declined: not staged


@admin("noted")
class Noted(Term):
    at: int
    item: str
    property: str
    value: Any


@admin("declined")
class Declined(Term):
    at: int
    item: str


@admin("kept")
class Kept(Term):
    at: int
    item: str


@admin("deleted")
class Deleted(Term):
    at: int
    item: str


@admin("removed")
class RemovedValue(Term):
    at: int
    item: str
    property: str
    old: Any


@admin("stock_undone")
class StockUndone(Term):
    at: int
    item: str
    was: str  # out or back: what is undone


@admin("undone")
class Undone(Term):
    at: int
    item: str


@admin("nothing_to_undo")
class NothingToUndo(Term):
    at: int


@admin("nothing_to_correct")
class NothingToCorrect(Term):
    at: int
    item: str


@admin("nothing_pending")
class NothingPending(Term):
    at: int
    item: str


@admin("kept_theirs")
class KeptTheirs(Term):
    at: int
    item: str
    property: str
    now: Any


@admin("taken_off_since")
class TakenOffSince(Term):
    at: int
    item: str


@admin("deleted_since")
class DeletedSince(Term):
    at: int
    item: str


@admin("already_since")
class AlreadySince(Term):
    at: int
    item: str


@admin("delete_withdrawn")
class DeleteWithdrawn(Term):
    at: int
    item: str


@admin("rebased")
class Rebased(Term):
    at: int
    item: str
    property: str
    now: Any
    new: Any


@admin("answer_first")
class AnswerFirst(Term):
    at: int


@admin("nothing_to_save")
class NothingToSave(Term):
    at: int


@admin("abandoned")
class Abandoned(Term):
    at: int
    item: str
    property: str  # the first one still missing


@admin("irrelevant")
class ManagerNotUnderstood(Term):
    at: int


@admin("stock_is")
class StockIs(Term):
    at: int
    item: str


@admin("stock_none")
class StockNone(Term):
    at: int


@admin("stock_off")
class StockOff(Term):
    at: int
    item: str
    ingredient: str


@admin("stock_in")
class StockIn(Term):
    at: int
    item: str


@admin("pending_is")
class PendingIs(Term):
    at: int
    action: str
    item: str
    property: str
    old: Any
    new: Any


@admin("pending_none")
class PendingNone(Term):
    at: int


@admin("value_is")
class ValueIs(Term):
    at: int
    item: str
    property: str
    value: Any


@admin("rule_staged")
class RuleStaged(Term):
    at: int
    rule: Rule  # a store rule (automanager/rules.py)


@admin("rule_unstaged")
class RuleUnstaged(Term):
    at: int
    rule: Rule  # a store rule (automanager/rules.py)


@admin("rule_not_made")
class RuleNotMade(Term):
    at: int
    rule: Rule  # a store rule (automanager/rules.py)


@admin("rule_kept")
class RuleKept(Term):
    at: int
    rule: Rule  # a store rule (automanager/rules.py)


@admin("rule_is")
class RuleIs(Term):
    at: int
    rule: Rule  # a store rule (automanager/rules.py)


@admin("rule_pending")
class RulePending(Term):
    at: int
    rule: Rule  # a store rule (automanager/rules.py)


@admin("rule_going")
class RuleGoing(Term):
    at: int
    rule: Rule  # a store rule (automanager/rules.py)


@admin("rules_none")
class RulesNone(Term):
    at: int


@admin("rule_unclear")
class RuleUnclear(Term):
    at: int


@admin("one_rule_at_a_time")
class OneRuleAtATime(Term):
    at: int


MANAGER: dict[tuple[str | None, int], type[Term]] = {(cls.tag, len(cls.__annotations__)): cls for cls in (  # by kind and field count (added has two)
    RunOut, StorePriceSet, ChainPriceAgain, AlreadyOut, KeptStock, BackInStock, AsIngredient, ReadAs, AddCancelled, NothingToCancel, KeptPrice, Changed,
    AddedItem, AddedValue, AliasAdded, AliasRemoved, AliasLeft, Noted, Declined, Kept, Deleted, RemovedValue, StockUndone, Undone, NothingToUndo, NothingToCorrect,
    NothingPending, KeptTheirs, TakenOffSince, DeletedSince, AlreadySince, DeleteWithdrawn, Rebased, AnswerFirst, NothingToSave, Abandoned, ManagerNotUnderstood, StockIs,
    StockNone, StockOff, StockIn, PendingIs, PendingNone, ValueIs,
    RuleStaged, RuleUnstaged, RuleNotMade, RuleKept, RuleIs, RulePending, RuleGoing, RulesNone, OneRuleAtATime, RuleUnclear)}


def assistant_said(actions: Any) -> list[Term]:
    """The assistant's confirmations of a decision, typed, in the rules' order."""
    return [read(CUSTOMER[kind], row) for kind, *row in actions.get("confirm", [])]
