"""What every request of the service shares: the store, the lanes, the manager's chat and the
events; routes reach it as a dependency (`Shared`)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Annotated, Any

import clingo
from fastapi import Depends, Request

from .. import paths, voice
from ..acts import Act, Add
from ..language.manager_templates import describe
from ..llm.openai_backend import LLMConfig
from ..menu.model import Menu
from ..normalize import normalize
from ..reasoner import Const, TurnReasoner
from ..star import ManagerChat
from ..store import Home
from . import auth
from .events import Events, Watcher
from .lanes import LaneError, Lanes

HERE = Path(__file__).parent
LOG = logging.getLogger(__name__)
LOG.addHandler(logging.NullHandler())

class Service:
    """The store, its lanes, the manager's chat (one at a time) and the live events."""

    def __init__(self, home: Home, llm: LLMConfig | None = None):
        self.home, self.llm = home, llm
        self.token = auth.manager_token(home.root)
        self.kitchen_token = auth.manager_token(home.root, auth.KITCHEN_TOKEN_FILE)
        why = voice.missing()
        self.voice = why is None  # the lane page's push-to-talk, and the speech routes
        if why is not None:
            LOG.warning("the voice lane is off: %s", why)
        self.events = Events()
        self.lanes = Lanes(home, llm, self.events.publish, self.receipt_url)
        self.manager_lock = threading.Lock()
        self.manager = ManagerChat(home, llm=llm)
        self.watcher = Watcher(home, self.events, self.dishes_out)

    def menu_prompt(self) -> str:
        """The menu's names, most popular first, for the speech recognizer (the voice lane)."""
        return voice.menu_prompt(self.manager.ready().ranked_names)

    def receipt_url(self, order_id: int) -> str:
        """The address of an order's receipt page (its key is the service's to give)."""
        return f"/receipts/{order_id}/{auth.receipt_key(self.token, order_id)}"

    def dishes_out(self, stock: list[str]) -> dict[str, list[str]]:
        """For each food out, the menu items it takes off (crs.lp decides, as for customers)."""
        menu = self.manager.ready()
        reasoner = TurnReasoner.shared(menu.files, [paths.data_dir("crs") / "crs.lp", HERE / "board.lp"],
                                       self.home.root / "cache")
        atoms = reasoner.solve([clingo.Function("runout", [clingo.String(food)]) for food in stock])
        off: dict[str, list[str]] = {food: [] for food in stock}
        for food, item in sorted(atoms.get("takes_off", [])):
            off[food].append(item)
        return off

    def stock(self) -> dict[str, Any]:
        """What is out (first) and every other food, each with the group a board files it under:
        ingredients and sauces, then dishes by category, then combos."""
        menu = self.manager.ready()
        listed = self.home.stock_list()
        off = self.dishes_out([name for name, _ in listed])
        out = {name for name, _ in listed}
        group, dishes = menu.group_of, set(menu.names("dish"))
        first = {"ingredient": 0, "sauce": 1, "combo": 3}  # what runs out most, then dishes, then combos

        def place(name: str) -> tuple[bool, int, str, str]:
            return name not in out, first.get(group.get(name, ""), 2), group.get(name, ""), name

        foods = sorted(menu.toppings | menu.items, key=place)
        return {"store": self.home.store,
                "out": [{"name": name, "since": since, "category": group.get(name, ""), "takes_off": off[name],
                         "dishes_off": len(dishes.intersection(off[name]))} for name, since in listed],
                "foods": [{"name": name, "category": group.get(name, "")} for name in foods],
                "items": sorted(menu.items)}

    def history(self, limit: int) -> list[dict[str, Any]]:
        """The newest applied changes, each also in words and dollars."""
        return [{**row, "said": describe(row["action"], row["item"], row["property"], row["old"], row["new"])}
                for row in self.home.history(limit)]

    def manager_turn(self, text: str, said: list[Act] | None = None) -> dict[str, Any]:
        with self.manager_lock:
            before = self.manager.menu_version
            turn = self.manager.turn(text, said)
            answer = {"text": turn.text, "reply": turn.reply, "pending": turn.pending,
                      "asking": bool(turn.actions.get("ask")), "menu_version": self.manager.menu_version}
            if answer["menu_version"] != before:
                self.mark_taught(answer["menu_version"])
        self.events.publish("manager", **answer)
        return answer

    def mark_taught(self, version: int) -> None:
        """The phrases customers said that a published version now has as aliases are taught."""
        facts = Menu.load(self.home.menu_files(version), self.home.root / "cache").facts
        aliases = {said for said, _item in facts.get("alias", [])}
        for row in self.home.unheard("open"):
            if normalize(row["phrase"]) in aliases:
                self.home.mark_unheard(row["phrase"], "taught")

    def teach(self, phrase: str, item: str) -> dict[str, Any]:
        """Teach a phrase customers said as an alias of a menu item, as if said in the manager's
        chat: the administrator refuses it (a LaneError, 409, saying why) or reads it back; a yes
        (POST /api/manager/answer) stages it, and the manager's save publishes it. Nothing else
        pending is touched; the phrase is marked taught when a published version has it."""
        with self.manager_lock:
            menu = self.manager.ready()  # (waits for a menu a save is loading)
            named = self.manager.names.spelled(item, "item")
            if named is None or named.name not in menu.items:
                raise LaneError(404, f"'{item}' is not an item on the menu")
        answer = self.manager_turn(f'"{phrase}" means {named.name}', [Add(named.name, Const("alias"), phrase)])
        if not answer["asking"]:
            raise LaneError(409, answer["reply"])
        return {**answer, "status": "asking"}


def shared(request: Request) -> Service:
    return request.app.state.service


Shared = Annotated[Service, Depends(shared)]
