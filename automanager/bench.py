"""`automanager bench`: the paper's Table 1 measured here, and how the cost grows.

A requirement is one thing the customer asked for: an order line or a topping on a dish. The
assistant case measures the reasoning of the turn "that's all" over an order already holding N
requirements (the turn that walks every unit, asks what is missing and prices the order). The
menu cases clone every dish and combo under new names (x4, x10) in a temporary KB. Whole turns
are parse + reasoning + response, without the session save (reported apart). Each case runs
warm-up rounds first, then the measured rounds.

Cases in fresh processes (each a new `python`, the state dir's rule cache already written):
`cold_turn` is the first turn right after a chat is made; `first_turn_after_greeting` the first
turn after the background warm-up a chat starts with its greeting; `embedding_first_use` the first
turn that needs the sentence embeddings (its extra memory is in `embedding_extra_mb`).
`commit_turn` is the manager's "save" that publishes one price change. `customer_turn_rules_0`,
`customer_turn_rules_10` and `customer_turn_rules_200` are the customer turn on the menu published
with no store rule, with ten (limits, hours, deals, stand-ins, suggestions) and with two hundred
(the ten and more of each kind on other dishes), timed in turn; `store_rules` has their p50s, the
ratios and whether the ten stay within 10% of none and the two hundred within 50%. `long_session` is one customer session kept open for thousands of turns (questions
about every item in turn, a dish ordered and taken off, small talk): ms per whole turn near turn
100 and near its last turn, and the bytes its files take; the two should be alike. With an LLM
configured (OPENAI_BASE_URL or OPENAI_API_KEY: a real server, or the fake one a test starts), the
figures `llm_calls_per_turn` and `parse_prompt_tokens` are measured over a few customer turns.
"""

from __future__ import annotations

import atexit
import http.client
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from functools import cache, partial
from pathlib import Path

import clingo

from . import paths
from .acts import Act, Complete, Edit, Order, Runout, Update
from .bots.admin import Administrator
from .bots.assistant import Assistant
from .language.customer_templates import plural
from .language.outputs import RanOut, Unavailable, assistant_said
from .language.phrases import menu_examples
from .menu.check import check_kb
from .menu.commit import HEADER, facts_by_text, kb_symbols, known_problems
from .menu.model import Menu
from .orders import OrderBook
from .reasoner import Const, caches_written, term
from .service.lanes import MAX_LANES, PER_CLIENT_SETTING
from .star import Chat, CustomerChat, ManagerChat
from .state import LastAsk, State
from .store import Home

# The paper's Table 1 (s(CASP) reasoning, GPT-4 round trip) and our targets, in ms.
PAPER = {"admin_reasoning": 9.9, "assistant_reasoning_1": 115.4, "assistant_reasoning_10": 886.5}
TARGETS = {"admin_reasoning": 5, "assistant_reasoning_10": 8, "assistant_reasoning_100": 60,
           "menu_x10_reasoning_10": 60, "customer_turn": 40, "manager_turn": 40, "first_prompt": 1500,
           "cold_turn": 40, "first_turn_after_greeting": 40, "commit_turn": 100}
# A child process: make a customer chat on a state dir, maybe warm it, time one turn.
CHILD = """
import json, sys, time
from pathlib import Path
from automanager.star import CustomerChat
from automanager.store import Home
state, line, warm = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
chat = CustomerChat(Home(Path(state)))
if warm:
    chat.warm()
start = time.perf_counter()
chat.step(line)
print(json.dumps({"ms": (time.perf_counter() - start) * 1000}))
"""


@dataclass
class Case:
    name: str
    rounds: int
    p50: float
    p95: float
    max: float
    target: float | None = None
    paper: float | None = None

    @property
    def meets(self) -> bool | None:
        return None if self.target is None else self.p50 <= self.target


def measure(name: str, work: Callable[[], object], rounds: int, warmup: int) -> Case:
    for _ in range(warmup):
        work()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return Case(name, rounds, round(statistics.median(times), 2), round(p95, 2), round(times[-1], 2),
                TARGETS.get(name), PAPER.get(name))


def requirements(menu: Menu, n: int) -> list[Act]:
    """n requirements: order lines and toppings on ordered dishes, alternating."""
    toppings: dict[str, list[str]] = {}
    for dish, topping in menu.facts.get("available_topping", []):
        toppings.setdefault(dish, []).append(topping)
    dishes = sorted(d for d in toppings if d in menu.names("dish"))
    orders = (n + 1) // 2
    acts: list[Act] = [Order(dishes[i % len(dishes)], 1, i + 1) for i in range(orders)]
    ordered = dishes[:min(orders, len(dishes))]
    for j in range(n - orders):
        dish = ordered[j % len(ordered)]
        acts.append(Update(dish, Const("add"), toppings[dish][j // len(ordered)]))
    return acts


def order_state(assistant: Assistant, menu: Menu, n: int) -> State:
    return assistant.decide(requirements(menu, n), State(), []).state


def scaled_kb(factor: int, folder: Path) -> list[Path]:
    """The shipped KB with every dish and combo also under `factor - 1` new names."""
    facts = kb_symbols(paths.kb_files())
    items = {name for s in facts if s.name in ("dish", "combo") for name in s.arguments}  # dish(Name), combo(Name)
    lines = [f"{s}." for s in facts]
    for copy in range(2, factor + 1):
        for s in facts:
            if any(a in items for a in s.arguments):
                args = [clingo.String(f"{a.string} {copy}") if a in items else a for a in s.arguments]
                lines.append(f"{clingo.Function(s.name, args)}.")
    path = folder / f"menu-x{factor}.lp"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]


@cache
def bytecode_folder() -> str:
    """Where the bench's child processes keep compiled modules for the run (removed at exit)."""
    folder = tempfile.mkdtemp(prefix="bench-bytecode-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def offline_env(kb: Path | None = None) -> dict[str, str]:
    """A child process's environment: no LLM, the menu pack measured (the KB's default for a fresh
    process is $AUTOMANAGER_KB), and its modules compiled once, as an installed package has them
    (pip compiles them at install; with PYTHONDONTWRITEBYTECODE each start would compile them all)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = bytecode_folder()
    return env | {"AUTOMANAGER_KB": str(kb)} if kb else env


def menu_case(factor: int, folder: str, rounds: int, warmup: int) -> None:
    """(In a child process) the assistant's reasoning over 10 requirements on the menu cloned
    `factor` times; prints the Case as JSON."""
    menu = Menu.load(paths.kb_files())
    files = paths.kb_files() if factor == 1 else scaled_kb(factor, Path(folder))
    assistant = Assistant(files)
    state = order_state(assistant, menu, 10)
    case = measure(f"menu_x{factor}_reasoning_10", lambda: assistant.decide([Complete()], state, []), rounds, warmup)
    print(json.dumps(asdict(case)))


def menu_case_in_child(factor: int, folder: Path, rounds: int, warmup: int, kb: Path | None) -> dict:
    code = f"from automanager import bench; bench.menu_case({factor}, {str(folder)!r}, {rounds}, {warmup})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=offline_env(kb), check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_prompt(state_dir: Path, kb: Path | None) -> tuple[float, float]:
    """Seconds from starting `automanager customer` to its greeting on stdout, and the peak
    memory (MB) of that REPL process itself."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "automanager", "customer", "--state-dir", str(state_dir),
                             "--backend", "offline"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=offline_env(kb))
    assert proc.stdout is not None  # a pipe: asked for above
    proc.stdout.readline()
    elapsed = time.perf_counter() - start
    peak = peak_mb(proc.pid)  # its own (a child's rusage would count the bench's memory at fork)
    proc.communicate("")
    return elapsed, peak


def peak_mb(pid: int) -> float:
    """The peak resident memory of a running process (Linux; 0 elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    kilobytes = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)
    return kilobytes / 1024


def child_turn(state_dir: Path, line: str, warm: bool, kb: Path | None) -> dict:
    """One turn in a new process (see CHILD): its time in ms."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(state_dir), line, "1" if warm else "0"],
                          capture_output=True, text=True, env=offline_env(kb), check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def embedding_first_use() -> dict:
    """What the first name that needs sentence embeddings costs a process: loading the model and
    one lookup (ms), and the memory it adds (MB). A chat at a terminal loads it in the background."""
    code = ("import json, resource, time\nfrom automanager.names import Embedder\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\nstart = time.perf_counter()\n"
            "Embedder.encode(['a name said'])\nms = (time.perf_counter() - start) * 1000\n"
            "extra = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024\n"
            "print(json.dumps({'ms': ms, 'extra_mb': extra}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=offline_env(), check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def from_samples(name: str, samples: list[float]) -> Case:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return Case(name, len(samples), round(statistics.median(samples), 2), round(p95, 2), round(samples[-1], 2),
                TARGETS.get(name), PAPER.get(name))


def mixed_run(home: Home, menu: Menu, turns: int = 200) -> dict:
    """Whole turns as people take them (the session saved, menu versions followed): orders,
    questions, a misspelled name, a runout and its return, a price change published, closings
    that start the next customer. p50/p95/p99/max in ms over `turns` turns."""
    dish, drink = menu.example_dish, menu_examples(menu)["drink"]
    ingredient = sorted(menu.included(dish))[0]
    typo = dish[:3] + dish[4:]  # one letter left out
    customer_lines = [f"two {plural(dish, 2)} and a large {drink}", f"how much is the {dish}?", f"a {typo}",
                      "what do you recommend?", f"no {ingredient} on the {dish}", "that's all", "no thanks"]
    manager_lines = [f"we're out of {ingredient}", f"{ingredient} is back", f"the {dish} now costs $2.99", "save",
                     f"the {dish} now costs $3.19", "save"]
    customer, manager, times = CustomerChat(home), ManagerChat(home), []
    chat: Chat
    for n in range(turns):
        if n % 5 == 4:
            chat, line = manager, manager_lines[(n // 5) % len(manager_lines)]
        else:
            chat, line = customer, customer_lines[(n - n // 5) % len(customer_lines)]
        start = time.perf_counter()
        chat.turn(line)
        times.append((time.perf_counter() - start) * 1000)
        if customer.ended:
            customer = CustomerChat(home)  # the next car
    times.sort()
    return {"turns": turns, "p50": percentile(times, 0.5), "p95": percentile(times, 0.95),
            "p99": percentile(times, 0.99), "max": round(times[-1], 2)}


def long_session(home: Home, menu: Menu, turns: int) -> dict:
    """One open customer session of `turns` whole turns (the save included): the p50 ms of turns
    91-110 and of the last 20 (at_end), and the bytes of its files at the end."""
    items, dish = sorted(menu.items), menu.example_dish
    chat, times = CustomerChat(home), []
    for n in range(turns):
        food = items[(n // 6) % len(items)]
        line = [f"how much is a {food}?", f"a {dish}", f"what's in the {food}?", f"remove the {dish}", "hello",
                "what do you recommend?"][n % 6]
        start = time.perf_counter()
        chat.turn(line)
        times.append((time.perf_counter() - start) * 1000)
    path = home.session_path(chat.session_id)
    return {"turns": turns, "p50_ms_near_100": round(statistics.median(times[90:110]), 2),
            "p50_ms_at_end": round(statistics.median(times[-20:]), 2),
            "session_bytes": path.stat().st_size + home.journal_path(chat.session_id).stat().st_size}


def llm_figures(dish: str, kb: Path | None) -> dict | None:
    """LLM calls per customer turn and the parse prompt's size, against the configured server."""
    from .llm.openai_backend import LLMConfig

    config = LLMConfig.from_env()
    if config is None:
        return None
    with tempfile.TemporaryDirectory() as tmp, caches_written():
        chat = CustomerChat(Home(Path(tmp), kb), None, config)
        turns = [chat.step(line) for line in (f"two {dish}", "what do you recommend?", "that's all")]
    calls = [t.llm["calls"] for t in turns]
    first = [t.llm["prompt_tokens"] // max(t.llm["calls"], 1) for t in turns]
    return {"llm_calls_per_turn": round(sum(calls) / len(calls), 2), "parse_prompt_tokens": max(first)}


RULES_WITHIN = 0.10  # a customer turn with ten store rules on stays within 10% of none
MANY_RULES, MANY_WITHIN = 200, 0.50  # ... and with two hundred within 50%


def store_rules(menu: Menu, dish: str, drink: str) -> list[clingo.Symbol]:
    """Ten store rules of every kind (issue 30) as KB facts, over the menu's own names, for the
    turn "two <dish> and a large <drink>": limits on what it orders that it keeps to (the turn's
    answer is the same with them), hours that hold at any clock on the dish's category and
    breakfast hours on a dish it does not order, deals on it (a price every day, 10% off over $20,
    a free drink with a combo), a stand-in for the dish when it is out and a suggestion. The bots
    read limits today; the other kinds are inert facts until their rules are written, and then
    this case measures those rules too."""
    kind = menu.category_of.get(dish) or "combo"
    others = [d for d in menu.names("dish") if d not in (dish, drink)]
    spare = next((d for d in others if menu.category_of.get(d) == kind), others[0] if others else dish)
    combo = min(menu.combos, default="combo")  # a pack without combos: any combo
    price = dict(menu.facts.get("original_price", [])).get(dish, 100)
    item, category, total = Const("item"), Const("category"), Const("total")
    rules: list[tuple[str, tuple[object, ...]]] = [
        ("limit", (item, dish, 3)),
        ("limit", (category, kind, 6)),
        ("limit", (total, "all", 20)),
        ("hours", (category, kind, 0, 24 * 60, 127)),  # every day, all day
        ("hours", (item, spare, 6 * 60, 10 * 60 + 30, 1 + 2 + 4 + 8 + 16)),  # mon-fri, 6:00-10:30
        ("deal_price", (dish, max(1, price * 4 // 5), 127)),
        ("deal_off", (Const("percent"), 10, 2000)),
        ("deal_free", (combo, drink)),
        ("instead", (dish, spare)),
        ("suggest", (kind, drink))]
    return [clingo.Function(name, [term(arg) for arg in args]) for name, args in rules]


def many_store_rules(menu: Menu, dish: str, drink: str, count: int = MANY_RULES) -> list[clingo.Symbol]:
    """`count` store rules: the ten of `store_rules`, then on each other dish in turn a limit,
    hours for each weekday and a deal price for each weekday (a store with a rule book)."""
    rules = store_rules(menu, dish, drink)
    prices = dict(menu.facts.get("original_price", []))
    item = Const("item")
    others = [d for d in menu.names("dish") if d not in (dish, drink)] or [dish]
    for n in range(count):
        other = others[n % len(others)]
        day = 1 << (n // len(others) % 7)
        more = [clingo.Function("limit", [term(item), term(other), term(9)]),
                clingo.Function("hours", [term(item), term(other), term(0), term(24 * 60), term(day)]),
                clingo.Function("deal_price", [term(other), term(max(1, prices.get(other, 100) * 9 // 10)), term(day)])]
        rules += [rule for rule in more if rule not in rules]
    return rules[:count]


def publish_rules(home: Home, rules: list[clingo.Symbol]) -> list[Path]:
    """Publish the store's menu with `rules` added as its next version, the way a manager's save
    writes one (menu/commit.py: every fact of the version it starts from and the new ones, sorted,
    in one file); checked against the integrity rules. Returns the version's files."""
    base = home.menu_files(home.latest_version())

    def make(files: list[Path]) -> str:
        facts = {**facts_by_text(files), **{str(rule): rule for rule in rules}}
        return HEADER + "".join(f"{fact}.\n" for fact in sorted(facts))

    version = home.commit_menu("bench", f"rules-{len(rules)}", home.latest_version(), [], make)
    files = home.menu_files(version)
    if new := set(check_kb(files)) - known_problems(base):
        raise RuntimeError(f"the menu with {len(rules)} rules breaks the integrity rules: {sorted(new)}")
    return files


def paired(names: Sequence[str], works: Sequence[Callable[[], object]], rounds: int, warmup: int) -> list[Case]:
    """Cases timed as `measure` times one, round by round in turn (each round starts with the
    next one), so that a machine busier for a while weighs on all alike."""
    samples: list[list[float]] = [[] for _ in works]
    for n in range(warmup + rounds):
        for k in [(n + i) % len(works) for i in range(len(works))]:
            start = time.perf_counter()
            works[k]()
            if n >= warmup:
                samples[k].append((time.perf_counter() - start) * 1000)
    return [from_samples(name, taken) for name, taken in zip(names, samples)]


def rules_cases(folder: Path, kb: Path | None, menu: Menu, dish: str, drink: str, rounds: int,
                warmup: int) -> tuple[list[Case], dict]:
    """The customer turn of `customer_turn` on the menu published with no rule, with ten
    (store_rules) and with two hundred (many_store_rules), each in a state dir of its own (all
    published the same way, so the rules are the only difference): the three cases, the second's
    target 10% and the third's 50% over the first's p50, and the figures (p50s, ratios, whether
    they hold)."""
    ten, many = store_rules(menu, dish, drink), many_store_rules(menu, dish, drink)
    line = f"two {dish} and a large {drink}"
    chats = []
    for name, published in (("none", []), ("ten", ten), ("many", many)):
        home = Home(folder / f"rules-{name}", kb)
        publish_rules(home, published)
        chats.append(CustomerChat(home))

    def turn(chat: CustomerChat) -> None:
        chat.state = State()
        chat.step(line)

    none, with_ten, with_many = paired([f"customer_turn_rules_{n}" for n in (0, len(ten), len(many))],
                                       [partial(turn, chat) for chat in chats], rounds, warmup)
    with_ten = replace(with_ten, target=round(none.p50 * (1 + RULES_WITHIN), 2))
    with_many = replace(with_many, target=round(none.p50 * (1 + MANY_WITHIN), 2))
    return [none, with_ten, with_many], {
        "rules": [str(rule) for rule in ten], "p50_none": none.p50, "p50_rules": with_ten.p50,
        "ratio": round(with_ten.p50 / none.p50, 3), "within": RULES_WITHIN, "meets": with_ten.meets,
        "many": {"count": len(many), "p50": with_many.p50, "ratio": round(with_many.p50 / none.p50, 3),
                 "within": MANY_WITHIN, "meets": with_many.meets}}


def run(quick: bool = False, progress: Callable[[str], None] = lambda _name: None, kb: Path | None = None) -> dict:
    """Every case on the menu pack in kb (None: paths.kb_dir())."""
    rounds, warmup = (15, 3) if quick else (60, 10)
    menu = Menu.load(paths.kb_files(kb))
    assistant = Assistant(menu.files)
    cases: list[Case] = []

    def add(name: str, work: Callable[[], object], n: int = rounds, w: int = warmup) -> None:
        progress(name)
        cases.append(measure(name, work, n, w))

    # what the turns talk about comes from the menu, so any restaurant's KB can be measured
    dish = menu.example_dish
    ingredient = Counter(i for _, i in menu.facts.get("included_ingredient", [])).most_common(1)[0][0]
    drink = min([item for item, group, _ in menu.facts.get("option", []) if group == "size"] or [dish])
    admin = Administrator(menu.files)
    admin_preds = [Runout(ingredient), Edit(dish, Const("price"), 199)]
    add("admin_reasoning", lambda: admin.decide(admin_preds, State(), []))
    for n in (1, 10, 30, 100):
        state = order_state(assistant, menu, n)
        add(f"assistant_reasoning_{n}", partial(assistant.decide, [Complete()], state, []))
    with tempfile.TemporaryDirectory() as tmp:
        for factor in (1, 4, 10):  # each in a fresh process: one process's earlier cases do not weigh on it
            progress(f"menu_x{factor}_reasoning_10")
            cases.append(Case(**menu_case_in_child(factor, Path(tmp), rounds, warmup, kb)))
        home = Home(Path(tmp) / "state", kb)
        customer, manager = CustomerChat(home), ManagerChat(home)
        line = f"two {dish} and a large {drink}"
        for name, work in turn_works(customer, manager, line, f"we're out of {ingredient} and the {dish} now costs $1.99"):
            add(name, work)
        progress("customer_turn_rules")
        rules_turns, rules = rules_cases(Path(tmp), kb, menu, dish, drink, rounds, warmup)
        cases += rules_turns
        progress("mixed_run")
        mixed = mixed_run(Home(Path(tmp) / "mixed", kb), menu, 60 if quick else 200)
        progress("long_session")
        long = long_session(Home(Path(tmp) / "long", kb), menu, 300 if quick else 3000)
        progress("commit_turn")
        cases.append(commit_case(manager, dish, 3 if quick else 10))
        progress("first_prompt")
        starts, prompts = start_cases(Path(tmp), kb, line, quick)
        cases += starts
        progress("embedding_first_use")
        lookups = [embedding_first_use() for _ in range(2 if quick else 3)]
        cases.append(from_samples("embedding_first_use", [run["ms"] for run in lookups]))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"quick": quick, "cases": [{**asdict(c), "meets": c.meets} for c in cases],
            "peak_memory_mb": {"bench_process": round(peak, 1), "repl_process": round(max(mb for _, mb in prompts), 1),
                               "embedding_extra_mb": round(max(run["extra_mb"] for run in lookups), 1)},
            "store_rules": rules, "mixed_run": mixed, "long_session": long, "llm": llm_figures(dish, kb),
            "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "clingo": clingo.__version__}}


def turn_works(customer: CustomerChat, manager: ManagerChat, customer_line: str,
               manager_line: str) -> list[tuple[str, Callable[[], object]]]:
    """Whole offline turns in this process, each from a fresh state: a customer's, a manager's,
    and a customer's with its session saved."""

    def customer_turn() -> None:
        customer.state = State()
        customer.step(customer_line)

    def manager_turn() -> None:
        manager.state = State()
        manager.step(manager_line)

    def customer_turn_with_save() -> None:
        customer_turn()
        customer.save()

    return [("customer_turn", customer_turn), ("manager_turn", manager_turn),
            ("customer_turn_with_save", customer_turn_with_save)]


def commit_case(manager: ManagerChat, dish: str, saves: int) -> Case:
    """A manager's save publishing one price change, `saves` times."""
    manager.warm()  # as the REPL does at start (it grounds the version for the next commit too)
    commits = []
    for price in range(saves):
        manager.step(f"the {dish} now costs ${2 + price}.49")
        start = time.perf_counter()
        manager.step("save")
        commits.append((time.perf_counter() - start) * 1000)
    return from_samples("commit_turn", commits)


def start_cases(tmp: Path, kb: Path | None, line: str, quick: bool) -> tuple[list[Case], list[tuple[float, float]]]:
    """A new process: the REPL's first prompt, its first turn (cold), and its first turn after the
    greeting's warm-up; with the REPL's (seconds, peak MB) of each start."""
    first_prompt(tmp / "repl", kb)  # compiles the modules, as an install does
    prompts = [first_prompt(tmp / "repl", kb) for _ in range(3 if quick else 20)]
    fresh = tmp / "fresh"
    child_turn(fresh, line, False, kb)  # writes the state dir's rule cache, as any first run does
    children = 3 if quick else 10
    return [from_samples("first_prompt", [seconds * 1000 for seconds, _ in prompts]),
            from_samples("cold_turn", [child_turn(fresh, line, False, kb)["ms"] for _ in range(children)]),
            from_samples("first_turn_after_greeting", [child_turn(fresh, line, True, kb)["ms"] for _ in range(children)])
            ], prompts


SERVED_TARGET_P95 = 100  # ms a lane turn over loopback, at the 95th percentile, on a 2-core machine


def customer_lines(menu: Menu) -> list[str]:
    """What cars say at a lane, from the menu: orders, a change, questions, a typo, the close."""
    dish, drink = menu.example_dish, menu_examples(menu)["drink"]
    ingredient = sorted(menu.included(dish))[0]
    other = next((d for d in sorted(menu.names("dish")) if d != dish), dish)
    return ["hi there", f"two {plural(dish, 2)} and a large {drink}", f"no {ingredient} on the {dish}",
            f"how much is the {other}?", "what do you recommend?", f"a {dish[:3] + dish[4:]}", f"add a {other}",
            f"take off the {drink}", "that's all", "no thanks"]


class Served:
    """`automanager serve` in a child process on 127.0.0.1 (a free port, a fresh state dir, the
    offline backend), with a keep-alive connection a caller thread."""

    def __init__(self, state_dir: Path, kb: Path | None):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-m", "automanager", "serve", "--host", "127.0.0.1", "--port",
                                      str(self.port), "--state-dir", str(state_dir), "--backend", "offline"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log,
                                     env=offline_env(kb) | {PER_CLIENT_SETTING: str(MAX_LANES)})  # all from here
        self.local = threading.local()
        deadline = time.monotonic() + 120
        while True:
            try:
                self.call("GET", "/openapi.json")
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"the service did not start: {self.stderr()[-2000:]}") from None
                self.local.__dict__.clear()
                time.sleep(0.1)
        self.manager = (state_dir / "manager-token").read_text(encoding="utf-8").strip()

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None,
             fresh: bool = False) -> tuple[int, dict]:
        """(status, JSON answer) of one request on this thread's kept connection (`fresh`: on a new
        one). A request that may be sent again (a read, or a turn with its id) is, once, if the
        server had closed an idle connection."""
        headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
        payload = json.dumps(body).encode() if body is not None else None
        if fresh and getattr(self.local, "conn", None) is not None:
            self.local.conn.close()
            self.local.conn = None
        for attempt in (1, 2):
            conn = getattr(self.local, "conn", None)
            if conn is None:
                conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                conn.request(method, path, payload, headers)
                answer = conn.getresponse()
                return answer.status, json.loads(answer.read() or b"null")
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                self.local.conn = None
                if attempt == 2 or not (method == "GET" or (body or {}).get("turn_id")):
                    raise
        raise AssertionError("unreachable")

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)


def served_run(lanes: int = 32, turns: int = 20, kb: Path | None = None, think: float = 0.0,
               seed: int = 28) -> dict:
    """`lanes` lanes of `turns` customer turns each over loopback from a thread pool (a thread a
    lane), while the manager changes a price and saves twice (at a third and at two thirds of the
    turns). Every turn has an id; at the end the transcripts are read back from the store: a turn
    acknowledged but missing is lost, one there twice is doubled. Latencies are the client's, in ms,
    one warm-up turn before (not counted). `think`: seconds a car takes between its turns (0: each
    lane sends its next turn as soon as it has the answer, which saturates the service and measures
    its throughput; its latency is then mostly the queue, lanes / turns per second)."""
    menu = Menu.load(paths.kb_files(kb))
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        server = Served(state, kb)
        kitchen = KitchenWatch(server)
        try:
            load = LaneLoad(server, customer_lines(menu), lanes, turns, think, seed)
            manager = threading.Thread(target=load.manager, name="bench-manager",
                                       args=(menu.example_dish, [round(rng.uniform(2, 4), 2) for _ in range(2)]))
            manager.start()
            began = time.perf_counter()
            with ThreadPoolExecutor(lanes) as pool:  # a thread a lane
                list(pool.map(load.lane, range(lanes)))
            elapsed = time.perf_counter() - began
            for event in load.reached:
                event.set()
            manager.join(120)
            versions = server.call("GET", "/api/versions", None, server.manager)[1]
            kitchen.settle([order.id for order in OrderBook(Home(state, kb)).open_tickets()])
        finally:
            kitchen.stop()
            server.stop()
        if "Traceback" in server.stderr():
            load.errors.append("a traceback in the service's log")
        kept = Counter(turn["id"] for _, data in Home(state, kb).sessions_of("customer")
                       for turn in data["turns"] if "id" in turn)
    acked, times = load.acked, sorted(load.times)
    p95 = percentile(times, 0.95)
    return {"lanes": lanes, "turns_per_lane": turns, "think_s": think, "turns": load.total, "acknowledged": len(acked),
            "seconds": round(elapsed, 2), "turns_per_second": round(len(acked) / elapsed, 1) if elapsed else 0.0,
            "p50": percentile(times, 0.5), "p95": p95, "p99": percentile(times, 0.99), "max": percentile(times, 1.0),
            "errors": len(load.errors),
            "error_samples": sorted(set(load.errors))[:5], "lost": sum(1 for t in acked if kept[t] == 0),
            "doubled": sum(1 for t in acked if kept[t] > 1), "manager_saves": load.saves,
            "menu_version": versions.get("latest"), **kitchen.figures(), "target_p95": SERVED_TARGET_P95,
            "meets": p95 <= SERVED_TARGET_P95, "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}


class KitchenWatch:
    """The kitchen display open through the run: its live stream of open tickets read in a thread
    of its own. At the end every order the store recorded must have reached it, and no event may
    show one ticket twice."""

    def __init__(self, server: Served):
        self.seen: set[int] = set()
        self.twice = 0  # events that listed one order twice
        self.events = 0
        self.recorded: list[int] = []
        self.stopping = False
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)  # heartbeats every 15 s
        self.conn.request("GET", "/api/kitchen/events", headers={"Authorization": f"Bearer {server.manager}"})
        self.stream = self.conn.getresponse()
        self.thread = threading.Thread(target=self.read, name="bench-kitchen", daemon=True)
        self.thread.start()

    def read(self) -> None:
        try:
            for raw in self.stream:
                if raw.startswith(b"data: "):
                    ids = [ticket["id"] for ticket in json.loads(raw[6:])["tickets"]]
                    self.events += 1
                    self.twice += len(ids) != len(set(ids))
                    self.seen.update(ids)
        except Exception:
            if not self.stopping:  # a stream cut while the bench runs is its failure; once stopped, the end
                raise

    def settle(self, recorded: list[int], patience: float = 5.0) -> None:
        """Wait (a little) until the display has shown every recorded order."""
        self.recorded = recorded
        deadline = time.monotonic() + patience
        while not set(recorded) <= self.seen and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        self.stopping = True
        self.conn.close()

    def figures(self) -> dict:
        return {"orders_closed": len(self.recorded), "tickets_shown": len(set(self.recorded) & self.seen),
                "tickets_missing": len(set(self.recorded) - self.seen), "tickets_twice": self.twice,
                "kitchen_events": self.events}


class LaneLoad:
    """What the served bench's lane threads and its manager thread share: the lanes opened (after
    one warm-up turn), the turns acknowledged and their latencies, the errors, and the moments
    (a third and two thirds of the turns) at which the manager saves."""

    def __init__(self, server: Served, lines: list[str], lanes: int, turns: int, think: float, seed: int):
        self.server, self.lines, self.turns, self.think, self.seed = server, lines, turns, think, seed
        self.total, self.done = lanes * turns, 0
        self.errors: list[str] = []
        self.acked: list[str] = []
        self.times: list[float] = []
        self.saves: list[dict] = []
        self.lock = threading.Lock()
        self.saves_at = [self.total // 3, 2 * self.total // 3]
        self.reached = [threading.Event() for _ in self.saves_at]
        warm = server.call("POST", "/api/lanes")[1]
        server.call("POST", f"/api/lanes/{warm['lane']}/turns", {"text": lines[1]}, warm["token"])
        self.opened = [server.call("POST", "/api/lanes")[1] for _ in range(lanes)]

    def lane(self, k: int) -> None:
        me, pace = self.opened[k], random.Random(self.seed + k)
        for i in range(self.turns):
            if self.think and i:
                time.sleep(pace.uniform(0.5, 1.5) * self.think)
            turn_id, text = f"l{k}t{i}", self.lines[(k + i) % len(self.lines)]
            start = time.perf_counter()
            try:
                status, answer = self.server.call("POST", f"/api/lanes/{me['lane']}/turns",
                                                  {"text": text, "turn_id": turn_id}, me["token"])
            except OSError as exc:
                status, answer = 0, {"error": str(exc)}
            self.answered(turn_id, status, answer, (time.perf_counter() - start) * 1000)

    def answered(self, turn_id: str, status: int, answer: object, ms: float) -> None:
        with self.lock:
            if status == 200:
                self.times.append(ms)
                self.acked.append(turn_id)
            else:
                self.errors.append(f"{status}: {answer.get('error') if isinstance(answer, dict) else answer}")
            self.done += 1
            for at, event in zip(self.saves_at, self.reached, strict=True):
                if self.done >= at:
                    event.set()

    def manager(self, dish: str, prices: list[float]) -> None:
        for event, price in zip(self.reached, prices, strict=True):
            if not event.wait(600):
                return
            start = time.perf_counter()
            staged = self.server.call("POST", "/api/manager/turns", {"text": f"the {dish} now costs ${price:.2f}"},
                                      self.server.manager, fresh=True)  # idle for a while: a new connection
            saved = self.server.call("POST", "/api/save", None, self.server.manager)
            self.saves.append({"ms": round((time.perf_counter() - start) * 1000, 2), "price": price,
                               "ok": staged[0] == saved[0] == 200, "menu_version": saved[1].get("menu_version")})


def plot(result: dict, path: Path) -> None:
    """Time against requirements and against menu size (needs matplotlib: pip install matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = {c["name"]: c for c in result["cases"]}
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    reqs = [1, 10, 30, 100]
    left.plot(reqs, [cases[f"assistant_reasoning_{n}"]["p50"] for n in reqs], "o-", label="clingo p50")
    left.plot([1, 10], [PAPER["assistant_reasoning_1"], PAPER["assistant_reasoning_10"]], "s--",
              label="s(CASP), paper")
    left.set(xlabel="requirements in the order", ylabel="ms per reasoning call", yscale="log",
             title="Assistant reasoning")
    left.legend()
    sizes = [1, 4, 10]
    right.plot(sizes, [cases[f"menu_x{f}_reasoning_10"]["p50"] for f in sizes], "o-")
    right.set(xlabel="menu size (x shipped menu)", ylabel="ms per reasoning call (10 requirements)",
              title="Menu size")
    fig.tight_layout()
    fig.savefig(path)


def chain_run(stores: int = 20, lanes: int = 4, turns: int = 30, kb: Path | None = None) -> dict:
    """A chain on one shared database (AUTOMANAGER_DATABASE_URL): `stores` stores of `lanes` lanes
    each, `turns` customer turns a lane, in one process (a thread a lane, each store its own state
    dir as if on its own machine), and a manager per store. A third of the way in, the manager of
    every even store runs out of an ingredient of the dish the cars order, and every store's
    manager sets a store price of another dish. Then: turns/s, latency, lost turns (acknowledged,
    missing from the store's sessions), and cross-store leaks: a refusal for that ingredient in a
    store that never ran out of it."""
    menu = Menu.load(paths.kb_files(kb))
    with tempfile.TemporaryDirectory() as tmp:
        chain = ChainLoad(menu, Path(tmp), stores, lanes, turns, kb)
        began = time.perf_counter()
        with ThreadPoolExecutor(stores * lanes + stores) as pool:
            jobs = [pool.submit(chain.manager, store) for store in chain.homes]
            jobs += [pool.submit(chain.lane, store, k) for store in chain.homes for k in range(lanes)]
            for job in jobs:
                job.result()
        elapsed = time.perf_counter() - began
        kept = {store: Counter(turn.get("id") for _, data in home.sessions_of("customer") for turn in data["turns"])
                for store, home in chain.homes.items()}
    times, acked, refused, out = sorted(chain.times), chain.acked, chain.refused, chain.out
    return {"stores": stores, "lanes_per_store": lanes, "turns_per_lane": turns, "turns": len(times),
            "seconds": round(elapsed, 2), "turns_per_second": round(len(times) / elapsed, 1) if elapsed else 0.0,
            "p50": percentile(times, 0.5), "p95": percentile(times, 0.95), "p99": percentile(times, 0.99),
            "max": percentile(times, 1.0),
            "lost": sum(1 for store, ids in acked.items() for i in ids if kept[store][i] == 0),
            "doubled": sum(1 for store, ids in acked.items() for i in ids if kept[store][i] > 1),
            "stores_out": len(out), "refusals_where_out": sum(refused[s] for s in out),
            "cross_store_leaks": sum(refused[s] for s in chain.homes if s not in out),
            "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}


def percentile(ordered: list[float], q: float) -> float:
    """The q-quantile (0..1) of sorted latencies, rounded to 0.01 ms; 0 when there are none."""
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2) if ordered else 0.0


class ChainLoad:
    """What the chain bench's lanes and managers share: each store's state dir, the stores that run
    out (the even ones), the two moments every thread meets at (a third of the way in; the runouts
    and store prices said), and the turns, latencies and refusals of the scarce ingredient."""

    def __init__(self, menu: Menu, tmp: Path, stores: int, lanes: int, turns: int, kb: Path | None):
        self.lines, self.turns = customer_lines(menu), turns
        dish = menu.example_dish
        self.scarce = sorted(menu.included(dish))[0]
        self.other = next(d for d in sorted(menu.names("dish")) if d != dish)
        self.times: list[float] = []
        self.acked: dict[str, list[str]] = {}
        self.refused: Counter[str] = Counter()  # store -> refusals naming the scarce ingredient
        self.lock = threading.Lock()
        self.third = threading.Barrier(stores * lanes + stores)  # every lane a third of the way in, and the managers
        self.told = threading.Barrier(stores * lanes + stores)  # the runouts and store prices said
        self.homes = {f"s{n:03d}": Home(tmp / f"s{n:03d}", kb, store=f"s{n:03d}") for n in range(stores)}
        for home in self.homes.values():
            home.set_stock(self.scarce, False)  # each store's database rows are made before the clock starts
        self.out = {store for n, store in enumerate(self.homes) if n % 2 == 0}

    def lane(self, store: str, k: int) -> None:
        home, chat = self.homes[store], CustomerChat(self.homes[store])
        for i in range(self.turns):
            if i == self.turns // 3:
                self.third.wait(600)
                self.told.wait(600)
            if chat.ended:
                chat = CustomerChat(home)
            start = time.perf_counter()
            text = self.lines[1] if i == self.turns // 3 else self.lines[(k + i) % len(self.lines)]  # the dish again
            turn = chat.turn(text, turn_id=f"{store}l{k}t{i}")
            ms = (time.perf_counter() - start) * 1000
            said = {c.ingredient for c in assistant_said(turn.actions) if isinstance(c, Unavailable | RanOut)}
            with self.lock:
                self.times.append(ms)
                self.acked.setdefault(store, []).append(f"{store}l{k}t{i}")
                self.refused[store] += self.scarce in said

    def manager(self, store: str) -> None:
        chat = ManagerChat(self.homes[store])
        self.third.wait(600)
        if store in self.out:
            chat.turn(f"we're out of {self.scarce}")
            if chat.state.all(LastAsk):  # a runout that takes many dishes off is read back first
                chat.turn("yes")
        chat.turn(f"here the {self.other} costs ${2 + int(store[1:]) % 3}.49")
        self.told.wait(600)
