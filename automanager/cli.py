"""The `automanager` command: the chats, the menu knowledge base tools, evaluation.

Data goes to stdout (tables, or JSON with --json); diagnostics go to stderr. What only one
command needs (the evaluation with numpy and yaml, the KB builder, progress bars) is imported
inside it: a chat's first prompt does not wait for them.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import shutil
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import paths
from .database import Postgres, ServerAway, ServiceLock
from .language.manager_templates import describe
from .llm.openai_backend import ENABLE_HINT, LLMConfig, OpenAIBackend
from .menu.check import check_kb, kb_stats
from .menu.model import Menu
from .names import Embedder
from .reasoner import OverBudget, ReasonerError, caches_written, program_text
from .repl import run_chat
from .settings import ConfigError, local_time
from .star import MAX_INPUT, Chat, CustomerChat, ManagerChat
from .store import STORE_SETTING, Home, StateError, default_store

if TYPE_CHECKING:
    from .service.tls import Certificate, Made

app = typer.Typer(
    help="AutoManager: a drive-through run by two chat bots. An LLM (or the offline parser) only "
    "translates; clingo decides from the menu knowledge base.",
    no_args_is_help=True,
    add_completion=False,
)
kb_app = typer.Typer(help="Build, check and count the menu knowledge base (kb/).", no_args_is_help=True)
app.add_typer(kb_app, name="kb")
state_app = typer.Typer(help="Show or reset the shared state: stock list, menu changes, sessions.",
                        no_args_is_help=True)
app.add_typer(state_app, name="state")
orders_app = typer.Typer(help="Orders customers closed: list them, print a receipt, set the store's sales tax.",
                         no_args_is_help=True)
app.add_typer(orders_app, name="orders")

# Names, ids, paths and settings printed come from users: none is read as rich markup or emoji codes.
out = Console(markup=False, emoji=False)
err = Console(stderr=True, markup=False, emoji=False)
HISTORY_MAX = 1_000_000  # rows `state history` shows at most
DISCARD_CHUNK = 1 << 16  # characters read at a time of the part of a line that is dropped

KbOption = Annotated[
    Path | None,
    typer.Option("--kb", help="Knowledge base folder (default: $AUTOMANAGER_KB, else the shipped menu)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts instead of a table.")]


def fail(message: str, hint: str = "", code: int = 2) -> typer.Exit:
    err.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True, highlight=False)
    if hint:
        err.print(hint)
    return typer.Exit(code)


def menu_source(folder: Path) -> str:
    """What a pack's owner edits: its menu.toml; the shipped pack is built from kb/curation.toml."""
    menu = folder / "menu.toml"
    return str(menu) if menu.exists() else "kb/curation.toml and the sources"


StateDirOption = Annotated[
    Path | None,
    typer.Option("--state-dir", help="Where sessions and the shared stock list live (default: $AUTOMANAGER_HOME)."),
]

StoreOption = Annotated[str | None, typer.Option(
    "--store", help=f"The store of the chain this runs for: its stock list, lanes and prices (default: ${STORE_SETTING}, "
    "else main). The menu is the chain's.")]

ResumeOption = Annotated[str | None, typer.Option("--resume", help="Continue the session with this id.")]
ChatJsonOption = Annotated[bool, typer.Option(
    "--json", help="One JSON object per turn on stdout: text, reply, predicates, actions, timings.")]
BackendOption = Annotated[str, typer.Option(
    "--backend", help="auto (openai when OPENAI_API_KEY or OPENAI_BASE_URL is set, else offline), offline (the "
    "built-in parser, no LLM) or openai (any OpenAI-compatible server).")]
ModelOption = Annotated[str | None, typer.Option(
    "--model", help="The LLM model name for the openai backend (default: $AUTOMANAGER_MODEL, else gpt-4o-mini).")]

NowOption = Annotated[str | None, typer.Option(
    "--now", help="A fixed local time for the bots' clock, ISO 8601 like 2026-11-25T09:15 (default: $AUTOMANAGER_NOW, "
    "else the machine's clock): the hours rules a manager set hold as at that time.")]


def llm_config(backend: str, model: str | None) -> LLMConfig | None:
    """The LLM to use, or None for the offline backend; says on stderr which it is."""
    if backend not in ("auto", "offline", "openai"):
        raise fail(f"unknown backend '{backend}'", "Use --backend auto, offline or openai.")
    try:
        config = LLMConfig.from_env(model) if backend != "offline" else None
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if backend == "openai" and config is None:
        raise fail("the openai backend needs a server to talk to", ENABLE_HINT)
    if config:
        err.print(f"LLM: {config.model} at {config.base_url or 'api.openai.com'} (offline parser as fallback)",
                  style="dim")
    elif backend == "auto":
        err.print("offline mode: no LLM configured (set OPENAI_API_KEY or OPENAI_BASE_URL for one)", style="dim",
                  highlight=False)
    return config


def kb_from_environment() -> Path | None:
    """$AUTOMANAGER_KB, checked as --kb is: a missing, empty or broken pack is refused the same way."""
    named = os.environ.get("AUTOMANAGER_KB")
    if named is None:
        return None
    if not named.strip():
        raise fail("AUTOMANAGER_KB is set but empty", "Unset it, or point it at a folder holding menu.lp.")
    return use_kb(usable(Path(named), "AUTOMANAGER_KB"))


def usable(path: Path, what: str) -> Path:
    """A path given on the command line or in a setting, if it can name a file here; else refused
    (exit 2) saying why (a name too long is an error of the system, not a missing file)."""
    if (why := paths.unusable(path)) is not None:
        raise fail(f"{what}: {why}", "Give a shorter path.")
    return path


def use_kb(kb: Path | None) -> Path | None:
    """--kb: the menu pack this run reads (None: $AUTOMANAGER_KB, else the shipped menu); a folder
    without a built menu is refused before anything starts."""
    if kb is None:
        return kb_from_environment()
    if not usable(kb, "--kb").is_dir() or not paths.kb_files(kb):
        hint = f"Build it first: automanager kb build --kb {kb}" if (kb / "menu.toml").is_file() else \
            "Point --kb at a folder holding menu.lp (for example kb/packs/pizza)."
        raise fail(f"{kb} holds no built menu (no .lp files)", hint)
    try:
        for path in paths.kb_files(kb):
            program_text(path)  # a damaged file is said here, naming it, before anything starts
    except ReasonerError as exc:
        raise fail(str(exc), f"Rebuild it: automanager kb build --kb {kb}" if (kb / "menu.toml").is_file() else
                   "Restore the file from a copy of the pack.") from None
    return kb.resolve()


def backend_named(config: LLMConfig | None) -> str:
    return f"{config.model} (LLM)" if config else "offline (no LLM)"


def open_home(state_dir: Path | None, kb: Path | None = None, store: str | None = None) -> Home:
    """The state dir, with the menu pack (see use_kb), for a store (--store, else $AUTOMANAGER_STORE,
    else main); a state dir that is a file, or a bad store id, is refused here, before a command
    half works on it."""
    try:
        home = Home(state_dir, kb, store if store is not None else default_store())
    except (StateError, ConfigError) as exc:
        raise fail(str(exc)) from None
    if home.root.exists() and not home.root.is_dir():
        raise fail(f"the state dir {home.root} is a file, not a folder: set --state-dir (or $AUTOMANAGER_HOME) "
                   "to a folder")
    return home


def read_piped() -> str | None:
    """The next line of stdin, at most MAX_INPUT + 1 characters of it (so the chat can say it cut):
    the rest of a longer line is read and dropped in bounded pieces, never held."""
    line = sys.stdin.readline(MAX_INPUT + 1)
    if len(line) > MAX_INPUT and not line.endswith("\n"):
        while (rest := sys.stdin.readline(DISCARD_CHUNK)) and not rest.endswith("\n"):
            pass
    return line or None


def chat_loop(kind: type[Chat], state_dir: Path | None, resume: str | None, as_json: bool,
              backend: str, model: str | None, kb: Path | None, store: str | None = None, now: str | None = None) -> None:
    home = open_home(state_dir, None, store)  # a bad store id is refused before anything else
    folder = use_kb(kb)
    try:
        clock = local_time(now, "--now") if now is not None else home.clock
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if resume == "":
        raise fail("--resume '' names no session: give the id a chat printed when it started, or leave out "
                   "--resume for a new session")
    config = llm_config(backend, model)
    try:
        home = open_home(state_dir, folder, home.store)
        home.clock = clock
        chat = kind(home, resume, config)
    except (StateError, ReasonerError) as exc:
        raise fail(str(exc)) from None
    sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]  # sys.stdin is a TextIOWrapper; bytes that are not UTF-8 are a bad line, not a crash
    chat.warm_in_background()
    read_line = read_piped
    if sys.stdin.isatty() and sys.stdout.isatty():
        Embedder.warm_in_background()  # so the first misspelled name costs no wait
        read_line = terminal_reader(chat.home.history_path(chat.role))
    lane = (lambda: CustomerChat(home, None, config)) if kind is CustomerChat else None
    about = f"{home.described()}, state dir {home.root}, backend {backend_named(config)}"
    hint = resume_command(chat.role, state_dir, folder, home.store)
    with caches_written():  # a chat that quits while its warm-up is inside clingo waits for it, never aborts
        code = run_chat(chat, read_line, out, err, as_json, next_chat=lane, resume=hint, about=about,
                        echo=read_line is read_piped)
    raise typer.Exit(code)


def program() -> list[str]:
    """How this process was started, as a command that starts it again from any folder: the bare
    name when it is on PATH and is this program, else its full path (`python -m automanager` too)."""
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path("automanager")
    if started.name == "__main__.py" or started.name == "-m":
        python = Path(sys.executable)
        found = shutil.which(python.name)
        return [python.name if found and Path(found).resolve() == python.resolve() else str(python),
                "-m", "automanager"]
    found = shutil.which(started.name)
    if found and started.exists() and Path(found).resolve() == started.resolve():
        return [started.name]
    return [str(started.absolute())] if started.exists() else ["automanager"]


def resume_command(role: str, state_dir: Path | None, kb: Path | None, store: str = "main") -> Callable[[str], str]:
    """The command, as printed, that continues a session: with --state-dir and --kb when given, and
    --store for a store other than main."""
    words = [*program(), role]
    if store != "main":
        words += ["--store", store]
    if state_dir is not None:
        words += ["--state-dir", str(state_dir.absolute())]
    if kb is not None:
        words += ["--kb", str(kb)]
    return lambda session: shlex.join([*words, "--resume", session])


def terminal_reader(history: Path) -> Callable[[], str]:
    """Line editing and history (up arrow, Ctrl-R) at a terminal; Ctrl-D raises EOFError and
    Ctrl-C on an empty line KeyboardInterrupt, which the chat loop answers with how to resume;
    Ctrl-C on a half-typed line only clears it."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings

    keys = KeyBindings()

    @keys.add("c-c")
    def _interrupt(event) -> None:  # a half-typed line is cleared; on an empty line Ctrl-C leaves
        if event.app.current_buffer.text:
            event.app.current_buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

    session: PromptSession[str] = PromptSession(history=FileHistory(str(history)), key_bindings=keys)
    return lambda: session.prompt("you> ")


@app.command()
def customer(state_dir: StateDirOption = None, resume: ResumeOption = None, as_json: ChatJsonOption = False,
             backend: BackendOption = "auto", model: ModelOption = None, kb: KbOption = None,
             store: StoreOption = None, now: NowOption = None) -> None:
    """Chat as a customer at the drive-through (type /help inside for examples from the menu).

    A lane that keeps serving: when an order is finished and the bot says
    goodbye, the next car is greeted in a new session (the finished one is
    saved). /quit, Ctrl-D or Ctrl-C on an empty line leaves; Ctrl-C on a
    half-typed line only clears it. Leaving prints the command that resumes.

    Piped lines are one turn each, car after car:
    echo "<what you would say>" | automanager customer.
    With --json each line names its session. Another restaurant: --kb kb/packs/pizza.
    """
    chat_loop(CustomerChat, state_dir, resume, as_json, backend, model, kb, store, now)


@app.command()
def manager(state_dir: StateDirOption = None, resume: ResumeOption = None, as_json: ChatJsonOption = False,
            backend: BackendOption = "auto", model: ModelOption = None, kb: KbOption = None,
            store: StoreOption = None, now: NowOption = None) -> None:
    """Chat as the restaurant manager: stock and menu changes (type /help inside for examples).

    Stock changes reach customers at their next turn; menu changes are applied together when
    you say "save" or "bye". Example: echo "we're out of <an ingredient>" | automanager manager
    """
    chat_loop(ManagerChat, state_dir, resume, as_json, backend, model, kb, store, now)


HeaderTimeoutOption = Annotated[float, typer.Option(
    help="Seconds a request's line and headers have to arrive in full; a connection slower than that is answered "
         "408 and closed.", min=0.05, max=3600)]
MaxConnectionsOption = Annotated[int, typer.Option(
    help="Connections held at once (fewer if the descriptor limit, ulimit -n, cannot hold them); a new one beyond "
         "closes the one waiting longest for its headers.", min=1, max=1_000_000)]
TrustProxyOption = Annotated[str | None, typer.Option(
    help="Addresses or networks (comma-separated) of the reverse proxies in front of the service: from them alone "
         "X-Forwarded-For and X-Forwarded-Proto are believed (lanes are counted per client address). None by "
         "default: a client could write any address there.")]
CertFileOption = Annotated[Path | None, typer.Option(
    "--certfile", help="Serve HTTPS with this certificate (PEM, its chain after it), with --keyfile: a lane screen "
    "on another device needs HTTPS for its microphone. `automanager cert` makes one for a store's own network.",
    show_default=False)]
KeyFileOption = Annotated[Path | None, typer.Option(
    "--keyfile", help="The certificate's private key (PEM, without a passphrase), with --certfile.", show_default=False)]
EVERY_ADDRESS = ("0.0.0.0", "::", "")  # a --host that listens on all of the machine's addresses


@app.command()
def serve(host: Annotated[str, typer.Option(help="The address to listen on; 127.0.0.1 keeps it on this machine.")]
          = "127.0.0.1",
          port: Annotated[int, typer.Option(help="The port to listen on.", min=1, max=65535)] = 8000,
          state_dir: StateDirOption = None, backend: BackendOption = "auto", model: ModelOption = None,
          kb: KbOption = None, store: StoreOption = None, header_timeout: HeaderTimeoutOption = 10.0,
          max_connections: MaxConnectionsOption = 1000, trust_proxy: TrustProxyOption = None,
          certfile: CertFileOption = None, keyfile: KeyFileOption = None) -> None:
    """Serve the lanes and the manager's dashboard over HTTP, or HTTPS (one process, many lanes).

    Open http://127.0.0.1:8000/lane for a lane, and the dashboard at
    http://127.0.0.1:8000/dashboard?token=<token>, with the token printed at start (it is kept
    in the state dir's manager-token file, readable by you only), and the kitchen display at
    /kitchen?token=<the kitchen-token file's>, which opens nothing else. The API is documented at
    http://127.0.0.1:8000/docs. The terminal chats may run on the same state dir at once.

    Lane screens on other devices (a voice lane's microphone needs HTTPS): automanager cert
    --host <the address they open>, then serve with the --host, --certfile and --keyfile it prints.
    """
    from .service import server, writer

    proxies = trusted_proxies(trust_proxy)
    certificate = https(certfile, keyfile)
    home = open_home(state_dir, None, store)  # a bad store id is refused before anything else
    try:
        home.check_writable()  # a read-only or full state dir is said now (no lock file left), not at every car
        held = writer.hold(home.root, home.store, home.database.engine != "sqlite")  # one service per store and
        # state dir, while it lives (on PostgreSQL, one per store and database too: writer.claim)
    except StateError as exc:
        raise fail(str(exc)) from None
    claimed: list[ServiceLock] = []  # the store's lock on a PostgreSQL database, once taken
    try:
        service = started(state_dir, home.store, kb, (host, port), (backend, model), claimed, certificate)
        # an idle keep-alive connection is dropped after 5 s, headers come within --header-timeout, a body
        # within BODY_SECONDS (service/errors.py), at most --max-connections at once (service/server.py)
        server.run(service, host, port, header_timeout, max_connections, proxies,
                   certificate.context if certificate else None)
        if claimed and claimed[-1].lost:
            raise typer.Exit(2)
    finally:
        for lock in claimed:
            lock.release()
        held.close()


def https(certfile: Path | None, keyfile: Path | None) -> Certificate | None:
    """--certfile and --keyfile, read and checked before anything starts (None: plain HTTP)."""
    if certfile is None and keyfile is None:
        return None
    if certfile is None or keyfile is None:
        given, lacking = ("--certfile", "--keyfile") if keyfile is None else ("--keyfile", "--certfile")
        raise fail(f"{given} without {lacking}: HTTPS needs both the certificate and its key",
                   "Give both (`automanager cert` makes a pair for a store's own network), or neither for HTTP.")
    from .service import tls

    try:
        return tls.load(usable(certfile, "--certfile"), usable(keyfile, "--keyfile"))
    except tls.TLSError as exc:
        raise fail(str(exc), "Give the certificate and key of the service, or make a pair: automanager cert --host "
                   "<the address lane screens open> (--force to replace the state dir's)") from None


def warm_up(service: Any) -> None:
    """What a lane's first car would wait for, loaded while the service starts: the name embedder
    (a misspelled name) and, with the voice extra, the recognizer (a bad $AUTOMANAGER_RECOGNIZER is
    refused now, not at the first spoken line)."""
    from . import voice

    Embedder.warm_in_background()
    if service.voice:
        voice.chosen()
        voice.warm_in_background(service.menu_prompt())


def started(state_dir: Path | None, store: str, kb: Path | None, address: tuple[str, int],
            llm: tuple[str, str | None], claimed: list[ServiceLock], certificate: Certificate | None = None) -> Any:
    """The service over the store, made once its database answers and, on PostgreSQL, once the
    store is claimed on it (the lock is put in `claimed`), with its start-up lines said: the https://
    addresses under a `certificate`, by a name it holds when the service listens on every address."""
    from .service import writer
    from .service.app import create_app

    host, port = address
    folder = use_kb(kb)
    try:
        socket.create_server((host, port)).close()
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror}", "Pick another port with --port (or stop what "
                   "uses it), or another address with --host.") from None
    config = llm_config(*llm)
    home = open_home(state_dir, folder, store)

    def start() -> tuple[Any, str]:
        """The store claimed (PostgreSQL), then the service made over it; nothing kept if it fails."""
        lock = writer.claim(home)  # one service per store and database: refused here, before any lane
        try:
            service = create_app(home, config)
            about = f"{home.described()}, state dir {home.root}, backend {backend_named(config)}"
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        if lock is not None:
            claimed.append(lock)
        warm_up(service.state.service)
        return service, about

    try:
        service, about = when_the_database_answers(home, start)
    except (StateError, ReasonerError, ConfigError) as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        raise fail("stopped while waiting for the database: the service did not start", code=130) from None
    if claimed:  # a restarted server lost the lock, and another service of the store took it: stop
        claimed[-1].watch(stop_serving)
        signal.signal(signal.SIGTERM, functools.partial(stopped, claimed[-1]))
    token, kitchen_token = service.state.service.token, service.state.service.kitchen_token
    base, lines = f"http://{host}:{port}", [about]
    if certificate is not None:
        shown = certificate.hosts[0] if host in EVERY_ADDRESS and certificate.hosts else host
        base = f"https://{shown}:{port}"
        lines.append(f"HTTPS:      certificate for {', '.join(certificate.hosts) or 'no host'}, valid until "
                     f"{certificate.until:%Y-%m-%d}")
        if not certificate.covers(shown):
            lines.append(f"warning: the certificate does not name {shown}: a browser opening {base} refuses it "
                         f"(make one that does: automanager cert --host {shown})")
    for line in (*lines, f"lane page:  {base}/lane", f"dashboard:  {base}/dashboard?token={token}",
                 f"kitchen:    {base}/kitchen?token={kitchen_token}", f"API docs:   {base}/docs (offline; /redoc too)",
                 "Ctrl-C stops the service"):
        err.print(line, highlight=False, soft_wrap=True)  # an address is never broken across lines
    return service


def stop_serving(why: str) -> None:
    """From the service lock's watch: another service took the store while this one's lock was away."""
    err.print(f"error: {why}; this service stops", highlight=False, soft_wrap=True)
    os.kill(os.getpid(), signal.SIGTERM)  # the server stops as at Ctrl-C: answers in flight are finished


def stopped(lock: ServiceLock, signum: int, _frame: object) -> None:
    """SIGTERM, as the server raises it again once it has stopped: exit 2 when the store was lost to
    another service (stop_serving), else end of the signal as without this handler."""
    if lock.lost:
        raise typer.Exit(2)
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)


Result = TypeVar("Result")
WAITING_PAUSE = 1.0  # seconds between a service's tries to start while its database is busy or away


def when_the_database_answers(home: Home, start: Callable[[], Result]) -> Result:
    """start(), once the database answers: a PostgreSQL server with no connection slot left, or gone
    after it answered, is waited for as the chats wait for it, but as long as it takes (a service
    has no line to say again), said once on stderr and again when it answers; Ctrl-C stops the
    wait (KeyboardInterrupt). Any other trouble is raised as it is."""
    database, told = home.database, False
    if isinstance(database, Postgres):
        database.tell_waits = False  # one line here, not one a try
    try:
        while True:
            try:
                result = start()
            except StateError as exc:
                if not isinstance(exc.__cause__, ServerAway):
                    raise
                if not told:
                    err.print(f"the database at {database.where} is {exc.__cause__.why}: waiting for it, the service "
                              "starts once it answers (Ctrl-C stops)...", highlight=False, soft_wrap=True)
                    told = True
                time.sleep(WAITING_PAUSE)
                continue
            if told:
                err.print("the database answers: starting", highlight=False)
            return result
    finally:
        if isinstance(database, Postgres):
            database.tell_waits = True


def trusted_proxies(said: str | None) -> str | None:
    """--trust-proxy as uvicorn takes it (addresses and networks, comma-separated), or None."""
    import ipaddress

    if said is None or not said.strip():
        return None
    items = [item.strip() for item in said.split(",") if item.strip()]
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            if item != "*":
                raise fail(f"--trust-proxy: {item!r} is no address or network", "Name the reverse proxies in front "
                           "of the service, e.g. --trust-proxy 127.0.0.1 or --trust-proxy 10.0.0.0/8.") from None
    return ",".join(items)


HTTPS_PORT = 8443  # the port `cert` tells serve to use: HTTPS's own, 443, is for the machine's administrator


@app.command("cert")
def make_certificate(
    hosts: Annotated[list[str] | None, typer.Option(
        "--host", metavar="HOST", help="A name or IP address the lane screens open the service by; once for each "
        "(--host 192.168.1.20 --host lane.local). localhost and 127.0.0.1 are always in.", show_default=False)] = None,
    folder: Annotated[Path | None, typer.Option(
        "--out", help="The folder for the files (default: the state dir).", show_default=False)] = None,
    days: Annotated[int, typer.Option(help="Days the certificate is valid, at most 825 (iPads refuse longer).")] = 825,
    force: Annotated[bool, typer.Option("--force", help="Replace a key and certificate made before: every lane "
                                                         "screen must then trust the new certificate.")] = False,
    state_dir: StateDirOption = None,
) -> None:
    """Make a certificate for serving HTTPS on the store's own network.

    A browser lets a page use the microphone only over https:// (or on localhost), so a voice
    lane on a tablet or a kiosk screen needs the service over HTTPS. This writes, in the state dir
    (or --out): https-key.pem, the service's key (readable by you only); https-cert.pem, its
    certificate for every --host; and https-ca.crt, which each lane screen installs and trusts.
    https-ca.crt signed this certificate and can sign nothing else: its key was never kept.

    It prints the serve command to run, the SHA-256 fingerprint to check when a screen installs
    https-ca.crt, and the Chromium kiosk flag that trusts the certificate without installing it.

    Example: automanager cert --host 192.168.1.20 --host lane.local
    """
    from .service import tls

    if not hosts:
        raise fail("name the addresses the lane screens open the service by", "Give --host once for each, e.g. "
                   "automanager cert --host 192.168.1.20 --host lane.local")
    target = usable(folder, "--out") if folder is not None else open_home(state_dir).root
    try:
        made = tls.make(target, hosts, days, force)
    except tls.KeyExists as exc:
        raise fail(str(exc), "Add --force to replace it, or --out to write elsewhere.") from None
    except tls.TLSError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write the certificate to {target}: {exc.strerror or exc}", "Give --out a folder you "
                   "may write to.") from None
    next_steps(made, tls.listening(hosts), state_dir)


def next_steps(made: Made, listen: str, state_dir: Path | None) -> None:
    """What `cert` wrote, the serve command that uses it, and how a lane screen trusts it."""
    serve_command = [*program(), "serve", "--host", listen, "--port", str(HTTPS_PORT), "--certfile",
                     str(made.cert.absolute()), "--keyfile", str(made.key.absolute())]
    if state_dir is not None:
        serve_command += ["--state-dir", str(state_dir.absolute())]
    first = made.hosts[0]  # the first --host
    lane = f"https://{f'[{first}]' if ':' in first else first}:{HTTPS_PORT}/lane"
    for line in (
        f"Wrote in {made.key.parent.absolute()}:",
        f"  {made.key.name}   the service's private key (readable by you only; it stays on this machine)",
        f"  {made.cert.name}  its certificate, for {', '.join(made.hosts)}, valid until {made.until:%Y-%m-%d}",
        f"  {made.ca.name}    what each lane screen installs and trusts (it signed {made.cert.name} and nothing else)",
        "",
        "Serve the lanes over HTTPS:",
        f"  {shlex.join(serve_command)}",
        f"and open {lane} on each lane screen. A lane screen trusts the certificate either way:",
        f"- installed: {made.ca.name} as a trusted certificate authority (Android: Settings > Security > Install a "
        "certificate > CA certificate; iPad: open the file, install the profile, then Settings > General > About > "
        "Certificate Trust Settings); check that the device shows this SHA-256 fingerprint:",
        f"  {made.fingerprint}",
        "- or Chromium in kiosk mode, with nothing installed:",
        f"  chromium --kiosk --user-data-dir=$HOME/lane-screen --ignore-certificate-errors-spki-list={made.spki} "
        f"{lane}",
    ):
        out.print(line, highlight=False, soft_wrap=True)


@state_app.command("stock")
def state_stock(state_dir: StateDirOption = None, as_json: JsonOption = False, kb: KbOption = None,
                store: StoreOption = None) -> None:
    """What is out of stock now in the store."""
    rows = load(lambda home: home.stock_list(), state_dir, kb, store)
    if as_json:
        out.print_json(json.dumps([{"name": name, "since": since} for name, since in rows]))
    elif not rows:
        out.print("Nothing is out of stock.")
    else:
        table = Table("out of stock", "since")
        for name, since in rows:
            table.add_row(name, since)
        out.print(table)


@state_app.command("pending")
def state_pending(state_dir: StateDirOption = None, as_json: JsonOption = False, kb: KbOption = None,
                  store: StoreOption = None) -> None:
    """Menu changes the store's managers have made but not applied yet (applied at save or bye)."""
    sessions = load(lambda home: [(sid, ManagerChat(home, sid).staged()) for sid, _ in home.sessions_of("manager")],
                    state_dir, kb, store)
    pending = [(sid, row) for sid, rows in sessions for row in rows]
    if as_json:
        out.print_json(json.dumps([{"session": sid, "change": describe(*row)} for sid, row in pending]))
    elif not pending:
        out.print("No pending menu changes.")
    else:
        for sid, row in pending:
            out.print(f"- {describe(*row)} (manager session {sid}; resume it to apply or cancel)", highlight=False)


@state_app.command("history")
def state_history(state_dir: StateDirOption = None, as_json: JsonOption = False, kb: KbOption = None,
                  limit: Annotated[int, typer.Option(help="How many changes, newest first.")] = 50,
                  store: StoreOption = None) -> None:
    """Applied changes, newest first, with old and new values (the audit log): the store's stock
    and prices, and the chain's menu versions (the store that published each is shown)."""
    if not 1 <= limit <= HISTORY_MAX:
        raise fail(f"--limit {limit} is out of range: give a number of changes from 1 to {HISTORY_MAX}")
    rows = load(lambda home: home.history(limit), state_dir, kb, store)
    if as_json:
        out.print_json(json.dumps(rows))
        return
    table = Table("when", "store", "session", "version", "change")
    for r in rows:
        table.add_row(r["at"], r["store"], r["session"], str(r["version"] or ""),
                      describe(r["action"], r["item"], r["property"], r["old"], r["new"]))
    out.print(table if rows else "No changes applied yet.")


@state_app.command("reset")
def state_reset(state_dir: StateDirOption = None,
                yes: Annotated[bool, typer.Option("--yes", help="Really delete; without it, nothing happens.")] = False,
                ) -> None:
    """Delete every session, menu version, the stock list, the audit log and the orders of a state dir."""
    home = open_home(state_dir)
    if not yes:
        raise fail(f"this deletes all sessions, menu changes, the stock list and the orders in {home.root}",
                   "Run again with --yes to do it.", code=1)
    try:
        home.reset()
    except StateError as exc:
        raise fail(str(exc)) from None
    out.print(f"state in {home.root} reset: the shipped menu, nothing out of stock, no sessions")


def load(read, state_dir: Path | None, kb: Path | None = None, store: str | None = None):
    home = open_home(state_dir, None, store)  # a bad store id is refused before anything else
    folder = use_kb(kb)
    try:
        return read(open_home(state_dir, folder, home.store))
    except (StateError, ReasonerError) as exc:
        raise fail(str(exc)) from None


DayOption = Annotated[str | None, typer.Option("--day", help="The store's local day, YYYY-MM-DD (default: today).")]


def day_of(said: str | None, home: Home):
    """--day as a date (today when not given); a bad one is refused with the format."""
    from datetime import date

    try:
        return date.fromisoformat(said) if said else home.now().date()
    except ValueError:
        raise fail(f"--day {str(said)[:20]!r} is no date", "Give it as YYYY-MM-DD, e.g. --day 2026-11-27.") from None


@orders_app.command("list")
def orders_list(day: DayOption = None, open_only: Annotated[bool, typer.Option(
                    "--open", help="Only the tickets the kitchen has still to make, any day.")] = False,
                state_dir: StateDirOption = None, as_json: JsonOption = False, store: StoreOption = None) -> None:
    """The orders of a day (or the open tickets), in ticket order: ticket, time, source, lines, total.

    Example: automanager orders list --day 2026-11-27 --json
    """
    from .orders import OrderBook

    home = open_home(state_dir, None, store)
    when = day_of(day, home)
    try:
        book = OrderBook(home)
        orders = book.open_tickets() if open_only else book.placed_on(when)
    except StateError as exc:
        raise fail(str(exc)) from None
    if as_json:
        out.print_json(json.dumps([o.as_dict() for o in orders]))
        return
    if not orders:
        out.print("No open tickets." if open_only else f"No orders on {when.isoformat()}.")
        return
    table = Table("id", "ticket", "placed", "source", "items", "total", "status")
    for o in orders:
        table.add_row(str(o.id), f"#{o.ticket}", o.placed_at.replace("T", " "), o.source,
                      ", ".join(f"{line.quantity} {line.item}" for line in o.lines), f"${o.total / 100:,.2f}", o.status)
    out.print(table)


@orders_app.command("show")
def orders_show(order_id: Annotated[int, typer.Argument(help="The order's id (orders list shows it).")],
                state_dir: StateDirOption = None, as_json: JsonOption = False, kb: KbOption = None,
                store: StoreOption = None) -> None:
    """An order's receipt: its lines, subtotal, discount, tax and total.

    Example: automanager orders show 12
    """
    from .orders import OrderBook, id_refused
    from .receipt import receipt_text

    if (why := id_refused(order_id)) is not None:  # no row can have it: said, never looked up
        raise fail(why, "See the ids with `automanager orders list`.")
    order = load(lambda home: OrderBook(home).get(order_id), state_dir, kb, store)
    if order is None:
        raise fail(f"no order {order_id} in this store", "See the ids with `automanager orders list` (--day for "
                   "another day, --store for another store).", code=1)
    if as_json:
        out.print_json(json.dumps(order.as_dict()))
        return
    restaurant = Menu.load(paths.kb_files(use_kb(kb))).restaurant
    out.print(receipt_text(order, restaurant), end="", highlight=False)


@orders_app.command("tax")
def orders_tax(rate: Annotated[str | None, typer.Argument(
                   help="The sales tax in percent (8.25, 8.875; 0 for none). Without it, the rate is shown.",
                   show_default=False)] = None,
               state_dir: StateDirOption = None, store: StoreOption = None) -> None:
    """Show or set the store's sales tax: added to every order from the next turn on, on its total
    after discounts, rounded half up to the cent once per order.

    Example: automanager orders tax 8.875 --store downtown
    """
    from .orders import OrderBook, percent, tax_thousandths

    home = open_home(state_dir, None, store)
    try:
        book = OrderBook(home)
        if rate is None:
            current = book.tax_rate()
            out.print(f"sales tax of store {home.store}: {percent(current) if current else 'none'}")
            return
        book.set_tax_rate(tax_thousandths(rate))
    except ValueError as exc:
        raise fail(str(exc)) from None
    except StateError as exc:
        raise fail(str(exc)) from None
    out.print(f"sales tax of store {home.store} is now {percent(tax_thousandths(rate))}")


@app.command("report")
def day_in_numbers(day: DayOption = None, state_dir: StateDirOption = None, as_json: JsonOption = False,
                   as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV rows (section, key, value, cents).")]
                   = False, store: StoreOption = None) -> None:
    """The day in numbers: orders, sales, tax, the average ticket, sales per hour, the top items,
    what could not be sold because it ran out (and its value), what customers said that no bot understood.

    Example: automanager report --day 2026-11-27 --csv > day.csv
    """
    import csv

    from .report import day_report

    home = open_home(state_dir, None, store)
    try:
        figures = day_report(home, day_of(day, home))
    except StateError as exc:
        raise fail(str(exc)) from None
    if as_json:
        out.print_json(json.dumps(figures.as_dict()))
        return
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["section", "key", "value", "cents"])
        for key in ("orders", "sales", "tax", "revenue", "average_ticket", "lost_value"):
            writer.writerow(["day", key, getattr(figures, key), ""])
        writer.writerows(["hour", h["hour"], h["orders"], h["sales"]] for h in figures.per_hour)
        writer.writerows(["item", i["item"], i["quantity"], i["sales"]] for i in figures.top_items)
        writer.writerows(["lost", i["item"], i["quantity"], i["cents"]] for i in figures.lost)
        writer.writerows(["not_understood", p["phrase"], p["count"], ""] for p in figures.not_understood)
        return
    money = lambda cents: f"${cents / 100:,.2f}"  # noqa: E731
    out.print(f"Store {figures.store}, {figures.day}: {figures.orders} orders, sales {money(figures.sales)}, "
              f"tax {money(figures.tax)}, taken {money(figures.revenue)}, average ticket {money(figures.average_ticket)}")
    for title, rows, columns in (
            ("per hour", [(f"{h['hour']:02d}:00", str(h["orders"]), money(h["sales"])) for h in figures.per_hour],
             ("hour", "orders", "sales")),
            ("top items", [(i["item"], str(i["quantity"]), money(i["sales"])) for i in figures.top_items],
             ("item", "sold", "sales")),
            ("ran out", [(i["item"], str(i["quantity"]), money(i["cents"])) for i in figures.lost],
             ("item", "refused", "value")),
            ("not understood", [(p["phrase"], str(p["count"])) for p in figures.not_understood], ("phrase", "times"))):
        if rows:
            table = Table(*columns, title=title)
            for row in rows:
                table.add_row(*row)
            out.print(table)


@app.command("eval")
def evaluate(
    targets: Annotated[list[Path], typer.Argument(help="Scenario files (.yaml) or folders of them.",
                                                  show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document: a record per scenario and an "
                                                          "aggregate.")] = False,
    report: Annotated[Path | None, typer.Option("--report", help="Also write a Markdown report here.")] = None,
    judge: Annotated[bool, typer.Option("--judge", help="Have the LLM grade each transcript 1-10 on the paper's "
                                                        "seven criteria (needs an LLM backend).")] = False,
    backend: BackendOption = "auto", model: ModelOption = None, kb: KbOption = None,
) -> None:
    """Run transcript scenarios and check what the bots did; exit 1 if any fails, 2 on a bad file.

    Example: automanager eval eval/scenarios --report report.md
    """
    from rich.markup import escape
    from rich.progress import Progress

    from .evaluation.report import aggregate, markdown, summary_line, table
    from .evaluation.runner import run_scenario
    from .evaluation.scenario import ScenarioError, load_scenarios

    for given, what in [*((target, "a scenario path") for target in targets), *([(report, "--report")] if report else [])]:
        usable(given, what)
    folder = use_kb(kb)
    config = llm_config(backend, model)
    if judge and config is None:
        raise fail("--judge needs an LLM backend", ENABLE_HINT)
    try:
        scenarios = load_scenarios(targets)
    except ScenarioError as exc:
        raise fail(str(exc), "See eval/README.md for the scenario format.") from None
    if not scenarios:
        raise fail("no scenarios found", "Give .yaml files or folders holding them.")
    judge_backend = OpenAIBackend(config, Menu.load(paths.kb_files(folder))) if judge and config else None
    results = []
    with Progress(console=err, disable=not err.is_terminal, transient=True) as progress:
        task = progress.add_task("scenarios", total=len(scenarios))
        for scenario in scenarios:
            progress.update(task, description=escape(scenario.name))  # the column reads markup
            results.append(run_scenario(scenario, config, judge_backend, kb=folder))
            progress.advance(task)
    summary = aggregate(results)
    if report:
        write_report(report, markdown(results, summary))
    if as_json:
        out.print(json.dumps({"scenarios": [r.as_dict() for r in results], "aggregate": summary},
                             ensure_ascii=False), soft_wrap=True, highlight=False, markup=False)
    else:
        out.print(table(results))
        out.print(f"{summary_line(summary)}; per turn p50 {summary['total_ms']['p50']} ms, "
                  f"p95 {summary['total_ms']['p95']} ms", highlight=False, markup=False)
    if summary["failed"]:
        raise typer.Exit(1)


def write_report(report: Path, text: str) -> None:
    try:
        report.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write the report to {report}: {exc.strerror or exc}", "Give --report a file in a "
                   "folder that exists and is writable.") from None
    err.print(f"report written to {report}")


@app.command("eval-nlu")
def evaluate_nlu(
    benchmark: Annotated[str, typer.Argument(help="The benchmark: pizza (Amazon's PIZZA dataset).",
                                             show_default=False)],
    data: Annotated[Path, typer.Option("--data", help="The dataset folder you fetched (it holds data/PIZZA_dev.json "
                                                      "and utils/catalogs/); it is CC-BY-NC, keep it outside "
                                                      "this project.", show_default=False)],
    split: Annotated[str, typer.Option("--split", help="dev (tune on it) or test (one final figure).")] = "dev",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document: figures and every miss.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N utterances.")] = None,
    kb: Annotated[Path | None, typer.Option("--kb", help="The menu pack (default: the shipped pizza pack).")] = None,
) -> None:
    """Score understanding on a semantic parsing benchmark: each utterance is one fresh customer
    turn; the order it leaves is compared with the gold one (whole-order exact match, and per field).

    Example: automanager eval-nlu pizza --data ../pizza-semantic-parsing-dataset --split dev
    """
    from rich.progress import Progress

    from .evaluation.nlu import DataError
    from .evaluation.nlu import evaluate as run_nlu

    if benchmark != "pizza":
        raise fail(f"unknown benchmark '{benchmark}'", "The benchmark this command knows: pizza.")
    if split not in ("dev", "test"):
        raise fail(f"unknown split '{split}'", "Use --split dev or --split test.")
    if limit is not None and limit < 1:
        raise fail(f"--limit {limit} is out of range: give 1 or more")
    usable(data, "--data")
    folder = use_kb(kb or paths.data_dir("kb") / "packs" / "pizza")
    try:
        with Progress(console=err, disable=not err.is_terminal, transient=True) as progress:
            task = progress.add_task(f"PIZZA {split}", total=limit)
            report = run_nlu(data, split, lambda n: progress.update(task, completed=n), limit, folder)
    except DataError as exc:
        raise fail(str(exc), "Fetch github:amazon-science/pizza-semantic-parsing-dataset and pass its folder.") from None
    result = report.as_dict()
    if as_json:
        out.print(json.dumps(result, ensure_ascii=False), soft_wrap=True, highlight=False, markup=False)
        return
    grid = Table("field", "accuracy", title=f"PIZZA {split}: {report.total} utterances")
    for name, rate in result["field_accuracy"].items():
        grid.add_row(name, f"{rate:.1%}")
    out.print(grid)
    out.print(f"whole-order exact match: {report.exact}/{report.total} ({result['exact_match_rate']:.1%})",
              highlight=False)


@app.command("bench")
def bench_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    quick: Annotated[bool, typer.Option("--quick", help="Fewer rounds: under a minute.")] = False,
    plot_file: Annotated[Path | None, typer.Option("--plot", help="Also draw the curves into this PNG "
                                                                     "(needs matplotlib).")] = None,
    kb: KbOption = None,
    served: Annotated[bool, typer.Option("--served", help="Instead: `automanager serve` on 127.0.0.1 under --lanes "
                                                            "lanes of --turns turns each over loopback, the manager "
                                                            "saving twice; turns/s, latency, errors, lost turns.")]
    = False,
    chain: Annotated[bool, typer.Option("--chain", help="Instead: a chain of --stores stores on the PostgreSQL "
                                                        "database AUTOMANAGER_DATABASE_URL names, --lanes lanes each "
                                                        "and a manager per store; turns/s, latency, lost turns and "
                                                        "cross-store leaks.")] = False,
    voice_corpus: Annotated[Path | None, typer.Option(
        "--voice", help="Instead: the voice lane on a corpus (e.g. ../shared/eval/customer-dev3.yaml): its customer "
                        "lines spoken by espeak-ng, clean and with engine noise, recognized and ordered; word error "
                        "rate, orders that agree with the text run, units rung up that nobody said (exit 1 if "
                        "any), release-to-first-audio time (needs the voice extra; AUTOMANAGER_RECOGNIZER=base "
                        "for Whisper base).")] = None,
    limit: Annotated[int | None, typer.Option(help="--voice: only the first N scenarios.", min=1)] = None,
    stores: Annotated[int, typer.Option(help="--chain: stores.", min=1, max=200)] = 20,
    lanes: Annotated[int | None, typer.Option(help="--served: lanes at once (default 32); --chain: lanes a store "
                                                   "(default 4).", min=1, max=64)] = None,
    turns: Annotated[int | None, typer.Option(help="--served: turns each lane sends (default 20); --chain: "
                                                   "(default 30).", min=1, max=1000)] = None,
    think: Annotated[float, typer.Option(help="--served: seconds a car takes between its lines (hearing the reply, "
                                              "saying the next; 0: the next line at once, which saturates).",
                                         min=0, max=60)] = 2.0,
) -> None:
    """Time reasoning and whole turns against the paper's Table 1 (p50/p95/max in ms).

    Cases: administrator reasoning; assistant reasoning with 1, 10, 30 and 100 requirements in
    the order; the menu cloned x1, x4, x10; whole offline turns; a customer turn with ten store
    rules published and with none; REPL start to first prompt.
    With --served: the HTTP service under load instead (see docs/service-load.md).
    """
    for given, option in ((plot_file, "--plot"), (voice_corpus, "--voice")):
        if given is not None:
            usable(given, option)
    folder = use_kb(kb)
    if voice_corpus is not None:
        voice_bench(voice_corpus, limit, folder, as_json)
    elif chain:
        chain_bench(stores, lanes or 4, turns or 30, folder, as_json)
    elif served:
        served_bench(lanes or 32, turns or 20, folder, think, as_json)
    else:
        turn_bench(quick, folder, plot_file, as_json)


def chain_bench(stores: int, lanes: int, turns: int, folder: Path | None, as_json: bool) -> None:
    from . import bench

    if not os.environ.get("AUTOMANAGER_DATABASE_URL", "").startswith(("postgresql://", "postgres://")):
        raise fail("--chain runs on a shared PostgreSQL database", "Set AUTOMANAGER_DATABASE_URL=postgresql://"
                   "user@host:port/database (an empty database the bench may write to).")
    try:
        figures = bench.chain_run(stores, lanes, turns, folder)
    except StateError as exc:
        raise fail(str(exc)) from None
    report(figures, as_json, f"chain: {figures['stores']} stores x {figures['lanes_per_store']} lanes x "
           f"{figures['turns_per_lane']} turns: {figures['turns_per_second']} turns/s; p50 {figures['p50']} ms, "
           f"p95 {figures['p95']} ms, p99 {figures['p99']} ms; {figures['lost']} lost, {figures['doubled']} "
           f"doubled; {figures['refusals_where_out']} refusals in the {figures['stores_out']} stores that ran "
           f"out, {figures['cross_store_leaks']} in the others (cross-store leaks)",
           failed=bool(figures["lost"] or figures["doubled"] or figures["cross_store_leaks"]
                       or not figures["refusals_where_out"]))


def voice_bench(corpus: Path, limit: int | None, folder: Path | None, as_json: bool) -> None:
    from rich.progress import Progress

    from . import voice
    from .evaluation.scenario import ScenarioError
    from .voicebench import voice_run

    if (why := voice.missing()) is not None:
        raise fail(f"no voice lane here: {why}")
    prompt = voice.menu_prompt(Menu.load(paths.kb_files(folder)).ranked_names)
    try:
        with Progress(console=err, disable=not err.is_terminal, transient=True) as progress:
            task = progress.add_task("voice bench", total=None)
            figures = voice_run(corpus, prompt, limit, lambda said: progress.update(task, description=said[:60]))
    except (ScenarioError, OSError) as exc:
        raise fail(str(exc), "Give a scenario file (eval/README.md), e.g. ../shared/eval/customer-dev3.yaml.") from None
    failed = any(row["units_rung_up_not_said"] for row in figures["settings"])  # rang up what nobody said
    if as_json:
        out.print_json(json.dumps(figures))
        raise typer.Exit(1 if failed else 0)
    table = Table("setting", "lines", "word error rate", "orders agree", "units rung up not said", "asked about",
                  "read-backs answered yes / no", "said again", "recognition s / audio s", "3-s lines: release to first audio p50 / p95 s",
                  title=f"voice bench: {figures['corpus']}, {figures['scenarios']} scenarios, "
                        f"recognizer {figures['recognizer']}")
    for row in figures["settings"]:
        table.add_row(row["setting"], str(row["lines"]), f"{row['word_error_rate']:.1%}", f"{row['orders_agree']:.1%}",
                      str(row["units_rung_up_not_said"]), f"{row['asked_about']:.1%}",
                      "{yes} / {no}".format(**row["read_backs_answered"]), str(row["said_again"]),
                      f"{row['recognition_per_audio_second']:.2f}",
                      f"{row['first_audio_p50_s']:.2f} / {row['first_audio_p95_s']:.2f} ({row['three_second_lines']})")
    out.print(table)
    raise typer.Exit(1 if failed else 0)


def served_bench(lanes: int, turns: int, folder: Path | None, think: float, as_json: bool) -> None:
    from . import bench

    figures = bench.served_run(lanes, turns, folder, think)
    report(figures, as_json, f"served: {figures['lanes']} lanes x {figures['turns_per_lane']} turns (think "
           f"{figures['think_s']} s): {figures['turns_per_second']} turns/s; p50 {figures['p50']} ms, p95 "
           f"{figures['p95']} ms (target <= {figures['target_p95']}), p99 {figures['p99']} ms; {figures['errors']} "
           f"errors, {figures['lost']} lost, {figures['doubled']} doubled; menu version {figures['menu_version']} "
           f"after {len(figures['manager_saves'])} saves; kitchen display: {figures['tickets_shown']} of "
           f"{figures['orders_closed']} closed orders shown, {figures['tickets_twice']} shown twice",
           failed=bool(figures["errors"] or figures["lost"] or figures["doubled"] or figures["tickets_missing"]
                       or figures["tickets_twice"]))


def turn_bench(quick: bool, folder: Path | None, plot_file: Path | None, as_json: bool) -> None:
    """The reasoning and turn cases, with progress on stderr; a table, or --json."""
    from rich.progress import Progress

    from . import bench

    with Progress(console=err, disable=not err.is_terminal, transient=True) as progress:
        task = progress.add_task("bench", total=None)
        result = bench.run(quick, lambda name: progress.update(task, description=name), folder)
    if plot_file:
        try:
            bench.plot(result, plot_file)
        except ImportError:
            raise fail("--plot needs matplotlib", "Install it: pip install matplotlib (or -e \".[bench]\").") from None
        except OSError as exc:
            raise fail(f"cannot write the plot to {plot_file}: {exc.strerror or exc}", "Give --plot a file in a "
                       "folder that exists and is writable.") from None
        err.print(f"plot written to {plot_file}")
    if as_json:
        out.print(json.dumps(result), soft_wrap=True, highlight=False, markup=False)
        return
    grid = Table("case", "rounds", "p50 ms", "p95 ms", "max ms", "target", "paper", title="AutoManager bench")
    verdicts: dict[bool | None, Text | str] = {True: Text("ok", "green"), False: Text("missed", "red"), None: ""}
    for case in result["cases"]:
        grid.add_row(case["name"], str(case["rounds"]), str(case["p50"]), str(case["p95"]), str(case["max"]),
                     Text.assemble(f"<= {case['target']} ", verdicts[case["meets"]]) if case["target"] else "",
                     str(case["paper"] or ""))
    out.print(grid)
    rules, long = result["store_rules"], result["long_session"]
    out.print(f"store rules: a customer turn {rules['p50_rules']} ms (p50) with {len(rules['rules'])} rules on, "
              f"{rules['p50_none']} ms with none: x{rules['ratio']} (within {rules['within']:.0%}: "
              f"{'yes' if rules['meets'] else 'no'}); {rules['many']['p50']} ms with {rules['many']['count']}: "
              f"x{rules['many']['ratio']} (within {rules['many']['within']:.0%}: "
              f"{'yes' if rules['many']['meets'] else 'no'})", highlight=False)
    out.print(f"long session: {long['p50_ms_near_100']} ms a turn near turn 100, {long['p50_ms_at_end']} ms near "
              f"turn {long['turns']}; {long['session_bytes']} bytes saved", highlight=False)
    out.print(f"peak memory: {result['peak_memory_mb']['bench_process']} MB (bench), "
              f"{result['peak_memory_mb']['repl_process']} MB (REPL)", highlight=False)


def report(figures: dict, as_json: bool, line: str, failed: bool) -> None:
    """A bench run's figures, as JSON or one line; exit 1 when they show a failure (a lost turn...)."""
    if as_json:
        out.print(json.dumps(figures), soft_wrap=True, highlight=False, markup=False)
    else:
        out.print(line, highlight=False)
    if failed:
        raise typer.Exit(1)


@kb_app.command("init")
def kb_init(
    folder: Annotated[Path, typer.Argument(help="The new pack's folder (made if missing).")],
) -> None:
    """Start a menu pack: write a commented starter menu.toml (a few items, sizes, one meal)
    that builds and chats at once, ready to be changed into your menu.

    Example: automanager kb init my-menu && automanager kb build --kb my-menu
    """
    target = usable(folder, "the pack's folder") / "menu.toml"
    try:
        if target.exists():
            raise fail(f"{target} already exists; nothing was written", "Edit it, or pick a new folder.")
        folder.mkdir(parents=True, exist_ok=True)
        target.write_text((Path(__file__).parent / "menu" / "starter.toml").read_text(encoding="utf-8"), encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {target}: {exc.strerror or exc}") from None
    out.print(f"wrote {target}\nnext: automanager kb build --kb {folder}   then   automanager customer --kb {folder}\n"
              "the format, field by field: kb/packs/README.md")


@kb_app.command("build")
def kb_build(
    kb: KbOption = None,
    check: Annotated[bool, typer.Option("--check", help="Only compare: exit 1 if menu.lp is out of date.")] = False,
) -> None:
    """Rebuild a pack's menu.lp (and NOTES.md): from its menu.toml, or from kb/sources/ and
    kb/curation.toml for the shipped Taco Bell pack.

    Example: automanager kb build --kb kb/packs/pizza
    """
    from .menu.build import BuildError, build_kb
    from .menu.menufile import MENU_FILE, menu_file_warnings

    folder = usable(paths.kb_dir(kb), "--kb" if kb is not None else "AUTOMANAGER_KB")
    try:
        menu, notes = build_kb(folder)
    except (BuildError, OSError) as exc:
        raise fail(str(exc), f"Fix {menu_source(folder)} and run `automanager kb build` again; the format is in "
                   "kb/packs/README.md.") from None
    targets = {folder / "menu.lp": menu, folder / "NOTES.md": notes}
    if check:
        stale = [p.name for p, text in targets.items() if written_text(p) != text]
        if stale:
            raise fail(f"out of date: {', '.join(stale)}", "Run `automanager kb build` to regenerate.", code=1)
        out.print("kb is up to date")
        return
    try:
        problems = checked_before_writing(folder, menu)
    except OverBudget as exc:
        raise fail(f"{exc}; menu.lp was not changed") from None
    if problems:
        raise fail(f"the built menu breaks {len(problems)} integrity rule(s); menu.lp was not changed:\n"
                   + "\n".join(f"- {p}" for p in problems[:20]),
                   f"Fix {menu_source(folder)} and run `automanager kb build` again.")
    written: list[Path] = []
    try:
        for path, text in targets.items():
            tmp = path.with_suffix(path.suffix + ".tmp")
            written.append(tmp)
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
    except OSError as exc:
        for tmp in written:
            tmp.unlink(missing_ok=True)
        raise fail(f"cannot write {path}: {exc.strerror or exc}", "Make the pack folder writable (and move away "
                   "whatever is in that file's place), or build a copy of it.") from None
    facts = sum(1 for line in menu.splitlines() if line and not line.startswith("%"))
    out.print(f"wrote {folder / 'menu.lp'} ({facts} facts) and {folder / 'NOTES.md'}")
    if (folder / MENU_FILE).is_file():
        for warning in menu_file_warnings(folder):  # built: names a chat will mishear, each with what to do
            err.print(f"warning: {warning}", soft_wrap=True)


def written_text(path: Path) -> str | None:
    """What a file of the pack holds now; None if it is missing or damaged (then it is out of date)."""
    try:
        return program_text(path)
    except ReasonerError:
        return None


def checked_before_writing(folder: Path, menu: str) -> list[str]:
    """The integrity violations of a menu.lp about to be written, with the pack's other .lp files,
    checked in a scratch folder: a build never leaves a menu.lp that `kb check` rejects."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        files = [Path(scratch) / "menu.lp"]
        files[0].write_text(menu, encoding="utf-8")
        try:
            for other in paths.kb_files(folder):
                if other.name != "menu.lp":
                    files.append(Path(scratch) / other.name)
                    files[-1].write_text(program_text(other), encoding="utf-8")
            return [problem.replace(scratch, str(folder)) for problem in check_kb(files, located=True)]
        except OverBudget:
            raise  # said as it is, on one line: the fix is in the pack's rules, not in the menu file
        except ReasonerError as exc:
            return [f"the built menu does not load: {exc}"]


@kb_app.command("check")
def kb_check(kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Run the ASP integrity rules over the KB; print each violation; exit 1 on any."""
    files = paths.kb_files(use_kb(kb))
    if not files:
        raise fail(f"no .lp files in {paths.kb_dir(kb)}", "Point --kb at a folder holding menu.lp.")
    try:
        problems = check_kb(files, located=True)
    except ReasonerError as exc:
        raise does_not_load(exc) from None
    if as_json:
        out.print_json(json.dumps({"ok": not problems, "violations": problems}))
    elif problems:
        for problem in problems:
            out.print(f"- {problem}", highlight=False)
        err.print(f"{len(problems)} violation(s)")
    else:
        out.print("kb ok: no integrity violations")
    if problems:
        raise typer.Exit(1)


def does_not_load(exc: ReasonerError) -> typer.Exit:
    """Why the KB does not load: clingo's messages on lines of their own, a budget's on one line."""
    return fail(str(exc) if isinstance(exc, OverBudget) else f"the knowledge base does not load:\n{exc}")


@kb_app.command("stats")
def kb_stats_command(kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Count the KB's facts per predicate."""
    files = paths.kb_files(use_kb(kb))
    if not files:
        raise fail(f"no .lp files in {paths.kb_dir(kb)}", "Point --kb at a folder holding menu.lp.")
    try:
        counts = kb_stats(files)
    except ReasonerError as exc:
        raise does_not_load(exc) from None
    total = sum(counts.values())
    if as_json:
        out.print_json(json.dumps({"total": total, "predicates": dict(sorted(counts.items()))}))
        return
    table = Table("predicate", "facts", title="Menu knowledge base")
    for predicate, count in sorted(counts.items()):
        table.add_row(predicate, str(count))
    table.add_section()
    table.add_row("total", str(total))
    out.print(table)
