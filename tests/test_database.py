"""The shared database on both engines (issue 29): every Home method that reads or writes it, a
price change a customer pays, two machines of a chain on one PostgreSQL database, migrations from
every earlier schema, processes starting at once, and bad settings said in one line."""

from __future__ import annotations

import multiprocessing
import os
import socket
import sqlite3
import subprocess
import sys
import uuid

import pytest

from automanager.database import LATEST, MIGRATIONS
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home, StateError, VersionMoved

RECORD = ("update", "Soft Taco", "price", "139", "199")


def base_text(home: Home, files) -> str:
    return "".join(path.read_text(encoding="utf-8") for path in files) + "% a test version\n"


def total_of(customer: CustomerChat) -> str:
    """Order a soft taco and finish: the replies, the summary with its price among them."""
    return " ".join(customer.step(line).reply for line in ("a soft taco", "that's all", "no"))


# -- every Home method on both engines ---------------------------------------------------------------
def test_the_stock_list(engine, tmp_path):
    home = Home(tmp_path)
    assert home.stock_out() == [] and home.stock_list() == []
    home.set_stock("Tomatoes", True, "s1")
    home.set_stock("Tomatoes", True, "s1")  # already out: no second row, no second audit line
    home.set_stock("Onions", True, "s1")
    assert home.stock_out() == ["Onions", "Tomatoes"]
    assert [name for name, since in home.stock_list()] == ["Onions", "Tomatoes"]
    assert all(since for _, since in home.stock_list())
    home.set_stock("Tomatoes", False, "s2")
    home.set_stock("Lettuce", False, "s2")  # was not out: nothing to log
    assert Home(tmp_path).stock_out() == ["Onions"]  # another Home reads the same rows
    assert [(r["action"], r["item"], r["session"]) for r in home.history()] == [
        ("restore", "Tomatoes", "s2"), ("runout", "Onions", "s1"), ("runout", "Tomatoes", "s1")]


def test_menu_versions_publish_and_a_moved_version_is_refused(engine, tmp_path):
    home, other = Home(tmp_path), Home(tmp_path)
    assert home.latest_version() == 0 and home.menu_files(0) == home.base_files
    assert home.published("s1", "b1") is None
    version = home.commit_menu("s1", "b1", 0, [RECORD], lambda files: base_text(home, files))
    assert version == 1 and other.latest_version() == 1
    assert other.published("s1", "b1") == 1 and other.published("s1", "b2") is None
    assert other.menu_files(1)[0].read_text(encoding="utf-8").endswith("% a test version\n")
    with pytest.raises(VersionMoved):  # decided on version 0: another manager published first
        other.commit_menu("s2", "b2", 0, [("delete", "Bean Burrito", "item", None, None)],
                          lambda files: base_text(other, files))
    assert home.latest_version() == 1 and home.published("s2", "b2") is None
    assert not (tmp_path / "menu" / "v2.lp").exists()
    assert [(r["version"], r["item"], r["old"], r["new"]) for r in home.history()] == [(1, "Soft Taco", "139", "199")]
    two = other.commit_menu("s2", "b2", 1, [("delete", "Bean Burrito", "item", None, None)],
                            lambda files: base_text(other, files))
    assert two == 2 and [r["version"] for r in home.history()] == [2, 1] and len(home.history(limit=1)) == 1


def test_lanes(engine, tmp_path):
    home = Home(tmp_path)
    assert home.lanes() == []
    home.open_lane("L1", "hash1", "s1")
    home.open_lane("L2", "hash2", "s2")
    home.lane_session("L1", "s3", "s1")
    assert Home(tmp_path).lanes() == [("L1", "hash1", "s3", "s1"), ("L2", "hash2", "s2", None)]
    home.close_lane("L1")
    assert home.lanes() == [("L2", "hash2", "s2", None)]


def test_phrases_no_bot_understood(engine, tmp_path):
    home = Home(tmp_path)
    home.note_unheard(["a quesarito", "a quesarito", "a baja blast"])
    home.note_unheard(["a quesarito"])
    assert [(r["phrase"], r["count"], r["status"]) for r in home.unheard()] == [
        ("a quesarito", 3, "open"), ("a baja blast", 1, "open")]
    assert home.mark_unheard("a quesarito", "taught") and not home.mark_unheard("never said", "taught")
    assert [r["phrase"] for r in home.unheard()] == ["a baja blast"]
    assert [r["phrase"] for r in home.unheard("taught")] == ["a quesarito"]
    assert home.heard("a quesarito")["count"] == 3 and home.heard("never said") is None


def test_reset_empties_every_table(engine, tmp_path):
    home = Home(tmp_path)
    home.set_stock("Tomatoes", True)
    home.commit_menu("s1", "b1", 0, [RECORD], lambda files: base_text(home, files))
    home.open_lane("L1", "hash", "s1")
    home.note_unheard(["a quesarito"])
    Home(tmp_path).reset()
    fresh = Home(tmp_path)
    assert (fresh.stock_out(), fresh.latest_version(), fresh.history(), fresh.lanes(), fresh.unheard()) == \
        ([], 0, [], [], [])
    assert home.stock_out() == [] and not list((tmp_path / "menu").glob("v*.lp"))


def test_a_price_change_saved_is_what_the_next_customer_pays(engine, tmp_path):
    home = Home(tmp_path)
    manager = ManagerChat(home)
    manager.step("the soft taco now costs $1.99")
    manager.step("save")
    assert home.latest_version() == 1
    reply = total_of(CustomerChat(Home(tmp_path)))
    assert "$1.99" in reply and "$1.39" not in reply, reply


# -- two machines of a chain on one PostgreSQL database ------------------------------------------
def test_a_version_published_on_one_machine_is_read_on_another(postgres_server, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", postgres_server.new_database())
    north, south = Home(tmp_path / "north"), Home(tmp_path / "south")
    manager = ManagerChat(north)
    manager.step("the soft taco now costs $1.99")
    manager.step("save")
    north.set_stock("Onions", True)
    assert south.latest_version() == 1 and south.stock_out() == ["Onions"]
    assert not (tmp_path / "south" / "menu" / "v1.lp").exists()
    made = south.menu_files(1)[0]  # made on this machine from the text the database keeps
    assert made == tmp_path / "south" / "menu" / "v1.lp"
    assert made.read_text(encoding="utf-8") == (tmp_path / "north" / "menu" / "v1.lp").read_text(encoding="utf-8")
    reply = total_of(CustomerChat(south))
    assert "$1.99" in reply, reply
    with pytest.raises(VersionMoved):  # the other machine's version counts for a commit here too
        south.commit_menu("s", "b", 0, [RECORD], lambda files: base_text(south, files))


# -- migrations --------------------------------------------------------------------------------------
def statements(engine: str, upto: int) -> list[str]:
    return [sql for number, make in MIGRATIONS if number <= upto for sql in make(engine)]


def test_a_sqlite_database_of_today_s_main_schema_is_upgraded_with_its_rows(tmp_path):
    home = Home(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "menu").mkdir()
    (tmp_path / "menu" / "v1.lp").write_text(base_text(home, home.base_files), encoding="utf-8")
    with sqlite3.connect(tmp_path / "shared.db") as conn:
        for sql in statements("sqlite", 2):
            conn.execute(sql)
        conn.execute("PRAGMA user_version = 2")
        conn.execute("INSERT INTO stock_out VALUES ('Tomatoes', '2026-01-01T00:00:00+00:00')")
        conn.execute("INSERT INTO menu_version VALUES (1, ?, '2026-01-01', 's1', 'b1')", (home.base_digest,))
        conn.execute("INSERT INTO audit (at, session, version, action, item, property, old, new) "
                     "VALUES ('2026-01-01', 's1', 1, 'update', 'Soft Taco', 'price', '139', '199')")
        conn.execute("INSERT INTO lane VALUES ('L1', 'hash', 's1', '2026-01-01', NULL)")
        conn.execute("INSERT INTO unheard VALUES ('a quesarito', 2, '2026-01-01', 'open')")
    conn.close()
    assert home.stock_out() == ["Tomatoes"] and home.latest_version() == 1 and home.published("s1", "b1") == 1
    assert home.lanes() == [("L1", "hash", "s1", None)] and home.unheard()[0]["count"] == 2
    assert home.history()[0]["new"] == "199" and len(home.menu_files(1)) == 1
    with sqlite3.connect(tmp_path / "shared.db") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST
        assert "menu_text" in {row[1] for row in conn.execute("PRAGMA table_info(menu_version)")}
    conn.close()
    two = home.commit_menu("s2", "b2", 1, [RECORD], lambda files: base_text(home, files))
    assert two == 2 and home.published("s2", "b2") == 2


def test_a_sqlite_database_of_release_1_is_upgraded_with_its_rows(tmp_path):
    home = Home(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    with sqlite3.connect(tmp_path / "shared.db") as conn:
        for sql in statements("sqlite", 1):
            conn.execute(sql)
        conn.execute("PRAGMA user_version = 1")
        conn.execute("INSERT INTO stock_out VALUES ('Onions', '2026-01-01T00:00:00+00:00')")
        conn.execute("INSERT INTO audit (at, session, version, action, item, property, old, new) "
                     "VALUES ('2026-01-01', 's1', NULL, 'runout', 'Onions', 'stock', 'in', 'out')")
    conn.close()
    assert home.stock_out() == ["Onions"] and home.history()[0]["item"] == "Onions"
    home.open_lane("L1", "hash", "s1")
    home.note_unheard(["a quesarito"])
    assert home.lanes() == [("L1", "hash", "s1", None)] and home.unheard()[0]["phrase"] == "a quesarito"
    with sqlite3.connect(tmp_path / "shared.db") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST
    conn.close()


def test_a_postgresql_database_at_schema_version_2_is_upgraded_at_first_use(postgres_server, tmp_path, monkeypatch):
    import psycopg

    url = postgres_server.new_database()
    home = Home(tmp_path)
    (tmp_path / "menu").mkdir(parents=True)  # version 1 was made here before versions kept their text
    (tmp_path / "menu" / "v1.lp").write_text(base_text(home, home.base_files), encoding="utf-8")
    with psycopg.connect(url, autocommit=True) as conn:
        for sql in statements("postgresql", 2):
            conn.execute(sql)
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_version VALUES (1), (2)")
        conn.execute("INSERT INTO stock_out VALUES ('Tomatoes', '2026-01-01T00:00:00+00:00')")
        conn.execute("INSERT INTO menu_version VALUES (1, %s, '2026-01-01', 's1', 'b1')", (home.base_digest,))
        conn.execute("INSERT INTO audit (at, session, version, action, item, property, old, new) "
                     "VALUES ('2026-01-01', 's1', 1, 'update', 'Soft Taco', 'price', '139', '199')")
        conn.execute("INSERT INTO lane VALUES ('L1', 'hash', 's1', '2026-01-01', NULL)")
        conn.execute("INSERT INTO unheard VALUES ('a quesarito', 2, '2026-01-01', 'open')")
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", url)
    assert home.stock_out() == ["Tomatoes"] and home.latest_version() == 1 and home.published("s1", "b1") == 1
    assert home.lanes() == [("L1", "hash", "s1", None)] and home.unheard()[0]["count"] == 2
    assert home.history()[0]["new"] == "199"
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] == LATEST
        assert conn.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = 'menu_version' "
                            "AND column_name = 'menu_text'").fetchone()[0] == 1
    two = home.commit_menu("s2", "b2", 1, [RECORD], lambda files: base_text(home, files))
    assert two == 2 and Home(tmp_path / "elsewhere").menu_files(2)[0].is_file()
    home.close()


def first_use(root, barrier, failures) -> None:
    barrier.wait()
    try:
        Home(root).stock_out()
    except StateError as exc:
        failures.put(str(exc))


def start_at_once(postgres_server, tmp_path, monkeypatch, processes: int, attempts: int) -> list[str]:
    """`processes` processes (forked, each a state dir of its own) using a fresh PostgreSQL database
    at the same moment, `attempts` times; what failed."""
    context = multiprocessing.get_context("fork")
    failures = context.Queue()
    for attempt in range(attempts):
        monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", postgres_server.new_database())
        barrier = context.Barrier(processes)
        workers = [context.Process(target=first_use, args=(tmp_path / f"{attempt}-{i}", barrier, failures))
                   for i in range(processes)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [worker.exitcode for worker in workers] == [0] * processes
    return [failures.get() for _ in range(failures.qsize())] if not failures.empty() else []


def test_two_processes_starting_at_once_on_a_fresh_postgresql_database(postgres_server, tmp_path, monkeypatch):
    assert start_at_once(postgres_server, tmp_path, monkeypatch, 2, 5) == []
    import psycopg

    with psycopg.connect(os.environ["AUTOMANAGER_DATABASE_URL"]) as conn:  # migrated once, by one of them
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(LATEST,)]


@pytest.mark.slow
def test_six_processes_cold_starting_at_once_on_a_fresh_postgresql_database(postgres_server, tmp_path, monkeypatch):
    assert start_at_once(postgres_server, tmp_path, monkeypatch, 6, 8) == []


# -- bad settings: one line that names what to fix, exit 2 ---------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_cli(command: str, url: str, tmp_path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["AUTOMANAGER_DATABASE_URL"] = url
    args = {"stock": ["state", "stock"], "customer": ["customer", "--backend", "offline"],
            "manager": ["manager", "--backend", "offline"],
            "serve": ["serve", "--backend", "offline", "--port", str(free_port())]}[command]
    return subprocess.run([sys.executable, "-m", "automanager", *args, "--state-dir", str(tmp_path / "state")],
                          input="a soft taco\n", capture_output=True, text=True, timeout=90, env=env)


def said_in_one_line(done: subprocess.CompletedProcess[str], *words: str) -> str:
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output and "secret" not in output, output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), output
    for word in words:
        assert word in lines[0], output
    return lines[0]


@pytest.mark.parametrize("command", ["stock", "customer"])
@pytest.mark.parametrize("url", ["mysql://x", "postgresql://", "garbage", "mysql://someone:secret@host/db"])
def test_a_wrong_url_is_said_in_one_line(command, url, tmp_path):
    line = said_in_one_line(run_cli(command, url, tmp_path), "AUTOMANAGER_DATABASE_URL", "postgresql://")
    assert "secret" not in line and ("***" in line or "secret" not in url)


@pytest.mark.parametrize("command", ["manager", "serve"])
def test_a_wrong_url_is_said_in_one_line_by_the_manager_and_the_service(command, tmp_path):
    line = said_in_one_line(run_cli(command, "postgres://someone:secret@host", tmp_path), "AUTOMANAGER_DATABASE_URL")
    assert "someone:***@host" in line


@pytest.mark.parametrize("command", ["stock", "customer", "manager", "serve"])
def test_a_server_that_is_down_is_said_in_one_line(command, tmp_path):
    url = f"postgresql://someone:secret@127.0.0.1:{free_port()}/chain"  # a closed loopback port
    line = said_in_one_line(run_cli(command, url, tmp_path), "***", "refused", "server is running")
    assert "someone:***@127.0.0.1" in line


@pytest.fixture
def database_without_rights(postgres_server):
    """A database owned by postgres that PUBLIC may neither connect to nor create in, and a role
    that may log in and nothing more; (url of that role on it, its name)."""
    import psycopg

    name, role = "d_" + uuid.uuid4().hex[:10], "r_" + uuid.uuid4().hex[:10]
    with psycopg.connect(postgres_server.url(), autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'CREATE DATABASE "{name}"')
        conn.execute(f'REVOKE CONNECT, CREATE ON DATABASE "{name}" FROM PUBLIC')
    with psycopg.connect(postgres_server.url(name), autocommit=True) as conn:
        conn.execute("REVOKE ALL ON SCHEMA public FROM PUBLIC")
    url = postgres_server.url(name).replace(f"//{postgres_server.user}@", f"//{role}:secret@")
    return url, name, role


@pytest.mark.parametrize("command", ["stock", "customer"])
def test_a_database_the_user_may_not_connect_to_is_said_in_one_line(command, database_without_rights, tmp_path):
    url, name, role = database_without_rights
    said_in_one_line(run_cli(command, url, tmp_path), "permission denied", name, "***")


def test_a_database_the_user_may_connect_to_but_not_create_in_is_said_in_one_line(database_without_rights,
                                                                                 postgres_server, tmp_path):
    import psycopg

    url, name, role = database_without_rights
    with psycopg.connect(postgres_server.url(), autocommit=True) as conn:
        conn.execute(f'GRANT CONNECT ON DATABASE "{name}" TO "{role}"')
    said_in_one_line(run_cli("stock", url, tmp_path), "refused", "rights", "***")


def test_the_lost_update_question_works_across_machines(postgres_server, tmp_path, monkeypatch):
    """Two managers on two machines (their own state dirs) of one PostgreSQL database: a delete
    staged on one, a price saved on the other first; the first is asked, never overwrites silently."""
    monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", postgres_server.new_database())
    first, second = ManagerChat(Home(tmp_path / "machine-a")), ManagerChat(Home(tmp_path / "machine-b"))
    first.turn("take the bean burrito off the menu")
    first.turn("yes")
    second.turn("the bean burrito now costs $1.79")
    assert "Applied" in second.turn("save").reply
    asked = first.turn("save").reply
    assert "Another manager changed Bean Burrito" in asked and "$1.79" in asked, asked
    assert "stays on the menu" in first.turn("no").reply and not first.staged()
    fresh = CustomerChat(Home(tmp_path / "machine-c"))  # a third machine: the price the second saved
    assert fresh.turn("a bean burrito").board["total"] == 179
