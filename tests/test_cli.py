"""The chats as a user runs them: real `automanager` processes with piped stdin."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automanager.cli import app
from automanager.store import Home

REPO = Path(__file__).resolve().parents[1]


def run(args, text, home, **extra_env):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(AUTOMANAGER_HOME=str(home), **extra_env)
    return subprocess.run([sys.executable, "-m", "automanager", *args], input=text, capture_output=True,
                          text=True, env=env, timeout=120)


def test_piped_stdin_one_line_a_turn_car_after_car(tmp_path):
    Home(tmp_path).set_stock("Tomatoes", True)
    result = run(["customer"], "two crunchy tacos\n\nadd tomatoes to the crunchy tacos\nbye\na pepsi\n", tmp_path)
    assert result.returncode == 0, result.stderr
    replies = [line for line in result.stdout.splitlines() if line.startswith("assistant>")]
    assert len(replies) == 6  # greeting + three turns; the blank line is skipped; then the next car
    assert "two Crunchy Tacos" in replies[1]
    assert "run out of Tomatoes" in replies[2]
    assert "Goodbye" in replies[3]
    assert "Welcome" in replies[4] and "Got it: a Pepsi" in replies[5]  # a new session greets the next car
    assert "Traceback" not in result.stderr
    assert "session" in result.stderr  # diagnostics on stderr, not mixed with replies


def test_json_prints_one_object_per_turn(tmp_path):
    result = run(["customer", "--json"], "a pepsi\nthat's all\n", tmp_path)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(records) == 2
    first = records[0]
    assert first["text"] == "a pepsi"
    assert first["parsed"] == ["order('Pepsi®', 1)"]
    assert first["actions"]["confirm"] == [["order", "Pepsi®", 1, 1]]  # food, quantity, order line
    assert first["order"] == [{"item": "Pepsi®"}]
    assert set(first["timings"]) == {"parse_ms", "reasoning_ms", "total_ms"}
    assert records[1]["actions"]["ask"] == [["drink", "pick(size)"]]


def test_resume_continues_the_saved_session(tmp_path):
    first = run(["customer"], "three soft tacos\n", tmp_path)
    session = re.search(r"--resume (\w+)", first.stderr).group(1)
    again = run(["customer", "--resume", session, "--json"], "make that two soft tacos\n", tmp_path)
    record = json.loads(again.stdout.splitlines()[0])
    assert [u["item"] for u in record["order"]] == ["Soft Taco", "Soft Taco"]
    welcome = run(["customer", "--resume", session], "", tmp_path)  # read back, priced, before anything else
    assert "Welcome back! So far you have two Soft Tacos at $1.39 each, $2.78 in all." in welcome.stdout
    assert f"--resume {session}" in welcome.stderr  # the end of input says how to come back again


def test_resume_of_a_damaged_session_names_the_file(tmp_path):
    (tmp_path / "sessions").mkdir(parents=True)
    (tmp_path / "sessions" / "abc123.json").write_text("{ not json", encoding="utf-8")
    result = run(["customer", "--resume", "abc123"], "", tmp_path)
    assert result.returncode == 2
    assert "abc123.json" in result.stderr and "damaged" in result.stderr
    assert "Traceback" not in result.stderr


def test_slash_commands(tmp_path):
    result = run(["customer"], "two crunchy tacos, one with no lettuce\n/order\n/help\n/menu\n/orders\n/quit\n",
                 tmp_path)
    # /order: a table row per group of equal units, modifiers in words, unit and line prices, total
    assert re.search(r"1 .*Crunchy Taco .*no Iceberg Lettuce .*\$1\.39 .*\$1\.39", result.stdout)
    assert re.search(r"total .*\$2\.78", result.stdout)
    assert "/order shows your order" in result.stdout
    assert "/orders is not a command here." in result.stdout
    assert "Cheesy Gordita Crunch" in result.stdout
    assert "Goodbye" in result.stdout


def test_help_lists_the_commands():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("customer", "manager", "state", "kb"):
        assert command in result.output


def test_kb_is_passed_as_a_value_and_the_environment_stays_the_default(tmp_path, monkeypatch):
    pizza = REPO / "kb" / "packs" / "pizza"
    result = CliRunner().invoke(app, ["customer", "--kb", str(pizza), "--backend", "offline"], input="/help\n")
    assert "Corner Slice Pizzeria" in result.output and "AUTOMANAGER_KB" not in os.environ
    assert "Corner Slice Pizzeria" not in CliRunner().invoke(app, ["customer", "--backend", "offline"],
                                                             input="/help\n").output  # the next run: the shipped menu
    monkeypatch.setenv("AUTOMANAGER_KB", str(pizza))
    assert "Corner Slice Pizzeria" in CliRunner().invoke(app, ["customer", "--backend", "offline"], input="/help\n").output


def test_ci_runs_the_readme_test_command_verbatim():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.+?)\n```", readme)
    tests = [block for block in blocks[:4] if "pytest" in block]  # the quick start's test command
    assert len(tests) == 1 and tests[0] in (REPO / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.slow  # two chat processes at once
def test_a_runout_in_the_manager_process_reaches_the_customer_process_at_its_next_turn(tmp_path):
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}, "AUTOMANAGER_HOME": str(tmp_path)}
    customer = subprocess.Popen([sys.executable, "-m", "automanager", "customer", "--json"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def say(line):
        customer.stdin.write(line + "\n")
        customer.stdin.flush()
        return json.loads(customer.stdout.readline())

    try:
        assert say("a pepsi")["order"] == [{"item": "Pepsi®"}]
        manager = run(["manager", "--json"], "we're out of seasoned beef\nbye\n", tmp_path)
        assert manager.returncode == 0, manager.stderr
        said = [json.loads(line) for line in manager.stdout.splitlines()]
        assert said[0]["actions"]["stock"] == [["out", "Seasoned Beef"]]
        refused = say("and a beef burrito")
        assert "Seasoned Beef" in refused["reply"]
        assert refused["order"] == [{"item": "Pepsi®"}]
        run(["manager"], "seasoned beef is back\n", tmp_path)
        assert [u["item"] for u in say("a beef burrito")["order"]] == ["Pepsi®", "Beef Burrito"]
    finally:
        customer.stdin.close()
        customer.wait(timeout=60)
    assert customer.returncode == 0
    assert "Traceback" not in customer.stderr.read()


@pytest.mark.slow  # a chat process per command
def test_manager_slash_commands_and_state_commands(tmp_path):
    result = run(["manager"], "we're out of tomatoes\nthe soft taco now costs $1.99\n/pending\n/stock\n/help\n"
                 "/quit\n/history\n", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "- edit Soft Taco: price $1.39 -> $1.99" in result.stdout  # /pending before the commit
    assert "- Tomatoes (since" in result.stdout  # /stock
    assert "Menu changes are applied together" in result.stdout  # /help
    assert "Applied 1 change" in result.stdout  # /quit says bye, which applies the pending change
    stock = json.loads(run(["state", "stock", "--json"], "", tmp_path).stdout)
    assert [row["name"] for row in stock] == ["Tomatoes"]
    history = json.loads(run(["state", "history", "--json"], "", tmp_path).stdout)
    assert [(h["action"], h["item"], h["old"], h["new"]) for h in history] == [
        ("edit", "Soft Taco", "139", "199"), ("runout", "Tomatoes", "in", "out")]
    assert json.loads(run(["state", "pending", "--json"], "", tmp_path).stdout) == []

    pending = run(["manager"], "take the bean burrito off the menu\nyes\n", tmp_path)  # ends without bye
    assert pending.returncode == 0
    listed = json.loads(run(["state", "pending", "--json"], "", tmp_path).stdout)
    assert [row["change"] for row in listed] == ["delete Bean Burrito"]

    refused = run(["state", "reset"], "", tmp_path)
    assert refused.returncode == 1 and "--yes" in refused.stderr
    assert run(["state", "reset", "--yes"], "", tmp_path).returncode == 0
    assert json.loads(run(["state", "stock", "--json"], "", tmp_path).stdout) == []
    assert json.loads(run(["state", "history", "--json"], "", tmp_path).stdout) == []


def test_customer_session_cannot_be_resumed_as_manager(tmp_path):
    first = run(["customer"], "a pepsi\n", tmp_path)
    session = re.search(r"--resume (\w+)", first.stderr).group(1)
    result = run(["manager", "--resume", session], "", tmp_path)
    assert result.returncode == 2 and "customer session" in result.stderr


def test_without_an_llm_the_chat_is_offline_and_says_how_to_enable_one(tmp_path):
    result = run(["customer"], "a pepsi\n", tmp_path)
    assert result.returncode == 0 and "Got it: a Pepsi" in result.stdout
    assert "no LLM configured" in result.stderr and "OPENAI_API_KEY" in result.stderr
    forced = run(["manager", "--backend", "openai"], "", tmp_path)
    assert forced.returncode == 2 and "OPENAI_BASE_URL" in forced.stderr


def test_serve_refuses_a_port_in_use_in_one_line(tmp_path):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = run(["serve", "--port", str(port), "--state-dir", str(tmp_path)], "", tmp_path)
    assert done.returncode == 2 and "cannot listen on" in done.stderr and "--port" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_the_start_up_line_names_the_store_database_and_menu_never_a_password(engine, tmp_path):
    """Both chats say on stderr which store, database engine (file, or host and database), menu
    pack and version they work on: a chain's manager whose database setting went missing sees
    'SQLite' at once. A password in the database URL is never printed."""
    url = os.environ.get("AUTOMANAGER_DATABASE_URL")
    extra = {}
    if url:  # the test server trusts every local user: any password connects
        extra["AUTOMANAGER_DATABASE_URL"] = url.replace("@", ":pw-Never-Shown@", 1)
    for role in ("customer", "manager"):
        result = run([role], "bye\n", tmp_path, **extra)
        assert result.returncode == 0, result.stderr
        line = next(line for line in result.stderr.splitlines() if "session" in line)
        if url:
            database = url.rsplit("/", 1)[1]
            assert f"database PostgreSQL database {database} on 127.0.0.1:" in line, line
        else:
            assert f"database SQLite {tmp_path / 'shared.db'}" in line, line
        assert "store main" in line and "menu " in line and "version 0" in line and "offline" in line, line
        assert "pw-Never-Shown" not in result.stderr + result.stdout


@pytest.mark.slow  # three chat processes
def test_the_readme_example_is_what_the_chats_print_byte_for_byte(tmp_path):
    """The README's 'Talking to it' block: each '$ ' command run in a fresh state dir, one after
    the other, prints exactly the lines under it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Talking to it\n.*?```text\n(.*?)```", readme, re.S).group(1)
    runs = re.split(r"^\$ (.*)\n", block, flags=re.M)[1:]  # a command, what it prints, the next command, ...
    assert len(runs) >= 4
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    env["AUTOMANAGER_HOME"] = str(tmp_path)
    command_line = f'automanager() {{ "{sys.executable}" -m automanager "$@"; }}; '
    for command, expected in zip(runs[::2], runs[1::2]):
        result = subprocess.run(["bash", "-c", command_line + command], capture_output=True, text=True, env=env,
                                cwd=REPO, timeout=180)
        assert result.returncode == 0, result.stderr
        assert result.stdout == expected, f"$ {command}\n{result.stdout}"
