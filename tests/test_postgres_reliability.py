"""Reliability on PostgreSQL (issue 29): the collaboration scenarios pass, and the service that
loses its database mid-service answers 503 (try again) and, with the server back, takes the same
turn once. Real processes and a real server (skipped where none starts). The manager SIGKILLed
mid-commit runs on both engines in test_crash_and_concurrency.py."""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest
from processes import ServeProcess, serve_refused

from automanager.evaluation.runner import run_scenario
from automanager.evaluation.scenario import load_scenarios

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def on_postgres(postgres_server, monkeypatch):
    """A fresh PostgreSQL database for this test (its processes inherit the setting)."""
    url = postgres_server.new_database()
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url)
    return url


@pytest.mark.parametrize("scenario", load_scenarios([REPO / "eval" / "scenarios" / "collaboration.yaml"]),
                         ids=lambda s: s.name)
def test_the_collaboration_scenarios_pass_on_postgresql(scenario, postgres_server, monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", postgres_server.new_database())  # each scenario afresh
    result = run_scenario(scenario, root=tmp_path)
    assert result.passed, (result.failures, result.error)


ADDS = {"a pepsi": "Pepsi®", "a bean burrito": "Bean Burrito", "a crunchy taco": "Crunchy Taco"}


def board(answer: dict) -> Counter:
    return Counter({line["item"]: line["quantity"] for line in answer["lines"]})


def test_the_database_lost_mid_service_is_a_503_then_the_same_turn_is_taken_once(on_postgres, postgres_server,
                                                                                  tmp_path):
    server = ServeProcess(tmp_path)
    try:
        lane = server.http.post("/api/lanes").json()
        mine = {"Authorization": f"Bearer {lane['token']}"}
        assert board(server.turn(lane, "a pepsi", "t1")) == Counter({"Pepsi®": 1})
        assert board(server.turn(lane, "a bean burrito", "t2")) == Counter({"Pepsi®": 1, "Bean Burrito": 1})
        postgres_server.stop()
        try:
            lost = server.http.post(f"/api/lanes/{lane['lane']}/turns", headers=mine,
                                    json={"text": "a crunchy taco", "turn_id": "t3"})
            assert lost.status_code == 503, lost.text
            message = lost.json()
            text = str(message)
            assert "try again" in text and "Traceback" not in text, message
        finally:
            postgres_server.restart()
        again = server.http.post(f"/api/lanes/{lane['lane']}/turns", headers=mine,
                                 json={"text": "a crunchy taco", "turn_id": "t3"})
        assert again.status_code == 200, again.text
        expected = Counter({"Pepsi®": 1, "Bean Burrito": 1, "Crunchy Taco": 1})
        assert board(again.json()) == expected
        repeated = server.http.post(f"/api/lanes/{lane['lane']}/turns", headers=mine,
                                    json={"text": "a crunchy taco", "turn_id": "t3"})
        assert repeated.status_code == 200 and repeated.json().get("repeated") and board(repeated.json()) == expected
        view = server.http.get(f"/api/lanes/{lane['lane']}", headers=mine).json()
        assert [t["user"] for t in view["turns"]] == ["a pepsi", "a bean burrito", "a crunchy taco"]
        assert board(view) == expected
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr, stderr


def test_every_lane_s_first_turn_after_the_server_is_back_is_answered(on_postgres, postgres_server, tmp_path):
    """Connections the pool kept from before the loss are never handed to a turn after it."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    server, down = ServeProcess(tmp_path), False
    try:
        lanes = [server.http.post("/api/lanes").json() for _ in range(6)]

        def post(k: int, text: str, turn_id: str) -> httpx.Response:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                return client.post(f"/api/lanes/{lanes[k]['lane']}/turns", json={"text": text, "turn_id": turn_id},
                                   headers={"Authorization": f"Bearer {lanes[k]['token']}"})

        with ThreadPoolExecutor(len(lanes)) as pool:  # turns at once: the pool keeps several connections
            for i, line in enumerate(ADDS):
                answers = list(pool.map(post, range(6), [line] * 6, [f"t{i}"] * 6))
                assert all(r.status_code == 200 for r in answers)
        postgres_server.stop()
        down = True
        postgres_server.restart()
        down = False
        with ThreadPoolExecutor(len(lanes)) as pool:
            answers = list(pool.map(post, range(6), ["a pepsi"] * 6, ["after"] * 6))
        assert [a.status_code for a in answers] == [200] * 6, [a.text for a in answers if a.status_code != 200]
        assert all(board(a.json()) == Counter({"Pepsi®": 2, "Bean Burrito": 1, "Crunchy Taco": 1}) for a in answers)
    finally:
        if down:
            postgres_server.restart()
        stderr = server.close()
    assert "Traceback" not in stderr, stderr


# -- one service per store on a database (finding 9) ----------------------------------------------------
def lock_holders(url: str) -> list[str]:
    """The application names of the sessions holding an advisory lock of a store's service."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return [name for name, in conn.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'automanager serve%'")]


def until(check, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_a_second_serve_of_a_store_on_one_database_is_refused_then_starts_once_the_first_is_killed(
        on_postgres, tmp_path):
    first = ServeProcess(tmp_path / "a")
    try:
        lane = first.http.post("/api/lanes").json()
        first.turn(lane, "a pepsi", "t1")
        refused = serve_refused(tmp_path / "b")  # another state dir, another machine: the same store
        assert refused.returncode == 2, refused.stderr
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: store main is served already"), refused.stderr
        assert f"pid {first.proc.pid}" in lines[0] and "stop that service first" in lines[0], lines[0]
        assert "Traceback" not in refused.stderr
        other = ServeProcess(tmp_path / "c", {"AUTOMANAGER_STORE": "north"})  # another store beside it: served
        other.close()
        first.kill()  # kill -9: the session ends with the connection, the lock with it
        second = ServeProcess(tmp_path / "b")
        try:
            assert lock_holders(on_postgres) == [f"automanager serve pid {second.proc.pid} on {os.uname().nodename}"[:63]]
        finally:
            assert "Traceback" not in second.close()
        assert until(lambda: lock_holders(on_postgres) == [], 10)  # stopped: released
    finally:
        first.kill()


def test_a_service_holds_its_store_again_after_the_server_restarts(on_postgres, postgres_server, tmp_path):
    first = ServeProcess(tmp_path / "a")
    down = False
    try:
        lane = first.http.post("/api/lanes").json()
        first.turn(lane, "a pepsi", "t1")
        postgres_server.stop()  # every session goes, the lock with it
        down = True
        postgres_server.restart()
        down = False
        assert until(lambda: len(lock_holders(on_postgres)) == 1), "the service never took its lock again"
        refused = serve_refused(tmp_path / "b")
        assert refused.returncode == 2 and "store main is served already" in refused.stderr, refused.stderr
        assert [line["item"] for line in first.turn(lane, "a bean burrito", "t2")["lines"]] == ["Pepsi®", "Bean Burrito"]
    finally:
        if down:
            postgres_server.restart()
        stderr = first.close()
    assert "held again" in stderr and "Traceback" not in stderr, stderr


def test_a_service_whose_store_was_taken_while_its_lock_was_away_stops(on_postgres, tmp_path):
    """Its lock's connection cut (as by a server restart) and the store taken meanwhile: two services
    must not serve it, so this one stops, saying why."""
    import psycopg

    from automanager.database import service_key

    first = ServeProcess(tmp_path / "a")
    with psycopg.connect(on_postgres, autocommit=True) as conn:
        [holder] = conn.execute("SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                                "WHERE l.locktype = 'advisory' AND a.application_name LIKE 'automanager serve%'"
                                ).fetchone() or [None]
        conn.execute("SELECT pg_terminate_backend(%s)", (holder,))
        assert until(lambda: conn.execute("SELECT pg_try_advisory_lock(%s)", (service_key("main"),)).fetchone()[0], 10)
        try:
            first.proc.wait(timeout=60)
        finally:
            stderr = first.close()
    assert first.proc.returncode == 2, stderr
    assert "store main is served already" in stderr and "this service stops" in stderr, stderr
    assert "Traceback" not in stderr
