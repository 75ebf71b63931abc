"""Hostile menu files through `kb build`: each is refused with a one-line reason naming what to fix
(exit 2, the old menu.lp untouched), or built into a menu.lp that `kb check` accepts; never a
traceback, never a partial file, and no entry ever lands in menu.lp as program text."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automanager.cli import app

REPO = Path(__file__).resolve().parents[1]
PACK = REPO / "kb" / "packs" / "pizza"
MENU = (PACK / "menu.toml").read_text(encoding="utf-8")
FIRST_ITEM = 'name = "Pizza"\ncategory = "pizza"\nprice = 1399'

# (what the attack is, how it changes the menu file): every one is a mistake the build must catch
REFUSED = {
    "ask_questions injection": ('ask_questions = ["size", "toppings"]',
                                'ask_questions = ["size). original_price(\\"Pizza\\",1). ask_order(x", "toppings"]'),
    "ask_questions unknown group": ('ask_questions = ["size", "toppings"]', 'ask_questions = ["size", "crusty"]'),
    "settles injection": ("[options.size]\nexclusive = true", '[options.size]\nsettles = ["crust). evil(1"]\nexclusive = true'),
    "settles unknown group": ("[options.size]\nexclusive = true", '[options.size]\nsettles = ["nothing"]\nexclusive = true'),
    "price as text": (FIRST_ITEM, 'name = "Pizza"\ncategory = "pizza"\nprice = "cheap"'),
    "price as float": (FIRST_ITEM, 'name = "Pizza"\ncategory = "pizza"\nprice = 13.99'),
    "price as list": (FIRST_ITEM, 'name = "Pizza"\ncategory = "pizza"\nprice = [1399]'),
    "price past 32 bits": (FIRST_ITEM, 'name = "Pizza"\ncategory = "pizza"\nprice = 99999999999'),
    "price negative": (FIRST_ITEM, 'name = "Pizza"\ncategory = "pizza"\nprice = -100'),
    "price zero": (FIRST_ITEM, 'name = "Pizza"\ncategory = "pizza"\nprice = 0'),
    "price over the maximum": (FIRST_ITEM, 'name = "Pizza"\ncategory = "pizza"\nprice = 6001'),
    "name empty": (FIRST_ITEM, 'name = ""\ncategory = "pizza"\nprice = 1399'),
    "name with a newline": (FIRST_ITEM, 'name = "Piz\\nza"\ncategory = "pizza"\nprice = 1399'),
    "name with NUL": (FIRST_ITEM, 'name = "Piz\\u0000za"\ncategory = "pizza"\nprice = 1399'),
    "name of 5,000 characters": (FIRST_ITEM, f'name = "{"P" * 5000}"\ncategory = "pizza"\nprice = 1399'),
    "name as a table": (FIRST_ITEM, 'name = {a = 1}\ncategory = "pizza"\nprice = 1399'),
    "restaurant as text": ('[restaurant]\nname = "Corner Slice Pizzeria"', 'restaurant = "Corner Slice"'),
    "policy cap past 32 bits": ("max_line_quantity = 25", "max_line_quantity = 4294967296"),
    "duplicate item name": (FIRST_ITEM, 'name = "Coke"\ncategory = "pizza"\nprice = 1399'),
    "not TOML": ("[restaurant]", "[restaurant"),
    "deep nesting": ("[restaurant]", "x = " + "[" * 5000 + "]" * 5000 + "\n[restaurant]"),
}


@pytest.fixture
def pack(tmp_path):
    folder = tmp_path / "pack"
    shutil.copytree(PACK, folder)
    return folder


def build(folder: Path):
    return CliRunner().invoke(app, ["kb", "build", "--kb", str(folder)])


@pytest.mark.parametrize("attack", sorted(REFUSED))
def test_a_hostile_menu_file_is_refused_with_the_reason_and_changes_nothing(pack, attack):
    old, new = REFUSED[attack]
    assert old in MENU, attack  # the attack still aims at something in the shipped menu
    (pack / "menu.toml").write_text(MENU.replace(old, new, 1), encoding="utf-8")
    before = (pack / "menu.lp").read_bytes()
    result = build(pack)
    assert result.exit_code == 2, (attack, result.output)
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    assert "error:" in result.stderr
    assert (pack / "menu.lp").read_bytes() == before  # the old menu stands
    assert not list(pack.glob("*.tmp"))  # no partial file


def test_invalid_utf8_is_refused(pack):
    (pack / "menu.toml").write_bytes(MENU.encode("utf-8").replace(b"Corner", b"Corn\xff\xfeer", 1))
    result = build(pack)
    assert result.exit_code == 2 and "error:" in result.stderr and "Traceback" not in result.output


def test_a_read_only_pack_is_refused_and_leaves_no_partial_file(pack):
    (pack / "menu.toml").write_text(MENU.replace("Corner Slice Pizzeria", "Corner Slice Pizza Co", 1), encoding="utf-8")
    pack.chmod(0o555)
    try:
        result = build(pack)
        writable = result.exit_code == 0  # root may write anyway; then the build simply succeeded
        assert writable or (result.exit_code == 2 and "cannot write" in result.stderr), result.output
        assert not list(pack.glob("*.tmp"))
    finally:
        pack.chmod(0o755)


def test_no_menu_entry_becomes_program_text(pack):
    """Every line the build writes is a comment or one fact of a known predicate with quoted or
    numeric arguments: a name full of ASP punctuation stays a string."""
    hostile = 'Pizza"). original_price("Pizza",1). #show x/0. ask_order(x'
    (pack / "menu.toml").write_text(MENU.replace('"Coke"', '"' + hostile.replace('"', '\\"') + '"', 1), encoding="utf-8")
    result = build(pack)
    assert result.exit_code == 0, result.output
    text = (pack / "menu.lp").read_text(encoding="utf-8")
    assert not any(line.startswith("#") for line in text.splitlines())  # no directive
    facts = [line for line in text.splitlines() if line and not line.startswith("%")]
    shape = re.compile(r'[a-z_]+\((("([^"\\]|\\.)*"|-?\d+|[a-z_]+(\([^()]*\))?)(,|\)))+\.$')
    assert all(shape.match(line) for line in facts), [line for line in facts if not shape.match(line)][:3]
    assert CliRunner().invoke(app, ["kb", "check", "--kb", str(pack)]).exit_code == 0


@pytest.mark.parametrize("args", [["kb", "stats", "--kb", "{missing}"], ["kb", "stats", "--kb", "{empty}"],
                                  ["kb", "check", "--kb", "{missing}"], ["kb", "stats", "--kb", "{file}"]])
def test_every_way_of_choosing_a_broken_pack_fails_the_same_clean_way(tmp_path, args):
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    where = {"missing": tmp_path / "missing", "empty": tmp_path / "empty", "file": tmp_path / "file"}
    result = CliRunner().invoke(app, [a.format(**where) for a in args])
    assert result.exit_code == 2 and "no built menu" in result.stderr


@pytest.mark.parametrize("value", ["{missing}", "{empty}", ""])
def test_automanager_kb_is_checked_as_kb_is(tmp_path, monkeypatch, value):
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("AUTOMANAGER_KB", value.format(missing=tmp_path / "missing", empty=tmp_path / "empty"))
    for args in (["kb", "stats"], ["customer", "--state-dir", str(tmp_path / "state")]):
        result = CliRunner().invoke(app, args, input="a large pizza\n")
        assert result.exit_code == 2 and "error:" in result.stderr, (args, result.output)
        assert "internal error" not in result.output
