"""Name correction: exact, alias, lexical, then sentence embeddings with a floor."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

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


def test_the_thresholds_are_data_and_decide_between_taking_asking_and_saying_back(menu, monkeypatch):
    """matching.toml's floors: at or above order_floor a name is taken, between ask_floor and it the
    bot asks "Did you mean ...?", below ask_floor the words are said back; moving a floor in the data
    moves the same phrase from one band to the next."""
    from automanager import names

    shipped = tomllib.loads((Path(names.__file__).with_name("matching.toml")).read_text(encoding="utf-8"))
    assert (names.EMBEDDING_FLOOR, names.ASK_FLOOR) == (shipped["embedding"]["order_floor"],
                                                         shipped["embedding"]["ask_floor"])
    said = "steak burrito"  # holds the words of one breakfast burrito, not close enough in meaning
    match = NameMatcher(menu).match_many([said], "item", unsure=True)[0]
    assert match is not None and match.how == "unsure" and names.ASK_FLOOR <= match.score < names.EMBEDDING_FLOOR
    assert NameMatcher(menu).match(said, "item") is None  # asked about, never taken
    corrected: list = []
    assert NameMatcher(menu).lookup(said, "item", corrected) is None and corrected[-1][2] == "unsure"
    monkeypatch.setattr(names, "EMBEDDING_FLOOR", match.score - 0.01)
    assert NameMatcher(menu).match(said, "item").how == "embedding"  # a lower order floor: taken
    monkeypatch.setattr(names, "EMBEDDING_FLOOR", 0.99)
    monkeypatch.setattr(names, "ASK_FLOOR", match.score + 0.01)
    assert NameMatcher(menu).match_many([said], "item", unsure=True)[0] is None  # a higher ask floor: said back


def test_a_name_only_close_in_meaning_is_asked_about_and_a_yes_orders_it(tmp_path):
    from automanager.star import CustomerChat
    from automanager.store import Home

    chat = CustomerChat(Home(tmp_path))
    turn = chat.step("a steak burrito please")
    assert "Did you mean the Grande Toasted Breakfast Burrito Steak?" in turn.reply and chat.order() == []
    chat.step("yes")
    assert [u["item"] for u in chat.order()] == ["Grande Toasted Breakfast Burrito Steak"]
    chat = CustomerChat(Home(tmp_path / "other"))
    chat.step("a steak burrito please")
    chat.step("no")
    assert chat.order() == []


def test_name_embeddings_are_cached_on_disk(menu, tmp_path, monkeypatch):
    NameMatcher(menu, tmp_path).vectors("item")
    assert len(list(tmp_path.glob("names-*.npy"))) == 1
    calls = []
    original = Embedder.encode
    monkeypatch.setattr(Embedder, "encode", classmethod(lambda cls, texts: calls.append(texts) or original(texts)))
    names, vectors = NameMatcher(menu, tmp_path).vectors("item")
    # only the spot check of a few rows against the model (`faithful`), not every name
    assert [len(texts) for texts in calls] == [3] and vectors.shape[0] == len(names)
    shrunk = Menu({k: v for k, v in menu.facts.items() if k != "combo"}, menu.files)  # another menu: other key
    NameMatcher(shrunk, tmp_path).vectors("item")
    assert len(calls) == 2 and len(calls[1]) > 3 and len(list(tmp_path.glob("names-*.npy"))) == 2


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


def test_a_name_heard_without_its_first_syllable_is_asked_about_never_taken(menu):
    matcher = NameMatcher(menu)
    assert matcher.by_part(["rito", "supreme", "combo"], "item").name == "Burrito Supreme® Combo"  # "... a rito ..."
    assert matcher.match("rito supreme combo", "item") is None  # asked ("Did you mean ...?"), not ordered
    assert matcher.by_part(["ito", "supreme"], "item") is None  # three letters are too few to be a word's end
    assert matcher.holding(["rito", "supreme"], "item") is None  # the manager's names are never clipped
