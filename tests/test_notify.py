"""Runouts and new menu versions reach every lane of the store within a second (issue 29): on
PostgreSQL a NOTIFY at the commit wakes the service's Watcher (no polling loop), and when the
listening connection drops it looks at the store every 0.5 s while it listens again, then looks
once more; on SQLite a write of the same process is heard at once and another process's at the
next poll. Two Home objects on one database with their own state dirs stand for two machines."""

from __future__ import annotations

import json
import queue
import sqlite3
import time
from typing import Any

import httpx
import psycopg
import pytest
from processes import ServeProcess

from automanager.service import events as events_module
from automanager.service.events import Watcher
from automanager.store import Home

pytestmark = pytest.mark.slow  # a PostgreSQL server that stops and comes back

ARRIVES = 5.0  # seconds a change may take before the test says it did not arrive (1 s is the aim)


class Published:
    """Stands for the service's Events: what the Watcher publishes, in a queue."""

    def __init__(self) -> None:
        self.seen: queue.Queue[tuple[float, str, dict[str, Any]]] = queue.Queue()

    def publish(self, kind: str, **data: Any) -> None:
        self.seen.put((time.monotonic(), kind, data))

    def wait_for(self, kind: str, test, within: float = ARRIVES) -> float:
        """When the first `kind` event that passes `test` arrived; fails after `within` seconds."""
        deadline = time.monotonic() + within
        while True:
            try:
                at, got, data = self.seen.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {kind} event within {within} s") from None
            if got == kind and test(data):
                return at


def watch(home: Home) -> tuple[Watcher, Published]:
    published = Published()
    watcher = Watcher(home, published, lambda stock: {})  # type: ignore[arg-type]
    watcher.start()
    wait_until(lambda: watcher.state == "listening")
    while not published.seen.empty():  # the first looks: the state as it was
        published.seen.get()
    return watcher, published


def wait_until(condition, within: float = ARRIVES) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def publish_menu(home: Home, based_on: int) -> int:
    return home.commit_menu("s-test", f"b{based_on}", based_on, [("add", "Test Taco", None, None, None)],
                            lambda files: "".join(path.read_text() for path in files))


@pytest.fixture
def machines(tmp_path, monkeypatch, postgres_server):
    """Two machines of a chain: own state dirs, one PostgreSQL database."""
    url = postgres_server.new_database()
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url)
    here, there = Home(tmp_path / "here"), Home(tmp_path / "there")
    here.stock_out()  # the schema, made once
    yield here, there, url
    here.close()
    there.close()


def test_a_runout_on_another_machine_reaches_the_watcher_at_once(machines, capsys):
    here, there, _url = machines
    watcher, published = watch(here)
    try:
        assert watcher.state == "listening"
        took = []
        for ingredient in ("Lettuce", "Tomatoes", "Onions"):
            started = time.monotonic()
            there.set_stock(ingredient, True, session="s-other")
            arrived = published.wait_for("stock", lambda data, i=ingredient: data["ran_out"] == [i])
            took.append(arrived - started)
        started = time.monotonic()
        there.set_stock("Lettuce", False)
        took.append(published.wait_for("stock", lambda data: data["back"] == ["Lettuce"]) - started)
        assert watcher.state == "listening"  # heard, not polled
    finally:
        watcher.stop()
    assert not watcher.thread.is_alive()
    with capsys.disabled():
        print(f"\n[notify] runout latency on PostgreSQL: {', '.join(f'{t * 1000:.0f} ms' for t in took)}")


def test_a_menu_version_published_elsewhere_reaches_the_watcher(machines):
    here, there, _url = machines
    watcher, published = watch(here)
    try:
        started = time.monotonic()
        version = publish_menu(there, 0)
        published.wait_for("menu", lambda data: data["version"] == version)
        assert time.monotonic() - started < ARRIVES
        assert here.latest_version() == version
    finally:
        watcher.stop()


def test_a_write_that_rolls_back_sends_nothing(machines):
    """The notification is sent inside the transaction: none when it does not commit."""
    here, there, url = machines
    with psycopg.connect(url, autocommit=True) as listening:
        listening.execute("LISTEN automanager")

        def fails(tx):
            there.database.notify(tx, "stock")
            raise RuntimeError("rolled back")

        with pytest.raises(RuntimeError):
            there.database.write(fails)
        assert list(listening.notifies(timeout=0.5, stop_after=1)) == []
        there.set_stock("Lettuce", True)
        [notice] = list(listening.notifies(timeout=ARRIVES, stop_after=1))
        assert json.loads(notice.payload) == {"what": "stock", "store": "main"}


def test_a_dropped_connection_falls_back_and_catches_up_after_reconnecting(machines, monkeypatch, caplog):
    """The listening connection is killed (as by a server restart); a runout made while the
    watcher is not listening is found by the look after it listens again (the poll is slowed
    down here so that only that look can find it)."""
    here, there, url = machines
    monkeypatch.setattr(events_module, "WATCH", 60.0)
    monkeypatch.setattr(events_module, "RETRY_FIRST", 1.5)
    caplog.set_level("INFO", logger="automanager.service.events")
    watcher, published = watch(here)
    try:
        with psycopg.connect(url, autocommit=True) as admin:
            killed = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                                   "current_database() AND application_name = 'automanager-listen'").fetchall()
            assert killed == [(True,)]
        wait_until(lambda: watcher.state == "polling")
        time.sleep(0.3)  # past the look it takes when it loses the connection; 1.5 s before it listens again
        assert watcher.state == "polling"
        there.set_stock("Lettuce", True)  # the notification goes nowhere: nobody listens
        published.wait_for("stock", lambda data: data["ran_out"] == ["Lettuce"])
        assert watcher.state == "listening"
        there.set_stock("Tomatoes", True)  # and notifications are heard again
        published.wait_for("stock", lambda data: data["ran_out"] == ["Tomatoes"])
    finally:
        watcher.stop()
    said = [record.getMessage() for record in caplog.records]
    assert any("lost the connection" in line for line in said), said
    assert any("listening for changes again" in line for line in said), said


def test_the_fallback_poll_delivers_while_the_listener_cannot_connect(machines, monkeypatch):
    """Listening keeps failing (here: the listener cannot connect): the 0.5 s poll delivers."""
    here, there, _url = machines
    tries = []

    def refused(self):
        tries.append(time.monotonic())
        raise events_module.DatabaseError("cannot listen to the database: refused (test)")

    monkeypatch.setattr("automanager.database.PostgresListener.connect", refused)
    published = Published()
    watcher = Watcher(here, published, lambda stock: {})  # type: ignore[arg-type]
    watcher.start()
    try:
        wait_until(lambda: watcher.state == "polling")
        started = time.monotonic()
        there.set_stock("Lettuce", True)
        arrived = published.wait_for("stock", lambda data: data["ran_out"] == ["Lettuce"])
        assert arrived - started < ARRIVES
        time.sleep(2.0)
    finally:
        watcher.stop()
    gaps = [later - earlier for earlier, later in zip(tries, tries[1:], strict=False)]
    assert len(tries) >= 2 and gaps == sorted(gaps), gaps  # the back-off doubles


def test_sqlite_hears_its_own_process_at_once_and_polls_for_others(tmp_path):
    home, other = Home(tmp_path / "home"), Home(tmp_path / "home")  # one state dir, two Home objects
    home.stock_out()
    watcher, published = watch(home)
    try:
        started = time.monotonic()
        other.set_stock("Lettuce", True)
        assert published.wait_for("stock", lambda data: data["ran_out"] == ["Lettuce"]) - started < ARRIVES
        with sqlite3.connect(tmp_path / "home" / "shared.db") as conn:  # another process: no notification
            conn.execute("INSERT INTO stock_out (store, ingredient, since) VALUES ('main', 'Tomatoes', '2026-01-01T00:00:00')")
        started = time.monotonic()
        assert published.wait_for("stock", lambda data: data["ran_out"] == ["Tomatoes"]) - started < ARRIVES
    finally:
        watcher.stop()
    assert not watcher.thread.is_alive()


def test_the_service_streams_a_runout_made_on_another_machine(tmp_path, monkeypatch, postgres_server):
    """`automanager serve` on PostgreSQL: a lane's event stream gets the runout another machine
    (another Home, another state dir) wrote to the same database."""
    url = postgres_server.new_database()
    server = ServeProcess(tmp_path / "service", settings={"AUTOMANAGER_DATABASE_URL": url})
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url)
    other = Home(tmp_path / "other-machine")
    try:
        lane = server.http.post("/api/lanes").json()
        with httpx.Client(base_url=server.url, timeout=httpx.Timeout(ARRIVES * 2)) as client, \
                client.stream("GET", f"/api/lanes/{lane['lane']}/events", params={"token": lane["token"]}) as stream:
            assert stream.status_code == 200
            time.sleep(0.5)  # the stream's listener is in place
            started = time.monotonic()
            other.set_stock("Lettuce", True, session="s-other")
            kind = None
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    kind = line[len("event: "):]
                elif line.startswith("data: ") and kind == "stock":
                    event = json.loads(line[len("data: "):])
                    if "Lettuce" in event["ran_out"]:
                        break
                assert time.monotonic() - started < ARRIVES, "no stock event"
            took = time.monotonic() - started
        assert event["out"] == ["Lettuce"]
        print(f"runout reached the lane's stream in {took * 1000:.0f} ms")
    finally:
        other.close()
        errors = server.close()
    assert "Traceback" not in errors, errors


def test_the_service_stops_promptly_while_listening(tmp_path, monkeypatch, postgres_server):
    """No thread blocks the exit: the watcher wakes at least every WAKE seconds."""
    url = postgres_server.new_database()
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url)
    home = Home(tmp_path / "home")
    watcher, _published = watch(home)
    started = time.monotonic()
    watcher.stop()
    assert not watcher.thread.is_alive()
    assert time.monotonic() - started < events_module.WAKE + 1.0
    home.close()


def test_payload_of_a_change_leaves_room_for_a_store():
    """The payload is JSON {"what": ...}: more keys (a store id) can come without breaking a reader."""
    from automanager.database import parse_change

    assert parse_change('{"what": "stock", "store": "s-042"}') == {"what": "stock", "store": "s-042"}
    assert parse_change("not json") == {"what": "any"}


def test_a_server_restart_falls_back_and_listens_again(machines, postgres_server, caplog):
    """The server itself stops and comes back (pg_ctl -m immediate): the watcher polls meanwhile,
    listens again with its back-off, and a runout made after the restart reaches it."""
    here, there, _url = machines
    caplog.set_level("INFO", logger="automanager.service.events")
    watcher, published = watch(here)
    try:
        postgres_server.stop()
        try:
            wait_until(lambda: watcher.state == "polling")
            time.sleep(1.0)  # a few failed tries to listen again
        finally:
            postgres_server.restart()
        there.set_stock("Lettuce", True)  # the pool's connections died with the server: it makes new ones
        published.wait_for("stock", lambda data: data["ran_out"] == ["Lettuce"], within=30.0)
        wait_until(lambda: watcher.state == "listening", within=30.0)
        started = time.monotonic()
        there.set_stock("Tomatoes", True)
        published.wait_for("stock", lambda data: data["ran_out"] == ["Tomatoes"])
        took = time.monotonic() - started
    finally:
        watcher.stop()
    said = [record.getMessage() for record in caplog.records]
    assert any("listening for changes again" in line for line in said), said
    print(f"after the restart a runout reached the watcher in {took * 1000:.0f} ms")
