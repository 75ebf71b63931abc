"""The openai backend driven through the real SDK against a fake server on 127.0.0.1."""

from __future__ import annotations

import io
import json
import re

import pytest
from fake_openai import FakeOpenAI
from rich.console import Console

from automanager import paths
from automanager.llm.openai_backend import LLMConfig, Prompts, unfaithful
from automanager.menu.model import Menu
from automanager.repl import run_chat
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home
from automanager.vocab import CUSTOMER, VOCABULARIES, validate


def acts(*items):
    return {"predicates": list(items)}


def order(food, quantity=1):
    return {"predicate": "order", "food": food, "quantity": quantity}


def update(dish, operation, option, new_option=None):
    return {"predicate": "update", "dish": dish, "operation": operation, "option": option, "new_option": new_option}


def bare(name):
    return {"predicate": name}


@pytest.fixture
def fake(monkeypatch):
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("AUTOMANAGER_LLM_TIMEOUT", "1")
        monkeypatch.setenv("AUTOMANAGER_LLM_RETRIES", "0")
        monkeypatch.setenv("AUTOMANAGER_LLM_REPHRASE", "1")  # these tests check the rephrase call and its guard
        yield server


@pytest.fixture
def home(tmp_path):
    return Home(tmp_path / "state")


def customer(home):
    return CustomerChat(home, None, LLMConfig.from_env("fake-model"))


def test_a_whole_order_through_the_repl(fake, home):
    fake.parses.extend([
        acts(order("soft tacos", 2), order("pepsi"), update("pepsi", "option", "large")),
        acts(update("soft taco", "add", "beans")),
        acts(bare("complete")),  # toppings said and the size said: straight to the priced summary
        acts(bare("decline")),  # nothing else: the total, and the order is closed
    ])
    lines = iter(["two soft tacos and a large pepsi", "beans on the tacos please", "that's all", "no thanks",
                  "never read"])
    out, err = io.StringIO(), io.StringIO()
    code = run_chat(customer(home), lambda: next(lines, None), Console(file=out, width=200),
                    Console(file=err, width=200), as_json=True)
    assert code == 0, err.getvalue()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(records) == 4
    assert records[0]["parsed"] == ["order('Soft Taco', 2)", "order('Pepsi®', 1)", "update('Pepsi®', option, (size, 'large', yes))"]
    assert [u["item"] for u in records[-1]["order"]] == ["Soft Taco", "Soft Taco", "Pepsi®"]
    assert records[2]["actions"]["mode"] == [["check"]] and records[3]["actions"]["mode"] == [["close"]]
    for record in records[2:]:
        assert record["actions"]["total"] == [[2 * (139 + 50) + 100 + 50]]  # priced from the KB's facts
    for record in records:
        llm = record["llm"]
        assert llm["backend"] == "openai" and llm["fallback"] is None and llm["response"] == "llm"
        assert llm["calls"] == 2 and llm["prompt_tokens"] == 200 and llm["completion_tokens"] == 40
        assert llm["structured"] == "json_schema"
        assert [p.split("@")[0] for p in llm["prompts"]] == ["customer_parse", "customer_respond"]
    request = fake.parse_requests[0]
    schema = request["response_format"]["json_schema"]
    assert schema["strict"] is True
    variants = schema["schema"]["properties"]["predicates"]["items"]["anyOf"]
    assert sorted(name for v in variants for name in v["properties"]["predicate"]["enum"]) == sorted(CUSTOMER)
    for variant in variants:  # forms with the same fields share a variant: every field is the form's
        for name in variant["properties"]["predicate"]["enum"]:
            assert list(variant["properties"])[1:] == [f for f, _ in CUSTOMER[name].fields]
    system = request["messages"][0]["content"]  # the schema has the fields: the prompt has the meanings
    assert "- order: " in system and "order(food" not in system
    assert {k.lower(): v for k, v in fake.headers[0].items()}["authorization"] == "Bearer not-needed"  # a base URL without a key: a dummy key


def test_a_choice_left_open_through_the_llm_orders_neither_and_asks(fake, home):
    """The LLM's either(first, second): nothing is ordered, the bot asks which; the answer orders it."""
    fake.parses.append(acts(order("soft taco"), {"predicate": "either", "first": "sour cream", "second": "guac"}))
    fake.parses.append(acts({"predicate": "either", "first": "pepsi", "second": "mountain dew"}))
    fake.parses.append(acts(order("mountain dew")))
    chat = customer(home)
    first = chat.turn("a soft taco with sour cream or guac")
    assert first.parsed == ["order('Soft Taco', 1)", "either('Reduced-Fat Sour Cream', 'Guacamole')"]
    assert "Which one would you like" in first.reply and first.order == [{"item": "Soft Taco"}]
    second = chat.turn("and a pepsi or a mountain dew")
    assert second.order == [{"item": "Soft Taco"}] and "Mountain Dew" in second.reply
    assert chat.turn("the mountain dew").order == [{"item": "Soft Taco"}, {"item": "Mountain Dew®"}]


def test_a_manager_runout_through_the_llm(fake, home):
    fake.parses.append(acts({"predicate": "runout", "food": "slow rosted chicken"},
                             {"predicate": "runout", "food": "tomatoes"}))
    chat = ManagerChat(home, None, LLMConfig.from_env())
    turn = chat.turn("We have no more slow-roasted chicken, and tomatoes are gone")
    assert turn.parsed == ["runout('Slow-Roasted Chicken')", "runout('Tomatoes')"]
    assert home.stock_out() == ["Slow-Roasted Chicken", "Tomatoes"]
    assert turn.corrected == [("slow rosted chicken", "Slow-Roasted Chicken", "lexical")]
    assert turn.llm["prompts"][0].startswith("manager_parse@")


def test_a_new_dish_through_the_llm(fake, home):
    fake.parses.extend([
        acts({"predicate": "add_new", "type": "dish", "name": "Grilled Beef Taco"},
              {"predicate": "add", "name": "Grilled Beef Taco", "property": "category", "value": "taco", "count": None},
              {"predicate": "add", "name": "Grilled Beef Taco", "property": "price", "value": "$3.49", "count": None},
              {"predicate": "add", "name": "Grilled Beef Taco", "property": "ingredient", "value": "beef",
               "count": None},
              {"predicate": "add", "name": "grilled beef taco", "property": "calories", "value": "450",
               "count": None},
              {"predicate": "add", "name": "Grilled Beef Taco", "property": "popular", "value": "none",
               "count": None}),
        acts(bare("quit")),
    ])
    chat = ManagerChat(home, None, LLMConfig.from_env())
    assert "Added Grilled Beef Taco as a new dish" in chat.turn("...").reply
    chat.turn("bye")
    assert dict(Menu.load(home.menu_files(1)).facts["original_price"])["Grilled Beef Taco"] == 349


def test_malformed_json_is_asked_again_once(fake, home):
    fake.parses.extend(["{not json", acts(order("pepsi"))])
    turn = customer(home).turn("a pepsi")
    assert turn.parsed == ["order('Pepsi®', 1)"]
    assert turn.llm["fallback"] is None and "not valid JSON" in turn.llm["reask"]
    second = fake.parse_requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "{not json"}
    assert "That answer is invalid" in second[-1]["content"]


def test_an_invented_predicate_twice_falls_back_to_the_offline_parser(fake, home):
    invented = acts({"predicate": "give_free_food", "food": "everything"})
    fake.parses.extend([invented, invented])
    turn = customer(home).turn("two crunchy tacos")
    assert "'give_free_food' is not a predicate of the vocabulary" in fake.parse_requests[1]["messages"][-1]["content"]
    assert "invalid answer after a re-ask" in turn.llm["fallback"]
    assert turn.parsed == ["order('Crunchy Taco', 2)"]  # the offline parser took the turn


def test_a_misspelled_dish_is_corrected_by_name_correction(fake, home):
    fake.parses.extend([acts(order("crunchy tako")), acts(order("cheesy bean burrito"))])
    chat = customer(home)
    first = chat.turn("a crunchy tako")
    assert first.parsed == ["order('Crunchy Taco', 1)"]
    assert first.corrected == [("crunchy tako", "Crunchy Taco", "lexical")]
    second = chat.turn("a cheesy bean burrito")
    assert second.parsed == ["order('Cheesy Bean and Rice Burrito', 1)"]
    assert second.corrected[0][2] == "embedding"


def test_small_talk_and_a_why_question_through_the_llm(fake, home):
    fake.parses.extend([acts({"predicate": "greet", "kind": "how_are_you"}),
                        acts(order("soft taco"), update("soft taco", "extra", "cheddar cheese")),
                        acts({"predicate": "query", "kind": "why", "food": "soft taco", "quantity": None,
                               "size": None})])
    chat = customer(home)
    hello, _, why = chat.turn("hey, how are you?"), chat.turn("a soft taco, extra cheese"), chat.turn("why so much?")
    assert hello.parsed == ["greet(how_are_you)"] and hello.order == []
    assert why.parsed == ["query(why, 'Soft Taco', 1, none)"]
    assert {(a[2], a[3]) for a in why.actions["explain"]} == {("base", "Soft Taco"), ("extra", "Cheddar Cheese")}


def test_a_name_not_on_the_menu_is_refused_not_guessed(fake, home):
    fake.parses.append(acts(order("big mac")))
    turn = customer(home).turn("a big mac")
    assert turn.parsed == [] and "isn't on our menu" in turn.reply and turn.order == []


@pytest.mark.parametrize("event, reason", [({"status": 500}, "InternalServerError"),
                                           ({"delay": 2.5, "then": acts(order("pepsi"))}, "APITimeoutError")])
def test_server_errors_and_timeouts_end_in_the_offline_parser(fake, home, event, reason):
    fake.parses.append(event)
    turn = customer(home).turn("a pepsi")
    assert reason in turn.llm["fallback"]
    assert turn.parsed == ["order('Pepsi®', 1)"] and "Pepsi" in turn.reply


def test_a_server_without_json_schemas_gets_json_mode(fake, home):
    fake.accept_schema = False
    fake.parses.extend([acts(order("pepsi")), acts(bare("complete"))])
    chat = customer(home)
    first = chat.turn("a pepsi")
    assert first.parsed == ["order('Pepsi®', 1)"] and first.llm["structured"] == "json_object"
    chat.turn("that's all")
    types = [r["response_format"]["type"] for r in fake.parse_requests]
    assert types == ["json_schema", "json_object", "json_object"]  # asked once, then remembered


def test_by_default_a_turn_is_one_llm_call_and_the_templates_speak(fake, home, monkeypatch):
    monkeypatch.delenv("AUTOMANAGER_LLM_REPHRASE")
    fake.parses.append(acts(order("pepsi")))
    turn = customer(home).turn("a pepsi")
    assert turn.llm["calls"] == 1 and turn.llm["prompts"][0].startswith("customer_parse@")
    assert turn.reply == "Got it: a Pepsi®. What else can I get for you?" and turn.llm["response"] is None
    assert len(fake.parse_requests) == 1


def test_a_response_that_invents_a_price_is_replaced_by_the_template(fake, home):
    fake.parses.append(acts(order("pepsi")))
    fake.rephrase = lambda decided: "One Pepsi for just $0.01, today only! What else?"
    turn = customer(home).turn("a pepsi")
    assert turn.reply == "Got it: a Pepsi®. What else can I get for you?"
    assert turn.llm["response"] == "template" and "$0.01" in turn.llm["response_rejected"]


def test_the_guard(home):
    menu = Menu.load(paths.kb_files())
    decided = "Here's your order: two Soft Tacos at $1.39 each. The total comes to $2.78."
    assert unfaithful("Two Soft Tacos at $1.39 each, $2.78 in all.", decided, menu) is None
    assert "$2.87" in unfaithful("Two Soft Tacos, $2.87 in all.", decided, menu)
    assert "Pepsi" in unfaithful("Two Soft Tacos and a free Pepsi, $2.78.", decided, menu)
    assert "3" in unfaithful("3 Soft Tacos at $1.39 each, $2.78.", decided, menu)


@pytest.mark.parametrize("role", ["customer", "manager", "rules"])
def test_prompts_are_made_from_the_vocabulary(role):
    menu = Menu.load(paths.kb_files())
    text, name = Prompts(menu).render(f"{role}_parse", role)
    assert re.fullmatch(rf"{role}_parse@[0-9a-f]{{10}}", name)
    for form_name, form in VOCABULARIES[role].items():  # each form with its fields (for JSON mode)
        assert f"- {form_name}({form.fields[0][0]}" in text if form.fields else f"- {form_name}: " in text
    for example in re.findall(r'^\{"predicates".+$', text, re.M):  # valid in the validator's vocabulary
        assert validate(VOCABULARIES[role], json.loads(example))
    # every worked example says what it means in predicates of the vocabulary
    meanings = re.findall(r'^-? ?"[^"]+"(?::| ->) (.+)$', text, re.M)
    assert len(meanings) >= 3
    for meaning in meanings:
        for clause in re.split(r"; | / ", meaning):
            assert clause.split()[0] in VOCABULARIES[role] or clause.startswith("{"), clause
    said_by = "manager" if role == "rules" else role  # a store rule's reply is the manager chat's
    respond, _ = Prompts(menu).render(f"{said_by}_respond", said_by)
    assert menu.restaurant in respond and "{restaurant}" not in respond



@pytest.mark.parametrize("role", ["customer", "manager", "rules"])
@pytest.mark.parametrize("pack", [None, "pizza"])
def test_the_parse_prompt_with_its_schema_stays_within_1500_tokens(role, pack):
    """What the model reads on the critical path (the system prompt without the fields the schema
    has, the schema, a turn's context and words), at about 4 characters a token."""
    from automanager.vocab import json_schema

    menu = Menu.load(paths.kb_files(paths.kb_dir() / "packs" / pack if pack else None))
    system, _ = Prompts(menu).render(f"{role}_parse", role, fields=False)
    schema = json.dumps(json_schema(VOCABULARIES[role]), ensure_ascii=False, separators=(",", ":"))
    turn = ("Context: the bot last asked about pick(size) for the drink; ordered so far: two dishes and a drink; "
            "the bot just suggested: a topping\nCustomer: a large one please\nJSON:")
    assert (len(system) + len(schema) + len(turn)) / 4 <= 1500
    assert not re.search(r"\{[a-z_]+\}", system)  # every placeholder was filled


def test_a_store_rule_is_read_by_the_llm_with_the_rules_prompt(fake, home):
    """A line the cues read as a store rule goes to the LLM with the rules vocabulary; its answer is
    typed (names checked) and read back before anything is staged."""
    fake.parses.append(acts({"predicate": "rule_limit", "scope": "item", "target": "bean burritos", "most": 4}))
    chat = ManagerChat(home, None, LLMConfig.from_env())
    turn = chat.turn("no customer gets more than four bean burritos per order")
    assert turn.parsed == ["rule_limit(item, 'Bean Burrito', 4)"]
    assert turn.llm["prompts"][0].startswith("rules_parse@") and turn.llm["answered_by"] == "llm"
    assert "Make it a rule: at most 4 Bean Burrito per order?" in turn.reply


def test_a_rule_the_llm_names_wrongly_falls_back_to_the_offline_reading(fake, home):
    fake.parses.extend([acts({"predicate": "rule_limit", "scope": "item", "target": "flying saucer", "most": 4})] * 2)
    chat = ManagerChat(home, None, LLMConfig.from_env())
    turn = chat.turn("at most 4 bean burritos per order")
    assert turn.llm["answered_by"] == "offline" and "not a dish or combo" in turn.llm["fallback"]
    assert turn.parsed == ["rule_limit(item, 'Bean Burrito', 4)"]


@pytest.mark.parametrize("form, parsed", [
    ({"predicate": "rule_hours", "scope": "category", "target": "combos", "start": None, "end": "10:30am",
      "days": "weekdays"}, "rule_hours(category, 'combo', 0, 630, 31)"),
    ({"predicate": "rule_hours", "scope": "item", "target": "bean burrito", "start": "5 pm", "end": None,
      "days": "fri and sat"}, "rule_hours(item, 'Bean Burrito', 1020, 1440, 48)"),
    ({"predicate": "rule_deal_price", "item": "bean burritos", "price": "1", "days": "wednesdays"},
     "rule_deal_price('Bean Burrito', 100, 4)"),
    ({"predicate": "rule_deal_off", "kind": "percent", "amount": "10", "over": "$20"}, "rule_deal_off(percent, 10, 2000)"),
    ({"predicate": "rule_deal_off", "kind": "amount", "amount": "3.50", "over": None}, "rule_deal_off(amount, 350, 0)"),
    ({"predicate": "rule_deal_free", "combo": "any combo", "item": "cinnamon twists"},
     "rule_deal_free('combo', 'Cinnamon Twists')"),
    ({"predicate": "rule_instead", "out": "beef", "offer": "chicken"}, "rule_instead('Seasoned Beef', 'Grilled Chicken')"),
    ({"predicate": "rule_suggest", "given": "combo", "offer": "cinnamon twists"}, "rule_suggest('combo', 'Cinnamon Twists')"),
    ({"predicate": "rule_drop", "kind": "deal", "name": None, "number": None, "days": "wed"}, "rule_drop(deal, 'all', 0, 4)"),
    ({"predicate": "query", "kind": "rules", "name": "all"}, "query(rules, 'all')"),
])
def test_the_rules_vocabulary_is_typed_as_the_offline_parser_types_it(form, parsed):
    """Times in minutes, weekdays as a mask, money in cents, names checked: the same facts whoever read the line."""
    from automanager.language.reading import ManagerContext
    from automanager.llm.structured import ManagerReader
    from automanager.names import NameMatcher

    reader = ManagerReader(NameMatcher(Menu.load(paths.kb_files())))
    forms = validate(VOCABULARIES["rules"], {"predicates": [form]})
    assert [str(p) for p in reader.read(forms, ManagerContext()).acts] == [parsed]


@pytest.mark.parametrize("form", [
    {"predicate": "rule_hours", "scope": "item", "target": "bean burrito", "start": "25:00", "end": None, "days": None},
    {"predicate": "rule_deal_price", "item": "bean burrito", "price": "plenty", "days": None},
    {"predicate": "rule_deal_price", "item": "bean burrito", "price": "1", "days": "someday"},
    {"predicate": "rule_instead", "out": "unobtainium", "offer": "chicken"},
])
def test_a_rules_answer_that_cannot_be_typed_is_refused(form):
    from automanager.language.reading import ManagerContext
    from automanager.llm.structured import ManagerReader
    from automanager.names import NameMatcher
    from automanager.vocab import VocabError

    reader = ManagerReader(NameMatcher(Menu.load(paths.kb_files())))
    with pytest.raises(VocabError):
        reader.read(validate(VOCABULARIES["rules"], {"predicates": [form]}), ManagerContext())


def test_a_line_only_hinting_at_a_rule_is_read_as_an_edit_when_it_states_none(fake, home):
    """'per order' hints at a rule; the rules prompt says irrelevant, so the manager prompt reads it."""
    fake.parses.extend([acts(bare("irrelevant")), acts({"predicate": "runout", "food": "tomatoes"})])
    chat = ManagerChat(home, None, LLMConfig.from_env())
    turn = chat.turn("tomatoes are gone for the day, which hits every order")
    assert [p.split("@")[0] for p in turn.llm["prompts"]][:2] == ["rules_parse", "manager_parse"]
    assert turn.parsed == ["runout('Tomatoes')"]


@pytest.mark.parametrize("said, groups", [
    ("r u r u", [0, 0, 1, 1]),  # "onions on the first one and peppers on the second"
    ("u r u r", [0, 0, 1, 1]),  # the same, each change said before its reference
    ("r u u", [0, 0, 0]),  # "the first one: no onions, no lettuce"
    ("u u r", [0, 0, 0]),  # "no onions and no lettuce on the first one"
    ("r r u", [0, 0, 0]),  # "the first and the third: large"
    ("u r r", [0, 0, 0]),
    ("r o u", [0, 0, 0]),  # an order said between does not part them
])
def test_references_and_their_changes_are_grouped_in_the_order_said(said, groups):
    from automanager.llm.structured import reference_groups

    forms = {"r": ("refer", {"kind": "nth", "value": "1"}), "u": ("update", {"dish": ""}),
             "o": ("order", {"food": "pizza"})}
    assert reference_groups([forms[x] for x in said.split()]) == groups
