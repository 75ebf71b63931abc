"""The live event stream the pages listen to (server-sent events): runouts and restocks, new menu
versions, lane orders and manager turns. Turns run in worker threads; they publish here and the
event loop hands each event to every listener whose filter takes it, so no page polls."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from ..store import Home, StateError

HEARTBEAT = 15.0  # seconds between keep-alive comments, so proxies keep an idle stream open
BACKLOG = 256  # events a slow listener may fall behind before it is dropped (its page reconnects)
WATCH = 0.5  # seconds between looks at the shared store, which the terminal chats also change

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

    async def stream(self, wants: Callable[[Event], bool], first: list[Event]) -> AsyncIterator[str]:
        """The text/event-stream of one listener: `first` (the state now), then what happens."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()  # None: the stream ends
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
    the service's manager chat or a terminal chat on the same state dir)."""

    def __init__(self, home: Home, events: Events, dishes_out: Callable[[list[str]], dict[str, list[str]]]):
        self.home, self.events, self.dishes_out = home, events, dishes_out
        self.stopping = threading.Event()
        self.stock: list[str] | None = None
        self.version: int | None = None

    def start(self) -> None:
        self.look()
        threading.Thread(target=self.run, name="service-watcher", daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        while not self.stopping.wait(WATCH):
            self.look()

    def look(self) -> None:
        try:
            stock, version = self.home.stock_out(), self.home.latest_version()
        except StateError:
            return  # the store is being replaced or is damaged: the next look tries again
        if stock != self.stock:
            before = set(self.stock or [])
            self.stock = stock
            self.events.publish("stock", out=stock, ran_out=sorted(set(stock) - before),
                                back=sorted(before - set(stock)), dishes_out=self.dishes_out(stock))
        if version != self.version:
            self.version = version
            self.events.publish("menu", version=version)
