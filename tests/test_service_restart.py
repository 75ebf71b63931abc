"""The service killed (SIGKILL) between turns and in the middle of one, restarted on the same state
dir; and 8 lanes at once while the manager changes a price and saves (issue 28). Real
`automanager serve` processes over loopback."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from processes import ServeProcess

from automanager.orders import OrderBook
from automanager.store import Home

pytestmark = pytest.mark.slow

# each line adds one unit of one item, so the board says how often each was taken
ADDS = {"a pepsi": "Pepsi®", "a bean burrito": "Bean Burrito", "a crunchy taco": "Crunchy Taco",
        "a soft taco": "Soft Taco", "a chalupa supreme": "Chalupa Supreme"}


def board(answer: dict) -> Counter:
    return Counter({line["item"]: line["quantity"] for line in answer["lines"]})


def ids_kept(home: Home) -> Counter:
    """How often each turn id is in the customer transcripts of the store."""
    return Counter(t["id"] for _, data in home.sessions_of("customer") for t in data["turns"] if "id" in t)


def test_sigkill_between_turns_the_lane_continues_its_car(tmp_path):
    server = ServeProcess(tmp_path)
    lanes = [server.http.post("/api/lanes").json() for _ in range(2)]
    acked: dict[str, list[str]] = {lane["lane"]: [] for lane in lanes}
    expected: dict[str, Counter] = {lane["lane"]: Counter() for lane in lanes}
    lines = list(ADDS)
    try:
        for cycle in range(3):
            for k, lane in enumerate(lanes):
                for i in range(2):
                    text = lines[(cycle * 2 + i + k) % len(lines)]
                    answer = server.turn(lane, text, f"c{cycle}l{k}t{i}")
                    acked[lane["lane"]].append(text)
                    expected[lane["lane"]][ADDS[text]] += 1
                    assert board(answer) == expected[lane["lane"]]
            session = {lane["lane"]: answer["session"] for lane, answer in zip(lanes, [
                server.http.get(f"/api/lanes/{lane['lane']}", headers={"Authorization": f"Bearer {lane['token']}"}
                                ).json() for lane in lanes], strict=True)}
            server.kill()
            server = ServeProcess(tmp_path)  # the same state dir: same lanes, same tokens
            for lane in lanes:
                view = server.http.get(f"/api/lanes/{lane['lane']}",
                                       headers={"Authorization": f"Bearer {lane['token']}"})
                assert view.status_code == 200, view.text
                data = view.json()
                assert data["session"] == session[lane["lane"]]  # the same car
                assert [t["user"] for t in data["turns"]] == acked[lane["lane"]]
                assert board(data) == expected[lane["lane"]]
        assert {lane["lane"] for lane in server.http.get("/api/lanes", headers=server.manager).json()} == \
            {lane["lane"] for lane in lanes}
    finally:
        assert "Traceback" not in server.close()


def test_sigkill_mid_turn_then_the_same_turn_id_again(tmp_path):
    rng = random.Random(2028)
    server = ServeProcess(tmp_path)
    lane = server.http.post("/api/lanes").json()
    mine = {"Authorization": f"Bearer {lane['token']}", "Content-Type": "application/json"}
    expected, acked, lines = Counter(), [], list(ADDS)
    landed_before_kill = 0
    try:
        for cycle in range(6):
            for i in range(rng.randint(0, 2)):
                text = rng.choice(lines)
                server.turn(lane, text, f"c{cycle}t{i}")
                expected[ADDS[text]] += 1
                acked.append(f"c{cycle}t{i}")
            text, turn_id = rng.choice(lines), f"c{cycle}-inflight"
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("POST", f"/api/lanes/{lane['lane']}/turns", json.dumps({"text": text, "turn_id": turn_id}),
                         mine)  # sent; its answer is not read before the kill
            time.sleep(rng.uniform(0, 0.12))
            server.kill()
            conn.close()
            server = ServeProcess(tmp_path)
            again = server.turn(lane, text, turn_id)  # the page sends the same turn again
            landed_before_kill += bool(again.get("repeated"))
            expected[ADDS[text]] += 1
            acked.append(turn_id)
            assert board(again) == expected  # taken exactly once, whether it landed before the kill or not
        kept = ids_kept(Home(tmp_path))
        assert all(kept[turn_id] == 1 for turn_id in acked) and sum(kept.values()) == len(acked)
    finally:
        assert "Traceback" not in server.close()


def test_eight_lanes_while_the_manager_changes_a_price_and_saves(tmp_path):
    server = ServeProcess(tmp_path)
    lanes = [server.http.post("/api/lanes").json() for _ in range(8)]
    ordering, browsing = lanes[:4], lanes[4:]  # mid-order when the price changes / nothing ordered yet
    old = server.turn(ordering[0], "how much is a bean burrito?", "probe")["reply"]
    assert "$" in old
    for k, lane in enumerate(ordering):
        assert board(server.turn(lane, "a bean burrito", f"first{k}")) == Counter({"Bean Burrito": 1})
    old_price = {line["item"]: line["unit_price"] for line in
                 server.turn(ordering[1], "a bean burrito", "first-again")["lines"]}["Bean Burrito"]
    new_price = old_price + 37
    saved_at: list[float] = []
    records: dict[str, list[tuple[float, dict]]] = {lane["lane"]: [] for lane in lanes}

    def talk(k: int) -> None:
        lane = lanes[k]
        lines = ["a crunchy taco", "a pepsi", "what do you recommend?"] if lane in ordering else \
            ["how much is a bean burrito?", "what do you recommend?", "hi there"]
        for i in range(12):
            started = time.monotonic()
            records[lane["lane"]].append((started, server_turn(lane, lines[i % len(lines)], f"run{k}t{i}")))

    clients = threading.local()

    def server_turn(lane: dict, text: str, turn_id: str) -> dict:
        if not hasattr(clients, "http"):
            clients.http = httpx.Client(base_url=server.url, timeout=60)
        answer = clients.http.post(f"/api/lanes/{lane['lane']}/turns", json={"text": text, "turn_id": turn_id},
                                   headers={"Authorization": f"Bearer {lane['token']}"})
        assert answer.status_code == 200, answer.text
        return answer.json()

    def manager() -> None:
        time.sleep(0.5)
        staged = server.http.post("/api/manager/turns", headers=server.manager,
                                  json={"text": f"the bean burrito now costs ${new_price / 100:.2f}"}).json()
        assert staged["pending"], staged
        saved = server.http.post("/api/save", headers=server.manager).json()
        assert saved["menu_version"] == 1, saved
        saved_at.append(time.monotonic())

    try:
        with ThreadPoolExecutor(9) as pool:
            done = [pool.submit(talk, k) for k in range(8)] + [pool.submit(manager)]
            for future in done:
                future.result(timeout=300)
        assert server.http.get("/api/versions", headers=server.manager).json()["latest"] == 1
        after = {lane["lane"]: server_turn(lane, "how much is a bean burrito?", f"after{k}")
                 for k, lane in enumerate(lanes)}
        for lane in browsing:  # nothing ordered: the newest version, at every turn begun after the save
            assert after[lane["lane"]]["menu_version"] == 1
            assert f"${new_price / 100:.2f}" in after[lane["lane"]]["reply"]
            assert all(answer["menu_version"] == 1 for started, answer in records[lane["lane"]]
                       if started > saved_at[0])
        for lane in ordering:  # mid-order: the version its prices were quoted from
            assert after[lane["lane"]]["menu_version"] == 0
            prices = {line["item"]: line["unit_price"] for line in after[lane["lane"]]["lines"]}
            assert prices["Bean Burrito"] == old_price
        for k, lane in enumerate(lanes):  # no lost turn, nothing doubled
            view = server.http.get(f"/api/lanes/{lane['lane']}",
                                   headers={"Authorization": f"Bearer {lane['token']}"}).json()
            said = [text for _, answer in records[lane["lane"]] for text in [answer["text"]]]
            assert [t["user"] for t in view["turns"]][-13:] == [*said, "how much is a bean burrito?"]
            if lane in ordering:
                taken = Counter(ADDS[t] for t in said if t in ADDS)
                taken["Bean Burrito"] += 2 if k == 1 else 1
                assert board(view) == taken
            else:
                assert view["lines"] == []
        kept = ids_kept(Home(tmp_path))
        assert max(kept.values()) == 1 and sum(kept.values()) == 1 + 4 + 1 + 8 * 12 + 8
    finally:
        assert "Traceback" not in server.close()


def test_chaos_restarts_between_a_turn_and_its_resend_on_both_engines(tmp_path, engine):
    """Issue 53: two lanes close cars while the service is killed (SIGKILL) or stopped between a
    turn and the page sending it again. Every resent turn is taken once (a closing one too: its car
    keeps its receipt, the next car does not start with it), every closed car is recorded once, and
    each lane's transcripts hold its own turns only."""
    rng = random.Random(53)
    server = ServeProcess(tmp_path)
    lanes = [server.http.post("/api/lanes").json() for _ in range(2)]
    cars = [["a bean burrito", "that's all", "no", "no"], ["a large pepsi and a soft taco", "that's all", "no", "no"]]
    closed: list[str] = []
    try:
        for cycle in range(4):
            for k, lane in enumerate(lanes):
                for i, text in enumerate(cars[(cycle + k) % 2]):
                    turn_id = f"l{k}c{cycle}t{i}"
                    first = server.turn(lane, text, turn_id)
                    if rng.random() < 0.4 or i == 3 and cycle % 2 == k:  # a closing turn resent at least twice
                        server.kill() if rng.random() < 0.5 else server.close()
                        server = ServeProcess(tmp_path)
                    again = server.turn(lane, text, turn_id)  # the page did not hear the answer: sent again
                    assert again.get("repeated") and again["session"] == first["session"], (turn_id, again)
                    assert again["placed"] == first["placed"] and again["reply"] == first["reply"]
                closed.append(first["session"])
                assert first["placed"] and first["ended"], first
                view = server.http.get(f"/api/lanes/{lane['lane']}", headers={"Authorization": f"Bearer {lane['token']}"})
                assert view.json()["turns"] == [] and view.json()["session"] != first["session"]  # the next car, fresh
        home = Home(tmp_path)
        placed = [order.session for order in OrderBook(home).open_tickets()]
        assert sorted(placed) == sorted(closed) and len(set(placed)) == len(placed) == 8  # each car once
        for session, data in home.sessions_of("customer"):
            ids = [t["id"] for t in data["turns"]]
            assert len(ids) == len(set(ids)) and len({turn_id[:2] for turn_id in ids}) <= 1, (session, ids)
    finally:
        assert "Traceback" not in server.close()


def test_a_second_serve_of_a_store_on_one_state_dir_is_refused_until_the_first_is_killed(tmp_path, engine):
    from processes import serve_refused

    first = ServeProcess(tmp_path)
    try:
        refused = serve_refused(tmp_path)
        assert refused.returncode == 2, refused.stderr
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and f"process {first.proc.pid} is serving store main" in lines[0], refused.stderr
        assert ("--store" if engine == "postgresql" else "--state-dir") in lines[0]
        first.kill()  # kill -9: its locks go with it
        second = ServeProcess(tmp_path)
        assert "Traceback" not in second.close()
    finally:
        first.kill()
