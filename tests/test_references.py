"""References, copies and combo choices through the customer chat (offline backend): what the
order ends up holding after each way of pointing back at it."""

from __future__ import annotations

import pytest

from automanager.star import CustomerChat
from automanager.store import Home


@pytest.fixture
def chat(tmp_path):
    return CustomerChat(Home(tmp_path / "state"))


def say(chat, *lines):
    return [chat.turn(line) for line in lines]


def items(chat):
    return [(u["item"], {k: v for k, v in u.items() if k != "item"}) for u in chat.order()]


def confirms(turn, kind):
    return [args[1:] for args in turn.actions.get("confirm", []) if args[0] == kind]


def test_em_and_them_both_are_every_unit_just_ordered(chat):
    say(chat, "two soft tacos", "hold the lettuce on em")
    assert items(chat) == [("Soft Taco", {"no": ["Iceberg Lettuce"]})] * 2
    say(chat, "a mountain dew and a pepsi", "can you make them both large")
    assert [u.get("size") for u in chat.order()[2:]] == [["large"], ["large"]]


def test_the_steak_one_picks_the_unit_by_a_word_of_its_name(chat):
    say(chat, "a steak quesadilla and a cheese quesadilla", "extra sour cream on the steak one please")
    assert items(chat)[0][1] == {"extra": ["Reduced-Fat Sour Cream"]} and items(chat)[1][1] == {}


def test_a_change_fitting_two_kinds_is_asked_and_the_answer_applies_it(chat):
    t = say(chat, "one crunchy taco and one soft taco", "no lettuce on my taco")[1]
    assert confirms(t, "which_one") and items(chat) == [("Crunchy Taco", {}), ("Soft Taco", {})]
    say(chat, "the crunchy one")
    assert items(chat) == [("Crunchy Taco", {"no": ["Iceberg Lettuce"]}), ("Soft Taco", {})]


def test_an_answer_to_which_one_never_orders_another_unit(chat):
    say(chat, "one crunchy taco and one soft taco", "put guacamole on the taco", "soft")
    assert items(chat) == [("Crunchy Taco", {}), ("Soft Taco", {"add": ["Guacamole"]})]


def test_a_copy_with_a_change_leaves_the_first_unit_as_it_was(chat):
    say(chat, "a chicken quesadilla with extra cheese", "and one more, the same but no jalapeno sauce")
    assert items(chat) == [("Chicken Quesadilla", {"extra": ["Three Cheese Blend"]}),
                           ("Chicken Quesadilla", {"extra": ["Three Cheese Blend"], "no": ["Creamy Jalapeno Sauce"]})]


def test_double_that_copies_each_unit_of_the_food_once(chat):
    say(chat, "three bean burritos, one without onions", "actually can you double that")
    assert len(items(chat)) == 6 and sum(1 for _, d in items(chat) if d == {"no": ["Onions"]}) == 2


def test_taking_one_off_and_naming_another_replaces_it(chat):
    say(chat, "a beefy 5-layer burrito and a mountain dew", "forget the mountain dew, I meant a sierra mist")
    assert [i for i, _ in items(chat)] == ["Beefy 5-Layer Burrito", "Sierra Mist®"]


def test_n_with_a_change_after_more_units_splits_the_line(chat):
    say(chat, "four crunchy tacos, three with no lettuce")
    assert sorted(str(d) for _, d in items(chat)) == ["{'no': ['Iceberg Lettuce']}"] * 3 + ["{}"]


def test_a_persons_unit_is_one_of_them(chat):
    say(chat, "two chalupa supremes", "she wants hers without tomatoes")
    assert sorted(str(d) for _, d in items(chat)) == ["{'no': ['Tomatoes']}", "{}"]


def test_a_variant_named_with_its_word_is_the_menus_own_food(chat):
    say(chat, "can I get the potato cheesy toasted breakfast burrito")
    assert items(chat) == [("Cheesy Toasted Breakfast Burrito Potato", {})]


def test_a_word_before_a_name_that_makes_another_name_is_that_food(chat):
    say(chat, "one veggie power menu bowl please")
    assert items(chat) == [("Power Menu Bowl - Veggie", {})]


def test_switching_a_combos_choice_changes_the_choice_not_the_order(chat):
    say(chat, "a cravings box with a chalupa supreme", "could you switch the chalupa to a cheesy gordita crunch")
    (box, details), = items(chat)
    assert box == "My Cravings Box" and any("Cheesy Gordita Crunch" in c for c in details["choice"])
    assert not any("Chalupa Supreme" in c for c in details["choice"])


def test_drinks_named_for_ordered_combos_are_their_choices(chat):
    say(chat, "two crunchwrap supreme combos", "drinks for those: a pepsi and a sierra mist")
    assert [i for i, _ in items(chat)] == ["Crunchwrap Supreme® Combo"] * 2
    assert sorted(d["choice"][0] for _, d in items(chat)) == ['("Drink",1,"Pepsi®")', '("Drink",1,"Sierra Mist®")']


def test_what_about_after_a_price_question_asks_a_price(chat):
    t = say(chat, "how much is a bean burrito", "and what about a chicken quesadilla?")[1]
    assert items(chat) == [] and "$" in t.reply


def test_some_of_the_units_ordered_change_and_none_is_added(chat):
    say(chat, "ten soft tacos", "put black beans instead of beef on 4 of the soft tacos")
    changed = [d for _, d in items(chat) if d]
    assert len(items(chat)) == 10 and len(changed) == 4


def test_a_pack_said_before_the_name_is_the_pack_on_the_menu(chat):
    say(chat, "one 12 pack of cinnabon delights")
    assert items(chat) == [("Cinnabon Delights® 12 Pack", {})]


def test_a_dozen_of_a_food_sold_by_the_dozen_is_that_pack(chat):
    t = say(chat, "what does a dozen cinnabon delights cost", "sure, one dozen")
    assert "5.29" in t[0].reply and items(chat) == [("Cinnabon Delights® 12 Pack", {})]


def test_them_is_the_units_the_last_turn_ordered_that_can_take_it(chat):
    say(chat, "a crunchy taco", "a pepsi and a sierra mist", "actually make those large")
    assert items(chat) == [("Crunchy Taco", {}), ("Pepsi®", {"size": ["large"]}), ("Sierra Mist®", {"size": ["large"]})]


def test_a_removal_fitting_two_kinds_is_asked_and_the_answer_takes_that_one_off(chat):
    t = say(chat, "a beefy 5-layer burrito and a bean burrito", "drop the burrito")[1]
    assert confirms(t, "which_one") and len(items(chat)) == 2
    say(chat, "the beefy one")
    assert items(chat) == [("Bean Burrito", {})]


def test_an_answer_to_which_of_a_kind_is_never_read_as_a_topping_on_the_order(chat):
    """After "Which burrito would you like?", a content word that is also a topping ('bean') names
    the burrito that is that word and the kind's; words two burritos share are asked about."""
    say(chat, "three crunchy tacos please", "and uh some burritos")
    again = say(chat, "the black bean one")[0]
    assert "Which one would you like: the Black Bean Crunchwrap Supreme® or the Black Bean Quesarito?" in again.reply
    assert items(chat) == [("Crunchy Taco", {})] * 3
    say(chat, "the bean one")
    assert items(chat) == [("Crunchy Taco", {})] * 3 + [("Bean Burrito", {})]


def test_the_drink_of_two_different_drinks_is_asked_and_a_word_answers(chat):
    t = say(chat, "a pepsi and a mountain dew", "make the drink large")[1]
    assert confirms(t, "which_one") and all("size" not in u for u in chat.order())
    say(chat, "the dew pls")
    assert [u.get("size") for u in chat.order()] == [None, ["large"]]


def test_the_food_of_alike_units_changes_them_all_and_of_different_ones_is_asked(chat):
    say(chat, "two bean burritos", "no onions on the burrito")
    assert items(chat) == [("Bean Burrito", {"no": ["Onions"]})] * 2
    t = say(chat, "a large pepsi", "a regular pepsi", "take the pepsi off")[-1]
    assert confirms(t, "which_one") and len(chat.order()) == 4
    say(chat, "the large")
    assert [u.get("size") for u in chat.order()[2:]] == [["regular"]]


def test_one_of_those_but_a_size_adds_a_copy_and_keeps_the_first(chat):
    say(chat, "a large mountain dew", "one of those but small")
    assert [u.get("size") for u in chat.order()] == [["large"], ["regular"]]


def test_places_said_as_numbers_the_middle_and_the_first_few(chat):
    say(chat, "a soft taco, a crunchy taco and a bean burrito", "no lettuce on the middle one")
    assert items(chat)[1] == ("Crunchy Taco", {"no": ["Iceberg Lettuce"]}) and items(chat)[0][1] == {}
    say(chat, "add guac to the 3rd one")
    assert items(chat)[2] == ("Bean Burrito", {"add": ["Guacamole"]})
    say(chat, "on the first two add hot sauce")
    assert [d.get("add") for _, d in items(chat)] == [["Hot Sauce"], ["Hot Sauce"], ["Guacamole"]]


def test_one_of_those_after_a_suggestion_is_the_food_suggested_not_a_copy(chat):
    say(chat, "a chicken quesadilla", "can you recommend a side?", "ok add one of those")
    assert [f for f, _ in items(chat)][0] == "Chicken Quesadilla" and len(items(chat)) == 2
    assert items(chat)[1][0] != "Chicken Quesadilla"


def test_one_with_x_and_one_with_y_are_the_units_in_the_order_said(chat):
    say(chat, "two soft tacos, one with guac and one with sour cream", "no lettuce on the first one")
    assert items(chat) == [("Soft Taco", {"add": ["Guacamole"], "no": ["Iceberg Lettuce"]}),
                           ("Soft Taco", {"add": ["Reduced-Fat Sour Cream"]})]


def test_a_place_in_the_order_right_after_a_name_not_on_the_menu_is_asked_never_guessed(chat):
    first, = say(chat, "a soft taco, a crunchy taco and a zorblax taco")
    assert "isn't on our menu" in first.reply
    asked, = say(chat, "the last one with guacamole")  # the customer counts the taco never rung up
    assert "Which one do you mean" in asked.reply and all(not extra for _, extra in items(chat))
    say(chat, "the crunchy one")
    assert items(chat) == [("Soft Taco", {}), ("Crunchy Taco", {"add": ["Guacamole"]})]
    say(chat, "a pepsi and a mountain dew", "make the last one large")  # nothing unknown before: taken
    assert items(chat)[-1] == ("Mountain Dew®", {"size": ["large"]})
