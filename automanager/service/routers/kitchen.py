"""The kitchen: its display's open tickets (live), bump and recall, with the kitchen's token or the
manager's (a header, or the kitchen page's cookie); and each order's receipt, at an address only the
service gives out (the lane page shows it after the close)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import HTMLResponse, PlainTextResponse, StreamingResponse

from ...orders import OrderBook, PlacedOrder, id_refused
from ...receipt import STYLE, receipt_html, receipt_text
from .. import auth, policy
from ..access import KitchenStaff
from ..models import Ticket
from ..shared import Service, Shared
from .lanes import STREAM_HEADERS

router = APIRouter(tags=["kitchen"], dependencies=[KitchenStaff])
receipts = APIRouter(include_in_schema=False)


@router.get("/api/kitchen/tickets", response_model=list[Ticket])
def tickets(service: Shared) -> list[dict[str, Any]]:
    """The open tickets, oldest first: what the kitchen has still to make."""
    return [order.as_dict() for order in OrderBook(service.home).open_tickets()]


@router.post("/api/kitchen/tickets/{order_id}/bump", response_model=Ticket)
def bump(order_id: int, service: Shared) -> dict[str, Any]:
    """The kitchen made it: off the display (recall brings it back)."""
    in_range(order_id)
    book = OrderBook(service.home)
    order = book.get(order_id)
    if order is None or not book.bump(order_id):
        raise HTTPException(404, f"no open ticket with id {order_id} (GET /api/kitchen/tickets lists them)")
    return {**order.as_dict(), "status": "done"}


@router.post("/api/kitchen/recall", response_model=Ticket)
def recall(service: Shared) -> dict[str, Any]:
    """The ticket bumped last, back on the display."""
    order = OrderBook(service.home).recall()
    if order is None:
        raise HTTPException(404, "no bumped ticket to recall")
    return {**order.as_dict(), "status": "open"}


@router.get("/api/kitchen/events", response_class=StreamingResponse)
async def kitchen_events(service: Shared) -> StreamingResponse:
    """The open tickets now, then again whenever they change (server-sent 'tickets' events)."""
    now = {"kind": "tickets", "tickets": [order.as_dict() for order in OrderBook(service.home).open_tickets()]}
    return StreamingResponse(service.events.stream(lambda event: event["kind"] == "tickets", [now]),
                             media_type="text/event-stream", headers=STREAM_HEADERS)


def in_range(order_id: int) -> int:
    """An order id from a path, if a row can have it (1 to 2^63 - 1); else 422 saying so."""
    if (why := id_refused(order_id, "order_id")) is not None:
        raise HTTPException(422, why)
    return order_id


def receipt_of(service: Service, order_id: int, key: str) -> PlacedOrder:
    in_range(order_id)
    order = OrderBook(service.home).get(order_id) if auth.same(key, auth.receipt_key(service.token, order_id)) else None
    if order is None:
        raise HTTPException(404, "no such receipt: use the address the lane page gave")
    return order


@receipts.get("/receipts/{order_id}/{key}.txt", response_class=PlainTextResponse)
def receipt_as_text(order_id: int, key: str, service: Shared) -> str:
    return receipt_text(receipt_of(service, order_id, key), service.manager.ready().restaurant)


RECEIPT_POLICY = policy.with_style(policy.digest(STYLE))  # its one style block, by its hash


@receipts.get("/receipts/{order_id}/{key}", response_class=HTMLResponse)
def receipt_page(order_id: int, key: str, service: Shared) -> HTMLResponse:
    return HTMLResponse(receipt_html(receipt_of(service, order_id, key), service.manager.ready().restaurant),
                        headers={"Content-Security-Policy": RECEIPT_POLICY})
