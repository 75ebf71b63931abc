"""Lanes that close and a service that cannot be doubled (issue 37): a second `serve` on a state dir
is refused naming the process that serves it; one address opening lanes is limited while another
still opens, and addresses holding every lane (watched by pages) give lanes up to cars of other
addresses; a lane keeps a few event streams; the manager closes any lane; idle lanes and lanes whose page left close by themselves;
closed lane rows are pruned; a request body shorter than its Content-Length is answered 408 while
the service serves others."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from processes import ServeProcess

from automanager.service import lanes
from automanager.service.app import create_app
from automanager.service.auth import TOKEN_FILE
from automanager.settings import ConfigError
from automanager.store import Home

pytestmark = pytest.mark.slow  # serves lanes in a process and waits out its timeouts

PATIENCE = 30.0  # seconds a test waits for what the service does by itself (a slow, shared machine)


def eventually(check: Callable[[], bool]) -> bool:
    """Whether `check` holds within PATIENCE seconds (looked at every 0.1 s)."""
    deadline = time.monotonic() + PATIENCE
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def listed(client: TestClient, root: Path) -> set[str]:
    """The lanes open, as the manager sees them (asking by a lane's token would keep it alive)."""
    return {view["lane"] for view in client.get("/api/lanes", headers=bearer((root / TOKEN_FILE).read_text().strip())).json()}


def serve(state_dir: Path) -> subprocess.CompletedProcess[str] | None:
    """`automanager serve` on the state dir and a free port: how it ended, or None if it kept serving."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    proc = subprocess.Popen([sys.executable, "-m", "automanager", "serve", "--port", str(port), "--state-dir",
                             str(state_dir), "--backend", "offline"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = proc.communicate(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_a_second_serve_of_the_store_on_the_state_dir_is_refused_naming_the_process(tmp_path):
    first = ServeProcess(tmp_path)
    try:
        lane = first.http.post("/api/lanes").json()
        second = serve(tmp_path)
        assert second is not None, "a second serve on the same state dir kept serving"
        assert second.returncode == 2 and "Traceback" not in second.stderr
        said = second.stderr.strip()
        assert "\n" not in said and f"process {first.proc.pid} is serving" in said, said
        assert first.turn(lane, "a pepsi", "t-1")["lines"]  # the first one serves on, its lane untouched
        ServeProcess(tmp_path, {"AUTOMANAGER_STORE": "north"}).close()  # another store of the chain may serve
    finally:
        first.kill()  # SIGKILL: the lock goes with the process, no stale lock is left
    again = ServeProcess(tmp_path)
    again.close()


def test_one_address_opening_lanes_is_limited_while_another_still_opens(tmp_path):
    app = create_app(Home(tmp_path))
    with TestClient(app, client=("192.0.2.1", 4000), raise_server_exceptions=False) as runaway:
        answers = [runaway.post("/api/lanes") for _ in range(lanes.MAX_LANES + 1)]
        opened = [a for a in answers if a.status_code == 201]
        refused = [a for a in answers if a.status_code != 201]
        assert len(opened) < lanes.MAX_LANES and refused
        assert {a.status_code for a in refused} == {429}
        assert "this address" in refused[0].json()["error"]
        car = TestClient(app, client=("192.0.2.2", 4000), raise_server_exceptions=False)  # a real lane
        lane = car.post("/api/lanes")
        assert lane.status_code == 201, lane.text
        turn = car.post(f"/api/lanes/{lane.json()['lane']}/turns", headers=bearer(lane.json()["token"]),
                        json={"text": "a pepsi"})
        assert turn.status_code == 200 and turn.json()["lines"]


def test_addresses_holding_every_lane_give_one_up_to_a_car_of_another_address(tmp_path, monkeypatch):
    """This week's attack, scaled down: two addresses open all the lanes and keep a page watching
    each (which used to keep them open for good). A car of a third address still gets a lane, one
    of the biggest holder's; the holders get no more, and take none from the cars."""
    monkeypatch.setattr(lanes, "MAX_LANES", 8)
    monkeypatch.setenv("AUTOMANAGER_LANES_PER_CLIENT", "4")
    app = create_app(Home(tmp_path))
    service = app.state.service
    squatters = [TestClient(app, client=(f"192.0.2.{n}", 4000), raise_server_exceptions=False) for n in (1, 2)]
    cars = [TestClient(app, client=(f"198.51.100.{n}", 4000), raise_server_exceptions=False) for n in (1, 2, 3)]
    with squatters[0]:
        held = [squatter.post("/api/lanes") for squatter in squatters for _ in range(4)]
        assert [a.status_code for a in held] == [201] * 8
        for lane in service.lanes.open.values():
            lane.watching += 1  # a page holds its event stream
        over = squatters[0].post("/api/lanes")
        assert over.status_code == 429 and "this address" in over.json()["error"]  # over its own share
        for n, car in enumerate(cars, 1):
            lane = car.post("/api/lanes")
            assert lane.status_code == 201, lane.text
            turn = car.post(f"/api/lanes/{lane.json()['lane']}/turns", headers=bearer(lane.json()["token"]),
                            json={"text": "a pepsi"})
            assert turn.status_code == 200 and turn.json()["lines"]
            counts = sorted(sum(lane.client == f"192.0.2.{k}" for lane in service.lanes.open.values()) for k in (1, 2))
            assert len(service.lanes.open) == 8 and sum(counts) == 8 - n and counts[1] - counts[0] <= 1, counts
        for squatter in squatters:  # a lane back from a car: none (rate, share); the cars' lanes stay
            again = squatter.post("/api/lanes")
            assert again.status_code == 429, again.text
        assert sum(lane.client.startswith("198.51.100.") for lane in service.lanes.open.values()) == 3


def test_a_watched_lane_no_car_spoke_at_for_the_idle_time_is_given_up_when_every_lane_is_taken(tmp_path, monkeypatch):
    monkeypatch.setattr(lanes, "MAX_LANES", 2)
    app = create_app(Home(tmp_path))
    service = app.state.service
    first, second, third, fourth = (TestClient(app, client=(f"192.0.2.{n}", 4000), raise_server_exceptions=False)
                                    for n in (1, 2, 3, 4))
    with first:
        quiet, busy = first.post("/api/lanes").json(), second.post("/api/lanes").json()
        for lane in service.lanes.open.values():
            lane.watching += 1
        service.lanes.open[quiet["lane"]].heard -= service.lanes.idle  # a page watches, no car for the idle time
        assert third.post("/api/lanes").status_code == 201  # one lane each: the idle one goes
        assert first.get(f"/api/lanes/{quiet['lane']}", headers=bearer(quiet["token"])).status_code == 404
        refused = fourth.post("/api/lanes")  # nobody holds more than a share and no lane is idle: a 429
        assert refused.status_code == 429 and "close one first" in refused.json()["error"]
        assert second.get(f"/api/lanes/{busy['lane']}", headers=bearer(busy["token"])).status_code == 200


def test_an_ipv6_client_is_counted_by_its_64_network(tmp_path):
    assert lanes.client_of("2001:db8:1:2:aaaa::1") == lanes.client_of("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert lanes.client_of("2001:db8:1:3::1") != lanes.client_of("2001:db8:1:2::1")
    assert lanes.client_of("::ffff:192.0.2.7") == lanes.client_of("192.0.2.7") == "192.0.2.7"
    assert lanes.client_of(None) == "" and lanes.client_of("testclient") == "testclient"


def test_a_lane_keeps_a_few_event_streams_and_a_closed_lane_ends_them(tmp_path):
    import asyncio

    home = Home(tmp_path)
    service = create_app(home).state.service

    async def run() -> None:
        service.events.loop = asyncio.get_running_loop()
        lane, _token = service.lanes.start("192.0.2.1")
        queues = [asyncio.Queue() for _ in range(lanes.MAX_STREAMS + 2)]
        streams = [service.lanes.watch(lane, service.events.stream(lambda e: e.get("lane") == lane.id, [], q), q)
                   for q in queues]
        first = [asyncio.ensure_future(anext(stream)) for stream in streams]  # each begins, in order
        await asyncio.sleep(0.1)
        assert [task.done() for task in first] == [True, True] + [False] * lanes.MAX_STREAMS  # the oldest two ended
        assert all(isinstance(task.exception(), StopAsyncIteration) for task in first[:2])
        assert lane.watching == lanes.MAX_STREAMS
        await asyncio.to_thread(service.lanes.close, lane)
        await asyncio.sleep(0.1)
        assert all(task.done() and "lane_closed" in task.result() for task in first[2:])  # each hears it
        for stream in streams[2:]:  # and then ends
            with pytest.raises(StopAsyncIteration):
                await asyncio.wait_for(anext(stream), 5)
        assert lane.watching == 0

    asyncio.run(run())


def test_the_manager_closes_any_lane(tmp_path):
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        manager = bearer((tmp_path / TOKEN_FILE).read_text().strip())
        lane, other = client.post("/api/lanes").json(), client.post("/api/lanes").json()
        path = f"/api/manager/lanes/{lane['lane']}"
        for headers in ({}, bearer(lane["token"]), bearer(other["token"])):  # no lane closes another by this route
            assert client.delete(path, headers=headers).status_code == 401
        closed = client.delete(path, headers=manager)
        assert closed.status_code == 200 and closed.json() == {"lane": lane["lane"], "closed": True}
        assert client.get(f"/api/lanes/{lane['lane']}", headers=bearer(lane["token"])).status_code == 404
        assert [view["lane"] for view in client.get("/api/lanes", headers=manager).json()] == [other["lane"]]
        again = client.delete(path, headers=manager)
        assert again.status_code == 404 and "no open lane" in again.json()["error"]
    assert [row[0] for row in Home(tmp_path).lanes()] == [other["lane"]]  # a restart does not bring it back


def test_idle_lanes_close_by_themselves(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMANAGER_LANE_IDLE", "0.3")
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        lane = client.post("/api/lanes").json()
        assert eventually(lambda: lane["lane"] not in listed(client, tmp_path))
        assert client.get(f"/api/lanes/{lane['lane']}", headers=bearer(lane["token"])).status_code == 404
    assert Home(tmp_path).lanes() == []


def test_a_lane_whose_page_left_closes_and_only_its_own_token_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(lanes, "LEFT", 0.3, raising=False)  # seconds, not 10
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        lane, other = client.post("/api/lanes").json(), client.post("/api/lanes").json()
        left = f"/api/lanes/{lane['lane']}/left"
        wrong = client.post(left, content=f"token={other['token']}",
                            headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert wrong.status_code == 403
        said = client.post(left, content=f"token={lane['token']}",  # what navigator.sendBeacon sends
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert said.status_code == 202, said.text
        assert eventually(lambda: listed(client, tmp_path) == {other["lane"]})


def test_an_unusable_idle_setting_is_refused_with_its_name(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMANAGER_LANE_IDLE", "soon")
    with pytest.raises(ConfigError, match="AUTOMANAGER_LANE_IDLE"):
        create_app(Home(tmp_path))


def test_closed_lane_rows_are_pruned(tmp_path, engine):
    home = Home(tmp_path)
    home.open_lane("kept-open", "digest", "s0")
    for n in range(300):
        home.open_lane(f"lane-{n}", "digest", f"s{n}")
        home.close_lane(f"lane-{n}")
    rows = home.read("SELECT lane FROM lane")
    assert len(rows) <= 257  # the newest closed ones and the open one, not one row a car
    assert ("kept-open",) in rows and ("lane-299",) in rows and ("lane-0",) not in rows
    assert home.lanes() == [("kept-open", "digest", "s0", None)]


def test_a_body_shorter_than_its_length_gets_408_and_the_service_serves_others(tmp_path):
    served = ServeProcess(tmp_path)
    try:
        lane = served.http.post("/api/lanes").json()
        with socket.create_connection(("127.0.0.1", served.port), timeout=PATIENCE) as slow:
            slow.sendall((f"POST /api/lanes/{lane['lane']}/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Authorization: Bearer {lane['token']}\r\nContent-Type: application/json\r\n"
                          'Content-Length: 100\r\n\r\n{"text": "a pep').encode())
            assert served.turn(lane, "a pepsi", "t-1")["lines"]  # served while that body never comes
            answer = ""
            try:
                while '"status"' not in answer and (chunk := slow.recv(4096)):  # the head, then the JSON error
                    answer += chunk.decode()
            except TimeoutError:
                pass
            assert answer.startswith("HTTP/1.1 408"), answer or "no answer: the connection is held"
            assert '"status":408' in answer
        assert served.turn(lane, "a bean burrito", "t-2")["lines"]
        assert len(served.http.get(f"/api/lanes/{lane['lane']}", headers=bearer(lane["token"])).json()["turns"]) == 2
    finally:
        served.kill()
