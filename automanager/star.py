"""The STAR turn loop both bots share: text -> predicates -> ASP decision -> text, with the
session saved after every turn.

The customer chat keeps the menu version its session started with; the manager chat always
works on the newest version, applies stock changes to the shared list at once, and publishes
its staged menu changes as one new version when it saves or says goodbye.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from .bots.admin import Administrator
from .bots.assistant import Assistant, context
from .language.customer_parser import Context, CustomerParser
from .language.customer_templates import CustomerTemplates
from .language.manager_parser import MAX_LIST, ManagerContext, ManagerParser
from .language.manager_templates import ManagerTemplates, describe
from .language.reading import ManagerParse, Parse
from .llm.breaker import Late, within
from .llm.openai_backend import LLMConfig, LLMError, OpenAIBackend, Usage
from .llm.structured import CustomerReader, ManagerReader
from .menu.commit import CommitError, next_version_text, warm_committer
from .menu.model import Menu
from .names import NameMatcher
from .reasoner import WRITER, ReasonerError
from .state import PENDING, Building, Has, LastAsk, Staged, State, Talked, Unit
from .store import DEFAULT_STORE, Home, StateError, VersionMoved
from .terms import as_term, encode
from .vocab import Pred, VocabError

LOG = logging.getLogger(__name__)
MAX_COMMIT_ATTEMPTS = 5  # a manager turn decided again when other managers publish meanwhile
MAX_INPUT = 2000  # characters of one turn that are read; the rest is ignored, and said so


# What a last word to a closed order may say: no, that's all, goodbye, thanks (a "hello" is the next car)
PARTING = {("decline", ""), ("complete", ""), ("quit", ""), ("greet", "thanks")}
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

    def understand(self, text: str, ctx, usage: Usage, said: list[Pred] | None = None, role: str = ""):
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

    def think(self, text: str, ctx, decide, said: list[Pred] | None = None) -> tuple:
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

    def known(self, said: list[Pred]) -> Any:
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

    def turn(self, text: str, said: list[Pred] | None = None, turn_id: str | None = None) -> Turn:
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

    def step(self, text: str, said: list[Pred] | None = None) -> Turn:
        raise NotImplementedError


def batch(state: State) -> str:
    """The fingerprint of the changes staged in a manager state. The version row that publishes
    them keeps the one of the state its turn started from: a session resumed from that state
    (its process stopped after the commit, before the save) is then known to be published.
    Staged ids carry their turn number, so one session never stages the same batch twice."""
    staged = sorted(state.only(PENDING).texts)
    return hashlib.sha256("\n".join(staged).encode()).hexdigest()[:16]


ChatT = TypeVar("ChatT", bound=Chat)


def addressed(current: ChatT, finished: ChatT | None, text: str) -> ChatT:
    """Which order a lane's line belongs to: a last word ("thanks, bye") to the car served last,
    while the next car has said nothing, is still that car's; anything else is the current car's."""
    if finished is not None and not current.saved and isinstance(finished, CustomerChat) and finished.parting(text):
        return finished
    return current


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


class CustomerChat(Chat):
    """A customer at the drive-through (offline backend)."""

    role = "customer"
    bot: Assistant
    parser: CustomerParser
    templates: CustomerTemplates

    def load_menu(self) -> None:
        super().load_menu()
        self.assistant = self.bot = Assistant(self.menu.files, self.home.root / "cache")
        self.parser = CustomerParser(self.menu, self.names)
        self.reader = CustomerReader(self.names)
        self.templates = CustomerTemplates(self.menu)

    def known(self, said: list[Pred]) -> Parse:
        return Parse(said, [], [])

    def read(self, forms: list, ctx: Context):
        return self.reader.read(forms)

    def describe(self, ctx: Context) -> str:
        said = [f"the bot last asked about {ctx.ask_topic}" + (f" for {ctx.ask_target}" if ctx.ask_target else "")
                if ctx.ask_topic else "the bot asked nothing yet"]
        if ctx.ordered:
            said.append("ordered so far: " + ", ".join(ctx.ordered))
        if ctx.recommended_items or ctx.recommended_toppings:
            said.append("the bot just suggested: " + ", ".join(
                ctx.recommended_items + [topping for _, topping in ctx.recommended_toppings]))
        return "; ".join(said)

    def step(self, text: str, said: list[Pred] | None = None) -> Turn:
        parse, decision, usage, timings = self.think(text, context(self.state), lambda parse: self.assistant.decide(
            parse.preds, self.state, self.home.stock_out(), len(parse.unknown), self.home.store_prices(), self.home.now()), said)
        order = self.order()
        counts = Counter(unit["item"] for unit in order)
        reply = self.respond(self.templates.render(decision.actions, parse.unknown, counts), decision.actions, usage)
        not_caught = [text] if text.strip() and not parse.unknown and {p.name for p in parse.preds} <= {"irrelevant"} \
            else []
        return Turn(text=text, reply=reply, parsed=[str(p) for p in parse.preds], actions=decision.actions,
                    corrected=parse.corrected, order=order, llm=usage.as_dict(), timings=timings,
                    board=self.board(decision.actions), unheard=list(dict.fromkeys(said_as_phrase(p) for p in [*parse.unknown, *not_caught])))

    def greeting(self) -> str:
        """A resumed session is welcomed back with its order so far, priced by the ASP."""
        if not self.resumed:
            return self.templates.greeting()
        return self.templates.welcome_back(self.review())

    def parting(self, text: str) -> bool:
        """Is this line only a last word ("nope, thanks!", "bye") to a closed order? It is answered
        in the same session; anything else after the close is a new customer."""
        said = {(pred.name, str(pred.args[0]) if pred.name == "greet" else "")
                for pred in self.parser.parse(text, context(self.state)).preds}
        return bool(said) and said <= PARTING

    def board(self, actions: dict | None = None) -> dict:
        """The order as a drive-through board shows it: lines of equal units with their changes and
        prices, and the total (cents), priced by the ASP: as a turn's decision left it
        (board/3, board_detail/3, board_total/1), else priced now."""
        actions = self.review() if actions is None else actions
        units = {"check": actions.get("board", []), "detail": actions.get("board_detail", [])}
        lines = [{"quantity": line.quantity, "item": line.name, "modifiers": line.modifiers,
                  "unit_price": line.unit_price, "line_price": line.quantity * line.unit_price}
                 for line in self.templates.groups(units)]
        return {"lines": lines, "total": actions["board_total"][0][0]}

    def catch_up(self) -> None:
        """Before anything is ordered, the newest menu version is the one to order from; once an
        order has begun it keeps the version its prices were quoted from."""
        latest = self.home.latest_version()
        if latest != self.menu_version and not self.state.all(Unit):
            self.menu_version = latest
            self.load_menu()

    def review(self) -> dict:
        """The order as it stands, priced (check/3, detail/3, total/1); the state is not changed."""
        return self.assistant.decide([Pred("review")], self.state, self.home.stock_out(), 0,
                                     self.home.store_prices(), self.home.now()).actions

    def order(self) -> list[dict]:
        """The order so far, one entry per unit, from the saved state."""
        units: dict[int, dict] = {}
        for unit in self.state.all(Unit):
            units.setdefault(unit.number, {})["item"] = unit.food
        for has in self.state.all(Has):
            if has.unit in units:
                details = units[has.unit]
                if has.kind == "option":  # by its group: {"size": ["large"]}, {"no crust": ["thin crust"]}
                    group, value, wanted = has.parts()
                    key = str(group) if wanted == "yes" else f"no {group}"
                    details.setdefault(key, []).append(value)
                    continue
                details.setdefault(str(has.kind), []).append(  # a change or choice as its term: ("Old","New")
                    has.value if isinstance(has.value, str) else str(as_term(has.value)))
        return [units[k] for k in sorted(units)]


class ManagerChat(Chat):
    """The restaurant manager: stock and menu changes (offline backend)."""

    role = "manager"
    bot: Administrator
    parser: ManagerParser
    templates: ManagerTemplates

    def __init__(self, home: Home, session_id: str | None = None, llm: LLMConfig | None = None):
        self._reloading: threading.Thread | None = None  # the new version's menu, made after a commit
        self._reload_error: Exception | None = None
        super().__init__(home, session_id, llm)
        if self.staged() and home.published(self.session_id, batch(self.state)):
            # the process stopped after publishing these changes but before saving the session
            self.state = self.state.without(PENDING)

    @property
    def menu(self) -> Menu:
        self.settle()
        return self._menu

    @menu.setter
    def menu(self, menu: Menu) -> None:
        self._menu = menu

    def settle(self) -> None:
        """Wait for the menu a commit is loading in the background; its error, if any, is this turn's."""
        reloading = self._reloading
        if reloading is None or reloading is threading.current_thread():
            return
        reloading.join()
        self._reloading, error, self._reload_error = None, self._reload_error, None
        if error:
            raise error

    def reload_in_background(self) -> None:
        """Load the new version's menu and ground its reasoner while the manager reads the reply
        (the next turn waits for it if it comes first), so the commit turn does not pay for it."""
        def work() -> None:
            try:
                self.load_menu()
                self.warm()
            except (ReasonerError, StateError) as exc:
                self._reload_error = exc

        self._reloading = threading.Thread(target=work, name=WRITER + "menu-reload", daemon=True)
        self._reloading.start()

    def warm(self) -> None:
        """Also ground this version for the next commit, in a thread of its own: the turn after a
        commit waits for the bot's warm-up only, and a save comes turns later."""
        super().warm()
        threading.Thread(target=warm_committer, args=(self._menu.files, self.home.root / "cache"),
                         name=WRITER + "commit-warm-up", daemon=True).start()

    def load_menu(self) -> None:
        super().load_menu()
        self.admin = self.bot = Administrator(self.menu.files, self.home.root / "cache")
        self.parser = ManagerParser(self.menu, self.names)
        self.reader = ManagerReader(self.names)
        policy = {name: self.menu.facts[name][0][0] for name in ("max_item_price", "max_item_calories")
                  if self.menu.facts.get(name)}
        self.templates = ManagerTemplates(self.menu.categories, policy.get("max_item_price", 0),
                                          policy.get("max_item_calories", 0), self.menu.example_dish)

    def known(self, said: list[Pred]) -> ManagerParse:
        return ManagerParse(said)

    def read(self, forms: list, ctx: ManagerContext):
        return self.reader.read(forms, ctx)

    def describe(self, ctx: ManagerContext) -> str:
        if not ctx.building:
            return "nothing is being added"
        said = f"being added: {ctx.building} ({ctx.build_type})"
        return said + (f"; the bot last asked for its {ctx.ask_topic}" if ctx.ask_topic else "")

    def why_not(self, text: str, ctx: ManagerContext) -> str:
        """What to say of a line with nothing to act on: the offline reading's note (a price with three
        decimals, a warning noted), which an LLM's answer does not carry, else the nearest command."""
        return self.parser.parse(text, ctx).hint or self.parser.suggestion(text)

    def understand(self, text: str, ctx, usage: Usage, said: list[Pred] | None = None, role: str = ""):
        """A line about this store's own prices ("here the X costs $1.79", "use the chain price for X
        again") is read by its cue, offline, before any LLM: the LLM's vocabulary has no store
        prices (its prompt stays within its budget), and would read it as a change to the chain menu.
        A line the cues read as a store rule (or as one they could not read) goes to the LLM with the
        rules vocabulary and prompt."""
        if said is None and self.llm is not None:
            local = self.parser.store_line(text, ctx)
            rule_line = local is not None and any(p.name.startswith("rule_") or p.name == "irrelevant" or
                                                  p.name == "query" and str(p.args[0]) == "rules" for p in local.preds)
            rule_line = rule_line or local is None and self.parser.hints_rule(text)
            if local is not None and not rule_line:
                usage.answered_by = "offline"
                return local
            if rule_line:  # a rule, or a line with a rule's cue the cues could not read
                parse = super().understand(text, ctx, usage, said, "rules")
                if local is not None or any(p.name != "irrelevant" for p in parse.preds):
                    return parse
                # only hinted at a rule, and no rule after all: the manager prompt reads it
        return super().understand(text, ctx, usage, said, role)

    def context(self) -> ManagerContext:
        ctx = ManagerContext()
        for typed in self.state:
            if isinstance(typed, Building):
                ctx.build_type, ctx.building = str(typed.type), typed.item
            elif isinstance(typed, LastAsk):
                ctx.ask_target, ctx.ask_topic = typed.target, str(typed.topic)
            elif isinstance(typed, Talked):  # the item asked about last turn is what "it" means
                ctx.last_item = typed.item
        for _action, item, prop, old, new in self.staged()[-1:] if not ctx.last_item else []:
            ctx.last_item = item  # else the last staged change: "it", and "and Y by a dime" goes its way
            if prop == "price" and isinstance(old, int) and isinstance(new, int) and old != new:
                ctx.last_move = 1 if new > old else -1
        return ctx

    def greeting(self) -> str:
        """A resumed session is welcomed back with what it has not applied yet."""
        if not self.resumed:
            return self.templates.greeting()
        pending = [describe(*row) for row in self.staged()]
        return "Welcome back! " + (f"Still pending: {'; '.join(pending)}. Say save to apply it." if pending
                                   else "Nothing is pending. What ran out, came back or should change?")

    def staged(self) -> list[tuple]:
        """The pending changes as audit rows: (action, item, property, old, new)."""
        return [staged.row() for staged in sorted(self.state.all(Staged), key=encode)]

    def step(self, text: str, said: list[Pred] | None = None) -> Turn:
        self.settle()
        before = self.state
        for _attempt in range(MAX_COMMIT_ATTEMPTS):
            self.sync_menu()
            ctx = self.context()
            parse, decision, usage, timings = self.think(text, ctx, lambda parse: self.admin.decide(
                parse.preds, self.state, self.home.stock_out(), self.home.store_prices(), self.home.now()), said)
            for change, name in decision.actions.get("stock", []):
                self.home.set_stock(name, change == "out", self.session_id)
            self.apply_store_prices(decision.actions)
            try:
                note = self.commit(batch(before)) if "commit" in decision.actions else ""
                break
            except VersionMoved:  # another manager published while this turn was decided: decide again
                self.state = before
        else:
            raise StateError("other managers kept publishing menu versions; nothing of yours was applied. "
                             "Say it again.")
        hint = parse.hint or (self.why_not(text, ctx) if any(p.name == "irrelevant" for p in parse.preds) else "")
        reply = self.respond(self.templates.render(decision.actions, note, hint), decision.actions, usage)
        if parse.unheard and decision.actions.get("ask"):  # half heard: say what was not, then the question
            reply = f"{self.templates.unheard(parse.unheard)} {reply}"
        if parse.skipped:
            reply = f"(I read the first {MAX_LIST} names of that list; say the other {parse.skipped} again.) " + reply
        return Turn(text=text, reply=reply, parsed=[str(p) for p in parse.preds], actions=decision.actions,
                    corrected=parse.corrected, pending=[describe(*row) for row in self.staged()], llm=usage.as_dict(),
                    timings=timings)

    def apply_store_prices(self, actions: dict) -> None:
        """This store's own prices, set or dropped at once (like stock): the chain menu is not changed."""
        chain = dict(self._menu.facts.get("original_price", []))
        for item, cents in actions.get("set_store_price", []):
            self.home.set_store_price(item, cents, chain.get(item), self.session_id)
        for (item,) in actions.get("drop_store_price", []):
            self.home.set_store_price(item, None, chain.get(item), self.session_id)

    def sync_menu(self) -> None:
        """Work on the newest menu version (another manager may have published one)."""
        latest = self.home.latest_version()
        if latest != self.menu_version:
            self.menu_version = latest
            self.load_menu()

    def commit(self, batch: str) -> str:
        """Publish the staged changes as the next menu version, all or nothing; VersionMoved when
        another manager published after this turn was decided."""
        records = self.staged()
        staged = self.state.only(PENDING)
        try:
            version = self.home.commit_menu(self.session_id, batch, self.menu_version, records,
                                            lambda files: next_version_text(files, staged, self.home.root / "cache"))
        except CommitError as exc:
            return (f"I could not apply the changes: {exc}. Nothing was changed; the changes stay pending "
                    f"(/pending shows them).")
        self.state = self.state.without(PENDING)
        self.menu_version = version
        self.reload_in_background()
        return (f"Applied {len(records)} change{'s' if len(records) != 1 else ''}: the menu is now version "
                f"{version}, and new customers see it.")
