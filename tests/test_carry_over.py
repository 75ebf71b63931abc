"""Mechanisms measured on fresh talk (shared/eval/FRESH.md), each tested in words of our own: a
food said to be fine as it is, talk words the menu lacks, a removal never carried into a change,
the combo's own dishes in a scenario's expectation, and the manager's stock news said with talk."""

from __future__ import annotations

from pathlib import Path

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


PIZZA = Path(__file__).parent.parent / "kb" / "packs" / "pizza"


@pytest.fixture
def pizza_home(tmp_path):
    return Home(tmp_path / "state", kb=PIZZA)


@pytest.mark.parametrize("line, wanted", [
    ("and a small um i mean large pepsi", [("Pepsi®", (("size", ("large",)),))]),
    ("three uh i mean four bean burritos", [("Bean Burrito", ())] * 4),
])
def test_a_word_put_right_before_the_food_is_named_corrects_that_word_only(home, line, wanted):
    chat = CustomerChat(home)
    say(chat, "a cheesy roll up", line)
    assert items(chat) == sorted([("Cheesy Roll Up", ()), *wanted])


def test_a_replacement_of_a_food_not_ordered_changes_nothing_and_offers_the_new_one(home):
    chat = CustomerChat(home)
    turn = say(chat, "a pepsi", "the bean burrito instead of the soft taco")[1]
    assert [u["item"] for u in chat.order()] == ["Pepsi®"] and "Soft Taco" in turn.reply
    say(chat, "yes")
    assert sorted(u["item"] for u in chat.order()) == ["Bean Burrito", "Pepsi®"]


def test_the_restaurants_own_name_is_never_a_food(home):
    chat = CustomerChat(home)
    say(chat, "hold on im at taco bell dad. ok two bean burritos")
    assert items(chat) == [("Bean Burrito", ())] * 2


def test_a_correction_naming_the_same_food_shorter_keeps_it(home):
    chat = CustomerChat(home)
    say(chat, "a steak quesadilla, sorry, just the one quesadilla")
    assert items(chat) == [("Steak Quesadilla", ())]


def test_a_name_and_an_option_value_that_make_another_name_are_that_item(home):
    chat = CustomerChat(home)
    say(chat, "two soft tacos supreme")
    assert items(chat) == [("Soft Taco Supreme®", ())] * 2
    say(chat, "whats on the crunchy taco", "ok one of the supreme ones")
    assert ("Crunchy Taco Supreme®", ()) in items(chat)


def test_the_kind_said_after_a_food_of_it_was_asked_about_is_that_food(home):
    chat = CustomerChat(home)
    say(chat, "how much is the beefy 5 layer burrito", "hmm what about the uh", "ok the burrito then")
    assert items(chat) == [("Beefy 5-Layer Burrito", ())]


def test_a_style_said_with_the_before_anything_is_ordered_orders_one(pizza_home):
    chat = CustomerChat(pizza_home)
    say(chat, "i think ill try the hawaiian")
    assert items(chat) == [("Pizza", (("style", ("hawaiian",)),))]


def test_what_is_on_a_specialty_says_its_own_toppings(pizza_home):
    chat = CustomerChat(pizza_home)
    turn = say(chat, "whats on the hawaiian pizza")[0]
    assert "Pineapple" in turn.reply and chat.order() == []


@pytest.mark.parametrize("first, again, out", [
    ("no more guacamole", "black beans too", ["Black Beans", "Guacamole"]),
    ("we're out of guacamole and black beans", "guac is back. black beans too", []),
])
def test_stock_news_said_again_of_another_food_the_next_turn(home, first, again, out):
    chat = ManagerChat(home)
    say(chat, first, again)
    assert home.stock_out() == out


@pytest.mark.parametrize("answer", ["no!! 2.19 my bad", "no, typo, should be 2.19", "nope its 2.19"])
def test_a_price_read_back_put_right_in_the_answer_is_that_price(home, answer):
    chat = ManagerChat(home)
    say(chat, "cheesy roll up is 21.9", answer, "yes", "save")  # 2.19 is read back too: over half again
    assert "$2.19" in say(CustomerChat(home), "how much is a cheesy roll up")[0].reply


def test_a_price_said_again_with_not_the_wrong_one_replaces_the_pending_change(home):
    chat = ManagerChat(home)
    say(chat, "the bean burrito is 1.69 now", "oops typo, bean burrito is 1.59 not 1.69", "save")
    assert "$1.59" in say(CustomerChat(home), "how much is the bean burrito")[0].reply


def test_a_new_limited_time_item_is_added_by_its_name(home):
    chat = ManagerChat(home)
    turn = say(chat, "new lto going live today, Smoky Pepper Melt")[0]
    assert "Smoky Pepper Melt" in turn.reply and "What kind of item" in turn.reply


def test_a_machine_down_for_foods_marks_those_foods_out(home):
    chat = ManagerChat(home)
    say(chat, "slush machine is down for the wild strawberry and the blue raspberry")
    assert home.stock_out() == ["Blue Raspberry Freeze", "Wild Strawberry Freeze"]


def test_an_expected_menu_fact_may_spell_a_word_argument_bare(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("""
- name: new-drink
  steps:
    - manager: add a new drink Mango Cooler, 2.19, 150 cal
    - manager: save
  expect:
    menu: ['category("Mango Cooler",drink)', 'original_price("Mango Cooler",219)']
""")
    (scenario,) = load_scenarios([path])
    result = run_scenario(scenario, root=tmp_path)
    assert result.passed, result.failures


def test_a_removal_then_just_a_new_food_orders_it(home):
    chat = CustomerChat(home)
    say(chat, "two pepsis", "scratch the pepsis, just a lemonade")
    assert [u["item"] for u in chat.order()] == ["Tropicana® Pink Lemonade"]


def test_what_stays_said_after_a_removal_by_its_topping_is_no_part_of_the_reference(pizza_home):
    chat = CustomerChat(pizza_home)
    say(chat, "a small ham pizza and a large veggie", "lose the ham one just the veggie")
    assert [u.get("size") for u in chat.order()] == [["large"]]


@pytest.mark.parametrize("line", ["make that italian sausage", "actually make it italian sausage"])
def test_a_topping_said_instead_takes_the_place_of_the_one_like_it(pizza_home, line):
    chat = CustomerChat(pizza_home)
    say(chat, "a small pizza with sausage and mushrooms", line)
    assert chat.order()[0]["add"] == ["Italian Sausage", "Mushrooms"]


def test_a_variant_said_by_its_word_is_ordered_or_replaces_the_one_just_ordered(home):
    chat = CustomerChat(home)
    say(chat, "a grande toasted breakfast burrito", "and two of the steak ones")
    assert sorted(u["item"] for u in chat.order()) == ["Grande Toasted Breakfast Burrito"] + \
        ["Grande Toasted Breakfast Burrito Steak"] * 2
    other = CustomerChat(Home(home.root.parent / "other"))
    say(other, "a chalupa supreme", "oh wait the chicken one")
    assert [u["item"] for u in other.order()] == ["Chicken Chalupa Supreme"]


def test_a_count_then_a_name_said_loosely_before_another_name(home):
    chat = CustomerChat(home)
    say(chat, "three beefy five layers a soft taco")
    assert sorted(u["item"] for u in chat.order()) == ["Beefy 5-Layer Burrito"] * 3 + ["Soft Taco"]


def test_talk_of_ones_own_eating_and_a_question_to_the_car_order_nothing(home):
    chat = CustomerChat(home)
    say(chat, "trying to be healthier this month so a power menu bowl")
    say(chat, "sweetie which one do you want, the nachos or the tacos? ok and a bean burrito")
    assert sorted(u["item"] for u in chat.order()) == ["Bean Burrito", "Power Menu Bowl"]


def test_switch_the_x_to_y_replaces_x_even_said_in_part(home):
    chat = CustomerChat(home)
    say(chat, "a cheesy roll up and a pepsi", "hmm switch the roll up to a hash brown")
    assert sorted(u["item"] for u in chat.order()) == ["Hash Brown", "Pepsi®"]


def test_make_one_of_those_a_variant_of_their_kind(home):
    chat = CustomerChat(home)
    say(chat, "three wild strawberry freezes", "make one of those cherry twilight")
    assert sorted(u["item"] for u in chat.order()) == ["Cherry Twilight Freeze"] + ["Wild Strawberry Freeze"] * 2


def test_the_food_just_rung_up_said_again_with_then_is_asked_not_added(home):
    chat = CustomerChat(home)
    say(chat, "a large sprite")  # rung up as the menu's lemon-lime drink
    turn = say(chat, "ok a large sierra mist then")[0]
    assert len(chat.order()) == 1 and "?" in turn.reply


def test_a_drink_kind_said_with_a_volume_gives_the_volume_to_the_drinks_named_next(pizza_home):
    chat = CustomerChat(pizza_home)
    say(chat, "two 2 liter sodas", "a coke and a sprite")
    assert sorted((u["item"], tuple(u.get("volume", []))) for u in chat.order()) == \
        [("Coke", ("2 liter",)), ("Sprite", ("2 liter",))]


def test_a_dish_said_with_an_ingredient_it_never_takes_is_offered_not_rung_up(home):
    chat = CustomerChat(home)
    turn = say(chat, "two cheese quesadillas with potato bites")[0]
    assert chat.order() == [] and "?" in turn.reply
    say(chat, "sure")
    assert items(chat) == [("Cheese Quesadilla", ())] * 2


def test_two_names_said_short_back_to_back_are_one_name_the_menu_lacks(home):
    say(ManagerChat(home), "take the black bean chalupa off the menu", "yes", "save")
    chat = CustomerChat(home)
    turn = say(chat, "a black bean chalupa please")[0]
    assert chat.order() == [] and "black bean chalupa" in turn.reply.lower()


def test_a_yes_to_the_food_asked_about_with_a_change_orders_it_changed(pizza_home):
    chat = CustomerChat(pizza_home)
    say(chat, "whats on the hawaiian pizza", "could i do that but without the ham")
    assert items(chat) == [("Pizza", (("no", ("Ham",)), ("style", ("hawaiian",))))]


def test_a_question_of_the_same_food_keeps_the_value_it_was_asked_with(pizza_home):
    chat = CustomerChat(pizza_home)
    say(chat, "whats on the hawaiian pizza")
    assert "Pineapple" in say(chat, "does it have ham on it")[0].reply


def test_a_count_with_a_shared_value_then_its_units_one_by_one(pizza_home):
    chat = CustomerChat(pizza_home)
    say(chat, "we need three small ones, one with ham, one with onions and one with nothing")
    assert sorted(str(u.get("add")) for u in chat.order()) == ["None", "['Ham']", "['Onions']"]
    assert all(u["item"] == "Pizza" and u["size"] == ["small"] for u in chat.order())


def test_a_food_said_fine_then_a_size_for_it(home):
    chat = CustomerChat(home)
    say(chat, "a mountain dew and a bean burrito", "the mountain dew's fine. make it a large")
    assert items(chat) == [("Bean Burrito", ()), ("Mountain Dew®", (("size", ("large",)),))]


def test_one_more_then_the_total_is_the_total(home):
    chat = CustomerChat(home)
    say(chat, "a bean burrito and a pepsi", "one more bean burrito, so two bean burritos altogether")
    assert sorted(u["item"] for u in chat.order()) == ["Bean Burrito", "Bean Burrito", "Pepsi®"]


def test_an_ingredient_swapped_that_makes_another_item_is_that_item(home):
    chat = CustomerChat(home)
    say(chat, "a chicken quesadilla", "can you do that quesadilla with steak instead of chicken")
    assert items(chat) == [("Steak Quesadilla", ())]
    other = CustomerChat(Home(home.root.parent / "other"))
    say(other, "a bean burrito with black beans instead of refried beans")  # no such burrito: a swap
    assert [u["item"] for u in other.order()] == ["Bean Burrito"]


def test_a_combo_said_short_with_its_count_is_that_combo(home):
    chat = CustomerChat(home)
    say(chat, "the two chicken chalupas combo please")
    assert [u["item"] for u in chat.order()] == ["2 Chicken Chalupas Supreme Combo"]


def test_a_drink_named_in_the_answer_to_its_size_question_is_that_drink(pizza_home):
    chat = CustomerChat(pizza_home)
    say(chat, "a ham pizza and a sprite", "that's it", "a large pizza and a small sprite")
    assert items(chat) == [("Pizza", (("add", ("Ham",)), ("size", ("large",)))), ("Sprite", (("size", ("small",)),))]


@pytest.mark.parametrize("line", ["no more steak til the next delivery", "out of steak, more in like 30 min"])
def test_when_a_food_comes_back_is_talk_beside_its_runout(home, line):
    say(ManagerChat(home), line)
    assert home.stock_out() == ["Steak"]


def test_a_new_promo_item_said_with_its_kind(home):
    turn = say(ManagerChat(home), "new lto burrito starting monday, Chipotle Crunch Burrito")[0]
    assert "category burrito" in turn.reply and "Chipotle Crunch Burrito" in turn.reply


def test_a_value_said_after_a_unit_of_one_describes_that_unit(pizza_home):
    chat = CustomerChat(pizza_home)
    say(chat, "i think i'll try the hawaiian, a large")
    assert items(chat) == [("Pizza", (("size", ("large",)), ("style", ("hawaiian",))))]


def test_the_restaurants_name_said_in_part_is_never_a_food(home):
    chat = CustomerChat(home)
    say(chat, "hi is this the taco place on fifth. two soft tacos please")
    assert items(chat) == [("Soft Taco", ())] * 2


def test_no_wait_before_a_new_count_is_the_cue_of_that_count(home):
    chat = CustomerChat(home)
    say(chat, "three pepsis", "no wait make it two pepsis and a sierra mist")
    assert sorted(u["item"] for u in chat.order()) == ["Pepsi®", "Pepsi®", "Sierra Mist®"]


def test_when_the_truck_comes_is_talk_beside_a_runout(home):
    say(ManagerChat(home), "no steak till the truck at 3")
    assert home.stock_out() == ["Steak"]


def test_the_next_car_reads_talk_without_embedding_the_examples_again(home, monkeypatch):
    from automanager.names import Embedder

    CustomerChat(home).turn("a soft taco for pickup, I suppose")  # talk beside an order: the examples embedded
    embedded: list[int] = []
    encode = Embedder.encode
    monkeypatch.setattr(Embedder, "encode", classmethod(lambda cls, texts: embedded.append(len(texts)) or encode(texts)))
    CustomerChat(home).turn("a crunchy taco for pickup, I suppose")  # the next car of the lane: a new chat
    assert embedded and max(embedded) == 1  # only what was said, never the hundreds of examples again
