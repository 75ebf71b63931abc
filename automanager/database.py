"""The shared database: the stock list, menu versions, audit log, lanes and phrases no bot
understood. Two engines behind one small interface: SQLite in the state dir (the embedded
default, one store on one machine) and PostgreSQL (a chain's shared server), chosen by
AUTOMANAGER_DATABASE_URL=postgresql://... .

Both take the same SQL (`?` placeholders, `ON CONFLICT` upserts) and run every write in one
transaction. An exclusive write holds the database's write lock from its first read to the commit
(SQLite: BEGIN IMMEDIATE, as every SQLite write; PostgreSQL: a transaction-scoped advisory lock),
so a menu commit reads the latest version and publishes the next one with no other writer in
between; the other writes of a chain's stores (runouts, lanes: upserts keyed by store) run side by
side on PostgreSQL. The schema comes up to
date at the first use through numbered migrations, whatever version made the database.

A write that changes what lanes show (stock, a new menu version) calls `notify` inside its
transaction, and `listener()` hears of it (see docs/chains.md): on PostgreSQL through LISTEN/NOTIFY
on a connection of its own, delivered only when the write commits; SQLite has no notifications
between processes, so its listener hears at once of the writes of this process and wakes every
POLL seconds for the others'.

Trouble passes: after any error a SQLite connection is closed and the next call opens a new one; a
write lock another program holds is waited for with back-off, `patience` seconds in all (WAIT; less in
the service). StoreUnavailable
says the store cannot be used for now (that lock, a full or read-only disk): nothing was changed,
and the same call works once the cause is gone. A PostgreSQL server that is busy (no connection slot
left) or, once reached, gone is waited for in the same way (Postgres.PATIENCE), its pool made anew.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import unquote

Result = TypeVar("Result")  # what a write transaction's work returns
URL_SETTING = "AUTOMANAGER_DATABASE_URL"
WRITE_LOCK = 0x4175746F  # the advisory lock of exclusive PostgreSQL writes and migrations ("Auto")
CHANNEL = "automanager"  # the PostgreSQL channel of change notifications
POLL = 0.5  # seconds: how often a SQLite listener wakes to look for other processes' writes
# the largest id a row can have on either engine (SQLite's INTEGER, PostgreSQL's BIGINT: 64-bit
# signed); an id past it is no row, and is refused where it is said, never handed to a driver
MAX_ROW_ID = 2**63 - 1
Change = dict[str, Any]  # a notification's payload: {"what": "stock" | "menu", ...}
ANYTHING: Change = {"what": "any"}  # a SQLite listener's wake-up: another process may have written
# the pool logs each failed reconnect; a chat says a lost server once, in its own line (a service that
# configures logging still gets them)
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
DB_HINT = ("If the file is damaged, move it (and shared.db-wal, shared.db-shm) away: the stock list, menu "
           "versions and audit log then start afresh; sessions are kept.")


class DatabaseError(Exception):
    """The database cannot be read or written; the message says which and what to do."""


class SettingError(DatabaseError):
    """AUTOMANAGER_DATABASE_URL cannot be used as it is."""


class StoreUnavailable(DatabaseError):
    """The database is there but cannot be used for now (another writer held its lock past the
    wait, the disk is full or read-only, an I/O error): the same call works once the cause is gone."""


class ServerAway(StoreUnavailable):
    """The PostgreSQL server had no connection slot left, or was gone, all the wait: that passes by
    itself, so a chat keeps its session and the line can be said again. `why`: "busy (its words)" or
    "not answering (...)", for a line of its own."""

    def __init__(self, message: str, why: str = ""):
        super().__init__(message)
        self.why = why or message


class StoreServed(DatabaseError):
    """Another process serves the store on this PostgreSQL database already (it holds the store's
    service lock)."""


class Transaction(Protocol):
    def execute(self, sql: str, params: Any = (), /) -> Any: ...


class Database(Protocol):
    engine: str  # "sqlite" or "postgresql"
    where: str  # for messages: the file, or the server and database (never a password)
    described: str  # for start-up lines: the engine, and its file or its host and database (never a password)
    patience: float  # seconds a call waits for a busy or lost store before StoreUnavailable

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def write(self, work: Callable[[Transaction], Result], exclusive: bool = False) -> Result:
        """`work` in one transaction; `exclusive`: no other write in between (a menu commit reads the
        latest version and publishes the next)."""
        ...

    def close(self) -> None: ...

    def notify(self, tx: Transaction, what: str, **detail: Any) -> None:
        """Inside a write transaction: tell listeners `what` changed, once (and only if) it commits."""
        ...

    def listener(self) -> Listener: ...


class Listener(Protocol):
    """Hears of committed changes. `connect` and `wait` raise DatabaseError when the connection is
    lost (PostgreSQL); notifications sent meanwhile are lost, so look at the store after `connect`."""

    def connect(self) -> None: ...

    def wait(self, timeout: float) -> list[Change]:
        """The changes heard within `timeout` seconds (returns at the first), [] if none."""
        ...

    def close(self) -> None: ...


# -- migrations ------------------------------------------------------------------------------------
# Numbered steps, each for both engines where they differ; a database records the last step it has
# (SQLite: PRAGMA user_version; PostgreSQL: the schema_version table) and runs the steps after it.
# 1: stock list, menu versions (with the staged batch each published), audit log.
# 2: the service's lanes and the phrases customers said that no bot understood.
# 3: a menu version keeps its text, so every machine of a chain can make its file.
# 4: stores of a chain: a store column (default 'main': what was there belongs to the store
#    'main') on the stock list, the audit log, lanes and unheard phrases; the stock list is keyed
#    by (store, ingredient) and unheard phrases by (store, phrase); store_price, a store's own
#    price of a menu item over the chain menu's. SQLite cannot change a primary key: those two
#    tables are made again and their rows copied.
# 5: orders as records (placed_order: one per closed customer session, its ticket number, lines and
#    amounts in cents), each store's sales tax (store_tax: thousandths of a percent) and what customers
#    asked for that had run out (lost_sale).
# 6: a lane keeps the session of the car it served last (finished), so a turn resent after a restart
#    is known as answered; a lost sale is noted once for its session's turn (a turn run again after a
#    failure notes the same row).
# 7: the order tickets were bumped in (placed_order.bump_number, the store's next at each bump, unique in the
#    store): a recall brings back the last one bumped, whatever second two bumps share (bumped_at is to the second).
AUDIT_ID = {"sqlite": "INTEGER PRIMARY KEY AUTOINCREMENT", "postgresql": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"}
MIGRATIONS: list[tuple[int, Callable[[str], list[str]]]] = [
    (1, lambda engine: [
        "CREATE TABLE IF NOT EXISTS stock_out (ingredient TEXT PRIMARY KEY, since TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS menu_version (version INTEGER PRIMARY KEY, base TEXT NOT NULL, at TEXT NOT NULL, "
        "session TEXT NOT NULL, batch TEXT)",
        f"CREATE TABLE IF NOT EXISTS audit (id {AUDIT_ID[engine]}, at TEXT NOT NULL, session TEXT NOT NULL, "
        "version INTEGER, action TEXT NOT NULL, item TEXT NOT NULL, property TEXT, old TEXT, new TEXT)",
    ]),
    (2, lambda engine: [
        "CREATE TABLE IF NOT EXISTS lane (lane TEXT PRIMARY KEY, token_hash TEXT NOT NULL, session TEXT NOT NULL, "
        "opened_at TEXT NOT NULL, closed_at TEXT)",
        "CREATE TABLE IF NOT EXISTS unheard (phrase TEXT PRIMARY KEY, count INTEGER NOT NULL, last_at TEXT NOT NULL, "
        "status TEXT NOT NULL DEFAULT 'open')",
    ]),
    (3, lambda engine: ["ALTER TABLE menu_version ADD COLUMN menu_text TEXT"]),
    (4, lambda engine: stores_step(engine)),
    (5, lambda engine: [
        f"CREATE TABLE IF NOT EXISTS placed_order (id {AUDIT_ID[engine]}, store TEXT NOT NULL, session TEXT NOT NULL, "
        "ticket INTEGER NOT NULL, source TEXT NOT NULL, placed_at TEXT NOT NULL, lines TEXT NOT NULL, "
        "subtotal INTEGER NOT NULL, discount INTEGER NOT NULL, tax INTEGER NOT NULL, total INTEGER NOT NULL, "
        "status TEXT NOT NULL DEFAULT 'open', bumped_at TEXT, UNIQUE (store, session), UNIQUE (store, ticket))",
        "CREATE TABLE IF NOT EXISTS store_tax (store TEXT PRIMARY KEY, rate INTEGER NOT NULL, at TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS lost_sale (store TEXT NOT NULL, session TEXT NOT NULL, at TEXT NOT NULL, "
        "item TEXT NOT NULL, quantity INTEGER NOT NULL, cents INTEGER NOT NULL)",
    ]),
    (6, lambda engine: [
        "ALTER TABLE lane ADD COLUMN finished TEXT",
        "ALTER TABLE lost_sale ADD COLUMN turn INTEGER",
        "CREATE UNIQUE INDEX IF NOT EXISTS lost_sale_once ON lost_sale (store, session, turn, item)",
    ]),
    (7, lambda engine: [
        "ALTER TABLE placed_order ADD COLUMN bump_number INTEGER",
        "CREATE UNIQUE INDEX IF NOT EXISTS placed_order_bump ON placed_order (store, bump_number)",
    ]),
]


def stores_step(engine: str) -> list[str]:
    store = "store TEXT NOT NULL DEFAULT 'main'"
    common = [
        f"ALTER TABLE audit ADD COLUMN {store}",
        f"ALTER TABLE lane ADD COLUMN {store}",
        "CREATE TABLE IF NOT EXISTS store_price (store TEXT NOT NULL, item TEXT NOT NULL, cents INTEGER NOT NULL, "
        "at TEXT NOT NULL, PRIMARY KEY (store, item))",
    ]
    if engine == "postgresql":
        return common + [
            f"ALTER TABLE stock_out ADD COLUMN {store}",
            "ALTER TABLE stock_out DROP CONSTRAINT stock_out_pkey",
            "ALTER TABLE stock_out ADD PRIMARY KEY (store, ingredient)",
            f"ALTER TABLE unheard ADD COLUMN {store}",
            "ALTER TABLE unheard DROP CONSTRAINT unheard_pkey",
            "ALTER TABLE unheard ADD PRIMARY KEY (store, phrase)",
        ]
    return common + [
        f"CREATE TABLE stock_out_new ({store}, ingredient TEXT NOT NULL, since TEXT NOT NULL, "
        "PRIMARY KEY (store, ingredient))",
        "INSERT INTO stock_out_new (store, ingredient, since) SELECT 'main', ingredient, since FROM stock_out",
        "DROP TABLE stock_out",
        "ALTER TABLE stock_out_new RENAME TO stock_out",
        f"CREATE TABLE unheard_new ({store}, phrase TEXT NOT NULL, count INTEGER NOT NULL, last_at TEXT NOT NULL, "
        "status TEXT NOT NULL DEFAULT 'open', PRIMARY KEY (store, phrase))",
        "INSERT INTO unheard_new (store, phrase, count, last_at, status) "
        "SELECT 'main', phrase, count, last_at, status FROM unheard",
        "DROP TABLE unheard",
        "ALTER TABLE unheard_new RENAME TO unheard",
    ]
LATEST = MIGRATIONS[-1][0]


def migrate(tx: Transaction, engine: str, have: int) -> None:
    """Run the steps after `have`, inside the caller's write transaction."""
    for number, statements in MIGRATIONS:
        if number > have:
            for statement in statements(engine):
                tx.execute(statement)
            if number == 1 and engine == "sqlite":  # a release before the batch column made the table without it
                columns = {row[1] for row in tx.execute("PRAGMA table_info(menu_version)").fetchall()}
                if "batch" not in columns:
                    tx.execute("ALTER TABLE menu_version ADD COLUMN batch TEXT")


def open_database(root: Path) -> Database:
    """PostgreSQL when AUTOMANAGER_DATABASE_URL says so, else SQLite in the state dir."""
    url = os.environ.get(URL_SETTING, "").strip()
    return Postgres(url) if url else SQLite(root / "shared.db")


# -- SQLite ------------------------------------------------------------------------------------------
class SQLite:
    """shared.db in the state dir, in WAL mode; one kept connection per thread, made again after any error."""

    engine = "sqlite"
    BUSY = 2.0  # seconds one try waits for another writer's lock (SQLite's busy timeout)
    WAIT = 10.0  # seconds in all a call waits for it, trying again with back-off, before StoreUnavailable

    def __init__(self, path: Path):
        self.path = path
        self.where = str(path)
        self.described = f"SQLite {path}"
        self.patience = self.WAIT
        self.schema_ready = False
        self._kept = threading.local()  # this thread's connection, and what it was opened on

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, kept from one call to the next. It is opened again when the
        file is no longer the one it was opened on (replaced, restored or overwritten: another
        inode, size or time), in a forked child and after any error. A new database is made
        complete (WAL mode, schema) under a temporary name and then linked into place, so processes
        starting at once on a new state dir never race to switch its journal mode ("database is locked")."""
        opened_on = file_mark(self.path), os.getpid()
        if getattr(self._kept, "on", None) == opened_on:
            kept: sqlite3.Connection = self._kept.conn
            return kept
        self.close()
        if opened_on[0] is None:
            self.create()
        conn = sqlite3.connect(self.path, timeout=self.BUSY, isolation_level=None)
        try:
            if not self.schema_ready:
                self.upgrade(conn)
                self.schema_ready = True
        except BaseException:
            conn.close()
            raise
        self._kept.conn, self._kept.on = conn, (file_mark(self.path), os.getpid())
        return conn

    def create(self) -> None:
        """Make the database complete under a temporary name, then link it into place (a process
        that loses the race keeps the winner's file)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix="shared.db.", suffix=".new")
        os.close(fd)
        try:
            with closing(sqlite3.connect(tmp, isolation_level=None)) as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                self.upgrade(conn)
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                pass
        finally:
            for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
                Path(leftover).unlink(missing_ok=True)

    @staticmethod
    def upgrade(conn: sqlite3.Connection) -> None:
        have = conn.execute("PRAGMA user_version").fetchone()[0]
        if have >= LATEST:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            have = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have done it
            migrate(conn, "sqlite", have)
            conn.execute(f"PRAGMA user_version = {max(have, LATEST)}")
        except BaseException:
            rollback(conn)
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close this thread's kept connection, if any. A forked child never closes its parent's: it drops it."""
        on = getattr(self._kept, "on", None)
        self._kept.on = None
        if on is not None and on[1] == os.getpid():
            try:
                self._kept.conn.close()
            except sqlite3.Error:  # a connection broken by the error that closes it is dropped all the same
                pass

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a query. On a state dir SQLite cannot write in now (read-only, or a full disk) the
        database is read all the same, through a connection that makes no file there (`read_only`)."""
        def use() -> list[tuple[Any, ...]]:
            kept = getattr(self._kept, "on", None) == (file_mark(self.path), os.getpid())
            if not kept and self.path.exists() and cannot_grow(self.path.parent):
                return self.read_only(sql, params)
            try:
                return self.connection().execute(sql, tuple(params)).fetchall()
            except sqlite3.Error as exc:  # a folder or file it cannot write that the look before missed
                if trouble(exc) != "unavailable" or not self.path.exists():
                    raise
                self.close()
                try:
                    return self.read_only(sql, params)
                except sqlite3.Error:
                    raise exc from None

        return self.retrying(use, "read")

    def read_only(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        """A read through a connection of its own, opened read-only and closed at once, that creates
        no file: beside the -wal and -shm files a live connection keeps, read-only (it sees every
        commit); without them no connection is open (each makes them first), so the file is read
        as immutable, WAL included, without the -shm an ordinary reader would make."""
        live = all(Path(f"{self.path}{suffix}").exists() for suffix in ("-wal", "-shm"))
        uri = f"{self.path.absolute().as_uri()}?mode=ro" + ("" if live else "&immutable=1")
        with closing(sqlite3.connect(uri, uri=True, timeout=self.BUSY, isolation_level=None)) as conn:
            have = conn.execute("PRAGMA user_version").fetchone()[0]
            if have < LATEST:
                raise StoreUnavailable(f"cannot read {self.path}: an earlier release made it, and it is brought up "
                                       "to date at its first use in a writable state dir with free space; make "
                                       "this one writable (or free space) and try again. Nothing was changed")
            return conn.execute(sql, tuple(params)).fetchall()

    def write(self, work: Callable[[Transaction], Result], exclusive: bool = False) -> Result:
        """Run `work` in one write transaction (BEGIN IMMEDIATE: every SQLite write is exclusive):
        all of it lands, or none."""
        def transaction() -> Result:
            self._kept.pending = []
            conn = self.connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
                conn.execute("COMMIT")
            except BaseException:
                rollback(conn)
                raise
            board(self.path).post(self._kept.pending)
            return result

        try:
            return self.retrying(transaction, "write")
        finally:
            self._kept.pending = []

    def retrying(self, use: Callable[[], Result], what: str) -> Result:
        """`use` the database; after any error the connection is closed (the next call opens a new
        one). A lock another writer holds is waited for, with back-off, `patience` seconds in all."""
        deadline, pause = time.monotonic() + self.patience, 0.05
        while True:
            try:
                return use()
            except sqlite3.Error as exc:
                self.close()
                kind = trouble(exc)
                if kind == "locked" and time.monotonic() + pause < deadline:
                    time.sleep(pause)
                    pause = min(pause * 2, 1.0)
                    continue
                if kind == "locked":
                    raise StoreUnavailable(f"cannot {what} {self.path}: another program has held its lock for "
                                           f"{self.patience:g} s. Try again in a moment; if it lasts, stop the other "
                                           "program using this state dir") from exc
                if kind == "unavailable":
                    raise StoreUnavailable(f"cannot {what} {self.path}: {exc}. Check that the state dir is writable "
                                           "and has free space, then try again; nothing was changed") from exc
                raise DatabaseError(f"cannot {what} {self.path}: {exc}. {DB_HINT}") from exc
            except OSError as exc:
                self.close()
                raise StoreUnavailable(f"cannot use the state dir {self.path.parent}: {exc.strerror}. Check that "
                                       "it is a writable folder with free space (--state-dir or $AUTOMANAGER_HOME)") from exc

    def notify(self, tx: Transaction, what: str, **detail: Any) -> None:
        """Kept until the transaction commits, then heard by this process's listeners at once.
        SQLite has no notifications between processes: their listeners find it at their next poll."""
        self._kept.pending.append({"what": what, **detail})

    def listener(self) -> Listener:
        return SQLiteListener(board(self.path))


class Board:
    """The changes this process committed to one SQLite file, for its listeners."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.count = 0
        self.recent: deque[tuple[int, Change]] = deque(maxlen=64)

    def post(self, changes: list[Change]) -> None:
        if changes:
            with self.changed:
                for change in changes:
                    self.count += 1
                    self.recent.append((self.count, change))
                self.changed.notify_all()


BOARDS: dict[str, Board] = {}
BOARDS_LOCK = threading.Lock()


def board(path: Path) -> Board:
    with BOARDS_LOCK:
        return BOARDS.setdefault(os.path.abspath(path), Board())


class SQLiteListener:
    """Wakes at once for this process's writes, and every POLL seconds (at most `timeout`) with
    ANYTHING for other processes' (SQLite cannot tell them apart: look at the store)."""

    def __init__(self, on: Board):
        self.board = on
        self.seen = on.count

    def connect(self) -> None:
        self.seen = self.board.count

    def wait(self, timeout: float) -> list[Change]:
        with self.board.changed:
            if self.board.count == self.seen:
                self.board.changed.wait(min(timeout, POLL))
            heard = [change for number, change in self.board.recent if number > self.seen]
            self.seen = self.board.count
        return heard or [ANYTHING]

    def close(self) -> None:
        pass


def rollback(conn: sqlite3.Connection) -> None:
    """Undo an open transaction; one SQLite already undid (a full disk, an I/O error) is left as it is."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:  # the connection is closed next: SQLite undoes what is left
            pass


def trouble(exc: sqlite3.Error) -> str:
    """What a SQLite error means for the next try: "locked" (another writer: wait), "unavailable"
    (disk full, read-only, I/O: works once that is fixed) or "damaged" (the file itself)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc).lower()
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or " is locked" in text:
        return "locked"
    if name.startswith(("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")) \
            or any(words in text for words in ("disk is full", "i/o error", "readonly", "unable to open")):
        return "unavailable"
    return "damaged"


ROOM = 1 << 20  # bytes: less free space than this, and SQLite may not make its -shm (32 KiB) or grow the -wal


def cannot_grow(folder: Path) -> bool:
    """Can SQLite not make or grow its files in the folder now: a read-only file system or folder,
    or a disk without ROOM left? (A look, not a promise: a read that fails all the same on an
    unwritable file is read read-only.)"""
    try:
        space = os.statvfs(folder)
    except OSError:
        return False
    return bool(space.f_flag & os.ST_RDONLY) or not os.access(folder, os.W_OK) \
        or space.f_bavail * space.f_frsize < ROOM


def file_mark(path: Path) -> tuple[int, int, int] | None:
    """What tells one file from another at the same path, or the same file rewritten."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


# -- PostgreSQL --------------------------------------------------------------------------------------
class Postgres:
    """A PostgreSQL server (psycopg 3, a connection pool); the schema is brought up to date at the
    first use, under the write lock, whatever machine gets there first.

    A call that finds the server busy (max_connections reached, starting up) or, once it was
    reached, gone waits with back-off for up to `patience` seconds, saying so once on stderr, then
    raises ServerAway. A lost server takes the pool with it: the next try builds a new one,
    so the first call after the server is back gets a fresh connection within a pause. A write is
    tried again only when it did not reach its commit (a commit cut off may have landed)."""

    engine = "postgresql"
    POOL = 8  # connections a process keeps at most: turns are short, the GIL runs one at a time
    PATIENCE = 30.0  # seconds a call waits for a busy or lost server
    PAUSES = (0.2, 2.0)  # seconds: the first pause between tries, doubled up to the second
    BUSY = {"53300", "57P03"}  # too many connections; the server is starting up or shutting down
    # the same said when connecting, where libpq gives no SQLSTATE: the server's words (lc_messages English)
    BUSY_WORDS = ("too many clients", "too many connections", "connection slots are reserved",
                  "the database system is starting up", "the database system is shutting down")

    def __init__(self, url: str):
        check_url(url)
        self.url = url
        self.where = redacted(url)
        self.described = described(url)
        self.patience = self.PATIENCE  # a test may make it shorter
        self.reached = False  # the server answered once: a refusal since is a server down, not a wrong setting
        self.tell_waits = True  # a call that starts waiting says so on stderr (`serve` says its own wait at start)
        self._pool: Any = None
        self._lock = threading.Lock()

    def pool(self) -> Any:
        with self._lock:
            if self._pool is None:
                import psycopg
                from psycopg_pool import ConnectionPool

                # one plain connection first: a server that is down or a database refused is said in its
                # own words at once, not as the pool's timeout after 10 s with its retries logged
                psycopg.connect(self.url, connect_timeout=5, application_name="automanager").close()
                self.reached = True

                # check: a connection kept from before the server restarted is replaced, never handed to a turn
                pool = ConnectionPool(self.url, min_size=1, max_size=self.POOL, open=False, timeout=10,
                                      check=ConnectionPool.check_connection, kwargs={"connect_timeout": 5, "application_name": "automanager"})
                try:
                    pool.open(wait=True, timeout=10)
                    with pool.connection() as conn, conn.transaction():
                        self.upgrade(conn)
                except BaseException:
                    pool.close()
                    raise
                self._pool = pool
            return self._pool

    def drop(self, pool: Any) -> None:
        """Close a pool that lost its server (unless another thread did): the next call builds a new one."""
        with self._lock:
            if pool is None or self._pool is not pool:
                return
            self._pool = None
        pool.close(timeout=0)

    @staticmethod
    def upgrade(conn: Any) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        have = row[0] or 0
        if have < LATEST:
            migrate(PostgresTransaction(conn), "postgresql", have)
            conn.execute("INSERT INTO schema_version VALUES (%s)", (LATEST,))

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._run(lambda conn, _committing: conn.execute(placeholders(sql), tuple(params)).fetchall(), "read")

    def write(self, work: Callable[[Transaction], Result], exclusive: bool = False) -> Result:
        """Run `work` in one transaction. An exclusive one holds the chain's write lock (an advisory
        lock) to its commit; the others (a runout, a lane, a phrase: upserts keyed by store) run
        side by side, so the stores of a chain do not queue behind each other."""
        def transaction(conn: Any, committing: list[bool]) -> Result:
            with conn.transaction():
                if exclusive:
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                result = work(PostgresTransaction(conn))
                committing.append(True)  # what fails from here on is the commit
            return result

        return self._run(transaction, "write")

    def notify(self, tx: Transaction, what: str, **detail: Any) -> None:
        """NOTIFY inside the transaction: PostgreSQL delivers it to every listening connection when
        (and only if) the transaction commits, in commit order."""
        tx.execute("SELECT pg_notify(?, ?)", (CHANNEL, json.dumps({"what": what, **detail})))

    def listener(self) -> Listener:
        return PostgresListener(self.url, self.where)

    def _run(self, use: Callable[[Any, list[bool]], Result], what: str) -> Result:
        import psycopg
        from psycopg_pool import PoolTimeout

        deadline, pause, told = time.monotonic() + self.patience, self.PAUSES[0], False
        while True:
            pool: Any = None
            committing: list[bool] = []  # use() appends when its work is done and the commit is next
            try:
                pool = self.pool()
                with pool.connection(timeout=self.PAUSES[1]) as conn:
                    return use(conn, committing)
            except psycopg.OperationalError as exc:
                # no pooled connection in time: the pool is busy if the server still answers, else it is gone
                busy = self.busy(exc) or (isinstance(exc, PoolTimeout) and self.answers())
                if not busy:
                    self.drop(pool)  # its connections went with the server
                if not (busy or self.reached) or committing:  # never reached: a wrong setting; a commit cut off
                    raise self.unreachable(exc, what) from exc
                why = f"{'busy' if busy else 'not answering'} ({first_line(exc)})"
                if time.monotonic() + pause > deadline:
                    raise ServerAway(f"the database at {self.where} is {why}; waited {self.patience:.0f} s. Nothing "
                                     "was changed: try again in a moment", why) from exc
                if not told and self.tell_waits:
                    told = True
                    print(f"the database is {'busy' if busy else 'not answering'}, waiting (up to "
                          f"{self.patience:.0f} s)...", file=sys.stderr, flush=True)
                time.sleep(pause)
                pause = min(pause * 2, self.PAUSES[1])
            except psycopg.Error as exc:
                raise DatabaseError(f"the database at {self.where} refused to {what}: {first_line(exc)}. Check the "
                                    "user's rights on that database") from exc

    def busy(self, exc: Exception) -> bool:
        """Is the server there but without room for now?"""
        return getattr(exc, "sqlstate", None) in self.BUSY or any(words in str(exc) for words in self.BUSY_WORDS)

    def answers(self) -> bool:
        """Is the server there (taking a new connection, or busy)?"""
        import psycopg

        try:
            psycopg.connect(self.url, connect_timeout=2, application_name="automanager").close()
        except psycopg.Error as exc:
            return self.busy(exc)
        return True

    def unreachable(self, exc: BaseException, what: str) -> DatabaseError:
        return DatabaseError(f"cannot {what} the database at {self.where}: {first_line(exc)}. Check that the "
                             f"server is running and {URL_SETTING} is right; try again when it is back")

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None


class PostgresListener:
    """LISTEN on a connection of its own (not the pool's; autocommit), with TCP keepalives so a
    server that vanishes is noticed."""

    CONNECT_TIMEOUT = 3  # seconds; short, so a stopping service is not held up by a server down

    def __init__(self, url: str, where: str):
        self.url, self.where = url, where
        self.conn: Any = None

    def connect(self) -> None:
        import psycopg

        self.close()
        try:
            self.conn = psycopg.connect(self.url, autocommit=True, connect_timeout=self.CONNECT_TIMEOUT,
                                        application_name="automanager-listen", keepalives=1, keepalives_idle=10,
                                        keepalives_interval=5, keepalives_count=3)
            self.conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as exc:
            self.close()
            raise DatabaseError(f"cannot listen to the database at {self.where}: {first_line(exc)}") from exc

    def wait(self, timeout: float) -> list[Change]:
        import psycopg

        if self.conn is None:
            raise DatabaseError(f"not listening to the database at {self.where}")
        try:
            heard = [notice.payload for notice in self.conn.notifies(timeout=timeout, stop_after=1)]
        except psycopg.Error as exc:
            self.close()
            raise DatabaseError(f"lost the connection to the database at {self.where}: {first_line(exc)}") from exc
        return [parse_change(payload) for payload in heard]

    def close(self) -> None:
        if self.conn is not None:
            conn, self.conn = self.conn, None
            try:
                conn.close()
            except Exception:  # a broken connection may fail to close: it is dropped all the same
                pass


def service_key(store: str) -> int:
    """The advisory lock key of a store's service: 64 bits of a hash of its id (a bigint key: the
    chain's write lock, WRITE_LOCK, is another; two stores sharing a key is a chance of 1 in 2^64)."""
    digest = hashlib.blake2b(f"automanager serve {store}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class ServiceLock:
    """One service per store on a PostgreSQL database: a session-level advisory lock keyed by the
    store, held on a connection of its own (autocommit, never the pool's) for the service's life.
    The session ends with the connection, so the lock goes with the process however it ends (kill
    -9 too: the server sees the connection close). A server restarted takes every session with it:
    a watch looks at the connection every WATCH seconds and takes the lock again once the server
    answers; if another service took the store meanwhile, `lost` is told why (the caller stops)."""

    WATCH = 5.0  # seconds between looks at the lock's connection
    RETRY = 1.0  # seconds between tries to take the lock again after its connection was lost

    def __init__(self, database: Postgres, store: str):
        self.database, self.store, self.key = database, store, service_key(store)
        self.name = f"automanager serve pid {os.getpid()} on {socket.gethostname()}"[:63]  # what a refusal names
        self.conn: Any = None
        self.lost: str | None = None  # why the store went to another service while this one's lock was away
        self.guard = threading.Lock()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def take(self) -> None:
        """Take the lock: StoreServed when another process has it; ServerAway when the server is
        busy or gone (try again); DatabaseError when it was never reached (a wrong setting)."""
        import psycopg

        try:
            conn = psycopg.connect(self.database.url, autocommit=True, connect_timeout=5, application_name=self.name,
                                   keepalives=1, keepalives_idle=10, keepalives_interval=5, keepalives_count=3)
        except psycopg.OperationalError as exc:
            busy = self.database.busy(exc)
            if not (busy or self.database.reached):
                raise self.database.unreachable(exc, "reach") from exc
            why = f"{'busy' if busy else 'not answering'} ({first_line(exc)})"
            raise ServerAway(f"the database at {self.database.where} is {why}", why) from exc
        try:
            self.database.reached = True
            taken = conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()
            if not (taken and taken[0]):
                raise StoreServed(f"store {self.store} is served already on the {self.database.described}"
                                  f"{self.holder(conn)}: stop that service first, or serve another store here "
                                  "(--store); one `automanager serve` per store and database")
            for setting, seconds in (("tcp_keepalives_idle", 10), ("tcp_keepalives_interval", 5),
                                     ("tcp_keepalives_count", 3)):  # the server frees the lock of a machine gone
                conn.execute(f"SET {setting} = {seconds}")
        except psycopg.Error as exc:
            conn.close()
            raise DatabaseError(f"cannot take the service lock of store {self.store} on {self.database.where}: "
                                f"{first_line(exc)}") from exc
        except BaseException:
            conn.close()
            raise
        with self.guard:
            self.conn = conn

    def holder(self, conn: Any) -> str:
        """Who holds the lock, as the server shows it (the same user's sessions, or a user allowed
        to read them), for the refusal: ' (by ..., from ..., since ...)'; '' when it cannot tell."""
        unsigned = self.key & 0xFFFF_FFFF_FFFF_FFFF
        try:
            rows = conn.execute(
                "SELECT a.application_name, host(a.client_addr), to_char(a.backend_start, 'YYYY-MM-DD HH24:MI') "
                "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                "AND l.classid = %s::bigint::oid AND l.objid = %s::bigint::oid AND l.objsubid = 1",
                (unsigned >> 32, unsigned & 0xFFFF_FFFF)).fetchall()
        except Exception:  # who it is only helps the message: the refusal stands without it
            return ""
        if not rows or not any(rows[0]):
            return ""
        name, host, since = rows[0]
        said = [f"by '{name}'" if name else "", f"from {host}" if host else "", f"since {since}" if since else ""]
        return " (" + ", ".join(part for part in said if part) + ")"

    def watch(self, lost: Callable[[str], None]) -> None:
        """Keep the lock while the service runs (see the class); `lost(why)` when another service took it."""
        def keep() -> None:
            import psycopg

            while not self.stopping.wait(self.WATCH):
                try:
                    with self.guard:
                        if self.conn is None:
                            return
                        self.conn.execute("SELECT 1")
                    continue
                except psycopg.Error:
                    self.drop()
                print(f"the database connection holding store {self.store}'s service lock was lost: taking the lock "
                      "again once the database answers...", file=sys.stderr, flush=True)
                while not self.stopping.wait(self.RETRY):
                    try:
                        self.take()
                        print(f"store {self.store}'s service lock is held again", file=sys.stderr, flush=True)
                        break
                    except StoreServed as exc:
                        self.lost = str(exc)
                        lost(self.lost)
                        return
                    except DatabaseError:
                        continue

        self.thread = threading.Thread(target=keep, name=f"service-lock-{self.store}", daemon=True)
        self.thread.start()

    def drop(self) -> None:
        with self.guard:
            conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # a broken connection may fail to close: it is dropped all the same
                pass

    def release(self) -> None:
        """Let the store go: the connection closes, and the lock with its session."""
        self.stopping.set()
        self.drop()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(timeout=self.WATCH + 1)


def parse_change(payload: str) -> Change:
    """A notification's payload; one this release cannot read still says that something changed."""
    try:
        change = json.loads(payload)
    except ValueError:
        return dict(ANYTHING)
    return change if isinstance(change, dict) else dict(ANYTHING)


class PostgresTransaction:
    """A connection inside a transaction, taking the same SQL as SQLite."""

    def __init__(self, conn: Any):
        self.conn = conn

    def execute(self, sql: str, params: Any = (), /) -> Any:
        return self.conn.execute(placeholders(sql), tuple(params))


def placeholders(sql: str) -> str:
    """SQLite's `?` as psycopg's `%s` (the project's SQL has no literal `?` or `%`)."""
    return sql.replace("?", "%s")


URL_FORM = "postgresql://user:password@host:port/database"
ESCAPES = "percent-encode these characters in the password: / as %2F, @ as %40, % as %25, a space as %20"


def described(url: str) -> str:
    """A PostgreSQL URL as a start-up line names it: host, port, database and user, as libpq reads
    them (a URL `check_url` accepted), never the password."""
    from psycopg.conninfo import conninfo_to_dict

    read = conninfo_to_dict(url)
    host = read.get("host") or "the local socket"
    port = read.get("port") or "5432"
    user = f" as {read['user']}" if read.get("user") else ""
    return f"PostgreSQL database {read['dbname']} on {host}:{port}{user}"


def check_url(url: str) -> None:
    """Refuse a URL libpq would misread or not read, in one line that never shows the password. libpq's
    own parser (psycopg's conninfo) decides; a password it reads otherwise than as typed (up to the
    last '@') means a character cut it short, and connecting would print the rest as a host."""
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    if url.partition("://")[0] not in ("postgresql", "postgres"):
        raise SettingError(f"{URL_SETTING} must be {URL_FORM} (got '{redacted(url)}'); unset it to use SQLite in "
                           "the state dir")
    try:
        read = conninfo_to_dict(url)
    except ProgrammingError:
        raise SettingError(f"{URL_SETTING} is not a URL PostgreSQL can read (got '{redacted(url)}'): write it as "
                           f"{URL_FORM} and {ESCAPES}") from None
    typed = typed_password(url)
    if typed is not None and unquote(typed) != read.get("password"):
        raise SettingError(f"{URL_SETTING} has a password PostgreSQL would read cut short (got '{redacted(url)}'): "
                           f"{ESCAPES}")
    if not read.get("dbname"):
        raise SettingError(f"{URL_SETTING} names no database (got '{redacted(url)}'): write it as {URL_FORM}")


def typed_password(url: str) -> str | None:
    """The password as a person typed it: from the ':' after the user name to the last '@', whatever
    characters lie between (no parser can tell where a password with an unescaped '/' or '@' ends)."""
    userinfo, at, _ = url.partition("://")[2].rpartition("@")
    user, colon, password = userinfo.partition(":")
    return password if at and colon else None


def redacted(url: str) -> str:
    """The URL for messages, with any password masked however malformed the URL is (see typed_password;
    a password= parameter too); a setting that is no URL may be a key=value string: not shown at all."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return "***"
    if typed_password(url) is not None:
        userinfo, _, host = rest.rpartition("@")
        rest = f"{userinfo.partition(':')[0]}:***@{host}"
    return scheme + sep + re.sub(r"(password=)[^&]*", r"\1***", rest)


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
