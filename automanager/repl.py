"""The chat loop, with injected input and output so whole conversations can be tested.

Interactive: a rich prompt. Piped: one line a turn, replies on stdout. The customer chat is a lane:
after a goodbye it greets the next car in a new session, until /quit or the end of input (Ctrl-D,
or Ctrl-C on an empty line); the manager chat ends at goodbye.
Diagnostics always go to stderr. Nothing is printed as rich markup or emoji codes: replies
repeat what users typed, and show it as the session holds it.

With --json every stdout line is one JSON object with the session and role: a turn adds the
fields of `Turn` (text, reply, parsed, actions, timings, ...); a slash command adds "command",
the command that ran, and what it shows under one key:
  /order "order" (as in a turn), "lines" ({"quantity", "item", "modifiers", "unit_price",
  "line_price"}, cents) and "total" (cents), /menu "items" ({"item", "category", "price"}, price in cents),
  /stock "stock" ({"name", "since"}), /pending "pending" (as in a turn), /history "history"
  (the 20 newest changes, as `state history --json`), /help "help"; an unknown command gives
  "error" and "help". /quit is the turn "bye".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from .database import ServerAway
from .language.customer_templates import dollars
from .language.manager_templates import describe
from .language.phrases import menu_examples
from .reasoner import ReasonerError
from .star import Chat, CustomerChat, ManagerChat, addressed
from .store import StateError

CUSTOMER_HELP = """Talk as you would at the drive-through: "two {dishes} and a {size} {drink}",
"no {ingredient} on the {dish}", "what do you recommend?", "how much is the {dish}?", "that's all".
Commands: /order shows your order, /menu lists the menu, /status what reads your lines, /help this text,
/quit leaves."""
MANAGER_HELP = """Tell me what ran out or came back: "we're out of {ingredient} and {other_ingredient}",
"{ingredient} is back". Change the menu: "the {dish} now costs $1.99", "replace {ingredient} with
{other_ingredient} in the {dish}",
"take the {dish} off the menu", "add a new dish called Spicy Bean Wrap" (I ask for the rest),
"add ingredient Pickled Radish". Menu changes are applied together when you say "save" or "bye".
This store's own price, at once: "here the {dish} costs $1.79"; "use the chain price for the {dish} again".
Commands: /stock the stock list, /pending changes not applied yet, /history applied changes,
/status what reads your lines, /help this text, /quit leaves (and applies pending changes)."""


def run_chat(chat: Chat, read_line: Callable[[], str | None], out: Console, err: Console,
             as_json: bool = False, next_chat: Callable[[], Chat] | None = None,
             resume: Callable[[str], str] | None = None, about: str = "", echo: bool = False) -> int:
    """Run the conversation until goodbye or end of input; return the exit code.

    With next_chat (a customer lane), a finished order is followed by the next car in a new
    session, until /quit or the end of input; a last word to the finished order ("bye", "thanks")
    is still answered in its session. resume(session) is the command that continues a session;
    about (the state dir and the backend) goes into the line naming each session.
    echo: each line read is printed as "you> ..." before its reply (piped input, so that stdout
    reads as the conversation; at a terminal the prompt shows it).
    """
    speaker = "assistant" if isinstance(chat, CustomerChat) else "admin"
    hint = resume or (lambda sid: f"automanager {chat.role} --resume {sid}")
    finished: Chat | None = None  # the order served last, while the next car has said nothing

    def start(chat: Chat) -> None:
        if not as_json:
            say(out, speaker, chat.greeting())
        show(err, Text(f"{chat.role} session {chat.session_id}: menu version {chat.menu_version}"
                       + (f", {about}" if about else "") + f"; resume with: {hint(chat.session_id)}",
                       style="dim"))

    start(chat)
    while True:
        if chat.ended:
            if next_chat is None:
                break
            finished, chat = chat, next_chat()
            start(chat)
        try:
            line = read_line()
        except (EOFError, KeyboardInterrupt):
            line = None
        if line is None:  # Ctrl-D, Ctrl-C or the end of piped input: the session waits to be resumed
            left = (f"Session {chat.session_id} is saved; continue it with: {hint(chat.session_id)}"
                    if finished is None or chat.saved else
                    f"Lane closed; the last order is saved as session {finished.session_id}.")
            show(err, Text(left, style="dim"))
            break
        text = line.strip()
        if not text:
            continue
        if echo and not as_json:
            say(out, "you", text)
        quitting = text.split()[0].lower() == "/quit"
        if quitting and finished is not None and not chat.saved:
            break  # the lane closes between cars: nothing to save
        code = answer_line("bye" if quitting else text, chat, finished, speaker, out, err, as_json, hint)
        if code is not None:
            return code
        if quitting:
            break
    return 0


def answer_line(text: str, chat: Chat, finished: Chat | None, speaker: str, out: Console, err: Console,
                as_json: bool, hint: Callable[[str], str]) -> int | None:
    """One line's answer: a slash command's, or its turn's reply; an exit code when the chat must
    stop, else None. ("/quit" is "bye": a turn like any other, so the manager's pending changes are
    applied.)"""
    talking = chat
    try:
        if text.startswith("/"):
            shown = command(text, chat)
            show(out, record(chat, shown) if as_json else as_text(shown))
            return None
        talking = addressed(chat, finished, text)  # "thanks, bye" still belongs to the order just served
        turn = talking.turn(text)
    except KeyboardInterrupt:
        show(err, Text(f"Stopped. Everything up to the last reply is saved: {hint(talking.session_id)}", style="dim"))
        return 130
    except (ReasonerError, StateError) as exc:
        show(err, Text.assemble(("error:", "red"), f" {exc}"))
        # the server is away for now: the session stays, the line can be said again
        return None if isinstance(exc.__cause__, ServerAway) else 2
    except Exception as exc:  # a bug must not show a traceback to a user; the last turn is saved
        show(err, Text.assemble(("internal error:", "red"), f" {type(exc).__name__}: {exc}. Everything up to "
                                f"the last reply is saved: {hint(talking.session_id)}"))
        return 3
    if turn.llm.get("notice") and not as_json:  # once, when the LLM stops answering
        show(err, Text(turn.llm["notice"], style="yellow"))
    if as_json:
        show(out, record(talking, asdict(turn)))
    else:
        say(out, speaker, turn.reply)
    return None


def show(console: Console, what: RenderableType) -> None:
    """Print as it is: no markup, emoji codes or highlighting are read into what users typed."""
    console.print(what, markup=False, emoji=False, highlight=False, soft_wrap=True)


def say(out: Console, speaker: str, reply: str) -> None:
    show(out, Text.assemble((f"{speaker}>", "bold green"), " ", reply))


def record(chat: Chat, fields: dict) -> str:
    """One line of the --json stream: the characters some line readers take for a line break
    (U+2028, U+2029, U+0085) are escaped, so a record is always one line."""
    text = json.dumps({"session": chat.session_id, "role": chat.role, **fields}, ensure_ascii=False)
    return text.translate(LINE_BREAKS)


LINE_BREAKS = {ord(c): f"\\u{ord(c):04x}" for c in "\u2028\u2029\u0085"}


def command(text: str, chat: Chat) -> dict:
    """What a slash command shows, as data: its --json object without session and role."""
    name = text.split()[0].lower()
    if isinstance(chat, ManagerChat):
        chat.ready()  # the menu a save is loading in the background
    if isinstance(chat, CustomerChat) and name == "/order":
        return {"command": name, "order": chat.order(), **chat.board()}
    if isinstance(chat, CustomerChat) and name == "/menu":
        prices = {**dict(chat.menu.facts.get("original_price", [])), **chat.home.store_prices()}  # the store's own first
        return {"command": name, "items": [{"item": item, "category": chat.menu.category_of.get(item, "combo"),
                                             "price": prices.get(item, 0)} for item in sorted(chat.menu.items)]}
    if isinstance(chat, ManagerChat) and name == "/stock":
        return {"command": name, "stock": [{"name": item, "since": since} for item, since in chat.home.stock_list()]}
    if isinstance(chat, ManagerChat) and name == "/pending":
        return {"command": name, "pending": [describe(*row) for row in chat.staged()]}
    if isinstance(chat, ManagerChat) and name == "/history":
        return {"command": name, "history": chat.home.history(20)}
    if name == "/status":
        llm = chat.llm
        return {"command": name, "store": chat.home.store, "state_dir": str(chat.home.root),
                "menu_version": chat.menu_version,
                "backend": llm.config.model if llm else "offline",
                "llm": "none" if llm is None else "answering" if llm.breaker.allows() else "not answering"}
    help_text = CUSTOMER_HELP if isinstance(chat, CustomerChat) else MANAGER_HELP
    shown = {"command": "/help", "help": help_text.format(**menu_examples(chat.menu))}
    if name != "/help":
        shown["error"] = f"{name} is not a command here."
    return shown


def as_text(shown: dict) -> RenderableType:
    """A slash command's data as a person reads it."""
    name = shown["command"]
    if name == "/order":
        if not shown["lines"]:
            return "Your order is empty."
        table = Table("qty", "item", "modifiers", "each", "price", show_footer=True)
        for line in shown["lines"]:
            table.add_row(str(line["quantity"]), Text(line["item"]), Text(line["modifiers"]),
                          dollars(line["unit_price"]), dollars(line["line_price"]))
        table.columns[3].footer, table.columns[4].footer = "total", dollars(shown["total"])
        return table
    if name == "/menu":
        table = Table("item", "category", "price")
        for row in shown["items"]:
            table.add_row(*map(Text, (row["item"], row["category"], dollars(row["price"]))))
        return table
    if name == "/stock":
        return "\n".join(f"- {row['name']} (since {row['since']})" for row in shown["stock"]) or \
            "Nothing is out of stock."
    if name == "/pending":
        return "\n".join(f"- {change}" for change in shown["pending"]) or "No pending changes."
    if name == "/history":
        return "\n".join(f"- {r['at']} {describe(r['action'], r['item'], r['property'], r['old'], r['new'])}"
                         + (f" (menu v{r['version']})" if r["version"] else "") for r in shown["history"]) or \
            "No changes applied yet."
    if name == "/status":
        reading = {"none": "the built-in parser (no LLM configured)", "answering": f"the LLM {shown['backend']}",
                   "not answering": f"the built-in parser: the LLM {shown['backend']} is not answering (probed "
                                    "in the background)"}[shown["llm"]]
        return f"Store {shown['store']}, state dir {shown['state_dir']}, menu version {shown['menu_version']}; lines are read by {reading}."
    return (shown["error"] + " " if "error" in shown else "") + shown["help"]
