"""The HTTP server under `automanager serve` in a flood (service/server.py): connections that never
finish their headers are answered 408 and closed after the header timeout while a real request is
still answered; over the connection cap the one waiting longest for its headers goes; over HTTPS a
TLS handshake never finished is let go the same way; under a low descriptor limit the log stays a
few lines; X-Forwarded-For counts only from a proxy the service was told to trust. Loopback only,
each bounded in time."""

from __future__ import annotations

import io
import logging
import selectors
import socket
import ssl
import time

import pytest
from processes import ServeProcess

from automanager.service import server, tls

pytestmark = pytest.mark.slow  # real `automanager serve` processes under a flood

PATIENCE = 30.0  # seconds a test waits for what the service does by itself (a slow, shared machine)
SLOW_HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Never-Finished: "
SLOW_HELLO = b"\x16\x03\x01\x02\x00"  # a TLS record's header announcing a ClientHello that never comes


def flood(port: int, count: int, head: bytes = SLOW_HEAD) -> list[socket.socket]:
    """`count` connections that send the start of `head` (part of a request's headers) and never the rest."""
    made = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
        sock.sendall(head)
        made.append(sock)
    return made


def endings(socks: list[socket.socket], within: float) -> dict[socket.socket, tuple[float, bytes]]:
    """For each connection the server closes within `within` seconds: when (monotonic) and what
    it was answered before the close."""
    got: dict[socket.socket, bytes] = {sock: b"" for sock in socks}
    ended: dict[socket.socket, tuple[float, bytes]] = {}
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        deadline = time.monotonic() + within
        while len(ended) < len(socks) and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.2):
                sock = key.fileobj
                try:
                    chunk = sock.recv(4096)
                except OSError:  # reset: closed without an answer
                    chunk = b""
                if chunk:
                    got[sock] += chunk
                else:
                    ended[sock] = (time.monotonic(), got[sock])
                    selector.unregister(sock)
    return ended


def test_slow_header_connections_get_408_after_the_header_timeout_while_real_requests_are_answered(tmp_path):
    served = ServeProcess(tmp_path, args=["--header-timeout", "1.5"])
    socks: list[socket.socket] = []
    try:
        began = time.monotonic()
        socks = flood(served.port, 200)
        assert served.http.get("/openapi.json").status_code == 200  # a real request, during the flood
        lane = served.http.post("/api/lanes")
        assert lane.status_code == 201, lane.text
        assert served.turn(lane.json(), "a pepsi", "t-1")["lines"]
        ended = endings(socks, PATIENCE)
        assert len(ended) == len(socks), f"{len(socks) - len(ended)} of {len(socks)} slow connections still held"
        for when, answer in ended.values():
            assert when - began >= 1.4  # not before their time
            assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
            assert b'"status":408' in answer and b"headers" in answer
        assert served.http.get("/openapi.json").status_code == 200
    finally:
        for sock in socks:
            sock.close()
        assert "Traceback" not in served.close()


def test_over_the_connection_cap_the_longest_waiting_goes_and_a_real_request_is_answered(tmp_path):
    served = ServeProcess(tmp_path, args=["--header-timeout", "20", "--max-connections", "50"])
    socks: list[socket.socket] = []
    try:
        socks = flood(served.port, 200)
        # The oldest went to make room, long before their 20 s. Waited for first: the kernel may hand
        # the server a flood's last connections after a request made later, in one batch of accepts,
        # and 50 accepted after it would let it go, as the oldest waiting, before it was read.
        ended = endings(socks, 5)
        assert len(ended) >= 150, f"only {len(ended)} of the flood's connections were let go"
        assert all(answer == b"" for _when, answer in ended.values())  # closed, not answered
        started = time.monotonic()
        for _ in range(5):  # each a new connection (a client that keeps none alive), while 50 are held
            answer = served.http.get("/openapi.json", headers={"Connection": "close"})
            assert answer.status_code == 200
        assert time.monotonic() - started < 10  # answered at once, not after the header timeout
        assert endings([sock for sock in socks if sock not in ended], 2)  # the first took an old one's room
    finally:
        for sock in socks:
            sock.close()
        served.close()


def test_over_https_a_handshake_never_finished_is_let_go_as_slow_headers_are(tmp_path):
    """The TLS handshake is part of a request's header time, and a connection in it counts against
    the cap: 200 that begin a handshake and never finish it are all let go (the oldest at once for the
    cap of 50, the rest at the header timeout, never after asyncio's own minute) while real https
    requests are answered; headers that stop after the handshake get their 408 over TLS."""
    made = tls.make(tmp_path / "tls", ["127.0.0.1"], 1)
    served = ServeProcess(tmp_path / "home", args=["--header-timeout", "2", "--max-connections", "50", "--certfile",
                                                   str(made.cert), "--keyfile", str(made.key)], ca=made.ca)
    socks: list[socket.socket] = []
    try:
        socks = flood(served.port, 200, SLOW_HELLO)
        ended = endings(socks, 1.5)  # the oldest let go for the cap, before the header timeout: the flood is
        assert len(ended) >= 150, f"only {len(ended)} let go"  # taken in before the real requests (see above)
        for _ in range(5):  # each a new connection and handshake, while 50 are held
            assert served.http.get("/openapi.json", headers={"Connection": "close"}).status_code == 200
        ended |= endings([sock for sock in socks if sock not in ended], PATIENCE)
        assert len(ended) == len(socks), f"{len(socks) - len(ended)} of {len(socks)} handshakes still held"
        assert all(answer == b"" for _when, answer in ended.values())  # nothing said in the clear
        trusting = ssl.create_default_context(cafile=made.ca)
        with trusting.wrap_socket(socket.create_connection(("127.0.0.1", served.port), timeout=PATIENCE),
                                  server_hostname="127.0.0.1") as sock:
            sock.sendall(SLOW_HEAD)
            assert sock.recv(4096).startswith(b"HTTP/1.1 408 ")
        assert served.http.post("/api/lanes").status_code == 201
    finally:
        for sock in socks:
            sock.close()
        assert "Traceback" not in served.close()


def test_a_flood_past_the_descriptor_limit_leaves_the_log_a_few_lines(tmp_path):
    """Under ulimit -n 256, 600 slow connections: no 'Too many open files' per attempt (it was a
    gigabyte of log in minutes), the real request answered, the flood closed after the timeout."""
    served = ServeProcess(tmp_path, args=["--header-timeout", "2"], descriptors=256)
    socks: list[socket.socket] = []
    try:
        socks = flood(served.port, 600)
        assert served.http.get("/openapi.json").status_code == 200
        ended = endings(socks, PATIENCE)
        assert len(ended) == len(socks)
        assert served.http.post("/api/lanes").status_code == 201
    finally:
        for sock in socks:
            sock.close()
        log = served.close()
    assert len(log) < 5_000, log[-2_000:]
    assert log.count("Too many open files") <= server.LOG_BURST
    assert "connections at once (not 1000): the descriptor limit is 256" in log


def test_x_forwarded_for_counts_only_from_a_proxy_the_service_trusts(tmp_path):
    """Lanes are counted per client address: a client writing a new X-Forwarded-For each time is
    one address unless --trust-proxy names the address it comes from (a reverse proxy's)."""
    per_client = {"AUTOMANAGER_LANES_PER_CLIENT": "2"}
    for args, expected in [([], [201, 201, 429, 429]), (["--trust-proxy", "127.0.0.1"], [201, 201, 201, 201])]:
        served = ServeProcess(tmp_path / str(len(args)), per_client, args)
        try:
            codes = [served.http.post("/api/lanes", headers={"X-Forwarded-For": f"198.51.100.{n}"}).status_code
                     for n in range(4)]
            assert codes == expected, (args, codes)
        finally:
            served.close()


def test_a_proxy_to_trust_must_be_an_address_or_a_network(tmp_path):
    import subprocess
    import sys

    said = subprocess.run([sys.executable, "-m", "automanager", "serve", "--state-dir", str(tmp_path),
                           "--trust-proxy", "my-proxy"], capture_output=True, text=True, timeout=60)
    assert said.returncode == 2 and "--trust-proxy: 'my-proxy' is no address or network" in said.stderr


@pytest.mark.parametrize("limit,cap", [(20_000, 1000), (1024, 512), (256, 96)])
def test_the_connection_cap_leaves_descriptors_for_the_rest(limit, cap):
    held, backlog = server.room(1000, limit)
    assert held == cap and held + 3 * backlog + 64 <= limit


def test_a_message_repeated_thousands_of_times_is_logged_a_few_times_with_a_count():
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(server.Quiet())
    log = logging.getLogger("test.quiet")
    log.addHandler(handler)
    log.propagate = False
    try:
        for _ in range(10_000):
            log.error("socket.accept() out of system resource", exc_info=OSError(24, "Too many open files"))
        for n in range(1_000):
            log.warning("a message of its own: %d", n)
    finally:
        log.removeHandler(handler)
    lines = out.getvalue()
    assert lines.count("socket.accept() out of system resource") == server.LOG_BURST
    assert lines.count("a message of its own") <= server.LOG_BUDGET
    assert len(lines) < 20_000
