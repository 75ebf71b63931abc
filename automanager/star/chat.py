"""A conversation of one role, the STAR turn both bots share: text -> predicates (the LLM's, or the
offline parser's when there is none or it fails) -> the bot's ASP decision -> text, with the
session saved after every turn. Each role (customer.py, manager.py) parses, decides and renders.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..acts import Act
from ..bots.admin import Administrator
from ..bots.assistant import Assistant
from ..language.customer_parser import CustomerParser
from ..language.customer_templates import CustomerTemplates
from ..language.manager_parser import ManagerParser
from ..language.manager_templates import ManagerTemplates
from ..llm.breaker import Late, within
from ..llm.openai_backend import LLMConfig, LLMError, OpenAIBackend, Usage
from ..menu.model import Menu
from ..names import NameMatcher
from ..reasoner import WRITER, ReasonerError
from ..state import State
from ..store import DEFAULT_STORE, Home, StateError
from ..vocab import VocabError

LOG = logging.getLogger(__name__)
MAX_INPUT = 2000  # characters of one turn that are read; the rest is ignored, and said so
NOT_ANSWERING = "The language model is not answering; using the built-in parser until it is back."


@dataclass
class Turn:
    text: str
    reply: str
    parsed: list[str]
    actions: dict
    timings: dict = field(default_factory=dict)
    corrected: list = field(default_factory=list)
    order: list[dict] = field(default_factory=list)  # customer: the order so far
    pending: list[str] = field(default_factory=list)  # manager: menu changes not applied yet
    menu_version: int = 0
    unheard: list[str] = field(default_factory=list)  # customer: what no name or act of the menu fits
    board: dict = field(default_factory=dict)  # customer: the order board after the turn (lines, total)
    placed: dict | None = None  # customer: the order this turn closed, as recorded (its ticket number)
    llm: dict = field(default_factory=dict)  # backend, calls, tokens, latency, fallback (Usage)


class Chat:
    """One conversation of one role; subclasses parse, decide and render."""

    role = ""
    # set by each role's load_menu
    bot: Assistant | Administrator
    parser: CustomerParser | ManagerParser
    templates: CustomerTemplates | ManagerTemplates

    def __init__(self, home: Home, session_id: str | None = None, llm: LLMConfig | None = None):
        self.home = home
        self.llm_config = llm
        home.sweep()  # what a killed chat left half written
        self.saved = bool(session_id)  # a new session's first save must not replace another's file
        if session_id:
            data = home.load_session(session_id, self.role)
            if data.get("role", "customer") != self.role:
                raise StateError(f"session '{session_id}' is a {data.get('role', 'customer')} session, not a "
                                 f"{self.role} one; resume it with `automanager {data.get('role', 'customer')}`")
            if data.get("store", DEFAULT_STORE) != home.store:
                raise StateError(f"session '{session_id}' belongs to the store '{data.get('store', DEFAULT_STORE)}', "
                                 f"not '{home.store}'; resume it with --store {data.get('store', DEFAULT_STORE)}")
            self.session_id, self.history = session_id, data["turns"]
            try:  # read now: a damaged session says so before its first turn
                self.state = State(data["state"]).read()
            except (TypeError, ValueError) as exc:
                raise StateError(f"session '{session_id}' has a damaged state ({exc}). Start a new session "
                                 "without --resume.") from exc
            self.menu_version = data.get("menu_version", 0)
        else:
            self.session_id, self.state, self.history = home.new_session_id(), State(), []
            self.menu_version = home.latest_version()
        self.load_menu()

    @property
    def state(self) -> State:
        return self._state

    @state.setter
    def state(self, state: State | list[str]) -> None:
        """The state, also set from its saved texts (a session file, a test's [])."""
        self._state = state if isinstance(state, State) else State(state)

    def load_menu(self) -> None:
        files = self.home.menu_files(self.menu_version)
        try:
            self.menu = Menu.load(files, self.home.root / "cache")
        except ReasonerError as exc:
            if self.menu_version == 0:
                raise
            raise StateError(f"menu version {self.menu_version} ({files[0]}) is damaged: {exc}. Restore it from "
                             "a backup, or run `automanager state reset --yes` to start from the shipped menu.") from exc
        if not self.menu.items:  # a pack whose facts do not reach the bots (a stray #show, a cut file)
            raise StateError(f"the menu in {files[0].parent} has no dishes or combos the bots can read: check it with "
                             f"`automanager kb check --kb {files[0].parent}` and rebuild it with `automanager kb build`.")
        self.names = NameMatcher(self.menu, self.home.root / "cache")
        self.llm = OpenAIBackend(self.llm_config, self.menu) if self.llm_config else None

    def warm_in_background(self) -> None:
        """Ground the bot's rules and read the menu's words now, while the person reads the
        greeting, so the first turn costs what any turn costs."""
        threading.Thread(target=self.warm, name=f"{WRITER}{self.role}-warm-up", daemon=True).start()

    def warm(self) -> None:
        try:
            self.bot.reasoner.warm()
            self.parser.parse("hello")
        except (ReasonerError, StateError):
            pass  # the first real turn meets the same problem and says it

    def understand(self, text: str, ctx, usage: Usage, said: list[Act] | None = None, role: str = ""):
        """The LLM's predicates when an LLM is configured and answers usably within the turn's
        deadline, else the offline parser's. A failed or late LLM opens its breaker: the next turns
        are read offline at once while the server is probed in the background. With `said` (a
        click on a page: what was meant is known) nothing is read. `role`: the vocabulary and
        prompt the LLM reads the line with (this chat's own by default)."""
        if said is not None:
            usage.answered_by = "said"
            return self.known(said)
        llm = self.llm
        if llm and not llm.breaker.allows():
            usage.fallback = "offline parser used: the language model is not answering (probed in the background)"
        elif llm:
            context = self.describe(ctx)
            try:
                forms = within(llm.config.deadline, lambda: llm.extract(role or self.role, text, context, usage))
                parse = self.read(forms, ctx)
                usage.answered_by = "llm"
                return parse
            except (LLMError, Late) as exc:
                usage.fallback = f"offline parser used: {exc}"
                if llm.breaker.failed():
                    usage.notice = NOT_ANSWERING
            except VocabError as exc:  # the server answers; this answer was unusable
                usage.fallback = f"offline parser used: {exc}"
        return self.parser.parse(text, ctx)

    def think(self, text: str, ctx, decide, said: list[Act] | None = None) -> tuple:
        """Parse (LLM or offline) and let the bot's ASP decide, timing each; the state moves on."""
        start, usage = time.perf_counter(), Usage()
        parse = self.understand(text, ctx, usage, said)
        parse_ms = timed(start)
        decided_at = time.perf_counter()
        decision = decide(parse)
        self.state = decision.state
        return parse, decision, usage, {"parse_ms": parse_ms, "reasoning_ms": timed(decided_at)}

    def greeting(self) -> str:
        return self.templates.greeting()

    def known(self, said: list[Act]) -> Any:
        """A line whose predicates are known (a page's button) as this role's parse of it."""
        raise NotImplementedError

    def read(self, forms: list[Any], ctx: Any) -> Any:
        """The predicates of an LLM's answer, names checked (each role reads its own vocabulary)."""
        raise NotImplementedError

    def describe(self, ctx: Any) -> str:
        """What the LLM is told of the conversation so far."""
        raise NotImplementedError

    @property
    def resumed(self) -> bool:
        return bool(self.history)

    def respond(self, decided: str, actions: dict, usage: Usage) -> str:
        return self.llm.rephrase(self.role, decided, actions, usage) if self.llm and self.llm.config.rephrase \
            else decided

    @property
    def ended(self) -> bool:
        return self.state.ended

    def turn(self, text: str, said: list[Act] | None = None, turn_id: str | None = None) -> Turn:
        """One turn, saved. `said`: the predicates of the line when they are known (a page's button),
        so nothing is parsed; `text` is then what the transcript shows. `turn_id` is kept with the
        turn, so a request sent again is known to be answered."""
        start = time.perf_counter()
        text = printable(text[:MAX_INPUT + 1])  # cut first: cleaning costs as much as the text is long
        before = self.state, len(self.history)
        try:
            turn = self.step(text[:MAX_INPUT], said)
            if len(text) > MAX_INPUT:
                turn.reply = f"(I only read the first {MAX_INPUT} characters.) " + turn.reply
            turn.menu_version = self.menu_version
            self.history.append({"user": turn.text, "bot": turn.reply, "at": datetime.now(UTC).isoformat(),
                                 **({"id": turn_id} if turn_id else {})})
            self.settle(turn, before[0])
            self.save()
        except BaseException:  # not saved: the chat is as before the line, which may be said again
            self.state = before[0]
            del self.history[before[1]:]
            raise
        if turn.unheard:
            try:
                self.home.note_unheard(turn.unheard)
            except StateError as exc:  # the turn is saved: a phrase for the manager's list is not worth failing it
                LOG.warning("phrases no bot understood not noted: %s", exc)
        turn.timings["total_ms"] = timed(start)  # the whole turn, the save included
        return turn

    def save(self) -> None:
        self.home.save_session(self.session_id, {"session": self.session_id, "role": self.role, "store": self.home.store,
                                                 "menu_version": self.menu_version, "state": self.state.texts,
                                                 "turns": self.history}, new=not self.saved)
        self.saved = True

    def step(self, text: str, said: list[Act] | None = None) -> Turn:
        raise NotImplementedError

    def settle(self, turn: Turn, before: State) -> None:
        """What a turn leaves outside the session, written before the session is saved (a turn
        that is not saved runs again, and writes the same)."""


MAX_PHRASE = 200  # characters of a phrase kept in the list of what no bot understood


def said_as_phrase(text: str) -> str:
    """One way to write a phrase, so 'Lava  Burrito' and 'lava burrito' count together."""
    return " ".join(text.casefold().split())[:MAX_PHRASE]


def printable(text: str) -> str:
    """What a person could have typed: broken characters replaced, control characters dropped."""
    text = text.encode("utf-8", "replace").decode("utf-8", "replace")
    return "".join(ch if ch.isprintable() else " " for ch in text)


def timed(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)
