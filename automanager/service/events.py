"""The live event stream the pages listen to (server-sent events): runouts and restocks, new menu
versions, lane orders, manager turns and the kitchen's open tickets. Turns run in worker threads; they publish here and the
event loop hands each event to every listener whose filter takes it, so no page polls."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..database import DatabaseError, Listener
from ..orders import OrderBook
from ..store import Home, StateError

LOG = logging.getLogger(__name__)
LOG.addHandler(logging.NullHandler())

HEARTBEAT = 15.0  # seconds between keep-alive comments, so proxies keep an idle stream open
BACKLOG = 256  # events a slow listener may fall behind before it is dropped (its page reconnects)
WATCH = 0.5  # seconds between looks at the shared store while no notification can be heard
WAKE = 1.0  # seconds a listening watcher waits at most before checking whether the service stops
RETRY_FIRST, RETRY_MAX = 0.5, 30.0  # seconds before listening again after a lost connection (doubling)

Event = dict[str, Any]


class Events:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.listeners: set[tuple[asyncio.Queue[Event | None], Callable[[Event], bool]]] = set()

    def publish(self, kind: str, **data: Any) -> None:
        """From any thread: the event reaches every listener that wants it."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._fan_out, {"kind": kind, **data})

    def _fan_out(self, event: Event) -> None:
        for queue, wants in list(self.listeners):
            if wants(event):
                if queue.qsize() >= BACKLOG:
                    queue.put_nowait(None)  # too far behind: the stream ends, the page reconnects
                else:
                    queue.put_nowait(event)

    async def stream(self, wants: Callable[[Event], bool], first: list[Event],
                     queue: asyncio.Queue[Event | None] | None = None) -> AsyncIterator[str]:
        """The text/event-stream of one listener: `first` (the state now), then what happens
        (`queue`: the one it reads, to end it from outside with a None)."""
        if queue is None:
            queue = asyncio.Queue()  # None: the stream ends
        entry = (queue, wants)
        self.listeners.add(entry)
        try:
            for now in first:
                yield sse(now)
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), HEARTBEAT)
                except TimeoutError:
                    yield ": still here\n\n"
                    continue
                if event is None:
                    return
                yield sse(event)
        finally:
            self.listeners.discard(entry)


def sse(event: Event) -> str:
    return f"event: {event['kind']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"


class Watcher:
    """Publishes changes of the shared stock list and menu versions, whoever made them (a page,
    the service's manager chat, a terminal chat on the same state dir, or another machine of the
    chain on the same PostgreSQL database).

    It looks at the store when the database's listener hears of a change: on PostgreSQL a
    notification at the commit (no polling); on SQLite at once for this process's writes and every
    WATCH seconds for other processes'. When the PostgreSQL connection drops, it looks every WATCH
    seconds while it listens again after RETRY_FIRST seconds, doubling up to RETRY_MAX, and looks
    once more when listening again: notifications sent meanwhile are lost, the store is not.
    """

    def __init__(self, home: Home, events: Events, dishes_out: Callable[[list[str]], dict[str, list[str]]]):
        self.home, self.events, self.dishes_out = home, events, dishes_out
        self.stopping = threading.Event()
        self.stock: list[str] | None = None
        self.version: int | None = None
        self.tickets: list[dict[str, Any]] | None = None  # the kitchen's open tickets as last published
        self.state = "starting"  # "listening", or "polling" while the listener is not connected
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.look()
        self.thread = threading.Thread(target=self.run, name="service-watcher", daemon=True)
        self.thread.start()

    def stop(self, wait: float = 5.0) -> None:
        """Stop; the thread wakes within WAKE seconds (or a connect's timeout) and ends."""
        self.stopping.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(wait)

    def run(self) -> None:
        try:
            listener = self.home.database.listener()
        except StateError as exc:  # no database yet (a bad setting): look as before, the error shows elsewhere
            LOG.warning("cannot listen for changes (%s); looking at the store every %.1f s", exc, WATCH)
            self.state = "polling"
            while not self.stopping.wait(WATCH):
                self.look()
            return
        try:
            self.listen(listener)
        finally:
            listener.close()

    def listen(self, listener: Listener) -> None:
        retry_in, retry_at = RETRY_FIRST, 0.0
        lost_at: float | None = None
        while not self.stopping.is_set():
            if self.state != "listening":
                if time.monotonic() >= retry_at:
                    try:
                        listener.connect()
                    except DatabaseError as exc:
                        retry_at = time.monotonic() + retry_in
                        LOG.log(logging.WARNING if self.state == "starting" else logging.INFO,
                                "%s; looking at the store every %.1f s, next try in %.1f s", exc, WATCH, retry_in)
                        retry_in = min(retry_in * 2, RETRY_MAX)
                        self.state = "polling"
                        self.look()
                    else:
                        if lost_at is not None:
                            LOG.warning("listening for changes again after %.1f s; looking at the store for what "
                                        "changed meanwhile", time.monotonic() - lost_at)
                        else:
                            LOG.info("listening for changes of the store (%s)", self.home.database.engine)
                        self.state, retry_in, lost_at = "listening", RETRY_FIRST, None
                        self.look()  # what changed before LISTEN took effect, or while disconnected
                        continue
                if self.stopping.wait(max(0.0, min(WATCH, retry_at - time.monotonic()))):
                    break
                if time.monotonic() < retry_at:  # a poll; else listening is tried first, and looks when it works
                    self.look()
                continue
            try:
                heard = listener.wait(WAKE)
            except DatabaseError as exc:
                lost_at, retry_at = time.monotonic(), time.monotonic() + retry_in
                self.state = "polling"
                LOG.warning("%s; looking at the store every %.1f s while listening again (first try in %.1f s)",
                            exc, WATCH, retry_in)
                self.look()
                continue
            if heard and not self.stopping.is_set():
                LOG.debug("heard %s", heard)
                self.look()

    def look(self) -> None:
        try:
            stock, version = self.home.stock_out(), self.home.latest_version()
            tickets = [order.as_dict() for order in OrderBook(self.home).open_tickets()]
        except StateError:
            return  # the store is being replaced or is damaged: the next look tries again
        if tickets != self.tickets:
            self.tickets = tickets
            self.events.publish("tickets", tickets=tickets)
        if stock != self.stock:
            before = set(self.stock or [])
            self.stock = stock
            self.events.publish("stock", out=stock, ran_out=sorted(set(stock) - before),
                                back=sorted(before - set(stock)), dishes_out=self.dishes_out(stock))
        if version != self.version:
            self.version = version
            self.events.publish("menu", version=version)
