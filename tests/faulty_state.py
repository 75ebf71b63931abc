"""Run the command line with its state dir read-only or full: `python faulty_state.py read-only|full
<state dir> <command...>`. Simulated in the process, so it works as root too (whom chmod does not
stop): in the state dir, the writing calls of os and open fail with EROFS (read-only) and fsync
with ENOSPC (full); SQLite opens the database read-only (SQLite's own refusal) or fails its writes
with "database or disk is full"."""

from __future__ import annotations

import builtins
import errno
import io
import os
import sqlite3
import sys

FAULT, ROOT = sys.argv[1], os.path.realpath(sys.argv[2])
READ_ONLY = FAULT == "read-only"
WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
REAL = {name: getattr(os, name) for name in ("open", "mkdir", "replace", "rename", "unlink", "link", "rmdir", "fsync")}
real_open, real_connect = io.open, sqlite3.connect


def inside(path) -> bool:
    try:
        return os.path.realpath(os.fspath(path)).startswith(ROOT)
    except TypeError:  # a file descriptor
        return False


def refuse() -> None:
    code = errno.EROFS if READ_ONLY else errno.ENOSPC
    raise OSError(code, os.strerror(code))


def os_open(path, flags, *args, **kwargs):
    if READ_ONLY and flags & WRITING and inside(path):
        refuse()
    return REAL["open"](path, flags, *args, **kwargs)


def changing(name):
    def change(*args, **kwargs):
        if READ_ONLY and any(inside(path) for path in args[:2] if isinstance(path, (str, bytes, os.PathLike))):
            refuse()
        return REAL[name](*args, **kwargs)
    return change


def fsync(fd):
    if not READ_ONLY:
        refuse()
    return REAL["fsync"](fd)


def opener(file, mode="r", *args, **kwargs):
    if READ_ONLY and any(c in mode for c in "wax+") and inside(file):
        refuse()
    return real_open(file, mode, *args, **kwargs)


class Full(sqlite3.Connection):
    def execute(self, sql, *args):
        if not sql.lstrip().upper().startswith(("SELECT", "PRAGMA")):
            raise sqlite3.OperationalError("database or disk is full")
        return super().execute(sql, *args)


def connect(database, *args, **kwargs):
    if not inside(database):
        return real_connect(database, *args, **kwargs)
    if READ_ONLY:
        return real_connect(f"file:{os.fspath(database)}?mode=ro", *args, uri=True, **kwargs)
    return real_connect(database, *args, factory=Full, **kwargs)


os.open, os.fsync = os_open, fsync
for changer in ("mkdir", "replace", "rename", "unlink", "link", "rmdir"):
    setattr(os, changer, changing(changer))
builtins.open = io.open = opener
sqlite3.connect = connect
sys.argv = ["automanager", *sys.argv[3:]]

from automanager.cli import app  # noqa: E402  (after the faults are in place)

app(prog_name="automanager")
