"""The manager's chat: always on the newest menu version, stock changes applied to the shared list
at once, store prices at once, and the staged menu changes published as one new version when the
manager saves or says goodbye (decided again when another manager published meanwhile)."""

from __future__ import annotations

import hashlib
import logging
import threading

from ..acts import RULE_ACTS, Act, Ask, Irrelevant
from ..bots.admin import Administrator
from ..language.manager_parser import MAX_LIST, ManagerContext, ManagerParser
from ..language.manager_templates import ManagerTemplates, describe
from ..language.outputs import StockMove, StorePriceDropped, StorePriceOf, rows_of
from ..language.reading import ManagerParse
from ..llm.openai_backend import LLMConfig, Usage
from ..llm.structured import ManagerReader
from ..menu.commit import CommitError, next_version_text, warm_committer
from ..menu.model import Menu
from ..reasoner import WRITER, ReasonerError
from ..state import PENDING, Building, LastAsk, Staged, State, StockSaid, Talked
from ..store import Home, StateError, VersionMoved
from ..terms import encode
from .chat import Chat, Turn

LOG = logging.getLogger(__name__)
MAX_COMMIT_ATTEMPTS = 5  # a manager turn decided again when other managers publish meanwhile


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

    def ready(self) -> Menu:
        """The menu of the newest version this chat published, once the background load a commit
        started is done (its error, if any, is raised here: the caller's turn says it). Read the
        menu, names or parser from another thread only through this."""
        reloading = self._reloading
        if reloading is not None and reloading is not threading.current_thread():
            reloading.join()
            self._reloading, error, self._reload_error = None, self._reload_error, None
            if error:
                raise error
        return self.menu

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
        threading.Thread(target=warm_committer, args=(self.menu.files, self.home.root / "cache"),
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

    def known(self, said: list[Act]) -> ManagerParse:
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

    def understand(self, text: str, ctx, usage: Usage, said: list[Act] | None = None, role: str = ""):
        """A line about this store's own prices ("here the X costs $1.79", "use the chain price for X
        again") is read by its cue, offline, before any LLM: the LLM's vocabulary has no store
        prices (its prompt stays within its budget), and would read it as a change to the chain menu.
        A line the cues read as a store rule (or as one they could not read) goes to the LLM with the
        rules vocabulary and prompt."""
        if said is None and self.llm is not None:
            local = self.parser.store_line(text, ctx)
            rule_line = local is not None and any(isinstance(act, (*RULE_ACTS, Irrelevant)) or
                                                  isinstance(act, Ask) and str(act.kind) == "rules" for act in local.acts)
            rule_line = rule_line or local is None and self.parser.hints_rule(text)
            if local is not None and not rule_line:
                usage.answered_by = "offline"
                return local
            if rule_line:  # a rule, or a line with a rule's cue the cues could not read
                parse = super().understand(text, ctx, usage, said, "rules")
                if local is not None or any(not isinstance(act, Irrelevant) for act in parse.acts):
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
            elif isinstance(typed, StockSaid):
                ctx.last_stock = str(typed.kind)
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

    def step(self, text: str, said: list[Act] | None = None) -> Turn:
        """Understand and decide the line, do at once what it decided (carry_out: decided again when
        another manager published meanwhile), then say it."""
        self.ready()
        before = self.state
        for _attempt in range(MAX_COMMIT_ATTEMPTS):
            self.sync_menu()
            ctx = self.context()
            parse, decision, usage, timings = self.think(text, ctx, lambda parse: self.admin.decide(
                parse.acts, self.state, self.home.stock_out(), self.home.store_prices(), self.home.now()), said)
            try:
                note = self.carry_out(decision.actions, before)
                break
            except VersionMoved:  # another manager published while this turn was decided: decide again
                self.state = before
        else:
            raise StateError("other managers kept publishing menu versions; nothing of yours was applied. "
                             "Say it again.")
        return Turn(text=text, reply=self.reply(text, ctx, parse, decision.actions, note, usage),
                    parsed=[str(p) for p in parse.acts], actions=decision.actions, corrected=parse.corrected,
                    pending=[describe(*row) for row in self.staged()], llm=usage.as_dict(), timings=timings)

    def carry_out(self, actions: dict, before: State) -> str:
        """What a decision does at once: the shared stock list, this store's prices, and the staged
        changes published when it says commit (VersionMoved when another manager published since
        this turn began); what was published, in words."""
        for move in rows_of(actions, StockMove):
            self.home.set_stock(move.food, move.change == "out", self.session_id)
        self.apply_store_prices(actions)
        return self.commit(batch(before)) if "commit" in actions else ""

    def reply(self, text: str, ctx: ManagerContext, parse: ManagerParse, actions: dict, note: str,
              usage: Usage) -> str:
        """The decision in words: what was done and asked, a hint when nothing was understood, the
        words of a half-heard line, and a list read only in part."""
        hint = parse.hint or (self.why_not(text, ctx) if any(isinstance(act, Irrelevant) for act in parse.acts) else "")
        reply = self.respond(self.templates.render(actions, note, hint), actions, usage)
        if parse.unheard and actions.get("ask"):  # half heard: say what was not, then the question
            reply = f"{self.templates.unheard(parse.unheard)} {reply}"
        if parse.skipped:
            reply = f"(I read the first {MAX_LIST} names of that list; say the other {parse.skipped} again.) " + reply
        return reply

    def apply_store_prices(self, actions: dict) -> None:
        """This store's own prices, set or dropped at once (like stock): the chain menu is not changed."""
        chain = dict(self.menu.facts.get("original_price", []))
        for price in rows_of(actions, StorePriceOf):
            self.home.set_store_price(price.item, price.cents, chain.get(price.item), self.session_id)
        for dropped in rows_of(actions, StorePriceDropped):
            self.home.set_store_price(dropped.item, None, chain.get(dropped.item), self.session_id)

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


def batch(state: State) -> str:
    """The fingerprint of the changes staged in a manager state. The version row that publishes
    them keeps the one of the state its turn started from: a session resumed from that state
    (its process stopped after the commit, before the save) is then known to be published.
    Staged ids carry their turn number, so one session never stages the same batch twice."""
    staged = sorted(state.only(PENDING).texts)
    return hashlib.sha256("\n".join(staged).encode()).hexdigest()[:16]
