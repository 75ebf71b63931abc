"""What a user of the command line sees: rich markup and emoji codes printed as typed, a --json
stream that is only JSON (one record a line, whatever line breaks a name holds), one clear line
for a bad setting, bounded input lines, and LLM names that are not names never echoed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from fake_openai import FakeOpenAI
from typer.testing import CliRunner

from automanager import star
from automanager.cli import app
from automanager.llm.openai_backend import LLMConfig
from automanager.star import MAX_INPUT, CustomerChat, ManagerChat
from automanager.store import Home

pytestmark = pytest.mark.slow  # chat processes given huge or broken input


def run(args, text, home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(AUTOMANAGER_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "automanager", *args], input=text, capture_output=True,
                          text=True, env=env, timeout=120)


def one_line_error(result, *words) -> None:
    """The stderr of a refused command: exit 2, one line, no traceback, naming `words`."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    for word in words:
        assert word in result.stderr


def invoke(args, **env):
    result = CliRunner().invoke(app, args, env=env)
    return SimpleNamespace(returncode=result.exit_code, stdout=result.stdout, stderr=result.stderr)


# -- 6. rich markup in what a user or a path says ------------------------------------------------------------
def test_markup_in_a_session_id_or_a_state_dir_is_printed_as_it_is(tmp_path):
    offline = ["--backend", "offline"]
    one_line_error(run(["customer", *offline, "--resume", "[/x]"], "", tmp_path), "'[/x]' is not a session id")
    state = tmp_path / "a[/z]b"
    one_line_error(run(["manager", *offline, "--state-dir", str(state), "--resume", "nosuch"], "", tmp_path),
                   str(state / "sessions"))
    refused = invoke(["state", "reset", "--state-dir", str(state)])
    assert refused.returncode == 1 and str(state) in refused.stderr


# -- 7. --json: one JSON object a line, slash commands too; emoji codes stay codes ---------------------------
def test_json_mode_prints_only_json_objects_and_text_as_typed(tmp_path):
    result = run(["customer", "--json"], ":taco: please\n/order\n/menu\n/help\n/what\n/quit\n", tmp_path)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r.get("command") for r in records] == [None, "/order", "/menu", "/help", "/help", None]
    assert records[0]["text"] == ":taco: please"
    assert Home(tmp_path).load_session(records[0]["session"])["turns"][0]["user"] == ":taco: please"
    assert records[1]["order"] == records[0]["order"] == [{"item": "Crunchy Taco"}]
    assert {"item": "Crunchy Taco", "category": "taco", "price": 139} in records[2]["items"]
    assert "/order shows your order" in records[3]["help"]
    assert all(r["session"] == records[0]["session"] and r["role"] == "customer" for r in records)


def test_manager_json_mode_prints_only_json_objects(tmp_path):
    result = run(["manager", "--json"], "we're out of tomatoes\nthe soft taco now costs $1.99\n/stock\n/pending\n"
                 "/help\nsave\n/history\n", tmp_path)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    shown = {r["command"]: r for r in records if "command" in r}
    assert [row["name"] for row in shown["/stock"]["stock"]] == ["Tomatoes"]
    assert shown["/pending"]["pending"] == ["edit Soft Taco: price $1.39 -> $1.99"]
    assert "Menu changes are applied together" in shown["/help"]["help"]
    assert [(h["action"], h["item"]) for h in shown["/history"]["history"]] == [("edit", "Soft Taco"),
                                                                               ("runout", "Tomatoes")]


# -- 8. bad settings: one clear line, exit 2 -----------------------------------------------------------------
@pytest.mark.parametrize("name, value", [("AUTOMANAGER_LLM_TIMEOUT", "abc"), ("AUTOMANAGER_LLM_TIMEOUT", "0"),
                                         ("AUTOMANAGER_LLM_TIMEOUT", "nan"), ("AUTOMANAGER_LLM_RETRIES", "-5"),
                                         ("AUTOMANAGER_LLM_RETRIES", "1.5")])
def test_a_bad_llm_setting_is_one_line_naming_it(name, value):
    one_line_error(invoke(["customer"], OPENAI_BASE_URL="http://127.0.0.1:9/v1", **{name: value}), name, value)


@pytest.mark.parametrize("command", [["customer", "--backend", "offline"],
                                     ["manager", "--backend", "offline"], ["state", "stock"], ["state", "pending"],
                                     ["state", "history"], ["state", "reset", "--yes"]])
def test_a_state_dir_that_is_a_file_is_one_line(tmp_path, command):
    state = tmp_path / "state"
    state.write_text("not a folder", encoding="utf-8")
    one_line_error(invoke([*command, "--state-dir", str(state)]), str(state), "is a file", "--state-dir")
    assert state.read_text(encoding="utf-8") == "not a folder"


@pytest.mark.parametrize("limit", ["99999999999999999999", "0", "-3"])
def test_a_history_limit_out_of_range_is_one_line(limit):
    one_line_error(invoke(["state", "history", "--limit", limit]), "--limit", limit)


# -- 9. a huge line is read in bounded memory ----------------------------------------------------------------
def test_a_50_mb_line_gets_one_reply_in_bounded_memory(tmp_path):
    lines = tmp_path / "lines.txt"
    lines.write_text("taco " * 10_000_000 + "\nbye\n", encoding="utf-8")
    # a parent of its own, so the peak memory of its children is this chat's alone
    measure = ("import resource, subprocess, sys\n"
               "with open(sys.argv[1], 'rb') as lines:\n"
               "    chat = subprocess.run([sys.executable, '-m', 'automanager', 'customer', '--json'], stdin=lines,\n"
               "                          capture_output=True, text=True)\n"
               "print(chat.stdout + '%d' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    result = subprocess.run([sys.executable, "-c", measure, str(lines)], capture_output=True, text=True,
                            env={**env, "AUTOMANAGER_HOME": str(tmp_path / "home")}, timeout=300)
    *records, peak_kb = result.stdout.splitlines()
    first, bye = map(json.loads, records)
    assert first["reply"].startswith(f"(I only read the first {MAX_INPUT} characters.)")
    assert len(first["text"]) <= MAX_INPUT and "Goodbye" in bye["reply"]
    assert int(peak_kb) < 400 * 1024


# -- 12. small ones ------------------------------------------------------------------------------------------
def test_total_ms_includes_the_session_save(tmp_path, monkeypatch):
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(star.chat, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    chat = CustomerChat(Home(tmp_path))
    save = chat.home.save_session

    def slow_save(*args, **kwargs):
        clock.now += 5.0  # the save takes five seconds of the fake clock
        save(*args, **kwargs)

    monkeypatch.setattr(chat.home, "save_session", slow_save)
    assert chat.turn("a pepsi").timings["total_ms"] >= 5000


def test_an_empty_resume_is_an_error_not_a_new_session(tmp_path):
    one_line_error(run(["customer", "--backend", "offline", "--resume", ""], "a pepsi\n", tmp_path), "--resume")
    assert not list(tmp_path.glob("sessions/*.json"))


@pytest.fixture
def fake(monkeypatch):
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("AUTOMANAGER_LLM_RETRIES", "0")
        yield server


@pytest.mark.parametrize("said", ["!!!", "[/]", "123"])
def test_an_llm_name_with_no_letters_is_not_echoed(fake, tmp_path, said):
    fake.parses.extend([{"predicates": [{"predicate": "specify", "combo": said, "dish": "soft taco"}]},
                        {"predicates": [{"predicate": "order", "food": said, "quantity": 1}]}])
    chat = CustomerChat(Home(tmp_path), None, LLMConfig.from_env("fake-model"))
    for turn in (chat.turn("the combo with a soft taco"), chat.turn("one of those")):
        assert said not in turn.reply and "isn't on our menu" not in turn.reply
        assert said in turn.llm["fallback"]  # refused: the offline parser took the turn


def test_an_llm_name_not_on_the_menu_is_said_back_tidied(fake, tmp_path):
    fake.parses.append({"predicates": [{"predicate": "specify", "combo": "[/x] big box", "dish": "soft taco"}]})
    turn = CustomerChat(Home(tmp_path), None, LLMConfig.from_env("fake-model")).turn("the big box with a soft taco")
    assert 'Sorry, "x big box" isn\'t on our menu.' in turn.reply  # tidied, in the case it was said (as offline)


@pytest.mark.parametrize("prop", ["contains", "category"])
def test_an_llm_manager_value_with_no_letters_is_not_echoed(fake, tmp_path, prop):
    fake.parses.extend([{"predicates": [{"predicate": "add_new", "type": "combo", "name": "Big Box"}]},
                        {"predicates": [{"predicate": "add", "name": "Big Box", "property": prop, "value": "!!!",
                                         "count": 1}]}])
    chat = ManagerChat(Home(tmp_path), None, LLMConfig.from_env("fake-model"))
    chat.turn("add a combo called big box")
    turn = chat.turn("it has the usual")
    assert "!!!" not in turn.reply and "''" not in turn.reply
    assert "!!!" in turn.llm["fallback"]


def test_a_json_record_is_one_line_for_readers_that_split_on_unicode_breaks(tmp_path):
    """U+2028, U+2029 and U+0085 (a pack's names may hold them) are escaped in --json records."""
    import json

    from automanager.repl import record
    from automanager.star import CustomerChat

    chat = CustomerChat(Home(tmp_path))
    fields = {"reply": "Got it: a Taco\u2028Deluxe, a Nacho\u0085Box and a Pie\u2029.", "parsed": []}
    line = record(chat, fields)
    assert len(line.splitlines()) == 1  # str.splitlines() breaks at all three
    assert json.loads(line)["reply"] == fields["reply"]
