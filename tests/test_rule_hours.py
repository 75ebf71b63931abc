"""Hours rules (dayparts): the offline parser's reading of times and days, and the assistant's
served-now logic over hours/5 KB facts at a clock (windows past midnight, weekday masks)."""

from __future__ import annotations

from datetime import datetime

import pytest

from automanager import paths
from automanager.acts import NeedRecommend, Order, Query
from automanager.bots.assistant import Assistant
from automanager.language.manager_parser import ManagerParser
from automanager.language.rule_words import rule_text
from automanager.menu.model import Menu
from automanager.reasoner import Const
from automanager.rules import Hours
from automanager.state import State, Unit

# 2026-11-25 is a Wednesday, 2026-11-28 a Saturday, 2026-11-29 a Sunday
WED, SAT, SUN = "2026-11-25", "2026-11-28", "2026-11-29"


@pytest.fixture(scope="module")
def parser():
    return ManagerParser(Menu.load(paths.kb_files()))


@pytest.mark.parametrize("line, expected", [
    ("breakfast only until 10:30am", "rule_hours(category, 'breakfast', 0, 630, 127)"),
    ("Breakfast only until 10:30 am.", "rule_hours(category, 'breakfast', 0, 630, 127)"),
    ("breakfast till 10.30", "rule_hours(category, 'breakfast', 0, 630, 127)"),
    ("breakfast until ten thirty in the morning", "rule_hours(category, 'breakfast', 0, 630, 127)"),
    ("no breakfast after 10:30", "rule_hours(category, 'breakfast', 0, 630, 127)"),
    ("stop serving breakfast at 11am", "rule_hours(category, 'breakfast', 0, 660, 127)"),
    ("breakfast from 6 to 10:30", "rule_hours(category, 'breakfast', 360, 630, 127)"),
    ("serve the burrito supreme combo only after 5pm", "rule_hours(item, 'Burrito Supreme® Combo', 1020, 1440, 127)"),
    ("cinnamon twists after five in the evening", "rule_hours(item, 'Cinnamon Twists', 1020, 1440, 127)"),
    ("combos only from 17:00", "rule_hours(category, 'combo', 1020, 1440, 127)"),
    ("the hash brown is weekends only", "rule_hours(item, 'Hash Brown', 0, 1440, 96)"),
    ("bean burritos only on tuesdays", "rule_hours(item, 'Bean Burrito', 0, 1440, 2)"),
    ("tacos between 11am and 2pm on weekdays", "rule_hours(category, 'taco', 660, 840, 31)"),
    ("burritos from 11 to 2 on weekdays", "rule_hours(category, 'burrito', 660, 840, 31)"),
    ("quesadillas from 5 to 9", "rule_hours(category, 'quesadilla', 1020, 1260, 127)"),
    ("nachos from 10pm until 2am on fridays and saturdays", "rule_hours(category, 'nachos', 1320, 120, 48)"),
    ("drinks from noon to midnight", "rule_hours(category, 'drink', 720, 1440, 127)"),
    ("late-night specials only friday and saturday from 10pm",
     "rule_hours(item, 'specials', 1320, 1440, 48)"),  # as said (less the daypart's words): not on the menu
])
def test_hours_lines_are_read_as_rules(parser, line, expected):
    assert [str(p) for p in parser.parse(line).acts] == [expected]


@pytest.mark.parametrize("line", [
    "breakfast until 25:00",  # no time of day
    "breakfast until 10:75",
    "we open at 6am",  # nothing it is about
    "breakfast from 11pm to 2am to 4am",  # no one window
])
def test_an_hours_cue_without_a_time_or_target_is_not_understood(parser, line):
    assert [str(p) for p in parser.parse(line).acts] == ["rule_unclear"]


@pytest.mark.parametrize("line, other", [
    ("we're out of tomatoes until tomorrow", "runout"),
    ("the bean burrito now costs $1.99", "edit"),
    ("no more than 8 of one item per car", "rule_limit"),
    ("drop the breakfast hours", "rule_drop"),
])
def test_other_acts_keep_their_lines(parser, line, other):
    assert [p.vocab_name for p in parser.parse(line).acts] == [other]


def test_hours_rules_in_words():
    assert rule_text(Hours("category", "breakfast", 0, 630, 127)) == "breakfast only until 10:30am"
    assert rule_text(Hours("item", "Hash Brown", 0, 1440, 96)) == "Hash Brown only on weekends"
    assert rule_text(Hours("category", "nachos", 1320, 120, 48)) == \
        "nachos only from 10pm until 2am on Fridays and Saturdays"
    assert rule_text(Hours("category", "combo", 1020, 1440, 31)) == "combos only from 5pm on weekdays"


# ---- the assistant: served now -------------------------------------------------------------------

def assistant(tmp_path, *rules: str) -> Assistant:
    extra = tmp_path / "hours.lp"
    extra.write_text("".join(f"{rule}.\n" for rule in rules), encoding="utf-8")
    return Assistant([*paths.kb_files(), extra])


def order(bot: Assistant, food: str, at: str, state: State | None = None):
    return bot.decide([Order(food, 1, line=1)], state or State(), [], clock=datetime.fromisoformat(at))


def ordered(decision) -> list[str]:
    return [row[1] for row in decision.actions.get("confirm", []) if row[0] == "order"]


def refused(decision) -> list[str]:
    return list(dict.fromkeys(row[1] for row in decision.actions.get("confirm", []) if row[0] == "not_served"))


@pytest.mark.parametrize("at, served", [
    (f"{WED}T06:00", True), (f"{WED}T10:29", True), (f"{WED}T10:30", False), (f"{WED}T23:00", False),
])
def test_a_window_from_opening(tmp_path, at, served):
    bot = assistant(tmp_path, 'hours(category,"breakfast",0,630,127)')
    decision = order(bot, "Hash Brown", at)
    assert (ordered(decision), refused(decision)) == ((["Hash Brown"], []) if served else ([], ["Hash Brown"]))


@pytest.mark.parametrize("at, served", [
    (f"{SAT}T23:30", True),  # Saturday night
    (f"{SUN}T01:30", True),  # the small hours of Sunday belong to Saturday night
    (f"{SUN}T02:00", False),  # the window ends
    (f"{SUN}T23:30", False),  # Sunday night is not in the mask
    (f"{WED}T01:30", False),  # nor the small hours after Tuesday
    (f"{SAT}T21:59", False),
])
def test_a_window_past_midnight_on_some_weekdays(tmp_path, at, served):
    bot = assistant(tmp_path, 'hours(category,"nachos",1320,120,48)')  # Fridays and Saturdays, 10pm to 2am
    decision = order(bot, "Nachos BellGrande®", at)
    assert bool(ordered(decision)) == served and bool(refused(decision)) != served


def test_every_target_covering_an_item_must_hold(tmp_path):
    """An item under its own hours and its category's is served only when both hold; two rules of
    one target on different days: either one serves."""
    bot = assistant(tmp_path, 'hours(category,"breakfast",0,630,31)', 'hours(category,"breakfast",0,660,96)',
                    'hours(item,"Hash Brown",420,1440,127)')
    assert ordered(order(bot, "Hash Brown", f"{SAT}T10:45")) == ["Hash Brown"]  # the weekend's breakfast
    assert refused(order(bot, "Hash Brown", f"{WED}T10:45")) == ["Hash Brown"]  # the weekday's is over
    assert refused(order(bot, "Hash Brown", f"{WED}T06:30")) == ["Hash Brown"]  # its own hours are not yet
    assert ordered(order(bot, "Breakfast Crunchwrap", f"{WED}T06:30")) == ["Breakfast Crunchwrap"]


def test_any_combo_and_an_item_not_covered(tmp_path):
    bot = assistant(tmp_path, 'hours(category,"combo",1020,1440,127)')
    assert refused(order(bot, "Burrito Supreme® Combo", f"{WED}T12:00")) == ["Burrito Supreme® Combo"]
    assert ordered(order(bot, "Bean Burrito", f"{WED}T12:00")) == ["Bean Burrito"]


def test_units_ordered_before_stay_and_nothing_not_served_is_suggested(tmp_path):
    bot = assistant(tmp_path, 'hours(category,"breakfast",0,630,127)')
    state = State(['unit(1,"Hash Brown")'])
    decision = order(bot, "Hash Brown", f"{WED}T11:00", state)
    assert refused(decision) == ["Hash Brown"]
    assert [(t.number, t.food) for t in decision.state.all(Unit)] == [(1, "Hash Brown")]
    suggested = bot.decide([NeedRecommend("breakfast", Const("category"))], State(), [],
                           clock=datetime.fromisoformat(f"{WED}T11:00"))
    assert not suggested.actions.get("recommend")
    morning = bot.decide([NeedRecommend("breakfast", Const("category"))], State(), [],
                         clock=datetime.fromisoformat(f"{WED}T08:00"))
    assert morning.actions.get("recommend")


def test_is_it_available_says_the_hours(tmp_path):
    bot = assistant(tmp_path, 'hours(item,"Hash Brown",0,1440,96)')
    asked = bot.decide([Query(Const("available"), "Hash Brown", 1, None)], State(), [],
                       clock=datetime.fromisoformat(f"{WED}T09:00"))
    answers = {(row[0], row[1]) for row in asked.actions.get("answer", [])}
    assert ("Hash Brown", "not_served") in answers and ("Hash Brown", "available") not in answers


@pytest.mark.parametrize("line, expected", [
    # a range said without "from", and one with a dash: the first time starts it, past midnight too
    ("the quesarito is late night only, eleven pm to three am", "rule_hours(item, 'Quesarito', 1380, 180, 127)"),
    ("nachos bellgrande 9pm-2am only", "rule_hours(item, 'Nachos BellGrande®', 1260, 120, 127)"),
    # "can't be ordered before": before starts the hours, as "no ... before" does
    ("burritos can't be ordered before 10am", "rule_hours(category, 'burrito', 600, 1440, 127)"),
    ("tacos are not served after eleven at night", "rule_hours(category, 'taco', 0, 1380, 127)"),
    # talk around the rule is no part of what it is about
    ("fyi, effective today breakfast is mornings only, until eleven", "rule_hours(category, 'breakfast', 0, 660, 127)"),
])
def test_ranges_negations_and_talk_around_an_hours_rule(parser, line, expected):
    assert [str(p) for p in parser.parse(line).acts] == [expected]
