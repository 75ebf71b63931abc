"""A session's state as typed terms: what the bots' rules keep from one turn to the next.

The rules read the state as `holds(X)` and write the next one as `next(X)` (the headers of
assistant.lp, admin.lp and menu/view.lp say what each term means); every such X is declared
here once. A session file keeps the terms as the text clingo prints, so sessions saved before
these classes existed load as they are; `State` decodes that text once, when it is first read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any, TypeVar

import clingo

from .reasoner import Const, Value, value
from .rules import Rule
from .terms import Term, as_term, decode, encode, parse, predicate

T = TypeVar("T", bound=Term)


# -- nested terms ----------------------------------------------------------------------------
@predicate("pick")
class Pick(Term):
    """A question or topic about the option group of a kind of dish (its size)."""
    group: Const


@predicate("choice")
class Slot(Term):
    """The question which dish fills slot `slot` of option group `group` of combo unit `unit`."""
    unit: int
    group: str
    slot: int


@predicate("upgrade")
class Upgrade(Term):
    """Toppings suggested for a dish."""
    dish: str


# -- both bots -------------------------------------------------------------------------------
@predicate("phase")
class Phase(Term):
    phase: Const  # assistant: listen | ask | checked | ended; admin: ended


@predicate("last_ask")
class LastAsk(Term):
    """The bot's last question: about target (None: none) on topic (a constant, Pick, Slot)."""
    target: str | None
    topic: Const | Pick | Slot


# -- the assistant ---------------------------------------------------------------------------
@predicate("unit")
class Unit(Term):
    number: int
    food: str


@predicate("has")
class Has(Term):
    """A detail of an ordered unit: kind add|no|less|extra|regular|plain (value a topping;
    plain: the dish's own ingredient named, as it comes), change (old, new),
    option (Group, Value, yes|no), choice (Group, Slot, Dish)."""
    unit: int
    kind: Const
    value: Value

    def parts(self) -> tuple[Any, ...]:
        """The value of a change (old, new), option (group, value, yes|no) or choice (group, slot, dish)."""
        if not isinstance(self.value, tuple):
            raise TypeError(f"{self} has no parts")
        return self.value


@predicate("done")
class Done(Term):
    kind: str  # a category of dishes
    topic: Const | Pick


@predicate("asked_about")
class AskedAbout(Term):
    food: str


@predicate("ask_streak")
class AskStreak(Term):
    count: int


@predicate("mentioned")
class Mentioned(Term):
    """A food or topping talked about `turns_ago` turns ago (assistant.lp forgets it later)."""
    food: str
    turns_ago: int


@predicate("mentioned")
class MentionedEver(Term):
    """A mention saved before mentions were forgotten (read as one turn old)."""
    food: str


@predicate("recommended")
class Recommended(Term):
    kind: Const | Upgrade  # category: food is a dish suggested; Upgrade: a topping for its dish
    food: str


@predicate("discussed")
class Discussed(Term):
    food: str
    quantity: int
    size: str | None


@predicate("said_unknown")
class SaidUnknown(Term):
    pass


@predicate("asked_price")
class AskedPrice(Term):
    pass


@predicate("refused")
class Refused(Term):
    food: str


@predicate("refused_count")
class RefusedCount(Term):
    """Last turn refused `food` for how many were asked ("only 10 per order"): "fine, 10 then"
    orders it, a bare "ok" orders none (the bot offered nothing)."""
    food: str


@predicate("refused_option")
class RefusedOption(Term):
    """A unit last turn refused (or took off) a value of `group` for lack of an ingredient: "X
    instead" of that group then goes on it only."""
    unit: int
    group: Const


@predicate("refused_topping")
class RefusedTopping(Term):
    """Last turn refused an ingredient for `dish` (out of it): "Y instead" then adds Y."""
    dish: str


@predicate("held")
class Held(Term):
    """A change said of one unit that fit several, asked "which one?": the answer next turn applies it."""
    operation: Const
    option: Value


@predicate("held_unit")
class HeldUnit(Term):
    """A unit the held change may go on (the ones the "which one?" was about)."""
    unit: int


@predicate("pointed")
class Pointed(Term):
    """A unit last turn's reference picked ("the sausage one"): "the other one" is another."""
    unit: int


@predicate("offered")
class Offered(Term):
    """Last turn's offer (a substitution or a suggestion a manager stated): a bare yes orders
    `quantity` of `food`, made with `change` (None: as it comes; else (old, new))."""
    food: str
    quantity: int
    change: Const | tuple[Any, ...]


@predicate("asked_kind")
class AskedKind(Term):
    """Last turn asked which food of a kind ("some tacos"): an answer by its words ("the soft
    one") orders `quantity` of it (0: not said, one)."""
    kind: str
    quantity: int


@predicate("asked_with")
class AskedWith(Term):
    """A detail said with last turn's vague order ("some large pepperoni pizzas"): it goes on the
    food the answer orders (op add|no|less|extra|regular|change|option, as in Has), never on the
    units ordered before."""
    kind: str
    op: Const
    value: Value


@predicate("pending")
class Pending(Term):
    """A change of a line only half heard (a `new_<change>(...)` fact of assistant.lp, kept as it
    was said): asked about ("Did you want ...?"), made when the next line is a bare yes."""
    change: Value


@predicate("if_not")
class IfNot(Term):
    """Kept beside a pending read-back: the change a bare no makes instead of nothing (no to "is the
    drink for your combo?" orders it on its own)."""
    change: Value


@predicate("asked_again")
class AskedAgain(Term):
    """The read-back of a combo's pick said alone was asked a second time: unanswered again, it is left off."""


@predicate("picking")
class Picking(Term):
    """Last turn said picks of this meal: a food of its open choices said next is one more."""
    combo: str


@predicate("suggested")
class Suggested(Term):
    """A suggestion made in this conversation (given, offer): never made again."""
    given: str
    offer: str


# -- the administrator -----------------------------------------------------------------------
@predicate("turn")
class TurnNumber(Term):
    number: int


@predicate("building")
class Building(Term):
    type: Const  # unknown until said
    item: str


@predicate("given")
class Given(Term):
    item: str
    property: Const
    value: Value


@predicate("offer")
class Offer(Term):
    ingredient: str
    dish: str


@predicate("asking_stale")
class AskingStale(Term):
    id: tuple[Any, ...]  # (turn, position) of a staged change


@predicate("talked")
class Talked(Term):
    item: str


@predicate("stock_said")
class StockSaid(Term):
    kind: Const  # runout | restore: the last turn's stock news, which "X too" says again


@predicate("price_asked")
class PriceAsked(Term):
    item: str
    price: int


@predicate("store_price_asked")
class StorePriceAsked(Term):
    item: str
    price: int


@predicate("alias_asked")
class AliasAsked(Term):
    item: str
    word: str  # the alias (normalized) a confirm_alias question reads back


@predicate("rule_asked")
class RuleAsked(Term):
    rule: Rule  # the rule (automanager/rules.py) a confirm_rule, confirm_giveaway or confirm_unrule question reads back


@predicate("stock_done")
class StockDone(Term):
    turn: int
    food: str
    direction: Const  # out | back


@predicate("staged")
class Staged(Term):
    """A menu change waiting to be applied: the audit record."""
    id: tuple[Any, ...]
    action: Const
    item: str
    property: Const
    old: Value | None
    new: Value | None

    def row(self) -> tuple[Any, ...]:
        """(action, item, property, old, new) as plain values, as the audit log keeps them."""
        return (str(self.action), self.item, str(self.property),
                *(None if v is None else value(as_term(v)) for v in (self.old, self.new)))


@predicate("seen")
class Seen(Term):
    """What the published menu said of an item when its delete was staged, so a change another
    manager publishes before the save is noticed."""
    id: tuple[Any, ...]
    property: Const
    value: Value


@predicate("effect")
class Create(Term):
    id: tuple[Any, ...]
    op: Const  # create
    item: str
    type: Const


@predicate("effect")
class Change(Term):
    id: tuple[Any, ...]
    op: Const  # set | unset
    item: str
    property: Const
    value: Value


@predicate("effect")
class Remove(Term):
    id: tuple[Any, ...]
    op: Const  # remove
    item: str


PENDING = (Staged, Seen, Create, Change, Remove)  # the staged menu changes and their effects


# Most of a state is the same from one turn to the next: each text is read once per process.
@lru_cache(maxsize=8192)
def _decoded(text: str) -> Term | None:
    return decode(text)


@lru_cache(maxsize=8192)
def _holds(text: str) -> clingo.Symbol:
    return parse(f"holds({text})")


class State:
    """The state terms of a session, in the text clingo prints (as the session file keeps them),
    decoded into typed terms once, when first read. Terms of no declared predicate (left by an
    older release) are not read: no rule reads them either."""

    __slots__ = ("_rows", "texts")

    def __init__(self, texts: Iterable[str] = ()):
        self.texts = list(texts)
        self._rows: list[tuple[str, Term]] | None = None

    @classmethod
    def of(cls, terms: Iterable[Term]) -> State:
        return cls(str(encode(t)) for t in terms)

    @property
    def rows(self) -> list[tuple[str, Term]]:
        """(text, typed term) of each term; ValueError when a text is not a term."""
        if self._rows is None:
            self._rows = [(text, typed) for text, typed in zip(self.texts, map(_decoded, self.texts))
                          if typed is not None]
        return self._rows

    def read(self) -> State:
        """This state, every term read now (ValueError when one is not a term)."""
        _ = self.rows
        return self

    @property
    def terms(self) -> list[Term]:
        return [typed for _, typed in self.rows]

    def all(self, cls: type[T] | tuple[type[T], ...]) -> list[T]:
        return [typed for _, typed in self.rows if isinstance(typed, cls)]

    def first(self, cls: type[T]) -> T | None:
        return next(iter(self.all(cls)), None)

    def holds(self) -> list[clingo.Symbol]:
        """The facts the rules read: holds(X) for each term (clingo reads the text at once)."""
        return [_holds(text) for text, _ in self.rows]

    def only(self, classes: tuple[type[Term], ...]) -> State:
        return self._kept(lambda typed: isinstance(typed, classes))

    def without(self, classes: tuple[type[Term], ...]) -> State:
        return self._kept(lambda typed: not isinstance(typed, classes))

    def _kept(self, keep: Callable[[Term], bool]) -> State:
        kept = State(text for text, typed in self.rows if keep(typed))
        kept._rows = [row for row in self.rows if keep(row[1])]
        return kept

    @property
    def ended(self) -> bool:
        return Phase(Const("ended")) in self

    def __contains__(self, typed: object) -> bool:
        return typed in self.terms

    def __iter__(self) -> Iterator[Term]:
        return iter(self.terms)

    def __len__(self) -> int:
        return len(self.texts)

    def __bool__(self) -> bool:
        return bool(self.texts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and other.texts == self.texts

    def __repr__(self) -> str:
        return f"State({self.texts!r})"
