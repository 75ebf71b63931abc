"""Store rules as typed terms: each kind of rule a manager can state is one KB fact, and the same
term travels through the bot's read-back, the staged change, the audit log and the menu version.

The ASP decides (bots/admin.lp validates, menu/view.lp and commit.lp stage and apply, bots/
assistant.lp enforces and prices); this module only names the kinds and their fields, and reads
and writes the two value types they share: a weekday set as a bit mask (mon 1 ... sun 64, every
day 127) and a time of day as minutes after midnight.
"""

from __future__ import annotations

from .terms import Term, decode, predicate

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
EVERY_DAY = 127  # all seven bits


@predicate("limit")
class Limit(Term):
    scope: str  # item (a dish or combo), category (a category, or "combo"), any_item or total ("all")
    target: str
    most: int  # at most this many per order


@predicate("hours")
class Hours(Term):
    scope: str  # item or category (a category, or "combo")
    target: str
    start: int  # minutes after midnight it is first served
    end: int  # minutes after midnight it is no longer served (under start: past midnight)
    days: int  # the weekdays it is served, a mask


@predicate("deal_price")
class DealPrice(Term):
    item: str
    cents: int  # the item's price on those days
    days: int


@predicate("deal_off")
class DealOff(Term):
    kind: str  # percent or amount
    amount: int  # percent, or cents, off the order
    over: int  # an order of at least this many cents


@predicate("deal_free")
class DealFree(Term):
    combo: str  # a combo, or "combo": any combo
    item: str  # one of it free with each such combo


@predicate("instead")
class Instead(Term):
    out: str  # when this is out of stock
    offer: str  # offer this in its place


@predicate("suggest")
class Suggest(Term):
    given: str  # an item, a category, or "combo": any combo
    offer: str  # offered once when the order has one


Rule = Limit | Hours | DealPrice | DealOff | DealFree | Instead | Suggest
RULE_KINDS: tuple[type[Term], ...] = (Limit, Hours, DealPrice, DealOff, DealFree, Instead, Suggest)


def read_rule(value: object) -> Term | None:
    """A rule from a term or the text clingo prints for one (state, audit log); None if not one."""
    if isinstance(value, RULE_KINDS):
        return value
    try:
        rule = decode(str(value))
    except ValueError:
        return None
    return rule if isinstance(rule, RULE_KINDS) else None


def days_mask(days: list[str]) -> int:
    """The mask of weekdays named by their three-letter codes (mon..sun)."""
    return sum(1 << WEEKDAYS.index(day) for day in set(days))


def days_of(mask: int) -> list[str]:
    """The weekday codes of a mask, Monday first."""
    return [day for bit, day in enumerate(WEEKDAYS) if mask >> bit & 1]
