"""The lanes a service serves: each a customer chat that greets car after car, kept in memory and
found again after a restart (the store keeps which session each lane is serving). A turn may carry
an id: sent again (the page retried after a lost answer or a restart), it is answered from the
transcript and never taken twice."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..llm.openai_backend import LLMConfig
from ..star import CustomerChat, addressed
from ..store import Home, StateError
from . import auth

LOG = logging.getLogger(__name__)
MAX_LANES = 64  # open at once: a restaurant runs a few; a runaway client cannot fill memory
IDLE = 30 * 60  # seconds without a line after which a lane may be closed to open another (a page left open)


class LaneError(Exception):
    """A request about a lane that cannot be served; status is the HTTP status it answers with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class Lane:
    id: str
    token_hash: str
    chat: CustomerChat
    finished: CustomerChat | None = None  # the car served last, while the next one has said nothing
    lock: threading.Lock = field(default_factory=threading.Lock)
    heard: float = field(default_factory=time.monotonic)  # when its last line came


class Lanes:
    def __init__(self, home: Home, llm: LLMConfig | None, publish: Callable[..., None]):
        self.home, self.llm, self.publish = home, llm, publish  # publish(kind, **data): the event stream
        self.open: dict[str, Lane] = {}
        self.lock = threading.Lock()

    def restore(self) -> None:
        """The lanes open when the service stopped, each in the session it was serving."""
        for lane_id, token_hash, session in self.home.lanes():
            try:
                chat = CustomerChat(self.home, session, self.llm)
            except StateError:  # its first turn never landed (or the file is gone): a new car
                chat = self.new_chat(lane_id)
            lane = self.open[lane_id] = Lane(lane_id, token_hash, chat)
            if chat.ended:
                lane.finished, lane.chat = chat, self.new_chat(lane_id)

    def new_chat(self, lane_id: str) -> CustomerChat:
        chat = CustomerChat(self.home, llm=self.llm)
        self.home.lane_session(lane_id, chat.session_id)
        return chat

    def start(self) -> tuple[Lane, str]:
        """A new lane and its token (shown once: the store keeps only its digest)."""
        with self.lock:
            if len(self.open) >= MAX_LANES:
                self.close_idle()
            if len(self.open) >= MAX_LANES:
                raise LaneError(429, f"{MAX_LANES} lanes are open already and none has been idle for "
                                     f"{IDLE // 60} minutes; close one first (DELETE /api/lanes/<lane>)")
            token, token_hash = auth.new_lane_token()
            lane_id = secrets.token_hex(6)
            chat = CustomerChat(self.home, llm=self.llm)
            self.home.open_lane(lane_id, token_hash, chat.session_id)
            lane = self.open[lane_id] = Lane(lane_id, token_hash, chat)
        self.publish("lane", **self.view(lane))
        return lane, token

    def close_idle(self) -> None:
        """Close the lane idle longest, if it has been idle long enough (a tab closed without
        closing its lane must not keep the next one from opening)."""
        idle = min(self.open.values(), key=lambda lane: lane.heard)
        if time.monotonic() - idle.heard >= IDLE and idle.lock.acquire(blocking=False):
            try:
                self.forget(idle)
            finally:
                idle.lock.release()

    def get(self, lane_id: str, token: str | None) -> Lane:
        """The lane, for its own token only (another lane's token is no key to it)."""
        lane = self.open.get(lane_id)
        if lane is None:
            raise LaneError(404, f"no open lane '{lane_id[:40]}'; open one with POST /api/lanes")
        if not auth.same(auth.digest(token) if token else None, lane.token_hash):
            raise LaneError(403, "this lane's token is needed (the one POST /api/lanes gave), as 'Authorization: "
                                 "Bearer <token>'")
        return lane

    def turn(self, lane: Lane, text: str, turn_id: str | None) -> dict[str, Any]:
        """One customer line on a lane: its reply and the order board after it."""
        with lane.lock:
            done = self.answered(lane, turn_id)
            if done is not None:
                return done
            lane.heard = time.monotonic()
            self.next_car(lane)  # (if the store could not greet it after the last turn)
            chat = addressed(lane.chat, lane.finished, text)
            chat.catch_up()
            turn = chat.turn(text, turn_id=turn_id)
            answer = {**car(lane, chat, turn.board), "text": turn.text, "reply": turn.reply}
            try:
                self.next_car(lane)
            except StateError as exc:  # the turn is saved and answered: the next line greets the next car
                LOG.warning("lane %s: the next car waits for the store: %s", lane.id, exc)
        self.publish("lane", **answer)  # the car as this line left it (its board, and whether it has left)
        return answer

    def next_car(self, lane: Lane) -> None:
        """Once the car has left, the next one is greeted in a new session."""
        if lane.chat.ended:
            lane.finished, lane.chat = lane.chat, self.new_chat(lane.id)

    def answered(self, lane: Lane, turn_id: str | None) -> dict[str, Any] | None:
        """A turn already taken under this id, in the car now or the one before."""
        if not turn_id:
            return None
        for chat in filter(None, (lane.chat, lane.finished)):
            for said in reversed(chat.history):
                if said.get("id") == turn_id:
                    return {**car(lane, chat), "text": said["user"], "reply": said["bot"], "repeated": True}
        return None

    def view(self, lane: Lane) -> dict[str, Any]:
        """What a lane shows now: its car's conversation and order board."""
        with lane.lock:
            return car(lane, lane.chat)

    def close(self, lane: Lane) -> None:
        with self.lock:
            self.forget(lane)

    def forget(self, lane: Lane) -> None:
        """The lane is closed (its sessions stay saved)."""
        self.home.close_lane(lane.id)  # first: a store that cannot say so leaves the lane open, to close again
        self.open.pop(lane.id, None)
        self.publish("lane_closed", lane=lane.id)


def car(lane: Lane, chat: CustomerChat, board: dict[str, Any] | None = None) -> dict[str, Any]:
    """A car at a lane: its session, the greeting it had, its conversation and its priced order
    board (`board`: as its last turn's decision left it, else priced now)."""
    return {"lane": lane.id, "session": chat.session_id, "greeting": chat.templates.greeting(), "ended": chat.ended,
            "menu_version": chat.menu_version, "turns": [{"user": t["user"], "bot": t["bot"]} for t in chat.history],
            **(board or chat.board())}
