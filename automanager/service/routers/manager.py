"""The manager's routes: the administrator's chat, stock, pending changes, menu versions, the
audit history, the open lanes and what customers said that no bot understood. Each takes the
manager's token."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import StreamingResponse

from ...acts import Accept, Decline, Restore, Runout, Save
from ...language.manager_templates import describe
from ...star import said_as_phrase
from ..access import ManagerOnly
from ..models import (
    Answer,
    AppliedChange,
    Car,
    Closed,
    Line,
    ManagerTurn,
    PendingChanges,
    Stock,
    StockChange,
    Taught,
    Teach,
    Unheard,
    Versions,
)
from ..shared import Shared
from .lanes import STREAM_HEADERS

router = APIRouter(tags=["manager"], dependencies=[ManagerOnly])


@router.get("/api/lanes", response_model=list[Car])
def all_lanes(service: Shared) -> list[dict[str, Any]]:
    """Every open lane with its car's conversation and order."""
    return [service.lanes.view(lane) for lane in list(service.lanes.open.values())]


@router.delete("/api/manager/lanes/{lane_id}", response_model=Closed)
def manager_close_lane(lane_id: str, service: Shared) -> dict[str, Any]:
    """Close any open lane (its sessions stay saved; a page still showing it opens a new one)."""
    lane = service.lanes.find(lane_id)
    service.lanes.close(lane)
    return {"lane": lane.id, "closed": True}


@router.post("/api/manager/turns", response_model=ManagerTurn)
def manager_turn(line: Line, service: Shared) -> dict[str, Any]:
    """A line to the administrator bot: stock, menu changes, questions; 'save' applies pending changes."""
    return service.manager_turn(line.text)


@router.post("/api/manager/answer", response_model=ManagerTurn)
def manager_answer(answer: Answer, service: Shared) -> dict[str, Any]:
    """Yes or no to the administrator's open question (a read-back before a large change)."""
    return service.manager_turn("yes" if answer.yes else "no", [Accept() if answer.yes else Decline()])


@router.get("/api/stock", response_model=Stock)
def stock(service: Shared) -> dict[str, Any]:
    """What is out, since when, and the menu items each takes off; every food that can run out,
    filed by category with what is out first, and the menu items (what a phrase can be taught as)."""
    return service.stock()


@router.post("/api/stock", response_model=ManagerTurn)
def change_stock(change: StockChange, service: Shared) -> dict[str, Any]:
    """Mark a food out or back, as the administrator bot decides (a large runout is read back first)."""
    said = f"{change.name} is {'out' if change.out else 'back'}"
    return service.manager_turn(said, [(Runout if change.out else Restore)(change.name)])


@router.get("/api/pending", response_model=PendingChanges)
def pending(service: Shared) -> dict[str, Any]:
    """The manager's staged menu changes, not applied yet."""
    with service.manager_lock:
        return {"pending": [describe(*row) for row in service.manager.staged()]}


@router.post("/api/save", response_model=ManagerTurn)
def save(service: Shared) -> dict[str, Any]:
    """Apply the pending changes as the next menu version."""
    return service.manager_turn("save", [Save()])


@router.get("/api/versions", response_model=Versions)
def versions(service: Shared) -> dict[str, Any]:
    """The newest menu version and the changes each version applied."""
    applied: dict[int, list[dict[str, Any]]] = {}
    for row in service.history(500):
        if row["version"] is not None:
            applied.setdefault(row["version"], []).append(row)
    return {"latest": service.home.latest_version(),
            "versions": [{"version": v, "changes": rows} for v, rows in sorted(applied.items(), reverse=True)]}


@router.get("/api/history", response_model=list[AppliedChange])
def history(service: Shared, limit: int = 50) -> list[dict[str, Any]]:
    """The newest applied changes first: stock and menu, with old and new values, and in words."""
    if not 1 <= limit <= 1000:
        raise HTTPException(422, "limit: from 1 to 1000")
    return service.history(limit)


@router.get("/api/unheard", response_model=list[Unheard])
def unheard(service: Shared, status: str = "open") -> list[dict[str, Any]]:
    """What customers said that no name or act of the menu fits, most often first."""
    if status not in ("open", "taught", "not_sold"):
        raise HTTPException(422, "status: open, taught or not_sold")
    return service.home.unheard(status)


@router.post("/api/unheard/teach", response_model=Taught, response_model_exclude_none=True)
def teach(body: Teach, service: Shared) -> dict[str, Any]:
    """A phrase customers said that no bot understood: with item, read back as another name of
    that menu item (answer yes at /api/manager/answer to stage it, then save to publish it);
    without, marked as something we don't sell."""
    phrase = said_as_phrase(body.phrase)
    if service.home.heard(phrase) is None:
        raise HTTPException(404, f"no customer said '{phrase}' (GET /api/unheard lists what they said)")
    if body.item is not None:
        return service.teach(phrase, body.item)
    service.home.mark_unheard(phrase, "not_sold")
    return {"reply": f"Noted: we don't sell '{phrase}'.", "menu_version": service.home.latest_version(),
            "status": "not_sold"}


@router.get("/api/events", response_class=StreamingResponse)
async def events(service: Shared) -> StreamingResponse:
    """Every event, live (server-sent): stock, menu, lane, lane_closed, manager."""
    return StreamingResponse(service.events.stream(lambda _event: True, []), media_type="text/event-stream",
                             headers=STREAM_HEADERS)
