"""One `serve` per store and state dir: two would take over each other's lanes, answer turns that
are then lost and interleave the session journals. The service holds an OS lock (flock) on the
state dir's `serve-<store>.lock`, which names its process id; the lock goes with the process,
however it ends, so a killed service never leaves a stale one. On PostgreSQL the lock is the state
dir's too (kept simple): a store's services on other machines would each have their own."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import TextIO

from ..store import StateError


def hold(root: Path, store: str) -> TextIO:
    """Take the serve lock of the store on the state dir for this process (keep the file open while
    serving); a StateError names the process that has it, or why the lock file cannot be written."""
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
        raise StateError(f"{holder} is serving store {store} from the state dir {root} already: stop it first, "
                         "or give this one another --state-dir (one service per store and state dir)") from None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle
