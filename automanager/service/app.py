"""The HTTP service: lanes (a customer chat each), the manager's chat, stock board, pending changes,
menu versions, audit history and what customers said that no bot understood, with a live event
stream and two pages. Every route answers JSON; every error is JSON with a status code and says
what to do; nothing a lane may call changes the stock, the menu or the aliases.

Turns run in FastAPI's worker threads (clingo holds the GIL while it grounds and solves: one turn
at a time decides, and lanes interleave between turns); the event loop only streams events."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs

import clingo
from fastapi import Depends, FastAPI, Header, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import paths
from ..language.manager_templates import describe
from ..llm.openai_backend import LLMConfig
from ..menu.model import Menu
from ..normalize import normalize
from ..reasoner import Const, ReasonerError, TurnReasoner
from ..star import MAX_INPUT, MAX_PHRASE, ManagerChat, said_as_phrase
from ..store import Home, StateError, StateUnavailable
from ..vocab import Pred
from . import auth
from .events import Event, Events, Watcher
from .lanes import LaneError, Lanes

LOG = logging.getLogger(__name__)
HERE = Path(__file__).parent
STORE_PATIENCE = 5.0  # seconds a lane's turn waits for a busy or lost store before a 503 (a car cannot wait 30)
RETRY_AFTER = 2  # seconds a client is told to wait while the store cannot be used (a lock, a full disk)
MAX_BODY = 16_384  # bytes of a request body: a line is at most MAX_INPUT characters
BODY_SECONDS = 10.0  # a request body not all here by then is refused (408): a slow or short body holds nothing
COOKIE = "automanager_manager"
STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
CSRF_HEADER = "x-csrf-token"  # the dashboard's page token, sent with each of its writes
PAGES = Jinja2Templates(directory=str(HERE / "templates"))  # autoescaped: customer text is text, never HTML


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Line(Body):
    text: str = Field(min_length=1, max_length=MAX_INPUT, description="What the customer or manager said.")
    turn_id: str | None = Field(None, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                description="Sent again with the same id, a turn is answered, never taken twice.")


class StockChange(Body):
    name: str = Field(min_length=1, max_length=200, description="An ingredient, sauce, dish or combo of the menu.")
    out: bool = Field(description="true: ran out; false: back in stock.")


class Teach(Body):
    phrase: str = Field(min_length=1, max_length=MAX_PHRASE, description="A phrase customers said (GET /api/unheard).")
    item: str | None = Field(None, min_length=1, max_length=200,
                             description="The menu item it means; null: we don't sell that.")


class Answer(Body):
    yes: bool = Field(description="The answer to the administrator's open question.")


class Service:
    """What every request shares: the store, the lanes, the manager's chat and the events."""

    def __init__(self, home: Home, llm: LLMConfig | None = None):
        self.home, self.llm = home, llm
        self.token = auth.manager_token(home.root)
        self.events = Events()
        self.lanes = Lanes(home, llm, self.events.publish)
        self.manager_lock = threading.Lock()
        self.manager = ManagerChat(home, llm=llm)
        self.watcher = Watcher(home, self.events, self.dishes_out)

    def dishes_out(self, stock: list[str]) -> dict[str, list[str]]:
        """For each food out, the menu items it takes off (crs.lp decides, as for customers)."""
        menu = self.manager.menu
        reasoner = TurnReasoner.shared(menu.files, [paths.data_dir("crs") / "crs.lp", HERE / "board.lp"],
                                       self.home.root / "cache")
        atoms = reasoner.solve([clingo.Function("runout", [clingo.String(food)]) for food in stock])
        off: dict[str, list[str]] = {food: [] for food in stock}
        for food, item in sorted(atoms.get("takes_off", [])):
            off[food].append(item)
        return off

    def manager_turn(self, text: str, said: list[Pred] | None = None) -> dict[str, Any]:
        with self.manager_lock:
            before = self.manager.menu_version
            turn = self.manager.turn(text, said)
            answer = {"text": turn.text, "reply": turn.reply, "pending": turn.pending,
                      "asking": bool(turn.actions.get("ask")), "menu_version": self.manager.menu_version}
            if answer["menu_version"] != before:
                self.mark_taught(answer["menu_version"])
        self.events.publish("manager", **answer)
        return answer

    def mark_taught(self, version: int) -> None:
        """The phrases customers said that a published version now has as aliases are taught."""
        facts = Menu.load(self.home.menu_files(version), self.home.root / "cache").facts
        aliases = {said for said, _item in facts.get("alias", [])}
        for row in self.home.unheard("open"):
            if normalize(row["phrase"]) in aliases:
                self.home.mark_unheard(row["phrase"], "taught")

    def teach(self, phrase: str, item: str) -> dict[str, Any]:
        """Teach a phrase customers said as an alias of a menu item, as if said in the manager's
        chat: the administrator refuses it (a LaneError, 409, saying why) or reads it back; a yes
        (POST /api/manager/answer) stages it, and the manager's save publishes it. Nothing else
        pending is touched; the phrase is marked taught when a published version has it."""
        with self.manager_lock:
            named = self.manager.names.spelled(item, "item")
            if named is None or named.name not in self.manager.menu.items:  # (waits for a menu a save is loading)
                raise LaneError(404, f"'{item}' is not an item on the menu")
        answer = self.manager_turn(f'"{phrase}" means {named.name}', [Pred("add", (named.name, Const("alias"), phrase))])
        if not answer["asking"]:
            raise LaneError(409, answer["reply"])
        return {**answer, "status": "asking"}


def bearer(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The token of an 'Authorization: Bearer <token>' header."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


Token = Annotated[str | None, Depends(bearer)]


def manager_only(request: Request, token: Token) -> None:
    """The manager's token, as a header or as the dashboard's cookie; nothing else opens these routes.
    A write with the cookie must come from the dashboard itself (a browser sends the cookie to
    requests any page makes, even one on another port of this host)."""
    expected = request.app.state.service.token
    if auth.same(token, expected):
        return
    if not auth.same(request.cookies.get(COOKIE), expected):
        raise HTTPException(401, "the manager token is needed: 'Authorization: Bearer <token>' with the token "
                                 "in the state dir's manager-token file")
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        headers = request.headers
        why = auth.forged(headers.get("origin"), headers.get("referer"), headers.get(CSRF_HEADER),
                          f"{request.url.scheme}://{request.url.netloc}", expected)
        if why is not None:
            raise HTTPException(403, why)


Manager = Depends(manager_only)


def create_app(home: Home, llm: LLMConfig | None = None) -> FastAPI:
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

    app = FastAPI(title="AutoManager", lifespan=lifespan,
                  description="Drive-through lanes and the manager's dashboard over one menu knowledge base. "
                              "Lane routes take the lane's token (from POST /api/lanes); manager routes take the "
                              "manager token (the file `manager-token` in the state dir), each as "
                              "'Authorization: Bearer <token>'.")
    app.state.service = service
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Callable[[Request], Any]) -> Any:
        """Bodies are read here, at most MAX_BODY bytes within BODY_SECONDS (uvicorn has no body
        read timeout: a body shorter than its Content-Length would hold the connection for good)."""
        size = request.headers.get("content-length")
        if size is not None and not size.isdigit():
            return error(400, "the Content-Length header is not a number of bytes")
        if size is not None and int(size) > MAX_BODY:
            return error(413, f"the request body is over {MAX_BODY:,} bytes; a line is at most {MAX_INPUT:,} characters")
        if (size not in (None, "0") or request.headers.get("transfer-encoding")) and request.method != "GET":
            try:
                body = await asyncio.wait_for(read_body(request), BODY_SECONDS)
            except TimeoutError:
                return error(408, f"the request body did not all arrive within {BODY_SECONDS:g} seconds (is its "
                                  "Content-Length right?); send it again")
            if body is None:
                return error(413, f"the request body is over {MAX_BODY:,} bytes")
            request._body = body  # read once: the route reads it from here
        return await call_next(request)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [f"{'.'.join(str(p) for p in e['loc'] if p != 'body') or 'body'}: {e['msg']}" for e in exc.errors()]
        return error(422, "; ".join(problems[:5]))

    @app.exception_handler(LaneError)
    async def lane_error(_request: Request, exc: LaneError) -> JSONResponse:
        return error(exc.status, str(exc))

    @app.exception_handler(StateError)
    async def state_error(_request: Request, exc: StateError) -> JSONResponse:
        # unavailable: nothing was changed, and the same request works once the store is back
        return error(503, str(exc), RETRY_AFTER if isinstance(exc, StateUnavailable) else None)

    @app.exception_handler(ReasonerError)
    async def reasoner_error(_request: Request, exc: ReasonerError) -> JSONResponse:
        return error(503, f"the menu cannot be reasoned over: {exc}")

    @app.exception_handler(Exception)
    async def internal(_request: Request, exc: Exception) -> JSONResponse:
        LOG.exception("internal error")
        return error(500, f"internal error ({type(exc).__name__}); nothing of this request was changed "
                          "unless its reply says so; see the service's log")

    # -- lanes -------------------------------------------------------------------------------
    @app.post("/api/lanes", status_code=201, tags=["lanes"])
    def open_lane(request: Request) -> dict[str, Any]:
        """Open a lane: its id and token (keep it: every lane route needs it) and its greeting. One
        address may hold 16 lanes and open 16 a minute ($AUTOMANAGER_LANES_PER_CLIENT; 429 beyond,
        saying what to do)."""
        lane, token = service.lanes.start(request.client.host if request.client else "")
        return {"token": token, "store": home.store, **service.lanes.view(lane)}

    @app.post("/api/lanes/{lane_id}/turns", tags=["lanes"])
    def lane_turn(lane_id: str, line: Line, token: Token) -> dict[str, Any]:
        """A customer line: the reply, and the order board after it (lines and total in cents)."""
        return service.lanes.turn(service.lanes.get(lane_id, token), line.text, line.turn_id)

    @app.get("/api/lanes/{lane_id}", tags=["lanes"])
    def lane_view(lane_id: str, token: Token) -> dict[str, Any]:
        """The lane's car now: the conversation and the order board."""
        return service.lanes.view(service.lanes.get(lane_id, token))

    @app.delete("/api/lanes/{lane_id}", tags=["lanes"])
    def close_lane(lane_id: str, token: Token) -> dict[str, Any]:
        """Close the lane (its sessions stay saved)."""
        lane = service.lanes.get(lane_id, token)
        service.lanes.close(lane)
        return {"lane": lane.id, "closed": True}

    @app.post("/api/lanes/{lane_id}/left", status_code=202, tags=["lanes"])
    async def lane_left(lane_id: str, request: Request) -> dict[str, Any]:
        """The lane page went away (navigator.sendBeacon on page hide, the lane's token as the form
        field `token`): the lane closes in a few seconds unless its page comes back (a reload)."""
        token = parse_qs((await request.body()).decode("utf-8", "replace")).get("token", [None])[0]
        service.lanes.left(service.lanes.get(lane_id, token))
        return {"lane": lane_id, "closing": True}

    @app.get("/api/lanes/{lane_id}/events", tags=["lanes"])
    async def lane_events(lane_id: str, header: Token, token: str | None = None) -> StreamingResponse:
        """The lane's live events (server-sent): its order, runouts and restocks, menu versions. A
        browser's EventSource sends no header: the token may come as ?token=."""
        lane = service.lanes.get(lane_id, header or token)

        def wants(event: Event) -> bool:
            return event["kind"] in ("stock", "menu") or event.get("lane") == lane.id

        return StreamingResponse(service.lanes.watch(lane, service.events.stream(wants, [])),
                                 media_type="text/event-stream", headers=STREAM_HEADERS)

    # -- the manager -------------------------------------------------------------------------
    @app.get("/api/lanes", tags=["manager"], dependencies=[Manager])
    def all_lanes() -> list[dict[str, Any]]:
        """Every open lane with its car's conversation and order."""
        return [service.lanes.view(lane) for lane in list(service.lanes.open.values())]

    @app.delete("/api/manager/lanes/{lane_id}", tags=["manager"], dependencies=[Manager])
    def manager_close_lane(lane_id: str) -> dict[str, Any]:
        """Close any open lane (its sessions stay saved; a page still showing it opens a new one)."""
        lane = service.lanes.find(lane_id)
        service.lanes.close(lane)
        return {"lane": lane.id, "closed": True}

    @app.post("/api/manager/turns", tags=["manager"], dependencies=[Manager])
    def manager_turn(line: Line) -> dict[str, Any]:
        """A line to the administrator bot: stock, menu changes, questions; 'save' applies pending changes."""
        return service.manager_turn(line.text)

    @app.post("/api/manager/answer", tags=["manager"], dependencies=[Manager])
    def manager_answer(answer: Answer) -> dict[str, Any]:
        """Yes or no to the administrator's open question (a read-back before a large change)."""
        return service.manager_turn("yes" if answer.yes else "no", [Pred("accept" if answer.yes else "decline")])

    @app.get("/api/stock", tags=["manager"], dependencies=[Manager])
    def stock() -> dict[str, Any]:
        """What is out, since when, and the menu items each takes off; every food that can run out,
        and the menu items (what a phrase can be taught as)."""
        listed = home.stock_list()
        off = service.dishes_out([name for name, _ in listed])
        return {"store": home.store,
                "out": [{"name": name, "since": since, "takes_off": off[name]} for name, since in listed],
                "foods": sorted(service.manager.menu.toppings | service.manager.menu.items),
                "items": sorted(service.manager.menu.items)}

    @app.post("/api/stock", tags=["manager"], dependencies=[Manager])
    def change_stock(change: StockChange) -> dict[str, Any]:
        """Mark a food out or back, as the administrator bot decides (a large runout is read back first)."""
        said = f"{change.name} is {'out' if change.out else 'back'}"
        return service.manager_turn(said, [Pred("runout" if change.out else "restore", (change.name,))])

    @app.get("/api/pending", tags=["manager"], dependencies=[Manager])
    def pending() -> dict[str, Any]:
        """The manager's staged menu changes, not applied yet."""
        with service.manager_lock:
            return {"pending": [describe(*row) for row in service.manager.staged()]}

    @app.post("/api/save", tags=["manager"], dependencies=[Manager])
    def save() -> dict[str, Any]:
        """Apply the pending changes as the next menu version."""
        return service.manager_turn("save", [Pred("save")])

    @app.get("/api/versions", tags=["manager"], dependencies=[Manager])
    def versions() -> dict[str, Any]:
        """The newest menu version and the changes each version applied."""
        history = home.history(500)
        applied: dict[int, list[dict[str, Any]]] = {}
        for row in history:
            if row["version"] is not None:
                applied.setdefault(row["version"], []).append(row)
        return {"latest": home.latest_version(),
                "versions": [{"version": v, "changes": rows} for v, rows in sorted(applied.items(), reverse=True)]}

    @app.get("/api/history", tags=["manager"], dependencies=[Manager])
    def history(limit: int = 50) -> list[dict[str, Any]]:
        """The newest applied changes first: stock and menu, with old and new values."""
        if not 1 <= limit <= 1000:
            raise HTTPException(422, "limit: from 1 to 1000")
        return home.history(limit)

    @app.get("/api/unheard", tags=["manager"], dependencies=[Manager])
    def unheard(status: str = "open") -> list[dict[str, Any]]:
        """What customers said that no name or act of the menu fits, most often first."""
        if status not in ("open", "taught", "not_sold"):
            raise HTTPException(422, "status: open, taught or not_sold")
        return home.unheard(status)

    @app.post("/api/unheard/teach", tags=["manager"], dependencies=[Manager])
    def teach(body: Teach) -> dict[str, Any]:
        """A phrase customers said that no bot understood: with item, read back as another name of
        that menu item (answer yes at /api/manager/answer to stage it, then save to publish it);
        without, marked as something we don't sell."""
        phrase = said_as_phrase(body.phrase)
        if home.heard(phrase) is None:
            raise HTTPException(404, f"no customer said '{phrase}' (GET /api/unheard lists what they said)")
        if body.item is not None:
            return service.teach(phrase, body.item)
        home.mark_unheard(phrase, "not_sold")
        return {"reply": f"Noted: we don't sell '{phrase}'.", "menu_version": home.latest_version(),
                "status": "not_sold"}

    @app.get("/api/events", tags=["manager"], dependencies=[Manager])
    async def events() -> StreamingResponse:
        """Every event, live (server-sent): stock, menu, lane, lane_closed, manager."""
        return stream(lambda _event: True, [])

    def stream(wants: Callable[[Event], bool], first: list[Event]) -> StreamingResponse:
        return StreamingResponse(service.events.stream(wants, first), media_type="text/event-stream",
                                 headers=STREAM_HEADERS)

    # -- pages ---------------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        return PAGES.TemplateResponse(request, "index.html", {"restaurant": service.manager.menu.restaurant,
                                                                "store": home.store})

    @app.get("/lane", response_class=HTMLResponse, include_in_schema=False)
    def lane_page(request: Request) -> HTMLResponse:
        return PAGES.TemplateResponse(request, "lane.html", {"restaurant": service.manager.menu.restaurant,
                                                               "store": home.store})

    @app.get("/dashboard", include_in_schema=False, response_model=None)
    def dashboard(request: Request, token: str | None = None) -> HTMLResponse | RedirectResponse:
        """The manager's page. Opened once as /dashboard?token=<token>, it keeps the token in an
        HttpOnly cookie and drops it from the address bar."""
        if token is not None:
            if not auth.same(token, service.token):
                return PAGES.TemplateResponse(request, "login.html", {"wrong": True}, status_code=401)
            response = RedirectResponse("/dashboard", status_code=303)
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
            return response
        if not auth.same(request.cookies.get(COOKIE), service.token):
            return PAGES.TemplateResponse(request, "login.html", {"wrong": False}, status_code=401)
        return PAGES.TemplateResponse(request, "dashboard.html", {"restaurant": service.manager.menu.restaurant,
                                                                    "store": home.store,
                                                                    "page_token": auth.page_token(service.token)},
                                      headers={"Cache-Control": "no-store"})

    return app


async def read_body(request: Request) -> bytes | None:
    """The whole body, or None when it is over MAX_BODY bytes."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return body


def error(status: int, message: str, retry_after: int | None = None) -> JSONResponse:
    """A JSON error; `retry_after`: seconds after which the same request may work (a Retry-After header)."""
    if retry_after is None:
        return JSONResponse({"error": message, "status": status}, status_code=status)
    return JSONResponse({"error": message, "status": status, "retry_after": retry_after}, status_code=status,
                        headers={"Retry-After": str(retry_after)})
