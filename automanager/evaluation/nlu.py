"""The PIZZA benchmark (Amazon's PIZZA semantic parsing dataset) as a test of understanding.

Every utterance is one fresh customer turn on a pizza KB pack, through the same parser and ASP
rules as a chat. The order the turn leaves is written in the dataset's executable notation (EXR)
and compared with the gold one as the dataset's own utilities do: trees equal up to the order of
children. Names become dataset entities through the dataset's catalogs (`utils/catalogs/*.txt`)
when the data folder has them, else as UPPER_SNAKE of the KB name.

The dataset is CC-BY-NC: the user supplies its folder; nothing of it ships with this project.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..normalize import normalize
from ..reasoner import caches_written
from ..star import CustomerChat
from ..store import Home

# dataset catalog file -> the EXR node its entities go in
CATALOGS = {"topping": "TOPPING", "drinks": "DRINKTYPE", "size": "SIZE", "style": "STYLE",
            "container": "CONTAINERTYPE", "drink_volume": "VOLUME"}
# KB option group -> EXR node; every other group (crusts, styles) is a STYLE
GROUP_NODES = {"size": "SIZE", "container": "CONTAINERTYPE", "volume": "VOLUME"}
QUANTITIES = {"extra": "EXTRA", "less": "LIGHT"}
FIELDS = ("count", "toppings", "negation", "extra_light", "size", "style", "drinks")

Tree = tuple  # (label, children...) with children sorted: order-insensitive by construction


class DataError(Exception):
    """The data folder has no such split, or a line is not the dataset's JSON."""


@dataclass
class NluReport:
    split: str
    total: int = 0
    exact: int = 0
    fields: Counter = field(default_factory=Counter)
    misses: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"split": self.split, "utterances": self.total, "exact_match": self.exact,
                "exact_match_rate": round(self.exact / self.total, 4) if self.total else 0.0,
                "field_accuracy": {f: round(self.fields[f] / self.total, 4) if self.total else 0.0 for f in FIELDS},
                "misses": self.misses}


def read_split(data: Path, split: str) -> list[tuple[str, str]]:
    """(utterance, gold EXR) pairs of PIZZA_<split>.json in the folder or its data/ folder."""
    for path in (data / f"PIZZA_{split}.json", data / "data" / f"PIZZA_{split}.json"):
        if path.is_file():
            break
    else:
        raise DataError(f"no PIZZA_{split}.json in {data} or {data / 'data'}: point --data at the dataset folder")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path.name}: not UTF-8 text (byte {exc.start}); is it the dataset's file?") from exc
    except OSError as exc:
        raise DataError(f"{path.name}: cannot be read ({exc.strerror or exc})") from exc
    pairs = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            pair = (row[f"{split}.SRC"], row[f"{split}.EXR"])
        except (json.JSONDecodeError, KeyError, TypeError, RecursionError) as exc:
            raise DataError(f"{path.name} line {number}: not a PIZZA row ({exc})") from exc
        if not all(isinstance(field, str) for field in pair):
            raise DataError(f"{path.name} line {number}: SRC and EXR must be text")
        try:
            parse_exr(pair[1])
        except ValueError as exc:
            raise DataError(f"{path.name} line {number}: the gold EXR is no tree ({exc})") from exc
        pairs.append(pair)
    return pairs


class Entities:
    """KB names and option values -> dataset entities, through the catalogs when present."""

    def __init__(self, data: Path):
        self.table: dict[tuple[str, str], str] = {}
        folder = next((d for d in (data / "utils" / "catalogs", data.parent / "utils" / "catalogs", data / "catalogs")
                       if d.is_dir()), None)
        for stem, node in CATALOGS.items():
            path = folder / f"{stem}.txt" if folder else None
            if not path or not path.is_file():
                continue
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                phrase, _, entity = line.partition("\t")
                inside = re.search(r"\((.*)\)", entity)
                if phrase.strip() and inside:
                    value = " ".join(part.strip() for part in inside.group(1).split(","))
                    self.table.setdefault((node, normalize(phrase)), value)

    def __call__(self, node: str, *said: str) -> str:
        """The entity of the first of the phrases the catalog knows, else the first one's UPPER_SNAKE."""
        for phrase in said:
            found = self.table.get((node, normalize(phrase)))
            if found:
                return found
        return re.sub(r"[^A-Z0-9]+", "_", said[0].upper()).strip("_")


def parse_exr(text: str) -> Tree:
    """'(ORDER (PIZZAORDER (NUMBER 1 ) ...))' -> a tree whose children are sorted."""
    tokens = re.findall(r"\(|\)|[^\s()]+", text)
    position = 0

    def node() -> Tree:
        nonlocal position
        if tokens[position] != "(":
            raise ValueError(f"expected '(' at token {position} of {text!r}")
        label, position = tokens[position + 1], position + 2
        children: list = []
        while tokens[position] != ")":
            if tokens[position] == "(":
                children.append(node())
            else:
                children.append(tokens[position])
                position += 1
        position += 1
        leaves = " ".join(c for c in children if isinstance(c, str))  # "2 LITER" is one entity
        kids = sorted((c for c in children if not isinstance(c, str)), key=repr)
        return (label, *([leaves] if leaves else []), *kids)

    try:
        tree = node()
    except IndexError:
        raise ValueError(f"unbalanced brackets in {text[:60]!r}") from None
    if position != len(tokens):
        raise ValueError(f"text after the tree in {text[:60]!r}")
    return tree


def show(tree: Tree) -> str:
    label, *children = tree
    inner = " ".join(show(c) if isinstance(c, tuple) else c for c in children)
    return f"({label} {inner} )"


class OrderWriter:
    """The order a turn left (CustomerChat.order()) as an EXR tree."""

    def __init__(self, chat: CustomerChat, entities: Entities):
        self.menu, self.entity = chat.menu, entities
        self.words: dict[tuple[str, str], list[str]] = {}
        for group, value, word in self.menu.facts.get("option_word", []):
            self.words.setdefault((str(group), value), []).append(word)
        self.aliases: dict[str, list[str]] = {}
        for said, name in self.menu.facts.get("alias", []):
            self.aliases.setdefault(name, []).append(said)

    def name(self, node: str, name: str) -> str:
        return self.entity(node, name, *self.aliases.get(name, []))

    def option(self, node: str, group: str, value: str) -> str:
        return self.entity(node, value, *self.words.get((group, value), []))

    def tree(self, order: list[dict]) -> Tree:
        groups = Counter(json.dumps(unit, sort_keys=True) for unit in order)
        suborders = [self.suborder(json.loads(unit), n) for unit, n in groups.items()]
        return ("ORDER", *sorted(suborders, key=repr))

    def suborder(self, unit: dict, n: int) -> Tree:
        item = unit["item"]
        drink = self.menu.is_drink(item)
        kids: list[Tree] = [("NUMBER", str(n))]
        if drink:
            kids.append(("DRINKTYPE", self.name("DRINKTYPE", item)))
        for group in sorted(self.menu.option_groups):
            node = GROUP_NODES.get(group, "STYLE")
            kids += [(node, self.option(node, group, value)) for value in unit.get(group, [])]
            kids += [("NOT", (node, self.option(node, group, value))) for value in unit.get(f"no {group}", [])]
        kids += [("TOPPING", self.name("TOPPING", t)) for t in unit.get("add", []) + unit.get("plain", [])]
        kids += [("NOT", ("COMPLEX_TOPPING", ("QUANTITY", "EXTRA"), ("TOPPING", self.name("TOPPING", t))))
                 for t in unit.get("regular", [])]  # "no extra cheese": the notation's NOT EXTRA
        kids += [("NOT", ("TOPPING", self.name("TOPPING", t))) for t in unit.get("no", [])]
        for op, quantity in QUANTITIES.items():
            kids += [("COMPLEX_TOPPING", ("QUANTITY", quantity), ("TOPPING", self.name("TOPPING", t)))
                     for t in unit.get(op, [])]
        return ("DRINKORDER" if drink else "PIZZAORDER", *sorted(kids, key=repr))


def field_values(tree: Tree) -> dict[str, Counter]:
    """Per-field multisets of a whole order, for per-field accuracy."""
    out: dict[str, Counter[Any]] = {f: Counter() for f in FIELDS}

    def walk(node: Tree, under: str = "") -> None:
        label = node[0]
        if label == "DRINKORDER":
            out["drinks"][show(node)] += 1
        if label == "NUMBER":
            out["count"][node[1]] += 1
        elif label == "NOT":
            out["negation"][show(node)] += 1
        elif label == "COMPLEX_TOPPING":
            out["extra_light"][show(node)] += 1
        elif label == "TOPPING" and not under:
            out["toppings"][node[1]] += 1
        elif label == "SIZE" and not under:
            out["size"][node[1]] += 1
        elif label == "STYLE" and not under:
            out["style"][node[1]] += 1
        for child in node[1:]:
            if isinstance(child, tuple):
                walk(child, label if label in ("NOT", "COMPLEX_TOPPING") else under)

    walk(tree)
    return out


def run_nlu(pairs: list[tuple[str, str]], split: str, home: Path, entities: Entities,
            progress: Callable[[int], None] = lambda _n: None, kb: Path | None = None) -> NluReport:
    """Each utterance as a fresh customer turn; the order it leaves against the gold EXR."""
    chat = CustomerChat(Home(home, kb))
    writer = OrderWriter(chat, entities)
    report = NluReport(split)
    for number, (text, gold_text) in enumerate(pairs, start=1):
        chat.state = []
        turn = chat.step(text)
        gold, got = parse_exr(gold_text), writer.tree(turn.order)
        report.total += 1
        report.exact += gold == got
        gold_fields, got_fields = field_values(gold), field_values(got)
        report.fields.update(f for f in FIELDS if gold_fields[f] == got_fields[f])
        if gold != got:
            report.misses.append({"text": text, "gold": show(gold), "got": show(got), "reply": turn.reply})
        progress(number)
    return report


def evaluate(data: Path, split: str, progress: Callable[[int], None] = lambda _n: None,
             limit: int | None = None, kb: Path | None = None) -> NluReport:
    pairs = read_split(data, split)[:limit]
    with tempfile.TemporaryDirectory() as tmp, caches_written():
        return run_nlu(pairs, split, Path(tmp), Entities(data), progress, kb)
