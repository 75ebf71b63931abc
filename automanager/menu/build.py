"""Build the menu knowledge base (kb/menu.lp) from the raw sources and kb/curation.toml.

The build is a pure function of its inputs, so the shipped kb/menu.lp can be rebuilt and
diffed at any time (`automanager kb build --check`). Facts are rendered through clingo
symbols, never by pasting strings, so any name is quoted correctly.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from .facts import HEADER, BuildError, ask_facts, fact, offer_facts, option_group_facts
from .menufile import MENU_FILE, build_menu_file

JHINEY = "jhiney-menuItems.json"
JONTONSOUP = "jontonsoup4-all.json"
DECKAR = "deckar01-ingredients.json"


@dataclass
class Row:
    name: str
    price: int
    cal: int
    cal_high: int
    sections: list[str] = field(default_factory=list)


def cents(text: str | float) -> int:
    """'$6.99' or 6.99 -> 699, exactly (no float rounding)."""
    return int(Decimal(str(text).lstrip("$")) * 100)


def calories(text: str) -> tuple[int, int]:
    """'830-1110 Cal' -> (830, 1110); '180 Cal  Per Item' -> (180, 180)."""
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    if not numbers:
        raise BuildError(f"no calories in {text!r}")
    return numbers[0], numbers[-1] if len(numbers) > 1 else numbers[0]




def read_jhiney(path: Path) -> dict[str, Row]:
    """First listing of each item wins; later listings only add sections."""
    rows: dict[str, Row] = {}
    for raw in json.loads(path.read_text(encoding="utf-8")):
        name = raw["Item"].strip()
        if name in rows:
            rows[name].sections.append(raw["Menu"])
            continue
        low, high = calories(raw["Calories"])
        rows[name] = Row(name, cents(raw["Price"]), low, high, [raw["Menu"]])
    return rows


class Builder:
    def __init__(self, kb_dir: Path):
        self.kb_dir = kb_dir
        sources = kb_dir / "sources"
        self.cur = tomllib.loads((kb_dir / "curation.toml").read_text(encoding="utf-8"))
        self.rules = self.cur["rules"]
        self.jhiney = read_jhiney(sources / JHINEY)
        self.jontonsoup = {r["name"]: r for r in json.loads((sources / JONTONSOUP).read_text(encoding="utf-8"))}
        self.deckar = json.loads((sources / DECKAR).read_text(encoding="utf-8"))
        self.facts: list[str] = []
        self.notes: list[str] = []
        self.dishes: dict[str, str] = {}  # dish -> category
        self.ingredients: dict[str, list[str]] = {}
        self.missing: list[str] = []  # dishes with no ingredient list anywhere

    # -- sources -> dishes ------------------------------------------------------------
    def category_of(self, row: Row) -> str:
        override = self.cur["category_override"].get(row.name)
        if override:
            return override
        for section in self.rules["section_order"]:
            if section in row.sections:
                return self.cur["section_category"][section]
        raise BuildError(f"{row.name}: no category for sections {row.sections}")

    def deckar_key(self, name: str) -> str | None:
        table = self.cur["ingredients_from"]
        wanted = table.get(name, name)
        strip = table["strip_suffixes"]

        def bare(key: str) -> str:
            for suffix in strip:
                key = key.removesuffix(suffix)
            return key

        exact = [k for k in self.deckar if bare(k) == bare(wanted)]
        return exact[0] if exact else None

    def ingredient_list(self, name: str, spec: dict | None = None) -> list[str]:
        spec = spec or {}
        if "ingredients" in spec:
            return list(spec["ingredients"])
        if name in self.cur["ingredients"]:
            self.notes.append(f"ingredients of {name}: public knowledge (no source lists them)")
            return list(self.cur["ingredients"][name])
        key = self.deckar_key(spec.get("ingredients_from", name))
        if key is None:
            self.missing.append(name)
            return []
        return list(self.deckar[key])

    def add_dish(self, name: str, category: str, price: int, cal: int, cal_high: int) -> None:
        self.dishes[name] = category
        self.facts += [fact("dish", name), fact("category", name, category),
                       fact("original_price", name, price), fact("original_cal", name, cal)]
        if category == "drink":
            self.ingredients[name] = []
            self.facts.append(fact("no_ingredients", category))
            usual, larger = self.rules["drink_sizes"]
            self.facts += offer_facts(name, "size", usual, self.cur["options"])
            if cal_high > cal:  # the sources list a larger size
                self.facts += offer_facts(name, "size", larger, self.cur["options"], cal=cal_high - cal)
        else:
            self.ingredients[name] = self.ingredient_list(name)

    def build_dishes(self) -> list[Row]:
        skip = set(self.rules["skip_rows"]) | set(self.cur["addon_rows"])
        combos = []
        for row in self.jhiney.values():
            if row.name in skip:
                continue
            if row.name in self.rules["combo_rows"] or set(row.sections) & set(self.rules["combo_sections"]):
                combos.append(row)
                continue
            self.add_dish(row.name, self.category_of(row), row.price, row.cal, row.cal_high)
        for name, spec in self.cur["extra_dish"].items():
            if "from" in spec:
                src = self.jontonsoup[spec["from"]]
                price, cal = cents(src["cost"]), int(src["calories"])
            else:
                price, cal = spec["price"], spec["cal"]
            self.dishes[name] = spec["category"]
            self.facts += [fact("dish", name), fact("category", name, spec["category"]),
                           fact("original_price", name, price), fact("original_cal", name, cal)]
            self.ingredients[name] = self.ingredient_list(name, spec)
            self.notes.append(f"{name}: {spec.get('note', 'from ' + JONTONSOUP)}")
        if self.missing:
            raise BuildError(f"no ingredient list in {DECKAR} nor in curation [ingredients] for: " + ", ".join(self.missing))
        return combos

    # -- ingredients, toppings, styles ------------------------------------------------
    def topping_table(self) -> dict[str, tuple[int, int]]:
        table = {}
        for row_name, topping in self.cur["addon_rows"].items():
            row = self.jhiney[row_name]
            table[topping] = (row.price, self.cur["addon_cal"].get(topping, row.cal))
        for topping, (price, cal) in self.cur["topping_price"].items():
            table[topping] = (price, cal)
            self.notes.append(f"add-on price/calories of {topping}: public knowledge")
        return table

    def build_ingredients(self) -> None:
        sauces = set(self.cur["kinds"]["sauces"])
        names = {i for items in self.ingredients.values() for i in items}
        names |= {t for ts in self.cur["category_toppings"].values() for t in ts}
        for name in sorted(names):
            self.facts.append(fact("sauce" if name in sauces else "ingredient", name))
        for dish, items in self.ingredients.items():
            self.facts += [fact("included_ingredient", dish, i) for i in items]

        prices = self.topping_table()
        for topping in sorted(names & prices.keys()):
            price, cal = prices[topping]
            self.facts += [fact("extra_price", topping, price), fact("extra_cal", topping, cal)]
        popular = self.cur["popular_toppings"]
        for dish, category in self.dishes.items():
            toppings = self.cur["category_toppings"].get(category, [])
            for topping in toppings:
                if topping not in prices:
                    raise BuildError(f"topping {topping} has no price in curation [topping_price]")
                price, cal = prices[topping]
                self.facts += [fact("available_topping", dish, topping),
                               fact("upgrade_price", dish, topping, price),
                               fact("upgrade_cal", dish, topping, cal)]
            for topping in popular.get(dish, popular.get(category, [])):
                if topping in toppings:
                    self.facts.append(fact("popular_topping", dish, topping))

    def build_replacements_and_options(self) -> None:
        for rule in self.cur["replacement"]:
            for dish, items in self.ingredients.items():
                if rule["from"] not in items:
                    continue
                for new, price in zip(rule["to"], rule["price"], strict=True):
                    if new in items:
                        continue
                    self.facts += [fact("replaceable_ingredient", dish, rule["from"], new),
                                   fact("replacement_price", dish, rule["from"], new, price)]
        self.facts += option_group_facts(self.cur["options"])
        for offer in self.cur["offer"]:
            for dish, category in self.dishes.items():
                if category not in offer["categories"]:
                    continue
                if set(offer.get("unless_includes", [])) <= set(self.ingredients[dish]) and offer.get("unless_includes"):
                    continue
                self.facts += offer_facts(dish, offer["group"], offer["value"], self.cur["options"], offer["price"])
        larger = self.rules["drink_sizes"][-1]
        upgrade = self.cur["options"]["size"]["values"][larger]["price"]
        self.notes.append(f"drink size upgrade price {upgrade} cents: public knowledge")

    # -- combos and labels ------------------------------------------------------------
    def build_combos(self, rows: list[Row]) -> None:
        groups = self.cur["option_group"]
        for group, members in groups.items():
            for member in members:
                if member not in self.dishes:
                    raise BuildError(f"option group {group}: {member} is not a dish")
                self.facts.append(fact("combo_option_group", group, member))
        for group, upgrades in self.cur["group_upgrade_price"].items():
            self.facts += [fact("group_upgrade_price", group, d, p) for d, p in upgrades.items()]
        for row in rows:
            contents = self.cur["combo"].get(row.name)
            if contents is None:
                raise BuildError(f"combo {row.name}: no contents in curation [combo]")
            self.facts += [fact("combo", row.name), fact("original_price", row.name, row.price),
                           fact("original_cal", row.name, row.cal)]
            for item, count in contents.items():
                self.facts += [fact("combo_contain", row.name, item), fact("combo_count", row.name, item, count)]

    def build_labels(self) -> None:
        labels = self.cur["labels"]
        for rank, name in enumerate(labels["best_sellers"], start=1):
            self.facts += [fact("best_seller", name), fact("popularity", name, rank)]
        vegetarian = {r.name for r in self.jhiney.values() if "vegetarian" in r.sections}
        for dish in sorted((vegetarian | set(labels["veggie"])) & self.dishes.keys()):
            self.facts.append(fact("label", dish, "veggie"))
        for dish, items in self.ingredients.items():
            if labels["cantina_chicken_ingredient"] in items:
                self.facts.append(fact("label", dish, "chicken"))
        self.facts += [fact("label_word", label, word) for label, words in labels["words"].items() for word in words]
        self.facts += [fact("complimentary", name) for name in labels["complimentary"]]
        self.facts += [fact("by_the_order", name) for name in labels["by_the_order"]]
        self.facts += ask_facts(self.rules["ask_questions"], self.cur["options"])
        self.facts.append(fact("restaurant", self.rules["restaurant"]))
        self.facts += [fact("max_line_quantity", self.rules["max_line_quantity"]),
                       fact("max_order_quantity", self.rules["max_order_quantity"]),
                       fact("max_item_price", self.rules["max_item_price"]),
                       fact("max_item_calories", self.rules["max_item_calories"]),
                       fact("readback_price_change_percent", self.rules["readback_price_change_percent"]),
                       fact("readback_runout_dishes", self.rules["readback_runout_dishes"]),
                       fact("combo_choices_named", self.rules["combo_choices_named"])]

    def build(self) -> tuple[str, str]:
        combos = self.build_dishes()
        self.build_ingredients()
        self.build_replacements_and_options()
        self.build_combos(combos)
        self.build_labels()
        by_predicate: dict[str, list[str]] = defaultdict(list)
        for line in dict.fromkeys(self.facts):
            by_predicate[line.split("(", 1)[0]].append(line)
        body = "\n".join(f"\n% {pred}\n" + "\n".join(sorted(lines)) for pred, lines in sorted(by_predicate.items()))
        notes = "# Knowledge base build notes\n\nGENERATED by `automanager kb build`. Facts that no source file holds:\n\n"
        notes += "\n".join(f"- {n}" for n in dict.fromkeys(self.notes)) + "\n"
        return HEADER + body + "\n", notes


def build_kb(kb_dir: Path) -> tuple[str, str]:
    """Return (menu.lp text, NOTES.md text) built from kb_dir's menu file (menu.toml), or from its
    sources and curation (the Taco Bell pack's reproducible build)."""
    if (kb_dir / MENU_FILE).is_file():
        return build_menu_file(kb_dir)
    if not (kb_dir / "curation.toml").is_file():
        raise BuildError(f"{kb_dir} has neither {MENU_FILE} nor curation.toml")
    try:
        return Builder(kb_dir).build()
    except KeyError as exc:
        raise BuildError(f"missing entry {exc} in the sources or kb/curation.toml") from exc
