"""Store rules in words: the one canonical sentence of each rule (read back to the manager, listed,
audited, and given as the reason a customer hears), times of day and weekdays for people. The
words are data (rule_words.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ..rules import EVERY_DAY, DealFree, DealOff, DealPrice, Hours, Instead, Limit, Suggest, days_of
from ..terms import Term
from .amounts import dollars, join

WORDS = tomllib.loads(Path(__file__).with_name("rule_words.toml").read_text(encoding="utf-8"))
WEEKDAYS_ONLY, WEEKEND = 31, 96


def rule_text(rule: Term) -> str:
    """'at most 3 combos per order', 'Breakfast only until 10:30am', '10% off orders of $20.00 or more'."""
    said = WORDS["rule"]
    if isinstance(rule, Limit):
        key = "combo" if rule.scope == "category" and rule.target == "combo" else rule.scope
        key += "_one" if rule.most == 1 and key == "combo" else ""
        return str(said[f"limit_{key}"].format(most=rule.most, target=rule.target))
    if isinstance(rule, Hours):
        return str(said["hours"].format(what=subject_text(rule.scope, rule.target), when=hours_text(rule.start, rule.end),
                                        days=days_text(rule.days)))
    if isinstance(rule, DealPrice):
        return str(said["deal_price"].format(item=rule.item, price=dollars(rule.cents), days=days_text(rule.days)))
    if isinstance(rule, DealOff):
        amount = rule.amount if rule.kind == "percent" else dollars(rule.amount)
        key = f"deal_off_{rule.kind}" + ("_all" if rule.kind == "percent" and rule.over == 0 else "")
        return str(said[key].format(amount=amount, over=dollars(rule.over)))
    if isinstance(rule, DealFree):
        return str(said["deal_free_any" if rule.combo == "combo" else "deal_free"].format(item=rule.item, combo=rule.combo))
    if isinstance(rule, Instead):
        return str(said["instead"].format(out=rule.out, offer=rule.offer))
    if isinstance(rule, Suggest):
        return str(said["suggest_any" if rule.given == "combo" else "suggest"].format(offer=rule.offer, given=rule.given))
    return str(rule)


def subject_text(scope: str, target: str) -> str:
    key = "combo" if scope == "category" and target == "combo" else scope
    return str(WORDS["what"][key].format(target=target))


def hours_text(start: int, end: int) -> str:
    """'from 6am until 10:30am', 'until 10:30am' (from opening), 'from 5pm' (until closing)."""
    said = WORDS["rule"]
    if start == 0:
        return str(said["hours_until"].format(end=clock_text(end)))
    if end >= 1440:
        return str(said["hours_after"].format(start=clock_text(start)))
    return str(said["hours_between"].format(start=clock_text(start), end=clock_text(end)))


def clock_text(minute: int) -> str:
    """Minutes after midnight as people say the time: '10:30am', '5pm', 'noon', 'midnight'."""
    said = WORDS["clock"]
    hour, minutes = divmod(minute % 1440, 60)
    if (hour, minutes) == (0, 0):
        return str(said["midnight"])
    if (hour, minutes) == (12, 0):
        return str(said["noon"])
    shown = f":{minutes:02d}" if minutes else ""
    return str(said["am" if hour < 12 else "pm"].format(hour=(hour - 1) % 12 + 1, minutes=shown))


def days_text(mask: int) -> str:
    """' on Wednesdays', ' on Fridays and Saturdays', ' on weekdays', '' (every day)."""
    said = WORDS["days"]
    if mask & EVERY_DAY == EVERY_DAY:
        return str(said["every"])
    if mask == WEEKDAYS_ONLY:
        return str(said["weekdays"])
    if mask == WEEKEND:
        return str(said["weekend"])
    return str(said["some"].format(days=join([WORDS["day_names"][day] for day in days_of(mask)])))
