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

from .llm.customer_templates import dollars
from .reasoner import ReasonerError
from .star import CustomerChat
from .store import StateError

HELP = """Talk as you would at the drive-through: "two soft tacos and a large pepsi",
"no onions on the burrito", "what do you recommend?", "how much is a chalupa?", "that's all".
Commands: /order shows your order, /menu lists the menu, /help this text, /quit leaves."""


def run_customer(chat: CustomerChat, read_line: Callable[[], str | None], out: Console, err: Console,
                 as_json: bool = False) -> int:
    """Run the conversation until goodbye or end of input; return the exit code."""
    if not as_json:
        out.print(f"[bold green]assistant>[/] {chat.greeting()}", highlight=False, soft_wrap=True)
    err.print(f"session {chat.session_id} (resume with --resume {chat.session_id})", style="dim")
    while not chat.ended:
        line = read_line()
        if line is None:
            break
        text = line.strip()
        if not text:
            continue
        if text.startswith("/"):
            if slash_command(text, chat, out):
                break
            continue
        try:
            turn = chat.turn(text)
        except (ReasonerError, StateError) as exc:
            err.print(f"[red]error:[/] {exc}", soft_wrap=True, highlight=False)
            return 2
        except Exception as exc:  # a bug must not show a traceback to a customer; the last turn is saved
            err.print(f"[red]internal error:[/] {type(exc).__name__}: {exc}. Your order up to the last reply is "
                      f"saved: resume with --resume {chat.session_id}.", soft_wrap=True, highlight=False)
            return 3
        if as_json:
            out.print(json.dumps({"session": chat.session_id, **asdict(turn)}, ensure_ascii=False), highlight=False,
                      soft_wrap=True)
        else:
            out.print(f"[bold green]assistant>[/] {turn.reply}", highlight=False, soft_wrap=True)
    return 0


def slash_command(text: str, chat: CustomerChat, out: Console) -> bool:
    """Handle /order, /menu, /help, /quit; True when the chat should end."""
    command = text.split()[0].lower()
    if command == "/quit":
        out.print(f"[bold green]assistant>[/] Goodbye! Your session is {chat.session_id}.", highlight=False)
        return True
    if command == "/order":
        order = chat.order()
        if not order:
            out.print("Your order is empty.")
        for unit in order:
            extras = "; ".join(f"{k} {', '.join(v)}" for k, v in unit.items() if k != "item")
            out.print(f"- {unit['item']}" + (f" ({extras})" if extras else ""), highlight=False)
    elif command == "/menu":
        table = Table("item", "category", "price")
        prices = dict(chat.menu.facts.get("original_price", []))
        for name in sorted(chat.menu.items):
            table.add_row(name, chat.menu.category_of.get(name, "combo"), dollars(prices.get(name, 0)))
        out.print(table)
    else:
        out.print(HELP, highlight=False)
    return False
