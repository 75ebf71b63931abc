"""Issue 37's attacks on secrets and store rules: a database URL's password is never printed, however
malformed the URL; a store rule never changes more, or gives away more, than the manager confirmed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from automanager.database import redacted
from automanager.menu.model import Menu
from automanager.star import ManagerChat
from automanager.store import Home

# a password with each character that ends a URL's user info early, unescaped; then escaped; then a
# URL libpq cannot read at all
SHAPES = {"slash": "postgresql://bob:Zq/Xw@127.0.0.1:{port}/chain",
          "hash": "postgresql://bob:Zq#Xw@127.0.0.1:{port}/chain",
          "question": "postgresql://bob:Zq?Xw@127.0.0.1:{port}/chain",
          "at": "postgresql://bob:Zq@Xw@127.0.0.1:{port}/chain",
          "percent": "postgresql://bob:Zq%Xw@127.0.0.1:{port}/chain",
          "space": "postgresql://bob:Zq Xw@127.0.0.1:{port}/chain",
          "encoded": "postgresql://bob:Zq%2FXw@127.0.0.1:{port}/chain"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_cli(args: list[str], url: str, tmp_path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    env["AUTOMANAGER_DATABASE_URL"] = url
    return subprocess.run([sys.executable, "-m", "automanager", *args, "--state-dir", str(tmp_path / "state")],
                          input="a soft taco\n", capture_output=True, text=True, timeout=90, env=env)


def one_line_without_the_password(done: subprocess.CompletedProcess[str]) -> str:
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output and "Zq" not in output and "Xw" not in output, output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), output
    return lines[0]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_password_is_masked_in_every_shape(shape):
    url = SHAPES[shape].format(port=5432)
    shown = redacted(url)
    assert "Zq" not in shown and "Xw" not in shown and shown == "postgresql://bob:***@127.0.0.1:5432/chain"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("command", [["state", "stock"], ["customer", "--backend", "offline"]])
def test_a_password_is_never_printed_by_the_cli(shape, command, tmp_path):
    line = one_line_without_the_password(run_cli(command, SHAPES[shape].format(port=free_port()), tmp_path))
    assert "AUTOMANAGER_DATABASE_URL" in line and "bob:***@127.0.0.1" in line
    if shape in ("slash", "at", "percent", "space"):  # libpq would misread or not read it: say how to write it
        assert "percent-encode" in line


def test_serve_never_prints_the_password(tmp_path):
    url = SHAPES["at"].format(port=free_port())
    line = one_line_without_the_password(run_cli(["serve", "--backend", "offline", "--port", str(free_port())], url,
                                                 tmp_path))
    assert "%40" in line


def test_help_never_prints_the_password(tmp_path):
    for command in (["serve", "--help"], ["customer", "--help"], ["--help"]):
        env = {**os.environ, "AUTOMANAGER_DATABASE_URL": SHAPES["at"].format(port=5432)}
        done = subprocess.run([sys.executable, "-m", "automanager", *command], capture_output=True, text=True,
                              timeout=60, env=env)
        assert done.returncode == 0 and "Zq" not in done.stdout + done.stderr


@pytest.mark.parametrize("url", ["postgresql://[::1/db", "postgresql://bob:Zq@[::1/db", "host=h password=Zq"])
def test_a_malformed_url_is_one_line_never_a_traceback(url, tmp_path):
    line = one_line_without_the_password(run_cli(["state", "stock"], url, tmp_path))
    assert "AUTOMANAGER_DATABASE_URL" in line and "postgresql://" in line


# -- store rules: nothing changes, or is given away, beyond what the manager confirmed ------------------


@pytest.fixture
def home(tmp_path):
    return Home(tmp_path / "state")


def saved(home: Home, *lines: str) -> tuple[list[str], Menu]:
    """The replies to `lines` then 'save', and the menu the save published."""
    chat = ManagerChat(home)
    replies = [chat.turn(line).reply for line in [*lines, "save"]]
    return replies, Menu.load(home.menu_files(home.latest_version()))


def price(menu: Menu, item: str) -> int:
    return dict(menu.facts["original_price"])[item]


@pytest.mark.parametrize("line", ["wendsday chicken quesadillas are 2.99", "wednesday chicken quesadillas are 2.99",
                                  "tuesdya chicken quesadillas are $2.99", "chicken quesadillas are $2.99 on ednesdays"])
def test_a_day_said_with_a_price_never_becomes_every_days_price(line, home):
    chat = ManagerChat(home)
    first = chat.turn(line).reply
    assert "?" in first and "changes from" not in first, first  # asked about, as a deal or a doubted day
    replies, menu = saved(home, "no")
    assert price(menu, "Chicken Quesadilla") == 419 and menu.facts.get("deal_price", []) == []


def test_a_misspelt_day_reads_back_the_deal_on_that_day(home):
    replies, menu = saved(home, "wendsday chicken quesadillas are 2.99", "yes")
    assert "Chicken Quesadilla at $2.99 each on Wednesdays?" in replies[0]
    assert ("Chicken Quesadilla", 299, 4) in menu.facts["deal_price"] and price(menu, "Chicken Quesadilla") == 419


@pytest.mark.parametrize(("line", "reason"), [("-10% off every order", "not -10"),
                                               ("minus 10 percent off every order", "not -10"),
                                               ("take -$3 off orders over $20", "more than nothing"),
                                               ("10% off orders over -5 dollars", "below nothing (-$5.00)")])
def test_a_minus_sign_is_kept_and_refused_with_why(line, reason, home):
    replies, menu = saved(home, line, "yes")
    assert reason in replies[0] and "no rule" in replies[0], replies[0]
    assert menu.facts.get("deal_off", []) == [] or home.latest_version() == 0


def test_a_deal_on_one_pack_size_lands_on_exactly_that_item(home):
    replies, menu = saved(home, "cinnabon delights 12 pack for $5 on fridays", "yes")
    assert "Cinnabon Delights® 12 Pack at $5.00 each on Fridays?" in replies[0], replies[0]
    assert menu.facts["deal_price"] == [("Cinnabon Delights® 12 Pack", 500, 16)]


def test_a_deal_on_an_item_sold_in_pack_sizes_names_the_size(home):
    chat = ManagerChat(home)
    reply = chat.turn("cinnabon delights for $1 on fridays").reply
    assert "2 Pack" not in reply and "12 Pack" not in reply and "Make it a rule" not in reply, reply


@pytest.mark.parametrize(("line", "rule"), [
    ("100% off every order", "100% off every order"),
    ("100 percent off orders over $20", "100% off orders of $20.00 or more"),
    ("$20 off orders of $20 or more", "$20.00 off orders of $20.00 or more"),
    ("a free Cantina Chicken Bowl with every My Cravings Box", "a free Cantina Chicken Bowl with every My Cravings Box"),
    ("a free Cantina Chicken Bowl with any combo", "a free Cantina Chicken Bowl with every combo")])
def test_a_rule_that_gives_everything_away_needs_a_second_yes(line, rule, home):
    replies, menu = saved(home, line, "yes", "no")
    assert "Are you sure?" in replies[1] and rule in replies[1], replies[1]
    assert "not made" in replies[2] and home.latest_version() == 0  # nothing was staged: nothing saved
    replies, menu = saved(home, line, "yes", "yes")
    assert "Staged" in replies[2] and home.latest_version() == 1


def test_an_ordinary_rule_still_takes_one_yes(home):
    replies, menu = saved(home, "10% off orders over $20", "yes")
    assert "Staged" in replies[1] and menu.facts["deal_off"] == [("percent", 10, 2000)]
