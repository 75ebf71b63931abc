"""A customer at the drive-through: the order, kept on the menu version the session started with
until it has one, priced by the rules, and the lane's next car."""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import TypeVar

from ..acts import Act, Irrelevant, Review, Unsure
from ..bots.assistant import Assistant, context
from ..language.customer_parser import Context, CustomerParser
from ..language.customer_templates import CustomerTemplates
from ..language.outputs import BoardBill, BoardDetail, BoardTotal, BoardUnit, Lost, rows_of
from ..language.reading import Parse
from ..language.text import tokenize
from ..llm.openai_backend import Usage
from ..llm.structured import CustomerReader
from ..normalize import normalize
from ..orders import Line, OrderBook
from ..state import Has, State, Unit
from ..terms import as_term
from .chat import Chat, Turn, said_as_phrase

# What a last word to a closed order may say: no, that's all, goodbye, thanks (a "hello" is the next car)
PARTING = {"decline", "complete", "quit", "greet(thanks)"}  # acts as printed


class CustomerChat(Chat):
    """A customer at the drive-through (offline backend)."""

    role = "customer"
    bot: Assistant
    parser: CustomerParser
    templates: CustomerTemplates

    def load_menu(self) -> None:
        super().load_menu()
        self.assistant = self.bot = Assistant(self.menu.files, self.home.root / "cache")
        self.parser = CustomerParser(self.menu, self.names)
        self.reader = CustomerReader(self.names)
        self.templates = CustomerTemplates(self.menu)

    def known(self, said: list[Act]) -> Parse:
        return Parse(said, [], [])

    def read(self, forms: list, ctx: Context):
        return self.reader.read(forms)

    def describe(self, ctx: Context) -> str:
        said = [f"the bot last asked about {ctx.ask_topic}" + (f" for {ctx.ask_target}" if ctx.ask_target else "")
                if ctx.ask_topic else "the bot asked nothing yet"]
        if ctx.ordered:
            said.append("ordered so far: " + ", ".join(ctx.ordered))
        if ctx.recommended_items or ctx.recommended_toppings:
            said.append("the bot just suggested: " + ", ".join(
                ctx.recommended_items + [topping for _, topping in ctx.recommended_toppings]))
        return "; ".join(said)

    source = "chat"  # where its orders come from: a lane sets "lane <name>"
    hearing: bool | None = None  # during heard(): whether the recognizer was sure of the line

    @cached_property
    def orders(self) -> OrderBook:
        return OrderBook(self.home)

    def step(self, text: str, said: list[Act] | None = None) -> Turn:
        parse, decision, usage, timings = self.think(text, context(self.state), lambda parse: self.assistant.decide(
            parse.acts, self.state, self.home.stock_out(), len(parse.unknown), self.home.store_prices(), self.home.now(),
            self.orders.tax_rate()), said)
        order = self.order()
        counts = Counter(unit["item"] for unit in order)
        reply = self.respond(self.templates.render(decision.actions, parse.unknown, counts), decision.actions, usage)
        not_caught = [text] if text.strip() and not parse.unknown and all(isinstance(act, Irrelevant) for act in parse.acts) \
            else []
        return Turn(text=text, reply=reply, parsed=[str(p) for p in parse.acts], actions=decision.actions,
                    corrected=parse.corrected, order=order, llm=usage.as_dict(), timings=timings,
                    board=self.board(decision.actions), unheard=list(dict.fromkeys(said_as_phrase(p) for p in [*parse.unknown, *not_caught])))

    def heard(self, text: str, sure: bool, turn_id: str | None = None) -> Turn:
        """A line heard, not typed (`sure`: the recognizer's word for it), taken as a turn."""
        self.hearing = sure
        try:
            return self.turn(text, None, turn_id)
        finally:
            self.hearing = None

    def understand(self, text: str, ctx, usage: Usage, said: list[Act] | None = None, role: str = ""):
        """A heard line is read offline, and read as half heard (its changes asked about, never
        made until the customer says yes: a name is rung up only when its words were heard) when
        the recognizer is not sure of it, when it names a dish only by words close to its name (a
        spelling corrected), or when it has words no reading took (words that name nothing on the
        menu, even talk, or a cue's word with no cue around it: a misheard part puts the rest in
        doubt). What it names that is not on the menu is said back as for a typed line."""
        if said is not None or self.hearing is None:
            return super().understand(text, ctx, usage, said, role)
        parse = self.parser.parse(text, ctx)
        heard = f" {normalize(text)} "
        guessed = [name for _, name, _ in parse.corrected if f" {normalize(name)}" not in heard]
        if not self.hearing or guessed or parse.unread or self.names_run_on(text):
            parse.acts.append(Unsure())
        return parse

    def names_run_on(self, text: str) -> bool:
        """A dish named and, with no word or pause between, another dish or a kind of food
        ("chalupa supreme nacho pepsi", "crunchwrap supreme nacho drink"): how a recognizer told
        the menu's names hears "... and a pepsi", seldom what a person says."""
        tokens = tokenize(text)
        items = [m for m in self.parser.mentions_in(tokens) if m.kind == "item"]
        starts = {m.start for m in items}
        return any(m.end in starts or (m.end < len(tokens) and tokens[m.end] in self.parser.kinds) for m in items)

    def greeting(self) -> str:
        """A resumed session is welcomed back with its order so far, priced by the ASP."""
        if not self.resumed:
            return self.templates.greeting()
        return self.templates.welcome_back(self.review())

    def parting(self, text: str) -> bool:
        """Is this line only a last word ("nope, thanks!", "bye") to a closed order? It is answered
        in the same session; anything else after the close is a new customer."""
        said = {str(act) for act in self.parser.parse(text, context(self.state)).acts}
        return bool(said) and said <= PARTING

    def board(self, actions: dict | None = None) -> dict:
        """The order as a drive-through board shows it: lines of equal units with their changes and
        prices, and the total (cents), priced by the ASP: as a turn's decision left it
        (board/3, board_detail/3, board_total/1), else priced now."""
        actions = self.review() if actions is None else actions
        lines = [{"quantity": line.quantity, "food": line.item, "item": line.name, "modifiers": line.modifiers,
                  "unit_price": line.unit_price, "line_price": line.quantity * line.unit_price}
                 for line in self.templates.groups(rows_of(actions, BoardUnit), rows_of(actions, BoardDetail))]
        return {"lines": lines, "total": rows_of(actions, BoardTotal)[0].cents}

    def catch_up(self) -> None:
        """Before anything is ordered, the newest menu version is the one to order from; once an
        order has begun it keeps the version its prices were quoted from."""
        latest = self.home.latest_version()
        if latest != self.menu_version and not self.state.all(Unit):
            self.menu_version = latest
            self.load_menu()

    def review(self) -> dict:
        """The order as it stands, priced (check/3, detail/3, total/1); the state is not changed."""
        return self.assistant.decide([Review()], self.state, self.home.stock_out(), 0,
                                     self.home.store_prices(), self.home.now(), self.orders.tax_rate()).actions

    def settle(self, turn: Turn, before: State) -> None:
        """What was refused because it ran out is noted for the manager's day; the order this turn
        closed goes to the kitchen: recorded once (a turn run again writes the same record), with its
        lines as the board shows them and its money as the rules priced it."""
        if lost := [(row.food, row.quantity, row.cents) for row in rows_of(turn.actions, Lost)]:
            self.orders.note_lost(self.session_id, len(self.history), lost)
        if before.ended or not self.ended or not turn.board.get("lines"):
            return
        bill = rows_of(turn.actions, BoardBill)[0]
        lines = [Line(line["quantity"], line["food"], line["item"], line["modifiers"], line["unit_price"])
                 for line in turn.board["lines"]]
        turn.placed = self.orders.place(self.session_id, self.source, lines,
                                        (bill.subtotal, bill.discount, bill.tax, bill.total)).as_dict()

    def order(self) -> list[dict]:
        """The order so far, one entry per unit, from the saved state."""
        units: dict[int, dict] = {}
        for unit in self.state.all(Unit):
            units.setdefault(unit.number, {})["item"] = unit.food
        for has in self.state.all(Has):
            if has.unit in units:
                details = units[has.unit]
                if has.kind == "option":  # by its group: {"size": ["large"]}, {"no crust": ["thin crust"]}
                    group, value, wanted = has.parts()
                    key = str(group) if wanted == "yes" else f"no {group}"
                    details.setdefault(key, []).append(value)
                    continue
                details.setdefault(str(has.kind), []).append(  # a change or choice as its term: ("Old","New")
                    has.value if isinstance(has.value, str) else str(as_term(has.value)))
        return [units[k] for k in sorted(units)]


ChatT = TypeVar("ChatT", bound=Chat)


def addressed(current: ChatT, finished: ChatT | None, text: str) -> ChatT:
    """Which order a lane's line belongs to: a last word ("thanks, bye") to the car served last,
    while the next car has said nothing, is still that car's; anything else is the current car's."""
    if finished is not None and not current.saved and isinstance(finished, CustomerChat) and finished.parting(text):
        return finished
    return current
