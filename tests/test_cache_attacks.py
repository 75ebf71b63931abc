"""Caches that cannot lie: each kind of cache entry in a state dir (the KB's facts, the rewritten
rules, the menu, the names' vectors) is damaged in many ways, then a fixed set of manager and
customer turns must give the replies a fresh state dir gives, with no traceback. The damaged
entry is dropped and made again. One test per cache kind and damage: tried = passed + failed."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import time

import numpy as np
import pytest

from automanager import names as names_module
from automanager.files import read_cache, read_entry, write_cache, write_entry
from automanager.menu import commit, model
from automanager.reasoner import TurnReasoner, caches_written
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home

pytestmark = pytest.mark.slow  # rebuilds every cache from scratch for each kind of damage

MANAGER = ["we're out of tomatoes", "the tomatoes are back in stock"]
CUSTOMER = ["hi, can I get a cheesy bean burrito", "and a pepsi", "a chiken soft taco please", "that's all"]


def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget what this process keeps in memory, as a new process would (the model stays loaded:
    it is no cache of the state dir)."""
    monkeypatch.setattr(TurnReasoner, "_programs", {})
    monkeypatch.setattr(TurnReasoner, "_grounded", {})
    monkeypatch.setattr(TurnReasoner, "_shared", {})
    monkeypatch.setattr(commit, "FACTS", {})
    model._load.cache_clear()


def replies(root, monkeypatch) -> list[str]:
    new_process(monkeypatch)
    with caches_written():
        home = Home(root)
        manager = ManagerChat(home)
        said = [manager.turn(line).reply for line in MANAGER]
        customer = CustomerChat(home)
        said += [customer.turn(line).reply for line in CUSTOMER]
    return said


def old_digest(body: bytes) -> bytes:
    """The digest today's entries carried: of the content alone (anyone can make it again)."""
    return hashlib.sha256(body).hexdigest().encode()


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def forged_npy(path, array: np.ndarray, raw: bool) -> None:
    """Vectors written as the writer writes them (a matching digest), or as a bare .npy."""
    if raw:
        path.write_bytes(npy(array))
    else:
        write_entry(path, npy(array))


def vectors_of(path) -> np.ndarray:
    body = read_entry(path)
    assert body is not None
    return np.load(io.BytesIO(body))


def huge_header(path) -> None:
    header = b"\x93NUMPY\x01\x00"
    text = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 384), }"
    text += b" " * (118 - len(text)) + b"\n"
    path.write_bytes(header + len(text).to_bytes(2, "little") + text + b"\0" * 64)


def unreadable(path) -> None:
    path.unlink()
    path.mkdir()  # as root, chmod 000 still reads: a folder in its place cannot be read by anyone
    os.chmod(path, 0)


def flip(path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) * 2 // 3] ^= 0x20
    path.write_bytes(bytes(data))


# a word the turns below need, changed by one letter wherever the entry says it
TARGETS = [b'"Tomatoes"', b"price(", b"item("]


def letter_changed_old_digest(path) -> None:
    """A word changed by one letter, and the old kind of digest made again to match."""
    body = path.read_bytes().partition(b"\n")[2]
    target = next(word for word in TARGETS if word in body)
    body = body.replace(target, target[:-2] + b"z" + target[-1:])
    path.write_bytes(old_digest(body) + b"\n" + body)


def syntax_error_old_digest(path) -> None:
    body = path.read_bytes().partition(b"\n")[2]
    body = body.replace(b":-", b":- :-", 1).replace(b"4 ", b"4 ((", 1)
    path.write_bytes(old_digest(body) + b"\n" + body)


def syntax_error_valid_digest(path) -> None:
    saved, text = read_cache(path)
    write_cache(path, saved, text.replace(":-", ":- :-", 1) if ":-" in text else text.replace("(", "((", 3))


def late_syntax_error_valid_digest(path) -> None:
    """A rules part read only when a call needs it (not at the start) that clingo cannot read."""
    saved, text = read_cache(path)
    base = saved["texts"][0][1]
    at = text.index(":-", base)
    write_cache(path, saved, text[:at] + ":- :-" + text[at + 2:])


def letter_changed_valid_digest(path) -> None:
    """A KB fact changed, with a digest that matches: the facts no longer say what the KB says."""
    saved, text = read_cache(path)
    target = next(word.decode() for word in TARGETS if word.decode() in text)
    write_cache(path, saved, text.replace(target, target[:-2] + "z" + target[-1:]))


GENERIC = {
    "flipped byte": flip,
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
    "empty": lambda p: p.write_bytes(b""),
    "junk": lambda p: p.write_bytes(b"\x00\xff junk\n{}"),
    "unreadable": unreadable,
}
TEXT = {
    **GENERIC,
    "letter changed, old digest": letter_changed_old_digest,
    "syntax error, old digest": syntax_error_old_digest,
}
VECTORS = {
    **GENERIC,
    **{f"{what}{', bare npy' if raw else ''}": (lambda p, make=make, raw=raw: forged_npy(p, make(vectors_of(p)), raw))
       for raw in (True, False)
       for what, make in [
           ("NaN", lambda v: np.full_like(v, np.nan)),
           ("zeros", np.zeros_like),
           ("shuffled", lambda v: v[::-1].copy()),
           ("wrong width", lambda v: v[:, :100].copy()),
           ("too few rows", lambda v: v[:-1].copy()),
           ("float64 unnormalized", lambda v: (v * 2).astype(np.float64)),
       ]},
    "huge header": huge_header,
}
ATTACKS = [("kb", name, damage) for name, damage in
           {**TEXT, "syntax error": syntax_error_valid_digest, "letter changed": letter_changed_valid_digest}.items()]
ATTACKS += [("rules", name, damage) for name, damage in
            {**TEXT, "syntax error": syntax_error_valid_digest, "late syntax error": late_syntax_error_valid_digest}.items()]
ATTACKS += [("menu", name, damage) for name, damage in TEXT.items()]
ATTACKS += [("names", name, damage) for name, damage in VECTORS.items()]

@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """The replies of a fresh state dir, and the cache folder it left (made once)."""
    root = tmp_path_factory.mktemp("fresh")
    with pytest.MonkeyPatch.context() as monkeypatch:
        said = replies(root, monkeypatch)
    return said, root / "cache"


@pytest.mark.parametrize("kind,name,damage", ATTACKS, ids=[f"{k}: {n}" for k, n, _ in ATTACKS])
def test_a_damaged_cache_entry_changes_no_reply(tmp_path, monkeypatch, fresh, kind, name, damage):
    expected, cache = fresh
    root = tmp_path / "state"
    shutil.copytree(cache, root / "cache")
    entries = sorted((root / "cache").glob(f"{kind}-*"))
    assert entries, f"no {kind} cache entry to damage"
    for entry in entries:
        damage(entry)
    assert replies(root, monkeypatch) == expected
    for entry in entries:  # made again: the next process reads it
        if entry.is_file():
            assert read_entry(entry) is not None, entry.name


def test_a_stale_temporary_file_is_removed_at_the_next_start_and_a_live_ones_is_not(tmp_path):
    home = Home(tmp_path)
    (tmp_path / "sessions").mkdir(parents=True)
    (tmp_path / "cache").mkdir()
    stale = [tmp_path / "sessions" / "abc.json.x1.tmp", tmp_path / "cache" / "kb-1.cache.x2.tmp"]
    live = tmp_path / "sessions" / "def.json.x3.tmp"
    for path in [*stale, live]:
        path.write_text("half", encoding="utf-8")
    old = time.time() - 3600
    for path in stale:
        os.utime(path, (old, old))
    CustomerChat(home)
    assert not any(path.exists() for path in stale)
    assert live.exists()  # another process may be about to put it in place


def test_session_and_cache_files_are_fsynced_with_their_folder(tmp_path, monkeypatch):
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    home = Home(tmp_path)
    home.save_session("abc", {"turns": []}, new=True)
    assert len(synced) >= 2  # the file and its folder
    synced.clear()
    write_cache(tmp_path / "cache" / "kb-x.cache", [], "")
    assert len(synced) >= 2
    assert home.load_session("abc") == {"turns": []}
    assert not list(tmp_path.rglob("*.tmp"))


def test_an_empty_names_cache_is_only_made_again(tmp_path):
    """A power loss can leave an empty file (it was not fsynced): no chat may crash on it."""
    menu = model.Menu.load(__import__("automanager.paths", fromlist=["kb_files"]).kb_files())
    matcher = names_module.NameMatcher(menu, tmp_path)
    kept_names, vectors = matcher.vectors("item")
    (entry,) = tmp_path.glob("names-*")
    entry.write_bytes(b"")
    again_names, again = names_module.NameMatcher(menu, tmp_path).vectors("item")
    assert again_names == kept_names and np.allclose(again, vectors)
    assert read_entry(entry) is not None
