"""Orders as records: a closed order is recorded exactly once (a retried turn, a process killed
with kill -9 between the record and the session's save), the store's sales tax is the rules' to
the cent, and the day's report is a plain sum over the recorded orders. On both engines."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from automanager import paths
from automanager.acts import Order, Review
from automanager.bots.assistant import Assistant
from automanager.cli import app
from automanager.language.customer_templates import CustomerTemplates
from automanager.language.english import dollars
from automanager.menu.model import Menu
from automanager.orders import Line, OrderBook, PlacedOrder, tax_thousandths
from automanager.receipt import receipt_text
from automanager.report import day_report
from automanager.star import CustomerChat
from automanager.state import State
from automanager.store import Home, StateUnavailable

MENU = Menu.load(paths.kb_files())
ASSISTANT = Assistant(MENU.files)
DISHES = sorted(d for d, in MENU.facts["dish"] if d not in MENU.combos)[:40]
CLOSE = ["two bean burritos and a large pepsi", "that's all", "no", "no"]  # ordered, asked, summary, closed
REPO = Path(__file__).resolve().parents[1]


def closed_order(home: Home, lines: list[str] = CLOSE) -> CustomerChat:
    chat = CustomerChat(home)
    for line in lines:
        chat.turn(line)
    assert chat.ended
    return chat


# ---- tax: the rules' arithmetic against the test's own -----------------------------------------------

def half_up(cents: Decimal) -> int:
    return int(cents.quantize(Decimal(1), rounding=ROUND_HALF_UP))


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(DISHES), st.integers(1, 4)), min_size=1, max_size=4, unique_by=lambda x: x[0]),
       st.integers(0, 30_000))
def test_tax_is_the_rate_on_the_total_rounded_half_up_once_per_order(lines, rate):
    said = [Order(dish, n, line) for line, (dish, n) in enumerate(lines, start=1)]
    decision = ASSISTANT.decide(said, State(), [], tax=rate)
    state = decision.state
    bill = ASSISTANT.decide([Review()], state, [], tax=rate).actions["board_bill"][0]
    subtotal, discount, tax, paid = bill
    prices = dict(MENU.facts["original_price"])
    assert subtotal == sum(prices[dish] * n for dish, n in lines)  # plain dishes, no options said
    assert tax == half_up(Decimal(subtotal - discount) * rate / 100_000)
    assert paid == subtotal - discount + tax


POLICY = {name: MENU.facts[name][0][0] for name in ("max_item_price", "max_line_quantity", "max_order_quantity")}


@st.composite
def big_orders(draw):
    """Lines of dishes at any store price the policy allows, as many as it allows in one order."""
    left, lines = POLICY["max_order_quantity"], []
    for dish in draw(st.lists(st.sampled_from(DISHES), min_size=1, max_size=4, unique=True)):
        if left:
            most = min(left, POLICY["max_line_quantity"])
            n = draw(st.integers(1, most) | st.just(most))  # the limits themselves drawn often
            lines.append((dish, n, draw(st.integers(1, POLICY["max_item_price"]) | st.just(POLICY["max_item_price"]))))
            left -= n
    return lines


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(big_orders(), st.integers(0, 30_000) | st.just(30_000))
def test_the_rules_total_the_spoken_total_and_the_receipt_agree_to_the_cent_at_any_size(lines, rate):
    said = [Order(dish, n, line) for line, (dish, n, _) in enumerate(lines, start=1)]
    prices = {dish: cents for dish, _, cents in lines}
    state = ASSISTANT.decide(said, State(), [], prices=prices, tax=rate).state
    actions = ASSISTANT.decide([Review()], state, [], prices=prices, tax=rate).actions
    subtotal, discount, tax, paid = actions["board_bill"][0]
    assert subtotal == sum(n * cents for _, n, cents in lines) and discount == 0
    assert tax == half_up(Decimal(subtotal) * rate / 100_000) >= 0
    assert paid == subtotal + tax > 0
    spoken = CustomerTemplates.tax_text(actions)
    assert spoken == (f" plus {dollars(tax)} tax, {dollars(paid)} in all" if tax else "")
    order = PlacedOrder(1, "main", "s", 1, "chat", "2026-12-07T12:00:00",
                        tuple(Line(n, dish, dish, "", cents) for dish, n, cents in lines), subtotal, 0, tax, paid, "open", None)
    assert receipt_text(order, "R").splitlines()[-1].split()[-1] == dollars(paid)


def test_the_largest_order_of_the_policy_is_taxed_right():
    """Three $50.00 items, twenty of each, at 8.875%: $3,266.25 (the product of the total and the
    rate is past clingo's 32 bits)."""
    dishes = DISHES[:3]
    prices = dict.fromkeys(dishes, 5000)
    state = ASSISTANT.decide([Order(dish, 20, line) for line, dish in enumerate(dishes, start=1)], State(), [],
                             prices=prices, tax=8875).state
    actions = ASSISTANT.decide([Review()], state, [], prices=prices, tax=8875).actions
    assert actions["board_bill"] == [(300000, 0, 26625, 326625)]
    assert CustomerTemplates.tax_text(actions) == " plus $266.25 tax, $3,266.25 in all"


@pytest.mark.parametrize("said, thousandths", [("8.875", 8875), ("8.25%", 8250), ("0", 0), (" 7 ", 7000), ("30", 30000)])
def test_a_tax_rate_is_read_as_a_person_writes_it(said, thousandths):
    assert tax_thousandths(said) == thousandths


@pytest.mark.parametrize("said", ["abc", "-1", "30.5", "8.8755", "825", ""])
def test_a_tax_rate_that_is_none_is_refused_saying_why(said):
    with pytest.raises(ValueError, match="percentage|0 to 30%"):
        tax_thousandths(said)


# ---- exactly once --------------------------------------------------------------------------------------

def test_a_closed_order_is_recorded_once_with_its_lines_and_money(tmp_path, engine):
    home = Home(tmp_path)
    OrderBook(home).set_tax_rate(8875)
    chat = closed_order(home)
    [order] = OrderBook(home).open_tickets()
    assert order.session == chat.session_id and order.ticket == 1 and order.source == "chat"
    assert [(line.quantity, line.food) for line in order.lines] == [(2, "Bean Burrito"), (1, "Pepsi®")]
    assert order.lines[1].item == "large Pepsi®"
    assert (order.subtotal, order.discount, order.total) == (428, 0, 428 + order.tax)
    assert order.tax == half_up(Decimal(428) * 8875 / 100_000) == 38
    chat.turn("thanks, bye")  # a last word to the closed order: no second order
    closed_order(home, ["a crunchy taco", "that's all", "no", "no"])  # the next car: the next ticket
    assert [o.ticket for o in OrderBook(home).open_tickets()] == [1, 2]


def test_a_close_said_again_after_its_save_failed_is_recorded_once(tmp_path, engine, monkeypatch):
    home = Home(tmp_path)
    chat = CustomerChat(home)
    for line in CLOSE[:-1]:
        chat.turn(line)
    save = Home.save_session
    failing = {"left": 1}

    def save_once_failing(self, *args, **kwargs):
        if failing["left"]:
            failing["left"] -= 1
            raise StateUnavailable("disk full (test)")
        return save(self, *args, **kwargs)

    monkeypatch.setattr(Home, "save_session", save_once_failing)
    with pytest.raises(StateUnavailable):
        chat.turn(CLOSE[-1])  # recorded, then not saved: the customer says it again
    assert not chat.ended
    chat.turn(CLOSE[-1])
    assert chat.ended
    orders = OrderBook(home).open_tickets()
    assert len(orders) == 1 and orders[0].ticket == 1


KILLED = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from automanager.orders import OrderBook
    from automanager.star import CustomerChat
    from automanager.store import Home
    place = OrderBook.place
    def place_then_die(self, *args, **kwargs):
        place(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)  # recorded, the session not saved yet
    OrderBook.place = place_then_die
    home = Home(Path(sys.argv[1]))
    chat = CustomerChat(home, sys.argv[2])
    chat.turn(sys.argv[3])
""")


def test_a_process_killed_mid_close_leaves_one_order_when_the_close_is_said_again(tmp_path, engine):
    home = Home(tmp_path)
    chat = CustomerChat(home)
    for line in CLOSE[:-1]:
        chat.turn(line)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path), chat.session_id, CLOSE[-1]], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert len(OrderBook(home).open_tickets()) == 1  # it was recorded before the kill
    again = CustomerChat(Home(tmp_path), chat.session_id)  # the session as last saved: not closed
    assert not again.ended
    again.turn(CLOSE[-1])
    assert again.ended
    [order] = OrderBook(home).open_tickets()
    assert order.ticket == 1 and order.session == chat.session_id


# ---- the kitchen's bump and recall, lost sales and the day's report -------------------------------------

def test_bump_takes_a_ticket_off_and_recall_brings_the_last_one_back(tmp_path, engine):
    home = Home(tmp_path)
    for _ in range(3):
        closed_order(home)
    book = OrderBook(home)
    first, second, third = book.open_tickets()
    assert book.bump(second.id) and not book.bump(second.id)  # bumped once
    assert [o.ticket for o in book.open_tickets()] == [1, 3]
    recalled = book.recall()
    assert recalled is not None and recalled.ticket == 2
    assert [o.ticket for o in book.open_tickets()] == [1, 2, 3]
    assert book.recall() is None  # nothing bumped is left to recall


def placed_orders(home: Home, count: int) -> list[PlacedOrder]:
    """`count` orders placed straight into the book (no chat): tickets 1..count."""
    book = OrderBook(home)
    return [book.place(f"s{n}", "chat", [Line(1, "Pepsi®", "Pepsi®", "", 100)], (100, 0, 0, 100))
            for n in range(count)]


def test_recall_brings_back_the_ticket_bumped_last_when_bumps_share_a_second(tmp_path, engine):
    """bumped_at is to the second: the bump number, not the time, says which came last."""
    home = Home(tmp_path)
    home.clock = datetime(2026, 11, 25, 12, 0)  # every bump in the same second
    one, two, three = placed_orders(home, 3)
    book = OrderBook(home)
    for order in (three, one, two):
        assert book.bump(order.id)
    assert [book.recall().ticket for _ in range(3)] == [2, 1, 3]  # type: ignore[union-attr]
    assert book.recall() is None
    assert book.bump(three.id) and book.bump(one.id)  # bumped again after a recall: last again
    assert book.recall().ticket == 1  # type: ignore[union-attr]
    assert book.bump(one.id) and book.recall().ticket == 1  # type: ignore[union-attr]


def test_bumps_at_once_each_get_their_own_number_and_recall_goes_back_in_their_order(tmp_path, engine):
    from concurrent.futures import ThreadPoolExecutor

    home = Home(tmp_path)
    home.clock = datetime(2026, 11, 25, 12, 0)
    orders = placed_orders(home, 12)

    def bump(order: PlacedOrder) -> bool:
        kitchen = Home(tmp_path)  # a terminal or service of its own: a connection of its own
        kitchen.clock = home.clock
        try:
            return OrderBook(kitchen).bump(order.id)
        finally:
            kitchen.close()

    with ThreadPoolExecutor(6) as pool:
        assert all(pool.map(bump, orders))
    numbered = home.read("SELECT bump_number, ticket FROM placed_order WHERE store = ? ORDER BY bump_number",
                         (home.store,))
    assert [number for number, _ in numbered] == list(range(1, 13))  # strictly increasing, none shared
    book = OrderBook(home)
    assert [book.recall().ticket for _ in range(12)] == [t for _, t in reversed(numbered)]  # type: ignore[union-attr]


def test_the_kitchen_s_recall_route_brings_back_the_ticket_bumped_last(tmp_path, engine):
    from fastapi.testclient import TestClient

    from automanager.service.app import create_app

    home = Home(tmp_path)
    home.clock = datetime(2026, 11, 25, 12, 0)
    first, second = placed_orders(home, 2)
    with TestClient(create_app(home), raise_server_exceptions=False) as client:
        kitchen = {"Authorization": f"Bearer {(tmp_path / 'kitchen-token').read_text().strip()}"}
        for order in (second, first):
            assert client.post(f"/api/kitchen/tickets/{order.id}/bump", headers=kitchen).status_code == 200
        recalled = client.post("/api/kitchen/recall", headers=kitchen)
        assert recalled.status_code == 200 and recalled.json()["ticket"] == 1, recalled.text
        assert [t["ticket"] for t in client.get("/api/kitchen/tickets", headers=kitchen).json()] == [1]


def test_the_days_report_is_a_sum_over_the_recorded_orders(tmp_path, engine):
    home = Home(tmp_path)
    home.clock = datetime(2026, 11, 25, 12, 5)
    OrderBook(home).set_tax_rate(7250)
    closed_order(home)
    closed_order(home, ["three crunchy tacos and a cheesy gordita crunch", "that's all", "no", "no"])
    home.clock = datetime(2026, 11, 25, 18, 40)
    closed_order(home, ["a bean burrito", "that's all", "no", "no"])
    home.clock = datetime(2026, 11, 26, 9, 0)  # another day: not in the report
    closed_order(home)
    orders = OrderBook(home).placed_between(datetime(2026, 11, 25), datetime(2026, 11, 26))
    report = day_report(home, datetime(2026, 11, 25).date())
    assert report.orders == len(orders) == 3
    assert report.revenue == sum(o.total for o in orders)
    assert report.tax == sum(o.tax for o in orders)
    assert report.sales == sum(o.subtotal - o.discount for o in orders)
    assert report.average_ticket == half_up(Decimal(report.sales) / 3)
    assert [(h["hour"], h["orders"]) for h in report.per_hour] == [(12, 2), (18, 1)]
    sold = {i["item"]: i["quantity"] for i in report.top_items}
    assert sold == {"Bean Burrito": 3, "Crunchy Taco": 3, "Pepsi®": 1, "Cheesy Gordita Crunch": 1}
    result = CliRunner().invoke(app, ["report", "--day", "2026-11-25", "--csv", "--state-dir", str(tmp_path)])
    assert result.exit_code == 0 and f"day,revenue,{report.revenue}," in result.output


def test_what_ran_out_is_counted_with_its_value_in_the_report(tmp_path, engine):
    home = Home(tmp_path)
    home.clock = datetime(2026, 11, 25, 13, 0)
    home.set_stock("Refried Beans", out=True)
    chat = CustomerChat(home)
    chat.turn("two bean burritos and a crunchy taco")
    report = day_report(home, datetime(2026, 11, 25).date())
    price = dict(MENU.facts["original_price"])["Bean Burrito"]
    assert report.lost == [{"item": "Bean Burrito", "quantity": 2, "cents": 2 * price}]
    assert report.lost_value == 2 * price


def test_a_turn_run_again_after_its_save_failed_counts_its_lost_sale_once(tmp_path, engine, monkeypatch):
    """A refused line retried (the store answered 503, the page sent it again) is one lost sale."""
    home = Home(tmp_path)
    home.clock = datetime(2026, 11, 25, 13, 0)
    home.set_stock("Refried Beans", out=True)
    chat = CustomerChat(home)
    saving = Home.save_session

    def unavailable(*args, **kwargs):
        raise StateUnavailable("the store is busy")

    for _ in range(3):
        monkeypatch.setattr(Home, "save_session", unavailable)
        with pytest.raises(StateUnavailable):
            chat.turn("two bean burritos")
    monkeypatch.setattr(Home, "save_session", saving)
    chat.turn("two bean burritos")
    chat.turn("ok, a bean burrito then")  # asked again in another turn: lost again
    price = dict(MENU.facts["original_price"])["Bean Burrito"]
    assert day_report(home, datetime(2026, 11, 25).date()).lost == [
        {"item": "Bean Burrito", "quantity": 3, "cents": 3 * price}]
