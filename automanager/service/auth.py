"""Who may do what: the manager's token (made once per state dir, readable by its owner only) and
each lane's own token. A lane's token never opens a manager endpoint."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

TOKEN_FILE = "manager-token"


def manager_token(root: Path) -> str:
    """The state dir's manager token, made at the first start with owner-only permissions."""
    path = root / TOKEN_FILE
    root.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    return token


def new_lane_token() -> tuple[str, str]:
    """(token, the digest kept of it): the store never holds a lane's token itself."""
    token = secrets.token_urlsafe(24)
    return token, digest(token)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def same(given: str | None, expected: str) -> bool:
    """Compared in constant time, so the answer's timing tells nothing of the token."""
    return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))
