"""A lane that keeps serving: after a goodbye the customer chat greets the next car in a new
session until /quit or the end of input; Ctrl-C clears a half-typed line; the start banner names
the state dir, the menu version and the backend; the resume hint is a command that works as printed."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from automanager import cli
from automanager.star import CustomerChat
from automanager.store import Home

pytestmark = pytest.mark.slow  # terminal lanes in processes

ITEMS = ["Soft Taco", "Crunchy Taco", "Bean Burrito"]


def run(args, text, cwd=None, **extra_env):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    env.update(extra_env)
    return subprocess.run([sys.executable, "-m", "automanager", *args], input=text, capture_output=True,
                          text=True, env=env, timeout=300, cwd=cwd)


def car(n: int) -> tuple[str, list[str]]:
    """What car n says, a whole order closed, and the items it leaves."""
    quantity, item = n % 3 + 1, ITEMS[n % len(ITEMS)]
    return f"{quantity} {item.lower()}s\nthat's all\nno thanks\nno\n", [item] * quantity


def test_a_lane_of_30_cars_in_one_process_saves_30_sessions_each_with_its_own_order(tmp_path):
    cars = [car(n) for n in range(30)]
    result = run(["customer", "--json", "--backend", "offline", "--state-dir", str(tmp_path)],
                 "".join(said for said, _ in cars))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]  # only JSON, one object a line
    sessions = list(dict.fromkeys(r["session"] for r in records))  # in the order the cars came
    assert len(sessions) == 30 and len(records) == 30 * 4
    for session, (_, items) in zip(sessions, cars, strict=True):
        assert [r["session"] for r in records].count(session) == 4  # each car's four turns, in its session
        chat = CustomerChat(Home(tmp_path), session)
        assert chat.ended
        assert [unit["item"] for unit in chat.order()] == items
    assert len(list(Home(tmp_path).sessions.glob("*.json"))) == 30
    assert result.stderr.count("customer session ") == 31  # every car is named; the 31st never spoke


def test_after_a_goodbye_the_next_car_is_greeted_and_a_last_word_stays_with_the_order_served(tmp_path):
    text = "a soft taco\nthat's all\nno thanks\nno\nthanks, bye\na pepsi\n"
    result = run(["customer", "--backend", "offline", "--state-dir", str(tmp_path)], text)
    assert result.returncode == 0, result.stderr
    replies = [line for line in result.stdout.splitlines() if line.startswith("assistant>")]
    assert sum("Welcome to Taco Bell" in reply for reply in replies) == 2  # the first car and the next
    assert "Got it: a Pepsi" in replies[-1]
    home = Home(tmp_path)
    orders = sorted([u["item"] for u in CustomerChat(home, path.stem).order()] for path in home.sessions.glob("*.json"))
    assert orders == [["Pepsi®"], ["Soft Taco"]]  # "thanks, bye" made no empty session of its own
    served = next(CustomerChat(home, p.stem) for p in home.sessions.glob("*.json")
                  if CustomerChat(home, p.stem).ended)
    assert served.history[-1]["user"] == "thanks, bye"


def test_quit_or_the_end_of_input_between_cars_leaves_no_empty_session(tmp_path):
    for tail in ("/quit\nnever read\n", ""):
        state = tmp_path / str(len(tail))
        result = run(["customer", "--backend", "offline", "--state-dir", str(state)],
                     "a soft taco\nthat's all\nno thanks\nno\n" + tail)
        assert result.returncode == 0, result.stderr
        assert len(list(Home(state).sessions.glob("*.json"))) == 1
        assert "never read" not in result.stdout and "Traceback" not in result.stderr


def test_quit_in_the_middle_of_an_order_leaves_the_lane(tmp_path):
    result = run(["customer", "--json", "--backend", "offline", "--state-dir", str(tmp_path)],
                 "a soft taco\n/quit\na pepsi\n")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["text"] for r in records] == ["a soft taco", "bye"]  # the pepsi is never read
    assert len(list(Home(tmp_path).sessions.glob("*.json"))) == 1


def test_the_manager_chat_still_ends_at_goodbye(tmp_path):
    result = run(["manager", "--backend", "offline", "--state-dir", str(tmp_path)], "bye\nwe're out of tomatoes\n")
    assert result.returncode == 0, result.stderr
    assert Home(tmp_path).stock_out() == []


def test_the_banner_names_the_state_dir_the_menu_version_and_the_backend(tmp_path):
    result = run(["customer", "--backend", "offline", "--state-dir", str(tmp_path)], "")
    banner = next(line for line in result.stderr.splitlines() if "customer session" in line)
    assert str(tmp_path) in banner and "menu version 0" in banner and "offline" in banner
    llm = CliRunner().invoke(cli.app, ["customer", "--state-dir", str(tmp_path)], input="",
                             env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "AUTOMANAGER_MODEL": "lane-model-7"})
    assert llm.exit_code == 0, llm.output
    banner = next(line for line in llm.stderr.splitlines() if "customer session" in line)
    assert "lane-model-7" in banner and str(tmp_path) in banner and "menu version 0" in banner


def test_the_resume_hint_works_as_printed_from_another_folder(tmp_path):
    pizza = Path(cli.paths.data_dir("kb")) / "packs" / "pizza"
    state = tmp_path / "a state dir"
    first = run(["customer", "--backend", "offline", "--state-dir", str(state), "--kb", str(pizza)],
                "a large pizza\n")
    assert first.returncode == 0, first.stderr
    hint = re.search(r"continue it with: (.+)$", first.stderr, re.M).group(1)
    words = shlex.split(hint)
    assert words[words.index("--state-dir") + 1] == str(state) and words[words.index("--kb") + 1] == str(pizza)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    again = subprocess.run([*words, "--backend", "offline"], input="", capture_output=True, text=True,
                           env=env, timeout=300, cwd=elsewhere)
    assert again.returncode == 0, again.stderr
    assert "back" in again.stdout.lower() and "pizza" in again.stdout.lower()  # welcomed back, order read back


def test_the_program_is_named_as_it_was_started(tmp_path, monkeypatch):
    script = tmp_path / "bin" / "automanager"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script), "customer"])
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert cli.program() == [str(script)]  # not on PATH: its full path
    monkeypatch.setenv("PATH", str(script.parent))
    assert cli.program() == ["automanager"]  # on PATH: the bare name
    monkeypatch.setattr(sys, "argv", [str(Path(cli.__file__).with_name("__main__.py")), "customer"])
    python = cli.program()
    assert python[1:] == ["-m", "automanager"] and Path(shutil_which(python[0])).resolve() == \
        Path(sys.executable).resolve()
    hint = cli.resume_command("customer", tmp_path / "s d", None)("abc123")
    assert shlex.split(hint)[-5:] == ["customer", "--state-dir", str(tmp_path / "s d"), "--resume", "abc123"]


def shutil_which(name: str) -> str:
    import shutil

    return name if os.path.isabs(name) else shutil.which(name) or name


def terminal_customer(state_dir) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="200", LINES="50")
    return pexpect.spawn(sys.executable, ["-m", "automanager", "customer", "--state-dir", str(state_dir)],
                         env=env, encoding="utf-8", timeout=60, dimensions=(50, 200))


def test_ctrl_c_clears_a_half_typed_line_and_leaves_only_on_an_empty_one(tmp_path):
    chat = terminal_customer(tmp_path)
    chat.expect("you>")
    chat.send("three bean burr")
    chat.sendcontrol("c")  # the half-typed line is dropped; the chat goes on
    chat.sendline("a soft taco")
    chat.expect("Got it: a Soft Taco")
    chat.expect("you>")
    chat.sendcontrol("c")  # on an empty line: leave, saying how to come back
    chat.expect(r"--resume (\w+)")
    session = chat.match.group(1)
    chat.expect(pexpect.EOF)
    assert [u["item"] for u in CustomerChat(Home(tmp_path), session).order()] == ["Soft Taco"]


def test_a_terminal_lane_greets_the_next_car_after_a_goodbye(tmp_path):
    chat = terminal_customer(tmp_path)
    chat.expect("you>")
    for line in ("a soft taco", "that's all", "no thanks"):
        chat.sendline(line)
        chat.expect("you>")
    chat.sendline("no")
    chat.expect("Thank you for choosing Taco Bell")
    chat.expect("Welcome to Taco Bell")  # the next car, in a new session
    chat.expect("you>")
    chat.sendline("a pepsi")
    chat.expect("Got it: a Pepsi")
    chat.expect("you>")
    chat.sendcontrol("d")
    chat.expect(pexpect.EOF)
    home = Home(tmp_path)
    orders = sorted([u["item"] for u in CustomerChat(home, p.stem).order()] for p in home.sessions.glob("*.json"))
    assert orders == [["Pepsi®"], ["Soft Taco"]]


def test_the_customer_help_teaches_the_lane_and_how_to_leave():
    result = CliRunner().invoke(cli.app, ["customer", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    said = " ".join(result.output.split())
    assert "next car" in said and "new session" in said and "/quit" in said and "half-typed" in said


def test_a_greeting_after_a_goodbye_is_the_next_car_and_thanks_is_still_the_last_one(tmp_path):
    """'hello' after a goodbye went to the finished order ('Please pull forward to the window')."""
    text = "a pepsi\nbye\nthank you\nhello\na bean burrito\n"
    done = run(["customer", "--json", "--state-dir", str(tmp_path)], text)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    first = records[0]["session"]
    assert [r["session"] == first for r in records] == [True, True, True, False, False], records
    assert "What can I get for you" in records[3]["reply"], records[3]
