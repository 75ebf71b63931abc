"""What the offline parsers and the LLM's structured reader share: the contexts a line is read
in (the bot's last question, the order so far, the item being built), the parse results both paths
return, and reading the values both paths meet: money in cents and new names as said."""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from decimal import Decimal

from ..acts import Act, Guess
from ..vocab import bounded
from .text import number_at, tokenize

MONEY = re.compile(r"(-?)\s*\$\s*(-?\d+(?:\.\d{1,2})?)|(-?\d+(?:\.\d{1,2})?)\s*(dollars?|bucks|usd)\b|"
                   r"(-?\d+)\s*cents?\b")
NAME_CHARS = re.compile(r"[^\w\s'&®™\-]")
MAX_NAME = 60


@dataclass
class Context:
    """What the bot said last: the question, the suggestions, the order so far, and the food
    the customer last asked about (what "one of those" means)."""

    ask_target: str | None = None
    ask_topic: str | None = None  # options | which | size | choice(...) | else | more
    ask_group: list[str] = field(default_factory=list)  # the dishes a question of a kind is about
    recommended_items: list[str] = field(default_factory=list)
    recommended_toppings: list[tuple[str, str]] = field(default_factory=list)  # (dish, topping)
    ordered: list[str] = field(default_factory=list)  # foods in order of first unit
    units: dict[str, int] = field(default_factory=dict)  # how many units of each food the order holds
    discussed: str | None = None
    discussed_quantity: int = 1
    discussed_size: str | None = None
    said_unknown: bool = False  # the last line named something not on the menu
    asked_price: bool = False  # the last line asked a price ("and a large one?" asks it too)
    refused: str | None = None  # the food the last line was refused (what "why can't I have it" means)
    held: bool = False  # the bot asked which unit a change is for ("the soft one" answers it)
    pending: bool = False  # the last line was half heard: its changes wait for a yes
    asked_kind: tuple[str, int] | None = None  # the last line asked which food of a kind (and how many)


    @property
    def several(self) -> list[str]:
        """The foods of more than one unit ("the pizza" of two: alike?)."""
        return sorted(food for food, n in self.units.items() if n > 1)


@dataclass
class Parse:
    acts: list[Act]
    unknown: list[str]  # phrases that looked like menu names and are not on the menu
    corrected: list[tuple[str, str, str]]  # (what was said, the menu name it was read as, how)
    unread: list[str] = field(default_factory=list)  # unknown words (talk too) and cue words no cue took: a heard line's doubt


def asked_not_taken(result: Parse) -> None:
    """Names the matcher was only fairly sure of become questions ("Did you mean the X?", a yes
    orders it), never orders: guess/1 for each, and they leave the list of corrections."""
    guesses = dict.fromkeys(name for _, name, how in result.corrected if how == "unsure")
    result.acts += [Guess(name) for name in guesses]
    result.corrected = [c for c in result.corrected if c[2] != "unsure"]


@dataclass
class ManagerContext:
    """The item being built and the bot's last question."""

    building: str | None = None
    build_type: str | None = None  # dish | combo | unknown
    ask_target: str | None = None
    ask_topic: str | None = None  # type | category | price | ingredient | calories | popular | contains | new_ingredient
    last_item: str | None = None  # the item of the last staged change ("knock another quarter off it")
    last_move: int = 0  # the way the last staged price change went (1 up, -1 down)
    last_stock: str = ""  # runout | restore: last turn's stock news ("sour cream too" says it again)


@dataclass
class ManagerParse:
    acts: list[Act]
    unknown: list[str] = field(default_factory=list)
    corrected: list[tuple[str, str, str]] = field(default_factory=list)  # (said, KB name, how)
    hint: str = ""  # what to say when the sentence was almost understood
    skipped: int = 0  # names of a list past MAX_LIST, not read
    moving: int = 0  # the way the last price move of this line went (1 up, -1 down), for "and Y by a dime"
    last_edited: str | None = None
    read_as: dict[str, str] = field(default_factory=dict)  # ingredient -> the dish whose words named it
    heard: set[str] = field(default_factory=set)  # words a reading took that name no mention ("the freezes")
    unheard: list[str] = field(default_factory=list)  # words of a change's line no reading took (heard.py)
    doubted: list[str] = field(default_factory=list)  # words read with a name they may only describe ("chicken nachos")


def said_name(raw: str) -> str | None:
    """A name as it was said, tidied (no stray marks, no article first); None if it is not a name."""
    name = " ".join(NAME_CHARS.sub(" ", raw).split()).strip(" -'")
    name = re.sub(r"^(?:a|an|the)\s+", "", name, flags=re.IGNORECASE)
    if not name or len(name) > MAX_NAME or not re.search(r"[^\W\d_]", name):
        return None
    return name


def new_name(raw: str) -> str | None:
    """A new dish, combo or ingredient name as the manager said it, tidied and capitalized."""
    name = said_name(raw)
    return string.capwords(name) if name and name == name.lower() else name


def three_decimals(text: str) -> bool:
    """'$3.499' is no price: it is refused, never cut to $3.49."""
    return bool(re.search(r"(?<![\d.])\$?\s*\d+\.\d{3,}\b", text))


def cents(text: str, bare_is_price: bool = False) -> int | None:
    """'$3.49', '3.49 dollars', '349 cents', 'free' (0, which the rules refuse), 'minus two
    dollars' (negative, refused too), and a bare '3.49' when a price was asked for."""
    if re.search(r"\bfree\b", text):
        return 0
    sign = -1 if re.search(r"\b(minus|negative)\b", text) else 1
    spoken = spoken_money(tokenize(text))
    if spoken is not None:  # "4 dollars and 29 cents", "a buck fifty"
        return bounded(sign * spoken)
    m = MONEY.search(text)
    if m:
        if m.group(2) is not None:  # "minus $3.50" is as negative as "-$3.50"
            return in_cents(m.group(2), negative=bool(m.group(1)) or (sign < 0 and m.group(2)[0] != "-"))
        if m.group(3) is not None:
            return in_cents(m.group(3), negative=sign < 0 and m.group(3)[0] != "-")
        return bounded(m.group(5)) * (sign if m.group(5)[0] != "-" else 1)
    if bare_is_price:  # a number with cents first: "the g2 drink is 0.01" is 1 cent, not $2
        m = re.search(r"-?\d+\.\d{1,2}\b", text) or re.search(r"-?\d+(?:\.\d{1,2})?", text)
        if m:
            return in_cents(m.group(), negative=sign < 0 and m.group()[0] != "-")
    return None


def spoken_money(tokens: list[str]) -> int | None:
    """Cents of an amount said in words: 'two dollars', 'a buck fifty', 'three dollars and ten
    cents', 'four bucks 99'; None when no dollar word follows a number."""
    for i in range(len(tokens)):
        got = number_at(tokens, i) if "." not in tokens[i] else None  # "3.49 dollars" is MONEY's
        if not got or i + got[1] >= len(tokens) or tokens[i + got[1]] not in ("dollar", "dollars", "buck", "bucks"):
            continue
        amount, j = got[0] * 100, i + got[1] + 1
        j += 1 if tokens[j:j + 1] == ["and"] else 0
        extra = number_at(tokens, j) if j < len(tokens) and tokens[j] not in ("a", "an") else None
        if extra and extra[0] < 100:
            amount += extra[0]
        return amount
    return None


def in_cents(dollars: str, negative: bool = False) -> int:
    """'3.49' -> 349, exactly (no float rounding), within the vocabulary's number bound."""
    return bounded(int(Decimal(dollars).scaleb(2) * (-1 if negative else 1)))  # int(): toward zero, as bounded


CLOCK = re.compile(r"^\s*(?P<hour>\d{1,2})(?:[:.](?P<minute>\d{2}))?\s*(?P<half>[ap])?\.?\s*m?\.?\s*$")
CLOCK_WORDS = {"noon": 720, "midday": 720, "midnight": 0, "opening": 0, "open": 0, "closing": 1440, "close": 1440}


def clock_minutes(said: str) -> int | None:
    """A time of day as said ('10:30am', '5 pm', '17:00', '10.30', 'noon') in minutes after
    midnight; None when it is not one (an hour without am/pm is taken as said, 0-23)."""
    text = said.strip().lower()
    if text in CLOCK_WORDS:
        return CLOCK_WORDS[text]
    found = CLOCK.match(text)
    if not found:
        return None
    hour, minute, half = int(found.group("hour")), int(found.group("minute") or 0), found.group("half")
    if minute > 59 or hour > 24 or (half and not 1 <= hour <= 12):
        return None
    if half:
        hour = hour % 12 + (12 if half == "p" else 0)
    return min(hour * 60 + minute, 1440)
