"""The LLM's circuit breaker: an outage (a server that is down, or one that accepts the connection
and never answers) costs the chat at most one deadline; the turns after it are read offline at
once, with one line to the person, and a background probe brings the LLM back when it answers."""

from __future__ import annotations

import socket
import time

import pytest
from fake_openai import FakeOpenAI

from automanager.llm.breaker import Breaker, Late, within
from automanager.llm.openai_backend import LLMConfig
from automanager.star import NOT_ANSWERING, CustomerChat
from automanager.store import Home

LINES = ["a bean burrito", "and two crunchy tacos", "a large pepsi", "no onions on the burrito", "what's in a chalupa",
         "make the pepsi a diet pepsi", "one more taco", "how much is that", "that's all", "no thanks", "two nachos"]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens here once the socket is closed


def config(url: str, retries: int = 2, **kw) -> LLMConfig:
    return LLMConfig(model="fake-model", base_url=url, api_key="x", timeout=30.0, max_retries=retries, deadline=0.5,
                     **kw)


def wait_for(condition, limit: float = 10.0) -> bool:
    """Poll a condition a bounded time (a background thread's progress, not a timing check)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.mark.parametrize("outage", ["down", "hangs"])
def test_an_outage_costs_one_deadline_and_the_next_turns_are_read_offline(tmp_path, outage):
    with FakeOpenAI() as fake:
        url = f"http://127.0.0.1:{closed_port()}/v1" if outage == "down" else fake.url
        fake.parses.extend([{"delay": 5, "then": {"predicates": [{"predicate": "irrelevant"}]}}] * 3)
        chat = CustomerChat(Home(tmp_path), None, config(url, cool_down=60))
        first = chat.step(LINES[0])
        assert first.llm["answered_by"] == "offline" and first.llm["notice"] == NOT_ANSWERING
        assert "within" in first.llm["fallback"] or "Connection" in first.llm["fallback"], first.llm["fallback"]
        assert [u["item"] for u in chat.order()] == ["Bean Burrito"]  # the offline parser took the turn
        for line in LINES[1:]:
            turn = chat.step(line)
            assert turn.llm["calls"] == 0 and turn.llm["answered_by"] == "offline", line  # no call in the turn
            assert turn.llm["notice"] is None and "not answering" in turn.llm["fallback"]
        assert len(fake.parse_requests) <= 1  # only the first turn ever reached the hanging server


def test_a_probe_that_answers_brings_the_llm_back(tmp_path):
    with FakeOpenAI() as fake:
        fake.parses.append({"status": 500})
        chat = CustomerChat(Home(tmp_path), None, config(fake.url, retries=0, cool_down=0.05))
        assert chat.step("a bean burrito").llm["notice"] == NOT_ANSWERING
        assert wait_for(chat.llm.breaker.allows)  # the background probe (GET /models) answered
        fake.parses.append({"predicates": [{"predicate": "order", "food": "soft taco", "quantity": 2}]})
        turn = chat.step("two soft tacos")
        assert turn.llm["answered_by"] == "llm" and turn.llm["calls"] == 1


def test_a_failing_probe_doubles_the_cool_down_up_to_its_ceiling():
    tries = []

    def probe():
        tries.append(1)
        raise OSError("down")

    breaker = Breaker(probe, first=0.01, ceiling=0.04)
    assert breaker.failed() and not breaker.allows() and not breaker.failed()  # told once
    assert wait_for(lambda: len(tries) >= 4)
    assert breaker.cool_down == 0.04 and not breaker.allows()


def test_within_bounds_a_step_and_passes_its_answer_and_errors():
    assert within(1.0, lambda: 42) == 42
    with pytest.raises(ValueError):
        within(1.0, lambda: int("x"))
    with pytest.raises(Late):
        within(0.05, lambda: time.sleep(2))


def test_status_says_what_reads_the_lines(tmp_path):
    from automanager.repl import as_text, command

    with FakeOpenAI() as fake:
        fake.parses.append({"status": 500})
        chat = CustomerChat(Home(tmp_path), None, config(fake.url, retries=0, cool_down=60))
        assert command("/status", chat)["llm"] == "answering"
        chat.step("a bean burrito")
        shown = command("/status", chat)
        assert shown["llm"] == "not answering" and shown["backend"] == "fake-model"
        assert "built-in parser" in str(as_text(shown))
    offline = CustomerChat(Home(tmp_path / "offline"))
    assert command("/status", offline)["llm"] == "none" and command("/status", offline)["backend"] == "offline"
