"""Numbers set in the environment (AUTOMANAGER_LLM_TIMEOUT, AUTOMANAGER_GROUND_SECONDS...), read
one way: a setting that cannot be used is refused with its name and what to set, at start."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar


class ConfigError(ValueError):
    """A setting in the environment cannot be used; the message names it and what to set."""


Number = TypeVar("Number", int, float)  # a setting read from the environment


def setting(name: str, kind: Callable[[str], Number], default: Number, wanted: str,
            usable: Callable[[Number], bool]) -> Number:
    """A number from the environment (unset or empty: `default`), refused when not `usable`."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    number: Number | None
    try:
        number = kind(raw)
    except ValueError:
        number = None
    if number is None or not usable(number):
        raise ConfigError(f"{name}={raw!r} is not {wanted}: set it to one (the default is {default}), or unset it")
    return number


NOW_SETTING = "AUTOMANAGER_NOW"  # a fixed local time for the bots' clock (tests, demos): ISO 8601


def fixed_now() -> datetime | None:
    """$AUTOMANAGER_NOW as a local time ('2026-11-25T09:15'), else None (the machine's clock)."""
    raw = os.environ.get(NOW_SETTING, "").strip()
    if not raw:
        return None
    return local_time(raw, NOW_SETTING)


def local_time(raw: str, name: str) -> datetime:
    """A local time said in ISO 8601 ('2026-11-25T09:15'), refused with `name` when it is none."""
    try:
        return datetime.fromisoformat(raw).replace(tzinfo=None)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a local time: set it like 2026-11-25T09:15, or unset it") from None
