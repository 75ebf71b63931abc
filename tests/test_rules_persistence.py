"""Store rules a manager states in plain English survive (issue 30): every rule saved is in force
after a restart and a dropped one stays dropped; a rule staged but not saved is not in force; and a
manager SIGKILLed at any moment around a save leaves each rule whole or not there at all: the
newest menu version holds its fact and the audit row that published it, or neither, every machine
serves the version's text as published, customers are refused iff the fact is there, and the killed
session still holds the rule staged iff it was not published. Real
processes, on both engines (on PostgreSQL the saves alternate between two machines' state dirs).

A rule kind is one entry of RULES: what a manager says to make it and to drop it, the KB fact a
save writes with its audit row, how the manager bot reads it back, and a customer line that breaks
it (and no other rule of RULES) with what the customer bot says iff the rule is in force.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from processes import ChatProcess

from automanager.menu.commit import facts_by_text
from automanager.star import ManagerChat
from automanager.store import Home

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Rule:
    make: str  # what the manager says to state it
    drop: str  # what the manager says to drop it
    fact: str  # the KB fact a save writes
    audit: tuple[str, str, str]  # (item, property, value) of the audit row: new of its add, old of its drop
    reads: str  # the rule as the manager bot reads it back and lists it
    customer: str  # a customer line that breaks it and no other rule of RULES
    refusal: str  # in the customer bot's reply to that line iff the rule is in force


RULES = [
    Rule("cap burrito supreme at 3 a car", "drop the limit on burrito supreme", 'limit(item,"Burrito Supreme®",3)',
         ("Burrito Supreme®", "rule", 'limit(item,"Burrito Supreme®",3)'), "at most 3 Burrito Supreme® per order",
         "four burrito supremes", "Sorry, we can only serve 3 Burrito Supreme® per order"),
    Rule("limit each car to 4 drinks", "scrap the drinks limit", 'limit(category,"drink",4)',
         ("drink", "rule", 'limit(category,"drink",4)'), "at most 4 items from drink per order",
         "two pepsis and three diet pepsis", "Sorry, we can only serve 4 from drink per order"),
    Rule("at most 4 of any single item per order", "remove the per item limit", 'limit(any_item,"all",4)',
         ("all", "rule", 'limit(any_item,"all",4)'), "at most 4 of any one item per order",
         "five cinnamon twists", "Sorry, we can only serve 4 of any one item per order"),
    Rule("not more than 7 items per order", "get rid of the 7 items rule", 'limit(total,"all",7)',
         ("all", "rule", 'limit(total,"all",7)'), "at most 7 items in all per order",
         "four crunchy tacos and four soft tacos", "Sorry, we can only take 7 items per order"),
]


# -- what the state says ------------------------------------------------------------------------
def latest_facts(home: Home) -> set[str]:
    """The facts of the newest menu version, as this machine serves it."""
    return set(facts_by_text(home.menu_files(home.latest_version())))


def in_force(home: Home) -> set[Rule]:
    facts = latest_facts(home)
    return {rule for rule in RULES if rule.fact in facts}


def audited_on(home: Home, rule: Rule, version: int) -> bool:
    """Does the audit log say the rule is on in `version`: its last audit row published by then is an add?"""
    item, prop, value = rule.audit
    rows = home.read("SELECT action FROM audit WHERE version IS NOT NULL AND version <= ? AND item = ? AND property = ? "
                      "AND ((action = 'add' AND new = ?) OR (action = 'delete' AND old = ?)) ORDER BY id",
                      (version, item, prop, value, value))
    return bool(rows) and rows[-1][0] == "add"


def assert_whole(homes: list[Home]) -> None:
    """Every published version is whole on every machine, its audit rows landed with it, and each rule
    is in the newest version iff the audit log says it was published."""
    home = homes[0]
    versions = [v for (v,) in home.read("SELECT version FROM menu_version ORDER BY version")]
    audited = {v for (v,) in home.read("SELECT DISTINCT version FROM audit WHERE version IS NOT NULL")}
    assert audited == set(versions)  # a version and its audit rows land together, or neither
    assert versions == list(range(1, len(versions) + 1))
    texts = dict(home.read("SELECT version, menu_text FROM menu_version"))
    for machine in homes:
        for version in versions:  # the file a machine serves is the text that was published
            assert machine.menu_files(version)[0].read_text(encoding="utf-8") == texts[version], (machine.root, version)
    facts = latest_facts(home)
    assert 'dish("Burrito Supreme®")' in facts  # the newest version is a whole menu
    for rule in RULES:
        assert (rule.fact in facts) == audited_on(home, rule, len(versions)), rule.fact


# -- what the bots say --------------------------------------------------------------------------------
def customers_see(customer: ChatProcess, on: set[Rule]) -> None:
    """A new customer (a process just started) is refused each rule's line iff the rule is on (one
    order afresh per line)."""
    try:
        for rule in RULES:
            record = customer.say(rule.customer)
            if rule in on:
                assert rule.refusal in record["reply"] and record["order"] == [], (rule.fact, record["reply"])
            else:
                assert rule.refusal not in record["reply"] and record["order"], (rule.fact, record["reply"])
            if record["order"]:
                assert customer.say("cancel my order")["order"] == []
    finally:
        stderr = customer.close()
    assert "Traceback" not in stderr, stderr


def manager_lists(manager: ChatProcess, on: set[Rule], pending: set[Rule] = frozenset(),
                  going: set[Rule] = frozenset()) -> None:
    """"what rules are on?" names each rule on, waiting for a save, or going at the save, and no other."""
    reply = manager.say("what rules are on?")["reply"]
    for rule in RULES:
        said = ("Rule on until you save, then dropped: " if rule in going else "Rule waiting for a save: "
                if rule in pending else "Rule on: " if rule in on else None)
        if said is None:
            assert rule.reads not in reply, (rule.reads, reply)
        else:
            assert said + rule.reads in reply, (rule.reads, reply)
    if not on | pending:
        assert reply.startswith("No rules are on"), reply


def stage(manager: ChatProcess, rule: Rule, drop: bool = False) -> str:
    """State (or drop) the rule and say yes to its read-back; returns the session."""
    asked = manager.say(rule.drop if drop else rule.make)["reply"]
    assert ("Drop the rule " if drop else "Make it a rule: ") + rule.reads in asked, asked
    staged = manager.say("yes")
    assert staged["reply"].startswith("Staged: ") and rule.reads in staged["reply"], staged["reply"]
    return staged["session"]


def machines(engine: str, tmp_path: Path) -> list[Path]:
    """The state dirs of the test: one with SQLite (the database is in it), two machines of a chain
    sharing the server with PostgreSQL."""
    return [tmp_path] if engine == "sqlite" else [tmp_path / "a", tmp_path / "b"]


# -- the tests ------------------------------------------------------------------------------------------
# A customer and a manager that check the same state are started together: each new menu version is
# read and grounded by both, side by side.
def test_every_rule_survives_a_restart_and_a_dropped_one_stays_dropped(engine, tmp_path):
    dirs = machines(engine, tmp_path)
    homes = [Home(d) for d in dirs]
    manager = ChatProcess("manager", dirs[0])
    for rule in RULES:
        stage(manager, rule)
    customers_see(ChatProcess("customer", dirs[0]), set())  # staged, not saved: not in force
    assert manager.say("save")["reply"].startswith(f"Applied {len(RULES)} changes")
    assert "Traceback" not in manager.close()

    # a restart: new processes (and, with PostgreSQL, on another machine) over the same state
    customer, manager = ChatProcess("customer", dirs[-1]), ChatProcess("manager", dirs[-1])
    assert_whole(homes)
    assert all(in_force(home) == set(RULES) for home in homes)
    customers_see(customer, set(RULES))
    manager_lists(manager, set(RULES))
    dropped, kept = RULES[0], set(RULES[1:])
    stage(manager, dropped, drop=True)
    manager_lists(manager, kept, going={dropped})
    assert manager.say("save")["reply"].startswith("Applied 1 change")
    assert "Traceback" not in manager.close()

    customer, manager = ChatProcess("customer", dirs[0]), ChatProcess("manager", dirs[0])
    assert_whole(homes)
    assert all(in_force(home) == kept for home in homes)
    customers_see(customer, kept)
    manager_lists(manager, kept)
    assert "Traceback" not in manager.close()
    for home in homes:
        home.close()


# When the manager is killed after saying "save": after a sleep; at once when something of the save
# appears in the state dir (a file in menu/ begun, a menu version file in place, the session saved after
# the commit); after the reply (the save was acknowledged); before "save" is said at all (the rule stays
# staged in the killed session); or by itself inside the commit, its version's rows written but not
# committed. On PostgreSQL the next save, on the other machine, publishes that version number with
# another rule. The moments of LANDS must have landed, or not, as said.
MOMENTS: list[float | str] = ["menu file begun", 0.0, "inside the commit", "session saved", "menu file in place",
                              "no save", 0.15, "reply"]
LANDS = {"session saved": True, "reply": True, "no save": False, "inside the commit": False}
DIE_INSIDE_THE_COMMIT = """
import os, signal
from automanager import store
logged = store.log
def log_and_die(*args):
    logged(*args)  # an audit row of the new version, in its transaction
    os.kill(os.getpid(), signal.SIGKILL)
store.log = log_and_die
"""


def manager_for(moment: float | str, state_dir: Path) -> ChatProcess:
    return ChatProcess("manager", state_dir, before=DIE_INSIDE_THE_COMMIT if moment == "inside the commit" else "")


def entries(folder: Path) -> dict[str, tuple[int, int]]:
    """name -> (inode, mtime) of a folder's files (a file replaced is a new inode)."""
    found = {}
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                try:
                    stat = entry.stat()
                except FileNotFoundError:  # a temporary file put in place meanwhile
                    continue
                found[entry.name] = (stat.st_ino, stat.st_mtime_ns)
    except FileNotFoundError:
        pass
    return found


def save_and_kill(manager: ChatProcess, here: Path, session: str, moment: float | str) -> None:
    """Say save and SIGKILL the manager at `moment`."""
    if moment == "no save":
        manager.kill()
        return
    if moment == "reply":
        reply = manager.say("save")["reply"]
        manager.kill()
        assert reply.startswith("Applied 1 change"), reply
        return
    if moment == "inside the commit":
        manager.send("save")
        assert manager.proc.wait(timeout=60) == -signal.SIGKILL, manager.proc.stderr.read()
        return
    watched = {"menu file begun": (here / "menu", lambda name: True),
               "menu file in place": (here / "menu", lambda name: name.endswith(".lp")),
               "session saved": (here / "sessions", lambda name: name == f"{session}.json")}
    folder, wanted = watched.get(moment, (here, lambda name: False))
    before = entries(folder)
    manager.send("save")
    if isinstance(moment, float):
        time.sleep(moment)
    deadline = time.monotonic() + 10
    while not isinstance(moment, float) and time.monotonic() < deadline and manager.proc.poll() is None:
        now = entries(folder)
        if any(wanted(name) and now[name] != before.get(name) for name in now):
            break
    manager.kill()


def test_sigkill_around_a_save_leaves_each_rule_whole_or_not_there(engine, tmp_path):
    dirs = machines(engine, tmp_path)
    homes = [Home(d) for d in dirs]
    on: set[Rule] = set()
    landed_count = 0
    manager = manager_for(MOMENTS[0], dirs[0])
    for turn, moment in enumerate(MOMENTS):
        here, rule = dirs[turn % len(dirs)], RULES[turn % len(RULES)]
        before = homes[0].latest_version()
        manager_lists(manager, on)  # a new manager after the last kill (on the machine whose turn it is)
        drop = rule in on
        session = stage(manager, rule, drop)
        save_and_kill(manager, here, session, moment)
        # the customer on the machine the manager was killed on; the next manager on the next one
        customer = ChatProcess("customer", here)
        manager = manager_for(MOMENTS[turn + 1] if turn + 1 < len(MOMENTS) else 0.0, dirs[(turn + 1) % len(dirs)])

        after = homes[0].latest_version()
        assert after in (before, before + 1)
        landed = after == before + 1
        assert LANDS.get(moment, landed) == landed, moment
        landed_count += landed
        item, prop, value = rule.audit
        # the killed session still holds the change staged iff it did not land (a resumed session
        # whose batch was published drops it)
        staged = ManagerChat(homes[dirs.index(here)], session).staged()
        assert [(action, name, what) for action, name, what, _old, _new in staged] == \
            ([] if landed else [("delete" if drop else "add", item, prop)]), (moment, staged)
        if landed:  # exactly this change, with its one audit row
            rows = homes[0].read("SELECT action, item, property, old, new FROM audit WHERE version = ?", (after,))
            assert rows == [("delete", item, prop, value, None) if drop else ("add", item, prop, None, value)]
            on ^= {rule}
        assert_whole(homes)
        assert all(in_force(home) == on for home in homes)
        customers_see(customer, on)
    manager_lists(manager, on)  # and a manager can still save
    rule = RULES[len(MOMENTS) % len(RULES)]
    stage(manager, rule, rule in on)
    assert manager.say("save")["reply"].startswith("Applied 1 change")
    assert "Traceback" not in manager.close()
    assert_whole(homes)
    assert all(in_force(home) == on ^ {rule} for home in homes)
    for home in homes:
        home.close()
    print(f"{engine}: {landed_count} of {len(MOMENTS)} killed saves landed")
