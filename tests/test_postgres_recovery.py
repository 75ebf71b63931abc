"""PostgreSQL that waits and recovers (issue 37): a chat started while the server has no connection
slot left waits for one instead of quitting; a chat whose server stops for ten seconds finishes its
turn once the server is back; past its patience a turn says the store is unavailable and the
session stays; the service answers 503 with Retry-After meanwhile and serves again without a
restart. Real processes and real servers (skipped, with the reason, where none starts)."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from processes import ChatProcess, ServeProcess
from rich.console import Console

from automanager.database import Postgres
from automanager.repl import run_chat
from automanager.service.app import create_app
from automanager.star import Chat, CustomerChat, ManagerChat
from automanager.store import Home

pytestmark = pytest.mark.slow
SLOTS = 6  # max_connections of the crowded server
WAIT = 90  # seconds any one answer may take before the test gives up on it


@pytest.fixture(scope="module")
def crowded_server() -> Iterator[Any]:
    """A server of its own with few connection slots, so holding them all is cheap."""
    from postgres import Server

    server = Server(max_connections=SLOTS)
    reason = server.why_not()
    if reason:
        pytest.skip(reason)
    try:
        server.start()
    except Exception as exc:
        pytest.skip(f"PostgreSQL did not start: {getattr(exc, 'stderr', '') or exc}".strip()[:300])
    yield server
    server.remove()


@pytest.fixture
def on_postgres(postgres_server, monkeypatch) -> str:
    url: str = postgres_server.new_database()
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url)
    return url


def heard(chat: ChatProcess, words: str) -> list[str]:
    """The chat's stderr lines up to the first with `words` (waiting for it)."""
    lines: list[str] = []
    while not lines or words not in lines[-1]:
        lines.append(chat.proc.stderr.readline())
        assert lines[-1], f"never said {words!r}; exit {chat.proc.wait(timeout=WAIT)}: {''.join(lines)}"
    return lines


def answer(chat: ChatProcess) -> dict[str, Any]:
    line = chat.proc.stdout.readline()
    assert line, f"no answer; exit {chat.proc.wait(timeout=WAIT)}: {chat.proc.stderr.read()}"
    return dict(json.loads(line))


def session_of(stderr: str) -> str:
    return stderr.split("customer session ", 1)[1].split(":", 1)[0]


def said(state: Path, session: str) -> list[str]:
    """The customer lines the session keeps, in order."""
    return [turn["user"] for turn in Home(state).load_session(session)["turns"]]


def test_a_chat_started_with_no_connection_slot_left_waits_for_one(crowded_server, monkeypatch, tmp_path):
    url = crowded_server.new_database()
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url)
    held = []
    try:
        with pytest.raises(psycopg.OperationalError, match="too many clients"):
            for _ in range(SLOTS + 1):
                held.append(psycopg.connect(url))
        chat = ChatProcess("customer", tmp_path / "state")
        chat.send("a pepsi")
        before = heard(chat, "the database is busy, waiting")
    finally:
        for conn in held:
            conn.close()
    turn = answer(chat)
    assert [unit["item"] for unit in turn["order"]] == ["Pepsi®"], turn
    stderr = "".join(before) + chat.close()
    assert chat.proc.returncode == 0, stderr
    assert "Traceback" not in stderr and "error:" not in stderr, stderr
    assert said(tmp_path / "state", session_of(stderr)) == ["a pepsi"]


def test_a_chat_whose_server_stops_for_ten_seconds_finishes_its_turn_once(on_postgres, postgres_server, tmp_path):
    chat, down, before = ChatProcess("customer", tmp_path / "state"), False, []
    try:
        assert [unit["item"] for unit in chat.say("a pepsi")["order"]] == ["Pepsi®"]
        postgres_server.stop()
        down = True
        chat.send("a bean burrito")
        before = heard(chat, "the database is not answering, waiting")
        time.sleep(8)  # the server stays down about ten seconds in all
        postgres_server.restart()
        down = False
        turn = answer(chat)
        assert sorted(unit["item"] for unit in turn["order"]) == ["Bean Burrito", "Pepsi®"], turn
        turn = chat.say("a crunchy taco")
        assert sorted(unit["item"] for unit in turn["order"]) == ["Bean Burrito", "Crunchy Taco", "Pepsi®"]
    finally:
        if down:
            postgres_server.restart()
        stderr = "".join(before) + chat.close()
    assert chat.proc.returncode == 0, stderr
    assert "Traceback" not in stderr and "error:" not in stderr, stderr
    assert "error connecting" not in stderr, stderr  # the pool's reconnect tries are not shown, the wait once
    assert said(tmp_path / "state", session_of(stderr)) == ["a pepsi", "a bean burrito", "a crunchy taco"]


def impatient(home: Home) -> Home:
    """The home with a database that waits one second, not thirty: the bound is reached quickly."""
    database = home.database
    assert isinstance(database, Postgres)
    database.patience = 1
    return home


def across_a_stop(chat: Chat, lines: list[str], server: Any) -> tuple[int, list[str], list[dict[str, Any]]]:
    """Run the chat on `lines`, the server stopped while the second is said and started again
    before the third: the exit code, the error lines and the turns (--json)."""
    told: list[str] = []

    def read_line() -> str | None:
        if len(told) == 1:
            server.stop()
        elif len(told) == 2:
            server.restart()
        line = lines[len(told)] if len(told) < len(lines) else None
        told.append(line or "")
        return line

    out, err = io.StringIO(), io.StringIO()
    try:
        code = run_chat(chat, read_line, Console(file=out), Console(file=err), as_json=True)
    finally:
        if len(told) == 2:
            server.restart()
        chat.home.close()
    errors = [line for line in err.getvalue().splitlines() if line.startswith("error:")]
    return code, errors, [json.loads(line) for line in out.getvalue().splitlines()]


def test_past_its_patience_a_turn_says_the_store_is_unavailable_and_the_session_stays(on_postgres, postgres_server,
                                                                                       tmp_path):
    chat = CustomerChat(impatient(Home(tmp_path / "state")))
    code, errors, turns = across_a_stop(chat, ["a pepsi", "a bean burrito", "a bean burrito"], postgres_server)
    assert code == 0, errors
    assert len(errors) == 1 and "not answering" in errors[0] and "try again" in errors[0], errors
    assert [t["text"] for t in turns] == ["a pepsi", "a bean burrito"]
    assert sorted(unit["item"] for unit in turns[-1]["order"]) == ["Bean Burrito", "Pepsi®"]
    assert said(tmp_path / "state", chat.session_id) == ["a pepsi", "a bean burrito"]


def test_a_manager_s_line_said_again_after_the_store_was_away_is_taken_once(on_postgres, postgres_server, tmp_path):
    home = impatient(Home(tmp_path / "state"))
    chat = ManagerChat(home)
    lines = ["we're out of tomatoes", "the soft taco now costs $1.79", "the soft taco now costs $1.79", "/pending"]
    code, errors, turns = across_a_stop(chat, lines, postgres_server)
    assert code == 0 and len(errors) == 1 and "not answering" in errors[0], errors
    assert [t["text"] for t in turns[:2]] == lines[0:3:2]
    assert len(turns[-1]["pending"]) == 1, turns[-1]  # staged once, not twice
    assert Home(tmp_path / "state").stock_out() == ["Tomatoes"]


def test_the_service_answers_503_with_retry_after_while_the_server_is_down_then_serves(on_postgres, postgres_server,
                                                                                      tmp_path):
    home, down = impatient(Home(tmp_path / "state")), False
    with TestClient(create_app(home), raise_server_exceptions=False) as client:
        lane = client.post("/api/lanes").json()
        mine = {"Authorization": f"Bearer {lane['token']}"}
        turns = f"/api/lanes/{lane['lane']}/turns"
        assert client.post(turns, headers=mine, json={"text": "a pepsi", "turn_id": "t1"}).status_code == 200
        try:
            postgres_server.stop()
            down = True
            lost = client.post(turns, headers=mine, json={"text": "a bean burrito", "turn_id": "t2"})
            assert lost.status_code == 503 and lost.headers.get("Retry-After", "").isdigit(), (lost.headers, lost.text)
            assert "try again" in lost.json()["error"], lost.text
        finally:
            if down:
                postgres_server.restart()
        again = client.post(turns, headers=mine, json={"text": "a bean burrito", "turn_id": "t2"})
        assert again.status_code == 200, again.text
        view = client.get(f"/api/lanes/{lane['lane']}", headers=mine).json()
    assert [t["user"] for t in view["turns"]] == ["a pepsi", "a bean burrito"]


def test_a_lane_turn_sent_while_the_server_is_down_is_a_503_then_answered_once_it_is_back(on_postgres,
                                                                                       postgres_server, tmp_path):
    """`serve` waits a few seconds for the server (a car cannot wait a chat's 30), then answers 503
    with Retry-After; the same turn sent again once the server is back is answered, taken once,
    with no restart of the service."""
    server, down = ServeProcess(tmp_path), False
    try:
        lane = server.http.post("/api/lanes").json()
        server.turn(lane, "a pepsi", "t1")
        postgres_server.stop()
        down = True
        auth = {"Authorization": f"Bearer {lane['token']}"}
        away = server.http.post(f"/api/lanes/{lane['lane']}/turns", json={"text": "a bean burrito", "turn_id": "t2"},
                                headers=auth)
        assert away.status_code == 503 and int(away.headers["Retry-After"]) > 0, away.text
        postgres_server.restart()
        down = False
        turn = server.turn(lane, "a bean burrito", "t2")
        assert sorted(line["item"] for line in turn["lines"]) == ["Bean Burrito", "Pepsi®"], turn
        again = server.turn(lane, "a bean burrito", "t2")  # sent twice: taken once
        assert sorted(line["item"] for line in again["lines"]) == ["Bean Burrito", "Pepsi®"], again
        view = server.http.get(f"/api/lanes/{lane['lane']}", headers=auth)
        assert [t["user"] for t in view.json()["turns"]] == ["a pepsi", "a bean burrito"]
    finally:
        if down:
            postgres_server.restart()
        stderr = server.close()
    assert "Traceback" not in stderr, stderr


LINES = ["a pepsi", "a bean burrito", "a soft taco", "a crunchy taco"]
ITEMS = ["Pepsi®", "Bean Burrito", "Soft Taco", "Crunchy Taco"]


def order_through_trouble(server: ServeProcess, lane: dict, name: str, sent: list[float]) -> list[str]:
    """Say LINES at a lane, each with its own turn id, sending a turn again (the same id) after a 503
    or a lost connection, as the lane page does; returns the statuses seen."""
    import httpx

    seen: list[str] = []
    auth = {"Authorization": f"Bearer {lane['token']}"}
    for n, text in enumerate(LINES):
        deadline = time.monotonic() + WAIT
        while True:
            try:
                answer = server.http.post(f"/api/lanes/{lane['lane']}/turns", headers=auth,
                                          json={"text": text, "turn_id": f"{name}-{n}"})
                seen.append(str(answer.status_code))
                if answer.status_code == 200:
                    sent.append(time.monotonic())
                    break
                assert answer.status_code == 503 and answer.headers.get("Retry-After"), answer.text
                pause = float(answer.headers["Retry-After"])
            except httpx.TransportError as exc:
                seen.append(type(exc).__name__)
                pause = 0.5
            assert time.monotonic() < deadline, f"lane {name}: {text!r} never answered: {seen}"
            time.sleep(min(pause, 1.0))
        time.sleep(0.3)
    return seen


def test_chaos_eight_lanes_through_a_server_restart_keep_every_turn_once(on_postgres, postgres_server, tmp_path):
    """8 lanes order while the PostgreSQL server stops for six seconds and starts again: turns
    said meanwhile get a 503 with Retry-After and are sent again; every acknowledged turn is kept
    exactly once, every order is whole, and the service was never restarted."""
    from concurrent.futures import ThreadPoolExecutor

    server, down = ServeProcess(tmp_path), False
    try:
        lanes = [server.http.post("/api/lanes").json() for _ in range(8)]
        answered: list[float] = []
        with ThreadPoolExecutor(8) as pool:
            runs = [pool.submit(order_through_trouble, server, lane, f"l{i}", answered) for i, lane in enumerate(lanes)]
            time.sleep(1.0)
            postgres_server.stop()
            down = True
            time.sleep(6)
            postgres_server.restart()
            down, back = False, time.monotonic()
            statuses = [run.result() for run in runs]
        assert any(s != "200" for seen in statuses for s in seen), "no turn met the outage: the test proved nothing"
        after = sorted(t - back for t in answered if t > back)
        print(f"first turn answered {after[0]:.1f} s after the server was back")  # the note's figure
        for lane in lanes:
            view = server.http.get(f"/api/lanes/{lane['lane']}", headers={"Authorization": f"Bearer {lane['token']}"})
            assert [t["user"] for t in view.json()["turns"]] == LINES, view.json()["turns"]
            assert sorted(line["item"] for line in view.json()["lines"]) == sorted(ITEMS), view.json()["lines"]
    finally:
        if down:
            postgres_server.restart()
        stderr = server.close()
    assert "Traceback" not in stderr, stderr


# -- `serve` started while the server is full (finding 11) --------------------------------------------
def all_slots(url: str) -> list[Any]:
    """Every connection slot of the crowded server, held by the test."""
    held: list[Any] = []
    with pytest.raises(psycopg.OperationalError, match="too many clients"):
        for _ in range(SLOTS + 1):
            held.append(psycopg.connect(url))
    return held


class Waiting:
    """`automanager serve` started in the background, its port, and its stderr read line by line
    in a thread of its own (so every wait on it is bounded)."""

    def __init__(self, state: Path):
        import os
        import queue
        import socket
        import subprocess
        import sys
        import threading

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))
               or k == "AUTOMANAGER_DATABASE_URL"}
        self.proc = subprocess.Popen([sys.executable, "-m", "automanager", "serve", "--port", str(self.port),
                                      "--state-dir", str(state), "--backend", "offline"], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        self.lines: queue.Queue[str] = queue.Queue()  # "" at the end of its stderr
        self.seen: list[str] = []
        threading.Thread(target=lambda: [*map(self.lines.put, self.proc.stderr), self.lines.put("")],
                         daemon=True).start()

    def said(self, words: str) -> str:
        """The first line from here on with `words` (within WAIT seconds)."""
        import queue

        deadline = time.monotonic() + WAIT
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"not said within {WAIT} s: {words!r}; so far: {''.join(self.seen)}") from None
            self.seen.append(line)
            assert line, f"never said {words!r}; exit {self.proc.wait(timeout=WAIT)}: {''.join(self.seen)}"
            if words in line:
                return line

    def stop(self, signal_number: int | None = None) -> str:
        """Signal it (SIGTERM by default), wait for it (bounded) and return all it said on stderr."""
        import signal

        if self.proc.poll() is None:
            self.proc.send_signal(signal_number or signal.SIGTERM)
        try:
            self.proc.wait(timeout=WAIT)
        except Exception:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)
        while (line := self.lines.get(timeout=WAIT)) != "":
            self.seen.append(line)
        return "".join(self.seen)


def test_serve_started_with_no_connection_slot_left_waits_then_serves_once_one_frees(crowded_server, monkeypatch,
                                                                                   tmp_path):
    import httpx

    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url := crowded_server.new_database())
    held = all_slots(url)
    serve = Waiting(tmp_path / "state")
    try:
        try:
            waiting = serve.said("waiting for it")
            assert "busy" in waiting and "too many clients" in waiting and "Ctrl-C" in waiting, waiting
            time.sleep(8)  # past the 5 s after which it used to give up
            assert serve.proc.poll() is None, serve.stop()
        finally:
            for conn in held:
                conn.close()
        serve.said("the database answers: starting")
        serve.said("Ctrl-C stops the service")
        with httpx.Client(base_url=f"http://127.0.0.1:{serve.port}", timeout=WAIT) as client:
            deadline = time.monotonic() + WAIT
            while True:  # listening a moment after its last start-up line
                try:
                    client.get("/openapi.json")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline and serve.proc.poll() is None, "it never listened"
                    time.sleep(0.1)
            lane = client.post("/api/lanes").json()
            turn = client.post(f"/api/lanes/{lane['lane']}/turns", json={"text": "a pepsi", "turn_id": "t1"},
                               headers={"Authorization": f"Bearer {lane['token']}"})
            assert turn.status_code == 200 and [line["item"] for line in turn.json()["lines"]] == ["Pepsi®"]
    finally:
        stderr = serve.stop()
    assert "Traceback" not in stderr and "error:" not in stderr, stderr
    assert stderr.count("waiting for it") == 1, stderr  # said once, not once a try


def test_ctrl_c_stops_a_serve_waiting_for_a_full_server(crowded_server, monkeypatch, tmp_path):
    import signal

    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url := crowded_server.new_database())
    held = all_slots(url)
    try:
        serve = Waiting(tmp_path / "state")
        serve.said("waiting for it")
        time.sleep(1.5)
        asked = time.monotonic()
        stderr = serve.stop(signal.SIGINT)
        took = time.monotonic() - asked
    finally:
        for conn in held:
            conn.close()
    assert serve.proc.returncode == 130 and took < 10, (serve.proc.returncode, took, stderr)
    assert stderr.strip().splitlines()[-1].startswith("error: stopped while waiting for the database"), stderr
    assert "Traceback" not in stderr
    assert serve_lock_free(tmp_path / "state")  # the state dir's lock went with it


def serve_lock_free(state: Path) -> bool:
    import fcntl

    with open(state / "serve-main.lock", "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
    return True
