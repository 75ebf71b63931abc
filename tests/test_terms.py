"""The typed boundary with clingo: every declared predicate encodes and decodes back to itself,
a parsed predicate of a wrong type is refused, and states saved before the typed classes load."""

from __future__ import annotations

import re
import types
import typing

import pytest

from automanager import paths, state, vocab
from automanager.acts import CUSTOMER_ACTS, MANAGER_ACTS, Accept, Add, AddNew, Order, Query, Remove, Undo, Update
from automanager.bots.base import new_facts
from automanager.language import outputs  # noqa: F401  (declares the bots' replies: every class is checked)
from automanager.reasoner import Const, atom
from automanager.state import (
    PENDING,
    Has,
    LastAsk,
    Phase,
    Pick,
    Slot,
    Staged,
    State,
    Unit,
)
from automanager.terms import REGISTRY, Term, _hints, decode, encode, make, parse

SAMPLES = {str: "Soft Taco", int: 3, Const: Const("size"), tuple: (2, 1)}


def samples(kind) -> list:
    """Values of a field type: each option of a union, None included."""
    if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union:
        options = tuple(typing.get_origin(k) or k for k in typing.get_args(kind))
        if set(options) >= {str, int, tuple}:  # Value: any term, nested constants kept
            return ["Onions", 7, (Const("size"), "large", Const("yes")), ("Old", "New"), *([None] * (type(None) in options))]
        return [v for option in options for v in samples(option)]
    if kind is type(None):
        return [None]
    if kind is typing.Any:  # a reply's field of several shapes
        return ["Onions", 7, (Const("size"), "large", Const("yes")), ("Old", "New")]
    if isinstance(kind, type) and issubclass(kind, Term):
        return [example(kind)]
    return [SAMPLES[typing.get_origin(kind) or kind]]


def example(cls: type[Term], pick: int = 0) -> Term:
    hints = _hints(cls)
    values = []
    for field in cls.fields:
        options = samples(hints[field])
        values.append(options[pick % len(options)])
    return cls(*values)


DECLARED = sorted(set(REGISTRY.values()), key=lambda cls: (cls.name, cls.__name__))


@pytest.mark.parametrize("cls", DECLARED, ids=lambda cls: f"{cls.name}/{cls.__name__}")
def test_every_declared_predicate_encodes_and_decodes_back_to_itself(cls):
    for pick in range(4):
        typed = example(cls, pick)
        symbol = encode(typed)
        assert decode(symbol) == typed
        assert encode(decode(parse(str(symbol)))) == symbol  # exactly the same term: constants stay constants


def test_every_form_of_the_vocabularies_is_an_act_its_bot_reads():
    for vocabulary, acts in ((vocab.CUSTOMER, CUSTOMER_ACTS), (vocab.MANAGER, MANAGER_ACTS), (vocab.RULES, MANAGER_ACTS)):
        for name, form in vocabulary.items():
            assert any(cls.vocab_name == form.pred for cls in acts), name


def test_every_state_term_the_rules_keep_is_declared():
    declared = {cls.name for cls in REGISTRY.values()}
    for program in ("assistant.lp", "admin.lp"):
        text = (paths.PACKAGE / "bots" / program).read_text(encoding="utf-8")
        kept = set(re.findall(r"^next\((\w+)", text, re.MULTILINE))
        assert kept and kept <= declared, (program, kept - declared)


def test_a_parsed_act_becomes_the_fact_the_rules_read():
    customer = [Order("Soft Taco", 2, 1), Update("Soft Taco", Const("option"), (Const("size"), "large", Const("yes")), 2),
                Query(Const("price"), "Soft Taco", 1, None), Remove("Soft Taco", Const("all")), Accept()]
    assert new_facts(customer, CUSTOMER_ACTS) == [
        atom("new_order", "Soft Taco", 2, 1),
        atom("new_update", "Soft Taco", Const("option"), (Const("size"), "large", Const("yes")), 2),
        atom("new_query", Const("price"), "Soft Taco", 1, Const("none")),
        atom("new_remove", "Soft Taco", Const("all")), atom("new_accept")]
    manager = [Undo(), AddNew(Const("dish"), "Garden Bowl"), Add("Garden Bowl", Const("contains"), ("Rice", 2))]
    assert new_facts(manager, MANAGER_ACTS, positioned=True) == [  # each ends with its position in the sentence
        atom("new_undo", 1), atom("new_add", Const("dish"), "Garden Bowl", 2),
        atom("new_add", "Garden Bowl", Const("contains"), ("Rice", 2), 3)]


def test_an_act_prints_as_the_transcripts_show_it():
    assert str(Order("Soft Taco", 2, line=3)) == "order('Soft Taco', 2)"  # the line is not shown
    assert str(Query(Const("price"), "Soft Taco", 1, None)) == "query(price, 'Soft Taco', 1, none)"
    assert str(Add("Garden Bowl", Const("contains"), ("Rice", 2))) == "add('Garden Bowl', contains, ('Rice', 2))"
    assert str(Accept()) == "accept"
    assert Order("Soft Taco", 2).but(quantity=3) == Order("Soft Taco", 3, 0)


def test_a_wrong_type_is_refused_with_a_clear_error():
    with pytest.raises(TypeError, match="quantity must be a number, not 'two'"):
        new_facts([Order("Soft Taco", "two", 1)], CUSTOMER_ACTS)
    with pytest.raises(TypeError, match="food must be a string"):
        new_facts([Order(Const("taco"), 2, 1)], CUSTOMER_ACTS)
    with pytest.raises(TypeError, match="not a predicate this bot reads"):
        new_facts([Order("Soft Taco", 2)], MANAGER_ACTS)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        make(Unit, (1,))
    with pytest.raises(ValueError, match="not a number"):
        decode(parse('unit("one","Soft Taco")'))


# States as the release before the typed classes saved them (one customer, one manager session)
SAVED_CUSTOMER = ['discussed("Mountain Dew Baja Blast\u00ae",1,"large")', 'done("drink",pick(size))',
                  'done("taco",options)', 'has(1,extra,"Cheddar Cheese")', 'has(3,option,(size,"large",yes))',
                  'has(4,choice,("Drink",1,"Pepsi\u00ae"))', 'has(2,change,("Beef","Chicken"))',
                  'last_ask("Crunchwrap Supreme\u00ae Combo",choice(4,"Drink",1))', 'ask_streak(2)',
                  'mentioned("Cheddar Cheese")', 'recommended(upgrade("Soft Taco"),"Guacamole")',
                  'recommended(category,"Soft Taco")', 'asked_about("Soft Taco")', 'refused("Nachos")',
                  'said_unknown', 'phase(ask)', 'unit(1,"Soft Taco")', 'unit(3,"Pepsi\u00ae")',
                  'unit(4,"Crunchwrap Supreme\u00ae Combo")']
SAVED_MANAGER = ['building(dish,"Garden Bowl")', 'effect((2,1),set,"Soft Taco",price,199)',
                 'effect((2,1),unset,"Soft Taco",price,139)', 'effect((3,1),create,"Kale",ingredient)',
                 'effect((3,2),remove,"Nachos")', 'given("Garden Bowl",category,"bowl")', 'given("Garden Bowl",price,449)',
                 'last_ask("Garden Bowl",ingredient)', 'staged((2,1),edit,"Soft Taco",price,139,199)',
                 'staged((3,2),delete,"Nachos",item,none,none)', 'offer("Kale","Garden Bowl")', 'asking_stale((2,1))',
                 'price_asked("Soft Taco",999)', 'stock_done(4,"Tomatoes",out)', 'talked("Soft Taco")', 'turn(5)',
                 'phase(ended)']


@pytest.mark.parametrize("saved", [SAVED_CUSTOMER, SAVED_MANAGER])
def test_a_state_saved_before_loads_and_keeps_its_text(saved):
    loaded = State(saved)
    assert len(loaded.terms) == len(saved)  # every term is typed
    assert [str(symbol) for symbol in (h.arguments[0] for h in loaded.holds())] == saved
    assert State.of(loaded.terms).texts == saved


def test_typed_terms_read_as_the_rules_wrote_them():
    customer, manager = State(SAVED_CUSTOMER), State(SAVED_MANAGER)
    assert Has(3, Const("option"), (Const("size"), "large", Const("yes"))) in customer
    assert customer.first(LastAsk) == LastAsk("Crunchwrap Supreme\u00ae Combo", Slot(4, "Drink", 1))
    assert state.Done("drink", Pick(Const("size"))) in customer
    assert state.Recommended(state.Upgrade("Soft Taco"), "Guacamole") in customer
    assert manager.ended and not customer.ended and Phase(Const("ask")) in customer
    assert [s.row() for s in manager.all(Staged)] == [("edit", "Soft Taco", "price", 139, 199),
                                                      ("delete", "Nachos", "item", None, None)]
    assert len(manager.only(PENDING)) == 6 and not manager.without(PENDING).only(PENDING)


def test_a_term_of_no_declared_predicate_is_not_read_and_a_broken_one_is_an_error():
    assert State(['unit(1,"Soft Taco")', "retired(3)"]).terms == [Unit(1, "Soft Taco")]
    with pytest.raises(ValueError):
        State(["unit(1,"]).read()
