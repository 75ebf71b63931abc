"""Scenario files for `automanager eval`: load and check them, with file and line on any error.

The format (eval/README.md): a YAML mapping per scenario, or a list of them, with `name`,
optional `about`, `pack`, `now` (a local time, ISO 8601: the bots' clock fact for the whole
scenario), `steps` (each `manager: ...` or `customer: ...`, optionally `session: N`) and
optional `expect`. Checking walks the YAML nodes rather than the loaded data, so every message
can point at the line that is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import clingo
import yaml

from .. import paths
from ..orders import tax_thousandths
from ..terms import parse

UNIT_LISTS = ("add", "no", "less", "extra", "change", "style", "choices")
SCENARIO_KEYS = ("name", "about", "pack", "now", "tax_rate_percent", "steps", "expect")  # each documented in eval/README.md
STEP_KEYS = ("manager", "customer", "session")
UNIT_KEYS = ("item", "quantity", "size", *UNIT_LISTS)
EXPECT_KEYS = ("rejected", "order", "total", "paid", "stock_out", "menu", "not_menu", "say", "not_say", "ended")


class ScenarioError(Exception):
    """A scenario file that cannot be run: the message names the file, the line and the problem."""

    def __init__(self, path: Path, line: int, problem: str):
        super().__init__(f"{path}:{line}: {problem}")
        self.path, self.line, self.problem = path, line, problem


@dataclass
class Step:
    role: str  # manager | customer
    text: str
    session: int = 1
    line: int = 0


@dataclass
class ExpectedUnit:
    """One expected unit of the final order; names as a person would write them."""

    item: str
    quantity: int = 1
    add: list[str] = field(default_factory=list)
    no: list[str] = field(default_factory=list)
    less: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    change: list[tuple[str, str]] = field(default_factory=list)
    style: list[str] = field(default_factory=list)
    size: str | None = None
    choices: list[str] = field(default_factory=list)


@dataclass
class Scenario:
    name: str
    steps: list[Step]
    expect: dict[str, Any]
    about: str = ""
    pack: Path | None = None  # the menu pack it runs on (kb/packs/<name>); None: the one the run uses
    now: datetime | None = None  # `now:`, a local time (ISO 8601): the bots' clock for the whole scenario
    tax: int = 0  # `tax_rate_percent:`, in thousandths of a percent: the store's sales tax
    path: Path | None = None
    line: int = 0


def load_scenarios(paths: list[Path]) -> list[Scenario]:
    """Every scenario in the given files and folders (*.yaml, *.yml, sorted), or ScenarioError."""
    files: list[Path] = []
    for path in paths:
        try:
            if path.is_dir():
                files += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
            elif path.is_file():
                files.append(path)
            else:
                raise ScenarioError(path, 0, "no such file or folder")
        except OSError as exc:  # a name too long for the system, a folder that cannot be listed
            raise ScenarioError(path, 0, f"cannot read: {exc.strerror or exc}") from None
    scenarios = [s for f in files for s in load_file(f)]
    seen: dict[str, Scenario] = {}
    for scenario in scenarios:
        if scenario.name in seen:
            raise ScenarioError(scenario.path or Path(scenario.name), scenario.line, f"a second scenario named '{scenario.name}' "
                                f"(the first is in {seen[scenario.name].path})")
        seen[scenario.name] = scenario
    return scenarios


def load_file(path: Path) -> list[Scenario]:
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ScenarioError(path, mark.line + 1 if mark else 0, f"not valid YAML: {getattr(exc, 'problem', exc)}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(path, 0, f"cannot read: {exc}") from exc
    if root is None:
        raise ScenarioError(path, 1, "the file is empty")
    nodes = root.value if isinstance(root, yaml.SequenceNode) else [root]
    return [Reader(path).scenario(node) for node in nodes]


class Reader:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, node: yaml.Node, problem: str) -> ScenarioError:
        return ScenarioError(self.path, node.start_mark.line + 1, problem)

    def mapping(self, node: yaml.Node, what: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()
                ) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping of keys to values")
        out = {}
        for key, value in node.value:
            if key.value not in allowed:
                raise self.fail(key, f"unknown key '{key.value}' in {what}; allowed: {', '.join(allowed)}")
            out[key.value] = value
        for key in required:
            if key not in out:
                raise self.fail(node, f"{what} needs '{key}'")
        return out

    def scalar(self, node: yaml.Node, what: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, f"{what} must be a single value")
        return yaml.safe_load(yaml.serialize(node))

    def text(self, node: yaml.Node, what: str) -> str:
        """A scalar as written: `customer: no` is the word "no", not YAML's false."""
        if not isinstance(node, yaml.ScalarNode) or not node.value.strip():
            raise self.fail(node, f"{what} must be text")
        return node.value

    def integer(self, node: yaml.Node, what: str, least: int = 1) -> int:
        value = self.scalar(node, what)
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise self.fail(node, f"{what} must be a whole number of at least {least}")
        return value

    def texts(self, node: yaml.Node, what: str) -> list[str]:
        """A list of texts; one text written alone (`style: thin crust`) is a list of one."""
        if isinstance(node, yaml.ScalarNode) and node.value.strip():
            return [node.value]
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, f"{what} must be a list")
        return [self.text(item, f"an entry of {what}") for item in node.value]

    def scenario(self, node: yaml.Node) -> Scenario:
        keys = self.mapping(node, "a scenario", SCENARIO_KEYS, ("name", "steps"))
        steps_node = keys["steps"]
        if not isinstance(steps_node, yaml.SequenceNode) or not steps_node.value:
            raise self.fail(steps_node, "steps must be a non-empty list")
        steps = [self.step(s) for s in steps_node.value]
        expect = self.expect(keys["expect"]) if "expect" in keys else {}
        return Scenario(name=self.text(keys["name"], "name"), steps=steps, expect=expect,
                        about=self.text(keys["about"], "about") if "about" in keys else "",
                        pack=self.pack(keys["pack"]) if "pack" in keys else None,
                        now=self.now(keys["now"]) if "now" in keys else None,
                        tax=self.tax(keys["tax_rate_percent"]) if "tax_rate_percent" in keys else 0,
                        path=self.path, line=node.start_mark.line + 1)

    def tax(self, node: yaml.Node) -> int:
        """`tax_rate_percent: 8.875`: the store's sales tax for the whole scenario."""
        try:
            return tax_thousandths(self.text(node, "tax_rate_percent"))
        except ValueError as exc:
            raise self.fail(node, f"tax_rate_percent: {exc}") from None

    def now(self, node: yaml.Node) -> datetime:
        """`now: 2026-11-24T11:30`: the local time the scenario happens at (ISO 8601, no zone)."""
        said = self.text(node, "now")
        try:
            at = datetime.fromisoformat(said.strip())
        except ValueError:
            raise self.fail(node, f"now must be a local time in ISO 8601 such as 2026-11-24T11:30, not '{said}'") from None
        if at.tzinfo is not None:
            raise self.fail(node, f"now is a local time: leave out the zone ('{said}')")
        return at

    def pack(self, node: yaml.Node) -> Path:
        """`pack: pizza`: a menu pack shipped in kb/packs; `pack: ../my-cafe` (a path, with a slash
        or a dot first), or a name no pack ships that is a folder beside this file: a pack folder
        relative to this scenario file. Built, either way."""
        name = self.text(node, "pack")
        beside = not paths.kb_files(paths.pack_dir(name)) and (self.path.parent / name).is_dir()
        if "/" in name or "\\" in name or name.startswith(".") or beside:
            folder = (self.path.parent / name).resolve()
            if not paths.kb_files(folder):
                raise self.fail(node, f"no built menu pack at '{name}' (from this file's folder: {folder}); "
                                      "run `automanager kb build --kb <that folder>` first")
            return folder
        folder = paths.pack_dir(name)
        if not paths.kb_files(folder):
            shipped = sorted(p.name for p in folder.parent.iterdir() if p.is_dir()) if folder.parent.is_dir() else []
            raise self.fail(node, f"no built menu pack '{name}'; shipped: {', '.join(shipped) or 'none'} "
                                  "(or a path to a pack folder, relative to this file: ./my-cafe)")
        return folder

    def step(self, node: yaml.Node) -> Step:
        keys = self.mapping(node, "a step", STEP_KEYS)
        roles = [r for r in ("manager", "customer") if r in keys]
        if len(roles) != 1:
            raise self.fail(node, "a step is either 'manager: ...' or 'customer: ...'")
        session = self.integer(keys["session"], "session") if "session" in keys else 1
        if "session" in keys and roles[0] != "customer":
            raise self.fail(keys["session"], "session applies to customer steps")
        return Step(roles[0], self.text(keys[roles[0]], roles[0]), session, node.start_mark.line + 1)

    def expect(self, node: yaml.Node) -> dict[str, Any]:
        keys = self.mapping(node, "expect", EXPECT_KEYS)
        out: dict[str, Any] = {}
        for key, value in keys.items():
            if key in ("rejected", "stock_out", "say", "not_say"):
                out[key] = self.texts(value, key)
            elif key in ("menu", "not_menu"):
                out[key] = [self.fact(item) for item in (value.value if isinstance(value, yaml.SequenceNode)
                                                         else [value])]
            elif key == "order":
                if not isinstance(value, yaml.SequenceNode):
                    raise self.fail(value, "order must be a list of units")
                out[key] = [self.unit(item) for item in value.value]
            elif key in ("total", "paid"):
                total = self.scalar(value, key)
                if (total != "auto" or key == "paid") and (
                        isinstance(total, bool) or not isinstance(total, (int, float)) or total < 0):
                    raise self.fail(value, f"{key} must be an amount in dollars (7.57)" + " or auto" * (key == "total"))
                out[key] = total
            else:  # ended
                ended = self.scalar(value, "ended")
                if not isinstance(ended, bool):
                    raise self.fail(value, "ended must be true or false")
                out[key] = ended
        return out

    def fact(self, node: yaml.Node) -> clingo.Symbol:
        text = self.text(node, "a fact")
        try:
            symbol = parse(text.strip().rstrip("."))
        except ValueError:
            symbol = None
        if symbol is None or symbol.type != clingo.SymbolType.Function or not symbol.name:
            raise self.fail(node, f"'{text}' is not an ASP fact such as original_price(\"Name\",189)")
        return symbol

    def unit(self, node: yaml.Node) -> ExpectedUnit:
        keys = self.mapping(node, "an order unit", UNIT_KEYS, ("item",))
        unit = ExpectedUnit(item=self.text(keys["item"], "item"))
        if "quantity" in keys:
            unit.quantity = self.integer(keys["quantity"], "quantity")
        if "size" in keys:
            unit.size = self.text(keys["size"], "size").lower()

        for key in ("add", "no", "less", "extra", "choices"):
            if key in keys:
                setattr(unit, key, self.texts(keys[key], key))
        if "style" in keys:
            unit.style = [s.lower() for s in self.texts(keys["style"], "style")]
        if "change" in keys:
            for item, text in zip(keys["change"].value, self.texts(keys["change"], "change")):
                old, sep, new = text.partition(">")
                if not sep or not old.strip() or not new.strip():
                    raise self.fail(item, f"change '{text}' must read \"Old > New\"")
                unit.change.append((old.strip(), new.strip()))
        return unit
