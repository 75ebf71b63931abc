"""Who may do what: the manager's token (made once per state dir, readable by its owner only) and
each lane's own token. A lane's token never opens a manager endpoint. A write the dashboard's
cookie authenticates must also come from the service's own page: its origin, and the page token
the dashboard embeds (another site can make the browser send the cookie, never read the page)."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

TOKEN_FILE = "manager-token"
KITCHEN_TOKEN_FILE = "kitchen-token"  # opens the kitchen display only


def manager_token(root: Path, name: str = TOKEN_FILE) -> str:
    """The state dir's manager token (or, by its file's name, the kitchen's), made at the first
    start with owner-only permissions."""
    path = root / name
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
    return token, token_digest(token)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def same(given: str | None, expected: str) -> bool:
    """Compared in constant time, so the answer's timing tells nothing of the token."""
    return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


def page_token(secret: str) -> str:
    """The token a staff page embeds and sends back in a header: made from the token its cookie
    holds (the manager's or the kitchen's), so only a page the service served with it can know it."""
    return hmac.new(secret.encode("utf-8"), b"dashboard page", hashlib.sha256).hexdigest()


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL, the default port filled in; None when it names no origin."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:
        return None
    if not parts.hostname or port is None:
        return None
    return parts.scheme.lower(), parts.hostname.lower(), port


def forged(origin: str | None, referer: str | None, sent: str | None, own: str, secret: str) -> str | None:
    """Why a cookie-authenticated write is refused as cross-site (None: it came from our page):
    its Origin (else its Referer) must be the service's own, and it must carry the page token."""
    claimed = origin if origin is not None else referer
    if claimed is None:
        return ("the request names no origin (no Origin or Referer header): a change made with the "
                "dashboard's cookie must come from the dashboard page")
    if origin_of(claimed) is None or origin_of(claimed) != origin_of(own):
        return (f"the request came from another site ({claimed.strip()[:100]!r}, this service is {own}): "
                "make changes on the dashboard, or call the API with 'Authorization: Bearer <token>'")
    if not same(sent, page_token(secret)):
        return ("the request lacks the dashboard's page token (the X-CSRF-Token header): reload the "
                "dashboard and try again, or call the API with 'Authorization: Bearer <token>'")
    return None


def receipt_key(manager: str, order_id: int) -> str:
    """The key of an order's receipt address: only the service (and a page it sent it to) knows it,
    so receipts cannot be read by counting order ids."""
    return hmac.new(manager.encode("utf-8"), f"receipt {order_id}".encode(), hashlib.sha256).hexdigest()[:32]
