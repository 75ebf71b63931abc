"""Reliability on PostgreSQL (issue 29): the collaboration scenarios pass, and the service that
loses its database mid-service answers 503 (try again) and, with the server back, takes the same
turn once. Real processes and a real server (skipped where none starts). The manager SIGKILLed
mid-commit runs on both engines in test_crash_and_concurrency.py."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from processes import ServeProcess

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
