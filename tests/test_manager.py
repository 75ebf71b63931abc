"""The manager chat and the collaboration: stock reaching customers, staged menu edits applied
as one new version, validation with reasons, the audit log."""

from __future__ import annotations

import pytest

from automanager.menu.commit import CommitError, next_version_text
from automanager.menu.model import Menu
from automanager.star import CustomerChat, ManagerChat
from automanager.state import State
from automanager.store import Home


@pytest.fixture
def home(tmp_path):
    return Home(tmp_path / "state")


def manage(home, *lines):
    chat = ManagerChat(home)
    return chat, [chat.turn(line) for line in lines]


def kb_fact(home, predicate, *args, version=None):
    """Does the menu of `version` (default: the newest) hold predicate(args...)?"""
    menu = Menu.load(home.menu_files(home.latest_version() if version is None else version))
    return tuple(args) in menu.facts.get(predicate, [])


def price_of(home, item, version=None):
    menu = Menu.load(home.menu_files(home.latest_version() if version is None else version))
    return dict(menu.facts["original_price"])[item]


def checkout(customer):
    """Say 'that's all', then 'no' to each question, until the bot states the total."""
    turn = customer.turn("that's all")
    for _ in range(6):
        if "total" in turn.actions:
            return turn.actions["total"][0][0]
        turn = customer.turn("no")
    raise AssertionError("the bot never stated a total")


def test_paper_administrator_sample(home):
    chat, (first, second) = manage(home, "We have no more slow-roasted chicken.", "The tomatoes are out of stock now.")
    assert first.parsed == ["runout('Slow-Roasted Chicken')"]
    assert first.reply.startswith("Marked Slow-Roasted Chicken out:")
    assert second.parsed == ["runout('Tomatoes')"]
    assert second.reply.startswith("Marked Tomatoes out:")
    assert home.stock_out() == ["Slow-Roasted Chicken", "Tomatoes"]
    # the confirmation counts the dishes the runout takes off, from the KB
    menu = Menu.load(home.menu_files(0))
    with_tomatoes = {d for d, i in menu.facts["included_ingredient"] if i == "Tomatoes"}
    assert f"takes {len(with_tomatoes)} dishes off" in second.reply
    assert [h["action"] for h in home.history()] == ["runout", "runout"]


def test_several_stock_changes_in_one_sentence_and_restore(home):
    _, turns = manage(home, "we're out of tomatoes and lettuce", "the tomatoes are back in stock")
    assert turns[0].parsed == ["runout('Tomatoes')", "runout('Iceberg Lettuce')"]
    assert "Tomatoes" in turns[1].reply and "back in stock" in turns[1].reply
    assert home.stock_out() == ["Iceberg Lettuce"]


def test_runout_reaches_the_customer_at_the_next_turn(home):
    customer = CustomerChat(home)
    assert "Got it" in customer.turn("a pepsi").reply
    manage(home, "we ran out of seasoned beef")
    refused = customer.turn("and a beef burrito")
    assert "Seasoned Beef" in refused.reply
    assert [u["item"] for u in customer.order()] == ["Pepsi®"]
    manage(home, "seasoned beef is back")
    assert "Beef Burrito" in customer.turn("a beef burrito").reply
    assert [u["item"] for u in customer.order()] == ["Pepsi®", "Beef Burrito"]


def test_new_dish_piecemeal_then_ordered_by_a_new_customer_at_its_price(home):
    chat, turns = manage(home, "Add a new dish called Grilled Beef Taco", "it's a taco", "$3.49",
                         "beef, lettuce and cheese", "about 450 calories", "people like it with guacamole")
    asked = [t.actions.get("ask", [[None, None]])[0][1] for t in turns]
    assert asked == ["category", "price", "ingredient", "calories", "popular", None]
    assert "Added Grilled Beef Taco as a new dish" in turns[-1].reply
    assert home.latest_version() == 0  # staged, not applied yet
    assert "add dish Grilled Beef Taco" in turns[-1].pending

    early = CustomerChat(home)  # a customer who arrived before the change
    bye = chat.turn("bye")
    assert "Applied 1 change" in bye.reply and chat.ended
    assert home.latest_version() == 1
    assert kb_fact(home, "included_ingredient", "Grilled Beef Taco", "Iceberg Lettuce")
    assert kb_fact(home, "popular_topping", "Grilled Beef Taco", "Guacamole")
    assert kb_fact(home, "category", "Grilled Beef Taco", "taco")

    # keeps the menu it started with (the new name is read as the nearest old dish or refused)
    assert early.menu_version == 0 and "Grilled Beef Taco" not in early.turn("a grilled beef taco").reply
    customer = CustomerChat(home)
    customer.turn("two grilled beef tacos")
    assert checkout(customer) == 2 * 349
    assert [u["item"] for u in customer.order()] == ["Grilled Beef Taco"] * 2


def test_new_dish_all_at_once_edit_and_delete_reach_new_customers(home):
    chat, turns = manage(
        home,
        "Add a new dish called Grilled Beef Taco, a taco for $3.49 with seasoned beef, lettuce and cheese, "
        "450 calories, people like it with guacamole",
        "the soft taco now costs $1.99",
        "take the bean burrito off the menu",
        "yes",
        "save")
    assert "Added Grilled Beef Taco as a new dish" in turns[0].reply and "ask" not in turns[0].actions
    assert "from $1.39 to $1.99" in turns[1].reply
    assert "Delete Bean Burrito from the menu?" in turns[2].reply  # read back; staged only on yes
    assert "Applied 3 changes" in turns[4].reply
    assert price_of(home, "Soft Taco") == 199 and price_of(home, "Grilled Beef Taco") == 349
    assert not kb_fact(home, "dish", "Bean Burrito")
    assert price_of(home, "Soft Taco", version=0) == 139  # the old version stays for old sessions

    customer = CustomerChat(home)
    assert "isn't on our menu" in customer.turn("a bean burrito").reply
    customer.turn("a soft taco and a grilled beef taco")
    assert checkout(customer) == 199 + 349
    history = home.history()
    assert {(h["action"], h["item"], h["property"], h["old"], h["new"]) for h in history} >= {
        ("edit", "Soft Taco", "price", "139", "199"), ("delete", "Bean Burrito", "item", None, None),
        ("add", "Grilled Beef Taco", "dish", None, None)}
    assert all(h["version"] == 1 for h in history)


def test_customer_mid_order_keeps_its_menu_version(home):
    customer = CustomerChat(home)
    customer.turn("a soft taco")
    manage(home, "the soft taco now costs $2.49", "bye")
    assert checkout(customer) == 139
    resumed = CustomerChat(home, customer.session_id)
    assert resumed.menu_version == 0


def test_ingredient_swap_combo_and_new_ingredient(home):
    chat, turns = manage(
        home,
        "replace lettuce with onions in the crunchy taco",
        "add ingredient Pickled Radish",
        "add a combo called Taco Duo Box for $7.99 with two crunchy tacos and a drink, 900 calories",
        "bye")
    assert "changes from Iceberg Lettuce to Onions" in turns[0].reply
    assert "Added Pickled Radish as a new ingredient" in turns[1].reply
    assert "Added Taco Duo Box as a new combo" in turns[2].reply
    assert kb_fact(home, "included_ingredient", "Crunchy Taco", "Onions")
    assert not kb_fact(home, "included_ingredient", "Crunchy Taco", "Iceberg Lettuce")
    assert kb_fact(home, "ingredient", "Pickled Radish")
    assert kb_fact(home, "combo_count", "Taco Duo Box", "Crunchy Taco", 2)
    assert kb_fact(home, "combo_contain", "Taco Duo Box", "Drink")
    customer = CustomerChat(home)
    turn = customer.turn("a taco duo box")
    assert [u["item"] for u in customer.order()] == ["Taco Duo Box"]
    assert "Got it" in turn.reply


def test_unknown_ingredient_is_offered_then_added(home):
    chat, turns = manage(home, "add a new dish called Radish Taco", "a taco", "$2.00", "radish slices and cheese")
    assert turns[-1].actions["ask"] == [("Radish Slices", "new_ingredient")]
    yes = chat.turn("yes")
    assert "Added Radish Slices as a new ingredient" in yes.reply
    chat.turn("250 calories")
    chat.turn("none")
    chat.turn("bye")
    assert kb_fact(home, "ingredient", "Radish Slices")
    assert kb_fact(home, "included_ingredient", "Radish Taco", "Radish Slices")
    assert not any(row[0] == "Radish Taco" for row in Menu.load(home.menu_files(1)).facts.get("popular_topping", []))


def test_cancel_abandons_the_item_being_built(home):
    chat, turns = manage(home, "add a new dish called Half Taco", "a taco", "cancel", "bye")
    assert "Cancelled: Half Taco" in turns[2].reply
    assert home.latest_version() == 0 and chat.staged() == []


def test_quitting_mid_build_says_what_was_missing(home):
    _, turns = manage(home, "add a new dish called Half Taco", "a taco", "bye")
    assert "I did not add Half Taco: its price was still missing" in turns[-1].reply
    assert home.latest_version() == 0


@pytest.mark.parametrize("lines, reason", [
    (["the big mac now costs $3.00"], "Big Mac is not on the menu"),
    (["delete the big mac"], "Big Mac is not on the menu"),
    (["add a new dish called Soft Taco"], "Soft Taco is already on the menu"),
    (["the soft taco now costs 0 dollars"], "$0.00 is not a valid price"),
    (["the soft taco now costs -2 dollars"], "-$2.00 is not a valid price"),
    (["the soft taco costs -$1.00 now", "yes"], "-$1.00 is not a valid price"),  # the sign before the $ kept
    (["soft taco is $-2"], "-$2.00 is not a valid price"),
    (["the soft taco now costs $500"], "$500.00 is over the most an item may cost ($50.00)"),
    (["set the calories of the soft taco to 90000"], "90000 calories is over the limit"),
    (["onions are back"], "Onions was not out of stock"),
    (["we're out of unicorn meat"], "Unicorn Meat is not on the menu"),
    (["add a new dish called Wrap Thing", "it's a wrap"], "'wrap' is not a category we have"),
    (["add a new dish called Wrap Thing", "a taco", "2 dollars", "cheese", "120 calories", "chocolate sauce"],
     "Chocolate Sauce is not a topping"),
    (["take the crunchy taco off the menu"], "Crunchy Taco is part of"),
    (["delete tomatoes"], "Tomatoes is in"),
    (["remove guacamole from the crunchy taco"], "Crunchy Taco does not have Guacamole"),
    (["add seasoned beef to the crunchy taco"], "Crunchy Taco already has Seasoned Beef"),
    (["the soft taco now costs $1.39"], "The price of Soft Taco is already $1.39"),
    (["add unicorn meat to the crunchy taco", "no"], "I won't add Unicorn Meat"),
])
def test_bad_values_get_a_reason_and_change_nothing(home, lines, reason):
    before = home.latest_version()
    chat, turns = manage(home, *lines)
    replies = " ".join(t.reply for t in turns)
    assert reason in replies
    if "popular" not in turns[-1].actions.get("ask", [[None, None]])[0][1:]:
        bye = chat.turn("bye")
        assert "Applied" not in bye.reply
    assert home.latest_version() == before
    assert home.history() == [] or all(h["action"] in ("runout", "restore") for h in home.history())
    assert home.stock_out() == []


def test_commit_refuses_a_menu_that_breaks_the_integrity_rules(home):
    # a staged dish without a price would break the menu: the check after applying refuses it
    staged = ['effect((1,0),create,"Nameless Taco",dish)', 'effect((1,0),set,"Nameless Taco",category,"taco")']
    with pytest.raises(CommitError, match="Nameless Taco has no price"):
        next_version_text(home.menu_files(0), State(staged))


def test_two_managers_commit_on_top_of_each_other(home):
    first, second = ManagerChat(home), ManagerChat(home)
    first.turn("the soft taco now costs $1.99")
    second.turn("take the bean burrito off the menu")
    second.turn("yes")
    first.turn("save")
    second.turn("save")
    assert home.latest_version() == 2
    assert price_of(home, "Soft Taco") == 199 and not kb_fact(home, "dish", "Bean Burrito")


def test_resumed_manager_session_keeps_its_pending_changes(home):
    chat, _ = manage(home, "the soft taco now costs $1.99")
    again = ManagerChat(home, chat.session_id)
    assert again.staged() == [("edit", "Soft Taco", "price", 139, 199)]
    again.turn("bye")
    assert price_of(home, "Soft Taco") == 199


@pytest.mark.parametrize("first, fix, out", [
    ("86 the bean burritos", "sorry, I meant the cheesy roll ups, not the burritos", ["Cheesy Roll Up"]),
    ("we ran out of tomatoes", "oops, wrong one: it's the lettuce we're out of", ["Iceberg Lettuce"]),
    ("we're out of sour cream", "not sour cream, guacamole", ["Guacamole"]),
    ("the nacho cheese sauce is gone", "my mistake, I meant the pico", ["Pico de Gallo"]),
    ("we're out of guacamole", "no wait, the pico de gallo", ["Pico de Gallo"]),
    ("we ran out of onions", "onions are fine, it's the jalapenos", ["Jalapeno Peppers"]),
    ("no more cheddar", "whoops, not cheddar: the three cheese blend", ["Three Cheese Blend"]),
    ("bacon is out", "sorry, sausage", ["Sausage"]),  # an apology and one name: the name meant
    ("no more guac", "oops, sour cream i mean", ["Reduced-Fat Sour Cream"]),
    ("we ran out of lettuce", "lettuce's fine, it's the tomatoes", ["Tomatoes"]),
])
def test_a_correction_replaces_the_last_runout_and_brings_the_wrong_one_back(home, first, fix, out):
    chat, (_, corrected) = manage(home, first, fix)
    assert home.stock_out() == out
    assert "Undone" in corrected.reply


def test_a_correction_of_a_staged_price_moves_it_to_the_item_meant(home):
    chat, turns = manage(home, "the bean burrito is $1.49 now", "wrong item, I meant the cheesy roll up", "save")
    assert turns[1].parsed == ["correct('Cheesy Roll Up')"]
    assert price_of(home, "Cheesy Roll Up") == 149 and price_of(home, "Bean Burrito") == 139


def test_a_corrected_price_replaces_the_typo_and_a_late_correction_changes_nothing(home):
    chat, turns = manage(home, "bean burritos go up to 1.59 today", "ugh typo, 1.49 not 1.59", "save pls")
    assert price_of(home, "Bean Burrito") == 149
    chat, turns = manage(home, "we're out of tomatoes", "what's out?", "I meant the onions")
    assert home.stock_out() == ["Tomatoes"]
    assert "nothing changed" in turns[2].reply


def test_talk_around_stock_news_never_breaks_it_and_a_condition_is_no_runout(home):
    chat, turns = manage(home, "delivery's running late again, we're completely outta flour tortillas til it shows up",
                         "yep, go ahead. it should be here by two hopefully",
                         "the sour cream is running low. if we run out, offer guacamole instead")
    assert home.stock_out() == ["Flour Tortilla"]
    assert turns[2].parsed == ["rule_instead('Reduced-Fat Sour Cream', 'Guacamole')"]


def test_a_list_of_runouts_with_its_reason_and_a_family_said_by_its_last_word(home):
    chat, turns = manage(home, "the grill's busted so no steak, no cinnamon twists and no potato bites tonight")
    assert home.stock_out() == ["Cinnamon Twists", "Potato Bites", "Steak"]
    chat, turns = manage(home, "eighty six all the freezes", "the freezes are back")
    assert home.stock_out() == ["Cinnamon Twists", "Potato Bites", "Steak"]
    assert turns[0].parsed == ["runout('Blue Raspberry Freeze')", "runout('Cherry Twilight Freeze')",
                               "runout('Mountain Dew Baja Blast® Freeze')", "runout('Wild Strawberry Freeze')"]


@pytest.mark.parametrize("line, said_back", [
    ("taco fries are gone", "Taco Fries is not on the menu"),  # no dish of that name: no taco is guessed
    ("the bacon burrito is 86'd", '("bacon" and "burrito")'),  # a kind's word after a food names no dish on its own
    ("the chicken crunchwrap costs $4.29 now", '("chicken")'),
])
def test_a_half_heard_change_is_asked_first_and_changes_nothing_until_yes(home, line, said_back):
    chat, (first,) = manage(home, line)
    assert said_back in first.reply and ("unsure" in first.parsed) == said_back.startswith("(")
    assert home.stock_out() == [] and not chat.staged()
    second = chat.turn("no")
    assert home.stock_out() == [] and not chat.staged(), second.reply


def test_a_yes_makes_the_half_heard_change_and_a_whole_line_is_made_at_once(home):
    chat, (asked, yes) = manage(home, "the bean burritos got dropped on the floor so we're out", "yes")
    assert "unsure" in asked.parsed and home.stock_out() == ["Bean Burrito"]
    chat, (whole,) = manage(home, "sorry guys, we're outta guac for the rest of the day")
    assert "unsure" not in whole.parsed and home.stock_out() == ["Bean Burrito", "Guacamole"]


def test_heard_words_are_the_cue_language_and_not_food():
    from automanager.language.heard import pattern_words
    from automanager.language.phrases import manager_phrases

    assert pattern_words([r"\b(?:fryers?|mondays?)\s+\d"]) == {"fryers", "fryer", "mondays", "monday"}
    known = manager_phrases().known_words
    assert {"out", "gone", "86", "price", "fryer", "sorry"} - {"86"} <= known and not {"fries", "chicken", "bacon"} & known


def test_a_corrected_return_a_bare_corrected_price_and_a_rule_read_back_corrected(home):
    chat, turns = manage(home, "we're out of onions and tomatoes", "onions are back", "no wait, tomatoes are back, not onions")
    assert home.stock_out() == ["Onions"]
    chat, turns = manage(home, "lettuce is back, not the onions")  # a 'not' in a stock list names what stays
    assert home.stock_out() == ["Onions"]
    chat, turns = manage(home, "the quesarito is 3.79 now", "sorry, 3.69", "save")
    assert price_of(home, "Quesarito") == 369
    chat, turns = manage(home, "limit soft tacos to 4 per order", "sorry, 5 not 4", "yes", "save")
    assert "Soft Taco" not in " ".join(turns[2].reply.split("Staged")[1:])  # the 4 read back is not staged


def test_a_correction_that_names_no_one_food_changes_nothing_else(home):
    chat, turns = manage(home, "the bean burrito is $1.49 now", "I meant the black bean burrito")
    assert "correct" not in " ".join(turns[1].parsed)
    assert [row[1:] for row in chat.staged()] == [("Bean Burrito", "price", 139, 149)]


def test_a_half_heard_store_price_is_read_back_and_a_yes_sets_it(home):
    chat, (asked, yes) = manage(home, "here the bacon bean burrito costs $1.59", "yes")
    assert "unsure" in asked.parsed and '"bacon"' in asked.reply and "this store's price" in asked.reply
    assert home.store_prices() == {"Bean Burrito": 159}


@pytest.mark.parametrize("answer", ["a", "the", "it's a", "its an", "um, a"])
def test_a_bare_article_answering_what_kind_of_item_is_asked_again(tmp_path, answer):
    """It crashed the manager ("cannot turn NoneType into an ASP term"): now the question stands."""
    chat = ManagerChat(Home(tmp_path))
    chat.step("add a new item called taco royale")
    chat.step("a dish")
    turn = chat.step(answer)
    assert "What kind of item is Taco Royale?" in turn.reply
    turn = chat.step("a taco")
    assert "Taco Royale" in turn.reply and "taco" in turn.reply.lower()
