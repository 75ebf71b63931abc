"""Name correction: exact, alias, lexical, then sentence embeddings with a floor."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from automanager import paths
from automanager.menu.model import Menu
from automanager.names import Embedder, NameMatcher


@pytest.fixture(scope="module")
def menu():
    return Menu.load(paths.kb_files())


@pytest.mark.parametrize("said, name", [
    ("soft chicken taco", "Cantina Chicken Soft Taco"),
    ("crunchy tako", "Crunchy Taco"),
    ("baja blast freeze", "Mountain Dew Baja Blast® Freeze"),
    ("chiken quesadila", "Chicken Quesadilla"),
])
def test_real_names_are_corrected_by_the_embedding_stage_alone(menu, said, name):
    match = NameMatcher(menu).by_embedding([said], "item").get(said)
    assert match is not None and match.name == name and match.how == "embedding"


@pytest.mark.parametrize("said, name, how", [
    ("soft chicken taco", "Cantina Chicken Soft Taco", "alias"),
    ("crunchy tako", "Crunchy Taco", "lexical"),
    ("baja blast freeze", "Mountain Dew Baja Blast® Freeze", "alias"),
    ("cheesy bean burrito", "Cheesy Bean and Rice Burrito", "embedding"),
    ("Mexican Pizza", "Mexican Pizza", "exact"),
])
def test_the_cheapest_stage_that_knows_the_name_answers(menu, said, name, how):
    match = NameMatcher(menu).match(said, "item")
    assert (match.name, match.how) == (name, how)


@pytest.mark.parametrize("said", ["big mac", "whopper", "nacho fries", "large coke"])
def test_other_chains_items_are_not_on_the_menu(menu, said):
    assert NameMatcher(menu).match(said, "item") is None


def test_the_floor_refuses_a_similar_but_different_dish(menu):
    # with the Bean Burrito off the menu, "bean burrito" must not become another burrito with beans
    facts = {k: [row for row in rows if "Bean Burrito" not in row] for k, rows in menu.facts.items()}
    without = NameMatcher(Menu(facts, menu.files))
    candidates = [n for n in without.names("item") if "Bean" in n and "Burrito" in n]
    assert candidates  # there are candidates containing both words ...
    assert without.match("bean burrito", "item") is None  # ... and none is close enough in meaning


def test_name_embeddings_are_cached_on_disk(menu, tmp_path, monkeypatch):
    NameMatcher(menu, tmp_path).vectors("item")
    assert len(list(tmp_path.glob("names-*.npy"))) == 1
    calls = []
    original = Embedder.encode
    monkeypatch.setattr(Embedder, "encode", classmethod(lambda cls, texts: calls.append(texts) or original(texts)))
    names, vectors = NameMatcher(menu, tmp_path).vectors("item")
    assert calls == [] and vectors.shape[0] == len(names)
    shrunk = Menu({k: v for k, v in menu.facts.items() if k != "combo"}, menu.files)  # another menu: other key
    NameMatcher(shrunk, tmp_path).vectors("item")
    assert len(calls) == 1 and len(list(tmp_path.glob("names-*.npy"))) == 2


def test_ingredients_are_corrected_for_the_manager(menu):
    assert NameMatcher(menu).match("sour creme", "topping").name == "Reduced-Fat Sour Cream"
    assert NameMatcher(menu).match("unicorn meat", "topping") is None


def test_the_model_is_not_loaded_for_a_name_nothing_contains():
    code = ("from automanager import paths; from automanager.menu.model import Menu; "
            "from automanager.names import NameMatcher, Embedder; import sys; "
            "m = NameMatcher(Menu.load(paths.kb_files())); "
            "assert m.match('big mac', 'item') is None; "
            "print(Embedder.loaded(), 'sentence_transformers' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["False", "False"], result.stderr


def test_a_lookup_during_the_warm_up_waits_for_it_instead_of_loading_twice(monkeypatch):
    reads, started = [], threading.Event()

    class Model:
        def encode(self, texts, **options):
            return [len(t) for t in texts]

    def slow_read():
        started.set()
        time.sleep(0.3)
        reads.append(1)
        return Model()

    monkeypatch.setattr(Embedder, "_model", None)
    monkeypatch.setattr(Embedder, "_read_model", staticmethod(slow_read))
    Embedder.warm_in_background()
    started.wait(5)
    assert Embedder.encode(["taco"]) == [4]
    assert reads == [1]
