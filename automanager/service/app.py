"""The HTTP service: lanes (a customer chat each), the manager's chat, stock board, pending changes,
menu versions, audit history and what customers said that no bot understood, the kitchen's tickets
and each order's receipt, with a live event stream and four pages. Every route answers JSON described by a model (models.py); every error is
JSON with a status code and says what to do (errors.py); no answer may be framed by another site,
and pages run only the service's own scripts (policy.py); nothing a lane may call changes the
stock, the menu or the aliases (access.py). The API's documentation (/docs, /redoc) is served from
the package's own files: a drive-through's network may have no way out.

Turns run in FastAPI's worker threads (clingo holds the GIL while it grounds and solves: one turn
at a time decides, and lanes interleave between turns); the event loop only streams events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from ..llm.openai_backend import LLMConfig
from ..store import Home
from .errors import answer_errors
from .models import Error
from .policy import Policy
from .routers import kitchen, lanes, manager, pages, report
from .shared import Service

STORE_PATIENCE = 5.0  # seconds a lane's turn waits for a busy or lost store before a 503 (a car cannot wait 30)
ABOUT = ("Drive-through lanes and the manager's dashboard over one menu knowledge base. Lane routes take the "
         "lane's token (from POST /api/lanes); manager routes take the manager token (the file `manager-token` "
         "in the state dir), each as 'Authorization: Bearer <token>'. Every error is JSON: "
         "{\"error\": what went wrong and what to do, \"status\": the code}.")
ERRORS = {code: {"model": Error} for code in (401, 403, 404, 408, 409, 413, 422, 429, 503)}


def create_app(home: Home, llm: LLMConfig | None = None) -> FastAPI:
    """The service over one store: its lanes, its manager's chat and its pages."""
    home.database.patience = min(home.database.patience, STORE_PATIENCE)
    service = Service(home, llm)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        service.events.loop = asyncio.get_running_loop()
        service.lanes.restore()
        service.watcher.start()
        service.lanes.start_sweeping()
        yield
        service.lanes.stop_sweeping()
        service.watcher.stop()

    app = FastAPIOffline(title="AutoManager", description=ABOUT, lifespan=lifespan, responses=ERRORS)
    app.state.service = service
    app.mount("/static", StaticFiles(directory=str(Path(__file__).parent / "static")), name="static")
    answer_errors(app)
    for router in (lanes.router, manager.router, kitchen.router, kitchen.receipts, report.router, pages.router):
        app.include_router(router)
    # never framed, scripts and styles from the service's own files only (the API documentation's
    # inline start-up script by its hash)
    app.add_middleware(Policy, hashed=["/docs", "/redoc", app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"])
    return app
