"""A circuit breaker for the LLM: an outage costs one turn at most one deadline, not every turn.

A failed or late LLM step opens the breaker: the chat reads with the offline parser at once, for
a cool-down that doubles on each failed probe up to a ceiling, while a background thread probes
the server (never in a customer's turn); the first probe that answers closes it again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Late(Exception):
    """The LLM step did not finish within its deadline."""


def within(deadline: float, step: Callable[[], T]) -> T:
    """step(), or Late when it takes longer than `deadline` seconds: the whole LLM step of a turn
    (re-asks and the client's retries included) is bounded, whatever the client does. A late step
    finishes in its daemon thread and its answer is dropped."""
    done = threading.Event()
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = step()
        except BaseException as exc:  # handed to the caller's thread as it is
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="llm-step", daemon=True).start()
    if not done.wait(deadline):
        raise Late(f"no answer within {deadline:g} s")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


class Breaker:
    def __init__(self, probe: Callable[[], object], first: float = 5.0, ceiling: float = 300.0):
        self.probe, self.first, self.ceiling = probe, first, ceiling
        self.cool_down = first
        self.open = False
        self.lock = threading.Lock()

    def allows(self) -> bool:
        """May this turn call the LLM?"""
        return not self.open

    def failed(self) -> bool:
        """The LLM step failed or was late: open, and start probing. True when this opened it (the
        one moment to tell the person)."""
        with self.lock:
            if self.open:
                return False
            self.open = True
        threading.Thread(target=self.probing, name="llm-probe", daemon=True).start()
        return True

    def probing(self) -> None:
        while True:
            time.sleep(self.cool_down)
            try:
                self.probe()
            except Exception:  # any failure of the probe: wait longer and try again
                self.cool_down = min(self.cool_down * 2, self.ceiling)
                continue
            with self.lock:
                self.open, self.cool_down = False, self.first
            return
