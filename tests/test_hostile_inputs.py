"""Inputs past what the store can hold, through the API and the command line: an id past 64 bits,
the last day of the calendar (it has no next day), a path name longer than the system's limit.
Each is answered with a clear reason, a 4xx JSON error or a one-line error and exit 2, never a
500 or a traceback; the last day is reported like any other (voice bodies: test_voice.py)."""

from __future__ import annotations

from datetime import datetime

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from automanager import paths
from automanager.cli import app
from automanager.database import MAX_ROW_ID
from automanager.orders import OrderBook, day_span
from automanager.report import day_report
from automanager.service.app import create_app
from automanager.service.auth import KITCHEN_TOKEN_FILE, TOKEN_FILE
from automanager.star import CustomerChat
from automanager.store import Home, StateError

runner = CliRunner()
CLOSE = ["two bean burritos and a large pepsi", "that's all", "no", "no"]  # ordered, asked, summary, closed
BAD_IDS = [str(MAX_ROW_ID + 1), str(2**64), str(10**30), str(-(2**63) - 1), "0", "-1"]
LAST_DAY = "9999-12-31"  # the calendar's last: no next day to end it with
LONG_NAME = "n" * 300  # over the 255 bytes a file or folder name may have


@pytest.fixture
def service(tmp_path):
    client = TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False)
    with client:
        yield client, {"Authorization": f"Bearer {(tmp_path / TOKEN_FILE).read_text().strip()}"}, \
            {"Authorization": f"Bearer {(tmp_path / KITCHEN_TOKEN_FILE).read_text().strip()}"}


def refused(answer, *words: str) -> str:
    """A 4xx JSON error saying why (with `words` in it), no traceback."""
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    assert answer.headers["content-type"].startswith("application/json") and "Traceback" not in answer.text
    reason = answer.json()["error"]
    assert all(word in reason for word in words), reason
    return reason


def cli_refused(result, *words: str) -> str:
    """Exit 2 with a one-line error saying why, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output[-600:])
    assert "Traceback" not in result.output and (result.exception is None or isinstance(result.exception, SystemExit))
    line = next(line for line in result.output.splitlines() if line.startswith("error:"))
    assert all(word in result.output for word in words), result.output
    return line


# ---- ids -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("order_id", BAD_IDS)
@pytest.mark.parametrize("route", ["POST /api/kitchen/tickets/{}/bump", "GET /receipts/{}/key", "GET /receipts/{}/key.txt"])
def test_an_id_no_row_can_have_is_refused_by_the_api_saying_its_range(service, route, order_id):
    client, _manager, kitchen = service
    method, path = route.split()
    answer = client.request(method, path.format(order_id), headers=kitchen)
    refused(answer, "out of range", str(MAX_ROW_ID), "64-bit")


def test_the_largest_id_is_looked_up_and_not_found(service):
    client, _manager, kitchen = service
    assert client.post(f"/api/kitchen/tickets/{MAX_ROW_ID}/bump", headers=kitchen).status_code == 404


@pytest.mark.parametrize("order_id", [i for i in BAD_IDS if not i.startswith("-")])
def test_an_id_no_row_can_have_is_refused_by_the_cli_saying_its_range(tmp_path, order_id):
    result = runner.invoke(app, ["orders", "show", order_id, "--state-dir", str(tmp_path)])
    cli_refused(result, "out of range", "64-bit")


def test_the_store_never_hands_an_id_past_64_bits_to_the_database(tmp_path):
    book = OrderBook(Home(tmp_path))
    for order_id in (MAX_ROW_ID + 1, 2**64, -(2**63) - 1, 0):
        assert book.get(order_id) is None and book.bump(order_id) is False


# ---- days ------------------------------------------------------------------------------------------

def test_the_last_day_of_the_calendar_is_reported_like_any_other(tmp_path):
    home = Home(tmp_path)
    home.clock = datetime.fromisoformat(f"{LAST_DAY}T23:59:30")
    chat = CustomerChat(home)
    for line in CLOSE:
        chat.turn(line)
    assert chat.ended
    last = datetime.fromisoformat(LAST_DAY).date()
    assert [o.placed_at for o in OrderBook(home).placed_on(last)] == [f"{LAST_DAY}T23:59:30"]
    assert day_report(home, last).orders == 1
    assert day_span(datetime(2026, 11, 27).date()) == ("2026-11-27T00:00:00", "2026-11-27T24:00:00")
    before = datetime.fromisoformat("9999-12-30").date()
    assert OrderBook(home).placed_on(before) == [] and day_report(home, before).orders == 0


@pytest.mark.parametrize("day", [LAST_DAY, "0001-01-01"])
@pytest.mark.parametrize("command", [["report"], ["report", "--json"], ["report", "--csv"], ["orders", "list"],
                                     ["orders", "list", "--json"]])
def test_the_calendars_ends_through_the_cli(tmp_path, command, day):
    result = runner.invoke(app, [*command, "--day", day, "--state-dir", str(tmp_path)])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output[-600:]
    assert day in result.output or command[-1] in ("--json", "--csv") or "No orders" in result.output


@pytest.mark.parametrize("path", ["/api/report?day={}", "/api/report/hours.svg?day={}", "/api/report/items.svg?day={}"])
def test_the_last_day_through_the_api(service, path):
    client, manager, _kitchen = service
    answer = client.get(path.format(LAST_DAY), headers=manager)
    assert answer.status_code == 200 and LAST_DAY in answer.text


@pytest.mark.parametrize("day", ["10000-01-01", "9999-12-32", "0000-01-01", "x" * 5000])
def test_a_day_past_the_calendar_is_refused_with_the_format(service, tmp_path, day):
    client, manager, _kitchen = service
    refused(client.get("/api/report", params={"day": day}, headers=manager), "YYYY-MM-DD")
    cli_refused(runner.invoke(app, ["report", "--day", day, "--state-dir", str(tmp_path)]), "YYYY-MM-DD")


# ---- names the system cannot take ------------------------------------------------------------------

@pytest.mark.parametrize("name", [LONG_NAME, "é" * 200, "p/" * 2100])
def test_kb_init_refuses_a_name_the_system_cannot_take(tmp_path, name):
    result = runner.invoke(app, ["kb", "init", str(tmp_path / name)])
    line = cli_refused(result, "at most")
    assert len(line) < 200 and not any(tmp_path.iterdir())


@pytest.mark.parametrize("args", [
    ["kb", "build", "--kb", "{long}"], ["kb", "check", "--kb", "{long}"], ["kb", "stats", "--kb", "{long}"],
    ["customer", "--kb", "{long}"], ["customer", "--state-dir", "{long}"], ["orders", "list", "--state-dir", "{long}"],
    ["report", "--state-dir", "{long}"], ["eval", "{long}"], ["eval", "eval/scenarios", "--report", "{long}"],
    ["bench", "--plot", "{long}"], ["eval-nlu", "pizza", "--data", "{long}"],
])
def test_every_path_option_refuses_a_name_the_system_cannot_take(tmp_path, args):
    long = str(tmp_path / LONG_NAME)
    cli_refused(runner.invoke(app, [a.format(long=long) for a in args], input=""), "255")


def test_a_state_dir_the_system_cannot_take_is_refused_by_the_store(tmp_path):
    with pytest.raises(StateError, match="at most 255"):
        Home(tmp_path / LONG_NAME)
    assert paths.unusable(tmp_path / "fine") is None and "NUL" in str(paths.unusable("a\0b"))


def test_a_long_tax_rate_is_said_back_shortened(tmp_path):
    line = cli_refused(runner.invoke(app, ["orders", "tax", "9" * 5000, "--state-dir", str(tmp_path)]), "30%")
    assert len(line) < 200
