"""Every error the service answers is JSON with a status code and says what to do; request bodies
are read under a size and time limit before any route sees them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..reasoner import ReasonerError
from ..star import MAX_INPUT
from ..store import StateError, StateUnavailable
from .lanes import LaneError
from .policy import PAGE, guard

LOG = logging.getLogger(__name__)
RETRY_AFTER = 2  # seconds a client is told to wait while the store cannot be used (a lock, a full disk)
MAX_BODY = 16_384  # bytes of a request body: a line is at most MAX_INPUT characters
MAX_AUDIO = 4_000_000  # bytes of a spoken line's recording (/speech): a minute of 16 kHz WAV is under 2 MB
BODY_SECONDS = 10.0  # a request body not all here by then is refused (408): a slow or short body holds nothing


def error(status: int, message: str, retry_after: int | None = None) -> JSONResponse:
    """A JSON error; `retry_after`: seconds after which the same request may work (a Retry-After header)."""
    if retry_after is None:
        return JSONResponse({"error": message, "status": status}, status_code=status)
    return JSONResponse({"error": message, "status": status, "retry_after": retry_after}, status_code=status,
                        headers={"Retry-After": str(retry_after)})


async def validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = [f"{'.'.join(str(p) for p in e['loc'] if p != 'body') or 'body'}: {e['msg']}" for e in exc.errors()]
    return error(422, "; ".join(problems[:5]))


async def internal_error(_request: Request, exc: Exception) -> JSONResponse:
    LOG.exception("internal error", exc_info=exc)
    answer = error(500, f"internal error ({type(exc).__name__}); nothing of this request was changed "
                        "unless its reply says so; see the service's log")
    guard(answer.headers, PAGE)  # (answered outside the middleware that says it of every other answer)
    return answer


# each kind of error as (status, message, seconds to retry after)
ANSWERS: dict[type[Exception], Callable[[Any], tuple[int, str, int | None]]] = {
    StarletteHTTPException: lambda exc: (exc.status_code, str(exc.detail), None),
    LaneError: lambda exc: (exc.status, str(exc), None),
    # unavailable: nothing was changed, and the same request works once the store is back
    StateError: lambda exc: (503, str(exc), RETRY_AFTER if isinstance(exc, StateUnavailable) else None),
    ReasonerError: lambda exc: (503, f"the menu cannot be reasoned over: {exc}", None),
}


def answer_errors(app: FastAPI) -> None:
    """Install the JSON answer of every kind of error, and the body limits."""
    for kind, answer in ANSWERS.items():
        app.add_exception_handler(kind, answered(answer))
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, internal_error)
    app.middleware("http")(limit_body)


def answered(answer: Callable[[Any], tuple[int, str, int | None]]) -> Callable[[Request, Exception], Any]:
    async def handler(_request: Request, exc: Exception) -> JSONResponse:
        return error(*answer(exc))

    return handler


async def limit_body(request: Request, call_next: Callable[[Request], Any]) -> Any:
    """Bodies are read here, at most MAX_BODY bytes within BODY_SECONDS (uvicorn has no body
    read timeout: a body shorter than its Content-Length would hold the connection for good)."""
    size = request.headers.get("content-length")
    limit = MAX_AUDIO if request.url.path.endswith("/speech") else MAX_BODY
    if size is not None and not size.isdigit():
        return error(400, "the Content-Length header is not a number of bytes")
    if size is not None and int(size) > limit:
        return error(413, f"the request body is over {limit:,} bytes" + (
            f"; a line is at most {MAX_INPUT:,} characters" if limit == MAX_BODY else ""))
    if (size not in (None, "0") or request.headers.get("transfer-encoding")) and request.method != "GET":
        try:
            body = await asyncio.wait_for(read_body(request, limit), BODY_SECONDS)
        except TimeoutError:
            return error(408, f"the request body did not all arrive within {BODY_SECONDS:g} seconds (is its "
                              "Content-Length right?); send it again")
        if body is None:
            return error(413, f"the request body is over {limit:,} bytes")
        request._body = body  # read once: the route reads it from here
    return await call_next(request)


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes | None:
    """The whole body, or None when it is over `limit` bytes."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return body
