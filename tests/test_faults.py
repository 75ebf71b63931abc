"""Faults: a state dir that cannot be written, a full disk, damaged files. Every one ends in a
clear error naming the file and what to do, never a silent reset, and nothing saved is lost."""

from __future__ import annotations

import errno
import io
import json
import os

import pytest
from rich.console import Console

from automanager.repl import run_chat
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home, StateError


@pytest.fixture
def home(tmp_path):
    return Home(tmp_path / "state")


def fail_with(code):
    def raiser(*_args, **_kwargs):
        raise OSError(code, os.strerror(code))
    return raiser


@pytest.mark.parametrize("where, code", [("replace", errno.EROFS), ("fsync", errno.ENOSPC),
                                         ("replace", errno.EACCES)])
def test_a_session_that_cannot_be_saved_keeps_the_last_saved_turn(home, monkeypatch, where, code):
    chat = CustomerChat(home)
    chat.turn("two soft tacos")
    saved = home.load_session(chat.session_id)
    monkeypatch.setattr(os, where, fail_with(code))
    with pytest.raises(StateError) as caught:
        chat.turn("and a pepsi")
    message = str(caught.value)
    assert chat.session_id in message and "writable" in message and os.strerror(code) in message
    monkeypatch.undo()
    assert home.load_session(chat.session_id) == saved  # the previous turn, whole
    assert not list(home.sessions.glob("*.tmp"))  # no half-written file left behind


def test_the_repl_stops_with_the_error_and_no_traceback(home, monkeypatch):
    chat = CustomerChat(home)
    lines = iter(["two soft tacos", "and a pepsi"])
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(os, "fsync", fail_with(errno.ENOSPC))
    code = run_chat(chat, lambda: next(lines, None), Console(file=out), Console(file=err, width=300))
    assert code == 2
    assert "No space left on device" in err.getvalue() and "Traceback" not in err.getvalue() + out.getvalue()


def test_a_damaged_shared_database_is_named_with_the_way_out(home):
    home.set_stock("Tomatoes", True)
    for name in ("shared.db-wal", "shared.db-shm"):
        (home.root / name).unlink(missing_ok=True)
    (home.root / "shared.db").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StateError) as caught:
        home.stock_out()
    message = str(caught.value)
    assert "shared.db" in message and "move it" in message


def test_a_damaged_menu_version_is_named_and_never_silently_replaced(home):
    manager = ManagerChat(home)
    manager.turn("the soft taco now costs $1.99")
    manager.turn("bye")
    version_file = home.root / "menu" / "v1.lp"
    published = version_file.read_text(encoding="utf-8")
    version_file.write_text('dish("Soft Taco"\n', encoding="utf-8")  # cut off mid-fact
    with pytest.raises(StateError) as caught:
        CustomerChat(home)
    message = str(caught.value)
    assert "v1.lp" in message and "state reset" in message
    version_file.unlink()  # a file lost (or a version made on another machine): made from its published text
    CustomerChat(home)
    assert version_file.read_text(encoding="utf-8") == published
    version_file.unlink()
    home.write(lambda conn: conn.execute("UPDATE menu_version SET menu_text = NULL"))  # a release before the text
    with pytest.raises(StateError, match="menu version 1 is missing"):
        CustomerChat(home)


def test_a_damaged_session_is_named_and_left_in_place(home):
    chat = CustomerChat(home)
    chat.turn("a pepsi")
    path = home.session_path(chat.session_id)
    path.write_text('{"state": ["unit(1,', encoding="utf-8")
    with pytest.raises(StateError) as caught:
        CustomerChat(home, chat.session_id)
    assert str(path) in str(caught.value) and "Move it away" in str(caught.value)
    assert path.read_text(encoding="utf-8") == '{"state": ["unit(1,'  # not reset behind the user's back


def test_a_manager_commit_that_cannot_be_written_applies_nothing(home, monkeypatch):
    manager = ManagerChat(home)
    manager.turn("the soft taco now costs $1.99")
    monkeypatch.setattr(os, "fsync", fail_with(errno.ENOSPC))
    with pytest.raises(StateError):
        manager.turn("save")
    monkeypatch.undo()
    assert home.latest_version() == 0 and home.history() == []
    again = ManagerChat(home, manager.session_id)  # the pending change survived in the session
    assert again.staged() == [("edit", "Soft Taco", "price", 139, 199)]
    again.turn("save")
    assert home.latest_version() == 1
    assert json.loads(json.dumps(home.history()))[0]["new"] == "199"
