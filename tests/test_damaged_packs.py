"""Issue 37: a pack's menu.lp damaged by hand or by the disk (not UTF-8, a folder in its place, a
symlink loop, /dev/zero, a price that is a string) is said in one line naming the file, exit 2, by
every command that loads a menu; `kb build` refuses a menu with no items."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every command in a process on a damaged pack

PIZZA = Path(__file__).resolve().parents[1] / "kb" / "packs" / "pizza"


def damage(menu: Path, how: str) -> None:
    """Put a damaged menu.lp in the pack, in one of the ways a hand or a disk damages it."""
    text = (PIZZA / "menu.lp").read_text(encoding="utf-8")
    menu.unlink()
    if how == "not_utf8":
        menu.write_bytes(text.encode() + b"\xff\xfe\n")
    elif how == "folder":
        menu.mkdir()
    elif how == "symlink_loop":
        menu.symlink_to(menu.name)
    elif how == "dev_zero":
        menu.symlink_to("/dev/zero")
    elif how == "string_price":
        changed, count = re.subn(r'^extra_price\(("[^"]+"),\d+\)\.$', r'extra_price(\1,"ten").', text, count=1,
                                 flags=re.M)
        assert count == 1
        menu.write_text(changed, encoding="utf-8")
    elif how in ("wide_price", "price_over_policy"):  # past clingo's 32 bits; past the pack's max_item_price
        cents = "2147483648" if how == "wide_price" else "6001"
        changed, count = re.subn(r'^original_price\(("[^"]+"),\d+\)\.$', rf'original_price(\1,{cents}).', text,
                                 count=1, flags=re.M)
        assert count == 1
        menu.write_text(changed, encoding="utf-8")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


COMMANDS = {"customer": ["customer", "--backend", "offline"], "manager": ["manager", "--backend", "offline"],
            "kb_check": ["kb", "check"], "serve": ["serve", "--backend", "offline", "--port", "{port}"]}


def run(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    env["AUTOMANAGER_HOME"] = str(tmp_path / "state")
    args = [arg.replace("{port}", str(free_port())) for arg in args]
    return subprocess.run([sys.executable, "-m", "automanager", *args], input="a large pepperoni pizza\n",
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.fixture
def pack(tmp_path) -> Path:
    folder = tmp_path / "pack"
    shutil.copytree(PIZZA, folder)
    return folder


@pytest.mark.parametrize("how", ["not_utf8", "folder", "symlink_loop", "dev_zero", "string_price", "wide_price"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_damaged_menu_file_is_one_line_naming_it(how, command, pack, tmp_path):
    damage(pack / "menu.lp", how)
    done = run([*COMMANDS[command], "--kb", str(pack)], tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 2 and "Traceback" not in output, output
    said = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(said) == 1, output
    assert str(pack / "menu.lp") in done.stderr.split("error:", 1)[1], output  # the file, named
    assert "lane page" not in output and "session" not in done.stdout  # nothing started


@pytest.mark.parametrize("how", ["not_utf8", "folder", "symlink_loop", "dev_zero", "string_price", "wide_price"])
def test_kb_build_check_says_a_damaged_menu_is_out_of_date(how, pack, tmp_path):
    damage(pack / "menu.lp", how)
    done = run(["kb", "build", "--check", "--kb", str(pack)], tmp_path)
    assert done.returncode == 1 and "out of date: menu.lp" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["customer", "serve"])
def test_a_price_over_the_policy_is_refused_when_the_menu_is_loaded(command, pack, tmp_path):
    """Not only `kb check`: a chat or a service never prices from a menu whose totals could pass 32 bits."""
    damage(pack / "menu.lp", "price_over_policy")
    done = run([*COMMANDS[command], "--kb", str(pack)], tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert "6001, over the most it may be (6000)" in done.stderr and "session" not in done.stdout


def test_kb_build_names_the_file_a_folder_stands_in_for(pack, tmp_path):
    damage(pack / "menu.lp", "folder")
    done = run(["kb", "build", "--kb", str(pack)], tmp_path)
    assert done.returncode == 2 and f"cannot write {pack / 'menu.lp'}" in done.stderr, done.stderr


def test_kb_build_refuses_a_menu_with_no_items(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "menu.toml").write_text('[restaurant]\nname = "Empty Diner"\n', encoding="utf-8")
    done = run(["kb", "build", "--kb", str(folder)], tmp_path)
    assert done.returncode == 2 and "no dish or combo" in done.stderr, done.stdout + done.stderr
    assert not (folder / "menu.lp").exists()  # nothing a chat would then fail to open


def test_a_pack_whose_facts_do_not_reach_the_bots_is_refused_at_start(tmp_path):
    """A menu.lp with a stray '#show.' crashed the first line (max() of an empty lexicon, exit 3)."""
    import shutil

    from typer.testing import CliRunner

    from automanager import paths
    from automanager.cli import app

    pack = tmp_path / "pack"
    shutil.copytree(paths.pack_dir("pizza"), pack)
    with (pack / "menu.lp").open("a", encoding="utf-8") as menu:
        menu.write("#show.\n")
    result = CliRunner().invoke(app, ["customer", "--kb", str(pack), "--state-dir", str(tmp_path / "state")],
                                input="a large pizza\n")
    assert result.exit_code == 2 and "no dishes or combos" in result.stderr, result.output
