"""Persistent state: customer sessions (atomic JSON files) and the shared stock list (SQLite).

A session file is replaced in one `os.replace` after an fsync, so a crash leaves the previous
turn or the new one, never half a file. The stock list is shared between processes (one
manager, many customers) through SQLite in WAL mode.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import uuid
from contextlib import closing
from pathlib import Path

from . import paths


class StateError(Exception):
    """Saved state cannot be read or written; the message names the file and what to do."""


def default_home() -> Path:
    """$AUTOMANAGER_HOME, else state/ of a checkout, else ~/.automanager."""
    if os.environ.get("AUTOMANAGER_HOME"):
        return Path(os.environ["AUTOMANAGER_HOME"])
    checkout = paths.PACKAGE.parent / "state"
    return checkout if checkout.is_dir() else Path.home() / ".automanager"


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Home:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else default_home()
        self.sessions = self.root / "sessions"

    # -- sessions ------------------------------------------------------------------------
    def new_session_id(self) -> str:
        return uuid.uuid4().hex[:8]

    def session_path(self, session_id: str) -> Path:
        if not session_id.isalnum():
            raise StateError(f"'{session_id}' is not a session id (letters and digits only)")
        return self.sessions / f"{session_id}.json"

    def save_session(self, session_id: str, data: dict) -> None:
        try:
            write_atomic(self.session_path(session_id), json.dumps(data, ensure_ascii=False, indent=1))
        except OSError as exc:
            raise StateError(f"cannot save the session to {self.session_path(session_id)}: {exc.strerror}. "
                             "Check that the state dir is writable (--state-dir).") from exc

    def load_session(self, session_id: str) -> dict:
        path = self.session_path(session_id)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise StateError(f"no session '{session_id}' in {self.sessions}; "
                             "`automanager customer` without --resume starts a new one") from exc
        except (OSError, ValueError) as exc:
            raise StateError(f"session file {path} is damaged ({exc}). Move it away to start afresh; "
                             "nothing else was changed.") from exc

    # -- the shared stock list ---------------------------------------------------------------
    def db(self) -> sqlite3.Connection:
        self.root.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.root / "shared.db", timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE IF NOT EXISTS stock_out (ingredient TEXT PRIMARY KEY, since TEXT NOT NULL)")
        return conn

    def stock_out(self) -> list[str]:
        """Ingredients the manager said are out, read fresh at every turn."""
        try:
            with closing(self.db()) as conn:
                return [row[0] for row in conn.execute("SELECT ingredient FROM stock_out ORDER BY ingredient")]
        except sqlite3.Error as exc:
            raise StateError(f"cannot read the stock list in {self.root / 'shared.db'}: {exc}") from exc

    def set_stock(self, ingredient: str, out: bool) -> None:
        with closing(self.db()) as conn, conn:
            if out:
                conn.execute("INSERT OR IGNORE INTO stock_out VALUES (?, datetime('now'))", (ingredient,))
            else:
                conn.execute("DELETE FROM stock_out WHERE ingredient = ?", (ingredient,))
