"""One `serve` per store: two would take over each other's lanes, answer turns that are then lost
and interleave the session journals. The service holds an OS lock (flock) on the state dir's
`serve-<store>.lock`, which names its process id; the lock goes with the process, however it ends,
so a killed service never leaves a stale one. On SQLite that is the store's one lock (its database
is in the state dir). On PostgreSQL a store's services may start from other state dirs and other
machines: there the service also holds the store's lock on the database (`claim`, a session-level
advisory lock; database.ServiceLock), and a second service of the store on that database is refused
at start, whatever its state dir."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import TextIO

from ..database import DatabaseError, Postgres, ServiceLock, StoreServed
from ..store import Home, StateError, state_error


def hold(root: Path, store: str, shared: bool = False) -> TextIO:
    """Take the serve lock of the store on the state dir for this process (keep the file open while
    serving); a StateError names the process that has it, or why the lock file cannot be written.
    `shared`: the database is a chain's (PostgreSQL), where another state dir serves the same store."""
    path = root / f"serve-{store}.lock"
    try:
        root.mkdir(parents=True, exist_ok=True)
        handle = path.open("a+", encoding="utf-8")
    except OSError as exc:
        raise StateError(f"cannot write {path}: {exc.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        pid = handle.read().strip()
        handle.close()
        holder = f"process {pid}" if pid.isdigit() else "another process"
        other = "serve another store (--store)" if shared else "give this one another --state-dir"
        raise StateError(f"{holder} is serving store {store} from the state dir {root} already: stop it first, "
                         f"or {other} (one service per store)") from None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def claim(home: Home) -> ServiceLock | None:
    """On PostgreSQL, take the store's service lock on the database for this process (release it
    when the service stops); None on SQLite, where the state dir's lock is the store's. A StateError
    says which store is served already and what to do; a StateUnavailable caused by ServerAway says
    the server is busy or gone for now (try again)."""
    database = home.database
    if not isinstance(database, Postgres):
        return None
    lock = ServiceLock(database, home.store)
    deadline = time.monotonic() + GRACE
    while True:
        try:
            lock.take()
            return lock
        except StoreServed as exc:  # a process killed a moment ago: its session ends as the server notices
            if time.monotonic() >= deadline:
                raise state_error(exc) from exc
            time.sleep(0.25)
        except DatabaseError as exc:
            raise state_error(exc) from exc


GRACE = 3.0  # seconds a store found served is looked at again before the refusal (a service just killed)
