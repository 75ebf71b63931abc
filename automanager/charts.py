"""The day's numbers as pictures: bar charts drawn as SVG on the server (no script, no library, no
outside file), so a manager sees the day's shape at a glance on the dashboard."""

from __future__ import annotations

from html import escape

from .report import DayReport

WIDTH, HEIGHT = 560, 220
MARGIN_LEFT, MARGIN_BOTTOM, MARGIN_TOP = 56, 28, 14
BAR = 60  # the widest a bar is drawn
OPEN_HOURS = range(6, 23)  # the hours always drawn (a drive-through's usual day); others when sold in


def dollars(cents: int) -> str:
    return f"${cents / 100:,.0f}" if cents >= 10_000 else f"${cents / 100:,.2f}"


def bars(title: str, labels: list[str], values: list[int], shown: list[str], colour: str, empty: str) -> str:
    """A vertical bar chart: a bar per label (at most BAR wide), its value written on it, a scale
    of three ticks; `empty` is said when there is nothing to draw."""
    top = max(values, default=0) or 1
    plot_w, plot_h = WIDTH - MARGIN_LEFT - 8, HEIGHT - MARGIN_BOTTOM - MARGIN_TOP
    step = min(plot_w / max(len(values), 1), BAR / 0.7)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
           f'aria-label="{escape(title)}" font-family="sans-serif" font-size="11">',
           f"<title>{escape(title)}</title>"]
    for tick in (0, top // 2, top):
        y = MARGIN_TOP + plot_h - plot_h * tick / top
        out.append(f'<line x1="{MARGIN_LEFT}" x2="{WIDTH - 8}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
    for i, (label, value, text) in enumerate(zip(labels, values, shown)):
        h = plot_h * value / top
        x, y = MARGIN_LEFT + i * step + step * 0.15, MARGIN_TOP + plot_h - h
        out.append(f'<text x="{x + step * 0.35:.1f}" y="{HEIGHT - 10}" text-anchor="middle">{escape(label[:14])}</text>')
        if value:
            out.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{step * 0.7:.1f}" height="{h:.1f}" '
                       f'fill="{colour}"><title>{escape(label)}: {escape(text)}</title></rect>')
            out.append(f'<text x="{x + step * 0.35:.1f}" y="{max(y - 3, 10):.1f}" text-anchor="middle">'
                       f'{escape(text)}</text>')
    if not any(values):
        out.append(f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" fill="#777">{escape(empty)}</text>')
    return "".join(out) + "</svg>"


def chart(report: DayReport, name: str) -> str | None:
    """One of the day's charts by name (hours, items, lost), or None for another name."""
    if name == "hours":
        sold = {h["hour"]: h for h in report.per_hour}
        hours = range(min([*sold, OPEN_HOURS.start]), max([*sold, OPEN_HOURS.stop - 1]) + 1)
        return bars(f"Sales per hour, {report.day}", [f"{h:02d}" for h in hours],
                    [sold[h]["sales"] if h in sold else 0 for h in hours],
                    [dollars(sold[h]["sales"]) if h in sold else "" for h in hours], "#1565c0", "No orders yet")
    if name == "items":
        items = report.top_items[:8]
        return bars(f"Top items, {report.day}", [i["item"] for i in items], [i["quantity"] for i in items],
                    [str(i["quantity"]) for i in items], "#2e7d32", "No orders yet")
    if name == "lost":
        lost = report.lost[:8]
        return bars(f"Refused, ran out, {report.day}", [i["item"] for i in lost], [i["cents"] for i in lost],
                    [dollars(i["cents"]) for i in lost], "#c62828", "Nothing refused for a runout")
    return None
