"""The service's pages in a real browser (Playwright driving Debian's Chromium, headless): an order
on the lane page from greeting to total, a runout clicked on the dashboard reaching an open lane
page live, the manager token guarding the dashboard and the API, hostile customer text shown as
text, a phrase taught from the dashboard then understood on a lane, a page of another origin
that can neither write with the manager's cookie, frame the dashboard nor open lanes, and the voice
lane: its page on a lane screen's sizes, and an order spoken into Chromium's fake microphone, over
http://127.0.0.1 and over HTTPS as a kiosk trusting the certificate by its key. Every page runs
under the service's Content-Security-Policy: what it refuses is a page error.

No browser is downloaded: without a `chromium` on the PATH (or /usr/bin/chromium) the module is
skipped, saying so. One `automanager serve` runs for the module, on a free port and a fresh state
dir (and one over HTTPS for the kiosk's test). With AUTOMANAGER_SCREENSHOTS=<folder> the runout test saves lane.png and dashboard.png there
(the README's docs/screenshots)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import wave
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from processes import ServeProcess

from automanager import voice
from automanager.service import lanes, tls

pytestmark = pytest.mark.slow  # drives Chromium against a served store

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
if CHROMIUM is None:
    pytest.skip("no Chromium: browser tests skipped (install Debian's chromium; .ci/run does when run as root)",
                allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: browser tests skipped")
expect = sync_api.expect

REPO = Path(__file__).resolve().parents[1]
WAIT = 10_000  # ms: expect()'s patience for what the page shows (a slow, shared machine)
TURN = 30_000  # ms: a turn's reply (parsing and solving; the first turn of a process loads more)
HOSTILE = ['<script>window.pwned=1</script>', '<img src=x onerror="window.pwned=1">']

expect.set_options(timeout=WAIT)


@dataclass
class Served:
    base: str
    token: str
    state: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`automanager serve` in its own process, with no OpenAI or AutoManager setting of ours."""
    state = tmp_path_factory.mktemp("served")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env[lanes.PER_CLIENT_SETTING] = str(lanes.MAX_LANES)  # every page of the module opens its lanes from one address
    log = (state / "serve.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "automanager", "serve", "--port", str(port),
                                "--state-dir", str(state / "home")], stdout=log, stderr=subprocess.STDOUT,
                               env=env, cwd=REPO)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                pytest.fail(f"automanager serve exited ({process.returncode}): {(state / 'serve.log').read_text()}")
            try:
                with urllib.request.urlopen(base + "/", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"automanager serve did not answer in 120 s: {(state / 'serve.log').read_text()}")
            time.sleep(0.3)
        token = (state / "home" / "manager-token").read_text(encoding="utf-8").strip()
        yield Served(base, token, state / "home")
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[sync_api.Browser]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def contexts(browser: sync_api.Browser, service: Served) -> Iterator[list[sync_api.BrowserContext]]:
    """Browser contexts (separate cookie jars and session storage), closed after the test."""
    made: list[sync_api.BrowserContext] = []
    yield made
    for context in made:
        context.close()


def new_page(browser: sync_api.Browser, contexts: list[sync_api.BrowserContext], service: Served,
             width: int = 1280, height: int = 860) -> sync_api.Page:
    context = browser.new_context(base_url=service.base, viewport={"width": width, "height": height})
    contexts.append(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda message: errors.append(message.text) if refused_by_policy(message) else None)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def refused_by_policy(message: sync_api.ConsoleMessage) -> bool:
    """A script, style, image or call of the page that its Content-Security-Policy refused: a page
    error as much as an exception is (every page runs with the service's policy)."""
    return message.type == "error" and "Content Security Policy" in message.text


def open_lane(page: sync_api.Page) -> None:
    page.goto("/lane")
    expect(page.locator("#conversation li.bot").first).to_contain_text("Welcome", timeout=45_000)  # serve warms its models at start
    expect(page.locator("#live")).to_have_text("live")


def say(page: sync_api.Page, text: str) -> None:
    """Type a line, press Enter, and wait for its reply."""
    page.locator("#line").fill(text)
    page.locator("#line").press("Enter")
    expect(page.locator("#conversation li.waiting")).to_have_count(0, timeout=TURN)
    expect(page.locator("#error")).to_be_hidden()


def open_dashboard(page: sync_api.Page, service: Served) -> None:
    page.goto(f"/dashboard?token={service.token}")
    expect(page).to_have_url(re.compile(r"/dashboard$"))  # the token left the address bar for a cookie
    expect(page.locator("#live")).to_have_text("live")
    expect(page.locator("#foods li").first).to_be_visible()


def mark(dashboard: sync_api.Page, food: str, out: bool) -> None:
    """Click a food's Out (or Back) button; a read-back question is answered yes."""
    dashboard.locator("#food-filter").fill(food)
    button = f"Mark {food} {'out' if out else 'back'}"
    dashboard.locator("#foods").get_by_role("button", name=button, exact=True).click()
    listed = dashboard.locator(f'#outs li[data-out="{food}"]')
    if out:
        expect(listed.or_(dashboard.locator("#question:visible")).first).to_be_visible()
        if dashboard.locator("#question").is_visible():
            dashboard.locator("#answer-yes").click()
        expect(listed).to_be_visible()
    else:
        expect(listed).to_have_count(0)
    dashboard.locator("#food-filter").fill("")


def shots() -> Path | None:
    folder = os.environ.get("AUTOMANAGER_SCREENSHOTS")
    if not folder:
        return None
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_the_manager_token_guards_the_dashboard_and_the_api(browser, contexts, service):
    page = new_page(browser, contexts, service)
    answer = page.goto("/dashboard")
    assert answer is not None and answer.status == 401
    expect(page.locator("h1")).to_have_text("Manager token needed")
    expect(page.locator("body")).to_contain_text("manager-token")
    expect(page.locator("#stock")).to_have_count(0)

    answer = page.goto("/dashboard?token=not-the-token")
    assert answer is not None and answer.status == 401
    expect(page.locator(".error")).to_contain_text("not this service's manager token")

    api = page.request
    lane = api.post("/api/lanes").json()
    for method, path in [("get", "/api/stock"), ("get", "/api/lanes"), ("get", "/api/events"),
                         ("get", "/api/unheard"), ("post", "/api/save")]:
        for headers in [{}, {"Authorization": f"Bearer {lane['token']}"}]:  # a lane's token is no manager's
            answer = getattr(api, method)(path, headers=headers)
            assert answer.status == 401, (method, path, headers)
            assert answer.json()["status"] == 401 and "manager token" in answer.json()["error"]
    answer = api.post(f"/api/lanes/{lane['lane']}/turns", data=json.dumps({"text": "a pepsi"}),
                      headers={"Content-Type": "application/json"})
    assert answer.status == 403 and "token" in answer.json()["error"]

    open_dashboard(page, service)  # with the token once, the cookie opens the page and its API calls
    expect(page.locator("#stock-title")).to_contain_text("Stock")
    assert api.get("/api/stock").status == 200
    assert page.errors == []


def test_an_order_on_the_lane_page_from_greeting_to_total(browser, contexts, service):
    page = new_page(browser, contexts, service)
    open_lane(page)
    lane_id = page.locator("#lane-id").inner_text()
    expect(page.locator("#total")).to_have_text("$0.00")
    expect(page.locator("#empty")).to_be_visible()

    say(page, "two pepsis and a bean burrito")
    lines = page.locator("#order-lines tr")
    expect(lines).to_have_count(2)
    expect(lines.filter(has_text="Pepsi")).to_contain_text("2")
    expect(lines.filter(has_text="Bean Burrito")).to_be_visible()
    expect(page.locator("#total")).not_to_have_text("$0.00")
    expect(page.locator("#conversation li.customer")).to_have_text(["two pepsis and a bean burrito"])

    page.reload()  # the same lane, the same car: kept in the tab's session storage
    expect(page.locator("#lane-id")).to_have_text(lane_id)
    expect(lines).to_have_count(2)
    expect(page.locator("#conversation li.customer")).to_have_text(["two pepsis and a bean burrito"])

    say(page, "fresco style")
    expect(lines.filter(has_text="Bean Burrito")).to_contain_text("fresco style")

    for line in ["that's all", "no thanks", "that's it", "no", "bye"]:  # the bot may ask about sizes first
        if page.locator("#farewell").is_visible():
            break
        say(page, line)
    farewell = page.locator("#farewell")
    expect(farewell).to_be_visible()
    total = page.locator("#total").inner_text()
    prices = [int(re.sub(r"\D", "", price)) for price in page.locator("#order-lines td.price").all_inner_texts()]
    assert re.fullmatch(r"\$\d+\.\d\d", total) and int(re.sub(r"\D", "", total)) == sum(prices)
    expect(farewell).to_contain_text(total)
    expect(page.locator("#conversation li.bot").last).to_contain_text(total)
    assert page.errors == []


def test_a_runout_clicked_on_the_dashboard_reaches_an_open_lane_page_live(browser, contexts, service):
    lane = new_page(browser, contexts, service)
    open_lane(lane)
    say(lane, "a beef burrito and two pepsis")
    say(lane, "a bean burrito fresco style")
    say(lane, "and a mango smoothie")  # not on the menu: the dashboard lists it
    expect(lane.locator("#order-lines tr")).to_have_count(3)
    lane_id = lane.locator("#lane-id").inner_text().removeprefix("Lane ")

    dashboard = new_page(browser, contexts, service, width=1440, height=1000)
    open_dashboard(dashboard, service)
    card = dashboard.locator(f'.lane-card[data-lane="{lane_id}"]')
    expect(card).to_contain_text("Beef Burrito")
    expect(card).to_contain_text(lane.locator("#total").inner_text())
    expect(dashboard.locator('#unheard li[data-phrase="mango smoothie"]')).to_be_visible()

    mark(dashboard, "Seasoned Beef", out=True)
    out = dashboard.locator('#outs li[data-out="Seasoned Beef"]')
    expect(out).to_contain_text("since")
    expect(out.locator("summary")).to_have_text(re.compile(r"^Takes off \d+ dishes and \d+ combos$"))
    out.locator("summary").click()
    expect(out).to_contain_text("Beef Burrito")
    expect(dashboard.locator("#history")).to_contain_text("Seasoned Beef")

    notice = lane.locator(".notice.out")  # no reload: the lane's event stream brought it
    expect(notice).to_contain_text("Seasoned Beef just ran out")
    expect(notice).to_contain_text("Beef Burrito")
    # the board as the service prices it now: the item that cannot be made is off it and off the total
    expect(lane.locator("#order-lines tr")).to_have_count(2)
    expect(lane.locator("#order-lines")).not_to_contain_text("Beef Burrito")
    expect(lane.locator("#total")).to_have_text("$3.39")
    folder = shots()
    if folder is not None:
        lane.screenshot(path=str(folder / "lane.png"))

    say(lane, "and another beef burrito")  # a customer who asks anyway is told
    expect(lane.locator("#conversation li.bot").last).to_contain_text("Seasoned Beef")

    dashboard.locator("#chat-line").fill("what is out?")
    dashboard.locator("#chat-line").press("Enter")
    expect(dashboard.locator("#chat li.me").last).to_have_text("what is out?", timeout=TURN)
    expect(dashboard.locator("#chat li.bot").last).not_to_be_empty()

    if folder is not None:
        dashboard.screenshot(path=str(folder / "dashboard.png"), full_page=True)

    mark(dashboard, "Seasoned Beef", out=False)
    expect(lane.locator(".notice.back")).to_contain_text("Seasoned Beef is back")
    assert lane.errors == [] and dashboard.errors == []


def test_a_large_runout_is_read_back_and_no_leaves_it(browser, contexts, service):
    dashboard = new_page(browser, contexts, service, width=1440, height=1000)
    open_dashboard(dashboard, service)
    dashboard.locator("#food-filter").fill("Flour Tortilla")
    dashboard.locator("#foods").get_by_role("button", name="Mark Flour Tortilla out", exact=True).click()
    question = dashboard.locator("#question")
    expect(question).to_be_visible(timeout=TURN)
    expect(question).to_contain_text("Flour Tortilla")
    dashboard.locator("#answer-no").click()
    expect(question).to_be_hidden()
    expect(dashboard.locator("#stock-status")).not_to_be_empty()
    expect(dashboard.locator('#outs li[data-out="Flour Tortilla"]')).to_have_count(0)
    assert dashboard.errors == []


def test_hostile_customer_text_is_shown_as_text(browser, contexts, service):
    lane = new_page(browser, contexts, service)
    open_lane(lane)
    for line in HOSTILE:
        say(lane, line)
    expect(lane.locator("#conversation li.customer")).to_have_text(HOSTILE)
    assert lane.evaluate("typeof window.pwned") == "undefined"
    expect(lane.locator("img")).to_have_count(0)
    expect(lane.locator("#conversation script")).to_have_count(0)

    dashboard = new_page(browser, contexts, service, width=1440, height=1000)
    open_dashboard(dashboard, service)  # the manager sees the lane's last line, as text too
    lane_id = lane.locator("#lane-id").inner_text().removeprefix("Lane ")
    expect(dashboard.locator(f'.lane-card[data-lane="{lane_id}"] .said')).to_have_text(f"“{HOSTILE[1]}”")
    expect(dashboard.locator("#unheard li").first).to_be_visible()
    assert dashboard.evaluate("typeof window.pwned") == "undefined"
    expect(dashboard.locator("img:not(.charts img)")).to_have_count(0)  # only the day's charts, drawn by the service
    assert lane.errors == [] and dashboard.errors == []


def test_a_phrase_taught_on_the_dashboard_is_understood_on_a_lane(browser, contexts, service):
    lane = new_page(browser, contexts, service)
    open_lane(lane)
    say(lane, "a frobnozzle wrap please")
    expect(lane.locator("#conversation li.bot").last).to_contain_text("frobnozzle wrap")
    expect(lane.locator("#order-lines tr")).to_have_count(0)

    dashboard = new_page(browser, contexts, service, width=1440, height=1000)
    open_dashboard(dashboard, service)
    row = dashboard.locator('#unheard li[data-phrase="frobnozzle wrap"]')
    expect(row).to_contain_text("1×")
    row.locator("select").select_option("Beef Burrito")
    row.get_by_role("button", name="Teach frobnozzle wrap").click()
    question = dashboard.locator("#question")  # read back first: a yes stages it, a save publishes it
    expect(question).to_be_visible(timeout=TURN)
    expect(question).to_contain_text('Teach "frobnozzle wrap" as another name of Beef Burrito')
    dashboard.locator("#answer-yes").click()
    status = dashboard.locator("#unheard-status")
    expect(status).to_have_text('Customers who say "frobnozzle wrap" will get Beef Burrito once you save.', timeout=TURN)
    expect(dashboard.locator("#pending")).to_contain_text("frobnozzle wrap")
    dashboard.locator("#save").click()
    expect(dashboard.locator("#no-pending")).to_be_visible(timeout=TURN)
    expect(row).to_have_count(0)

    fresh = new_page(browser, contexts, service)  # a new car orders by the taught name
    open_lane(fresh)
    say(fresh, "a frobnozzle wrap please")
    expect(fresh.locator("#order-lines tr")).to_have_count(1)
    expect(fresh.locator("#order-lines")).to_contain_text("Beef Burrito")


def test_a_line_lost_on_the_network_is_sent_again_with_the_same_turn_id(browser, contexts, service):
    lane = new_page(browser, contexts, service)
    open_lane(lane)
    sent: list[str] = []

    def drop_the_first(route: sync_api.Route) -> None:
        sent.append(json.loads(route.request.post_data or "{}")["turn_id"])
        if len(sent) == 1:
            route.abort("connectionreset")
        else:
            route.continue_()

    lane.route("**/api/lanes/*/turns", drop_the_first)
    say(lane, "two pepsis")
    expect(lane.locator("#order-lines tr")).to_have_count(1)
    assert len(sent) == 2 and sent[0] == sent[1] and re.fullmatch(r"[A-Za-z0-9-]{8,64}", sent[0])
    expect(lane.locator("#conversation li.customer")).to_have_text(["two pepsis"])
    assert lane.errors == []


def test_a_store_rule_said_in_the_dashboard_chat_holds_on_a_lane(browser, contexts, service):
    """The manager states a rule in plain words on the dashboard: read back as a question, yes stages
    it (pending), save publishes it, and a car asking for more than it allows is told why."""
    dashboard = new_page(browser, contexts, service, width=1440, height=1000)
    open_dashboard(dashboard, service)
    dashboard.locator("#chat-line").fill("nobody orders more than two cheesy gordita crunches per car")
    dashboard.locator("#chat-line").press("Enter")
    question = dashboard.locator("#question")
    expect(question).to_be_visible(timeout=TURN)
    expect(question).to_contain_text("at most 2 Cheesy Gordita Crunch per order")
    dashboard.locator("#answer-yes").click()
    expect(dashboard.locator("#pending")).to_contain_text("rule: at most 2 Cheesy Gordita Crunch per order", timeout=TURN)
    dashboard.locator("#save").click()
    expect(dashboard.locator("#no-pending")).to_be_visible(timeout=TURN)

    lane = new_page(browser, contexts, service)
    open_lane(lane)
    say(lane, "three cheesy gordita crunches")
    expect(lane.locator("#conversation li.bot").last).to_contain_text("we can only serve 2 Cheesy Gordita Crunch per order")
    expect(lane.locator("#order-lines tr")).to_have_count(0)
    assert lane.errors == [] and dashboard.errors == []


def open_lanes(service: Served) -> set[str]:
    """The lanes open now, as the manager's API lists them."""
    asked = urllib.request.Request(service.base + "/api/lanes", headers={"Authorization": f"Bearer {service.token}"})
    with urllib.request.urlopen(asked, timeout=30) as answer:
        return {lane["lane"] for lane in json.load(answer)}


def test_a_closed_lane_tab_closes_its_lane(browser, contexts, service):
    """The page says it left (a beacon on page hide, with its token) and the lane closes a few
    seconds after its tab does; the dashboard then no longer shows it waiting for a car."""
    page = new_page(browser, contexts, service)
    open_lane(page)
    lane = page.evaluate("JSON.parse(sessionStorage.getItem('automanager.lane')).lane")
    assert lane in open_lanes(service)
    with page.expect_response(re.compile(r"/api/lanes/[0-9a-f]+/left$")) as beacon:
        page.evaluate("window.dispatchEvent(new PageTransitionEvent('pagehide'))")
    assert beacon.value.status == 202
    page.close()
    deadline = time.monotonic() + 60
    while lane in open_lanes(service):
        assert time.monotonic() < deadline, f"lane {lane} still open a minute after its tab closed"
        time.sleep(0.5)


def test_the_manager_closes_a_lane_from_the_dashboard(browser, contexts, service):
    dashboard = new_page(browser, contexts, service, width=1440, height=1000)
    open_dashboard(dashboard, service)
    lane = dashboard.request.post("/api/lanes").json()  # a lane no page shows (a tab left somewhere)
    card = dashboard.locator(f'#lanes [data-lane="{lane["lane"]}"]')
    expect(card).to_be_visible()
    card.get_by_role("button", name="Close lane").click()
    expect(card).to_have_count(0)
    assert lane["lane"] not in open_lanes(service)
    gone = dashboard.request.get(f"/api/lanes/{lane['lane']}", headers={"Authorization": f"Bearer {lane['token']}"})
    assert gone.status == 404
    assert dashboard.errors == []


ATTACK = """<!doctype html><title>win a prize</title><body>
<iframe name="sink"></iframe>
<form id="save" method="post" action="{base}/api/save" target="sink"></form>
<script>
/* What another site can make the manager's browser send with the cookie: JSON with no Content-Type
   (no preflight) to stock and teach, and a plain form to save (last: it may navigate the frame). */
const send = (path, body) => fetch("{base}" + path, {{method: "POST", mode: "no-cors", credentials: "include",
                                                     body: new Blob([JSON.stringify(body)])}}).catch(() => null);
window.sent = Promise.all([
  send("/api/stock", {{name: "Seasoned Beef", out: true}}),
  send("/api/unheard/teach", {{phrase: "zibzab roll", item: "Bean Burrito"}}),
  send("/api/save", {{}}),
]).then(() => {{ document.getElementById("save").submit(); return true; }});
</script>"""


@pytest.fixture
def other_origin(service: Served) -> Iterator[str]:
    """A page on another port of 127.0.0.1 (another origin, the same site for cookies)."""
    yield from served_elsewhere(ATTACK.format(base=service.base))


def served_elsewhere(html: str) -> Iterator[str]:
    """The address of `html` served on another port of 127.0.0.1, while the generator lives."""
    import http.server
    import threading

    page = html.encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *_args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/prize.html"
    server.shutdown()
    server.server_close()


def test_a_page_on_another_origin_cannot_publish_change_stock_or_teach(browser, contexts, service, other_origin):
    """The manager, logged in to the dashboard, opens another site's page in the same browser: its
    writes carry the cookie but not the dashboard's origin and page token, so a staged price stays
    pending, nothing runs out and nothing is taught; the dashboard itself then saves."""
    manager = {"Authorization": f"Bearer {service.token}"}
    dashboard = new_page(browser, contexts, service, width=1440, height=1000)
    api = dashboard.request
    lane = new_page(browser, contexts, service)
    open_lane(lane)
    say(lane, "a zibzab roll please")
    staged = api.post("/api/manager/turns", data=json.dumps({"text": "the soft taco now costs $1.83"}),
                      headers=manager | {"Content-Type": "application/json"}).json()
    assert staged["pending"], staged
    open_dashboard(dashboard, service)
    version = api.get("/api/versions", headers=manager).json()["latest"]

    evil = dashboard.context.new_page()  # the same browser profile: the manager's cookie goes along
    refusals: list[int] = []
    evil.on("response", lambda r: refusals.append(r.status) if r.url.startswith(service.base) else None)
    evil.goto(other_origin)
    assert evil.evaluate("window.sent") is True
    deadline = time.monotonic() + TURN / 1000
    while len(refusals) < 4 and time.monotonic() < deadline:  # the three calls and the form's post
        evil.wait_for_timeout(100)
    assert sorted(refusals) == [403, 403, 403, 403], refusals
    # the form's answer is not shown in the other site's frame either: no answer of the service may be framed
    expect(evil.frame_locator("iframe").locator("body")).not_to_contain_text("another site")
    evil.close()

    assert api.get("/api/versions", headers=manager).json()["latest"] == version
    assert "Soft Taco" in " ".join(api.get("/api/pending", headers=manager).json()["pending"])
    assert api.get("/api/stock", headers=manager).json()["out"] == []
    assert "zibzab roll" in [row["phrase"] for row in api.get("/api/unheard", headers=manager).json()]

    dashboard.reload()  # the real dashboard still publishes
    dashboard.locator("#save").click()
    expect(dashboard.locator("#no-pending")).to_be_visible(timeout=TURN)
    assert api.get("/api/versions", headers=manager).json()["latest"] == version + 1
    assert dashboard.errors == [] and lane.errors == []


FRAMER = """<!doctype html><title>a prize</title><body>
<iframe id="framed" src="{base}/dashboard" width="1200" height="800"></iframe>
<script>
/* what this week's attack did: lay the dashboard (logged in by its cookie) under another origin's
   page, and open lanes by blind no-cors POSTs */
window.opened = Promise.all(Array.from({{length: 20}}, () => fetch("{base}/api/lanes",
  {{method: "POST", mode: "no-cors", credentials: "include", body: "{{}}"}}).catch(() => null))).then(() => true);
</script>"""


@pytest.fixture
def framing_origin(service: Served) -> Iterator[str]:
    yield from served_elsewhere(FRAMER.format(base=service.base))


def test_another_origin_can_neither_frame_the_dashboard_nor_open_lanes(browser, contexts, service, framing_origin):
    """The manager, logged in, opens another origin's page: the dashboard it frames is not shown
    (frame-ancestors 'none', X-Frame-Options DENY), so there is no Save to click under it; its 20
    blind POSTs open no lane (403: another site's page)."""
    manager = {"Authorization": f"Bearer {service.token}"}
    dashboard = new_page(browser, contexts, service, width=1440, height=1000)
    open_dashboard(dashboard, service)
    api = dashboard.request
    lanes_before = {lane["lane"] for lane in api.get("/api/lanes", headers=manager).json()}

    evil = dashboard.context.new_page()  # the same browser profile: the manager's cookie goes along
    said: list[str] = []
    statuses: list[int] = []
    evil.on("console", lambda message: said.append(message.text))
    evil.on("response", lambda r: statuses.append(r.status) if r.url.startswith(service.base + "/api/") else None)
    evil.goto(framing_origin)
    assert evil.evaluate("window.opened") is True
    deadline = time.monotonic() + WAIT / 1000
    while not any("frame-ancestors" in text or "X-Frame-Options" in text for text in said):
        assert time.monotonic() < deadline, said
        evil.wait_for_timeout(100)
    framed = next(frame for frame in evil.frames if frame is not evil.main_frame)
    assert not framed.url.startswith(service.base), framed.url  # an error page, not the dashboard
    expect(evil.frame_locator("#framed").locator("#save")).to_have_count(0)
    assert statuses == [403] * 20, statuses
    evil.close()

    assert {lane["lane"] for lane in api.get("/api/lanes", headers=manager).json()} == lanes_before
    assert dashboard.errors == []


def test_the_api_documentation_renders_with_no_network(browser, contexts, service):
    """/docs (Swagger UI) and /redoc load every file from the service itself: with any other host
    cut off, both show the API's routes (a drive-through's network may have no way out)."""
    page = new_page(browser, contexts, service)
    elsewhere: list[str] = []

    def only_the_service(route: sync_api.Route) -> None:
        if route.request.url.startswith(service.base):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_service)
    page.goto("/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("AutoManager")
    expect(page.locator(".opblock-summary-path", has_text="/api/lanes/{lane_id}/turns").first).to_be_visible()
    assert elsewhere == []
    page.goto("/redoc")
    expect(page.get_by_text("/api/manager/turns").first).to_be_attached()
    # ReDoc's "API docs by Redocly" footer links its logo from its site: an image left blank offline
    # (the service's policy refuses it before the network would)
    logo = [e for e in page.errors if e.startswith("Loading the image 'https://cdn.redoc.ly/redoc/logo-mini.svg'")]
    assert all(url.endswith("/logo-mini.svg") for url in elsewhere)
    assert [e for e in page.errors if e not in logo] == []  # type: ignore[attr-defined]


def test_the_stock_board_files_foods_by_category_with_what_is_out_first(browser, contexts, service):
    """The board groups every food under its category, what is out in a group of its own at the
    top, and the filter (by name or category) is still there when the dashboard is opened again."""
    dashboard = new_page(browser, contexts, service)
    open_dashboard(dashboard, service)
    groups = dashboard.locator("#foods .food-group h3")
    expect(groups.first).to_be_visible()
    assert groups.count() > 3
    dashboard.locator("#food-filter").fill("drink")
    expect(groups).to_have_count(1)
    expect(groups.first).to_contain_text("Drink")
    dashboard.reload()
    expect(dashboard.locator("#food-filter")).to_have_value("drink")
    expect(groups).to_have_count(1)
    dashboard.locator("#food-filter").fill("")
    mark(dashboard, "Diet Pepsi®", out=True)
    first = dashboard.locator("#foods .food-group").first
    expect(first.locator("h3")).to_contain_text("Out now")
    expect(first.locator('li[data-food="Diet Pepsi®"]')).to_be_visible()
    mark(dashboard, "Diet Pepsi®", out=False)
    expect(first.locator("h3")).not_to_contain_text("Out now")


def close_order(page: sync_api.Page) -> None:
    for line in ["that's all", "no thanks", "that's it", "no", "bye"]:  # the bot may ask about sizes first
        if page.locator("#farewell").is_visible():
            break
        say(page, line)
    expect(page.locator("#farewell")).to_be_visible()


def test_an_order_closed_on_a_lane_is_on_the_kitchen_display_within_a_second(browser, contexts, service):
    kitchen = new_page(browser, contexts, service)
    kitchen_token = (service.state / "kitchen-token").read_text(encoding="utf-8").strip()
    kitchen.goto(f"/kitchen?token={kitchen_token}")  # the kitchen's own token: it opens the kitchen alone
    expect(kitchen).to_have_url(re.compile(r"/kitchen$"))  # the token left the address bar for a cookie
    expect(kitchen.locator("#live")).to_have_text("live")
    lane = new_page(browser, contexts, service)
    open_lane(lane)
    say(lane, "a bean burrito with no onions and a large pepsi")
    close_order(lane)
    sent = lane.locator("#sent")
    expect(sent).to_contain_text("Sent to the kitchen: ticket #")
    number = re.search(r"#(\d+)", sent.inner_text()).group(1)
    ticket = kitchen.locator(f'#tickets li.ticket[data-ticket="{number}"]')
    expect(ticket).to_be_visible(timeout=1_000)  # live: within a second of the close
    expect(ticket.locator(".mod.no")).to_have_text("no Onions")  # what to leave off stands out
    expect(ticket).to_contain_text("Bean Burrito")
    expect(ticket).to_contain_text("large Pepsi")
    expect(ticket.locator(".source")).to_have_text("lane " + lane.locator("#lane-id").inner_text().split()[-1])
    if shots():
        kitchen.screenshot(path=str(shots() / "kitchen.png"))

    ticket.get_by_role("button", name="Bump").click()
    expect(ticket).to_have_count(0)
    kitchen.locator("#recall").click()  # the ticket bumped last comes back
    expect(ticket).to_be_visible()

    receipt = lane.locator("#receipt").get_attribute("href")
    paid = re.search(r"Order complete: (\$\d+\.\d\d)", lane.locator("#farewell").inner_text()).group(1)
    page = new_page(browser, contexts, service)
    page.goto(receipt)
    expect(page.locator("#ticket")).to_have_text(f"#{number}")
    expect(page.locator("tr.total td.money")).to_have_text(paid)
    expect(page.locator("tr.subtotal td.money")).to_have_text(lane.locator("#total").inner_text())
    assert page.request.get(receipt.rsplit("/", 1)[0] + "/not-the-key").status == 404  # no counting receipts
    assert kitchen.errors == [] and lane.errors == []


def test_the_kitchen_needs_its_token_or_the_managers_and_its_token_opens_nothing_else(browser, contexts, service):
    page = new_page(browser, contexts, service)
    answer = page.goto("/kitchen")
    assert answer is not None and answer.status == 401
    expect(page.locator("body")).to_contain_text("kitchen-token")
    lane = page.request.post("/api/lanes").json()
    kitchen_token = (service.state / "kitchen-token").read_text(encoding="utf-8").strip()
    for method, path in [("get", "/api/kitchen/tickets"), ("post", "/api/kitchen/recall"),
                         ("get", "/api/kitchen/events"), ("post", "/api/kitchen/tickets/1/bump")]:
        for headers in [{}, {"Authorization": f"Bearer {lane['token']}"}]:
            assert getattr(page.request, method)(path, headers=headers).status == 401, (method, path)
    kitchen = {"Authorization": f"Bearer {kitchen_token}"}
    assert page.request.get("/api/kitchen/tickets", headers=kitchen).status == 200
    assert page.request.get("/api/kitchen/tickets", headers={"Authorization": f"Bearer {service.token}"}).status == 200
    for method, path in [("get", "/api/stock"), ("post", "/api/save"), ("get", "/api/report")]:
        assert getattr(page.request, method)(path, headers=kitchen).status == 401, (method, path)
    open_dashboard(page, service)  # the manager, from the dashboard, opens the kitchen too
    page.goto("/kitchen")
    expect(page.locator("#live")).to_have_text("live")


def test_the_dashboards_day_in_numbers_draws_its_charts(browser, contexts, service):
    lane = new_page(browser, contexts, service)
    open_lane(lane)
    say(lane, "three crunchy tacos and a large pepsi")
    close_order(lane)
    dashboard = new_page(browser, contexts, service)
    open_dashboard(dashboard, service)
    figures = dashboard.locator("#figures")
    expect(figures).to_contain_text(re.compile(r"\d+ orders? · sales \$\d+\.\d\d"))
    report = dashboard.request.get("/api/report").json()
    assert report["orders"] >= 1 and report["revenue"] == report["sales"] + report["tax"]
    assert any(item["item"] == "Crunchy Taco" and item["quantity"] >= 3 for item in report["top_items"])
    for name in ("hours", "items", "lost"):
        image = dashboard.locator(f"#chart-{name}")
        dashboard.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    drawn = dashboard.request.get("/api/report/items.svg").text()
    assert drawn.startswith("<svg") and drawn.count('class="bar"') == len(report["top_items"][:8])
    assert "Crunchy Taco" in drawn
    assert dashboard.request.get("/api/report/nothing.svg").status == 404
    if shots():
        dashboard.locator("#report-card").screenshot(path=str(shots() / "report.png"))
    assert dashboard.errors == []


def voice_lane() -> None:
    """Skips the test, saying why, where the service shows no talk button."""
    if (why := voice.missing()) is not None:
        pytest.skip(f"no voice lane: {why}")


@pytest.mark.parametrize("width,height", [(800, 860), (1024, 800), (1280, 860)])
def test_the_voice_lanes_page_fits_a_lane_screen(browser, contexts, service, width, height):
    """With the talk button on the page, the conversation, the input row and the order board are all
    on a lane screen at once (the button once took the conversation's height and pushed it off)."""
    voice_lane()
    page = new_page(browser, contexts, service, width, height)
    open_lane(page)
    say(page, "two bean burritos and a large pepsi")  # lines on the board, turns in the conversation
    for part in ("#conversation", "#line", "#talk", ".board"):
        box = page.locator(part).bounding_box()
        assert box is not None, part
        assert box["x"] >= 0 and box["y"] >= 0, (part, box)
        assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, (part, box)
    assert page.locator("#talk").bounding_box()["height"] < 200
    assert page.locator("#conversation").bounding_box()["height"] > 200
    assert page.errors == []


def spoken(folder: Path, words: str) -> tuple[Path, float]:
    """A WAV of `words` as espeak-ng says them, with half a second of silence before and after (as a
    car pauses), and its length in seconds."""
    wav = folder / "said.wav"
    subprocess.run(["espeak-ng", "-v", "en", "-s", "130", "-w", str(wav), words], check=True, timeout=30)
    with wave.open(str(wav), "rb") as said:
        params, frames = said.getparams(), said.readframes(said.getnframes())
    pause = b"\0" * (params.sampwidth * params.nchannels * params.framerate // 2)
    with wave.open(str(wav), "wb") as padded:
        padded.setparams(params)
        padded.writeframes(pause + frames + pause)
    return wav, params.nframes / params.framerate + 1.0


@contextmanager
def fake_microphone(browser: sync_api.Browser, wav: Path, *args: str) -> Iterator[sync_api.Browser]:
    """A Chromium of its own whose microphone plays `wav` once, with more command-line `args`."""
    chromium = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=[
        "--no-sandbox", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={wav}%noloop", "--autoplay-policy=no-user-gesture-required", *args])
    try:
        yield chromium
    finally:
        chromium.close()


def hold_to_talk(page: sync_api.Page, seconds: float) -> dict:
    """Hold the talk button down with the mouse for `seconds`, let go, and wait for the spoken
    turn: its answer (the words heard, how sure, the order board)."""
    talk = page.locator("#talk")
    expect(talk).to_be_visible()
    talk.hover()
    with page.expect_response(re.compile(r"/api/lanes/[0-9a-f]+/speech\?"), timeout=TURN) as answer:
        page.mouse.down()
        page.wait_for_timeout(seconds * 1000)  # the recording: the words, then silence
        page.mouse.up()
    expect(page.locator("#conversation li.waiting")).to_have_count(0, timeout=TURN)
    return answer.value.json()


def rung(page: sync_api.Page) -> dict[str, int]:
    """The order board: each item's name and quantity."""
    rows = page.locator("#order-lines tr")
    return dict(zip(rows.locator(".name").all_inner_texts(), map(int, rows.locator(".qty").all_inner_texts())))


def reply_plays(page: sync_api.Page) -> None:
    page.wait_for_function("() => { const a = document.getElementById('reply-audio');"
                           " return a.src && (a.currentTime > 0 || a.ended); }", timeout=WAIT)


@pytest.fixture(scope="module")
def https_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, tls.Made]]:
    """`automanager serve --certfile --keyfile` with the certificate `automanager cert --host
    127.0.0.1` makes, and that certificate."""
    state = tmp_path_factory.mktemp("https")
    made = tls.make(state / "tls", ["127.0.0.1"], 1)
    served = ServeProcess(state / "home", args=["--certfile", str(made.cert), "--keyfile", str(made.key)], ca=made.ca)
    try:
        yield Served(served.url, (state / "home" / "manager-token").read_text(encoding="utf-8").strip(),
                     state / "home"), made
    finally:
        served.close()


def test_a_spoken_order_over_https_is_rung_up_as_said_or_asked_about(browser, https_service, tmp_path):
    """A lane screen on another device: Chromium as a kiosk that trusts the service's certificate by
    its key (--ignore-certificate-errors-spki-list, as `automanager cert` prints it), its microphone
    a WAV of the order. What is rung up is exactly what was said; or nothing, the bot asking about
    the order, and a typed yes rings up exactly that. The reply's audio plays."""
    voice_lane()
    served, made = https_service
    wav, seconds = spoken(tmp_path, "two bean burritos and a large pepsi")
    with fake_microphone(browser, wav, f"--ignore-certificate-errors-spki-list={made.spki}") as chromium:
        page = new_page(chromium, [], served)  # closed with its browser
        open_lane(page)  # the lane opens from the https:// page: its origin is the service's own
        assert page.url.startswith("https://")
        answer = hold_to_talk(page, seconds)
        reply = page.locator("#conversation li.bot").last.inner_text()
        said = (answer["heard"], answer["sure"], reply)
        reply_plays(page)
        if not rung(page):  # not sure of what it heard: asked about, never rung up
            assert "?" in reply and "Bean Burrito" in reply and "Pepsi" in reply, said
            say(page, "yes")
        assert rung(page) == {"Bean Burrito": 2, "large Pepsi®": 1}, said
        assert page.errors == []


def test_a_spoken_order_on_the_lane_page_is_ordered_and_its_reply_played(browser, service, tmp_path):
    """Chromium's fake microphone plays a WAV espeak-ng made; holding the talk button records it,
    the service recognizes it and orders what it heard (and nothing it did not), and the reply's
    audio plays."""
    voice_lane()
    wav, seconds = spoken(tmp_path, "two bean burritos and a large pepsi")
    with fake_microphone(browser, wav) as chromium:
        page = new_page(chromium, [], service)  # closed with its browser
        open_lane(page)
        hold_to_talk(page, seconds)
        lines = page.locator("#order-lines tr")
        said = page.locator("#conversation li.customer").last
        expect(said).not_to_have_text("")  # the words heard, shown as the customer's line
        heard = said.inner_text().lower()
        # tiny.en may hear espeak-ng through Chromium's fake microphone imperfectly (en-us's "pepsi" as "herb
        # seed"): whatever is rung up is named in what was heard; the rest is asked about or said back
        for item in lines.locator(".name").all_inner_texts():
            assert any(word in heard for word in re.findall(r"[a-z]{4,}", item.lower())), (item, heard)
        reply_plays(page)
        assert page.errors == []
