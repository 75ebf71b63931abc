"""The service's API under hostile callers (issue 28): every manager route refuses anything but the
manager token, every route answers bad input with a JSON error and a 4xx status (never a
traceback), a lane can never change stock, menu or aliases, and a turn sent twice is taken once.
In process (TestClient): no server is started."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from automanager.service.app import create_app
from automanager.service.auth import TOKEN_FILE, page_token
from automanager.service.errors import MAX_BODY
from automanager.star import MAX_INPUT
from automanager.store import Home

# (method, path, a body that would change something if the route let the caller in)
MANAGER_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/api/lanes", None),
    ("POST", "/api/manager/turns", {"text": "we're out of seasoned beef and the bean burrito now costs $0.01"}),
    ("POST", "/api/manager/answer", {"yes": True}),
    ("GET", "/api/stock", None),
    ("POST", "/api/stock", {"name": "Seasoned Beef", "out": True}),
    ("GET", "/api/pending", None),
    ("POST", "/api/save", None),
    ("GET", "/api/versions", None),
    ("GET", "/api/history", None),
    ("GET", "/api/unheard", None),
    ("GET", "/api/events", None),
]
BODY_ROUTES = [("/api/manager/turns", "text"), ("/api/manager/answer", "yes"), ("/api/stock", "name")]


class Site:
    """One service on a state dir: a staged price change waiting (so an unauthorized save would
    publish it) and two open lanes, A with a Bean Burrito ordered and B with nothing."""

    def __init__(self, root: Path):
        self.root = root
        self.client = TestClient(create_app(Home(root)), raise_server_exceptions=False)
        self.client.__enter__()
        self.token = (root / TOKEN_FILE).read_text().strip()
        self.manager = {"Authorization": f"Bearer {self.token}"}
        staged = self.ok("POST", "/api/manager/turns", self.manager, {"text": "the soft taco now costs $1.79"})
        assert staged["pending"], staged
        self.a, self.b = self.ok("POST", "/api/lanes"), self.ok("POST", "/api/lanes")
        self.ok("POST", self.turns(self.a), self.lane(self.a), {"text": "a bean burrito", "turn_id": "a1"})

    def ok(self, method: str, path: str, headers: dict[str, str] | None = None,
           body: dict[str, Any] | None = None) -> Any:
        answer = self.client.request(method, path, headers=headers, json=body)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    @staticmethod
    def lane(lane: dict[str, Any]) -> dict[str, str]:
        return {"Authorization": f"Bearer {lane['token']}"}

    @staticmethod
    def turns(lane: dict[str, Any]) -> str:
        return f"/api/lanes/{lane['lane']}/turns"

    def state(self) -> dict[str, Any]:
        """Everything no refused request may change: stock, menu versions and their files, the
        audit history, the pending changes, the lanes open and what each has heard and ordered."""
        home, service = Home(self.root), self.client.app.state.service  # type: ignore[attr-defined]
        menu = sorted(p.name for p in (self.root / "menu").glob("*")) if (self.root / "menu").exists() else []
        return {"stock": home.stock_list(), "version": home.latest_version(), "menu_files": menu,
                "history": home.history(1000), "pending": service.manager.staged(),
                "manager_turns": len(service.manager.history),
                "lanes": {lid: (lane.chat.session_id, len(lane.chat.history), lane.chat.board())
                          for lid, lane in service.lanes.open.items()}}

    def close(self) -> None:
        self.client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    made = Site(tmp_path_factory.mktemp("service"))
    yield made
    made.close()


@pytest.fixture
def unchanged(site: Site) -> Iterator[None]:
    """The test changes nothing of the site's state."""
    before = site.state()
    yield
    assert site.state() == before


def refused(answer: Any, status: int) -> dict[str, Any]:
    """A JSON error with this status that says something, and no traceback."""
    assert answer.status_code == status, answer.text
    assert "Traceback" not in answer.text and 'File "' not in answer.text
    body = answer.json()
    assert set(body) == {"error", "status"} and body["status"] == status and len(body["error"]) > 5, body
    return body


# -- who may call the manager's routes -------------------------------------------------------------
def credentials(site: Site) -> dict[str, dict[str, Any]]:
    return {"none": {}, "lane token": site.lane(site.a), "other lane token": site.lane(site.b),
            "wrong token": {"Authorization": "Bearer " + "x" * len(site.token)},
            "manager token, one letter off": {"Authorization": "Bearer " + site.token[:-1] + (
                "A" if site.token[-1] != "A" else "B")},
            "empty bearer": {"Authorization": "Bearer "}, "not a bearer": {"Authorization": site.token},
            "basic scheme": {"Authorization": f"Basic {site.token}"},
            "lane token as the cookie": {"Cookie": f"automanager_manager={site.a['token']}"},
            "token with junk bytes": {"Authorization": b"Bearer \xff\xfe\x01"}}


@pytest.mark.parametrize("method,path,body", MANAGER_ROUTES, ids=[f"{m} {p}" for m, p, _ in MANAGER_ROUTES])
def test_every_manager_route_refuses_anything_but_the_manager_token(site, unchanged, method, path, body):
    for who, headers in credentials(site).items():
        answer = site.client.request(method, path, headers=headers, json=body)
        assert refused(answer, 401)["error"].startswith("the manager token is needed"), who


def test_every_api_route_but_the_lanes_own_needs_the_manager_token(site):
    """No route a lane's token opens changes stock, menu or aliases: every route of the API document
    but the lanes' own (open, turn, view, close, left, events, speech) refuses a caller without the manager
    token, whatever it sends."""
    documented = {(method.upper(), path) for path, operations in site.client.app.openapi()["paths"].items()
                  for method in operations}
    lanes_own = {("POST", "/api/lanes"), ("POST", "/api/lanes/{lane_id}/turns"), ("GET", "/api/lanes/{lane_id}"),
                 ("DELETE", "/api/lanes/{lane_id}"), ("POST", "/api/lanes/{lane_id}/left"),
                 ("GET", "/api/lanes/{lane_id}/events"), ("POST", "/api/lanes/{lane_id}/speech"),
                 ("GET", "/api/lanes/{lane_id}/speech/{turn_id}.wav")}
    assert lanes_own | {(m, p) for m, p, _ in MANAGER_ROUTES} <= documented
    for method, path in sorted(documented - lanes_own):
        answer = site.client.request(method, path.replace("{lane_id}", "nosuchlane"), json={"text": "x"})
        assert refused(answer, 401)["error"].startswith("the manager token is needed"), (method, path)


def test_the_manager_token_opens_them(site):
    for method, path, _ in MANAGER_ROUTES:
        if path != "/api/events" and method == "GET":
            assert site.client.get(path, headers=site.manager).status_code == 200, path
    cookie = site.client.get("/api/pending", headers={"Cookie": f"automanager_manager={site.token}"})
    assert cookie.status_code == 200 and cookie.json()["pending"]


# -- cross-site request forgery (issue 37) ---------------------------------------------------------
WRITES = [(m, p, b) for m, p, b in MANAGER_ROUTES if m == "POST"] + [
    ("POST", "/api/unheard/teach", {"phrase": "lava crunch", "item": "Crunchy Taco"})]
OWN = "http://testserver"  # the TestClient's origin


def cookie(site: Site, **more: str) -> dict[str, str]:
    return {"Cookie": f"automanager_manager={site.token}", **more}


def test_the_dashboard_embeds_its_page_token(site):
    page = site.client.get("/dashboard", headers=cookie(site))
    assert page.status_code == 200 and f'content="{page_token(site.token)}"' in page.text
    assert page.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("method,path,body", WRITES, ids=[p for _m, p, _b in WRITES])
def test_a_cookie_write_from_no_or_another_origin_is_refused(site, unchanged, method, path, body):
    """The manager's cookie alone changes nothing: without the Origin (or Referer) of this service
    and the dashboard's page token, a write is refused with a 403 that says why."""
    token = {"X-CSRF-Token": page_token(site.token)}
    cases = {
        "no origin, no page token": ({}, "names no origin"),
        "no origin, the page token": (token, "names no origin"),
        "another port": ({"Origin": "http://testserver:8001"} | token, "another site"),
        "another host": ({"Origin": "http://127.0.0.1"} | token, "another site"),
        "another scheme": ({"Origin": "https://testserver"} | token, "another site"),
        "opaque origin": ({"Origin": "null"} | token, "another site"),
        "another site's referer": ({"Referer": "http://testserver:8001/evil.html"} | token, "another site"),
        "our referer but a foreign origin": ({"Origin": "http://evil.test", "Referer": OWN + "/dashboard"} | token,
                                             "another site"),
        "our origin, no page token": ({"Origin": OWN}, "page token"),
        "our origin, a wrong page token": ({"Origin": OWN, "X-CSRF-Token": page_token("other")}, "page token"),
        "our origin, the manager token as page token": ({"Origin": OWN, "X-CSRF-Token": site.token}, "page token"),
    }
    for who, (headers, why) in cases.items():
        answer = site.client.request(method, path, headers=cookie(site, **headers), json=body)
        assert why in refused(answer, 403)["error"], who


def test_a_cookie_write_from_the_dashboard_page_is_taken(site):
    for headers in ({"Origin": OWN}, {"Origin": OWN + ":80"}, {"Referer": OWN + "/dashboard"}):
        for out in (True, False):
            answer = site.client.post("/api/stock", json={"name": "Seasoned Beef", "out": out},
                                      headers=cookie(site, **headers, **{"X-CSRF-Token": page_token(site.token)}))
            assert answer.status_code == 200, answer.text
    assert Home(site.root).stock_list() == []


def test_bearer_clients_need_no_origin_nor_page_token(site):
    """API clients send the token as a header (no browser sends it for another site): no Origin,
    a foreign Origin or no page token changes nothing for them."""
    for headers in ({}, {"Origin": "http://elsewhere.test:9"}, {"Referer": "http://elsewhere.test/"}):
        for out in (True, False):
            answer = site.client.post("/api/stock", json={"name": "Seasoned Beef", "out": out},
                                      headers=site.manager | headers)
            assert answer.status_code == 200, answer.text
    assert Home(site.root).stock_list() == []


def test_the_api_is_documented(site):
    page = site.client.get("/docs")
    assert page.status_code == 200 and "swagger" in page.text.lower()
    spec = site.client.get("/openapi.json").json()
    assert {"/api/lanes", "/api/lanes/{lane_id}/turns", "/api/stock", "/api/save"} <= set(spec["paths"])


# -- framing and the pages' scripts (this week's attack: a page on another port framed the dashboard) --
def test_every_page_and_the_api_answer_that_no_other_site_may_frame_them(site):
    """Every answer says frame-ancestors 'none' and X-Frame-Options DENY, with a Content-Security-
    Policy that runs only the service's own scripts: the pages, the staff pages logged in or not,
    the API documentation, a receipt, static files, JSON answers and errors."""
    kitchen = (site.root / "kitchen-token").read_text().strip()
    lane = site.ok("POST", "/api/lanes")
    for text in ("a bean burrito", "that's all", "no", "no"):
        car = site.ok("POST", site.turns(lane), site.lane(lane), {"text": text})
    assert car["placed"], car
    answers = {
        "start page": site.client.get("/"), "lane page": site.client.get("/lane"),
        "dashboard, logged out": site.client.get("/dashboard"),
        "dashboard": site.client.get("/dashboard", headers=cookie(site)),
        "kitchen, logged out": site.client.get("/kitchen"),
        "kitchen": site.client.get("/kitchen", headers={"Cookie": f"automanager_kitchen={kitchen}"}),
        "login answer": site.client.get("/dashboard", params={"token": site.token}, follow_redirects=False),
        "docs": site.client.get("/docs"), "redoc": site.client.get("/redoc"),
        "receipt": site.client.get(car["placed"]["receipt"]),
        "receipt as text": site.client.get(car["placed"]["receipt"] + ".txt"),
        "a script": site.client.get("/static/lane.js"), "the style": site.client.get("/static/style.css"),
        "the API's description": site.client.get("/openapi.json"),
        "a lane's JSON": site.client.get(f"/api/lanes/{lane['lane']}", headers=site.lane(lane)),
        "the manager's JSON": site.client.get("/api/stock", headers=site.manager),
        "a chart": site.client.get("/api/report/hours.svg", headers=site.manager),
        "a 401": site.client.get("/api/stock"), "a 404": site.client.get("/nowhere"),
        "a 422": site.client.post("/api/lanes/x/turns", headers=site.lane(lane), json={}),
    }
    for what, answer in answers.items():
        assert answer.status_code < 500, (what, answer.status_code)
        assert answer.headers.get("x-frame-options") == "DENY", what
        policy = answer.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in policy, (what, policy)
        scripts = re.search(r"script-src ([^;]*)", policy) or re.search(r"default-src ([^;]*)", policy)
        assert scripts and "'unsafe-inline'" not in scripts.group(1) and "*" not in scripts.group(1), (what, policy)
    for what in ("start page", "lane page", "dashboard", "kitchen", "dashboard, logged out"):
        page = answers[what].text
        assert "<script>" not in page and "<style" not in page and " style=" not in page, what  # nothing inline


def test_the_documentation_and_the_receipt_inline_only_what_their_policy_names():
    """Swagger UI's start-up script and the receipt's style block are let through by their hash;
    nothing else inline would run."""
    import base64
    import hashlib

    from fastapi.openapi.docs import get_swagger_ui_html

    from automanager.receipt import STYLE
    from automanager.service import policy

    page = get_swagger_ui_html(openapi_url="/openapi.json", title="t", swagger_js_url="/a.js", swagger_css_url="/a.css")
    script = re.search(rb"<script>(.*?)</script>", page.body, re.S).group(1)
    expected = "'sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode() + "'"
    assert policy.documentation([policy.digest(script)]).count(expected) == 1
    assert f"style-src 'self' {policy.digest(STYLE)}" in policy.with_style(policy.digest(STYLE))


# -- opening a lane from another site's page (this week's attack: 20 blind POSTs opened 12 lanes) -----
def test_a_lane_is_opened_from_this_services_pages_and_by_clients_that_are_no_browser(tmp_path):
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        refusals = {
            "another port": {"Origin": "http://testserver:8001"},
            "another host": {"Origin": "http://127.0.0.1"},
            "an opaque origin (a sandboxed frame, a data: page)": {"Origin": "null"},
            "a blind no-cors POST from a sibling port": {"Origin": "http://testserver:9999", "Sec-Fetch-Site": "same-site",
                                                          "Sec-Fetch-Mode": "no-cors"},
            "another site, its Origin hidden": {"Sec-Fetch-Site": "cross-site"},
            "our origin said, another site fetched": {"Origin": OWN, "Sec-Fetch-Site": "cross-site"},
        }
        for who, headers in refusals.items():
            said = refused(client.post("/api/lanes", headers=headers | {"Content-Type": "text/plain"},
                                       content=b"{}"), 403)
            assert "another site" in said["error"] and "/lane" in said["error"], who
        service = client.app.state.service  # type: ignore[attr-defined]
        assert service.lanes.open == {}
        for who, headers in {"the lane page": {"Origin": OWN, "Sec-Fetch-Site": "same-origin"},
                             "the lane page, on an old browser": {"Origin": OWN + ":80"},
                             "a script or curl (no browser)": {}}.items():
            answer = client.post("/api/lanes", headers=headers)
            assert answer.status_code == 201, (who, answer.text)
        assert len(service.lanes.open) == 3


# -- hostile input -------------------------------------------------------------------------------
def lane_and_manager_bodies(site: Site) -> list[tuple[str, dict[str, str], str]]:
    """(path, headers, the field a line goes in) of every route that takes a body."""
    return [(site.turns(site.a), site.lane(site.a), "text")] + [(p, site.manager, f) for p, f in BODY_ROUTES]


def test_oversized_bodies_are_refused(site, unchanged):
    big = b'{"text": "' + b"a" * (MAX_BODY + 10) + b'"}'

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(big), 1000):
            yield big[start:start + 1000]

    for path, headers, _ in lane_and_manager_bodies(site):
        json_type = headers | {"Content-Type": "application/json"}
        refused(site.client.post(path, headers=json_type, content=big), 413)
        chunked = site.client.post(path, headers=json_type, content=chunks())  # no content-length: streamed
        assert "content-length" not in {k.lower() for k in chunked.request.headers}
        refused(chunked, 413)
        refused(site.client.post(path, headers=json_type | {"Content-Length": "-1"}, content=b"{}"), 400)
        refused(site.client.post(path, headers=json_type | {"Content-Length": "ten"}, content=b"{}"), 400)


def test_a_small_chunked_body_is_read(site):
    def chunks() -> Iterator[bytes]:
        yield b'{"text": "how much is '
        yield b'a bean burrito?"}'

    answer = site.client.post(site.turns(site.b), headers=site.lane(site.b) | {"Content-Type": "application/json"},
                              content=chunks())
    assert answer.status_code == 200 and "$" in answer.json()["reply"]


WRONG_TYPES: list[Any] = [5, None, ["a pepsi"], {"nested": "a pepsi"}, True, 1.5]


def test_wrong_types_and_shapes_are_refused(site, unchanged):
    for path, headers, field in lane_and_manager_bodies(site):
        good: dict[str, Any] = {"text": {"text": "a pepsi"}, "yes": {"yes": True},
                                "name": {"name": "Seasoned Beef", "out": True}}[field]
        wrong = [5, 1, 0, None, ["yes"], {"yes": True}, 1.5, "yes", "true"] if field == "yes" else WRONG_TYPES
        for value in wrong:  # strict: 1 and "true" are no booleans
            refused(site.client.post(path, headers=headers, json=good | {field: value}), 422)
        for body in ([good], "a pepsi", 5, None, {}, good | {"extra": 1}, {"Text": "a pepsi"}):
            refused(site.client.post(path, headers=headers, json=body), 422)
        refused(site.client.post(path, headers=headers | {"Content-Type": "application/json"},
                                 content=b'{"text": "a pep'), 422)  # invalid JSON
        refused(site.client.post(path, headers=headers | {"Content-Type": "application/json"},
                                 content=b'{"text": "a pepsi \xff\xfe"}'), 400)  # not UTF-8
        refused(site.client.post(path, headers=headers | {"Content-Type": "text/plain"},
                                 content=f'{{"{field}": "a pepsi"}}'.encode()), 422)
        refused(site.client.post(path, headers=headers | {"Content-Type": "application/x-www-form-urlencoded"},
                                 content=f"{field}=a+pepsi".encode()), 422)
        refused(site.client.post(path, headers=headers), 422)  # no body at all


def test_lines_empty_or_too_long_are_refused(site, unchanged):
    for path, headers in [(site.turns(site.a), site.lane(site.a)), ("/api/manager/turns", site.manager)]:
        for text in ("", "a" * (MAX_INPUT + 1), "a pepsi " * 300):
            refused(site.client.post(path, headers=headers, json={"text": text}), 422)
    refused(site.client.post("/api/stock", headers=site.manager, json={"name": "", "out": True}), 422)
    refused(site.client.post("/api/stock", headers=site.manager, json={"name": "b" * 201, "out": True}), 422)


def test_a_line_of_exactly_the_limit_is_taken(tmp_path):
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        lane = client.post("/api/lanes").json()
        answer = client.post(f"/api/lanes/{lane['lane']}/turns", headers={"Authorization": f"Bearer {lane['token']}"},
                             json={"text": ("a pepsi " * 300)[:MAX_INPUT]})
        assert answer.status_code == 200 and "Traceback" not in answer.text


def test_garbage_turn_ids_are_refused(site, unchanged):
    for turn_id in ("", "../../etc/passwd", "a b", "<script>", "x" * 65, "ünï", 5, ["a1"], {"id": "a1"}, True):
        refused(site.client.post(site.turns(site.a), headers=site.lane(site.a),
                                 json={"text": "a pepsi", "turn_id": turn_id}), 422)


def test_unknown_foreign_and_closed_lanes(site, unchanged, tmp_path):
    a, b = site.a, site.b
    for lane_id in ("nope", "0" * 12, "x" * 5000, "%00", "..", "<script>alert(1)</script>"):
        refused(site.client.post(f"/api/lanes/{lane_id}/turns", headers=site.lane(a), json={"text": "a pepsi"}), 404)
        refused(site.client.get(f"/api/lanes/{lane_id}", headers=site.lane(a)), 404)
        refused(site.client.delete(f"/api/lanes/{lane_id}", headers=site.lane(a)), 404)
    for method, path, body in [("POST", site.turns(b), {"text": "a pepsi"}), ("GET", f"/api/lanes/{b['lane']}", None),
                               ("DELETE", f"/api/lanes/{b['lane']}", None),
                               ("GET", f"/api/lanes/{b['lane']}/events", None)]:
        for headers in (site.lane(a), {}, {"Authorization": "Bearer nope"}, site.manager):
            refused(site.client.request(method, path, headers=headers, json=body), 403)  # not B's token
    refused(site.client.get(f"/api/lanes/{b['lane']}/events?token={a['token']}"), 403)
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:  # a closed lane
        lane = client.post("/api/lanes").json()
        mine = {"Authorization": f"Bearer {lane['token']}"}
        assert client.delete(f"/api/lanes/{lane['lane']}", headers=mine).status_code == 200
        refused(client.post(f"/api/lanes/{lane['lane']}/turns", headers=mine, json={"text": "a pepsi"}), 404)
        refused(client.get(f"/api/lanes/{lane['lane']}", headers=mine), 404)
        refused(client.delete(f"/api/lanes/{lane['lane']}", headers=mine), 404)


def test_query_parameters_out_of_range(site, unchanged):
    for limit in ("0", "-1", "1001", "99999999999999999999999999", "abc", "1.5", ""):
        refused(site.client.get(f"/api/history?limit={limit}", headers=site.manager), 422)
    for status in ("closed", "<script>", "", "open;drop table unheard"):
        refused(site.client.get(f"/api/unheard?status={status}", headers=site.manager), 422)


def test_unknown_routes_and_methods(site, unchanged):
    refused(site.client.get("/api/nothing"), 404)
    refused(site.client.put("/api/stock", headers=site.manager, json={"name": "Seasoned Beef", "out": True}), 405)
    refused(site.client.patch(site.turns(site.a), headers=site.lane(site.a), json={"text": "a pepsi"}), 405)


def test_unicode_control_characters_and_markup_are_text(tmp_path):
    """Taken as a line (control characters dropped), echoed as JSON text, never as a traceback;
    the stock and menu stay as they were."""
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        lane = client.post("/api/lanes").json()
        mine, path = {"Authorization": f"Bearer {lane['token']}"}, f"/api/lanes/{lane['lane']}/turns"
        for text in ("a pepsi\x00\x1b[31m\u202e<script>alert(1)</script> 😀", "<img src=x onerror=alert(1)>",
                     "\u200b\ufeff a bean burrito \u0301\u0000", "'; DROP TABLE stock_out; --", "％ｐｅｐｓｉ",
                     "\t\n\r\x7f\x85\u2028"):
            answer = client.post(path, headers=mine, json={"text": text})
            assert answer.status_code == 200 and "Traceback" not in answer.text, answer.text
            assert not any(ch in answer.json()["text"] for ch in "\x00\x1b\u202e\x7f")
        lone = client.post(path, headers=mine | {"Content-Type": "application/json"},
                           content=b'{"text": "a pepsi \\ud800"}')  # a lone surrogate
        refused(lone, 422)
        home = Home(tmp_path)
        assert home.stock_list() == [] and home.latest_version() == 0 and home.history() == []


# -- a lane changes nothing but its own order ----------------------------------------------------------
MANAGER_LINES = ["we're out of seasoned beef", "the bean burrito now costs $0.01", "save",
                 "add a new dish called the Free Lunch for $0.00", "yes", "remove the crunchy taco from the menu",
                 "call the soft taco 'freebie'", "commit", "seasoned beef is back", "/save", "push it live"]


def test_a_lane_can_never_change_stock_menu_or_aliases(tmp_path):
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        home = Home(tmp_path)
        lane = client.post("/api/lanes").json()
        mine, path = {"Authorization": f"Bearer {lane['token']}"}, f"/api/lanes/{lane['lane']}/turns"
        for text in MANAGER_LINES:
            assert client.post(path, headers=mine, json={"text": text}).status_code == 200
        for method, route, body in MANAGER_ROUTES:
            refused(client.request(method, route, headers=mine, json=body), 401)
        assert home.stock_list() == [] and home.latest_version() == 0 and home.history() == []
        assert not (tmp_path / "menu").exists() or not any((tmp_path / "menu").iterdir())
        other = client.post("/api/lanes").json()
        theirs = {"Authorization": f"Bearer {other['token']}"}
        board = client.post(f"/api/lanes/{other['lane']}/turns", headers=theirs,
                            json={"text": "a bean burrito and a beef burrito and a freebie"}).json()
        assert {line["item"] for line in board["lines"]} >= {"Bean Burrito", "Beef Burrito"}
        assert not any(line["item"] == "Free Lunch" for line in board["lines"])
        assert all(line["unit_price"] > 1 for line in board["lines"])  # no $0.01 burrito


# -- a turn sent again is taken once -------------------------------------------------------------------
def test_the_same_turn_id_is_answered_never_taken_twice(tmp_path):
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        lane = client.post("/api/lanes").json()
        mine, path = {"Authorization": f"Bearer {lane['token']}"}, f"/api/lanes/{lane['lane']}/turns"
        first = client.post(path, headers=mine, json={"text": "a bean burrito", "turn_id": "t-1"}).json()
        again = client.post(path, headers=mine, json={"text": "a bean burrito", "turn_id": "t-1"}).json()
        assert first["repeated"] is False and again["repeated"] is True
        assert again["reply"] == first["reply"] and again["lines"] == first["lines"]
        assert [(line["item"], line["quantity"]) for line in again["lines"]] == [("Bean Burrito", 1)]
        client.post(path, headers=mine, json={"text": "a pepsi", "turn_id": "t-2"})
        late = client.post(path, headers=mine, json={"text": "a bean burrito", "turn_id": "t-1"}).json()
        assert late["repeated"] is True  # still known after another turn; the board is the order now
        assert sorted((line["item"], line["quantity"]) for line in late["lines"]) == [("Bean Burrito", 1),
                                                                                      ("Pepsi®", 1)]
        turns = client.get(f"/api/lanes/{lane['lane']}", headers=mine).json()["turns"]
        assert [t["user"] for t in turns] == ["a bean burrito", "a pepsi"]
        other = client.post("/api/lanes").json()  # another lane's turn ids are its own
        theirs = client.post(f"/api/lanes/{other['lane']}/turns", headers={"Authorization": f"Bearer {other['token']}"},
                             json={"text": "a bean burrito", "turn_id": "t-1"}).json()
        assert theirs["repeated"] is False


def test_a_full_service_closes_idle_lanes_to_open_another(tmp_path, monkeypatch):
    """Tabs closed without closing their lanes must not lock the next lane out; a lane in use is
    never closed for another."""
    from automanager.service import lanes

    monkeypatch.setattr(lanes, "MAX_LANES", 2)
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        first, second = client.post("/api/lanes").json(), client.post("/api/lanes").json()
        refused = client.post("/api/lanes")
        assert refused.status_code == 429 and "close one first" in refused.json()["error"]
        service = client.app.state.service  # type: ignore[attr-defined]
        service.lanes.open[first["lane"]].heard -= service.lanes.idle  # its tab was closed long ago
        third = client.post("/api/lanes")
        assert third.status_code == 201, third.text
        gone = client.get(f"/api/lanes/{first['lane']}", headers={"Authorization": f"Bearer {first['token']}"})
        assert gone.status_code == 404
        kept = client.get(f"/api/lanes/{second['lane']}", headers={"Authorization": f"Bearer {second['token']}"})
        assert kept.status_code == 200


@pytest.mark.parametrize("food", ["Tomatoes", "Seasoned Beef", "Nacho Cheese Sauce"])
def test_a_runout_is_counted_alike_in_the_chat_and_on_the_stock_board(tmp_path, food):
    """The administrator says how many dishes a runout takes off; the stock board lists what it
    takes off with the same number of dishes (and the combos beside them), and words it 'out'."""
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        token = (tmp_path / TOKEN_FILE).read_text().strip()
        manager = {"Authorization": f"Bearer {token}"}
        turn = client.post("/api/stock", headers=manager, json={"name": food, "out": True}).json()
        if turn["asking"]:  # a large runout is read back first
            turn = client.post("/api/manager/answer", headers=manager, json={"yes": True}).json()
        said = re.search(r"takes (\d+) dishes off", turn["reply"])
        assert f"Marked {food} out" in turn["reply"] and "running short" not in turn["reply"], turn["reply"]
        row = next(row for row in client.get("/api/stock", headers=manager).json()["out"] if row["name"] == food)
        assert row["dishes_off"] == (int(said.group(1)) if said else 0), (turn["reply"], row)
        assert row["dishes_off"] > 0 and len(row["takes_off"]) >= row["dishes_off"]
        assert row["category"] in ("ingredient", "sauce")


def test_the_audit_history_says_each_change_in_words_and_dollars(tmp_path):
    """A price change and a store rule come back from /api/history (and /api/versions) as a manager
    reads them, never as cents or a rule's fact."""
    with TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False) as client:
        manager = {"Authorization": f"Bearer {(tmp_path / TOKEN_FILE).read_text().strip()}"}
        for line in ("the bean burrito now costs $1.59", "no more than 5 items per order", "yes", "save"):
            client.post("/api/manager/turns", headers=manager, json={"text": line})
        said = [row["said"] for row in client.get("/api/history", headers=manager).json()]
        assert "edit Bean Burrito: price $1.39 -> $1.59" in said, said
        assert any(text.startswith("rule: ") and "5" in text and "limit(" not in text for text in said), said
        versions = client.get("/api/versions", headers=manager).json()["versions"]
        assert {change["said"] for change in versions[0]["changes"]} == set(said)
