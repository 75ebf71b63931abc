"""Files written so that a reader sees all of one or none of it, also after a power loss, and the
cache entries kept in a state dir (each with the digest of what it holds: a damaged or foreign
entry is dropped and made again, never used)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

LOG = logging.getLogger(__name__)


def save_quietly(path: Path, data: str | bytes) -> None:
    """Write a cache file in one step (a reader sees all of it or none, also after a power loss);
    a cache that cannot be written is only slower, never an error."""
    try:
        replace_durably(path, data.encode() if isinstance(data, str) else data)
    except OSError:
        pass


TEMPORARY = ".tmp"  # the suffix of every file written before it is put in place


def replace_durably(path: Path, data: bytes, exclusive: bool = False) -> None:
    """Write a temporary file in path's folder, fsync it, put it in place in one step (os.replace,
    or with `exclusive` os.link, which fails with FileExistsError if the name is taken), and fsync
    the folder so the new name survives a power loss too. The temporary file never stays."""
    tmp = write_temporary(path, data)
    try:
        if exclusive:
            os.link(tmp, path)  # atomic, and fails if the name is taken
        else:
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def write_temporary(path: Path, data: bytes) -> Path:
    """A new temporary file in path's folder holding data, fsynced, for the caller to put in place
    (os.replace) or remove; one a killed writer left is removed by remove_stale_temporary."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=TEMPORARY)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def fsync_dir(folder: Path) -> None:
    """Make a folder's entries durable where the platform allows it (not on Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


STALE_AFTER = 30.0  # seconds: a writer takes milliseconds from its temporary file to os.replace


def remove_stale_temporary(folder: Path, older_than: float = STALE_AFTER) -> int:
    """Remove the temporary files a killed writer left in folder (only those older than
    `older_than` seconds: a live writer in another process may be about to put its own in place).
    Returns how many were removed."""
    removed = 0
    now = time.time()
    try:
        leftovers = list(folder.glob("*" + TEMPORARY))
    except OSError:
        return 0
    for leftover in leftovers:
        try:
            if now - leftover.stat().st_mtime > older_than:
                leftover.unlink()
                removed += 1
        except OSError:
            pass  # another process removed it first, or it cannot be removed: left
    if removed:
        LOG.info("removed %d temporary file(s) a stopped writer left in %s", removed, folder)
    return removed


def digest(texts: Iterable[str]) -> str:
    """A short digest of texts, one after another."""
    hashed = hashlib.sha256()
    for text in texts:
        hashed.update(text.encode())
        hashed.update(b"\0")
    return hashed.hexdigest()[:24]


CACHE_FORMAT = "automanager-cache-2"  # in each entry's digest: an entry of another format is not one


def entry_digest(path: Path, body: bytes) -> str:
    """The digest a cache entry at path carries: of its content, and of its name (which holds the
    digest of what it was made from), so an entry copied or renamed to another key is not used."""
    hashed = hashlib.sha256(f"{CACHE_FORMAT}\0{path.name}\0".encode())
    hashed.update(body)
    return hashed.hexdigest()


def read_entry(path: Path | None, limit: int | None = None) -> bytes | None:
    """The content a cache entry at path holds, or None when it is missing or damaged (cut short,
    changed, unreadable, bigger than `limit`, or kept under another name): a cache is only a cache,
    and a damaged entry is dropped with a line in the log."""
    if path is None:
        return None
    try:
        if limit is not None and path.stat().st_size > limit + 65:
            raise ValueError("larger than any entry of its kind")
        check, _, body = path.read_bytes().partition(b"\n")
        if check.decode("ascii") != entry_digest(path, body):
            raise ValueError("its digest does not match")
        return body
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        drop_entry(path, str(exc))
        return None


def drop_entry(path: Path, why: str) -> None:
    """A damaged cache entry goes (it is made again): said in the log only."""
    LOG.warning("cache entry %s dropped and made again: %s", path.name, why)
    try:
        path.unlink()
    except OSError:
        pass


def write_entry(path: Path, body: bytes) -> None:
    """Keep body at path under its digest (see `read_entry`); the oldest files of its kind (the name
    up to the first '-') beyond CACHE_KEPT are removed."""
    save_quietly(path, entry_digest(path, body).encode() + b"\n" + body)
    try:
        kept = sorted(path.parent.glob(path.name.split("-")[0] + "-*"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-CACHE_KEPT]:
            if not old.name.endswith(TEMPORARY):
                old.unlink()
    except OSError:
        pass  # another process removed it first


def read_cache(path: Path | None) -> tuple[Any, str]:
    """The data and the text `write_cache` kept at path; (None, "") when the file is missing or
    damaged (see `read_entry`)."""
    body = read_entry(path)
    if body is not None and path is not None:
        try:
            data, _, text = body.decode().partition("\n")
            return json.loads(data), text
        except ValueError as exc:
            drop_entry(path, str(exc))
    return None, ""


CACHE_KEPT = 24  # files of one kind a cache folder keeps (a menu version has its own)


def write_cache(path: Path, data: Any, text: str = "") -> None:
    """Keep JSON data and a text (as it is: no JSON escapes to read back) at path (`write_entry`)."""
    write_entry(path, (json.dumps(data, ensure_ascii=False) + "\n" + text).encode())
