"""The state kept safe from what could corrupt it: numbers past clingo's 32 bits bounded before they
become symbols, one publish per staged batch, no lost update between managers, processes opening
a new state dir at once, a previous release's database upgraded, an LLM rephrasing that changes
the decision never used, bounded manager turns, session ids that never collide."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest
from fake_openai import FakeOpenAI

from automanager.acts import Order
from automanager.llm.openai_backend import LLMConfig, unfaithful
from automanager.llm.structured import CustomerReader
from automanager.menu.model import Menu
from automanager.names import Embedder, NameMatcher
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home, StateError, VersionMoved
from automanager.vocab import CUSTOMER, MAX_NUMBER, bounded, validate

pytestmark = pytest.mark.slow  # many processes on one state dir


@pytest.fixture
def home(tmp_path):
    return Home(tmp_path / "state")


def price_of(home, item):
    menu = Menu.load(home.menu_files(home.latest_version()))
    return [price for name, price in menu.facts["original_price"] if name == item]


def audit(home):
    return home.read("SELECT version, action, item, property, old, new FROM audit ORDER BY id")


# -- 1. numbers beyond clingo's 32 bits ----------------------------------------------------------
@pytest.mark.parametrize("line", ["2147483648 soft tacos", "1e999 soft tacos", "99999999999999999999 pepsis",
                                  "five billion soft tacos", "-99999999999999999999 soft tacos"])
def test_a_huge_quantity_gets_the_cap_refusal(home, line):
    turn = CustomerChat(home).turn(line)
    assert turn.order == []
    assert "that many" in turn.reply or "isn't a quantity" in turn.reply
    assert f"{MAX_NUMBER:,}" not in turn.reply  # the bound is not a number the customer said


@pytest.mark.parametrize("line, reason", [
    ("the price of the soft taco is 99999999999 dollars", "That amount is over the most an item may cost"),
    ("the soft taco now costs $99999999999999999999999.50", "That amount is over the most an item may cost"),
])
def test_a_huge_price_gets_the_limit_refusal(home, line, reason):
    chat = ManagerChat(home)
    turn = chat.turn(line)
    assert reason in turn.reply and chat.staged() == []


def test_a_huge_number_from_the_llm_is_bounded_before_it_reaches_clingo(home):
    menu = Menu.load(home.menu_files(0))
    forms = validate(CUSTOMER, {"predicates": [{"predicate": "order", "food": "soft taco", "quantity": 2**70}]})
    parse = CustomerReader(NameMatcher(menu)).read(forms)
    assert parse.acts[0] == Order("Soft Taco", MAX_NUMBER, parse.acts[0].line)
    assert bounded("1e999") == MAX_NUMBER and bounded(-(10**40)) == -MAX_NUMBER and bounded("12") == 12


# -- 2. a published batch is never applied again --------------------------------------------------
def test_a_manager_stopped_between_publish_and_save_does_not_apply_twice(home):
    chat = ManagerChat(home)
    chat.turn("the soft taco now costs $2.00")
    chat.step("save")  # the process dies here: the version is published, the session not saved
    assert home.latest_version() == 1
    again = ManagerChat(home, chat.session_id)
    assert again.staged() == []  # `state pending` reads the same
    again.turn("save")
    again.turn("bye")
    assert home.latest_version() == 1
    assert audit(home) == [(1, "edit", "Soft Taco", "price", "139", "200")]


# -- 3. optimistic concurrency between managers ---------------------------------------------------
def conflict(home):
    """Manager A stages $2.00 on a $1.39 taco; manager B sets $2.50 and saves first."""
    first, second = ManagerChat(home), ManagerChat(home)
    first.turn("the soft taco now costs $2.00")
    second.turn("the soft taco now costs $2.50")
    second.turn("yes")  # a rise of more than half is read back first
    second.turn("save")
    return first


def test_a_change_moved_by_another_manager_is_asked_about_then_applied_with_the_true_old_value(home):
    first = conflict(home)
    asked = first.turn("save")
    assert "changed to $2.50 by another manager" in asked.reply and "$2.00?" in asked.reply
    assert home.latest_version() == 1 and price_of(home, "Soft Taco") == [250]
    first.turn("yes")
    assert price_of(home, "Soft Taco") == [200]
    assert audit(home)[-1] == (2, "edit", "Soft Taco", "price", "250", "200")


def test_no_to_a_moved_change_keeps_the_other_managers_value(home):
    first = conflict(home)
    first.turn("bye")  # a goodbye asks too, rather than ending with the question open
    turn = first.turn("no")
    assert "stays $2.50" in turn.reply and first.staged() == []
    assert home.latest_version() == 1 and price_of(home, "Soft Taco") == [250]


def test_a_version_published_while_a_turn_is_decided_is_not_overwritten(home):
    first, second = ManagerChat(home), ManagerChat(home)
    first.turn("the soft taco now costs $2.00")
    second.turn("the soft taco now costs $2.50")
    second.turn("yes")
    publish = home.commit_menu
    calls = []

    def second_gets_there_first(*args, **kwargs):
        if not calls:
            calls.append(1)
            second.turn("save")  # publishes version 1 after `first` decided its commit on version 0
        return publish(*args, **kwargs)

    first.home.commit_menu = second_gets_there_first
    turn = first.turn("save")
    assert "by another manager" in turn.reply
    assert price_of(home, "Soft Taco") == [250] and home.latest_version() == 1
    with pytest.raises(VersionMoved):
        publish(first.session_id, "batch", 0, [], lambda files: "")


# -- 4. processes opening a new state dir at once -----------------------------------------------
def open_at_once(root, barrier, failures):
    barrier.wait()
    try:
        Home(root).stock_out()
    except StateError as exc:
        failures.put(str(exc))


def test_processes_opening_a_new_state_dir_at_once_all_succeed(tmp_path):
    context = multiprocessing.get_context("fork")
    failures = context.Queue()
    for attempt in range(40):
        barrier = context.Barrier(6)
        workers = [context.Process(target=open_at_once, args=(tmp_path / str(attempt), barrier, failures))
                   for _ in range(6)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
    found = [failures.get() for _ in range(failures.qsize())] if not failures.empty() else []
    assert found == []
    with sqlite3.connect(tmp_path / "0" / "shared.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert not list((tmp_path / "0").glob("*.new*"))  # no temporary database left behind


def test_a_process_keeps_one_connection_until_the_file_is_another(tmp_path):
    """Reads and writes share this thread's connection; a database deleted under it (another
    process's `state reset`) is made and opened again, so nothing is read from the file that is gone."""
    import threading

    home = Home(tmp_path)
    home.set_stock("Tomatoes", True)
    kept = home.database.connection()
    assert home.stock_out() == ["Tomatoes"] and home.latest_version() == 0 and home.database.connection() is kept
    other: list = []
    thread = threading.Thread(target=lambda: other.append(home.database.connection()))
    thread.start()
    thread.join()
    assert other[0] is not kept  # a thread of its own
    Home(tmp_path).reset()
    assert home.stock_out() == [] and home.database.connection() is not kept
    home.set_stock("Lettuce", True)
    assert Home(tmp_path).stock_out() == ["Lettuce"]


def test_a_database_of_the_previous_release_is_upgraded(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    with sqlite3.connect(tmp_path / "shared.db") as conn:  # the old schema: no batch column
        conn.execute("CREATE TABLE menu_version (version INTEGER PRIMARY KEY, base TEXT NOT NULL, "
                     "at TEXT NOT NULL, session TEXT NOT NULL)")
    home = Home(tmp_path)
    assert home.published("someone", "batch") is None
    chat = ManagerChat(home)
    chat.turn("the soft taco now costs $2.00")
    chat.turn("save")
    assert home.published(chat.session_id, "nothing") is None and home.latest_version() == 1


# -- 5. the rephrasing keeps the decision --------------------------------------------------------
REFUSAL = "Sorry, we can't offer the Pepsi® right now: we've run out of Pepsi®. What else can I get for you?"
SUMMARY = "Here's your order: two Soft Tacos at $1.39 each and a Pepsi® at $1.00. The total comes to $3.78."


@pytest.mark.parametrize("decided, text, why", [
    (REFUSAL, "Your Pepsi is on its way, on the house!", "refuses"),
    (REFUSAL, "Good news: one Pepsi coming right up. Anything else?", "refuses"),
    (REFUSAL, "Sorry, no Pepsi today, but it's free next time!", "promises"),
    (SUMMARY, "Two Soft Tacos and a Pepsi at $1.00, $3.78 in all.", "$1.39"),
    (SUMMARY, "Two of them at $1.39 each and a Pepsi at $1.00: $3.78.", "Soft Taco"),
    (SUMMARY, "Two Soft Tacos at $1.39 each, a Pepsi at $1.00 and a free upgrade: $3.78.", "promises"),
])
def test_a_rephrasing_that_changes_the_decision_is_not_used(decided, text, why):
    menu = Menu.load(Home().base_files)
    problem = unfaithful(text, decided, menu)
    assert problem is not None and why in problem


def test_a_faithful_rephrasing_is_used():
    menu = Menu.load(Home().base_files)
    assert unfaithful("Sorry, we're out of Pepsi® at the moment. Anything else?", REFUSAL, menu) is None
    assert unfaithful("That's two Soft Tacos at $1.39 each plus a Pepsi® at $1.00, $3.78 in all.", SUMMARY,
                      menu) is None


def test_a_refusal_turned_into_a_gift_by_the_llm_reaches_no_customer(home, monkeypatch):
    home.set_stock("Pepsi®", True)
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("AUTOMANAGER_LLM_RETRIES", "0")
        server.parses.append({"predicates": [{"predicate": "order", "food": "pepsi", "quantity": 1}]})
        monkeypatch.setenv("AUTOMANAGER_LLM_REPHRASE", "1")
        server.rephrase = lambda decided: "Your Pepsi is on its way, on the house!"
        turn = CustomerChat(home, None, LLMConfig.from_env("fake-model")).turn("a pepsi")
    assert "run out" in turn.reply and "on the house" not in turn.reply
    assert turn.llm["response"] == "template"


# -- 10. a long list costs one bounded turn -------------------------------------------------------
def test_a_long_ingredient_list_is_read_in_one_embedding_call_and_bounded(home, monkeypatch):
    texts = []
    encode = Embedder.encode.__func__
    monkeypatch.setattr(Embedder, "encode", classmethod(lambda cls, batch: (texts.append(len(batch)),
                                                                            encode(cls, batch))[1]))
    chat = ManagerChat(home)
    chat.turn("add a new dish called Market Wrap")
    chat.turn("it's a burrito for $3.49")
    listed = ", ".join(["chikin", "chees", "sour creme", "griled chicken", "beanz"] * 40)
    texts.clear()
    turn = chat.turn(listed)
    assert "I read the first 30 names" in turn.reply and "other 170" in turn.reply
    assert len(texts) <= 2  # the names' vectors (once per process) and one batch of queries
    assert "Grilled Chicken" in turn.reply


# -- 11. session ids ------------------------------------------------------------------------------
def test_a_new_session_never_replaces_a_saved_one(home, monkeypatch):
    old = CustomerChat(home)
    old.turn("a soft taco")
    saved = home.session_path(old.session_id).read_text()
    assert len(old.session_id) >= 16
    monkeypatch.setattr(home, "new_session_id", lambda: old.session_id)  # as if the random id repeated
    with pytest.raises(StateError, match="already exists"):
        CustomerChat(home).turn("a pepsi")
    assert home.session_path(old.session_id).read_text() == saved


def test_new_session_ids_skip_saved_ones(home, monkeypatch):
    taken = CustomerChat(home)
    taken.turn("a soft taco")
    ids = iter([taken.session_id, "0123456789abcdef"])
    monkeypatch.setattr("automanager.store.secrets.token_hex", lambda n: next(ids))
    assert home.new_session_id() == "0123456789abcdef"


def test_a_missing_manager_session_points_to_the_manager_chat(home):
    with pytest.raises(StateError, match="`automanager manager` without --resume"):
        ManagerChat(home, "0123456789abcdef")


# -- 12. a read-only or full state dir is still read --------------------------------------------------
# A real file system (tmpfs) made read-only or filled up, where the tests may mount one (root): SQLite's own
# behaviour, which an in-process simulation (faulty_state.py) cannot show: a WAL database closed cleanly has
# no -shm, and an ordinary reader must make one (refused on a read-only disk, cut short on a full one).
LOOKS = [["state", "stock"], ["state", "history"], ["state", "pending"], ["orders", "list", "--day", "2026-11-25"],
         ["orders", "list", "--open"], ["orders", "show", "1"], ["orders", "tax"], ["report", "--day", "2026-11-25"]]
SEEN = {"state stock": "Tomatoes", "state history": "Soft Taco", "state pending": "Bean Burrito",
        "orders list": "Pepsi", "orders show": "Ticket #1", "orders tax": "none", "report": "1 orders, sales $4.28"}


@pytest.fixture
def disk(tmp_path):
    """A small tmpfs of the test's own (skipped where none can be mounted: not root, or no mount)."""
    import os
    import subprocess

    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(folder)], capture_output=True,
                          text=True, timeout=30)
    if made.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], timeout=30, check=False)


def used_store(root):
    """A store with a closed order, a runout, a published price and a pending change; every
    connection closed, as after a clean stop (no -wal or -shm file left)."""
    from datetime import datetime

    home = Home(root)
    home.clock = datetime(2026, 11, 25, 12, 0)
    chat = CustomerChat(home)
    for line in ["two bean burritos and a large pepsi", "that's all", "no", "no"]:
        chat.turn(line)
    assert chat.ended
    manager = ManagerChat(home)
    manager.turn("we're out of tomatoes")
    manager.turn("the soft taco now costs $1.79")
    manager.turn("save")
    manager.turn("the bean burrito now costs $1.99")  # pending
    home.close()


def files_of(root):
    """Every file under the state dir, with its size and time: nothing is made, grown or removed."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))
            if p.is_file()}


def fault(disk, kind):
    """Make the mounted disk read-only, or fill it up."""
    import errno
    import subprocess

    if kind == "read-only":
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True, timeout=30)
        return
    with open(disk / "filler", "wb") as filler:
        try:
            while True:
                filler.write(b"\0" * (1 << 20))
                filler.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


def look(root, command):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))
           or k == "AUTOMANAGER_DATABASE_URL"}  # the engine the test chose
    return subprocess.run([sys.executable, "-m", "automanager", *command, "--state-dir", str(root)],
                          capture_output=True, text=True, timeout=120, env={**env, "COLUMNS": "200"})


@pytest.mark.parametrize("kind", ["read-only", "full"])
def test_every_look_at_a_read_only_or_full_state_dir_works_and_makes_no_file(disk, kind, engine):
    from concurrent.futures import ThreadPoolExecutor

    root = disk / "state"
    used_store(root)
    assert not (root / "shared.db-shm").exists()  # on SQLite, the case an ordinary reader cannot read
    fault(disk, kind)
    before = files_of(root)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda command: look(root, command), LOOKS))
    for command, result in zip(LOOKS, results, strict=True):
        said = " ".join(command[:2]) if command[0] != "report" else "report"
        assert (result.returncode, result.stderr) == (0, ""), (command, result.stderr)
        assert SEEN[said] in result.stdout, (command, result.stdout)
    assert files_of(root) == before


def test_a_look_at_a_full_disk_while_a_writer_is_open_sees_its_commits_and_makes_no_file(disk):
    import sqlite3

    root = disk / "state"
    used_store(root)
    writer = sqlite3.connect(root / "shared.db", isolation_level=None)  # a live service: -wal and -shm are there
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("INSERT INTO stock_out (store, ingredient, since) VALUES ('main', 'Lettuce', 'now')")
        fault(disk, "full")
        before = files_of(root)
        result = look(root, ["state", "stock", "--json"])
        assert result.returncode == 0, result.stderr
        assert {row["name"] for row in __import__("json").loads(result.stdout)} == {"Lettuce", "Tomatoes"}
        assert files_of(root) == before
    finally:
        writer.close()


def test_a_menu_version_missing_from_a_read_only_state_dir_is_read_from_the_database(disk, engine):
    """On a chain (PostgreSQL) the common case: another machine published it."""
    root = disk / "state"
    used_store(root)
    (root / "menu" / "v1.lp").unlink()  # published, its file never put in place (or lost)
    fault(disk, "read-only")
    result = look(root, ["state", "pending"])
    assert result.returncode == 0 and "Bean Burrito" in result.stdout, result.stderr
    assert not (root / "menu" / "v1.lp").exists()


def test_a_database_of_an_earlier_release_on_a_read_only_state_dir_says_what_to_do(disk):
    import sqlite3

    root = disk / "state"
    used_store(root)
    with sqlite3.connect(root / "shared.db") as conn:
        conn.execute("PRAGMA user_version = 4")
    conn.close()
    fault(disk, "read-only")
    result = look(root, ["state", "stock"])
    assert result.returncode == 2 and "earlier release" in result.stderr and "writable" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
