"""Who may call a route, as FastAPI dependencies: a lane's token for its lane, the kitchen's token or
the manager's for the kitchen display, the manager's token (a header, or the dashboard's cookie with
the page's own origin and page token) for the rest; a lane is opened from no other site's page."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request

from . import auth

COOKIE = "automanager_manager"
KITCHEN_COOKIE = "automanager_kitchen"  # the kitchen display's: the kitchen's token (or the manager's)
CSRF_HEADER = "x-csrf-token"  # the dashboard's page token, sent with each of its writes


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
    from_own_page(request, expected)


def from_own_page(request: Request, secret: str) -> None:
    """A write a page's cookie authenticates must come from that page: its origin and page token."""
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        headers = request.headers
        why = auth.forged(headers.get("origin"), headers.get("referer"), headers.get(CSRF_HEADER),
                          f"{request.url.scheme}://{request.url.netloc}", secret)
        if why is not None:
            raise HTTPException(403, why)


ManagerOnly = Depends(manager_only)


def kitchen_staff(request: Request, token: Token) -> None:
    """The kitchen's token or the manager's, as a header or as a staff page's cookie (a write with
    the cookie checked as the dashboard's are)."""
    service = request.app.state.service
    if auth.same(token, service.kitchen_token):
        return
    cookie = request.cookies.get(KITCHEN_COOKIE)
    secret = next((s for s in (service.kitchen_token, service.token) if auth.same(cookie, s)), None)
    if secret is None:
        return manager_only(request, token)  # the manager's header or dashboard cookie, or a 401 saying what
    return from_own_page(request, secret)


KitchenStaff = Depends(kitchen_staff)


def from_own_site(request: Request) -> None:
    """A request a browser sends only from this service's own pages (opening a lane): another
    site's page, even a blind no-cors POST, is refused, saying why. A browser names where a
    request comes from (Sec-Fetch-Site, Origin); a client that is no browser (curl, a script)
    names nothing and is served."""
    headers = request.headers
    own = f"{request.url.scheme}://{request.url.netloc}"
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in ("same-origin", "none"):
        raise HTTPException(403, f"this request came from another site's page (Sec-Fetch-Site: {site.strip()[:20]}): "
                                 f"a lane is opened from this service's own lane page, {own}/lane")
    origin = headers.get("origin")
    if origin is not None and (auth.origin_of(origin) is None or auth.origin_of(origin) != auth.origin_of(own)):
        raise HTTPException(403, f"this request came from another site's page ({origin.strip()[:100]!r}, this "
                                 f"service is {own}): a lane is opened from this service's own lane page, {own}/lane")


FromOwnSite = Depends(from_own_site)
