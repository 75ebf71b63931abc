"""The package imports downwards only: no import cycle between its modules, and no module imports
one from a layer above its own. Every import counts: top-level and inside functions, relative and
absolute, so a cycle cannot hide in a function body."""

from __future__ import annotations

import ast
from fnmatch import fnmatch
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "automanager"

# Top to bottom; a module may import its own layer or any layer below it. Names are relative to
# the package; "menu.*" is the menu package and every module in it.
LAYERS = [
    ["cli", "__main__", "repl", "bench", "voicebench", "evaluation.*", "service.app",
     "service.server"],  # the commands and the chats' front ends; the HTTP server under the service
    ["service.routers.*"],  # the service's routes, one router per concern
    ["service.shared", "service.errors", "service.access"],  # what routes share: the store, errors, who may call
    ["service", "service.lanes", "service.events", "service.models", "service.auth", "service.writer",
     "service.policy", "service.tls"],  # its parts
    ["star", "star.customer", "star.manager"],  # the two chats: a customer's and a manager's
    ["star.chat"],  # the turn both share: understanding, deciding, replying, saving
    ["bots.*"],  # the two bots: a turn's facts in, the decision out
    ["llm.*"],  # the LLM path (reads the vocabularies and the phrase data of language)
    ["language.*"],  # the offline understanding and the reply templates
    ["names"],  # menu names matched in text
    ["menu.*"],  # the menu pack: build, check, commit, read
    ["charts", "voice"],  # the day's numbers drawn; speech in and out
    ["recognition"],  # Whisper's reading of a spoken line, word by word
    ["orders", "receipt", "report"],  # a store's orders: recorded once, printed, summed for the day
    ["store", "state", "vocab", "acts", "rules"],  # the state on disk; the session state as typed facts; the vocabularies and acts
    ["terms"],  # the typed predicates: the one encoder and decoder
    ["reasoner", "normalize", "dialogue", "paths", "settings", "database"],  # clingo; text folding; the dialogue's
    # words (no menu name may be one); where files are; numbers set
    ["files"],  # files written durably; cache entries with their digests
    ["automanager"],  # the package itself (empty)
]

# Imports that must not happen although the layers allow them: the LLM path shares its helpers
# with the offline parsers through one module, never through the parsers' internals.
FORBIDDEN = [("llm.*", "language.customer_parser"), ("llm.*", "language.manager_parser")]



def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or "automanager"


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, source: str) -> set[str]:
    """The package's modules that module `name`, whose text is `source`, imports anywhere in it."""
    path = MODULES[name]
    package = name.split(".") if path.name == "__init__.py" and name != "automanager" else name.split(".")[:-1]
    found: set[str] = set()

    def add(dotted: list[str], names: list[str]) -> None:
        base = ".".join(dotted)
        for alias in names:  # `from . import paths` imports a module; `from .x import f` imports x
            sub = f"{base}.{alias}" if base else alias
            if sub in MODULES:
                found.add(sub)
            elif base in MODULES or not base:
                found.add(base or "automanager")  # a name defined in that module, or the package

    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "automanager":
                    add(parts[1:-1], parts[-1:])
        elif isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
            module = node.module.split(".") if node.module else []
            if node.level:
                if node.level - 1 > len(package):
                    raise AssertionError(f"{name}: relative import beyond the package")
                add(package[: len(package) - node.level + 1] + module, names)
            elif module and module[0] == "automanager":
                add(module[1:], names)
    found.discard(name)
    return found


GRAPH = {name: imports(name, path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def matches(name: str, pattern: str) -> bool:
    return fnmatch(name, pattern) or (pattern.endswith(".*") and name == pattern[:-2])


def layer(name: str) -> int:
    for rank, patterns in enumerate(LAYERS):
        if any(matches(name, p) for p in patterns):
            return rank
    raise AssertionError(f"{name} is in no layer: add it to LAYERS in {Path(__file__).name}")


def violations() -> set[tuple[str, str]]:
    upward = {(a, b) for a, deps in GRAPH.items() for b in deps if layer(b) < layer(a)}
    forbidden = {(a, b) for a, deps in GRAPH.items() for b in deps
                 for pa, pb in FORBIDDEN if matches(a, pa) and matches(b, pb)}
    return upward | forbidden


def test_the_import_reader_sees_relative_absolute_and_function_level_imports():
    assert {"paths", "bots.base", "menu.commit", "reasoner", "acts"} <= GRAPH["bots.admin"]  # `from .. import paths`
    assert "bench" in GRAPH["cli"] and "evaluation.nlu" in GRAPH["cli"]  # inside functions
    assert "menu.facts" in GRAPH["menu.menufile"]


def test_every_module_has_a_layer():
    for name in MODULES:
        layer(name)


def test_no_module_imports_one_from_a_higher_layer():
    new = sorted(violations())
    assert not new, "upward or forbidden imports (importer -> imported):\n" + "\n".join(f"{a} -> {b}" for a, b in new)


def test_no_import_cycle():
    """Depth-first search; a back edge is a cycle, reported with its modules in order."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for dep in sorted(GRAPH[name]):
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep)
        stack.pop()
        state[name] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("source, found", [
    ("from .. import paths\nfrom ..menu.commit import VIEW\n", {"paths", "menu.commit"}),
    ("def f():\n    from ..language import customer_parser\n", {"language.customer_parser"}),
    ("import automanager.store\nfrom automanager.menu import model\n", {"store", "menu.model"}),
    ("from .base import Decision\nimport os\n", {"bots.base"}),
])
def test_the_import_reader_on_examples(source, found):
    assert imports("bots.admin", source) == found


LONGEST = 59  # lines a function may take, its docstring included: a longer one does several things


def test_no_function_is_longer_than_it_can_be_read():
    """Each function reads top to bottom on one screen; a longer one is split by what its parts do."""
    long = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST:
                    long.append(f"{name}.{node.name}: {lines} lines")
    assert not long, f"over {LONGEST} lines: {long}"
