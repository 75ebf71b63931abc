"""The chat at a real terminal (a pseudo-terminal): line editing and history through
prompt_toolkit; a piped run reads plain lines and never starts it."""

from __future__ import annotations

import os
import sys

import pexpect
import pytest
from typer.testing import CliRunner

from automanager import cli
from automanager.store import Home

pytestmark = pytest.mark.slow  # chats in a pseudo-terminal


def terminal_chat(role: str, state_dir, *extra: str) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="200", LINES="50")
    return pexpect.spawn(sys.executable, ["-m", "automanager", role, "--state-dir", str(state_dir), *extra],
                         env=env, encoding="utf-8", timeout=60, dimensions=(50, 200))


def test_the_up_arrow_recalls_the_last_line_and_ctrl_d_says_how_to_resume(tmp_path):
    chat = terminal_chat("customer", tmp_path)
    chat.expect("you>")
    chat.sendline("a soft taco")
    chat.expect("Got it: a Soft Taco")
    chat.expect("you>")
    chat.send("\x1b[A")  # up arrow: the line said before comes back, and Enter sends it again
    chat.send("\r")
    chat.expect("Got it: a Soft Taco")
    chat.expect("you>")
    chat.sendline("/order")
    chat.expect(r"2 .*Soft Taco.*\$2\.78")
    chat.expect("you>")
    chat.sendcontrol("d")
    chat.expect(r"--resume (\w+)")
    session = chat.match.group(1)
    chat.expect(pexpect.EOF)
    assert "a soft taco" in Home(tmp_path).history_path("customer").read_text(encoding="utf-8")
    assert [u["item"] for u in Home(tmp_path).load_session(session)["state"] and
            cli.CustomerChat(Home(tmp_path), session).order()] == ["Soft Taco", "Soft Taco"]


def test_ctrl_c_at_the_prompt_keeps_the_session_and_says_how_to_resume(tmp_path):
    chat = terminal_chat("manager", tmp_path)
    chat.expect("you>")
    chat.sendline("we're out of tomatoes")
    chat.expect("Marked Tomatoes out")
    chat.expect("you>")
    chat.sendcontrol("c")
    chat.expect(r"-m automanager manager --state-dir \S+ --resume (\w+)")  # the command as it was started
    chat.expect(pexpect.EOF)
    assert Home(tmp_path).stock_out() == ["Tomatoes"]


def test_a_piped_run_reads_plain_lines_without_prompt_toolkit(tmp_path, monkeypatch):
    def no_terminal(_history):
        raise AssertionError("a piped run must not start line editing")

    monkeypatch.setattr(cli, "terminal_reader", no_terminal)
    result = CliRunner().invoke(cli.app, ["customer", "--state-dir", str(tmp_path)], input="a pepsi\nbye\n")
    assert result.exit_code == 0, result.output
    assert "Got it: a Pepsi" in result.output
    # no prompt: each line read is echoed once, so that stdout reads as the conversation
    assert [line for line in result.output.splitlines() if "you>" in line] == ["you> a pepsi", "you> bye"]
    assert not Home(tmp_path).history_path("customer").exists()
