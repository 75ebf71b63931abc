"""The HTTP server under the service (uvicorn, its h11 protocol) made to hold under a flood:

- a request's line and headers must all arrive within `header_seconds` of the connection (or of
  the answer before, on a kept-alive connection); else the connection is answered 408 and closed
  (h11 waits for them for good: a connection that never finishes its headers held a descriptor
  forever). Over HTTPS the TLS handshake is part of that time and counts from the connection, as
  the cap below does: a connection still in its handshake holds a descriptor too;
- at most `max_connections` connections are held at once, fewer when the process's descriptor
  limit leaves no room for them: a connection over the cap closes the one that has waited
  longest for its request's headers (a slow or idle one, never one mid-request), or itself when
  every connection is busy, so descriptors never run out and a real request is still answered;
- an answer the client stops reading for `stall_seconds` closes its connection (a slow reader
  holds nothing for good);
- X-Forwarded-For / X-Forwarded-Proto are believed only from the proxies named (none by default:
  anyone could write them);
- what the server logs about floods (an accept() out of descriptors, closed connections) is
  logged at most once in a while with a count of what was left out, never once per attempt.
"""

from __future__ import annotations

import asyncio
import logging
import math
import resource
import ssl
import sys
import time
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

LOG = logging.getLogger(__name__)
HEADER_SECONDS = 10.0  # a request's line and headers, all of them, within this (the default)
MAX_CONNECTIONS = 1000  # held at once (the default), fewer when the descriptor limit is lower
STALL_SECONDS = 30.0  # an answer the client reads none of for this long closes its connection
KEEP_ALIVE = 5  # seconds an idle kept-alive connection stays open
TLS_GOODBYE = 5.0  # seconds an https connection the server closes waits for the client's TLS close_notify
BACKLOG = 128  # connections the kernel queues before the server takes them (fewer under a low descriptor limit)
RESERVE = 128  # descriptors kept for everything else: the store, the menu files, worker threads
LOG_EVERY = 60.0  # seconds: a kind of message said again within this is counted, not logged
LOG_BURST = 3  # messages of one kind logged before the count starts
LOG_BUDGET = 60  # messages of all kinds logged in LOG_EVERY seconds at most


def room(wanted: int, limit: int) -> tuple[int, int]:
    """(connections held at most, the listen backlog) under a descriptor limit: `wanted`, less when
    the limit cannot hold them beside the reserve and what asyncio accepts before the cap sees it
    (up to a backlog's worth at each turn of the loop, for about three turns)."""
    backlog = max(8, min(BACKLOG, limit // 8))
    return max(1, min(wanted, limit - min(RESERVE, limit // 4) - 3 * backlog)), backlog


def descriptors(wanted: int) -> tuple[int, int]:
    """room() under the process's descriptor limit, raised first as far as its hard limit lets and
    `wanted` connections need (a soft limit of 1024 is common; the kernel allows more)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = wanted + RESERVE + 3 * BACKLOG
    if soft != resource.RLIM_INFINITY and soft < need:
        raised = need if hard == resource.RLIM_INFINITY else min(hard, need)
        if raised > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
                soft = raised
            except (OSError, ValueError):
                pass
    return room(wanted, need if soft == resource.RLIM_INFINITY else soft)


class Guard:
    """The connections of one server: those held, those waiting for a request's headers (oldest
    first), and what was closed, told in the log once in a while."""

    def __init__(self, cap: int, header_seconds: float, stall_seconds: float = STALL_SECONDS):
        self.cap, self.header_seconds, self.stall_seconds = cap, header_seconds, stall_seconds
        self.held: set[GuardedH11] = set()
        self.waiting: dict[GuardedH11, None] = {}  # insertion order: the longest waiting first
        self.closed = {"slow headers": 0, "over the cap": 0, "refused, all busy": 0, "stalled answers": 0}
        self.told = -math.inf  # when the log last said what was closed
        self.telling: asyncio.TimerHandle | None = None  # the next time it says, while some are unsaid

    def admit(self, connection: GuardedH11) -> bool:
        """Whether a new connection may stay: over the cap, the connection that has waited longest
        for its headers goes, or this one when none waits."""
        if len(self.held) >= self.cap:
            oldest = next(iter(self.waiting), None)
            if oldest is None:
                self.count("refused, all busy")
                return False
            self.count("over the cap")
            oldest.let_go()
        self.held.add(connection)
        return True

    def count(self, why: str) -> None:
        """One more connection closed: said at once after a quiet minute, else with the others
        closed meanwhile, LOG_EVERY seconds after the log last said it."""
        self.closed[why] += 1
        wait = self.told + LOG_EVERY - time.monotonic()
        if wait <= 0:
            self.tell()
        elif self.telling is None:
            self.telling = asyncio.get_running_loop().call_later(wait, self.tell)

    def tell(self) -> None:
        self.telling = None
        said = ", ".join(f"{n} {why}" for why, n in self.closed.items() if n)
        if said:
            LOG.warning("connections closed: %s (held now %d of at most %d; a request's headers must all arrive "
                        "within %g s)", said, len(self.held), self.cap, self.header_seconds)
        self.closed = dict.fromkeys(self.closed, 0)
        self.told = time.monotonic()


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's headers, a connection cap and a
    deadline for an answer the client stopped reading (a subclass made per server by `protocol`).
    An https server's connection is admitted at accept and does its TLS handshake first (asyncio's
    start_tls), so the cap and the headers' deadline hold through the handshake."""

    guard: Guard
    tls: ssl.SSLContext | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.head_timer: asyncio.TimerHandle | None = None
        self.stall_timer: asyncio.TimerHandle | None = None
        self.gone = False
        self.early: list[bytes] | None = None  # during a TLS handshake: what was read before its end was handed over
        self.handshake: asyncio.Task[None] | None = None  # held here: the loop keeps a task only weakly

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if self.tls is None:
            super().connection_made(transport)
        if not self.guard.admit(self):
            self.gone = True
            transport.abort()
            return
        if self.tls is not None:
            transport.pause_reading()  # the client's hello is the handshake's to read, never h11's
            self.transport, self.early = transport, []
            self.handshake = self.loop.create_task(self.secure(transport, self.tls))
        self.watch_head()

    async def secure(self, raw: asyncio.Transport, tls: ssl.SSLContext) -> None:
        """The TLS handshake, then HTTP over it, with what was read in between first. One that
        fails, or a connection closed meanwhile (by the client, the cap or the deadline), ends here."""
        if self.gone:  # let go before the handshake began
            return
        try:
            secured = await self.loop.start_tls(raw, self, tls, server_side=True, ssl_shutdown_timeout=TLS_GOODBYE)
        except OSError:  # no TLS (a plain http:// request), a reset, a handshake refused
            self.forget()
            return
        early, self.early = self.early or [], None
        if secured is None or self.gone:
            self.forget()
            if secured is not None:
                secured.abort()
            return
        super().connection_made(secured)
        for data in early:
            self.data_received(data)
        self.watch_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self.forget()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.early is not None:
            self.early.append(data)
            return
        super().data_received(data)
        self.watch_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.watch_head()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall_timer is None and not self.gone:
            self.stall_timer = self.loop.call_later(self.guard.stall_seconds, self.stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None

    def watch_head(self) -> None:
        """Between requests (nothing of one read yet, or only part of its headers), the headers'
        deadline runs; from when they are all in, it does not."""
        if self.gone:
            return
        if self.transport.is_closing():  # its last answer is going out: no request comes
            self.stop_waiting()
            return
        between = self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE
        if between and self.head_timer is None:
            self.head_timer = self.loop.call_later(self.guard.header_seconds, self.head_late)
            self.guard.waiting[self] = None
        elif not between:
            self.stop_waiting()

    def stop_waiting(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        self.guard.waiting.pop(self, None)

    def head_late(self) -> None:
        """The headers did not all come in time: a 408 (a JSON error, as every error of the
        service) and the connection closes; one still in its TLS handshake can be told nothing."""
        self.head_timer = None
        self.guard.waiting.pop(self, None)
        if self.gone or self.transport.is_closing():
            return
        self.guard.count("slow headers")
        if self.early is not None:
            self.let_go(abort=True)
            return
        body = (b'{"error":"the request\'s headers did not all arrive within %g seconds; send it again",'
                b'"status":408}' % self.guard.header_seconds)
        self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                             b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        self.let_go()

    def stalled(self) -> None:
        self.stall_timer = None
        if not self.gone:
            self.guard.count("stalled answers")
            self.let_go(abort=True)

    def let_go(self, abort: bool = False) -> None:
        """Close the connection now (abort: drop what is still to be written)."""
        self.forget()
        if abort:
            self.transport.abort()
        else:
            self.transport.close()

    def forget(self) -> None:
        self.gone = True
        for timer in (self.head_timer, self.stall_timer):
            if timer is not None:
                timer.cancel()
        self.head_timer = self.stall_timer = None
        self.guard.waiting.pop(self, None)
        self.guard.held.discard(self)


def protocol(guard: Guard, tls: ssl.SSLContext | None = None) -> type[GuardedH11]:
    """The protocol class of one server (uvicorn makes it with its config alone); `tls`: an https server's."""
    return type("GuardedH11", (GuardedH11,), {"guard": guard, "tls": tls})


class Quiet(logging.Filter):
    """Lets a kind of message (its logger and unformatted text) through LOG_BURST times in
    LOG_EVERY seconds, and at most LOG_BUDGET messages of all kinds; the next one let through
    says how many like it were left out. A flood (thousands of accept() errors a second) is a
    line a minute, never a full disk."""

    def __init__(self) -> None:
        super().__init__()
        self.kinds: dict[tuple[str, str], list[float | int]] = {}  # kind: [window start, logged, left out]
        self.window, self.spent, self.dropped = time.monotonic(), 0, 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        if now - self.window >= LOG_EVERY:
            self.window, self.spent = now, 0
            self.kinds = {kind: seen for kind, seen in self.kinds.items() if seen[2]}  # keep only unsaid counts
        kind = (record.name, str(record.msg)[:200])
        seen = self.kinds.setdefault(kind, [now, 0, 0])
        if now - seen[0] >= LOG_EVERY:
            seen[0], seen[1] = now, 0
        if seen[1] >= LOG_BURST or self.spent >= LOG_BUDGET:
            seen[2] += 1
            self.dropped += 1
            return False
        seen[1] += 1
        self.spent += 1
        if seen[2]:
            record.msg = f"{record.msg} [{int(seen[2])} more like this not logged in the last {LOG_EVERY:g} s]"
            seen[2] = 0
        return True


def quiet_logging() -> Quiet:
    """Every handler the service logs through gets one Quiet filter: uvicorn's and the root's
    (asyncio's and the service's own messages), which writes to stderr as Python's last resort did."""
    quiet = Quiet()
    root = logging.getLogger()
    if not root.handlers:
        to_stderr = logging.StreamHandler(sys.stderr)
        to_stderr.setLevel(logging.WARNING)
        root.addHandler(to_stderr)
    for name in ("", "uvicorn", "uvicorn.error", "uvicorn.access"):
        for handler in logging.getLogger(name).handlers:
            handler.addFilter(quiet)
    return quiet


def run(app: Any, host: str, port: int, header_seconds: float = HEADER_SECONDS,
        max_connections: int = MAX_CONNECTIONS, trusted_proxies: str | None = None,
        tls: ssl.SSLContext | None = None) -> None:
    """Serve `app` until stopped (Ctrl-C, SIGTERM); over HTTPS with a `tls` context (the TLS is the
    protocol's, not uvicorn's: see GuardedH11)."""
    cap, backlog = descriptors(max_connections)
    if cap < max_connections:
        LOG.warning("at most %d connections at once (not %d): the descriptor limit is %d (ulimit -n; the hard "
                    "limit, %s, lets it go no higher)", cap, max_connections,
                    resource.getrlimit(resource.RLIMIT_NOFILE)[0], resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    guard = Guard(cap, header_seconds)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", http=protocol(guard, tls), ws="none",
                            timeout_keep_alive=KEEP_ALIVE, timeout_graceful_shutdown=10,
                            backlog=backlog, proxy_headers=bool(trusted_proxies),
                            forwarded_allow_ips=trusted_proxies or None)
    quiet_logging()
    uvicorn.Server(config).run()
