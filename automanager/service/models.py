"""What the service's routes take and give, as pydantic models: requests are checked against them
(strictly: an unknown field or a wrong type is a 422 saying which), and every answer is one of
them, so the OpenAPI document at /docs describes each response field by field."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..star import MAX_INPUT, MAX_PHRASE


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Line(Body):
    text: str = Field(min_length=1, max_length=MAX_INPUT, description="What the customer or manager said.")
    turn_id: str | None = Field(None, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                description="Sent again with the same id, a turn is answered, never taken twice.")


class StockChange(Body):
    name: str = Field(min_length=1, max_length=200, description="An ingredient, sauce, dish or combo of the menu.")
    out: bool = Field(description="true: ran out; false: back in stock.")


class Teach(Body):
    phrase: str = Field(min_length=1, max_length=MAX_PHRASE, description="A phrase customers said (GET /api/unheard).")
    item: str | None = Field(None, min_length=1, max_length=200,
                             description="The menu item it means; null: we don't sell that.")


class Answer(Body):
    yes: bool = Field(description="The answer to the administrator's open question.")


class BoardLine(BaseModel):
    quantity: int = Field(description="Units alike on this line.")
    item: str = Field(description="The item as the board shows it, with its size.")
    modifiers: str = Field(description="Its changes and options in words ('' when none).")
    unit_price: int = Field(description="Cents for one unit.")
    line_price: int = Field(description="Cents for the line.")


class PlacedTicket(BaseModel):
    id: int = Field(description="The order's id (automanager orders show <id>).")
    ticket: int = Field(description="The number the kitchen calls it by.")
    tax: int = Field(description="Cents of sales tax.")
    paid: int = Field(description="Cents to pay: the total with its tax.")
    receipt: str = Field(description="The receipt page's address (add .txt for plain text).")


class TicketLine(BaseModel):
    quantity: int
    food: str
    item: str
    modifiers: str
    unit_price: int


class Ticket(BaseModel):
    """An order as the kitchen display shows it."""

    id: int
    ticket: int
    source: str = Field(description="Where it was ordered: 'lane <id>' or 'chat'.")
    placed_at: str = Field(description="The store's local time it was sent, ISO 8601.")
    lines: list[TicketLine]
    total: int
    status: str = Field(description="open (to make) or done (bumped).")


class Said(BaseModel):
    user: str
    bot: str


class Car(BaseModel):
    """The car a lane serves now: its conversation and its order board."""

    lane: str
    session: str = Field(description="The customer session (saved after every turn).")
    greeting: str
    ended: bool = Field(description="The order is closed; the lane's next line greets the next car.")
    menu_version: int
    turns: list[Said]
    lines: list[BoardLine]
    total: int = Field(description="Cents, as the rules priced the order.")
    placed: PlacedTicket | None = Field(None, description="Once the order is closed: its kitchen ticket and receipt.")


class OpenedLane(Car):
    token: str = Field(description="The lane's token: every lane route needs it as 'Authorization: Bearer'.")
    store: str


class LaneTurn(Car):
    text: str
    reply: str
    repeated: bool = Field(False, description="The turn id was answered before: this is that answer again.")


class SpokenTurn(LaneTurn):
    heard: str = Field(description="The words recognized ('' when nothing was said).")
    confidence: float = Field(description="0..1: under 0.45 the line was asked about, never acted on.")
    doubtful: list[str] = Field(description="Words the recognizer was unsure of: the line was asked about, never "
                                            "acted on.")
    sure: bool
    audio: str = Field(description="The reply spoken, as WAV (add ?token=<the lane's token>).")


class Closed(BaseModel):
    lane: str
    closed: bool = True


class Closing(BaseModel):
    lane: str
    closing: bool = True


class ManagerTurn(BaseModel):
    text: str
    reply: str
    pending: list[str] = Field(description="The staged menu changes, in words.")
    asking: bool = Field(description="The administrator asked a question (answer at /api/manager/answer).")
    menu_version: int


class Taught(BaseModel):
    """A phrase taught as a menu item's other name (read back, as a manager turn), or noted as
    something we don't sell (no turn: the reply alone)."""

    reply: str
    menu_version: int
    status: str = Field(description="asking (answer at /api/manager/answer) or not_sold.")
    text: str | None = None
    pending: list[str] | None = None
    asking: bool | None = None


class Out(BaseModel):
    name: str
    since: str
    category: str = Field(description="What kind of food it is, for grouping a stock board.")
    takes_off: list[str] = Field(description="The menu items it takes off (the rules decide, as for customers).")
    dishes_off: int = Field(description="How many of them are dishes: the count the administrator's chat says.")


class Food(BaseModel):
    name: str
    category: str


class Stock(BaseModel):
    store: str
    out: list[Out]
    foods: list[Food] = Field(description="Every food that can run out, by category, what is out first.")
    items: list[str] = Field(description="The menu items (what a phrase can be taught as).")


class PendingChanges(BaseModel):
    pending: list[str]


class AppliedChange(BaseModel):
    at: str
    session: str
    version: int | None
    action: str
    item: str
    property: str
    old: str | int | None
    new: str | int | None
    store: str
    said: str = Field(description="The change in words and dollars.")


class Version(BaseModel):
    version: int
    changes: list[AppliedChange]


class Versions(BaseModel):
    latest: int
    versions: list[Version]


class Unheard(BaseModel):
    phrase: str
    count: int
    last_at: str
    status: str


class Error(BaseModel):
    error: str = Field(description="What went wrong and what to do.")
    status: int
    retry_after: int | None = Field(None, description="Seconds after which the same request may work.")
