"""The declared schema of a menu file (`menu.toml`): every table and field the format has, its type
and its limits, so a mistake is refused before any fact is made and named by file, line and field
("menu.toml, line 42, item "Margherita" field price: must be a whole number of cents, not 12.5").

The models are the format's reference (kb/packs/README.md shows them by example). Types are strict
(a float, a list or true where a whole number goes is a mistake, not a conversion) and unknown
fields are refused, so a misspelled field is named rather than silently ignored. TOML keeps no
line numbers, so `Lines` finds a mistake's line from the text: the `key =` line of the field, or
the header of its table."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
    ValidationError,
)
from pydantic_core import ErrorDetails

from .facts import MAX_INT, NAME, TEXT_RULE, BuildError, plain_text

MAX_FILE = 5_000_000  # bytes: a menu file of thousands of items is far smaller
MAX_DEPTH = 8  # brackets inside each other: the deepest the format needs, written all inline, is 5
MAX_ENTRIES = 10_000  # items, ingredients, categories, labels
MAX_LIST = 500  # words of a name, values of a group, includes, ... of one entry
MAX_CENTS = 1_000_000  # $10,000: any price or price change
MAX_CAL = 100_000  # any calorie count or change


def _text(value: str) -> str:
    if not plain_text(value):
        raise ValueError(TEXT_RULE)
    return value


Text = Annotated[StrictStr, AfterValidator(_text)]  # a name, word or text: becomes an ASP string
GroupName = Annotated[StrictStr, Field(pattern=f"^{NAME.pattern}$")]  # becomes an ASP constant
Price = Annotated[StrictInt, Field(gt=0, le=MAX_CENTS)]  # an item's price, cents
AddOn = Annotated[StrictInt, Field(ge=0, le=MAX_CENTS)]  # an ingredient's price, cents
Change = Annotated[StrictInt, Field(ge=-MAX_CENTS, le=MAX_CENTS)]  # what an option adds or takes off, cents
Cal = Annotated[StrictInt, Field(ge=0, le=MAX_CAL)]
CalChange = Annotated[StrictInt, Field(ge=-MAX_CAL, le=MAX_CAL)]
Policy = Annotated[StrictInt, Field(ge=0, le=MAX_INT)]
Words = Annotated[list[Text], Field(max_length=MAX_LIST)]
# "all" (every ingredient an item does not include) or a list; only the matching shape is tried
Clock = Annotated[StrictStr, Field(pattern=r"^([01]?[0-9]|2[0-3]):[0-5][0-9]$")]  # "06:00", "22:30"
DAYS = {"mon": 1, "tue": 2, "wed": 4, "thu": 8, "fri": 16, "sat": 32, "sun": 64, "weekdays": 31, "weekend": 96}
Day = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun", "weekdays", "weekend"]
Toppings = Annotated[Annotated[Literal["all"], Tag("all")] | Annotated[Words, Tag("list")],
                     Discriminator(lambda v: "all" if v == "all" else "list")]


class Table(BaseModel):
    """A table of the file: no conversions (12.5 is no whole number, "no" no false), no unknown field."""
    model_config = ConfigDict(extra="forbid", strict=True)


class Restaurant(Table):
    name: Text  # the bots greet with it


class PolicyTable(Table):
    """Caps and what the assistant asks (kb/README.md); a cap left out is the rules' default."""
    max_line_quantity: Policy | None = None
    max_order_quantity: Policy | None = None
    max_item_price: Policy | None = None
    max_item_calories: Policy | None = None
    readback_price_change_percent: Policy | None = None
    readback_runout_dishes: Policy | None = None
    combo_choices_named: Policy | None = None
    ask_questions: Annotated[list[GroupName], Field(max_length=MAX_LIST)] = []


class OptionValue(Table):
    text: Text | None = None  # how the bot says it; the value itself when left out
    words: Words = []
    price: Change = 0
    cal: CalChange = 0
    default: StrictBool = False
    contains: Words = []  # ingredients the value puts on the item: out of one, the value is out


class OptionGroup(Table):
    exclusive: StrictBool = False
    before_name: StrictBool = False
    settles: Annotated[list[GroupName], Field(max_length=MAX_LIST)] = []
    values: Annotated[dict[Text, OptionValue], Field(min_length=1, max_length=MAX_LIST)]


class Ingredient(Table):
    sauce: StrictBool = False
    price: AddOn = 0  # added as a topping
    cal: CalChange = 0
    extra_price: AddOn | None = None  # a double portion; none when left out
    extra_cal: CalChange = 0
    words: Words = []


class Hours(Table):
    """When something is served: from one time until another (an until before from runs past
    midnight), on the days listed (every day when left out)."""
    start: Clock = Field(alias="from")
    until: Clock
    days: Annotated[list[Day], Field(max_length=9)] = []

    def mask(self) -> int:
        """The days as the rules' weekday mask (mon 1 ... sun 64)."""
        mask = 0
        for day in self.days or ["weekdays", "weekend"]:
            mask |= DAYS[day]
        return mask

    def minutes(self, clock: str) -> int:
        hour, minute = clock.split(":")
        return int(hour) * 60 + int(minute)


# one window ({ from = "06:00", until = "10:30" }) or several ([{ ... }, { ... }])
ServingHours = Annotated[Annotated[Hours, Tag("one")] | Annotated[list[Hours], Field(max_length=14), Tag("list")],
                         Discriminator(lambda v: "list" if isinstance(v, list) else "one")]


class Offer(Table):
    """The values of an option group a category, an item or a combo offers, with what each adds."""
    values: Annotated[list[Text], Field(min_length=1, max_length=MAX_LIST)]
    prices: Annotated[dict[Text, Change], Field(max_length=MAX_LIST)] = {}
    cals: Annotated[dict[Text, CalChange], Field(max_length=MAX_LIST)] = {}
    default: Text | None = None


Offers = Annotated[dict[GroupName, Offer], Field(max_length=MAX_LIST)]


class Category(Table):
    made_to_order: StrictBool = False
    has_ingredients: StrictBool = True  # false: its items list none (drinks, bottled sides)
    toppings: Toppings = []
    popular_toppings: Words = []
    options: Offers = {}
    hours: ServingHours | None = None


class Item(Table):
    name: Text
    category: Text
    price: Price  # for the default options
    cal: Cal = 0
    words: Words = []
    best_seller: StrictBool = False
    by_the_order: StrictBool = False
    labels: Words = []
    includes: Words = []
    options: Offers = {}  # its own, over its category's for a group both name
    without_options: Annotated[list[GroupName], Field(max_length=MAX_LIST)] = []  # its category's it does not offer
    hours: ServingHours | None = None


class Choice(Table):
    """One choice a combo offers ("Side", "Drink"): the items it may be, listed or every item of
    a category, and what a pricier pick adds to the combo's price."""
    items: Words = []
    category: Text | None = None
    upcharges: Annotated[dict[Text, AddOn], Field(max_length=MAX_LIST)] = {}
    with_options: Annotated[dict[GroupName, Text], Field(max_length=MAX_LIST)] = {}  # every pick made so: large sides
    optional: StrictBool = False  # "no" to its question is an answer: the meal goes without it


class Combo(Table):
    name: Text
    price: Price  # with the plainest pick of each choice
    cal: Cal = 0
    number: Annotated[StrictInt, Field(ge=1, le=999)] | None = None  # "a number 2", "#2"
    words: Words = []
    best_seller: StrictBool = False
    parts: Annotated[dict[Text, Annotated[StrictInt, Field(ge=1, le=99)]], Field(max_length=MAX_LIST)] = {}
    choose: Annotated[dict[Text, Annotated[StrictInt, Field(ge=1, le=99)]], Field(max_length=MAX_LIST)] = {}
    # one pick of a choice for every so many pieces of its parts: one free sauce per 3 tenders
    choose_per_pieces: Annotated[dict[Text, Annotated[StrictInt, Field(ge=1, le=99)]], Field(max_length=MAX_LIST)] = {}
    options: Offers = {}  # meal sizes: "a large number 2"
    hours: ServingHours | None = None


class MenuSchema(Table):
    restaurant: Restaurant
    policy: PolicyTable = PolicyTable()
    options: Annotated[dict[GroupName, OptionGroup], Field(max_length=MAX_LIST)] = {}
    ingredients: Annotated[dict[Text, Ingredient], Field(max_length=MAX_ENTRIES)] = {}
    categories: Annotated[dict[Text, Category], Field(max_length=MAX_ENTRIES)] = {}
    labels: Annotated[dict[Text, Words], Field(max_length=MAX_ENTRIES)] = {}
    item: Annotated[list[Item], Field(max_length=MAX_ENTRIES)] = []
    choices: Annotated[dict[Text, Choice], Field(max_length=MAX_ENTRIES)] = {}
    combo: Annotated[list[Combo], Field(max_length=MAX_ENTRIES)] = []


Loc = tuple[str | int, ...]
PART = r'[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|\'[^\'\n]*+\''  # one key of a dotted key, bare or quoted
# what too_deep looks at: a dotted key of more than MAX_DEPTH keys, strings and comments (to skip
# the brackets in them) and brackets
TOKEN = re.compile(rf'(?P<dotted>(?<![A-Za-z0-9_.-])(?:{PART})(?:[ \t]*\.[ \t]*(?:{PART})){{{MAX_DEPTH},}})|'
                   r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]', re.S)


def too_deep(text: str) -> tuple[int, str] | None:
    """The line where tables nest deeper than MAX_DEPTH, and how; or None. Checked before tomllib,
    whose parser recurses once per bracket (a hostile file exhausts the stack) and takes time and
    memory growing with the square of a dotted key's length."""
    depth = 0
    for match in TOKEN.finditer(text):
        token = match.group()
        depth += 1 if token in ("[", "{") else -1 if token in ("]", "}") and depth else 0
        if match["dotted"] or depth > MAX_DEPTH:
            return text.count("\n", 0, match.start()) + 1, "dotted keys" if match["dotted"] else "brackets"
    return None


KEYS = rf"(?:{PART})(?:\s*\.\s*(?:{PART}))*"
HEADER = re.compile(rf"\s*(\[\[?)\s*({KEYS})\s*\]")
KEY_LINE = re.compile(rf"\s*({KEYS})\s*=")


def keys(dotted: str) -> tuple[str, ...]:
    """The keys of a dotted TOML key (`options."extra large".words`), unquoted as TOML reads them."""
    return tuple(unquoted(p) if p[0] in "\"'" else p for p in re.findall(PART, dotted))


def unquoted(key: str) -> str:
    try:
        return str(tomllib.loads(f"k = {key}")["k"])
    except tomllib.TOMLDecodeError:  # a line in a multi-line string that only looks like a key
        return key


class Lines:
    """Where each table and field of a menu file starts: the path of keys (an [[item]]'s number
    among the items as an int) to its line, read from the text because tomllib keeps none."""

    def __init__(self, text: str):
        self.at: dict[Loc, int] = {}
        table: Loc = ()
        counts: dict[Loc, int] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            if header := HEADER.match(line):
                path: Loc = keys(header.group(2))
                if header.group(1) == "[[":
                    counts[path] = counts.get(path, -1) + 1
                    path = (*path, counts[path])
                table = path
                self.mark(path, number, 1)
            elif key := KEY_LINE.match(line):
                self.mark((*table, *keys(key.group(1))), number, len(table) + 1)

    def mark(self, path: Loc, number: int, start: int) -> None:
        for end in range(start, min(len(path), MAX_DEPTH) + 1):  # deeper keys are no field of the format
            self.at.setdefault(path[:end], number)

    def line(self, loc: Loc) -> int | None:
        """The line of the field at loc, else of the nearest table around it that has one."""
        for end in range(len(loc), 0, -1):
            if loc[:end] in self.at:
                return self.at[loc[:end]]
        return None


def walk(data: object, error: ErrorDetails) -> Loc:
    """The part of a validation error's loc that names entries of the file (and a missing field):
    pydantic adds the tags of union members, which are no key of the file, and '[key]' for a bad
    key, which is kept to say so."""
    path: list[str | int] = []
    for part in error["loc"]:
        if isinstance(data, dict) and isinstance(part, str) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        elif part != "[key]":
            continue
        path.append(part)
    return (*path, error["loc"][-1]) if error["type"] == "missing" else tuple(path)


def quoted(text: str) -> str:
    return json.dumps(text[:40] + ("..." if len(text) > 40 else ""), ensure_ascii=False)


def field_name(path: Loc) -> str:
    """keys as TOML writes them (options.crust.prices."deep dish"), a list entry counted from 1."""
    out = ""
    for part in path:
        if part == "[key]":
            out += " (its name)"
        elif isinstance(part, int):
            out += f" (entry {part + 1})"
        else:
            out += ("." if out else "") + (part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else quoted(part))
    return out


ENTRY = {"ingredients": "ingredient", "categories": "category", "options": "option group", "labels": "label",
         "choices": "choice"}


def where(data: object, path: Loc) -> str:
    """Which entry and field path is: `item "House Special" field price`, `[policy] field ask_questions`."""
    head, rest = (path[0], path[1:]) if path else ("", ())
    raw = data.get(head) if isinstance(data, dict) else None
    if head in ("item", "combo") and rest and isinstance(rest[0], int) and isinstance(raw, list):
        name = raw[rest[0]].get("name") if isinstance(raw[rest[0]], dict) else None
        who, rest = (f"{head} {quoted(name)}" if isinstance(name, str) and plain_text(name)
                     else f"{head} {rest[0] + 1}"), rest[1:]
    elif head in ENTRY and rest and isinstance(rest[0], str) and rest[0] != "[key]":
        who, rest = f"{ENTRY[str(head)]} {quoted(rest[0])}", rest[1:]
    elif head in ("restaurant", "policy", "options", "ingredients", "categories", "labels", "choices"):
        who = f"[{head}]"
    else:
        who, rest = "", path
    field = field_name(rest)
    return f"{who}{field}" if field.startswith(" (") else " field ".join(part for part in (who, field) if part)


def shown(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict | list):
        return "a table" if isinstance(value, dict) else "a list"
    return quoted(value) if isinstance(value, str) else str(value)


def fields_at(path: Loc) -> list[str]:
    """The fields the table at path may have (to say what a misspelled field should be)."""
    kind: Any = MenuSchema
    for part in path:
        while get_origin(kind) is Annotated:
            kind = get_args(kind)[0]
        if isinstance(kind, type) and issubclass(kind, BaseModel) and isinstance(part, str):
            kind = kind.model_fields[part].annotation if part in kind.model_fields else None
        elif get_origin(kind) in (dict, list):
            kind = get_args(kind)[-1]
        else:
            return []
    while get_origin(kind) is Annotated:
        kind = get_args(kind)[0]
    return list(kind.model_fields) if isinstance(kind, type) and issubclass(kind, BaseModel) else []


def explain(error: ErrorDetails, path: Loc) -> str:
    """What is wrong, in the menu's words: what the field must be, and what it is."""
    kind, value, ctx = error["type"], error["input"], error.get("ctx", {})
    unit = (" cents" if {"price", "prices", "extra_price"} & set(path) else
            " calories" if {"cal", "cals", "extra_cal"} & set(path) else "")
    if kind in ("int_type", "int_from_float", "int_parsing"):
        return f"must be a whole number{unit and ' of' + unit}, not {shown(value)}"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        bound = {"greater_than": "more than", "greater_than_equal": "at least", "less_than": "less than",
                 "less_than_equal": "at most"}[kind]
        limit = next(iter(ctx.values()))
        return f"must be {bound} {limit:,}{unit}, not {shown(value)}"
    if kind == "extra_forbidden":
        known = fields_at(path[:-1])
        return "is no field of this table (misspelled?)" + (f"; it may have {', '.join(known)}" if known else "")
    if kind == "too_long":
        return f"has {ctx['actual_length']:,} entries; at most {ctx['max_length']:,}"
    if kind == "list_type" and path[-1:] == ("toppings",):
        return f'must be "all" or a list [...], not {shown(value)}'
    if kind == "string_pattern_mismatch" and path[-1:] in (("from",), ("until",)):
        return f'must be a time of day as "HH:MM" on a 24-hour clock ("06:00", "22:30"), not {shown(value)}'
    if kind == "string_pattern_mismatch":
        return f"{shown(value)}: use lowercase letters, digits and _ only (it becomes a name in the rules)"
    if kind in ("model_type", "dict_type") and "hours" in path:
        return f'must be {{ from = "06:00", until = "10:30" }} (days = [...] optional), not {shown(value)}'
    messages = {"missing": "is missing", "string_type": f"must be text in quotes, not {shown(value)}",
                "bool_type": f"must be true or false, not {shown(value)}",
                "list_type": f"must be a list [...], not {shown(value)}",
                "dict_type": f"must be a table, not {shown(value)}",
                "model_type": f"must be a table, not {shown(value)}",
                "too_short": "must not be empty", "literal_error": f"must be {ctx.get('expected')}"}
    return messages.get(kind, error["msg"].removeprefix("Value error, "))


class MenuText:
    """A menu file's text and what it reads as: validated into a MenuSchema, every mistake named by
    file, line and field."""

    def __init__(self, name: str, text: str):
        self.name, self.text = name, text
        self.data: dict[str, Any] = {}

    def read(self) -> MenuSchema:
        if deep := too_deep(self.text):
            raise BuildError(f"{self.name}, line {deep[0]}: {deep[1]} nested more than {MAX_DEPTH} deep; a menu "
                             "needs a few levels of tables at most")
        try:
            self.data = tomllib.loads(self.text)
        except RecursionError as exc:  # too_deep misread the brackets: tomllib's own stack guard
            raise BuildError(f"{self.name}: nested too deeply; a menu needs a few levels of tables at most") from exc
        except tomllib.TOMLDecodeError as exc:
            raise BuildError(f"{self.name}: {exc}") from exc
        try:
            return MenuSchema.model_validate(self.data)
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
            path = walk(self.data, errors[0])
            more = f" (and {len(errors) - 1} more mistake{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
            raise self.mistake(explain(errors[0], path) + more, path) from None

    def mistake(self, message: str, loc: Loc) -> BuildError:
        """The error for a mistake at loc: `menu.toml, line 42, item "House Special" field price: message`."""
        return BuildError(self.placed(message, loc), loc)

    def placed(self, message: str, loc: Loc, lines: Lines | None = None) -> str:
        """`menu.toml, line 42, item "House Special" field price: message` (`lines`: read once for many)."""
        line = (lines or Lines(self.text)).line(loc)  # read only when something is said: a good menu is read once
        place = ", ".join(p for p in (self.name, f"line {line}" if line else "", where(self.data, loc)) if p)
        return f"{place}: {message}"
