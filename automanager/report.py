"""The manager's day in numbers: what sold (orders, revenue, per hour, top items, the average
ticket), what could not be sold because it ran out (and its value) and what customers said that no
bot understood. Figures are integer cents summed over the recorded orders, nothing estimated."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Any

from .orders import OrderBook
from .store import Home


@dataclass
class DayReport:
    store: str
    day: str  # YYYY-MM-DD, the store's local day
    orders: int = 0
    sales: int = 0  # cents: what the orders' items came to, after their discounts, before tax
    tax: int = 0
    revenue: int = 0  # cents taken: sales plus tax
    average_ticket: int = 0  # cents: sales per order, rounded half up
    per_hour: list[dict[str, int]] = field(default_factory=list)  # {hour, orders, sales}, every hour with an order
    top_items: list[dict[str, Any]] = field(default_factory=list)  # {item, quantity, sales}, most sold first
    lost: list[dict[str, Any]] = field(default_factory=list)  # {item, quantity, cents}: refused, it ran out
    lost_value: int = 0
    not_understood: list[dict[str, Any]] = field(default_factory=list)  # {phrase, count}, said that day

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def day_report(home: Home, day: date, top: int = 10) -> DayReport:
    """The figures of a day, any day (the last, 9999-12-31, has no next: none is worked out)."""
    book = OrderBook(home)
    orders = book.placed_on(day)
    report = DayReport(home.store, day.isoformat(), orders=len(orders))
    report.sales = sum(o.total - o.tax for o in orders)
    report.tax = sum(o.tax for o in orders)
    report.revenue = sum(o.total for o in orders)
    report.average_ticket = (2 * report.sales + len(orders)) // (2 * len(orders)) if orders else 0
    hours: dict[int, list[int]] = {}
    for o in orders:
        hour = hours.setdefault(datetime.fromisoformat(o.placed_at).hour, [0, 0])
        hour[0] += 1
        hour[1] += o.total - o.tax
    report.per_hour = [{"hour": h, "orders": n, "sales": cents} for h, (n, cents) in sorted(hours.items())]
    quantity: Counter[str] = Counter()
    sales: Counter[str] = Counter()
    for o in orders:
        for line in o.lines:
            quantity[line.food] += line.quantity
            sales[line.food] += line.quantity * line.unit_price
    report.top_items = [{"item": item, "quantity": n, "sales": sales[item]}
                        for item, n in sorted(quantity.items(), key=lambda kv: (-kv[1], -sales[kv[0]], kv[0]))[:top]]
    lost_n: Counter[str] = Counter()
    lost_cents: Counter[str] = Counter()
    for _, item, n, cents in book.lost_on(day):
        lost_n[item] += n
        lost_cents[item] += cents
    report.lost = [{"item": item, "quantity": lost_n[item], "cents": lost_cents[item]}
                   for item in sorted(lost_n, key=lambda i: (-lost_cents[i], i))]
    report.lost_value = sum(lost_cents.values())
    report.not_understood = [{"phrase": row["phrase"], "count": row["count"]} for row in home.unheard(limit=20)
                             if row["last_at"][:10] == day.isoformat()]
    return report
