"""A drive-through lane's routes: open one, say a line, see its car, close it, follow it live.
Each takes the lane's own token; nothing here changes the stock, the menu or the aliases."""

from __future__ import annotations

import asyncio
import re
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse

from ... import voice
from ..access import FromOwnSite, Token
from ..errors import MAX_AUDIO
from ..events import Event
from ..lanes import client_of
from ..models import Car, Closed, Closing, LaneTurn, Line, OpenedLane, SpokenTurn
from ..shared import Shared

STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
router = APIRouter(prefix="/api/lanes", tags=["lanes"])


@router.post("", status_code=201, response_model=OpenedLane, dependencies=[FromOwnSite])
def open_lane(request: Request, service: Shared) -> dict[str, Any]:
    """Open a lane: its id and token (keep it: every lane route needs it) and its greeting. One
    address may hold 16 lanes and open 16 a minute ($AUTOMANAGER_LANES_PER_CLIENT; 429 beyond,
    saying what to do); when all are taken, an address holding more than its share gives one up.
    A browser opens one from this service's own pages only (its Origin and Sec-Fetch-Site; 403
    from another site's page); a client that is no browser sends neither and is served."""
    lane, token = service.lanes.start(client_of(request.client.host if request.client else None))
    return {"token": token, "store": service.home.store, **service.lanes.view(lane)}


@router.post("/{lane_id}/turns", response_model=LaneTurn)
def lane_turn(lane_id: str, line: Line, token: Token, service: Shared) -> dict[str, Any]:
    """A customer line: the reply, and the order board after it (lines and total in cents)."""
    return service.lanes.turn(service.lanes.get(lane_id, token), line.text, line.turn_id)


@router.post("/{lane_id}/speech", response_model=SpokenTurn)
async def lane_speech(lane_id: str, request: Request, token: Token, service: Shared, turn_id: str) -> dict[str, Any]:
    """A customer line spoken: the recording as the body (WAV, WebM/Opus, ...), `?turn_id=` as for a
    typed line (sent again, it is taken once). The words heard and how sure the recognizer is come
    back with the turn; a line it is not sure of is asked about, never ordered. 503 without the
    voice extra."""
    lane = service.lanes.get(lane_id, token)
    if (why := voice.missing()) is not None:
        raise HTTPException(503, f"no voice lane here: {why}")
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", turn_id):
        raise HTTPException(422, "turn_id: 1 to 64 letters, digits, '-' or '_'")
    audio = await request.body()
    if not audio or len(audio) > MAX_AUDIO:
        raise HTTPException(413 if audio else 422, f"a recording of 1 to {MAX_AUDIO:,} bytes is needed")
    try:
        heard = await run_in_threadpool(voice.transcribe, audio, service.menu_prompt())
    except voice.BadAudio as exc:  # no recording, or an absurd one: said, and the lane's car is unchanged
        raise HTTPException(exc.status, f"the body cannot be heard as a spoken line: {exc}") from None
    answer = await run_in_threadpool(service.lanes.turn, lane, heard.text, turn_id, heard.sure)
    return {**answer, "heard": heard.text, "confidence": heard.confidence, "doubtful": list(heard.doubtful),
            "sure": heard.sure, "audio": f"/api/lanes/{lane.id}/speech/{turn_id}.wav"}


@router.get("/{lane_id}/speech/{turn_id}.wav", response_class=Response)
def lane_reply_audio(lane_id: str, turn_id: str, header: Token, service: Shared, token: str | None = None) -> Response:
    """A turn's reply spoken (WAV), shortened for the ear, streamed as it is made so the speaker
    begins at once; the lane's token as a header or ?token= (an audio element sends no header)."""
    lane = service.lanes.get(lane_id, header or token)
    if (why := voice.missing()) is not None:
        raise HTTPException(503, f"no voice lane here: {why}")
    reply = service.lanes.said_back(lane, turn_id)
    if reply is None:
        raise HTTPException(404, f"no turn '{turn_id[:64]}' on this lane's cars")
    return StreamingResponse(voice.speech(reply), media_type="audio/wav", headers={"Cache-Control": "no-store"})


@router.get("/{lane_id}", response_model=Car)
def lane_view(lane_id: str, token: Token, service: Shared) -> dict[str, Any]:
    """The lane's car now: the conversation and the order board."""
    return service.lanes.view(service.lanes.get(lane_id, token))


@router.delete("/{lane_id}", response_model=Closed)
def close_lane(lane_id: str, token: Token, service: Shared) -> dict[str, Any]:
    """Close the lane (its sessions stay saved)."""
    lane = service.lanes.get(lane_id, token)
    service.lanes.close(lane)
    return {"lane": lane.id, "closed": True}


@router.post("/{lane_id}/left", status_code=202, response_model=Closing)
async def lane_left(lane_id: str, request: Request, service: Shared) -> dict[str, Any]:
    """The lane page went away (navigator.sendBeacon on page hide, the lane's token as the form
    field `token`): the lane closes in a few seconds unless its page comes back (a reload)."""
    token = parse_qs((await request.body()).decode("utf-8", "replace")).get("token", [None])[0]
    service.lanes.left(service.lanes.get(lane_id, token))
    return {"lane": lane_id, "closing": True}


@router.get("/{lane_id}/events", response_class=StreamingResponse)
async def lane_events(lane_id: str, header: Token, service: Shared, token: str | None = None) -> StreamingResponse:
    """The lane's live events (server-sent): its order, runouts and restocks, menu versions. A
    browser's EventSource sends no header: the token may come as ?token=."""
    lane = service.lanes.get(lane_id, header or token)

    def wants(event: Event) -> bool:
        return event["kind"] in ("stock", "menu") or event.get("lane") == lane.id

    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    return StreamingResponse(service.lanes.watch(lane, service.events.stream(wants, [], queue), queue),
                             media_type="text/event-stream", headers=STREAM_HEADERS)
