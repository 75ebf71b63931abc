"""The lanes a service serves: each a customer chat that greets car after car, kept in memory and
found again after a restart (the store keeps which session each lane is serving). A turn may carry
an id: sent again (the page retried after a lost answer or a restart), it is answered from the
transcript and never taken twice.

A lane closes by itself when no page watches it (its event stream) and no line came for the idle
time, or a few seconds after its page said it left (a closed tab), unless the page comes back (a
reload). One address (an IPv6 client's /64, which it may pick any address of) may open only so many
lanes a minute and hold only so many at once, so a runaway client cannot lock the real lanes out;
and when every lane is taken, an address holding more than its share gives up its quietest lane
to an address holding fewer (as does any address for a lane no car has spoken at for the idle
time, even one a page still watches): lanes held open by pages that never order cannot keep real
cars out. A lane has at most MAX_STREAMS event streams (a new one ends the oldest), and a lane
closed ends its streams."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from ..llm.openai_backend import LLMConfig
from ..settings import setting
from ..star import CustomerChat, addressed
from ..store import Home, StateError
from . import auth

LOG = logging.getLogger(__name__)
MAX_LANES = 64  # open at once: a restaurant runs a few; a runaway client cannot fill memory
IDLE_SETTING = "AUTOMANAGER_LANE_IDLE"
IDLE = 15 * 60  # seconds a lane no page watches and no car speaks at stays open (the default)
LEFT = 10.0  # seconds a lane whose page left (a beacon, its stream ended) waits for the page to come back
PER_CLIENT_SETTING = "AUTOMANAGER_LANES_PER_CLIENT"
PER_CLIENT = 16  # lanes one address may hold open at once, and open in a minute (the default)
MAX_STREAMS = 3  # event streams of one lane at once (its page, and a reload's): a new one ends the oldest


def client_of(host: str | None) -> str:
    """Whom lanes are counted for: the address, an IPv6 client's /64 network (one machine may
    have them all), an IPv4 address written as IPv6 as itself; '' when unknown."""
    if not host:
        return ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


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
    client: str = ""  # the address that opened it
    lock: threading.Lock = field(default_factory=threading.Lock)
    heard: float = field(default_factory=time.monotonic)  # when its page or car was last heard from
    watching: int = 0  # its event streams open now (pages showing it)
    streams: list[asyncio.Queue[Any]] = field(default_factory=list)  # theirs, oldest first (None ends one)


class Lanes:
    def __init__(self, home: Home, llm: LLMConfig | None, publish: Callable[..., None],
                 receipt_url: Callable[[int], str] = str):
        self.home, self.llm, self.publish = home, llm, publish  # publish(kind, **data): the event stream
        self.receipt_url = receipt_url  # an order id's receipt page
        self.open: dict[str, Lane] = {}
        self.lock = threading.Lock()
        self.idle = setting(IDLE_SETTING, float, float(IDLE), "a number of seconds above 0",
                            lambda s: 0 < s < math.inf)
        self.per_client = setting(PER_CLIENT_SETTING, int, PER_CLIENT, f"a whole number of lanes from 1 to {MAX_LANES}",
                                  lambda n: 1 <= n <= MAX_LANES)
        self.opened: dict[str, deque[float]] = {}  # per address: when it opened its lanes in the last minute
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def restore(self) -> None:
        """The lanes open when the service stopped, each in the session it was serving."""
        for lane_id, token_hash, session, finished in self.home.lanes():
            try:
                chat = self.chat_for(lane_id, session)
            except StateError:  # its first turn never landed (or the file is gone): a new car
                chat = self.new_chat(lane_id)
            lane = self.open[lane_id] = Lane(lane_id, token_hash, chat, finished=self.saved_chat(lane_id, finished))
            if chat.ended:
                lane.finished, lane.chat = chat, self.new_chat(lane_id, chat)

    def saved_chat(self, lane_id: str, session: str | None) -> CustomerChat | None:
        """The car a lane served last, as saved (None when it has none, or its file is gone)."""
        try:
            return self.chat_for(lane_id, session) if session else None
        except StateError:
            return None

    def chat_for(self, lane_id: str, session: str | None = None) -> CustomerChat:
        """A lane's car (a new one, or the saved session it was serving): its orders say the lane."""
        chat = CustomerChat(self.home, session, self.llm)
        chat.source = f"lane {lane_id}"
        return chat

    def new_chat(self, lane_id: str, finished: CustomerChat | None = None) -> CustomerChat:
        chat = self.chat_for(lane_id)
        self.home.lane_session(lane_id, chat.session_id, finished.session_id if finished else None)
        return chat

    def start(self, client: str = "") -> tuple[Lane, str]:
        """A new lane for `client` (an address) and its token (shown once: the store keeps only its digest)."""
        with self.lock:
            self.close_idle()
            self.admit(client)
            if len(self.open) >= MAX_LANES and not self.make_room(client):
                raise LaneError(429, f"{MAX_LANES} lanes are open already, none is idle and no address holds more "
                                     "than its share; close one first (DELETE /api/lanes/<lane>, or the manager "
                                     "closes one on the dashboard)")
            token, token_hash = auth.new_lane_token()
            lane_id = secrets.token_hex(6)
            chat = self.chat_for(lane_id)
            self.home.open_lane(lane_id, token_hash, chat.session_id)
            lane = self.open[lane_id] = Lane(lane_id, token_hash, chat, client=client)
            self.opened[client].append(time.monotonic())
        self.publish("lane", **self.view(lane))
        return lane, token

    def admit(self, client: str) -> None:
        """Refuse a client that holds `per_client` lanes or opened as many in the last minute."""
        now = time.monotonic()
        for address in list(self.opened):  # forget what is older than a minute (and addresses gone quiet)
            times = self.opened[address]
            while times and now - times[0] >= 60:
                times.popleft()
            if not times:
                del self.opened[address]
        recent = self.opened.setdefault(client, deque())
        if len(recent) >= self.per_client:
            raise LaneError(429, f"this address opened {self.per_client} lanes in the last minute; wait "
                                 f"{math.ceil(60 - (now - recent[0]))} seconds, or reuse a lane it opened")
        if sum(lane.client == client for lane in self.open.values()) >= self.per_client:
            raise LaneError(429, f"this address holds {self.per_client} open lanes already; close one first "
                                 "(DELETE /api/lanes/<lane>)")

    def make_room(self, client: str) -> bool:
        """Every lane is taken: close one for `client`, if another address holds more than its share.
        The lane given up is of the address holding most: one no car has spoken at for the idle time
        (a page may still watch it) from an address holding more lanes than `client`, else any from
        an address holding two more than `client` (so its share stays no smaller than the
        newcomer's); first the lanes with no car mid-order, then the quietest. A lane mid-turn is
        never closed."""
        now = time.monotonic()
        held = Counter(lane.client for lane in self.open.values())
        mine = held[client]

        def may_go(lane: Lane) -> bool:
            theirs = held[lane.client]
            return theirs > mine + 1 or (theirs > mine and now - lane.heard >= self.idle)

        def order(lane: Lane) -> tuple[int, bool, float]:
            ordering = bool(lane.chat.history) and not lane.chat.ended
            return -held[lane.client], ordering, lane.heard

        for lane in sorted(filter(may_go, self.open.values()), key=order):
            if lane.lock.acquire(blocking=False):
                try:
                    LOG.warning("lane %s of %s (holding %d lanes) closed for a car of %s (holding %d): every "
                                "lane was taken", lane.id, lane.client or "an unknown address", held[lane.client],
                                client or "an unknown address", mine)
                    self.forget(lane)
                    return True
                finally:
                    lane.lock.release()
        return False

    def close_idle(self) -> None:
        """Close every lane no page watches and no car has spoken at for the idle time (a lane
        mid-turn is left alone): a tab closed must not keep its lane, nor the next one from opening."""
        now = time.monotonic()
        for lane in list(self.open.values()):
            if lane.watching == 0 and now - lane.heard >= self.idle and lane.lock.acquire(blocking=False):
                try:
                    self.forget(lane)
                finally:
                    lane.lock.release()

    def run(self) -> None:
        """Close idle lanes every few seconds (a quarter of the idle time at most) until stopped."""
        while not self.stopping.wait(min(self.idle / 4, LEFT / 2)):
            try:
                with self.lock:
                    self.close_idle()
            except StateError as exc:  # the store is away for now: the next look closes them
                LOG.warning("idle lanes not closed: %s", exc)

    def start_sweeping(self) -> None:
        self.thread = threading.Thread(target=self.run, name="service-lanes", daemon=True)
        self.thread.start()

    def stop_sweeping(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(5)

    def left(self, lane: Lane) -> None:
        """Its page went away (a beacon, or its stream ended): the lane closes in LEFT seconds
        unless a page comes back for it (a reload), or a line comes."""
        lane.heard = time.monotonic() - self.idle + min(LEFT, self.idle)

    async def watch(self, lane: Lane, stream: AsyncIterator[str], queue: asyncio.Queue[Any]) -> AsyncIterator[str]:
        """A page's event stream of the lane (`queue`: the one it reads): the lane is not idle while
        one is open. Past MAX_STREAMS, the oldest ends (a None in its queue)."""
        lane.watching += 1
        lane.heard = time.monotonic()
        lane.streams.append(queue)
        while len(lane.streams) > MAX_STREAMS:
            lane.streams.pop(0).put_nowait(None)
        try:
            async for chunk in stream:
                yield chunk
                if self.open.get(lane.id) is not lane:  # closed (its lane_closed event went out): it ends
                    return
        finally:
            if queue in lane.streams:
                lane.streams.remove(queue)
            lane.watching -= 1
            if lane.watching == 0:
                self.left(lane)

    def get(self, lane_id: str, token: str | None) -> Lane:
        """The lane, for its own token only (another lane's token is no key to it)."""
        lane = self.open.get(lane_id)
        if lane is None:
            raise LaneError(404, f"no open lane '{lane_id[:40]}'; open one with POST /api/lanes")
        if not auth.same(auth.token_digest(token) if token else None, lane.token_hash):
            raise LaneError(403, "this lane's token is needed (the one POST /api/lanes gave), as 'Authorization: "
                                 "Bearer <token>'")
        lane.heard = time.monotonic()  # its page is here
        return lane

    def find(self, lane_id: str) -> Lane:
        """The lane, for the manager (no lane token)."""
        lane = self.open.get(lane_id)
        if lane is None:
            raise LaneError(404, f"no open lane '{lane_id[:40]}' (GET /api/lanes lists them)")
        return lane

    def turn(self, lane: Lane, text: str, turn_id: str | None, sure: bool | None = None) -> dict[str, Any]:
        """One customer line on a lane: its reply and the order board after it (`sure`: None for a
        typed line; for a spoken one, whether the recognizer is sure of it: a line it is not sure of
        is asked about and never acted on)."""
        with lane.lock:
            done = self.answered(lane, turn_id)
            if done is not None:
                return done
            lane.heard = time.monotonic()
            self.next_car(lane)  # (if the store could not greet it after the last turn)
            chat = addressed(lane.chat, lane.finished, text)
            chat.catch_up()
            turn = chat.turn(text, None, turn_id) if sure is None else chat.heard(text, sure, turn_id)
            answer = {**self.car(lane, chat, turn.board), "text": turn.text, "reply": turn.reply}
            try:
                self.next_car(lane)
            except StateError as exc:  # the turn is saved and answered: the next line greets the next car
                LOG.warning("lane %s: the next car waits for the store: %s", lane.id, exc)
        self.publish("lane", **answer)  # the car as this line left it (its board, and whether it has left)
        return answer

    def next_car(self, lane: Lane) -> None:
        """Once the car has left, the next one is greeted in a new session."""
        if lane.chat.ended:
            lane.finished, lane.chat = lane.chat, self.new_chat(lane.id, lane.chat)

    def answered(self, lane: Lane, turn_id: str | None) -> dict[str, Any] | None:
        """A turn already taken under this id, in the car now or the one before."""
        if not turn_id:
            return None
        for chat in filter(None, (lane.chat, lane.finished)):
            for said in reversed(chat.history):
                if said.get("id") == turn_id:
                    return {**self.car(lane, chat), "text": said["user"], "reply": said["bot"], "repeated": True}
        return None

    def car(self, lane: Lane, chat: CustomerChat, board: dict[str, Any] | None = None) -> dict[str, Any]:
        """A car at a lane: its session, the greeting it had, its conversation, its priced order
        board (`board`: as its last turn's decision left it, else priced now) and, once it closed,
        the ticket the kitchen has and its receipt."""
        order = chat.orders.of_session(chat.session_id) if chat.ended else None
        placed = {"id": order.id, "ticket": order.ticket, "tax": order.tax, "paid": order.total,
                  "receipt": self.receipt_url(order.id)} if order else None
        return {"lane": lane.id, "session": chat.session_id, "greeting": chat.templates.greeting(),
                "ended": chat.ended, "menu_version": chat.menu_version,
                "turns": [{"user": t["user"], "bot": t["bot"]} for t in chat.history], **(board or chat.board()),
                "placed": placed}

    def said_back(self, lane: Lane, turn_id: str) -> str | None:
        """The reply a turn of this lane's car (or the one before) had, by its id."""
        for chat in filter(None, (lane.chat, lane.finished)):
            for said in reversed(chat.history):
                if said.get("id") == turn_id:
                    return str(said["bot"])
        return None

    def view(self, lane: Lane) -> dict[str, Any]:
        """What a lane shows now: its car's conversation and order board."""
        with lane.lock:
            return self.car(lane, lane.chat)

    def close(self, lane: Lane) -> None:
        with self.lock:
            self.forget(lane)

    def forget(self, lane: Lane) -> None:
        """The lane is closed (its sessions stay saved)."""
        self.home.close_lane(lane.id)  # first: a store that cannot say so leaves the lane open, to close again
        self.open.pop(lane.id, None)
        self.publish("lane_closed", lane=lane.id)
