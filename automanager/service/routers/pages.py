"""The pages: the start page, a lane's page and the manager's dashboard (autoescaped templates:
customer text is text, never HTML)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from .. import auth
from ..access import COOKIE, KITCHEN_COOKIE
from ..shared import Service, Shared

PAGES = Jinja2Templates(directory=str(Path(__file__).parent.parent / "templates"))
router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
def index(request: Request, service: Shared) -> HTMLResponse:
    return PAGES.TemplateResponse(request, "index.html", {"restaurant": service.manager.ready().restaurant,
                                                            "store": service.home.store})


@router.get("/lane", response_class=HTMLResponse)
def lane_page(request: Request, service: Shared) -> HTMLResponse:
    return PAGES.TemplateResponse(request, "lane.html", {"restaurant": service.manager.ready().restaurant,
                                                           "store": service.home.store, "voice": service.voice})


@router.get("/dashboard", response_model=None)
def dashboard(request: Request, service: Shared, token: str | None = None) -> HTMLResponse | RedirectResponse:
    """The manager's page. Opened once as /dashboard?token=<token>, it keeps the token in an
    HttpOnly cookie and drops it from the address bar."""
    return manager_page(request, service, token, "dashboard")


@router.get("/kitchen", response_model=None)
def kitchen(request: Request, service: Shared, token: str | None = None) -> HTMLResponse | RedirectResponse:
    """The kitchen display: open tickets, live; bump and recall. Opened once as
    /kitchen?token=<the kitchen's token or the manager's>, or from the dashboard's cookie."""
    staff = (service.kitchen_token, service.token)
    if token is not None:
        if not any(auth.same(token, secret) for secret in staff):
            return PAGES.TemplateResponse(request, "login.html", {"wrong": True, "page": "kitchen"}, status_code=401)
        response = RedirectResponse("/kitchen", status_code=303)
        response.set_cookie(KITCHEN_COOKIE, token, httponly=True, samesite="strict", secure=secure(request))
        return response
    held = request.cookies.get(KITCHEN_COOKIE)
    secret = next((s for s in staff if auth.same(held, s)), None)
    if secret is None and auth.same(request.cookies.get(COOKIE), service.token):
        secret = service.token  # the manager, from the dashboard
    if secret is None:
        return PAGES.TemplateResponse(request, "login.html", {"wrong": False, "page": "kitchen"}, status_code=401)
    return staff_page(request, service, "kitchen", secret)


def secure(request: Request) -> bool:
    """A staff cookie set over HTTPS goes back over HTTPS only (never to a plain http:// page of the same host)."""
    return request.url.scheme == "https"


def manager_page(request: Request, service: Service, token: str | None, name: str) -> HTMLResponse | RedirectResponse:
    """A page the manager's token opens: ?token=<token> once keeps it in an HttpOnly cookie and
    drops it from the address bar."""
    if token is not None:
        if not auth.same(token, service.token):
            return PAGES.TemplateResponse(request, "login.html", {"wrong": True, "page": name}, status_code=401)
        response = RedirectResponse(f"/{name}", status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=secure(request))
        return response
    if not auth.same(request.cookies.get(COOKIE), service.token):
        return PAGES.TemplateResponse(request, "login.html", {"wrong": False, "page": name}, status_code=401)
    return staff_page(request, service, name, service.token)


def staff_page(request: Request, service: Service, name: str, secret: str) -> HTMLResponse:
    """The page, with the page token its writes send back (made from the token that opened it)."""
    return PAGES.TemplateResponse(request, f"{name}.html", {"restaurant": service.manager.ready().restaurant,
                                                             "store": service.home.store,
                                                             "page_token": auth.page_token(secret)},
                                  headers={"Cache-Control": "no-store"})
