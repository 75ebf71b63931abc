"""A session's cost stays flat over many turns: a turn writes what it adds (not the whole
transcript again) and the state the rules ground does not gather every food ever talked about.
Measured in bytes and terms, never in time (timing is `automanager bench`'s long_session). The
journal of turns survives a cut line, a damaged line and a save cut short; older session files load."""

from __future__ import annotations

import json
import logging
import os

import pytest

from automanager import paths, store
from automanager.menu.model import Menu
from automanager.star import CustomerChat
from automanager.store import Home

ITEMS = sorted(Menu.load(paths.kb_files()).items)
CHATTER = "so anyway I was telling my friend about the traffic on the highway today " * 20


def line(n: int) -> str:
    """Turn n of one long open order: questions about every item in turn, a taco ordered and
    taken off, small talk (some of it long); a period of 7 * len(ITEMS) turns."""
    food = ITEMS[(n // 7) % len(ITEMS)]
    return [f"how much is a {food}", "a soft taco", f"what's in the {food}", "remove the soft taco", "hello",
            CHATTER, "what do you recommend"][n % 7]


def size(path) -> int:
    return path.stat().st_size if path.exists() else 0


def window(chat: CustomerChat, start: int, facts: list[int]) -> tuple[int, int]:
    """Bytes written and facts handed to clingo over one week of the mix (7 turns) from turn
    start. A save writes the whole session file and what the journal grew by."""
    snapshot = chat.home.session_path(chat.session_id)
    journal = snapshot.with_suffix(".jsonl")
    bytes_written, seen = 0, len(facts)
    for n in range(start, start + 7):
        before = size(journal)
        chat.turn(line(n))
        bytes_written += size(snapshot) + size(journal) - before
    return bytes_written, sum(facts[seen:])


@pytest.fixture(scope="module")
def long_session(tmp_path_factory):
    """One session of 7 * len(ITEMS) + 57 turns, never closed, with two identical weeks measured:
    turns 50-56 and the same lines one period later."""
    home = Home(tmp_path_factory.mktemp("state"))
    chat = CustomerChat(home)
    facts: list[int] = []
    solve = chat.assistant.reasoner.solve
    chat.assistant.reasoner.solve = lambda given, *rest, **kw: (facts.append(len(given)), solve(given, *rest, **kw))[1]
    period = 7 * len(ITEMS)
    for n in range(50):
        chat.turn(line(n))
    early = window(chat, 50, facts)
    for n in range(57, period + 50):
        chat.turn(line(n))
    late = window(chat, period + 50, facts)
    del chat.assistant.reasoner.solve
    assert not chat.ended
    return chat, early, late


@pytest.mark.slow  # hundreds of turns of one session
def test_a_turn_writes_and_grounds_as_much_after_hundreds_of_turns_as_after_fifty(long_session):
    chat, (early_bytes, early_facts), (late_bytes, late_facts) = long_session
    assert len(chat.history) > 700
    assert late_bytes <= early_bytes * 1.05  # the same lines: the same bytes, not the transcript again
    assert late_facts <= early_facts  # the same lines: the same state grounded
    assert len(chat.state) < 30  # the recent talk, not every item of the menu


def test_a_long_session_resumes_whole(long_session):
    chat, _, _ = long_session
    resumed = CustomerChat(Home(chat.home.root), chat.session_id)
    assert resumed.history == chat.history and resumed.state == chat.state
    assert resumed.order() == chat.order()
    assert resumed.turn("a pepsi").order == [*chat.order(), {"item": "Pepsi®"}]


@pytest.fixture
def chat(tmp_path):
    chat = CustomerChat(Home(tmp_path))
    for said in ("a soft taco", "how much is a bean burrito", "a pepsi"):
        chat.turn(said)
    return chat


def test_a_cut_last_journal_line_is_skipped_and_logged_and_the_earlier_turns_are_kept(chat, caplog):
    journal = chat.home.journal_path(chat.session_id)
    journal.write_bytes(journal.read_bytes()[:-10])  # the disk lost the end of the last turn
    with caplog.at_level(logging.WARNING, logger=store.__name__):
        resumed = CustomerChat(Home(chat.home.root), chat.session_id)
    assert [t["user"] for t in resumed.history] == ["a soft taco", "how much is a bean burrito"]
    assert "cut short" in caplog.text and str(journal) in caplog.text
    resumed.turn("a crunchy taco")  # the next turn is saved after the good lines
    again = Home(chat.home.root).load_session(chat.session_id)
    assert [t["user"] for t in again["turns"]] == ["a soft taco", "how much is a bean burrito", "a crunchy taco"]


def test_a_damaged_journal_line_is_skipped_and_the_others_are_read(chat, caplog):
    journal = chat.home.journal_path(chat.session_id)
    lines = journal.read_bytes().split(b"\n")
    lines[1] = b"\xff" * len(lines[1])  # same length: the session file's count of bytes still holds
    journal.write_bytes(b"\n".join(lines))
    with caplog.at_level(logging.WARNING, logger=store.__name__):
        turns = Home(chat.home.root).load_session(chat.session_id)["turns"]
    assert [t["user"] for t in turns] == ["a soft taco", "a pepsi"]
    assert "line 2 is damaged" in caplog.text


def test_a_save_cut_short_leaves_the_saved_turns_and_the_next_save_writes_over_its_line(chat, monkeypatch):
    monkeypatch.setattr(store, "write_atomic", lambda *_args, **_kw: (_ for _ in ()).throw(OSError(28, "No space")))
    with pytest.raises(store.StateError):
        chat.turn("a bean burrito")  # its line is in the journal, the session file does not count it
    monkeypatch.undo()
    home = Home(chat.home.root)
    assert [t["user"] for t in home.load_session(chat.session_id)["turns"]][-1] == "a pepsi"
    chat.turn("that's all")  # the line not saved was undone (its customer was told): never saved later
    users = [t["user"] for t in home.load_session(chat.session_id)["turns"]]
    assert users == ["a soft taco", "how much is a bean burrito", "a pepsi", "that's all"]
    assert [u["item"] for u in chat.order()] == ["Soft Taco", "Pepsi®"]
    assert len(chat.home.journal_path(chat.session_id).read_bytes().splitlines()) == 4  # its cut line written over


def test_a_session_saved_before_the_journal_resumes_and_moves_its_turns_over(tmp_path):
    home = Home(tmp_path)
    home.sessions.mkdir(parents=True)
    old = {"session": "abc", "role": "customer", "menu_version": 0,
           "state": ['unit(1,"Soft Taco")', "phase(listen)", 'mentioned("Soft Taco")'],
           "turns": [{"user": "a soft taco", "bot": "One soft taco.", "at": "2025-01-01T00:00:00+00:00"}]}
    home.session_path("abc").write_text(json.dumps(old), encoding="utf-8")
    chat = CustomerChat(Home(tmp_path), "abc")
    assert chat.history == old["turns"] and [u["item"] for u in chat.order()] == ["Soft Taco"]
    chat.turn("a pepsi")
    saved = json.loads(home.session_path("abc").read_text(encoding="utf-8"))
    assert "turns" not in saved and saved["journal"]["turns"] == 2
    resumed = CustomerChat(Home(tmp_path), "abc")
    assert [t["user"] for t in resumed.history] == ["a soft taco", "a pepsi"]
    assert [u["item"] for u in resumed.order()] == ["Soft Taco", "Pepsi®"]


def test_a_new_session_whose_first_save_fails_can_save_again(tmp_path, monkeypatch):
    chat = CustomerChat(Home(tmp_path))
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda _fd: (_ for _ in ()).throw(OSError(28, "No space")))
    with pytest.raises(store.StateError):
        chat.turn("a soft taco")
    monkeypatch.setattr(os, "fsync", real)
    chat.turn("a pepsi")  # not "already exists": the failed save left no journal of its own
    assert [t["user"] for t in Home(tmp_path).load_session(chat.session_id)["turns"]] == ["a pepsi"]
    assert [u["item"] for u in chat.order()] == ["Pepsi®"]  # the line not saved was undone, never saved later
