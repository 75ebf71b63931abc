"""Persistent state: sessions (a journal of turns and an atomic JSON file), and what the bots
share (SQLite, WAL): the stock list, the menu versions and the audit log.

A session is two files in sessions/: `<id>.jsonl`, its turns, one JSON line each, only ever
appended to (fsynced), and `<id>.json`, its state and how far the journal goes, replaced whole
after every turn. A turn thus writes what it added, never the whole transcript again, and costs
the same at turn 3,000 as at turn 3. A turn is saved once the session file counts it: journal
bytes after that (a save cut short) are not read, and the next save writes over them. Sessions
saved before the journal keep their turns in the JSON file; their first save moves them over.

A session file or a menu version is replaced in one `os.replace` after an fsync, so a crash
leaves the old file or the new one, never half a file. One manager and many customers may run
at once: the shared tables live in SQLite in WAL mode, and a menu commit holds the write lock
from reading the latest version to publishing the next one. Menu versions are files
`menu/v<N>.lp` in the state dir; a version exists once its row is in `menu_version`, so a crash
before that leaves no half-applied menu. The file is written (and fsynced) before the commit but
put in its place only after it: a crash before leaves a temporary file the next start removes,
never a `v<N>.lp` of a menu nobody published (on a chain another machine may publish N with
other text); a crash after leaves no file, and the first reader makes it from the row's text.
Versions belong to the base KB they were made from (its digest): another restaurant's KB starts
from its own menu.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import tempfile
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from . import paths
from .database import Database, DatabaseError, StoreUnavailable, Transaction, open_database
from .files import fsync_dir, remove_stale_temporary, replace_durably, write_temporary
from .reasoner import program_text
from .settings import fixed_now

Result = TypeVar("Result")  # what a write transaction's work returns
LOG = logging.getLogger(__name__)
LOG.addHandler(logging.NullHandler())


class Journal(NamedTuple):
    """How far a session's journal goes: its turns, and the bytes they take."""
    turns: int
    size: int


class StateError(Exception):
    """Saved state cannot be read or written; the message names the file and what to do."""


class StateUnavailable(StateError):
    """The state dir or its database cannot be used for now (locked by another program, a full or
    read-only disk): nothing was changed, and the same call works once the cause is gone."""


class VersionMoved(Exception):
    """Another manager published a menu version after this turn was decided."""


def default_home() -> Path:
    """$AUTOMANAGER_HOME, else state/ of a checkout, else ~/.automanager."""
    if os.environ.get("AUTOMANAGER_HOME"):
        return Path(os.environ["AUTOMANAGER_HOME"])
    checkout = paths.PACKAGE.parent / "state"
    return checkout if checkout.is_dir() else Path.home() / ".automanager"


def write_atomic(path: Path, text: str, exclusive: bool = False) -> None:
    """Write a temporary file, fsync it, then put it in place in one step and fsync the folder.
    `exclusive`: only if no file is there yet (FileExistsError otherwise), so a new file never
    replaces another."""
    replace_durably(path, text.encode("utf-8"), exclusive)


STORE_SETTING = "AUTOMANAGER_STORE"
DEFAULT_STORE = "main"
STORE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def store_id(store: str) -> str:
    """A store's id as given, or StateError saying what an id may be."""
    if not isinstance(store, str) or not STORE_ID.fullmatch(store):
        raise StateError(f"'{store}' is not a store id: use 1 to 64 letters, digits, '-' or '_' (for example "
                         f"'main' or 'north-7')")
    return store


def default_store() -> str:
    """$AUTOMANAGER_STORE, else 'main'."""
    return os.environ.get(STORE_SETTING, "").strip() or DEFAULT_STORE


class Home:
    """One store's view of the state dir and the shared database: the menu is the chain's; the
    stock list, lanes, unheard phrases, store prices and stock history are this store's."""

    def __init__(self, root: Path | None = None, kb: Path | None = None, store: str = DEFAULT_STORE):
        self.root = Path(root) if root else default_home()
        if (why := paths.unusable(self.root)) is not None:
            raise StateError(f"the state dir (--state-dir or $AUTOMANAGER_HOME) cannot be used: {why}")
        self.kb = kb  # the menu pack's folder; None: paths.kb_dir()
        self.clock: datetime | None = fixed_now()  # a fixed local time for the bots' clock fact (a scenario's
        # now:, --now, $AUTOMANAGER_NOW); None: the machine's local time at each turn (now())
        self.store = store_id(store)
        self.sessions = self.root / "sessions"
        self._journals: dict[str, Journal] = {}  # each session's journal as this Home last read or wrote it

    def now(self) -> datetime:
        """The local time of a turn: the fixed clock when one is set, else the machine's."""
        return self.clock or datetime.now()

    def sweep(self) -> None:
        """Remove the temporary files killed writers left (sessions, menu versions, caches); a
        live writer's, younger than a few seconds, is left alone."""
        for folder in (self.sessions, self.root / "menu", self.root / "cache"):
            remove_stale_temporary(folder)

    # -- sessions ------------------------------------------------------------------------
    def new_session_id(self) -> str:
        """64 random bits, and never the id of a session already saved (or begun)."""
        while True:
            session_id = secrets.token_hex(8)
            if not self.session_path(session_id).exists() and not self.journal_path(session_id).exists():
                return session_id

    def history_path(self, role: str) -> Path:
        """The line-editing history of one role's terminal chats (the up arrow recalls from it)."""
        self.root.mkdir(parents=True, exist_ok=True)
        return self.root / f"{role}-input-history"

    def session_path(self, session_id: str) -> Path:
        if not session_id.isalnum():
            raise StateError(f"'{session_id}' is not a session id (letters and digits only)")
        return self.sessions / f"{session_id}.json"

    def journal_path(self, session_id: str) -> Path:
        return self.session_path(session_id).with_suffix(".jsonl")

    def save_session(self, session_id: str, data: dict[str, Any], new: bool = False) -> None:
        """Append the turns of data["turns"] not saved yet to the journal, then replace the session
        file (the rest of data, and the journal's new length) atomically. A `new` session never
        replaces an existing file."""
        turns = data.get("turns", [])
        path, journal_path = self.session_path(session_id), self.journal_path(session_id)
        made = False
        try:
            if new:  # the journal is made first, exclusively: another session's is never written to
                self.sessions.mkdir(parents=True, exist_ok=True)
                os.close(os.open(journal_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                made = True
            done = Journal(0, 0) if new else self._journal(session_id)
            journal = append_turns(journal_path, turns[done.turns:], done)
            snapshot = {key: value for key, value in data.items() if key != "turns"}
            snapshot["journal"] = journal._asdict()
            write_atomic(path, json.dumps(snapshot, ensure_ascii=False, indent=1), exclusive=new)
        except OSError as exc:
            if made:  # this save's own journal: a retry, or the session that has the id, finds none
                journal_path.unlink(missing_ok=True)
            if isinstance(exc, FileExistsError):
                raise StateError(f"a session '{session_id}' already exists in {self.sessions}; it was left "
                                 "untouched. Start the chat again for a new session.") from exc
            raise StateUnavailable(f"cannot save the session to {path}: {exc.strerror}. Check that the state dir "
                                   "is writable and has free space (--state-dir); this turn was not kept") from exc
        self._journals[session_id] = journal

    def _journal(self, session_id: str) -> Journal:
        """The journal as saved: as this Home last left it, else as the session file says."""
        if session_id not in self._journals:
            self.load_session(session_id)
        return self._journals[session_id]

    def load_session(self, session_id: str, role: str = "customer") -> dict[str, Any]:
        """The session file's data with its turns read from the journal, as far as the file counts."""
        path = self.session_path(session_id)
        try:
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            if "journal" in data:
                saved = Journal(**data.pop("journal"))
                data["turns"], whole = read_turns(self.journal_path(session_id), saved)
                self._journals[session_id] = Journal(len(data["turns"]), whole)
            else:  # saved before the journal: its turns are in the file, and the next save moves them
                self._journals[session_id] = Journal(0, 0)
            return data
        except FileNotFoundError as exc:
            raise StateError(f"no session '{session_id}' in {self.sessions}; `automanager {role}` without "
                             "--resume starts a new one") from exc
        except (OSError, ValueError, TypeError) as exc:
            raise StateError(f"session file {path} is damaged ({exc}). Move it away to start afresh; "
                             "nothing else was changed.") from exc

    # -- the shared database ----------------------------------------------------------------
    @cached_property
    def database(self) -> Database:
        """SQLite in the state dir, or the PostgreSQL server AUTOMANAGER_DATABASE_URL names."""
        try:
            return open_database(self.root)
        except DatabaseError as exc:
            raise StateError(str(exc)) from exc

    def close(self) -> None:
        """Close this thread's kept connection (a later read opens a new one)."""
        if "database" in self.__dict__:
            self.database.close()

    def read(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.database.read(query, params)
        except DatabaseError as exc:
            raise state_error(exc) from exc

    def write(self, work: Callable[[Transaction], Result], exclusive: bool = False) -> Result:
        """Run `work` in one write transaction: all of it lands, or none (`exclusive`: with no
        other write in between)."""
        try:
            return self.database.write(work, exclusive)
        except DatabaseError as exc:
            raise state_error(exc) from exc
        except OSError as exc:  # a menu version file: nothing was published
            raise StateUnavailable(f"cannot write in {self.root}: {exc.strerror}. Check that the state dir is writable "
                             "and has free space; nothing was changed.") from exc

    # -- the shared stock list ---------------------------------------------------------------
    def stock_out(self) -> list[str]:
        """Ingredients (or items) the manager said are out, read fresh at every turn."""
        return [name for name, _since in self.stock_list()]

    def stock_list(self) -> list[tuple[str, str]]:
        """(name, since) of everything out of stock."""
        return self.read("SELECT ingredient, since FROM stock_out WHERE store = ? ORDER BY ingredient", (self.store,))

    def set_stock(self, ingredient: str, out: bool, session: str = "") -> None:
        def work(conn: Transaction) -> None:
            if out:
                changed = conn.execute("INSERT INTO stock_out (store, ingredient, since) VALUES (?, ?, ?) "
                                       "ON CONFLICT DO NOTHING", (self.store, ingredient, now())).rowcount
            else:
                changed = conn.execute("DELETE FROM stock_out WHERE store = ? AND ingredient = ?",
                                       (self.store, ingredient)).rowcount
            if changed:
                log(conn, self.store, session, None, "runout" if out else "restore", ingredient, "stock",
                    "in" if out else "out", "out" if out else "in")
                self.database.notify(conn, "stock", store=self.store)  # the store's lanes hear of it at the commit

        self.write(work)

    # -- menu versions ----------------------------------------------------------------------------
    @cached_property
    def base_files(self) -> list[Path]:
        return paths.kb_files(self.kb)

    @cached_property
    def base_digest(self) -> str:
        digest = hashlib.sha256()
        for path in self.base_files:
            digest.update(path.name.encode() + b"\0" + program_text(path).encode())
        return digest.hexdigest()[:16]

    def described(self) -> str:
        """Which store, database and menu this process works on, for start-up lines: a chain's
        manager sees at once when a missing database setting sends a runout to a local file."""
        pack = self.kb or paths.kb_dir()
        return (f"store {self.store}, database {self.database.described}, "
                f"menu pack {pack} (latest version {self.latest_version()})")

    def latest_version(self) -> int:
        """The newest menu version made from this KB (0: the KB as shipped)."""
        rows = self.read("SELECT max(version) FROM menu_version WHERE base = ?", (self.base_digest,))
        return rows[0][0] or 0

    def menu_files(self, version: int) -> list[Path]:
        if version == 0:
            return self.base_files
        path = self.root / "menu" / f"v{version}.lp"
        if not path.is_file():  # made on another machine of the chain, or lost: made from its text
            rows = self.read("SELECT menu_text FROM menu_version WHERE version = ?", (version,))
            if not rows or rows[0][0] is None:
                raise StateError(f"menu version {version} is missing ({path}). Restore the file from a backup, "
                                 "or run `automanager state reset` to start from the shipped menu.")
            try:
                write_atomic(path, rows[0][0])
            except OSError:  # a state dir that cannot be written (read-only, full) is still read: from a copy
                path = outside_copy(path.name, rows[0][0])  # of this process's own, outside it
        return [path]

    def published(self, session: str, batch: str) -> int | None:
        """The version that published this session's staged batch, if one did."""
        rows = self.read("SELECT version FROM menu_version WHERE session = ? AND batch = ?", (session, batch))
        return rows[0][0] if rows else None

    def commit_menu(self, session: str, batch: str, based_on: int, records: Iterable[tuple[Any, ...]],
                    make: Callable[[list[Path]], str]) -> int:
        """Publish the next menu version: `make(files of the latest version)` returns its text.

        records are audit rows (action, item, property, old, new); batch is the fingerprint of
        the session's staged changes (see `published`). based_on is the version the changes were
        decided on: if another manager published since, nothing is written and VersionMoved is
        raised. Returns the new version.
        """

        records = list(records)  # a write may be tried again
        written: list[Path] = []  # the new version's file, not in its place until the version is published

        def work(conn: Transaction) -> int:
            latest = conn.execute("SELECT max(version) FROM menu_version WHERE base = ?",
                                  (self.base_digest,)).fetchone()[0] or 0
            if latest != based_on:
                raise VersionMoved(latest)
            text = make(self.menu_files(latest))
            version = (conn.execute("SELECT max(version) FROM menu_version").fetchone()[0] or 0) + 1
            written.append(write_temporary(self.root / "menu" / f"v{version}.lp", text.encode("utf-8")))
            conn.execute("INSERT INTO menu_version (version, base, at, session, batch, menu_text) "
                         "VALUES (?, ?, ?, ?, ?, ?)", (version, self.base_digest, now(), session, batch, text))
            for record in records:
                log(conn, self.store, session, version, *record)
            self.database.notify(conn, "menu", version=version)
            return version

        try:
            version = self.write(work, exclusive=True)
            path = self.root / "menu" / f"v{version}.lp"
            try:
                os.replace(written[-1], path)
                fsync_dir(path.parent)
            except OSError as exc:  # published all the same: the first reader makes the file from its text
                LOG.warning("menu version %d is published, but %s could not be put in place: %s", version, path, exc)
            return version
        finally:
            for leftover in written:
                leftover.unlink(missing_ok=True)

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest applied changes first, with old and new values: this store's (stock, store
        prices) and the chain's menu versions, whichever store's manager published them."""
        rows = self.read("SELECT at, session, version, action, item, property, old, new, store FROM audit "
                          "WHERE store = ? OR version IS NOT NULL ORDER BY id DESC LIMIT ?", (self.store, limit))
        keys = ("at", "session", "version", "action", "item", "property", "old", "new", "store")
        return [dict(zip(keys, row)) for row in rows]

    def sessions_of(self, role: str) -> list[tuple[str, dict[str, Any]]]:
        """(id, data) of every readable session of a role in this store, newest first."""
        found = []
        for path in sorted(self.sessions.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
            try:
                data = self.load_session(path.stem, role)
            except StateError:
                continue
            if data.get("role", "customer") == role and data.get("store", DEFAULT_STORE) == self.store:
                found.append((path.stem, data))
        return found

    # -- the service's lanes ------------------------------------------------------------------
    def open_lane(self, lane: str, token_hash: str, session: str) -> None:
        self.write(lambda conn: conn.execute("INSERT INTO lane (lane, token_hash, session, opened_at, closed_at, store) "
                                              "VALUES (?, ?, ?, ?, NULL, ?)",
                                              (lane, token_hash, session, now(), self.store)))

    def lane_session(self, lane: str, session: str, finished: str | None = None) -> None:
        """The lane serves its next car in `session`; `finished`: the car it served last, whose
        turns a page may still resend (after a restart too)."""
        self.write(lambda conn: conn.execute("UPDATE lane SET session = ?, finished = ? WHERE lane = ?",
                                             (session, finished, lane)))

    def close_lane(self, lane: str) -> None:
        """Close the lane; of the store's closed lanes only the newest KEEP_CLOSED rows are kept
        (a lane's sessions stay saved: the table does not grow car after car)."""
        def work(conn: Transaction) -> None:
            closed = datetime.now(UTC).isoformat(timespec="microseconds")  # the order lanes closed in, to prune
            conn.execute("UPDATE lane SET closed_at = ? WHERE lane = ?", (closed, lane))
            conn.execute("DELETE FROM lane WHERE store = ? AND closed_at IS NOT NULL AND lane NOT IN (SELECT lane "
                         "FROM lane WHERE store = ? AND closed_at IS NOT NULL ORDER BY closed_at DESC, lane LIMIT ?)",
                         (self.store, self.store, KEEP_CLOSED))

        self.write(work)

    def lanes(self) -> list[tuple[str, str, str, str | None]]:
        """(lane, token hash, session, the session it finished last) of every open lane of this
        store, oldest first."""
        return [(lane, token, session, finished) for lane, token, session, finished in self.read(
            "SELECT lane, token_hash, session, finished FROM lane WHERE closed_at IS NULL AND store = ? "
            "ORDER BY opened_at, lane", (self.store,))]

    # -- what customers said that no bot understood ----------------------------------------------
    def note_unheard(self, phrases: Iterable[str]) -> None:
        """Count each phrase (a manager may teach it or mark it as not sold; a phrase marked so
        is counted still)."""
        def work(conn: Transaction) -> None:
            for phrase in phrases:
                conn.execute("INSERT INTO unheard (store, phrase, count, last_at) VALUES (?, ?, 1, ?) "
                             "ON CONFLICT(store, phrase) DO UPDATE SET count = unheard.count + 1, "
                             "last_at = excluded.last_at", (self.store, phrase, now()))

        self.write(work)

    def unheard(self, status: str = "open", limit: int = 100) -> list[dict[str, Any]]:
        rows = self.read("SELECT phrase, count, last_at, status FROM unheard WHERE store = ? AND status = ? "
                          "ORDER BY count DESC, last_at DESC LIMIT ?", (self.store, status, limit))
        return [dict(zip(("phrase", "count", "last_at", "status"), row)) for row in rows]

    def heard(self, phrase: str) -> dict[str, Any] | None:
        """The row of a phrase customers said that no bot understood, or None."""
        rows = self.read("SELECT phrase, count, last_at, status FROM unheard WHERE store = ? AND phrase = ?",
                          (self.store, phrase))
        return dict(zip(("phrase", "count", "last_at", "status"), rows[0])) if rows else None

    def mark_unheard(self, phrase: str, status: str) -> bool:
        """Set a phrase's status (taught, not_sold); False when no customer said it."""
        return bool(self.write(lambda conn: conn.execute(
            "UPDATE unheard SET status = ? WHERE store = ? AND phrase = ?", (status, self.store, phrase)).rowcount))

    # -- this store's own prices over the chain menu -----------------------------------------------
    def store_prices(self) -> dict[str, int]:
        """item -> cents: this store's price of each item it prices itself (the chain menu's otherwise)."""
        return dict(self.read("SELECT item, cents FROM store_price WHERE store = ? ORDER BY item", (self.store,)))

    def set_store_price(self, item: str, cents: int | None, chain_price: int | None = None, session: str = "") -> bool:
        """Set this store's price of an item (None: the chain menu's price again), logged with the
        old and new price (a missing store price logs the chain price). False when nothing changed."""
        def work(conn: Transaction) -> bool:
            rows = conn.execute("SELECT cents FROM store_price WHERE store = ? AND item = ?",
                                (self.store, item)).fetchall()
            old = rows[0][0] if rows else None
            if old == cents:
                return False
            if cents is None:
                conn.execute("DELETE FROM store_price WHERE store = ? AND item = ?", (self.store, item))
            else:
                conn.execute("INSERT INTO store_price (store, item, cents, at) VALUES (?, ?, ?, ?) ON CONFLICT(store, item) "
                             "DO UPDATE SET cents = excluded.cents, at = excluded.at", (self.store, item, cents, now()))
            log(conn, self.store, session, None, "store_price" if cents is not None else "chain_price", item,
                "price", chain_price if old is None else old, chain_price if cents is None else cents)
            return True

        return bool(self.write(work))

    def reset(self) -> None:
        """Delete sessions, menu versions, stock list and audit log (on purpose only); on a shared
        server, its rows: every machine of the chain starts afresh. A state dir that cannot be
        written is found before anything is deleted."""
        self.check_writable(space=False)  # a full disk still lets files go, which frees it
        if self.database.engine != "sqlite":
            self.write(lambda conn: [conn.execute(f"DELETE FROM {table}") for table in SHARED_TABLES], exclusive=True)
        self.close()
        self._journals.clear()
        try:
            for path in [*self.sessions.glob("*.json"), *self.sessions.glob("*.jsonl"),
                         *(self.root / "menu").glob("v*.lp"), *self.root.glob("shared.db*")]:
                path.unlink(missing_ok=True)
        except OSError as exc:
            raise StateUnavailable(f"cannot delete {exc.filename}: {exc.strerror}; the reset stopped part way. Make "
                                   f"the state dir {self.root} writable and run it again") from exc

    def check_writable(self, space: bool = True) -> None:
        """StateUnavailable unless a file can be made in the state dir now (not read-only) and,
        with `space`, written (not full): a command that would stop half way says so before it starts."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=self.root, prefix=".writable.")
            try:
                if space:
                    os.write(fd, b"probe")
                    os.fsync(fd)
            finally:
                os.close(fd)
                os.unlink(probe)
        except OSError as exc:
            raise StateUnavailable(f"cannot write in the state dir {self.root}: {exc.strerror}. Check that it is a "
                                   "writable folder with free space (--state-dir or $AUTOMANAGER_HOME)") from exc


KEEP_CLOSED = 256  # closed lane rows a store keeps (the newest): what the service closed lately
SHARED_TABLES = ("stock_out", "menu_version", "audit", "lane", "unheard", "store_price", "placed_order", "store_tax", "lost_sale")


def outside_copy(name: str, text: str) -> Path:
    """A file of this process's own outside the state dir holding `text` (a menu version the
    state dir cannot take), removed when the process ends."""
    global SCRATCH
    if SCRATCH is None:
        import atexit
        import shutil

        SCRATCH = Path(tempfile.mkdtemp(prefix="automanager-menu-"))
        atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)
    path = SCRATCH / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}-{name}"  # two chains' v1 are two files
    path.write_text(text, encoding="utf-8")
    return path


SCRATCH: Path | None = None  # outside_copy's folder, made at its first use


def state_error(exc: DatabaseError) -> StateError:
    return (StateUnavailable if isinstance(exc, StoreUnavailable) else StateError)(str(exc))


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def log(conn: Transaction, store: str, session: str, version: int | None, action: str, item: str,
        prop: str | None, old: object, new: object) -> None:
    conn.execute("INSERT INTO audit (at, store, session, version, action, item, property, old, new) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (now(), store, session, version, action, item, prop, None if old is None else str(old),
                  None if new is None else str(new)))


def append_turns(path: Path, turns: list[dict[str, Any]], done: Journal) -> Journal:
    """Write turns as JSON lines after the `done` part of the journal (cutting what a save cut
    short left after it), and fsync."""
    if not turns and done.size:
        return done
    lines = b"".join(json.dumps(turn, ensure_ascii=False).encode("utf-8") + b"\n" for turn in turns)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "wb") as handle:
        at = min(done.size, os.fstat(handle.fileno()).st_size)
        handle.truncate(at)
        handle.write(lines)
        handle.flush()
        os.fsync(handle.fileno())
    if at == 0:
        fsync_dir(path.parent)  # a new journal's name survives a power loss too
    return Journal(done.turns + len(turns), at + len(lines))


def read_turns(path: Path, saved: Journal) -> tuple[list[dict[str, Any]], int]:
    """The turns in the first saved.size bytes of a journal, and where its last whole line ends
    (the next save writes from there). A damaged or cut line is skipped and logged, never an
    error: every other turn is still read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(saved.size)
            after = os.fstat(handle.fileno()).st_size - len(data)
    except FileNotFoundError:
        data, after = b"", 0
    if after > 0:
        LOG.info("%s: %d bytes after the last saved turn not read (a save cut short)", path, after)
    *lines, cut = data.split(b"\n")
    if cut:
        LOG.warning("%s: the last line is cut short (%d bytes); it was skipped", path, len(cut))
    turns = []
    for number, line in enumerate(lines, 1):
        try:
            turn = json.loads(line)
            if not isinstance(turn, dict):
                raise ValueError("not a JSON object")
            turns.append(turn)
        except ValueError as exc:
            LOG.warning("%s: line %d is damaged (%s); it was skipped", path, number, exc)
    if len(turns) < saved.turns:
        LOG.warning("%s: %d of %d saved turns could be read", path, len(turns), saved.turns)
    return turns, len(data) - len(cut)
