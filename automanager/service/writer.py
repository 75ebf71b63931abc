"""One `serve` per state dir: two would take over each other's lanes, answer turns that are then
lost and interleave the session journals. The service holds an OS lock (flock) on the state dir's
`serve.lock`, which names its process id; the lock goes with the process, however it ends, so a
killed service never leaves a stale one. On PostgreSQL the lock is the state dir's too: a store's
services on other machines each need their own state dir and store id."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import TextIO

from ..store import StateError

LOCK_FILE = "serve.lock"


def hold(root: Path) -> TextIO:
    """Take the state dir's serve lock for this process (keep the file open while serving); a
    StateError names the process that has it, or why the lock file cannot be written."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        handle = (root / LOCK_FILE).open("a+", encoding="utf-8")
    except OSError as exc:
        raise StateError(f"cannot write {root / LOCK_FILE}: {exc.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        pid = handle.read().strip()
        handle.close()
        holder = f"process {pid}" if pid.isdigit() else "another process"
        raise StateError(f"{holder} is serving the state dir {root} already: stop it first, or give this one "
                         "another --state-dir (one service per state dir)") from None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle
