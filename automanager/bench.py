"""`automanager bench`: the paper's Table 1 measured here, and how the cost grows.

A requirement is one thing the customer asked for: an order line or a topping on a dish. The
assistant case measures the reasoning of the turn "that's all" over an order already holding N
requirements (the turn that walks every unit, asks what is missing and prices the order). The
menu cases clone every dish and combo under new names (x4, x10) in a temporary KB. Whole turns
are parse + reasoning + response, without the session save (reported apart). Each case runs
warm-up rounds first, then the measured rounds.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import clingo

from . import paths
from .bots.admin import Administrator
from .bots.assistant import Assistant
from .menu.commit import kb_facts
from .menu.model import Menu
from .reasoner import Const
from .star import CustomerChat, ManagerChat
from .store import Home
from .vocab import Pred

# The paper's Table 1 (s(CASP) reasoning, GPT-4 round trip) and our targets, in ms.
PAPER = {"admin_reasoning": 9.9, "assistant_reasoning_1": 115.4, "assistant_reasoning_10": 886.5}
TARGETS = {"admin_reasoning": 5, "assistant_reasoning_10": 15, "assistant_reasoning_100": 60,
           "menu_x10_reasoning_10": 60, "customer_turn": 40, "manager_turn": 40, "first_prompt": 1500}


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


def requirements(menu: Menu, n: int) -> list[Pred]:
    """n requirements: order lines and toppings on ordered dishes, alternating."""
    toppings = {}
    for dish, topping in menu.facts.get("available_topping", []):
        toppings.setdefault(dish, []).append(topping)
    dishes = sorted(d for d in toppings if d in menu.names("dish"))
    orders = (n + 1) // 2
    preds = [Pred("order", (dishes[i % len(dishes)], 1), i + 1) for i in range(orders)]
    ordered = dishes[:min(orders, len(dishes))]
    for j in range(n - orders):
        dish = ordered[j % len(ordered)]
        preds.append(Pred("update", (dish, Const("add"), toppings[dish][j // len(ordered)])))
    return preds


def order_state(assistant: Assistant, menu: Menu, n: int) -> list[str]:
    return assistant.decide(requirements(menu, n), [], []).state


def scaled_kb(factor: int, folder: Path) -> list[Path]:
    """The shipped KB with every dish and combo also under `factor - 1` new names."""
    facts = kb_facts(paths.kb_files())
    items = {s.arguments[0] for s in facts if s.name in ("dish", "combo")}
    lines = [f"{s}." for s in facts]
    for copy in range(2, factor + 1):
        for s in facts:
            if any(a in items for a in s.arguments):
                args = [clingo.String(f"{a.string} {copy}") if a in items else a for a in s.arguments]
                lines.append(f"{clingo.Function(s.name, args)}.")
    path = folder / f"menu-x{factor}.lp"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]


def first_prompt(state_dir: Path) -> float:
    """Seconds from starting `automanager customer` to its greeting on stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "automanager", "customer", "--state-dir", str(state_dir),
                             "--backend", "offline"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.communicate("")
    return elapsed


def run(quick: bool = False, progress: Callable[[str], None] = lambda _name: None) -> dict:
    rounds, warmup = (15, 3) if quick else (60, 10)
    menu = Menu.load(paths.kb_files())
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
    admin_preds = [Pred("runout", (ingredient,)), Pred("edit", (dish, Const("price"), 199))]
    add("admin_reasoning", lambda: admin.decide(admin_preds, [], []))
    for n in (1, 10, 30, 100):
        state = order_state(assistant, menu, n)
        add(f"assistant_reasoning_{n}", lambda s=state: assistant.decide([Pred("complete")], s, []))
    with tempfile.TemporaryDirectory() as tmp:
        for factor in (1, 4, 10):
            files = paths.kb_files() if factor == 1 else scaled_kb(factor, Path(tmp))
            scaled = Assistant(files)
            state = order_state(scaled, menu, 10)
            add(f"menu_x{factor}_reasoning_10", lambda a=scaled, s=state: a.decide([Pred("complete")], s, []))
        home = Home(Path(tmp) / "state")
        customer, manager = CustomerChat(home), ManagerChat(home)

        def customer_turn() -> None:
            customer.state = []
            customer.step(f"two {dish} and a large {drink}")

        def manager_turn() -> None:
            manager.state = []
            manager.step(f"we're out of {ingredient} and the {dish} now costs $1.99")

        add("customer_turn", customer_turn)
        add("manager_turn", manager_turn)
        add("customer_turn_with_save", lambda: customer_turn() or customer.save())
        starts = 3 if quick else 20
        progress("first_prompt")
        times = sorted(first_prompt(Path(tmp) / "repl") * 1000 for _ in range(starts))
        cases.append(Case("first_prompt", starts, round(statistics.median(times), 1), round(times[-1], 1),
                          round(times[-1], 1), TARGETS["first_prompt"]))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"quick": quick, "cases": [{**asdict(c), "meets": c.meets} for c in cases],
            "peak_memory_mb": {"bench_process": round(peak, 1), "repl_process": round(child, 1)},
            "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "clingo": clingo.__version__}}


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
