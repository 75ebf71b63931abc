"""Orders as records: what a customer closed, as the kitchen display, a receipt and the day's
report read it (table placed_order, on either engine), and each store's sales tax (store_tax).

An order is written when its customer closes it, keyed by (store, session): a turn said again (a
retry, or a turn run again after a crash before its session was saved) writes the same record,
never a second one, and keeps the ticket number it got, the store's next. Amounts are integer
cents the rules priced (board_bill/4: subtotal, discount, tax, total); a tax rate is kept in
thousandths of a percent (8.875% is 8875), so no float ever touches money."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from .database import MAX_ROW_ID, Transaction
from .store import Home, StateError

MAX_TAX = 30_000  # thousandths of a percent: 30%; no sales tax is higher (825 for 8.25 is a typo)
COLUMNS = "id, store, session, ticket, source, placed_at, lines, subtotal, discount, tax, total, status, bumped_at"


@dataclass(frozen=True)
class Line:
    quantity: int
    food: str  # the menu's item
    item: str  # as said, with the options said before its name: "large <drink>"
    modifiers: str  # as the kitchen reads them: "no <ingredient>, with <topping>"
    unit_price: int  # cents


@dataclass(frozen=True)
class PlacedOrder:
    id: int
    store: str
    session: str
    ticket: int
    source: str  # "lane <name>" or "chat"
    placed_at: str  # the store's local time, ISO 8601
    lines: tuple[Line, ...]
    subtotal: int
    discount: int
    tax: int
    total: int  # what the customer pays
    status: str  # open (on the kitchen display) or done (bumped)
    bumped_at: str | None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "lines": [asdict(line) for line in self.lines]}


def placed(row: tuple[Any, ...]) -> PlacedOrder:
    values = dict(zip(COLUMNS.split(", "), row))
    values["lines"] = tuple(Line(**line) for line in json.loads(values["lines"]))
    return PlacedOrder(**values)


def is_row_id(value: int) -> bool:
    """Can a row have this id? From 1 to MAX_ROW_ID (64-bit signed, as both engines keep ids)."""
    return 1 <= value <= MAX_ROW_ID


def id_refused(value: int, what: str = "order id") -> str | None:
    """Why an id a caller gave can be no row's, to say back (None: a row may have it)."""
    if is_row_id(value):
        return None
    digits = str(value)
    shown = digits if len(digits) <= 24 else f"{digits[:20]}... ({len(digits)} digits)"
    return (f"{what} {shown} is out of range: ids run from 1 to {MAX_ROW_ID} (a 64-bit signed integer, as the "
            "database keeps them)")


def day_span(day: date) -> tuple[str, str]:
    """A local day as the bounds its records' times (ISO 8601 text) are compared with: from its
    first second to its end, written as ISO 8601's 24:00 of that day. No next day is worked out,
    so every day has one (9999-12-31 has no next date)."""
    return f"{day.isoformat()}T00:00:00", f"{day.isoformat()}T24:00:00"


def iso(moment: datetime | str) -> str:
    """A time as the records write it (ISO 8601 to the second); text is taken as it is."""
    return moment if isinstance(moment, str) else moment.isoformat(timespec="seconds")


def tax_thousandths(said: str) -> int:
    """A tax rate as a person writes it ("8.875", "8.875%", "0") in thousandths of a percent;
    ValueError saying why when it is none."""
    written = said.strip().removesuffix("%").strip()
    shown = repr(said if len(said) <= 24 else f"{said[:20]}...")  # said back, never all of a long one
    if not re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", written):  # no sign, exponent, NaN or infinity
        raise ValueError(f"{shown} is no percentage; write it like 8.25 or 8.875")
    rate = Decimal(written) * 1000
    if rate != rate.to_integral_value() or not 0 <= rate <= MAX_TAX:
        raise ValueError(f"{shown}: a sales tax is 0 to {MAX_TAX // 1000}% with at most three decimals (8.875)")
    return int(rate)


def percent(thousandths: int) -> str:
    """8875 -> "8.875%", 10000 -> "10%" (only a fraction's zeros are dropped)."""
    whole, fraction = divmod(thousandths, 1000)
    return f"{whole}.{fraction:03d}".rstrip("0").rstrip(".") + "%"


class OrderBook:
    """One store's orders and its sales tax."""

    def __init__(self, home: Home):
        self.home = home

    def tax_rate(self) -> int:
        """This store's sales tax in thousandths of a percent; 0 when it set none."""
        rows = self.home.read("SELECT rate FROM store_tax WHERE store = ?", (self.home.store,))
        return int(rows[0][0]) if rows else 0

    def set_tax_rate(self, thousandths: int) -> None:
        if not 0 <= thousandths <= MAX_TAX:
            raise StateError(f"a sales tax is 0 to {MAX_TAX // 1000}%, not {percent(thousandths)}")
        self.home.write(lambda conn: conn.execute(
            "INSERT INTO store_tax (store, rate, at) VALUES (?, ?, ?) ON CONFLICT(store) DO UPDATE SET "
            "rate = excluded.rate, at = excluded.at", (self.home.store, thousandths, self.home.now().isoformat())))

    def place(self, session: str, source: str, lines: list[Line], bill: tuple[int, int, int, int]) -> PlacedOrder:
        """Record the order a session closed (again: the same record, its ticket kept) and tell the
        kitchen display at the commit."""
        subtotal, discount, tax, total = bill
        text = json.dumps([asdict(line) for line in lines], ensure_ascii=False)
        store = self.home.store

        def work(conn: Transaction) -> PlacedOrder:
            conn.execute("INSERT INTO placed_order (store, session, ticket, source, placed_at, lines, subtotal, discount, "
                         "tax, total) SELECT ?, ?, COALESCE(MAX(ticket), 0) + 1, ?, ?, ?, ?, ?, ?, ? FROM placed_order "
                         "WHERE store = ? ON CONFLICT (store, session) DO UPDATE SET lines = excluded.lines, "
                         "subtotal = excluded.subtotal, discount = excluded.discount, tax = excluded.tax, "
                         "total = excluded.total",
                         (store, session, source, self.home.now().isoformat(timespec="seconds"), text, subtotal, discount,
                          tax, total, store))
            order = placed(conn.execute(f"SELECT {COLUMNS} FROM placed_order WHERE store = ? AND session = ?",
                                        (store, session)).fetchone())
            self.home.database.notify(conn, "ticket", store=store, id=order.id)
            return order

        return self.home.write(work, exclusive=True)  # the next ticket number, with no other order in between

    def note_lost(self, session: str, turn: int, lost: list[tuple[str, int, int]]) -> None:
        """(item, quantity, cents) a customer asked for and could not have: it had run out. Once for
        the session's turn: a turn run again (its save failed, the page sent it again) notes nothing more."""
        at = self.home.now().isoformat(timespec="seconds")
        per_item: dict[str, tuple[int, int]] = {}
        for item, quantity, cents in lost:
            had = per_item.get(item, (0, 0))
            per_item[item] = (had[0] + quantity, had[1] + cents)
        self.home.write(lambda conn: [conn.execute(
            "INSERT INTO lost_sale (store, session, turn, at, item, quantity, cents) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING", (self.home.store, session, turn, at, item, quantity, cents))
            for item, (quantity, cents) in per_item.items()])

    def lost_between(self, start: datetime | str, end: datetime | str) -> list[tuple[str, str, int, int]]:
        """(at, item, quantity, cents) of the lost sales from start to before end (times, or ISO 8601 text)."""
        return [(at, item, int(quantity), int(cents)) for at, item, quantity, cents in self.home.read(
            "SELECT at, item, quantity, cents FROM lost_sale WHERE store = ? AND at >= ? AND at < ? ORDER BY at",
            (self.home.store, iso(start), iso(end)))]

    def lost_on(self, day: date) -> list[tuple[str, str, int, int]]:
        """(at, item, quantity, cents) of the day's lost sales (the store's local day, any day)."""
        return self.lost_between(*day_span(day))

    def get(self, order_id: int) -> PlacedOrder | None:
        """The order with this id; None when there is none (an id no row can have included)."""
        if not is_row_id(order_id):
            return None
        rows = self.home.read(f"SELECT {COLUMNS} FROM placed_order WHERE store = ? AND id = ?", (self.home.store, order_id))
        return placed(rows[0]) if rows else None

    def of_session(self, session: str) -> PlacedOrder | None:
        rows = self.home.read(f"SELECT {COLUMNS} FROM placed_order WHERE store = ? AND session = ?",
                              (self.home.store, session))
        return placed(rows[0]) if rows else None

    def open_tickets(self) -> list[PlacedOrder]:
        """What the kitchen has still to make, oldest first."""
        return [placed(row) for row in self.home.read(
            f"SELECT {COLUMNS} FROM placed_order WHERE store = ? AND status = 'open' ORDER BY ticket", (self.home.store,))]

    def bump(self, order_id: int) -> bool:
        """The kitchen made it: off the display. False when there is no such open ticket. Each bump
        takes the store's next bump number (with no other bump in between), so a recall knows which
        came last even within one second."""
        if not is_row_id(order_id):
            return False
        store = self.home.store

        def work(conn: Transaction) -> bool:
            done = conn.execute("UPDATE placed_order SET status = 'done', bumped_at = ?, bump_number = (SELECT "
                                "COALESCE(MAX(bump_number), 0) + 1 FROM placed_order WHERE store = ?) WHERE store = ? "
                                "AND id = ? AND status = 'open'", (self.home.now().isoformat(timespec="seconds"),
                                                                   store, store, order_id)).rowcount
            if done:
                self.home.database.notify(conn, "ticket", store=store, id=order_id)
            return bool(done)

        return bool(self.home.write(work, exclusive=True))

    def recall(self) -> PlacedOrder | None:
        """The ticket bumped last, back on the display (a bump by mistake); None when none was. Last
        by bump number (tickets bumped before there were numbers: by time, then ticket)."""
        def work(conn: Transaction) -> PlacedOrder | None:
            rows = conn.execute(f"SELECT {COLUMNS} FROM placed_order WHERE store = ? AND status = 'done' "
                                "ORDER BY COALESCE(bump_number, 0) DESC, bumped_at DESC, ticket DESC LIMIT 1",
                                (self.home.store,)).fetchall()
            if not rows:
                return None
            order = placed(rows[0])
            conn.execute("UPDATE placed_order SET status = 'open', bumped_at = NULL, bump_number = NULL WHERE id = ?",
                         (order.id,))
            self.home.database.notify(conn, "ticket", store=self.home.store, id=order.id)
            return order

        return self.home.write(work, exclusive=True)  # two recalls at once bring back two tickets, not one twice

    def placed_between(self, start: datetime | str, end: datetime | str) -> list[PlacedOrder]:
        """The orders placed from start to before end (the store's local time, or ISO 8601 text), in
        ticket order."""
        return [placed(row) for row in self.home.read(
            f"SELECT {COLUMNS} FROM placed_order WHERE store = ? AND placed_at >= ? AND placed_at < ? ORDER BY ticket",
            (self.home.store, iso(start), iso(end)))]

    def placed_on(self, day: date) -> list[PlacedOrder]:
        """The orders of a day (the store's local day, any day: 9999-12-31 too), in ticket order."""
        return self.placed_between(*day_span(day))
