"""Mechanisms measured on fresh talk (shared/eval/FRESH.md), each tested in words of our own: a
food said to be fine as it is, talk words the menu lacks, a removal never carried into a change,
the combo's own dishes in a scenario's expectation, and the manager's stock news said with talk."""

from __future__ import annotations

import pytest

from automanager.evaluation.runner import run_scenario
from automanager.evaluation.scenario import load_scenarios
from automanager.language.food_sense import FoodSense, english
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home


@pytest.fixture
def home(tmp_path):
    return Home(tmp_path / "state")


def say(chat, *lines):
    return [chat.turn(line) for line in lines]


def items(chat):
    return sorted((u["item"], tuple(sorted((k, tuple(v)) for k, v in u.items() if k != "item"))) for u in chat.order())


@pytest.mark.parametrize("answer", ["no, the burritos are fine", "nah those are good the way they are",
                                    "no the bean ones are normal", "it's good as is"])
def test_a_food_said_fine_as_it_is_answers_no_and_changes_nothing(home, answer):
    chat = CustomerChat(home)
    say(chat, "two bean burritos and a pepsi", "that's all")
    before = items(chat)
    turn = say(chat, answer)[0]
    assert items(chat) == before and "off your order" not in turn.reply


def test_a_size_said_with_fine_is_still_read_as_a_size(home):
    chat = CustomerChat(home)
    say(chat, "a pepsi", "that's all", "large is fine")
    assert chat.order()[0].get("size") == ["large"]


def test_talk_words_the_menu_lacks_do_not_hold_back_a_clear_order(home):
    chat = CustomerChat(home)
    say(chat, "two crunchy tacos for the drive home i reckon")
    assert items(chat) == [("Crunchy Taco", ())] * 2


def test_a_food_the_menu_lacks_is_said_back_and_a_typo_is_never_talk(home):
    chat = CustomerChat(home)
    turn = say(chat, "a soft taco and some mozzarella sticks")[0]
    assert "mozzarella sticks" in turn.reply.lower() and items(chat) == [("Soft Taco", ())]
    sense = FoodSense(["Soft Taco"])
    assert not english("oniuns") and not sense.talk(["oniuns"])  # maybe a name said wrong: asked, never dropped
    assert sense.talk(["commute"]) and not sense.talk(["milkshake"]) and not sense.talk(["crispy"])


def test_a_change_said_after_a_removal_is_asked_never_a_removal_of_its_food(home):
    chat = CustomerChat(home)
    say(chat, "a bean burrito and a large pepsi", "and a large lemonade")
    turn = say(chat, "drop the lemonade, then make it two large pepsis")[0]
    assert "?" in turn.reply
    assert sorted(u["item"] for u in chat.order()).count("Pepsi®") == 1  # nothing made before the yes


def test_a_combos_own_dishes_may_be_listed_among_its_choices(tmp_path):
    path = tmp_path / "combo.yaml"
    path.write_text("- name: own-dishes\n  steps:\n    - customer: a chicken quesadilla combo with a diet pepsi\n"
                    "  expect:\n    order:\n      - {item: Chicken Quesadilla Combo, choices: [Chicken Quesadilla, Diet Pepsi]}\n"
                    "- name: one-style\n  steps:\n    - customer: a pepsi\n  expect:\n    order:\n"
                    "      - {item: Pepsi, style: large}\n")
    results = [run_scenario(s, root=tmp_path) for s in load_scenarios([path])]
    assert results[0].passed and not results[1].passed  # a lone style is a list of one, and still checked


@pytest.mark.parametrize("line, out", [
    ("delivery was short today, no guac", "Guacamole"),
    ("the espresso machine is broke, no iced coffee", "Regular Iced Coffee"),
    ("no sour cream till tmrw", "Reduced-Fat Sour Cream"),
    ("we're out of nacho cheese, more comes in an hour", "Nacho Cheese Sauce"),
])
def test_stock_news_said_with_talk_marks_the_food_out(home, line, out):
    chat = ManagerChat(home)
    say(chat, line)
    assert out in home.stock_out()


def test_a_size_one_completes_the_unit_just_ordered_without_one_and_is_another_after_it(home):
    chat = CustomerChat(home)
    say(chat, "a mountain dew", "a large one")  # the dew had no size: it is that one's
    assert [u.get("size") for u in chat.order()] == [["large"]]
    other = CustomerChat(Home(home.root.parent / "other"))
    say(other, "a regular mountain dew", "a large one")  # it had one: another dew
    assert sorted(str(u.get("size")) for u in other.order()) == ["['large']", "['regular']"]


def test_an_article_after_talk_orders_a_new_unit_the_possessive_of_talk_is_no_reference(home):
    chat = CustomerChat(home)
    say(chat, "a large pepsi", "my brother wants a regular pepsi")
    assert sorted(str(u.get("size")) for u in chat.order()) == ["['large']", "['regular']"]


def test_the_food_on_the_order_said_again_with_the_is_asked_never_added(home):
    chat = CustomerChat(home)
    say(chat, "a chicken quesadilla")
    turn = say(chat, "ok so the chicken quesadilla and a sprite")[0]
    assert "?" in turn.reply and [u["item"] for u in chat.order()] == ["Chicken Quesadilla"]


def test_a_no_before_just_answers_and_keeps_what_it_names(home):
    chat = CustomerChat(home)
    say(chat, "two soft tacos", "that's all", "nah, only lettuce")
    assert all("no" not in u for u in chat.order())  # never "no lettuce"


def test_a_name_said_in_part_is_the_one_name_holding_the_words(home):
    from automanager.names import NameMatcher

    names = NameMatcher(CustomerChat(home).menu)
    assert names.match("locos tacos supreme nacho", "item").name == "Nacho Cheese Doritos® Locos Tacos Supreme®"
    assert names.match("supreme combo", "item") is None or names.match("supreme combo", "item").how != "lexical"


def test_a_correction_to_a_name_said_in_part_moves_the_change(home):
    chat = ManagerChat(home)
    say(chat, "nacho cheese doritos locos tacos to 2.29", "sorry i meant the nacho locos tacos supreme")
    staged = str(chat.staged())
    assert "Supreme" in staged and "229" in staged


@pytest.mark.parametrize("line, out", [
    ("the taco shell warmer is broke, no taco shells", "Taco Shells"),
    ("delivery shorted us on chalupa flatbread", "Chalupa Flatbread"),
])
def test_equipment_and_short_deliveries_are_why_not_what(home, line, out):
    chat = ManagerChat(home)
    say(chat, line)
    assert home.stock_out() == [out]


def test_a_replacement_said_make_that_x_a_y_replaces(home):
    chat = CustomerChat(home)
    say(chat, "a cheesy roll up and a pepsi", "actually make that pepsi a sierra mist")
    assert sorted(u["item"] for u in chat.order()) == ["Cheesy Roll Up", "Sierra Mist®"]


def test_a_stock_question_said_with_a_tag_orders_nothing(home):
    chat = CustomerChat(home)
    turn = say(chat, "you guys still got the cheesy roll up right")[0]
    assert chat.order() == [] and "Cheesy Roll Up" in turn.reply


def test_a_new_item_introduced_by_its_category_and_a_drink_asked_no_ingredients(home):
    chat = ManagerChat(home)
    say(chat, "limited time offer starting monday, add a new drink Mango Cooler, 2.19, 150 cal", "save")
    customer = CustomerChat(home)
    say(customer, "a mango cooler")
    assert [u["item"] for u in customer.order()] == ["Mango Cooler"]


def test_a_pack_said_in_words_before_of_the_name_is_that_pack(home):
    chat = CustomerChat(home)
    say(chat, "and the twelve pack of the cinnabon delights")
    assert [u["item"] for u in chat.order()] == ["Cinnabon Delights® 12 Pack"]


def test_no_thats_good_answers_the_toppings_question(home):
    chat = CustomerChat(home)
    say(chat, "a soft taco", "that's all")
    turn = say(chat, "no thats good")[0]
    assert "didn't catch" not in turn.reply and chat.order() == [{"item": "Soft Taco"}]


def test_talk_partly_made_of_talk_words_is_judged_as_a_whole(home):
    chat = CustomerChat(home)
    say(chat, "a cheesy roll up for the drive back to work")
    assert [u["item"] for u in chat.order()] == ["Cheesy Roll Up"]
