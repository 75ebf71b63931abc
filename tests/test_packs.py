"""Menu packs: the pizza shop's menu file builds into a checked KB, both chats work on it, the
options (sizes, crusts, styles, containers, volumes) are KB data, and the PIZZA benchmark
command scores hand-written lines in the dataset's format (tests/data/pizza, written by us)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automanager import paths
from automanager.cli import app
from automanager.evaluation.nlu import parse_exr
from automanager.menu.build import BuildError, build_kb
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home

REPO = Path(__file__).resolve().parent.parent
PIZZA = REPO / "kb" / "packs" / "pizza"
runner = CliRunner()


@pytest.fixture
def pizza(monkeypatch):
    monkeypatch.setenv("AUTOMANAGER_KB", str(PIZZA))


def chat_with(home: Path) -> CustomerChat:
    return CustomerChat(Home(home))


def test_the_pizza_pack_is_built_from_its_menu_file_and_passes_the_integrity_check():
    assert runner.invoke(app, ["kb", "build", "--check", "--kb", str(PIZZA)]).exit_code == 0
    checked = runner.invoke(app, ["kb", "check", "--kb", str(PIZZA)])
    assert checked.exit_code == 0 and "no integrity violations" in checked.output


@pytest.mark.parametrize("change, problem", [
    (('"Pizza Dough"', '"Pizza Dogh"'), "'Pizza Dough' is not in [ingredients]"),
    # sourdough has no price of its own: renaming a priced value would leave its price naming no value
    (('"keto crust", "sourdough crust"', '"keto crust", "cracker crust"'), "option crust 'cracker crust' is not declared"),
    (('default = "medium"\n[categories.pizza.options.crust]', 'default = "jumbo"\n[categories.pizza.options.crust]'),
     "default 'jumbo' is not one of its size values"),
])
def test_a_mistake_in_a_menu_file_is_refused_with_what_to_fix(tmp_path, change, problem):
    text = (PIZZA / "menu.toml").read_text(encoding="utf-8")
    assert change[0] in text
    (tmp_path / "menu.toml").write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        build_kb(tmp_path)
    assert problem in str(caught.value)


def test_a_pizza_order_uses_the_packs_options_and_prices(pizza, tmp_path):
    chat = chat_with(tmp_path)
    turn = chat.turn("two large thin crust pizzas with pepperoni and extra cheese, and a coke in a bottle")
    pizzas = [u for u in turn.order if u["item"] == "Pizza"]
    assert len(pizzas) == 2 and pizzas[0] == {"item": "Pizza", "add": ["Pepperoni"], "extra": ["Cheese"],
                                              "crust": ["thin crust"], "size": ["large"]}
    assert {"item": "Coke", "container": ["bottle"]} in turn.order
    priced = chat.review()
    pizza_price = 1399 + 300 + 175 + 100  # base (medium), large, pepperoni, extra cheese: menu.toml
    assert sorted(p for _, food, p in priced["check"] if food == "Pizza") == [pizza_price, pizza_price]
    assert priced["total"][0][0] == 2 * pizza_price + 249 + 50  # the bottle costs 50 cents more


def test_the_assistant_asks_the_packs_own_questions_then_prices(pizza, tmp_path):
    chat = chat_with(tmp_path)
    chat.turn("a pizza with mushrooms")
    size = chat.turn("that's all")
    assert size.reply.startswith("What size would you like for your Pizza: personal, lunch size, small, medium")
    done = chat.turn("large")
    assert done.actions["mode"] == [("check",)]
    assert "a large Pizza (with Mushrooms) at $18.24" in done.reply  # 13.99 + 3.00 large + 1.25 mushrooms


def test_a_pack_that_asks_for_the_crust_asks_it_after_the_size_and_defaults_it(tmp_path, monkeypatch):
    pack = tmp_path / "pack"
    pack.mkdir()
    text = (PIZZA / "menu.toml").read_text(encoding="utf-8")
    assert 'ask_questions = ["size", "toppings"]' in text
    (pack / "menu.toml").write_text(text.replace('ask_questions = ["size", "toppings"]',
                                                 'ask_questions = ["size", "crust"]'), encoding="utf-8")
    menu, _ = build_kb(pack)
    (pack / "menu.lp").write_text(menu, encoding="utf-8")
    monkeypatch.setenv("AUTOMANAGER_KB", str(pack))
    chat = chat_with(tmp_path / "home")
    chat.turn("a small pizza")
    crust = chat.turn("that's it")
    assert crust.reply.startswith("What crust would you like for your Pizza: thin crust, thick crust, deep dish")
    chat.turn("hmm")
    settled = chat.turn("hmm")  # asked twice without an answer, then the default is said aloud
    assert "I'll make that a new york style." in settled.reply and settled.actions["mode"] == [("check",)]
    assert chat.order() == [{"item": "Pizza", "size": ["small"], "crust": ["new york style"]}]


def test_a_runout_reported_by_the_manager_is_refused_to_the_next_pizza_customer(pizza, tmp_path):
    home = Home(tmp_path)
    manager = ManagerChat(home)
    assert "Pepperoni" in manager.turn("we're out of pepperoni").reply
    customer = CustomerChat(home)
    turn = customer.turn("a large pizza with pepperoni and olives")
    assert {"item": "Pizza", "add": ["Olives"], "size": ["large"]} in turn.order
    assert "run out of Pepperoni" in turn.reply


def test_a_style_out_of_one_of_its_ingredients_is_refused_naming_it_until_restored(pizza, tmp_path):
    home = Home(tmp_path)
    ManagerChat(home).turn("no more pineapple today")
    customer = CustomerChat(home)
    customer.turn("a supreme pizza")
    refused = customer.turn("plus one large hawaiian pie")
    assert "run out of Pineapple, so we can't make the hawaiian" in refused.reply
    assert all("hawaiian" not in unit.get("style", []) for unit in refused.order)
    # "X instead" goes on the pizza the style was refused for, never on the supreme
    customer.turn("ok a meat lovers instead")
    assert customer.order() == [{"item": "Pizza", "style": ["supreme"]},
                                {"item": "Pizza", "size": ["large"], "style": ["meat lovers"]}]
    styles = customer.turn("which styles can I pick from?").reply
    assert "supreme" in styles and "hawaiian" not in styles
    ManagerChat(home).turn("pineapple is back in stock")
    again = customer.turn("and a small hawaiian pizza")
    assert {"item": "Pizza", "size": ["small"], "style": ["hawaiian"]} in again.order


def test_what_an_instead_line_says_besides_the_style_goes_on_the_refused_pizza_only(pizza, tmp_path):
    """'a medium meat lovers instead' after a refused style: the size goes with the style onto the
    pizza that was refused, never onto the other pizza of the order."""
    home = Home(tmp_path)
    ManagerChat(home).turn("pineapple's all gone")
    customer = CustomerChat(home)
    customer.turn("one small ham pizza and a large hawaiian")
    customer.turn("alright then a medium meat lovers instead")
    assert sorted(map(str, customer.order())) == sorted(map(str, [
        {"item": "Pizza", "add": ["Ham"], "size": ["small"]},
        {"item": "Pizza", "size": ["medium"], "style": ["meat lovers"]}]))


def test_a_style_ordered_before_its_ingredient_ran_out_is_taken_off_with_the_reason(pizza, tmp_path):
    home = Home(tmp_path)
    customer = CustomerChat(home)
    customer.turn("one hawaiian pizza and one supreme pizza")
    ManagerChat(home).turn("86 the pineapple")
    turn = customer.turn("a diet coke as well")
    assert "run out of Pineapple, so the hawaiian is off your Pizza" in turn.reply
    assert all("hawaiian" not in unit.get("style", []) for unit in turn.order)


def test_a_swap_to_a_style_that_is_out_keeps_the_style_the_pizza_had(pizza, tmp_path):
    home = Home(tmp_path)
    ManagerChat(home).turn("we have no ham left")
    customer = CustomerChat(home)
    customer.turn("a medium supreme pizza")
    turn = customer.turn("actually hawaiian instead of supreme")
    assert "run out of Ham, so we can't make the hawaiian" in turn.reply and "without" not in turn.reply
    assert customer.order() == [{"item": "Pizza", "size": ["medium"], "style": ["supreme"]}]


@pytest.mark.parametrize("said, expected", [
    ("a large pepperoni", [{"item": "Pizza", "add": ["Pepperoni"], "size": ["large"]}]),
    ("two medium fantas", [{"item": "Fanta", "size": ["medium"]}] * 2),
    ("three 7 ups", [{"item": "7 Up"}] * 3),
    ("a coke zero and a 7 up", [{"item": "Coke Zero"}, {"item": "7 Up"}]),
    ("a pizza with ham but no peppers or onions", [{"item": "Pizza", "add": ["Ham"], "no": ["Onions", "Peppers"]}]),
    ("a pizza with extra cheese and ham", [{"item": "Pizza", "add": ["Ham"], "extra": ["Cheese"]}]),
    # "no extra cheese" is the cheese as it comes: never extra, never none, never an add-on
    ("a pizza with ham and no extra cheese", [{"item": "Pizza", "add": ["Ham"], "regular": ["Cheese"]}]),
    # the pizza's own cheese named is the pizza as it comes (plain), not an add-on
    ("two cheese pizzas", [{"item": "Pizza", "plain": ["Cheese"]}] * 2),
    ("one small pizza with tuna one large pizza with bacon",
     [{"item": "Pizza", "add": ["Tuna"], "size": ["small"]}, {"item": "Pizza", "add": ["Bacon"], "size": ["large"]}]),
    ("two medium ham pizzas with one large pepsi",
     [{"item": "Pizza", "add": ["Ham"], "size": ["medium"]}] * 2 + [{"item": "Pepsi", "size": ["large"]}]),
    # "one <topping>" after a count is one of those units, never one more; what was said for the
    # whole line stays on every unit
    ("three large pies: one pepperoni, one sausage",  # the units in the order said, the one left last
     [{"item": "Pizza", "add": ["Pepperoni"], "size": ["large"]}, {"item": "Pizza", "add": ["Sausage"], "size": ["large"]},
      {"item": "Pizza", "size": ["large"]}]),
    # a word inside a matched size ("extra large") is the size's, never also the extra operator
    ("two extra large sausage pies", [{"item": "Pizza", "add": ["Sausage"], "size": ["extra large"]}] * 2),
    ("an extra large mushroom and onion pizza",
     [{"item": "Pizza", "add": ["Mushrooms", "Onions"], "size": ["extra large"]}]),
    ("a thin crust vegetarian pie, not deep dish",
     [{"item": "Pizza", "crust": ["thin crust"], "style": ["vegetarian"], "no crust": ["deep dish"]}]),
])
def test_generic_phrasing_on_the_pizza_pack(pizza, tmp_path, said, expected):
    assert chat_with(tmp_path).turn(said).order == expected


@pytest.mark.parametrize("lines, expected", [
    (["a small pizza with sausage", "ah not sausage, salami"], [{"item": "Pizza", "add": ["Salami"], "size": ["small"]}]),
    (["a pizza with anchovies", "no no, not the anchovies but tuna"], [{"item": "Pizza", "add": ["Tuna"]}]),
    (["a large pizza with olives, um not olives, peppers"], [{"item": "Pizza", "add": ["Peppers"], "size": ["large"]}]),
])
def test_a_correction_not_x_y_replaces_x_on_the_pizza(pizza, tmp_path, lines, expected):
    chat = chat_with(tmp_path)
    assert [chat.turn(line) for line in lines][-1].order == expected


@pytest.mark.parametrize("lines, expected", [
    # "the pizza" of two different pizzas is asked about; an answer by a size or a topping picks one
    (["a large pepperoni pizza and a small ham pizza", "add olives to the pizza", "the large"],
     [{"item": "Pizza", "add": ["Olives", "Pepperoni"], "size": ["large"]},
      {"item": "Pizza", "add": ["Ham"], "size": ["small"]}]),
    (["a medium ham pizza and a large hawaiian pizza", "drop the pizza", "the hawaiian one"],
     [{"item": "Pizza", "add": ["Ham"], "size": ["medium"]}]),
])
def test_the_pizza_said_of_different_pizzas_is_asked_and_the_answer_picks_one(pizza, tmp_path, lines, expected):
    chat = chat_with(tmp_path)
    turns = [chat.turn(line) for line in lines]
    assert turns[1].order == turns[0].order and turns[-1].order == expected


def test_the_pizza_said_of_alike_pizzas_changes_them_all(pizza, tmp_path):
    chat = chat_with(tmp_path)
    turns = [chat.turn(line) for line in ("two large pepperoni pizzas", "add olives to the pizza")]
    assert turns[-1].order == [{"item": "Pizza", "add": ["Olives", "Pepperoni"], "size": ["large"]}] * 2


def test_a_copy_with_another_size_keeps_the_pizza_copied(pizza, tmp_path):
    chat = chat_with(tmp_path)
    turns = [chat.turn(line) for line in ("a small margherita", "one more of those, make it a medium")]
    assert sorted(u["size"][0] for u in turns[-1].order) == ["medium", "small"]


def test_a_vague_amount_of_pizzas_is_asked_and_an_occasion_is_no_size(pizza, tmp_path):
    chat = chat_with(tmp_path)
    asked = chat.turn("we'll need some pizzas for the office party")
    assert asked.order == [] and "how many" in asked.reply.lower()
    assert chat.turn("two").order == [{"item": "Pizza"}] * 2
    # "for the party" with no food after it is talk, never the party size
    assert chat_with(tmp_path / "b").turn("a large ham pizza for the party").order == \
        [{"item": "Pizza", "add": ["Ham"], "size": ["large"]}]


def test_a_two_word_size_is_an_option_not_a_modifier(pizza, tmp_path):
    turn = chat_with(tmp_path).turn("an extra large pizza with light onions")
    assert turn.order == [{"item": "Pizza", "less": ["Onions"], "size": ["extra large"]}]


def test_taco_bell_sizes_and_styles_come_from_its_kb_declarations(tmp_path):
    chat = chat_with(tmp_path)
    turn = chat.turn("a grilled beef burrito and a big pepsi")
    assert {"item": "Beef Burrito", "style": ["grill"]} in turn.order
    assert {"item": "Pepsi®", "size": ["large"]} in turn.order
    assert chat_with(tmp_path / "2").turn("two beefy 5 layer burritos").order == [{"item": "Beefy 5-Layer Burrito"}] * 2


def test_help_prompts_and_greeting_come_from_the_pack(pizza, tmp_path):
    result = runner.invoke(app, ["customer", "--kb", str(PIZZA), "--backend", "offline"], input="/help\n")
    assert "Corner Slice Pizzeria" in result.output and "two Pizzas and a large Coke" in result.output
    assert "Taco" not in result.output
    from automanager.llm.openai_backend import Prompts
    text, _ = Prompts(chat_with(tmp_path).menu).render("customer_parse", "customer")
    assert "Pizza" in text and "taco" not in text.lower()


def test_kb_option_refuses_a_folder_without_a_built_menu(tmp_path):
    shutil.copy(PIZZA / "menu.toml", tmp_path / "menu.toml")
    result = runner.invoke(app, ["customer", "--kb", str(tmp_path)], input="hi\n")
    assert result.exit_code == 2 and "automanager kb build --kb" in result.output


def test_eval_nlu_scores_lines_in_the_datasets_format(tmp_path):
    data = REPO / "tests" / "data" / "pizza"
    result = runner.invoke(app, ["eval-nlu", "pizza", "--data", str(data), "--split", "dev", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["utterances"], report["exact_match"]) == (5, 4)
    # the calzone is not on the menu: said back, nothing ordered, counted as a miss
    assert [m["text"] for m in report["misses"]] == ["a calzone with ricotta please"]
    assert report["misses"][0]["got"] == "(ORDER  )" and "isn't on our menu" in report["misses"][0]["reply"]
    assert report["field_accuracy"]["drinks"] == 1.0  # "2 liter" read through the catalog: VOLUME 2 LITER
    missing = runner.invoke(app, ["eval-nlu", "pizza", "--data", str(tmp_path), "--split", "test"])
    assert missing.exit_code == 2 and "PIZZA_test.json" in missing.output


def test_exact_match_ignores_the_order_of_children_only():
    a = parse_exr("(ORDER (PIZZAORDER (NUMBER 1 ) (TOPPING HAM ) (TOPPING OLIVES ) ) )")
    b = parse_exr("(ORDER (PIZZAORDER (TOPPING OLIVES ) (NUMBER 1 ) (TOPPING HAM ) ) )")
    c = parse_exr("(ORDER (PIZZAORDER (NUMBER 1 ) (NOT (TOPPING HAM ) ) (TOPPING OLIVES ) ) )")
    assert a == b and a != c


def test_the_shipped_packs_are_in_the_installed_data():
    assert (paths.data_dir("kb") / "packs" / "pizza" / "menu.lp").is_file()


def test_a_specialty_pizza_is_asked_no_toppings_a_plain_one_is(pizza, tmp_path):
    """The pack's style group settles the toppings question (settles = ["toppings"])."""
    chat = chat_with(tmp_path / "a")
    chat.turn("one small mediterranean pie please")
    assert chat.turn("that'll be all").actions["mode"] == [("check",)]
    plain = chat_with(tmp_path / "b")
    plain.turn("one small pie please")
    assert plain.turn("that'll be all").reply.startswith("Any toppings")


@pytest.mark.parametrize("lines, expected", [
    # each option said with a food named binds to that food, never a second unit of it
    (["a pie with onions and an iced tea, extra large for the pie and large for the tea"],
     [{"item": "Pizza", "add": ["Onions"], "size": ["extra large"]}, {"item": "Iced Tea", "size": ["large"]}]),
    (["a sprite and a pepsi: the sprite small and the pepsi in a bottle"],
     [{"item": "Sprite", "size": ["small"]}, {"item": "Pepsi", "container": ["bottle"]}]),
    (["a ham pizza and a fanta", "small on the fanta and personal on the pizza"],
     [{"item": "Pizza", "add": ["Ham"], "size": ["personal"]}, {"item": "Fanta", "size": ["small"]}]),
    (["one pineapple pizza and one bacon pizza", "the bacon one thin crust and the pineapple one large"],
     [{"item": "Pizza", "add": ["Pineapple"], "size": ["large"]}, {"item": "Pizza", "add": ["Bacon"], "crust": ["thin crust"]}]),
    # a copy with a difference: the difference is the copy's, the first unit stays as it was
    (["a small pizza with ham", "a second one of those but large"],
     [{"item": "Pizza", "add": ["Ham"], "size": ["small"]}, {"item": "Pizza", "add": ["Ham"], "size": ["large"]}]),
    (["a large pizza with ham and onions", "one more like it, hold the onions"],
     [{"item": "Pizza", "add": ["Ham", "Onions"], "size": ["large"]}, {"item": "Pizza", "add": ["Ham"], "size": ["large"]}]),
    (["a small pizza with bacon", "the same but with olives as well"],
     [{"item": "Pizza", "add": ["Bacon"], "size": ["small"]}, {"item": "Pizza", "add": ["Bacon", "Olives"], "size": ["small"]}]),
    (["a large supreme pizza", "another one like that, on deep dish"],
     [{"item": "Pizza", "size": ["large"], "style": ["supreme"]},
      {"item": "Pizza", "crust": ["deep dish"], "size": ["large"], "style": ["supreme"]}]),
])
def test_options_bind_to_the_food_they_are_said_with_and_copies_keep_the_first(pizza, tmp_path, lines, expected):
    chat = chat_with(tmp_path)
    for line in lines:
        turn = chat.turn(line)
    assert sorted(turn.order, key=repr) == sorted(expected, key=repr)


@pytest.mark.parametrize("lines, expected", [
    # "the other one" after a reference: the unit not picked last turn
    (["two small pizzas, one with ham and one with bacon", "light cheese on the bacon one",
      "the other one should get olives"],
     [{"item": "Pizza", "add": ["Ham", "Olives"], "size": ["small"]},
      {"item": "Pizza", "add": ["Bacon"], "less": ["Cheese"], "size": ["small"]}]),
    # an ingredient taken off a unit referred to by its content: never the unit itself
    (["a small pizza with ham and peppers and a small pizza with olives and peppers",
      "take the peppers off the olive one"],
     [{"item": "Pizza", "add": ["Ham", "Peppers"], "size": ["small"]}, {"item": "Pizza", "add": ["Olives"], "size": ["small"]}]),
    # "the <topping> <food>" of units ordered before is those units: never one more
    (["a tuna pizza and a corn pizza", "put extra cheese on the corn pizza"],
     [{"item": "Pizza", "add": ["Tuna"]}, {"item": "Pizza", "add": ["Corn"], "extra": ["Cheese"]}]),
    (["a tuna pizza and a corn pizza", "make the tuna pizza small"],
     [{"item": "Pizza", "add": ["Tuna"], "size": ["small"]}, {"item": "Pizza", "add": ["Corn"]}]),
    (["a tuna pizza and a corn pizza", "take off the tuna pizza"], [{"item": "Pizza", "add": ["Corn"]}]),
    # a corrected value of an exclusive group replaces the old one
    (["a small sourdough crust pizza with ham", "sorry, not sourdough, I'd like it stuffed"],
     [{"item": "Pizza", "add": ["Ham"], "crust": ["stuffed crust"], "size": ["small"]}]),
    (["a personal vegetarian pizza", "make it mexican rather than vegetarian"],
     [{"item": "Pizza", "size": ["personal"], "style": ["mexican"]}]),
    (["a personal combination", "could you switch it to a margherita"],
     [{"item": "Pizza", "size": ["personal"], "style": ["margherita"]}]),
    (["a large pizza with ham and a small pepsi", "the pizza should be small, not large"],
     [{"item": "Pizza", "add": ["Ham"], "size": ["small"]}, {"item": "Pepsi", "size": ["small"]}]),
    # a volume settles the size: it takes the size's place
    (["a large sprite", "make the sprite a one liter"], [{"item": "Sprite", "volume": ["1 liter"]}]),
    # a name not on the menu in front of a food word orders nothing, whatever follows it
    (["I want the Zorblax pizza just like the one at the mall"], []),
])
def test_references_corrections_and_names_not_sold_on_the_pizza_pack(pizza, tmp_path, lines, expected):
    chat = chat_with(tmp_path)
    for line in lines:
        turn = chat.turn(line)
    assert sorted(turn.order, key=repr) == sorted(expected, key=repr)


@pytest.mark.parametrize("lines, expected", [
    # a request after a sentence of talk, ended by a question mark, orders
    (["Hey there, long day. Could I get a small ham pizza and a small olive pizza?"],
     [{"item": "Pizza", "add": ["Ham"], "size": ["small"]}, {"item": "Pizza", "add": ["Olives"], "size": ["small"]}]),
    # "one with X, the other one Y" about units ordered before: the other one is the unit not changed
    (["two small pizzas for us", "one with bacon, the other one margherita"],
     [{"item": "Pizza", "add": ["Bacon"], "size": ["small"]}, {"item": "Pizza", "size": ["small"], "style": ["margherita"]}]),
    # a dish made to order takes another sauce in place of its own: its own off, the other on
    (["a small pizza with alfredo sauce instead of the tomato sauce"],
     [{"item": "Pizza", "add": ["Alfredo Sauce"], "no": ["Tomato Sauce"], "size": ["small"]}]),
    # "we'll do one ..." is an order, even after a price question
    (["how much is a small pizza", "we'll do one small pizza with ham then"],
     [{"item": "Pizza", "add": ["Ham"], "size": ["small"]}]),
])
def test_requests_the_other_unit_and_sauce_swaps_on_the_pizza_pack(pizza, tmp_path, lines, expected):
    chat = chat_with(tmp_path)
    for line in lines:
        turn = chat.turn(line)
    assert sorted(turn.order, key=repr) == sorted(expected, key=repr)


@pytest.mark.parametrize("lines, expected", [
    # a number and options before a list of as many foods: one of each, each with the options
    (["two 1 liters please, a fanta and a pepsi"], [{"item": "Fanta", "volume": ["1 liter"]}, {"item": "Pepsi", "volume": ["1 liter"]}]),
    (["three small sodas: coke, sprite and water"],
     [{"item": "Coke", "size": ["small"]}, {"item": "Sprite", "size": ["small"]}, {"item": "Water", "size": ["small"]}]),
    # "one more <food>" with toppings said for it is a new one made as said, not a copy of the last
    (["a small pizza with bacon", "and one more pizza, large, with just onions"],
     [{"item": "Pizza", "add": ["Bacon"], "size": ["small"]}, {"item": "Pizza", "add": ["Onions"], "size": ["large"]}]),
])
def test_a_counted_list_and_one_more_made_as_said_on_the_pizza_pack(pizza, tmp_path, lines, expected):
    chat = chat_with(tmp_path)
    for line in lines:
        turn = chat.turn(line)
    assert sorted(turn.order, key=repr) == sorted(expected, key=repr)


@pytest.mark.parametrize("lines, expected", [
    # "one X, one Y" after units with nothing on them yet: those units, never more of them
    (["two personal pizzas please", "one plain cheese and one ham"],
     [{"item": "Pizza", "plain": ["Cheese"], "size": ["personal"]}, {"item": "Pizza", "add": ["Ham"], "size": ["personal"]}]),
    # ... but after a unit that has its toppings, "one X" is one more
    (["a personal pizza with tuna", "one ham"],
     [{"item": "Pizza", "add": ["Tuna"], "size": ["personal"]}, {"item": "Pizza", "add": ["Ham"]}]),
])
def test_one_this_one_that_fills_the_plain_units_ordered_before(pizza, tmp_path, lines, expected):
    chat = chat_with(tmp_path)
    for line in lines:
        turn = chat.turn(line)
    assert sorted(turn.order, key=repr) == sorted(expected, key=repr)


@pytest.mark.parametrize("lines, expected", [
    # an answer to the size question that names the foods ordered sizes them, never orders more
    (["a ham pizza and a fanta", "that's it", "personal pizza, large fanta"],
     [{"item": "Pizza", "add": ["Ham"], "size": ["personal"]}, {"item": "Fanta", "size": ["large"]}]),
    (["an olive pizza", "that's it", "a small pizza please"], [{"item": "Pizza", "add": ["Olives"], "size": ["small"]}]),
    # a food a change is said not to be about stays on the order
    (["a bacon pizza and a tea", "extra large for the pizza, not for the tea"],
     [{"item": "Pizza", "add": ["Bacon"], "size": ["extra large"]}, {"item": "Iced Tea"}]),
    # a name not sold after "an order of" is said back; the rest of the line stands
    (["a small pizza and an order of bacon fries"], [{"item": "Pizza", "size": ["small"]}]),
])
def test_answers_naming_foods_and_names_not_sold_on_the_pizza_pack(pizza, tmp_path, lines, expected):
    chat = chat_with(tmp_path)
    for line in lines:
        turn = chat.turn(line)
    assert sorted(turn.order, key=repr) == sorted(expected, key=repr)


def test_copies_said_with_changes_are_said_back_as_changed_and_leave_the_first(pizza, tmp_path):
    chat = chat_with(tmp_path)
    chat.turn("a personal pizza with tuna")
    turn = chat.turn("two more like that but party size")
    assert "made like before but with those changes" in turn.reply
    assert sorted(u.get("size") for u in turn.order) == [["party"], ["party"], ["personal"]]
    same = chat.turn("the same thing but with corn")  # the last unit copied, with corn on the copy only
    assert sum("Corn" in u.get("add", []) for u in same.order) == 1 and len(same.order) == 4


@pytest.mark.parametrize("line, cents", [("the pizza now costs $14.49", 1449), ("make the pizza 15 dollars", 1500),
                                         ("change the price of pizza to 12.99", 1299)])
def test_a_pack_dish_named_like_its_category_can_be_repriced(tmp_path, line, cents):
    """On the pizza pack no wording changed the Pizza's price ("pizza" was read as a kind)."""
    from automanager import paths

    chat = ManagerChat(Home(tmp_path, paths.pack_dir("pizza")))
    chat.step(line)
    assert chat.staged() == [("edit", "Pizza", "price", 1399, cents)]


# ---- names made of what customers say to the bot ----------------------------------------------------

STARTER = (REPO / "automanager" / "menu" / "starter.toml").read_text(encoding="utf-8")
# (what is changed in the starter menu, to what, the name refused and where it is said)
DIALOGUE_NAMES = [
    ('name = "Lemonade"', 'name = "No"', "'No'", 'item "No" field name'),
    ('name = "Iced Tea"', 'name = "That"', "'That'", 'item "That" field name'),
    ('name = "Iced Tea"', 'name = "Extra"', "'Extra'", 'item "Extra" field name'),
    ('name = "Iced Tea"', 'name = "Thanks"', "'Thanks'", 'item "Thanks" field name'),
    ('name = "Iced Tea"', 'name = "That\'s All"', "\"That's All\"", "field name"),
    ('name = "Burger Meal"', 'name = "Done"', "'Done'", 'combo "Done" field name'),
    ('words = ["tea"]', 'words = ["tea", "that"]', "'that'", 'item "Iced Tea" field words (entry 2)'),
    ('words = ["tea"]', 'words = ["tea", "it"]', "'it'", "field words (entry 2)"),
    ('words = ["tea"]', 'words = ["tea", "the same"]', "'the same'", "field words (entry 2)"),
    ('words = ["tea"]', 'words = ["tea", "all done"]', "'all done'", "field words (entry 2)"),
    ('words = ["tea"]', 'words = ["tea", "yes please"]', "'yes please'", "field words (entry 2)"),
    ('words = ["tea"]', 'words = ["tea", "sounds good"]', "'sounds good'", "field words (entry 2)"),
    ('words = ["tea"]', 'words = ["tea", "one of those"]', "'one of those'", "field words (entry 2)"),
    ('words = ["tea"]', 'words = ["tea", "More Please!"]', "'More Please!'", "field words (entry 2)"),
    ('words = ["burger combo"]', 'words = ["burger combo", "again"]', "'again'", 'combo "Burger Meal" field words'),
]


def starter_pack(folder: Path, old: str, new: str) -> Path:
    assert old in STARTER
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "menu.toml").write_text(STARTER.replace(old, new, 1), encoding="utf-8")
    return folder


@pytest.mark.parametrize("old, new, name, where", DIALOGUE_NAMES, ids=[case[1] for case in DIALOGUE_NAMES])
def test_kb_build_refuses_a_name_or_word_customers_say_to_the_bot(tmp_path, old, new, name, where):
    """With an item named "No" or aliased "that", "no, that's all" rang up "a No": such a name or
    word is refused with its file and line, the name, and what to do; nothing is written."""
    pack = starter_pack(tmp_path / "pack", old, new)
    result = runner.invoke(app, ["kb", "build", "--kb", str(pack)])
    assert result.exit_code == 2 and not (pack / "menu.lp").exists(), result.output
    said = " ".join(result.output.split())
    assert "menu.toml, line " in said and where in said and name in said and "what customers say to the bot" in said
    assert ("Name the" in said) if "field name" in where else ("Drop it from words" in said)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("old, new", [
    ('words = ["tea"]', 'words = ["tea", "that tea"]'),  # a food's word with it
    ('name = "Iced Tea"', 'name = "The Works"'),  # "works" is an answer only alone ("that works")
    ('name = "Iced Tea"', 'name = "All In One"'),  # a number is no dialogue word
    ('words = ["burger combo"]', 'words = ["burger combo", "the number one"]'),
])
def test_kb_build_takes_a_name_with_a_word_of_its_own(tmp_path, old, new):
    pack = starter_pack(tmp_path / "pack", old, new)
    result = runner.invoke(app, ["kb", "build", "--kb", str(pack)])
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["kb", "check", "--kb", str(pack)]).exit_code == 0


def test_kb_check_refuses_a_built_menu_with_such_a_name_or_alias_naming_its_file(tmp_path):
    """A pack built before the rule (or written by hand): kb check says each, with the file to fix."""
    pack = tmp_path / "pack"
    shutil.copytree(paths.pack_dir("pizza"), pack)
    menu = (pack / "menu.lp").read_text(encoding="utf-8")
    assert '"Coffee"' in menu
    (pack / "menu.lp").write_text(menu.replace('"Coffee"', '"Nothing"'), encoding="utf-8")
    (pack / "aliases.lp").write_text('alias("that", "Pizza").\nalias("yes please", "Pizza").\n'
                                     'alias("that pie", "Pizza").\n', encoding="utf-8")
    result = runner.invoke(app, ["kb", "check", "--kb", str(pack)])
    said, unbroken = " ".join(result.output.split()), "".join(result.output.split())  # lines wrap anywhere
    assert result.exit_code == 1, result.output
    assert "Nothing is named by what customers say to the bot" in said and "name it by its food" in said
    assert "alias 'that' of Pizza is what customers say to the bot" in said and "drop the alias" in said
    assert "alias 'yes please' of Pizza" in said and "that pie" not in said and "3 violation(s)" in said
    assert f"(in{pack / 'menu.lp'})" in unbroken and f"(in{pack / 'aliases.lp'})" in unbroken


def test_the_dialogue_words_are_one_list_the_parser_and_the_checks_share():
    """automanager/dialogue.toml: the customer parser's short answers and references are read from
    it (not copied), and `is_dialogue` is the test kb build, kb check and the manager's chat share."""
    from automanager import dialogue
    from automanager.language.phrases import CUSTOMER_FILE, phrases

    said = phrases()
    assert said.yes.phrases == tuple(dialogue.replies()["yes"]) and said.no.phrases == tuple(dialogue.replies()["no"])
    assert said.pronouns.phrases == tuple(dialogue.pronouns())
    assert "[replies]" not in CUSTOMER_FILE.read_text(encoding="utf-8")  # one home for them
    for phrase in ("No", "that", "That's all", "the", "with", "extra", "more", "same", "again", "all", "done",
                   "thanks", "no thanks", "whatever", "one of those", "  YES!  "):
        assert dialogue.is_dialogue(phrase), phrase
    for phrase in ("Burger", "that tea", "The Works", "number one", "no 1", "Combo #2", "", "®", "ピザ", "No Bake Pie"):
        assert not dialogue.is_dialogue(phrase), phrase


def test_the_shipped_packs_have_no_name_made_of_dialogue_words():
    from automanager.dialogue import is_dialogue

    for pack in (paths.data_dir("kb"), paths.pack_dir("pizza"), paths.pack_dir("burger")):
        facts = pack_facts(pack)
        items = {args[0] for kind in ("dish", "combo") for args in facts.get(kind, [])}
        assert not [n for n in items if is_dialogue(n)]
        assert not [a for a, n in facts.get("alias", []) if n in items and is_dialogue(a)]


def pack_facts(pack: Path) -> dict:
    from automanager.menu.model import Menu

    return Menu.load(paths.kb_files(pack)).facts
