"""The parsers' table test: every row of tests/data/parser_cases.yaml (a line, the bot's context,
the predicates the offline parser gives) for each menu pack the row names."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
import yaml

from automanager import paths
from automanager.language.customer_parser import Context, CustomerParser
from automanager.language.manager_parser import ManagerContext, ManagerParser
from automanager.language.phrases import manager_phrases, phrases
from automanager.menu.model import Menu

CASES = Path(__file__).parent / "data" / "parser_cases.yaml"
PACKS = {"default": paths.data_dir("kb"), "pizza": paths.data_dir("kb") / "packs" / "pizza"}
PARSERS = {"customer": (CustomerParser, Context), "manager": (ManagerParser, ManagerContext)}


@cache
def parser(bot: str, pack: str):
    return PARSERS[bot][0](Menu.load(paths.kb_files(PACKS[pack])))


def cases() -> list:
    rows = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    return [pytest.param(row, pack, id=f"{row['bot']}-{pack}-{row['line']}") for row in rows for pack in row["packs"]]


def test_the_table_covers_every_act():
    """Both bots' acts have a row: a parser change that loses one shows here first."""
    said = {str(p).split("(")[0] for row in yaml.safe_load(CASES.read_text(encoding="utf-8")) for p in row["expect"]}
    assert {"order", "query", "remove", "replace", "update", "set_quantity", "need_recommend", "either", "accept",
            "decline", "complete", "stop", "cancel", "quit", "greet", "irrelevant", "runout", "restore", "add",
            "edit", "delete", "save", "undo"} <= said


@pytest.mark.parametrize("row, pack", cases())
def test_row(row, pack):
    result = parser(row["bot"], pack).parse(row["line"], PARSERS[row["bot"]][1](**row.get("context", {})))
    assert [str(p) for p in result.acts] == row["expect"]
    assert list(result.unknown) == row.get("unknown", [])


def test_every_reading_of_a_clause_is_declared_once():
    """The phrase file's [readings] order names each recognizer of the customer parser once: a
    reading is tried where the data puts it, never by the order of code."""
    declared = [reading for reading, _ in phrases().readings]
    defined = {name.removeprefix("reads_") for name in dir(CustomerParser) if name.startswith("reads_")}
    assert sorted(declared) == sorted(defined)


def test_every_reading_of_a_manager_line_is_declared_once():
    declared = list(manager_phrases().line_readings)
    defined = {name.removeprefix("line_") for name in dir(ManagerParser) if name.startswith("line_")}
    assert sorted(declared) == sorted(defined)
