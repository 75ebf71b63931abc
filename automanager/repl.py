"""The chat loop, with injected input and output so whole conversations can be tested.

Interactive: a rich prompt. Piped: one line a turn, replies on stdout, exit at EOF or goodbye.
With --json every turn is one JSON object on stdout; diagnostics always go to stderr.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .llm.customer_templates import dollars
from .llm.manager_templates import describe
from .reasoner import ReasonerError
from .star import Chat, CustomerChat, ManagerChat
from .store import StateError

CUSTOMER_HELP = """Talk as you would at the drive-through: "two soft tacos and a large pepsi",
"no onions on the burrito", "what do you recommend?", "how much is a chalupa?", "that's all".
Commands: /order shows your order, /menu lists the menu, /help this text, /quit leaves."""
MANAGER_HELP = """Tell me what ran out or came back: "we're out of tomatoes and lettuce", "onions are back".
Change the menu: "the {dish} now costs $1.99", "replace lettuce with onions in the {dish}",
"take the {dish} off the menu", "add a new dish called Spicy Bean Wrap" (I ask for the rest),
"add ingredient Pickled Radish". Menu changes are applied together when you say "save" or "bye".
Commands: /stock the stock list, /pending changes not applied yet, /history applied changes,
/help this text, /quit leaves (and applies pending changes)."""


def run_chat(chat: Chat, read_line: Callable[[], str | None], out: Console, err: Console,
             as_json: bool = False) -> int:
    """Run the conversation until goodbye or end of input; return the exit code."""
    speaker = "assistant" if isinstance(chat, CustomerChat) else "admin"
    if not as_json:
        say(out, speaker, chat.greeting())
    err.print(f"{chat.role} session {chat.session_id} (resume with --resume {chat.session_id}), "
              f"menu version {chat.menu_version}", style="dim")
    while not chat.ended:
        line = read_line()
        if line is None:
            break
        text = line.strip()
        if not text:
            continue
        try:
            if text.startswith("/"):
                text = slash_command(text, chat, out, speaker)
                if text is None:
                    continue
            turn = chat.turn(text)
        except (ReasonerError, StateError) as exc:
            err.print(f"[red]error:[/] {exc}", soft_wrap=True, highlight=False)
            return 2
        except Exception as exc:  # a bug must not show a traceback to a user; the last turn is saved
            err.print(f"[red]internal error:[/] {type(exc).__name__}: {exc}. Everything up to the last reply is "
                      f"saved: resume with --resume {chat.session_id}.", soft_wrap=True, highlight=False)
            return 3
        if as_json:
            record = {"session": chat.session_id, "role": chat.role, **asdict(turn)}
            out.print(json.dumps(record, ensure_ascii=False), markup=False, highlight=False, soft_wrap=True)
        else:
            say(out, speaker, turn.reply)
    return 0


def say(out: Console, speaker: str, reply: str) -> None:
    """A reply as plain text: words a user typed (echoed in "X isn't on our menu") are never
    read as rich markup."""
    out.print(Text.assemble((f"{speaker}>", "bold green"), " ", reply), highlight=False, soft_wrap=True)


def slash_command(text: str, chat: Chat, out: Console, speaker: str) -> str | None:
    """Show what a command asks for; return the text to say to the bot instead, if any."""
    command = text.split()[0].lower()
    if command == "/quit":
        return "bye"  # a turn like any other: the manager's pending changes are applied
    if isinstance(chat, CustomerChat) and command == "/order":
        order = chat.order()
        if not order:
            out.print("Your order is empty.")
        for unit in order:
            extras = "; ".join(f"{k} {', '.join(v)}" for k, v in unit.items() if k != "item")
            out.print(f"- {unit['item']}" + (f" ({extras})" if extras else ""), highlight=False)
    elif isinstance(chat, CustomerChat) and command == "/menu":
        table = Table("item", "category", "price")
        prices = dict(chat.menu.facts.get("original_price", []))
        for name in sorted(chat.menu.items):
            table.add_row(name, chat.menu.category_of.get(name, "combo"), dollars(prices.get(name, 0)))
        out.print(table)
    elif isinstance(chat, ManagerChat) and command == "/stock":
        rows = chat.home.stock_list()
        out.print("Nothing is out of stock." if not rows else
                  "\n".join(f"- {name} (since {since})" for name, since in rows), highlight=False)
    elif isinstance(chat, ManagerChat) and command == "/pending":
        rows = chat.staged()
        out.print("No pending changes." if not rows else "\n".join(f"- {describe(*row)}" for row in rows),
                  highlight=False)
    elif isinstance(chat, ManagerChat) and command == "/history":
        rows = chat.home.history(20)
        out.print("No changes applied yet." if not rows else "\n".join(
            f"- {r['at']} {describe(r['action'], r['item'], r['property'], r['old'], r['new'])}"
            + (f" (menu v{r['version']})" if r["version"] else "") for r in rows), highlight=False)
    else:
        help_text = CUSTOMER_HELP if isinstance(chat, CustomerChat) else MANAGER_HELP
        out.print(help_text.format(dish=chat.menu.example_dish), highlight=False)
    return None
