"""A placed order as the customer takes it away: a plain-text receipt (a printer's 40 columns,
`automanager orders show`) and a printable HTML page (the lane page links it)."""

from __future__ import annotations

from datetime import datetime
from html import escape

from .orders import PlacedOrder

WIDTH = 40  # characters of a receipt printer's line
# the receipt page's one style block (the service lets it through by its hash: service/policy.py)
STYLE = """
body { font: 14px/1.4 monospace; max-width: 22rem; margin: 1rem auto; }
h1 { font-size: 1.1rem; text-align: center; margin: 0; }
p { text-align: center; margin: .2rem 0 1rem; }
table { width: 100%; border-collapse: collapse; }
td { padding: .15rem .2rem; vertical-align: top; }
.money { text-align: right; white-space: nowrap; }
.qty { width: 2rem; }
.mods { font-size: .85rem; }
tr.subtotal td { border-top: 1px dashed #000; }
tr.total td { font-weight: bold; border-top: 1px solid #000; }
"""


def dollars(cents: int) -> str:
    """'$4.19', '$3,266.25'; a negative amount as '-$14.01' (never '$-15.99' from floor division)."""
    sign, cents = ("-", -cents) if cents < 0 else ("", cents)
    return f"{sign}${cents // 100:,}.{cents % 100:02d}"


def when(order: PlacedOrder) -> str:
    return datetime.fromisoformat(order.placed_at).strftime("%Y-%m-%d %H:%M")


def money_rows(order: PlacedOrder) -> list[tuple[str, int]]:
    """Subtotal, the discount and the tax when there are any, and the total."""
    rows = [("Subtotal", order.subtotal)]
    rows += [("Discount", -order.discount)] if order.discount else []
    rows += [("Tax", order.tax)] if order.tax else []
    return rows + [("Total", order.total)]


def receipt_text(order: PlacedOrder, restaurant: str) -> str:
    def row(left: str, right: str) -> str:
        room = WIDTH - len(right) - 1
        return f"{left[:room]:<{room}} {right}"

    out = [restaurant.center(WIDTH).rstrip(), f"Ticket #{order.ticket}".center(WIDTH).rstrip(),
           f"{when(order)}  {order.source}".center(WIDTH).rstrip(), "-" * WIDTH]
    for line in order.lines:
        out.append(row(f"{line.quantity} {line.item}", dollars(line.quantity * line.unit_price)))
        out += [f"    {line.modifiers}"] if line.modifiers else []
    out.append("-" * WIDTH)
    out += [row(label, dollars(cents)) for label, cents in money_rows(order)]
    return "\n".join(out) + "\n"


def receipt_html(order: PlacedOrder, restaurant: str) -> str:
    """A page that prints as the receipt (no script, no outside file: the browser's print prints it)."""
    lines = "".join(
        f'<tr><td class="qty">{line.quantity}</td><td>{escape(line.item)}'
        + (f'<div class="mods">{escape(line.modifiers)}</div>' if line.modifiers else "")
        + f'</td><td class="money">{dollars(line.quantity * line.unit_price)}</td></tr>' for line in order.lines)
    money = "".join(f'<tr class="{label.lower()}"><td></td><td>{label}</td><td class="money">{dollars(cents)}</td></tr>'
                    for label, cents in money_rows(order))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Receipt #{order.ticket} - {escape(restaurant)}</title>
<style>{STYLE}</style></head>
<body><h1>{escape(restaurant)}</h1>
<p>Ticket <strong id="ticket">#{order.ticket}</strong><br>{when(order)} &middot; {escape(order.source)}</p>
<table>{lines}{money}</table>
</body></html>
"""
