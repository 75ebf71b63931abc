"""Chains: many stores, one menu, stock per store (issue 29). The menu is the chain's (a version
published by any store's manager reaches every store's new customers); the stock list, store
prices, lanes, unheard phrases and stock history are each store's; sessions record their store.
The database matters here: the tests run on SQLite and on a real PostgreSQL server (`engine`)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from automanager import database
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home, StateError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def no_store_setting(monkeypatch):
    monkeypatch.delenv("AUTOMANAGER_STORE", raising=False)


def stores(tmp_path, *names):
    """Homes of several stores of one chain: one state dir (SQLite) or one server (PostgreSQL)."""
    return [Home(tmp_path / "state", store=name) for name in names]


def ordered(home, line):
    chat = CustomerChat(home)
    turn = chat.turn(line)
    return chat, turn, [unit["item"] for unit in turn.order]


def agree(chat, turn, answer="yes"):
    """Answer the manager bot's read-back questions until it asks none."""
    for _ in range(3):
        if not turn.actions.get("ask"):
            return turn
        turn = chat.turn(answer)
    return turn


def test_a_runout_in_one_store_refuses_the_dish_there_and_never_in_another(tmp_path, engine):
    a, b = stores(tmp_path, "north", "south-2")
    manager = ManagerChat(a)
    agree(manager, manager.turn("we're out of the bean burrito"))
    assert a.stock_out() == ["Bean Burrito"] and b.stock_out() == []
    _, turn_a, units_a = ordered(a, "a bean burrito please")
    _, turn_b, units_b = ordered(b, "a bean burrito please")
    assert units_a == [] and units_b == ["Bean Burrito"]
    assert "Bean Burrito" in turn_a.reply
    # the same food out in both stores is two rows, and back in one store is back there only
    b.set_stock("Bean Burrito", True)
    a.set_stock("Bean Burrito", False)
    assert a.stock_out() == [] and b.stock_out() == ["Bean Burrito"]


def test_a_store_price_changes_that_stores_quote_and_total_only(tmp_path, engine):
    a, b = stores(tmp_path, "north", "south")
    chain = CustomerChat(b).menu.facts["original_price"]
    base = dict(chain)["Bean Burrito"]
    manager = ManagerChat(a)
    turn = manager.turn("here the bean burrito costs $1.79")
    assert turn.parsed == ["store_price('Bean Burrito', 179)"] and "$1.79" in turn.reply
    assert a.store_prices() == {"Bean Burrito": 179} and b.store_prices() == {}
    assert a.latest_version() == 0  # the chain menu is not changed
    for home, cents in ((a, 179), (b, base)):
        chat = CustomerChat(home)
        quote = chat.turn("how much is a bean burrito")
        assert f"${cents / 100:.2f}" in quote.reply
        order = chat.turn("two bean burritos please")
        assert order.board["total"] == 2 * cents
        assert {line["unit_price"] for line in order.board["lines"]} == {cents}
        total = chat.turn("what's my total")
        assert f"${2 * cents / 100:.2f}" in total.reply
    # the chain price again
    turn = manager.turn("use the chain price for the bean burrito again")
    assert turn.parsed == ["chain_price('Bean Burrito')"] and a.store_prices() == {}
    assert f"${base / 100:.2f}" in CustomerChat(a).turn("how much is a bean burrito").reply
    assert [row["action"] for row in a.history()] == ["chain_price", "store_price"] and b.history() == []


def test_store_prices_are_checked(tmp_path, engine):
    (a,) = stores(tmp_path, "north")
    manager = ManagerChat(a)
    assert "not a valid price" in manager.turn("here the bean burrito costs $0.00").reply
    assert "over the most" in manager.turn("here the bean burrito costs $99.00").reply
    assert "no price of this store's own" in manager.turn("use the chain price for the bean burrito again").reply
    assert a.store_prices() == {} and a.history() == []


def test_a_chain_menu_change_by_one_stores_manager_reaches_every_store(tmp_path, engine):
    a, b = stores(tmp_path, "north", "south")
    manager = ManagerChat(a)
    agree(manager, manager.turn("the bean burrito now costs $1.49"))
    agree(manager, manager.turn("take the cheesy roll up off the menu"))
    agree(manager, manager.turn("save"))
    assert a.latest_version() == b.latest_version() == 1
    customer_b = CustomerChat(b)
    assert "Cheesy Roll Up" not in customer_b.menu.items
    assert "$1.49" in customer_b.turn("how much is a bean burrito").reply
    # the menu rows are the chain's: every store's history shows them, with the store that published
    rows = [row for row in b.history() if row["version"]]
    assert {row["item"] for row in rows} == {"Bean Burrito", "Cheesy Roll Up"}
    assert {row["store"] for row in rows} == {"north"}


def test_history_lanes_and_unheard_phrases_are_per_store(tmp_path, engine):
    a, b = stores(tmp_path, "north", "south")
    a.set_stock("Guacamole", True)
    assert [row["action"] for row in a.history()] == ["runout"] and b.history() == []
    a.open_lane("lane1", "hash1", "s1")
    b.open_lane("lane2", "hash2", "s2")
    assert a.lanes() == [("lane1", "hash1", "s1", None)] and b.lanes() == [("lane2", "hash2", "s2", None)]
    a.note_unheard(["lava burrito"])
    a.note_unheard(["lava burrito"])
    b.note_unheard(["lava burrito"])
    assert [(r["phrase"], r["count"]) for r in a.unheard()] == [("lava burrito", 2)]
    assert [(r["phrase"], r["count"]) for r in b.unheard()] == [("lava burrito", 1)]
    assert a.mark_unheard("lava burrito", "not_sold")
    assert b.heard("lava burrito")["status"] == "open"


def test_a_session_records_its_store_and_is_refused_in_another(tmp_path, engine):
    a, b = stores(tmp_path, "north", "south")
    chat = CustomerChat(a)
    chat.turn("a bean burrito please")
    assert a.load_session(chat.session_id)["store"] == "north"
    with pytest.raises(StateError, match="belongs to the store 'north'"):
        CustomerChat(b, chat.session_id)
    assert CustomerChat(a, chat.session_id).order()
    assert [sid for sid, _ in a.sessions_of("customer")] == [chat.session_id] and b.sessions_of("customer") == []


@pytest.mark.parametrize("bad", ["", "north store", "a/b", "x" * 65, "café", "../main"])
def test_bad_store_ids_are_refused(tmp_path, bad):
    with pytest.raises(StateError, match="is not a store id"):
        Home(tmp_path, store=bad)


# -- a database made before stores ---------------------------------------------------------------
BEFORE = 3  # the migration that was the latest before stores


def fill_before_stores(tx) -> None:
    tx.execute("INSERT INTO stock_out (ingredient, since) VALUES ('Guacamole', '2026-01-01T00:00:00+00:00')")
    tx.execute("INSERT INTO audit (at, session, version, action, item, property, old, new) "
               "VALUES ('2026-01-01T00:00:00+00:00', 's1', NULL, 'runout', 'Guacamole', 'stock', 'in', 'out')")
    tx.execute("INSERT INTO lane VALUES ('lane1', 'hash1', 's1', '2026-01-01T00:00:00+00:00', NULL)")
    tx.execute("INSERT INTO unheard (phrase, count, last_at) VALUES ('lava burrito', 3, '2026-01-01T00:00:00+00:00')")


def migrate_to(tx, engine: str, last: int) -> None:
    for number, statements in database.MIGRATIONS:
        if number <= last:
            for statement in statements(engine):
                tx.execute(statement)


def check_kept_under_main(root: Path) -> None:
    main, other = Home(root), Home(root, store="north")
    assert main.stock_out() == ["Guacamole"] and other.stock_out() == []
    assert [row["action"] for row in main.history()] == ["runout"] and other.history() == []
    assert main.history()[0]["store"] == "main"
    assert main.lanes() == [("lane1", "hash1", "s1", None)] and other.lanes() == []
    assert [(r["phrase"], r["count"]) for r in main.unheard()] == [("lava burrito", 3)] and other.unheard() == []
    # the new key: the same food may now be out in another store too
    other.set_stock("Guacamole", True)
    assert other.stock_out() == ["Guacamole"] and main.stock_out() == ["Guacamole"]
    main.note_unheard(["lava burrito"])
    assert main.unheard()[0]["count"] == 4


def test_a_sqlite_database_made_before_stores_keeps_every_row_under_main(tmp_path):
    root = tmp_path / "state"
    root.mkdir()
    with sqlite3.connect(root / "shared.db", isolation_level=None) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("BEGIN IMMEDIATE")
        migrate_to(conn, "sqlite", BEFORE)
        fill_before_stores(conn)
        conn.execute(f"PRAGMA user_version = {BEFORE}")
        conn.execute("COMMIT")
    conn.close()
    check_kept_under_main(root)
    with sqlite3.connect(root / "shared.db") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == database.LATEST
        keys = [row[1] for row in conn.execute("PRAGMA table_info(stock_out)").fetchall() if row[5]]
    conn.close()
    assert keys == ["store", "ingredient"]


def test_a_postgresql_database_made_before_stores_keeps_every_row_under_main(tmp_path, postgres_server, monkeypatch):
    import psycopg

    url = postgres_server.new_database()
    with psycopg.connect(url) as conn, conn.transaction():
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        tx = database.PostgresTransaction(conn)
        migrate_to(tx, "postgresql", BEFORE)
        fill_before_stores(tx)
        conn.execute("INSERT INTO schema_version VALUES (%s)", (BEFORE,))
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url)
    check_kept_under_main(tmp_path / "state")


# -- the command line ----------------------------------------------------------------------------------
def run_cli(args: list[str], tmp_path: Path, store: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOMANAGER_HOME": str(tmp_path / "home")}
    env.pop("AUTOMANAGER_DATABASE_URL", None)
    env.pop("AUTOMANAGER_STORE", None)
    if store is not None:
        env["AUTOMANAGER_STORE"] = store
    return subprocess.run([sys.executable, "-m", "automanager", *args], capture_output=True, text=True, env=env,
                          timeout=120, input="")


@pytest.mark.parametrize("args,setting", [
    (["state", "stock", "--store", "north store"], None),
    (["customer", "--backend", "offline", "--store", "a/b"], None),
    (["manager", "--backend", "offline"], "x" * 65),
])
def test_the_cli_refuses_a_bad_store_id_in_one_line(tmp_path, args, setting):
    done = run_cli(args, tmp_path, setting)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "is not a store id" in lines[0], done.stderr


def test_the_cli_serves_the_store_named(tmp_path):
    Home(tmp_path / "home", store="north").set_stock("Guacamole", True)
    assert "Guacamole" in run_cli(["state", "stock", "--store", "north"], tmp_path).stdout
    assert "Guacamole" in run_cli(["state", "stock"], tmp_path, store="north").stdout
    assert "Nothing is out of stock" in run_cli(["state", "stock"], tmp_path).stdout


def test_a_store_price_line_is_read_by_its_cue_even_with_an_llm(tmp_path):
    """The LLM's vocabulary has no store prices: such a line never reaches it (it would read a
    change to the chain menu)."""
    from types import SimpleNamespace

    (a,) = stores(tmp_path, "north")
    manager = ManagerChat(a)
    manager.llm = SimpleNamespace(config=SimpleNamespace(rephrase=False))  # any use of it fails
    turn = manager.turn("here the bean burrito costs $1.79")
    assert turn.parsed == ["store_price('Bean Burrito', 179)"] and turn.llm["answered_by"] == "offline"
    assert manager.turn("use the chain price for the bean burrito again").parsed == ["chain_price('Bean Burrito')"]
    assert a.store_prices() == {} and a.latest_version() == 0


def test_the_chain_bench_counts_turns_and_finds_no_cross_store_leak(postgres_server, monkeypatch):
    """The bench's chain case in a tiny configuration: its report's shape, every turn kept, the
    runout refused where it was said and nowhere else (no timing asserted)."""
    from automanager.bench import chain_run

    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", postgres_server.new_database())
    figures = chain_run(stores=2, lanes=2, turns=6)
    assert figures["turns"] == 2 * 2 * 6 and figures["lost"] == figures["doubled"] == 0
    assert figures["refusals_where_out"] > 0 and figures["cross_store_leaks"] == 0
    assert {"turns_per_second", "p50", "p95", "p99"} <= figures.keys()


def test_a_store_price_that_moves_the_price_a_lot_is_read_back_first(tmp_path):
    """A slip of a digit ("$13.99" for "$1.39") must not reach the store's customers at once."""
    home = Home(tmp_path)
    manager = ManagerChat(home)
    asked = manager.turn("here the bean burrito costs $13.99").reply
    assert "this store's price of Bean Burrito" in asked and "$13.99" in asked, asked
    assert CustomerChat(home).turn("a bean burrito").board["total"] == 139
    assert "stays $1.39" in manager.turn("no").reply
    manager.turn("the bean burrito sells for $12.99 here")
    manager.turn("yes")
    assert CustomerChat(home).turn("a bean burrito").board["total"] == 1299
