"""The menu kept in the state dir's cache: the same facts and names as read from the KB, and a
damaged cache is read from the KB again."""

import pytest

from automanager import paths
from automanager.menu import commit, model
from automanager.menu.model import Menu


@pytest.fixture(autouse=True)
def new_process(monkeypatch):
    """No KB facts known from an earlier test (a version this process published is not read)."""
    monkeypatch.setattr(commit, "FACTS", {})


def loaded(files, cache):
    model._load.cache_clear()  # as a new process would
    return Menu.load(files, cache)


@pytest.mark.parametrize("pack", ["", "pizza"])
def test_a_cached_menu_is_the_menu(tmp_path, pack):
    files = paths.kb_files(paths.data_dir("kb") / "packs" / pack if pack else None)
    read = loaded(files, None)
    first, again = loaded(files, tmp_path), loaded(files, tmp_path)
    assert len(list(tmp_path.glob("menu-*.cache"))) == 1
    for menu in (first, again):
        assert {name: menu.facts[name] for name in menu.facts} == {name: read.facts[name] for name in read.facts}
        assert menu.lexicon == read.lexicon and menu.option_words == read.option_words
        assert menu.example_dish == read.example_dish


@pytest.mark.parametrize("damage", [b"", b"junk\n{}", None])
def test_a_damaged_menu_cache_is_read_from_the_kb_again(tmp_path, damage):
    files = paths.kb_files()
    read = loaded(files, None)
    loaded(files, tmp_path)
    (cached,) = tmp_path.glob("menu-*.cache")
    data = cached.read_bytes()
    cached.write_bytes(damage if damage is not None else data.replace(b"Taco", b"Tako", 1))
    menu = loaded(files, tmp_path)
    assert {name: menu.facts[name] for name in menu.facts} == {name: read.facts[name] for name in read.facts}
    assert menu.lexicon == read.lexicon
    assert cached.read_bytes() == data  # written again


def test_a_changed_kb_is_not_read_from_the_cache(tmp_path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "menu.lp").write_text('dish("Bean Bowl"). category("Bean Bowl", "bowl").\n', encoding="utf-8")
    assert loaded(paths.kb_files(kb), tmp_path / "cache").items == {"Bean Bowl"}
    (kb / "menu.lp").write_text('dish("Rice Bowl"). category("Rice Bowl", "bowl").\n', encoding="utf-8")
    assert loaded(paths.kb_files(kb), tmp_path / "cache").items == {"Rice Bowl"}
