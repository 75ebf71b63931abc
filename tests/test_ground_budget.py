"""A pack whose grounding would not end or not fit (issue 27: `n(0..1000000000).` ran 45 s into
clingo's bad_alloc) is refused by every entry point with the reason on one line (exit 2, the file,
the setting to change, what to fix): never a traceback, a hang or bad_alloc. The budget is made
small here (AUTOMANAGER_GROUND_SECONDS=2, AUTOMANAGER_GROUND_MB=100) so a refusal takes seconds;
the timeouts only guard against a hang. The shipped packs, plain facts, never start the check."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from automanager import paths, reasoner
from automanager.menu import model
from automanager.menu.model import Menu

pytestmark = pytest.mark.slow  # grounds in child processes up to their budget

REPO = Path(__file__).resolve().parents[1]
BUDGET = {"AUTOMANAGER_GROUND_SECONDS": "2", "AUTOMANAGER_GROUND_MB": "100"}

ENDLESS = {
    "a huge range": "n(0..1000000000).\n",
    "a rule that never stops": "p(X+1) :- p(X). p(0).\n",
    "a cross product": "n(0..2000). q :- n(X), n(Y), n(Z), X+Y+Z < 0.\n",
}
OVER = {"a huge range": "AUTOMANAGER_GROUND_MB",  # fills the memory budget at once
        "a rule that never stops": "AUTOMANAGER_GROUND_",  # time or memory: whichever runs out first
        "a cross product": "AUTOMANAGER_GROUND_SECONDS"}  # little memory, endless time
REASON = ("did not finish grounding within 2 s (AUTOMANAGER_GROUND_SECONDS)",
          "needs more than 100 MB to ground (AUTOMANAGER_GROUND_MB)")


def run(args: list[str], tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    return subprocess.run([sys.executable, "-m", "automanager", *args], input=stdin, capture_output=True, text=True,
                          env={**env, **BUDGET, "AUTOMANAGER_HOME": str(tmp_path / "state")}, timeout=60, cwd=tmp_path)


def pack(tmp_path: Path, rules: str, file: str = "menu.lp") -> Path:
    """A copy of the pizza pack with rules added to one of its .lp files."""
    folder = tmp_path / "pack"
    shutil.copytree(paths.pack_dir("pizza"), folder)
    with (folder / file).open("a", encoding="utf-8") as lp:
        lp.write(rules)
    return folder


def refused(result: subprocess.CompletedProcess[str], file: str = "menu.lp") -> str:
    """The one line that says why, after checking the refusal is clean."""
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and "bad_alloc" not in result.stderr, result.stderr
    assert f"the pack's {file} " in lines[0] and any(reason in lines[0] for reason in REASON), lines[0]
    assert "a menu is facts" in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("attack", ENDLESS)
def test_kb_check_refuses_a_pack_that_grounds_endlessly(tmp_path, attack):
    line = refused(run(["kb", "check", "--kb", str(pack(tmp_path, ENDLESS[attack]))], tmp_path))
    assert OVER[attack] in line


def test_kb_stats_refuses_it(tmp_path):
    refused(run(["kb", "stats", "--kb", str(pack(tmp_path, ENDLESS["a rule that never stops"]))], tmp_path))


@pytest.mark.parametrize("role", ["customer", "manager"])
def test_a_chat_refuses_it_at_start(tmp_path, role):
    result = run([role, "--kb", str(pack(tmp_path, ENDLESS["a huge range"]))], tmp_path, stdin="hello\n")
    refused(result)
    assert not (tmp_path / "state" / "sessions").is_dir() or not any((tmp_path / "state" / "sessions").iterdir())


def test_kb_build_refuses_a_pack_whose_other_file_grounds_endlessly(tmp_path):
    folder = pack(tmp_path, ENDLESS["a rule that never stops"], file="grow.lp")
    before = (folder / "menu.lp").read_bytes()
    line = refused(run(["kb", "build", "--kb", str(folder)], tmp_path), file="grow.lp")
    assert "menu.lp was not changed" in line and (folder / "menu.lp").read_bytes() == before


def test_a_bad_budget_setting_is_refused_in_one_line(tmp_path):
    folder = pack(tmp_path, "cheap(D) :- price(D, P), P < 500.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    result = subprocess.run([sys.executable, "-m", "automanager", "kb", "stats", "--kb", str(folder)], text=True,
                            capture_output=True, env={**env, "AUTOMANAGER_GROUND_SECONDS": "soon"}, timeout=60)
    assert result.returncode == 2 and "AUTOMANAGER_GROUND_SECONDS='soon' is not a number" in result.stderr, \
        result.stderr


def test_a_pack_with_a_small_rule_passes_the_check_and_chats(tmp_path):
    """Rules are not refused as such: one that grounds within the budget loads as before."""
    folder = pack(tmp_path, "cheap(D) :- price(D, P), P < 500.\n")
    assert run(["kb", "stats", "--kb", str(folder)], tmp_path).returncode == 0
    result = run(["customer", "--json", "--kb", str(folder)], tmp_path, stdin="a large pizza\n")
    assert result.returncode == 0 and '"reply"' in result.stdout, result.stderr


@pytest.mark.parametrize("kb", [None, "pizza"])
def test_the_shipped_packs_are_plain_facts_and_start_no_check(monkeypatch, kb):
    """A chat start pays only for reading the facts: no child process for a pack of plain facts."""
    def no_child(*_args, **_kwargs):
        raise AssertionError("a pack of plain facts was grounded in a child process")

    monkeypatch.setattr(reasoner.subprocess, "run", no_child)
    reasoner.ground_within_budget(paths.kb_files(paths.pack_dir(kb) if kb else None))


def test_the_verdict_is_kept_with_the_menu_in_the_cache(tmp_path, monkeypatch):
    """A pack with rules is checked once: the next start finds its menu, loaded within the budget,
    in the state dir's cache."""
    files = paths.kb_files(pack(tmp_path, "cheap(D) :- price(D, P), P < 500.\n"))
    children = []
    monkeypatch.setattr(reasoner.subprocess, "run", lambda *args, **kwargs: children.append(args) or
                        subprocess.CompletedProcess(args, 0, "", ""))
    for _ in range(2):
        model._load.cache_clear()  # as a new process would
        assert Menu.load(files, tmp_path / "cache").items
    assert len(children) == 1
