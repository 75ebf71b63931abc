"""The manager's day in numbers on the dashboard: the figures (JSON) and their charts (SVG drawn
on the server). Each takes the manager's token."""

from __future__ import annotations

from datetime import date
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

from ...charts import chart
from ...report import day_report
from ..access import ManagerOnly
from ..shared import Service, Shared

router = APIRouter(tags=["report"], dependencies=[ManagerOnly])


def report_of(service: Service, day: str | None):
    try:
        when = date.fromisoformat(day) if day else service.home.now().date()
    except ValueError:
        raise HTTPException(422, f"day {str(day)[:20]!r} is no date: give it as YYYY-MM-DD") from None
    return day_report(service.home, when)


@router.get("/api/report")
def report(service: Shared, day: str | None = None) -> dict[str, Any]:
    """The day's figures (the store's local day; today without ?day=YYYY-MM-DD): orders, sales, tax,
    the average ticket, sales per hour, top items, what ran out and its value, what was not understood."""
    return report_of(service, day).as_dict()


@router.get("/api/report/{name}.svg", response_class=Response)
def report_chart(name: str, service: Shared, day: str | None = None) -> Response:
    """One chart of the day: hours (sales per hour), items (top items) or lost (refused, ran out)."""
    drawn = chart(report_of(service, day), name)
    if drawn is None:
        raise HTTPException(404, f"no chart '{name[:20]}': hours, items or lost")
    return Response(drawn, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})
