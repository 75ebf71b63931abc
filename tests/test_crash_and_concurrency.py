"""Crash safety (SIGKILL at random points) and concurrency (8 customers and a manager at once)."""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from processes import ChatProcess

from automanager.menu.model import Menu
from automanager.store import Home

pytestmark = pytest.mark.slow

ORDER_LINES = ["a pepsi", "two soft tacos", "no onions on the soft taco", "a bean burrito",
               "what do you recommend?", "make that one soft taco", "a crunchy taco", "take off the pepsi",
               "how much is a chalupa supreme?", "a large mountain dew"]


def test_sigkill_mid_conversation_never_loses_an_acknowledged_turn(tmp_path):
    rng = random.Random(20261122)
    home, session, acked = Home(tmp_path), None, []
    for _ in range(12):
        chat = ChatProcess("customer", tmp_path, session)
        for _ in range(rng.randint(1, 3)):
            record = chat.say(rng.choice(ORDER_LINES))
            acked.append((record["text"], record["reply"]))
            session = record["session"]
        chat.send(rng.choice(ORDER_LINES))  # killed somewhere in this turn, or just after it
        time.sleep(rng.uniform(0, 0.08))
        chat.kill()
        saved = [(t["user"], t["bot"]) for t in home.load_session(session)["turns"]]  # valid JSON every time
        assert saved[:len(acked)] == acked  # every acknowledged turn is there, in order
        assert len(saved) <= len(acked) + 1  # at most the turn the kill interrupted
        acked = saved  # a turn that landed before the kill is part of the conversation now
    assert len(acked) >= 12


def test_sigkill_of_the_manager_never_half_applies_a_menu_change(engine, tmp_path):
    """On both engines (the processes inherit the database the test chose)."""
    rng = random.Random(7)
    home, session = Home(tmp_path), None
    prices = iter(range(150, 400, 7))
    for _ in range(10):
        manager = ChatProcess("manager", tmp_path, session)
        session = manager.say(f"the soft taco now costs ${next(prices) / 100:.2f}")["session"]
        manager.say("take the bean burrito off the menu")
        manager.say("yes")
        manager.send(rng.choice(["save", "bye", "we're out of onions"]))
        time.sleep(rng.uniform(0, 0.15))
        manager.kill()
        data = home.load_session(session)  # the session is whole
        versions = home.read("SELECT version FROM menu_version")
        audited = {row[0] for row in home.read("SELECT DISTINCT version FROM audit WHERE version IS NOT NULL")}
        assert audited == {v for (v,) in versions}  # a version and its audit rows land together, or neither
        assert home.read("SELECT version FROM menu_version WHERE menu_text IS NULL") == []  # any machine makes it
        for (version,) in versions:
            assert "Soft Taco" in Menu.load(home.menu_files(version)).items  # every published file is whole
        if "phase(ended)" in data["state"]:
            session = None  # a goodbye that landed applied everything; start a new manager
    final = ChatProcess("manager", tmp_path, session)
    final.say("the soft taco now costs $4.44")
    final.say("yes")  # more than double: read back first
    final.say("bye")
    assert "Traceback" not in final.close()
    reader = Home(tmp_path / "another-machine") if engine == "postgresql" else home  # from the server's text
    latest = Menu.load(reader.menu_files(reader.latest_version()))
    assert dict(latest.facts["original_price"])["Soft Taco"] == 444
    assert "Bean Burrito" not in latest.items


def test_eight_customers_and_a_manager_at_once(tmp_path):
    home = Home(tmp_path)
    customers = [ChatProcess("customer", tmp_path) for _ in range(8)]
    manager = ChatProcess("manager", tmp_path)
    turns = [0] * len(customers)

    def each(work):
        with ThreadPoolExecutor(len(customers)) as pool:
            return list(pool.map(work, range(len(customers))))

    def talk(i: int, lines: list[str]) -> list[dict]:
        records = [customers[i].say(line) for line in lines]
        turns[i] += len(records)
        return records

    rng = random.Random(3)
    each(lambda i: talk(i, [rng.choice(ORDER_LINES) for _ in range(18)]))
    assert manager.say("we're out of seasoned beef")["actions"]["stock"] == [["out", "Seasoned Beef"]]
    refused = each(lambda i: talk(i, ["a beef burrito"] * 4))
    for records in refused:  # every customer turn after the runout sees it
        assert all("Seasoned Beef" in r["reply"] for r in records)
        assert all(u["item"] != "Beef Burrito" for r in records for u in r["order"])
    manager.say("the soft taco now costs $1.99")
    manager.say("seasoned beef is back")
    manager.say("save")
    served = each(lambda i: talk(i, ["a beef burrito"]))
    assert all(any(u["item"] == "Beef Burrito" for u in r[0]["order"]) for r in served)
    assert all(r[0]["menu_version"] == 0 for r in served)  # mid-order customers keep their menu
    sessions = {}
    for chat in customers:
        assert "Traceback" not in chat.close()
    assert "Traceback" not in manager.close()
    for session_id, data in home.sessions_of("customer"):
        sessions[session_id] = len(data["turns"])
    assert sorted(sessions.values()) == sorted(turns) and sum(turns) == 8 * 23
    history = home.history()
    assert [(h["action"], h["item"]) for h in reversed(history)] == [
        ("runout", "Seasoned Beef"), ("restore", "Seasoned Beef"), ("edit", "Soft Taco")]
    assert json.dumps(history)  # readable, whole
