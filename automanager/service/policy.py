"""What every answer of the service tells a browser about using it: no page of another site may
frame it (frame-ancestors 'none', and X-Frame-Options DENY for browsers before CSP 2), so no page
can lay the dashboard under its own and have the manager click Save; and a Content-Security-Policy
lets a page run scripts and styles only from the service's own files (the pages have no inline
script or style; the receipt's one style block and the API documentation's inline script are let
through by their hash, the documentation's styles as its bundles set them)."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

NEVER_FRAMED = "frame-ancestors 'none'"
# the pages: their scripts, styles, images, streams and calls are the service's own files and routes
# (the favicon is the empty data: URL; a chart is an SVG the service draws)
PAGE = ("default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
        + NEVER_FRAMED)
SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)
MAX_PAGE = 1_000_000  # bytes of a documentation page held to hash its inline scripts


def digest(text: str | bytes) -> str:
    """A CSP source for an inline script or style: 'sha256-<base64>'."""
    data = text.encode() if isinstance(text, str) else text
    return "'sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode() + "'"


def with_style(*hashes: str) -> str:
    """The pages' policy, with these inline style blocks (their digests) let through."""
    return f"{PAGE}; style-src 'self' {' '.join(hashes)}"


def documentation(scripts: Iterable[str]) -> str:
    """The API documentation's policy: Swagger UI's inline start-up script by its hash; Swagger UI
    and ReDoc set styles from script and ReDoc searches in a worker it makes from a blob."""
    sources = " ".join(["'self'", *scripts])
    return ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; "
            f"script-src {sources}; object-src 'none'; base-uri 'none'; form-action 'self'; {NEVER_FRAMED}")


class Policy:
    """ASGI middleware: every HTTP answer gets the headers (a route's own Content-Security-Policy
    is kept, and made never framed if it says nothing of frame-ancestors); the pages at `hashed`
    (the API documentation) are read whole first, so their inline scripts are let through by hash."""

    def __init__(self, app: ASGIApp, hashed: Iterable[str] = ()):
        self.app = app
        self.hashed = set(hashed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
        elif scope["path"] in self.hashed:
            await self.hashing(scope, receive, send)
        else:
            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    guard(MutableHeaders(scope=message), PAGE)
                await send(message)

            await self.app(scope, receive, sending)

    async def hashing(self, scope: Scope, receive: Receive, send: Send) -> None:
        start: dict[str, Any] = {}
        body: list[bytes] = []

        async def holding(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body" or not start:  # (the page went out already)
                await send(message)
                return
            body.append(message.get("body", b""))
            more = message.get("more_body", False)
            if more and sum(map(len, body)) <= MAX_PAGE:
                return
            page = b"".join(body)
            headers = MutableHeaders(scope=start)
            guard(headers, documentation(digest(script) for script in SCRIPT.findall(page)))
            if not more:
                headers["content-length"] = str(len(page))
            await send(dict(start))
            start.clear()
            await send({"type": "http.response.body", "body": page, "more_body": more})

        await self.app(scope, receive, holding)


def guard(headers: MutableHeaders, policy: str) -> None:
    policy = headers.get("content-security-policy") or policy
    if "frame-ancestors" not in policy:
        policy = f"{policy}; {NEVER_FRAMED}"
    headers["Content-Security-Policy"] = policy
    headers["X-Frame-Options"] = "DENY"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "same-origin"
