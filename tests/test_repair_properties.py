"""Properties of corrections and of words the menu lacks, through whole customer turns on both
menu packs (hypothesis, derandomized for CI): a misunderstanding is never rung up as something
the customer did not say."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from automanager import paths
from automanager.star import CustomerChat
from automanager.store import Home

PACKS = {"shipped": None, "pizza": paths.pack_dir("pizza")}
SETTINGS = settings(max_examples=60, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
REPAIRS = ["{x}, no wait, {y}", "{x}, actually make it {y}", "{x}, sorry, I mean {y}", "{x}, I meant {y}",
           "{x}, oh no wait, make that {y}", "{x}, uh no, {y}", "{x} or rather {y}"]
# no vowels: a word no menu name comes close to
NONSENSE = st.text(alphabet="bcdfgkqvxz", min_size=4, max_size=8)


@pytest.fixture(scope="module", params=list(PACKS))
def home(request, tmp_path_factory):
    return Home(tmp_path_factory.mktemp(request.param), PACKS[request.param])


def chat(home: Home) -> CustomerChat:
    return CustomerChat(home)


def plain_foods(menu) -> list[str]:
    """Foods said alone with an article: no combos (their choices are asked), no names holding
    a comma or "and" (said in a list they read as two)."""
    return sorted(f for f in menu.items if f not in menu.combos and "," not in f and " and " not in f.lower()
                  and " & " not in f)


def units(c: CustomerChat) -> list[dict]:
    return c.order()


def a_dish_with_ingredients(home: Home, data) -> tuple[CustomerChat, str]:
    """A new customer, and a dish that comes with something."""
    c = chat(home)
    return c, data.draw(st.sampled_from([d for d in plain_foods(c.menu) if c.menu.included(d)]))


@SETTINGS
@given(data=st.data())
def test_an_unknown_word_next_to_a_name_never_orders_another_dish(home, data):
    c = chat(home)
    food = data.draw(st.sampled_from(plain_foods(c.menu)))
    word = data.draw(NONSENSE)
    head = food.lower().replace("®", "").replace("™", "").split()[-1]
    said = data.draw(st.sampled_from([f"a {word} {food}", f"a {word} {head}", f"a {food} and a {word} {head}"]))
    c.step(said)
    named = {food} if f"{word} {head}" not in said or said.startswith(f"a {food} ") else set()
    ordered = {u["item"] for u in units(c)}
    assert ordered <= named, (said, ordered)


@SETTINGS
@given(data=st.data())
def test_a_correction_ends_with_the_new_food_and_without_the_old(home, data):
    c = chat(home)
    foods = plain_foods(c.menu)
    old = data.draw(st.sampled_from(foods))
    new = data.draw(st.sampled_from([f for f in foods if f != old]))
    assume(old.lower() not in new.lower() and new.lower() not in old.lower())
    said = data.draw(st.sampled_from(REPAIRS)).format(x=f"a {old}", y=f"a {new}")
    c.step(said)
    ordered = [u["item"] for u in units(c)]
    assert ordered == [new], (said, ordered)


@SETTINGS
@given(data=st.data())
def test_taking_an_ingredient_off_never_adds_it(home, data):
    c, dish = a_dish_with_ingredients(home, data)
    topping = data.draw(st.sampled_from(sorted(c.menu.toppings)))
    c.step(f"a {dish}")
    line = data.draw(st.sampled_from(["take the {t} off that", "can you take the {t} off it", "no {t} on that",
                                      "hold the {t} on it please", "leave the {t} off"]))
    c.step(line.format(t=topping))
    for unit in units(c):
        assert topping not in unit.get("add", []) and topping not in unit.get("extra", []), (line, unit)


@SETTINGS
@given(data=st.data())
def test_no_extra_never_makes_it_extra(home, data):
    c, dish = a_dish_with_ingredients(home, data)
    own = data.draw(st.sampled_from(sorted(c.menu.included(dish))))
    line = data.draw(st.sampled_from(["a {d}, no extra {t}", "a {d} without the extra {t}", "a {d} with no extra {t}",
                                      "a {d} but not extra {t} please"]))
    said = line.format(d=dish, t=own)
    c.step(said)
    for unit in units(c):
        assert own not in unit.get("extra", []), (said, unit)
