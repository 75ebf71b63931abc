"""The offline manager parser: text -> administrator predicates, deterministically.

Stock ("we're out of tomatoes and lettuce", "onions are back"), menu edits ("the <dish> now
costs $1.99", "replace lettuce with onions in the <dish>", "take the <dish> off the menu"),
new items given at once or piecemeal ("add a new dish called Grilled Beef Taco, a
taco for $3.49 with beef and cheese, 450 calories, people like it with guacamole"), and the
short answers to the bot's own questions, read with the question as `ManagerContext`.
Known names come from the KB lexicon (misspellings corrected by `names.NameMatcher`); a new name
is taken as said.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import takewhile

from rapidfuzz import fuzz

from ..acts import (
    Accept,
    Act,
    Add,
    AddNew,
    AddUntyped,
    Ask,
    Cancel,
    ChainPrice,
    Correct,
    Decline,
    Delete,
    DeleteAll,
    DeleteValue,
    Edit,
    EditSwap,
    Irrelevant,
    Quit,
    Restore,
    RestoreAs,
    RuleDealFree,
    RuleDealOff,
    RuleDealPrice,
    RuleDrop,
    RuleHours,
    RuleInstead,
    RuleLimit,
    RuleSuggest,
    RuleUnclear,
    Runout,
    RunoutAs,
    Save,
    StorePrice,
    Undo,
    UndoItem,
    Unsure,
)
from ..menu.model import Menu
from ..names import NameMatcher, covers, typo_of, word_alike
from ..normalize import normalize
from ..reasoner import Const
from ..rules import EVERY_DAY, WEEKDAYS, days_mask
from ..vocab import bounded
from .heard import NUMBER, leftover
from .phrases import manager_phrases, phrases
from .reading import (
    MONEY,
    ManagerContext,
    ManagerParse,
    cents,
    new_name,
    three_decimals,
)
from .text import Mention, find_mentions, folded_line, is_word, number_at, number_words, tokenize

CUES = manager_phrases()  # the cue patterns and words of phrases_manager.toml
P = CUES.patterns
NUMBER_ONLY = re.compile(r"\d+\.\d\d")  # a bare price in dollars and cents ("14.99")
DAY_RANGE = re.compile(rf"({P.weekday.pattern})\s+(?:through|thru|to|till|til|until)\s+({P.weekday.pattern})")
DAY_LIKE = 75  # how close to a weekday's name a word is that may be one misspelt (0..100)
MAX_LIST = 30  # names read from one list in one turn: a turn's cost stays bounded
YES_NO_QUESTIONS = ("confirm_delete", "new_ingredient", "confirm_price", "confirm_runout", "confirm_rule",
                    "confirm_unrule", "confirm_alias", "confirm_giveaway")
# what only this parser says, by its cue, before any LLM reads the line (ManagerChat.understand):
# this store's own prices, which the LLM vocabulary leaves out (the chain menu's are its prices),
# and a rule's words it could not read as a rule; and that a line was half heard (its coverage)
OFFLINE_ONLY = ("store_price", "chain_price", "rule_unclear", "unsure")
INSTEAD_OF_NO = (Edit, EditSwap, Runout, RunoutAs, Restore, RestoreAs, Ask)  # what a no to a read-back may go on to say
HEARD_CHANGES = (Runout, RunoutAs, Edit, EditSwap)  # the changes a half-heard line says back first (admin.lp: unsure)
MACHINE_FOR = re.compile(P.equipment.pattern + r"\s*,?\s+(?:for|on)\s+(?:the\s+)?", re.IGNORECASE)  # "... down for X"
SETS = {"add": Add, "edit": Edit}  # a property told of a new item, or of one on the menu


def stock_of(said: Act) -> str:
    """runout or restore for a stock act ("black beans too" says the same again), else ''."""
    return "runout" if isinstance(said, (Runout, RunoutAs)) else "restore" if isinstance(said, (Restore, RestoreAs)) else ""


def days_said(flat: str) -> int:
    """The weekdays a line names, as a mask (0: none named): 'wednesdays', 'fri and sat', 'weekends',
    'monday through friday' (every day from the first to the last)."""
    days = [day for word in P.weekday.findall(flat) for day in CUES.weekdays[word]]
    for m in DAY_RANGE.finditer(flat):
        first, last = (WEEKDAYS.index(CUES.weekdays[m.group(i)][0]) for i in (1, 2))
        days += [WEEKDAYS[(first + n) % 7] for n in range((last - first) % 7 + 1)]
    return days_mask(days)


SIGNED_MONEY = re.compile(r"(?<![\w.])(?:[-\u2212]\s*\$|\$\s*[-\u2212])\s*(?=\d)")  # "-$1.00", "$-1.00", "−$1"


def spoken_prices(text: str, whole: bool = False) -> str:
    """Prices said in words as digits: 'four nineteen' -> '$4.19', 'three oh five' -> '$3.05',
    'ninety nine cents' -> '99 cents' (amounts with a dollar word are `cents`'s own). `whole`:
    a count was asked for (calories), so 'three fifty' is 350. One number said alone is no price."""
    found = list(re.finditer(r"[^\W\d_]+", text))
    out, at, i = [], 0, 0
    while i < len(found):
        j = i
        while j < len(found) and (number_words([folded_line(found[j].group())], 0) is not None or
                                  (j > i and folded_line(found[j].group()) in CUES.zero_cents)) and \
                (j == i or re.fullmatch(r"[\s-]+", text[found[j - 1].end():found[j].start()])):
            j += 1
        run = [folded_line(m.group()) for m in found[i:j]]
        after = folded_line(found[j].group()) if j < len(found) else ""
        said = spoken_amount(run, after, whole) if run else None
        if said is not None:
            out += [text[at:found[i].start()], said]
            at = found[j - 1].end()
        i = max(j, i + 1)
    return "".join(out) + text[at:]


def spoken_amount(run: list[str], after: str, whole: bool) -> str | None:
    """The digits a run of number words says as an amount, or None."""
    one = number_words(run, 0)
    if one and one[1] == len(run):
        return str(one[0]) if after in ("cent", "cents") else None
    if after in CUES.not_price_after and not whole:
        return None
    for k in range(1, len(run)):
        dollars = number_words(run[:k], 0)
        if not dollars or dollars[1] != k or not 0 < dollars[0] < 100:
            continue
        rest = run[k:]
        if rest[0] in CUES.zero_cents and len(rest) == 2 and (unit := number_words(rest[1:], 0)) and unit[0] < 10:
            change = unit[0]
        elif (tens := number_words(rest[:1], 0)) and tens[0] >= 10 and (both := number_words(rest, 0)) \
                and both[1] == len(rest) and both[0] < 100:
            change = both[0]
        else:
            continue
        return str(dollars[0] * 100 + change) if whole else f"${dollars[0]}.{change:02d}"
    return None


def plain_words(text: str) -> str:
    """The words and numbers of a text, folded, without punctuation."""
    return " ".join(t for t in tokenize(text) if t not in ",.;!?")


def after_words(folded: str, said: list[str]) -> str:
    """A folded text after its first words `said` (what a cue read), with its punctuation."""
    m = re.match(r"\W*" + r"\W+".join(map(re.escape, said)), folded) if said else None
    return folded[m.end():] if m else folded


@dataclass
class HoursTime:
    """A time of day an hours rule says: where its cue starts and it ends in the line, whether it
    starts or ends the hours (or is the second of a pair, or said with 'at'), and its minute after
    midnight (`bare`: an hour said without am or pm, read from the other time or as the usual)."""

    cue_at: int
    end: int
    role: str  # start | end | pair | at
    minute: int
    bare: bool = False
    named: str = ""  # noon | midnight | opening | closing: what it is as a start or an end


def digits_said(text: str, word: re.Pattern, before: re.Pattern, after: re.Pattern) -> str:
    """The text with each run of number words that `word` fits and a cue marks as a number (`before`
    matches the text before it, or `after` the text after it) as digits: 'until eleven', 'ten
    percent off', 'over twenty-five'."""
    out, at = [], 0
    for m in word.finditer(text):
        if m.start() < at or not (before.search(text[:m.start()]) or after.match(text[m.end():])):
            continue
        words = [("one" if w in ("a", "an") else w) for w in re.split(r"[\s-]+", m.group())]  # "a hundred"
        found = number_words(words, 0)
        if found and found[1] == len(words):
            out += [text[at:m.start()], str(found[0])]
            at = m.end()
    return "".join(out) + text[at:]


def hours_numbers(flat: str) -> str:
    """The line with the number words of hours as digits ('until eleven', 'five in the evening')."""
    return digits_said(flat, P.hours_number_word, P.hours_number_before, P.hours_number_after)


def hours_times(said: str) -> list[HoursTime] | None:
    """The times of day a line says after a cue (until, after, from, between ... and, at), in
    order; None when a cue is followed by a number that is no time of day ('until 25:00')."""
    found: list[HoursTime] = []
    for m in P.hours_time.finditer(said):
        before = said[:m.start()]
        cue = next(((role, c) for role, pattern in (("end", P.hours_end_cue), ("start", P.hours_start_cue),
                                                     ("pair", P.hours_pair_cue), ("at", P.hours_at_cue))
                    if (c := pattern.search(before))), None)
        if cue is None and not found and P.hours_range_next.match(said[m.end():]):
            cue = ("start", m)  # "10pm to 4am": a range said without "from"
        if cue is None or (cue[0] == "pair" and not found):
            continue  # a number that is no time ('2 tacos'), or 'and 5' with no time before it
        minute = clock_minute(m)
        if minute is None:
            return None
        role = cue[0]
        if role == "pair":  # 'from 6 to 10', 'between 11 and 2': the second ends the first
            role = "end" if found[-1].role == "start" else "pair"
        named = m.group("named") or m.group("half") or ""
        found.append(HoursTime(cue[1].start(), m.end(), role, minute[0], minute[1],
                               "noon" if P.hours_noon.match(named) else "midnight" if P.hours_midnight.match(named)
                               else "opening" if P.hours_named_start.match(named)
                               else "closing" if P.hours_named_end.match(named) else ""))
    return found


def clock_minute(m: re.Match) -> tuple[int, bool] | None:
    """(Minute after midnight, bare) of a time said; None when it is no time of day."""
    named, half = m.group("named") or "", m.group("half") or ""
    if named:
        return (720, False) if P.hours_noon.match(named) else (0, False)
    hour, minute = int(m.group("hour")), int(m.group("minute") or 0)
    if minute > 59:
        return None
    if P.hours_noon.match(half) or P.hours_midnight.match(half):
        return ((720 if P.hours_noon.match(half) else 0), False) if hour == 12 and not minute else None
    if P.hours_am.match(half) or P.hours_pm.match(half):
        if not 1 <= hour <= 12:
            return None
        pm = bool(P.hours_pm.match(half))
        if pm and hour == 12 and half in ("at night", "tonight"):
            return minute, False  # twelve at night
        return (hour % 12 + (12 if pm else 0)) * 60 + minute, False
    if hour > 24 or (hour == 24 and minute):
        return None
    if hour == 0 or hour > 12 or P.hours_24.match(half) or m.group("hour").startswith("0"):
        return hour * 60 + minute, False
    return hour * 60 + minute, True


def hours_window(times: list[HoursTime], negated: bool, said: str) -> tuple[int, int] | None:
    """(Start, End) of the times said: the one after a start cue, the one after an end cue (or the
    second of 'from .. to ..'); 'no X after 10' and 'stop serving X at 10' end the hours, 'no X
    before 11' starts them. None when the times do not make one window."""
    starts, ends = [], []
    for t in times:
        role = t.role
        if role == "at":
            role = "end" if P.hours_stop_verb.search(said) or negated else \
                "start" if P.hours_start_verb.search(said) else ""
        elif negated and role in ("start", "end") and not P.hours_start_verb.search(said):
            role = {"start": "end", "end": "start"}[role]
        if role == "start":
            starts.append(t)
        elif role == "end":
            ends.append(t)
        else:
            return None
    if len(starts) > 1 or len(ends) > 1:
        return None
    start, end = (starts[0] if starts else None), (ends[0] if ends else None)
    if (start and start.named == "closing") or (end and end.named == "opening"):
        return None
    if start is None:
        first = 0
    elif not start.bare:
        first = start.minute % 1440
    elif end is not None and not end.bare:
        first = min(readings(start.minute), key=lambda m: (end.minute - m) % 1440 or 1440)
    else:
        first = usual_hour(start.minute, said)
    if end is None:
        return first, 1440
    if end.bare:
        last = min(readings(end.minute), key=lambda m: (m - first) % 1440 or 1440) if start else usual_hour(end.minute, said)
    else:
        last = end.minute or 1440  # midnight, closing: the end of the day
    return first, last


def readings(minute: int) -> tuple[int, int]:
    """The two times an hour said without am or pm may be."""
    return minute % 720, minute % 720 + 720


def usual_hour(minute: int, said: str) -> int:
    """An hour said without am or pm, as the line's part of the day ('evenings after seven') or else
    as a restaurant means it: 6 to 11 in the morning, 12 to 5 after noon."""
    part = P.hours_day_part.search(said)
    if part and minute < 720:
        return minute + 720 if part.group("pm") else minute
    return minute if 360 <= minute < 720 else (minute + 720) % 1440 if minute < 360 else minute


class ManagerParser:
    def __init__(self, menu: Menu, names: NameMatcher | None = None):
        self.menu = menu
        self.names = names or NameMatcher(menu)
        self.categories = {normalize(c): c for c in menu.categories}
        self.groups = {normalize(g): g for g in menu.groups}
        self.line_readings = [getattr(self, "line_" + reading) for reading in CUES.line_readings]
        self.menu_words = {word for key in menu.lexicon for word in key.split()}
        self.dishes_with = Counter(ingredient for _dish, ingredient in menu.facts.get("included_ingredient", []))

    def days_spelled(self, text: str) -> str:
        """The text with a misspelt weekday ('wensdays', 'thrusday') as the weekday it is a typo of;
        a word of the menu's names is left as it is."""
        def day(m: re.Match) -> str:
            said = m.group().lower()
            if said in CUES.weekdays or said in self.menu_words or len(said) < 5:
                return m.group()
            close = [w for w in CUES.weekdays if " " not in w and len(w) >= 5 and word_alike(said, w)]
            return max(close, key=lambda w: fuzz.ratio(said, w)) if close else m.group()
        return re.sub(r"[^\W\d_]+", day, text)

    def days_doubted(self, tokens: list[str]) -> list[str]:
        """The words of a line that name a weekday, or may be a misspelt one days_spelled did not
        dare to read ('wendsdy', 'ednesday'); a word of the menu's names is none."""
        days = [w for w in CUES.weekdays if " " not in w and len(w) >= 5]
        return [t for t in tokens if P.weekday.fullmatch(t.lower()) or len(t) >= 5 and t.lower() not in self.menu_words
                and any(fuzz.ratio(t.lower(), day) >= DAY_LIKE for day in days)]

    @staticmethod
    def without_context(text: str) -> str:
        """The line without the talk around its change ('the truck's late', 'starting today'); a line
        with none keeps its apostrophes (a new name is taken as said)."""
        bare = re.sub(r"['’`]", "", text)
        return P.context.sub(" ", bare) if P.context.search(bare) else text

    def parse(self, text: str, ctx: ManagerContext | None = None) -> ManagerParse:
        ctx = ctx or ManagerContext()
        text = SIGNED_MONEY.sub(" minus $", text)  # the sign of "-$1.00" outlives the words' tokens
        text = self.without_context(self.days_spelled(spoken_prices(text, whole=ctx.ask_topic == "calories")))
        flat = plain_words(text)
        if not flat:
            return ManagerParse([Irrelevant()])
        for reads in self.line_readings:  # a whole-line act, in the order the phrase file declares
            found = reads(flat, text, ctx)
            if found:
                return found
        result = ManagerParse([], moving=ctx.last_move, last_edited=ctx.last_item)
        target, stock = ctx.building, ctx.last_stock
        clauses = [c.strip() for part in P.split.split(text) for c in self.moves(part)]
        for i, clause in enumerate(clauses):
            if clause and self.new_item(clause, "; ".join(clauses[i + 1:]), ctx, result):
                break  # the rest of the line describes the new item
            for part in self.stock_parts(clause, result):
                said = len(result.acts)
                target = self.clause(part, ctx, target, result)
                if len(result.acts) == said and stock and P.said_too.search(plain_words(part)):  # "black beans too"
                    result.acts += [self.stock_act(stock, name, result) for name in self.stock_list(part, result)]
                stock = next((stock_of(p) for p in reversed(result.acts) if stock_of(p)), stock)
        result.acts = list(dict.fromkeys(result.acts)) or [Irrelevant()]  # said twice is meant once
        self.hear(text, result)
        return result

    def hear(self, text: str, result: ManagerParse) -> None:
        """A change read from a line with words no reading took (not names it used, numbers, or
        words the cue language knows) was half heard: it is said back as a question (unsure),
        and a yes makes it."""
        changes = [p for p in result.acts if isinstance(p, HEARD_CHANGES) and
                   (not isinstance(p, (Edit, EditSwap)) or str(p.property) in ("price", "price_by"))]
        if not changes:
            return
        tokens = [t for t in tokenize(text) if is_word(t)]
        if any(isinstance(p, (Edit, EditSwap)) for p in changes):  # a day said with a price is a deal's: asked, never every day's price
            result.doubted += self.days_doubted(tokens)
        used = {str(arg) for p in result.acts for arg in p.field_values()} | set(result.read_as) | set(result.read_as.values())
        spelled = {w for said, name, how in result.corrected if name in used and how != "unsure" and
                   typo_of(said, name, self.menu) for w in said.split()}  # another word close to a name: asked
        spelled |= {w for name in used if normalize(name) not in self.menu.lexicon  # a name taken as said
                    for w in normalize(name).split()}  # ("unicorn meat"): the bot says it is not on the menu
        named = [m for m in find_mentions(self.menu, tokens) if not (m.kind == "item" and self.names_a_kind(tokens, m))]
        result.unheard = list(dict.fromkeys(result.doubted + leftover(tokens, named, used, CUES.known_words | spelled | result.heard)
                                            + self.other_numbers(tokenize(text), result.acts)))
        if result.unheard:
            result.acts.append(Unsure())

    def other_numbers(self, tokens: list[str], acts: list[Act]) -> list[str]:
        """'<drink> zero is 2.59': beside a new price said in digits, a number outside any menu name
        that no reading took (as cents or as a count) is perhaps part of a name the menu lacks:
        asked about; and 'the large <drink> is 2.99' names a size's price, not the dish's: the
        size is asked about."""
        if not any(isinstance(p, Edit) and str(p.property) == "price" for p in acts):
            return []
        taken = {arg for p in acts for arg in p.field_values() if isinstance(arg, int)}
        mentions = find_mentions(self.menu, tokens)
        inside = {i for m in mentions for i in range(m.start, m.end)}
        items = {i for m in mentions if m.kind == "item" for i in range(m.start, m.end)}
        names = {w for p in acts for arg in p.field_values() if isinstance(arg, str) for w in normalize(arg).split()}
        options = [m.said for m in mentions if m.kind == "option" and m.start not in items
                   and not set(m.said.split()) <= names]  # "big mac": a new dish's own word
        numbers = {i: t.lstrip("$") for i, t in enumerate(tokens) if i not in inside and
                   (NUMBER.fullmatch(t.lstrip("$")) or number_words([t], 0) is not None)}
        took = {i for i, t in numbers.items() if NUMBER.fullmatch(t) and
                {round(float(t) * 100), round(float(t))} & taken}
        return options + [tokens[i] for i in numbers if took and i not in took and i - 1 not in took]

    # -- whole-line readings: one small recognizer each, tried in the order the phrase file declares
    def line_teach(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'<phrase> means <item>', 'when guests ask for <phrase> they want <item>': customers saying
        the phrase get the item (an alias of it)."""
        return self.taught(flat, ("teach_when", "teach_verb", "teach_means"), Add)

    def line_untaught(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'<phrase> no longer means <item>': the alias comes off."""
        return self.taught(flat, ("untaught_no", "untaught_stop"), DeleteValue)

    def taught(self, flat: str, cues: tuple[str, ...], act: type[Add | DeleteValue]) -> ManagerParse | None:
        """add|delete(Item, alias, Phrase) for the first cue that reads the line; the item is a menu
        item's name, alias or close spelling (else as said: the bot says it is not on the menu).
        A phrase that is only 'it' or 'that' ('that means ...') is no phrase."""
        for cue in cues:
            said = getattr(P, cue).match(flat)
            if not said or P.pronoun_name.fullmatch(said.group("phrase")) or not normalize(said.group("phrase")):
                continue
            result = ManagerParse([])
            item = said.group("item")
            name = self.names.spelled(item, "item")
            result.acts = [act(name.name if name else item, Const("alias"), said.group("phrase"))]
            return result
        return None

    def store_line(self, text: str, ctx: ManagerContext | None = None) -> ManagerParse | None:
        """The parse of a line about this store's own prices or its rules (limits), else None."""
        ctx = ctx or ManagerContext()
        text = self.without_context(self.days_spelled(spoken_prices(text)))
        flat = plain_words(text)
        if not flat:
            return None
        return self.line_rule_query(flat, text, ctx) or self.line_rule_drop(flat, text, ctx) or \
            self.line_rule_hours(flat, text, ctx) or self.line_rule_deal(flat, text, ctx) or \
            self.line_rule_offer(flat, text, ctx) or \
            self.line_rule(flat, text, ctx) or self.line_chain_price(flat, text, ctx) or \
            self.line_store_price(flat, text, ctx)

    def hints_rule(self, text: str) -> bool:
        """Might the line state a store rule the rule readings did not take? (the LLM then reads it
        with the rules prompt, which says irrelevant when it is none)"""
        return bool(P.rule_hint.search(plain_words(spoken_prices(text))))

    # -- rules: dayparts ('breakfast until 10:30am', 'the party pack only after 5pm on fridays')
    def line_rule_hours(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """rule_hours(Scope, Target, Start, End, Days), else None: 'breakfast only until 10:30am'
        (Start 0), 'serve the <combo> only after 5pm' (End 1440), '<category> between 11am and 2pm
        on weekdays', '<item> is weekends only' (all day). Days: those named, else every day. A
        line with a time cue but no time of day understood, or nothing it is about, is not
        understood (rule_unclear): never a guessed rule. Lines of other acts (stock, prices, deals,
        limits per order, questions) are left to them."""
        if ctx.building or text.rstrip().endswith("?") or P.hours_not.search(flat) or P.rule_per.search(flat) \
                or P.hours_money.sub("", P.hours_money_as_time.sub(" ", folded_line(text))) != \
                P.hours_money_as_time.sub(" ", folded_line(text)):
            return None
        said = hours_numbers(plain_words(P.hours_dash.sub(" to ", folded_line(text))))
        times = hours_times(said)
        if times is None:
            return ManagerParse([RuleUnclear()])  # a time's cue with no time of day understood
        days = days_said(flat)
        if not times and not (days and P.hours_only.search(flat)):
            return None
        window = hours_window(times, bool(P.hours_negated.search(said)), said) if times else (0, 1440)
        target = self.hours_target(said, times)
        if window is None or target is None:
            return ManagerParse([RuleUnclear()])
        return ManagerParse([RuleHours(Const(target[0]), target[1], *window, days or EVERY_DAY)])

    def hours_target(self, said: str, times: list[HoursTime]) -> tuple[str, str] | None:
        """(Scope, Target) the rest of an hours line names: a category ('breakfast', 'tacos'), a
        dish or combo whose name is all the rest says, any combo; else the rest as said (the bot
        says it is not on the menu); None when nothing is left."""
        for t in reversed(times):
            said = said[:t.cue_at] + " " + said[t.end:]
        rest = normalize(P.hours_filler.sub(" ", P.weekday.sub(" ", said)))
        return (self.rule_target(rest) or ("item", rest)) if rest else None

    def rule_target(self, rest: str) -> tuple[str, str] | None:
        """What the words left of a rule name, whole: ('item', X) for the dish or combo whose name is
        all of them, ('category', C) for a category's word (a dish named by that very word
        wins: a pack whose dish shares its category's name), ('category', 'combo') for any combo; None for anything else."""
        tokens = tokenize(rest)
        items = [m for m in find_mentions(self.menu, tokens) if m.kind == "item"]
        whole = items and {m.name for m in items} == {items[0].name} and sum(m.end - m.start for m in items) == len(tokens)
        category = self.category_word(rest)
        if whole and (not category or normalize(items[0].name) in (rest, rest.rstrip("s"))):
            return "item", items[0].name
        if category:
            return "category", category
        if P.rule_combo.fullmatch(rest):
            return "category", "combo"
        name = self.names.match(rest, "item")  # a rule is read back before it is made: a name close in meaning may be it
        return ("item", name.name) if name and name.how != "unsure" else None

    # -- rules: promotions ('wednesdays bean burritos are a dollar', '10% off orders over $20',
    # 'a free drink with any combo')
    def line_rule_deal(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """rule_deal_price(Item, Cents, Days), rule_deal_off(Kind, Amount, Over) or
        rule_deal_free(Combo, Item), else None. A line that says a deal but not one of these plainly
        (no number, no item, a price moved by an amount, a day on a whole-order discount) reads as
        an unclear rule (rule_unclear): none is guessed."""
        if P.deal_not.search(flat):
            return None  # a new item ("add a new special called ...") is the older reading's
        folded = digits_said(folded_line(text), P.number_run, P.deal_number_before, P.deal_number_after)
        flat = plain_words(folded)
        for reading in (self.deal_free_said, self.deal_off_said, self.deal_price_said):
            acts = reading(flat, folded)
            if acts is not None:
                return ManagerParse(acts or [RuleUnclear()])
        return None

    def deal_free_said(self, flat: str, folded: str) -> list[Act] | None:
        """'a free <dish> with any combo', 'free <dish> with every <combo>', 'buy a <combo>, get a
        <dish> free': rule_deal_free(Combo or "combo", Dish); None when the line is no free-with-a-
        combo line ('make the <dish> free' is a price)."""
        combos = self.deal_names(flat, combo=True)
        if not P.deal_free.search(flat) or not (combos or P.rule_combo.search(flat)):
            return None
        both = P.deal_buy_get.search(flat)
        if both:
            parts = [both.group("combo"), both.group("item")]
        else:
            split = P.deal_free_with.search(flat)
            if not split:
                return None
            parts = [flat[:split.start()], flat[split.end():]]
        with_combo = [part for part in parts if self.deal_names(part, combo=True) or P.rule_combo.search(part)]
        if len(with_combo) != 1 or days_said(flat):
            return []
        combo_part, item_part = with_combo[0], next(part for part in parts if part is not with_combo[0])
        named = self.deal_names(combo_part, combo=True)
        combo = named[0] if len(named) == 1 else "combo" if not named else None
        item = self.deal_item(item_part, P.deal_combo_filler)
        return [RuleDealFree(combo, item)] if combo and item else []

    def deal_off_said(self, flat: str, folded: str) -> list[Act] | None:
        """'10% off orders over $20', 'take $3 off any order of $25 or more', '15 percent off every
        order': rule_deal_off(percent|amount, Amount, Over cents, 0 when not said). An amount off
        without an order word is a price move (the older reading's) unless a deal word or day is said."""
        percent, amount = P.deal_percent_off.search(folded), P.deal_amount_off.search(folded)
        said = percent or amount
        if not said:
            return None
        rest = folded[:said.start()] + " " + folded[said.end():]
        over = P.deal_over.search(rest)
        if not (P.deal_order.search(flat) or over) or days_said(flat):  # '5 bucks off at 30' is an order's
            return [] if P.deal_word.search(flat) or days_said(flat) else None
        threshold = cents(over.group("over") or over.group("before"), bare_is_price=True) if over else 0
        if threshold is None:
            return []
        if percent:
            if "." in percent.group("percent"):
                return []
            said_percent = percent.group("percent")  # '-10%' is no 10% off: its sign is kept, and refused
            sign = -1 if re.match(r"-|minus|negative", said_percent) else 1
            return [RuleDealOff(Const("percent"), sign * bounded(re.sub(r"\D", "", said_percent)), threshold)]
        off = cents(amount.group(), bare_is_price=True) if amount else None
        return [RuleDealOff(Const("amount"), off, threshold)] if off is not None else []

    def deal_price_said(self, flat: str, folded: str) -> list[Act] | None:
        """'wednesdays, <item>s are a dollar', '<item> for $1.49 on tuesdays', 'make <item> $2 every
        friday', 'daily special: <item> for 99 cents': rule_deal_price(Item, Cents, Days). Only with a
        day said ('every day' too): a price alone, or on sale, is an ordinary price edit (the older reading's)."""
        days, word = days_said(flat), P.deal_word.search(flat)
        if not days:
            return None  # a price on sale with no day is the item's price: an ordinary edit
        price = cents(folded, bare_is_price=bool(NUMBER_ONLY.search(folded)))  # '2.99' said bare is a price too
        if price is None:
            return None  # no price: a line of another kind
        if P.deal_move.search(MONEY.sub(" ", folded)) or len(MONEY.findall(folded)) > 1 or \
                (P.deal_time.search(flat) and not word):
            return []  # a price moved by an amount, two prices, a time of day: no one deal price said
        said = plain_words(NUMBER_ONLY.sub(" ", MONEY.sub(" ", P.weekday.sub(" ", folded)))).split()
        talk = len(list(takewhile(lambda w: w not in self.menu_words, said)))  # "marketing promo, tuesdays, <item>
        item = next((found for k in range(min(talk, 3) + 1)  # are 1.49": words of no menu name before the deal
                     if (found := self.whole_item(" ".join(said[k:]), P.deal_filler))), None)
        return [RuleDealPrice(item, price, days or EVERY_DAY)] if item else []

    def whole_item(self, said: str, filler: re.Pattern) -> str | None:
        """The one dish or combo whose name is all a rule's words say once its filler is gone; None
        for a category's word ('burritos' is no one burrito), a size or another word more, or none.
        A number in the name must be said: '<item> 12 pack' is never its 2 pack, nor '<item>' either."""
        numbers = set(re.findall(r"\d+", said))
        for dropped in (r"\b(?:bucks?|dollars?|cents?)\b", r"-?\d+(?:\.\d+)?|\b(?:bucks?|dollars?|cents?)\b"):
            rest = normalize(filler.sub(" ", re.sub(dropped, " ", said)))
            rest = " ".join(word for word in rest.split() if number_words([word], 0) is None)  # 'two bucks'
            target = self.rule_target(rest) if rest else None
            if target and target[0] == "item":
                return target[1] if set(re.findall(r"\d+", normalize(target[1]))) <= numbers else None
        return None

    def deal_names(self, said: str, combo: bool | None) -> list[str]:
        """The menu items a part of a line names, in order: combos only, dishes only, or (None) both."""
        found = [m.name for m in find_mentions(self.menu, tokenize(said)) if m.kind == "item"]
        return list(dict.fromkeys(n for n in found if combo is None or (n in self.menu.combos) == combo))

    def deal_item(self, said: str, filler: re.Pattern) -> str | None:
        """The one dish a deal's words name: by name, else the words left (a close spelling); None
        for none, several, or a category's word."""
        dishes = self.deal_names(said, combo=None)
        if dishes:
            return dishes[0] if len(dishes) == 1 else None
        rest = normalize(filler.sub(" ", re.sub(r"-?\d+(?:\.\d+)?", " ", said)))
        if not rest or self.category_word(rest) or P.rule_combo.search(rest):
            return None
        name = self.names.spelled(rest, "item")
        return name.name if name else None

    # -- rules: substitutions and suggestions ('if the beef is out, offer chicken instead', 'with a
    # combo, offer a large drink')
    def line_rule_offer(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """rule_instead(Out, Offer) or rule_suggest(Given, Offer), else None. A line with a price is
        a deal's; one whose names cannot be read (an offer that is no item: 'a large drink') is
        rule_unclear, never a guessed rule; one that offers a topping with a dish is left to the
        older readings (a popular topping)."""
        if P.price_like.search(flat):
            return None
        flat = self.out_of_what(flat)
        for cue in ("offer_instead_out_of", "offer_instead_is_out", "offer_instead_for", "offer_instead_after_out_of",
                    "offer_instead_after_is_out"):  # the cues of phrases_manager.toml, in this order
            said = getattr(P, cue).match(flat)
            if said:
                return self.rule_instead(said.group("out"), said.group("offer"))
        for cue in ("offer_suggest_with_first", "offer_suggest_verb_first", "offer_suggest_when_ordered"):
            said = getattr(P, cue).match(flat)
            if said:
                return self.rule_suggest(said.group("given"), said.group("offer"))
        return None

    def out_of_what(self, flat: str) -> str:
        """'<food> is getting low, if we run out offer <other> instead': the condition said without
        its food is about the one food the line named before it."""
        cond = P.stock_if.search(flat)
        if not cond or re.match(r"\s+of\b", flat[cond.end():]):
            return flat
        before = [m for m in find_mentions(self.menu, tokenize(flat[:cond.start()])) if m.kind in ("item", "topping")]
        if len({m.said for m in before}) != 1:
            return flat
        return f"{flat[cond.start():cond.end()]} of {before[0].said}{flat[cond.end():]}"

    def rule_instead(self, out: str, offer: str) -> ManagerParse:
        """rule_instead(Out, Offer): two items, or two ingredients (admin.lp refuses a mix, with why);
        a name not on the menu as said (admin.lp says so)."""
        old, new = self.offer_said(out), self.offer_said(offer)
        if old is None or new is None:
            return ManagerParse([RuleUnclear()])
        for kind in ("item", "topping"):
            if kind in old and kind in new:
                return ManagerParse([RuleInstead(old[kind], new[kind])])
        pick = [said.get("item") or said.get("topping") or said.get("as_said") for said in (old, new)]
        if None in pick or "category" in old or "category" in new:
            return ManagerParse([RuleUnclear()])  # a kind of food ("drinks"): no one item
        return ManagerParse([RuleInstead(pick[0], pick[1])])

    def rule_suggest(self, given: str, offer: str) -> ManagerParse | None:
        """rule_suggest(Given, Offer): Given an item, a category or "combo" (any combo), Offer an item."""
        what, extra = self.offer_said(given), self.offer_said(offer)
        if what is None or extra is None:
            return ManagerParse([RuleUnclear()])
        if "topping" in extra and "item" not in extra and "item" in what:
            return None  # "suggest <topping> with the <dish>": a popular topping, not this
        offered = extra.get("item") or (extra.get("as_said") if len(extra) == 1 else None)
        target = what.get("combo") or what.get("category") or what.get("item") or \
            (what.get("as_said") if len(what) == 1 else None)
        if offered is None or target is None:
            return ManagerParse([RuleUnclear()])
        return ManagerParse([RuleSuggest(target, offered)])

    def offer_said(self, phrase: str) -> dict[str, str] | None:
        """What a name in a substitution or suggestion may be: {'item': ..., 'topping': ...,
        'category': ..., 'combo': 'combo'}, or {'as_said': ...} for a name not on the menu; None
        when the words are no name (an option value said with it, a pronoun, nothing)."""
        words = normalize(P.offer_filler.sub(" ", " " + phrase + " ").strip())
        words = normalize(P.offer_filler.sub(" ", words))
        if not words or P.pronoun_name.fullmatch(words):
            return None
        tokens = tokenize(words)
        if any(m.kind == "option" for m in find_mentions(self.menu, tokens)):
            return None  # "a large drink": a size is no item
        found: dict[str, str] = {}
        if P.rule_combo.fullmatch(words):
            found["combo"] = "combo"
        category = self.category_word(words)
        exact = self.menu.lexicon.get(words, {}).get("item")
        if category and not (exact and normalize(exact) in (words, words.rstrip("s"))):
            found["category"] = category
        for kind in ("item", "topping"):
            whole = self.whole_names(words, kind)
            name = whole[0] if len(whole) == 1 else None
            if name is None and not whole:
                match = self.names.spelled(words, kind)
                name = match.name if match and match.how in ("exact", "alias", "lexical") else None
            if name:
                found[kind] = name
        if "category" in found:  # "tacos": the kind, not the dish its word is also an alias of
            found.pop("item", None)
        if not found:
            name = new_name(words)
            return {"as_said": name} if name else None
        return found

    # -- rules: limits of at most N per order, said in plain English (offline only: OFFLINE_ONLY)
    def line_rule_query(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'what rules are on?', 'any limits set?': the rules in force and staged."""
        return ManagerParse([Ask(Const("rules"), "all")]) if P.rule_query.search(flat) else None

    def line_rule(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'no more than 8 of one item per car', 'limit bean burritos to 10 per order', 'at most 3
        combos per order', 'max 25 items in an order': rule_limit(Scope, Target, N). A line with a
        limit cue and a per-order word but no number or nothing it counts reads as not understood."""
        if not P.rule_cue.search(flat) or not P.rule_per.search(flat) or self.drop_said(flat):
            return None
        scope, target, most = self.rule_said(flat)
        if scope == "any" or most is None:
            return ManagerParse([RuleUnclear()])
        return ManagerParse([RuleLimit(Const(scope), target, most)])

    def line_rule_drop(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'drop the limit on bean burritos', 'remove the 8 per car rule', 'end the wednesday deal':
        rule_drop(Kind, Name, N, Days) with what the line says of the rule (kind any, name 'all', N 0
        and days 0: not said; kind a family of rules, or a limit's scope)."""
        if not self.drop_said(flat):
            return None
        family = next((kind for kind, cue in CUES.rule_families.items() if re.search(cue, flat)), "any")
        said = P.rule_drop_tail.sub(" ", P.rule_drop_verb.sub(" ", P.weekday.sub(" ", flat)))
        for cue in CUES.rule_families.values():  # 'the substitution for X': X names it, not the word
            said = re.sub(cue, " ", said)
        scope, target, most = self.rule_said(said)
        mentions = find_mentions(self.menu, tokenize(said))
        kitchen = [m.alternatives["topping"] for m in mentions if "topping" in m.alternatives]
        if scope == "item" and kitchen and not any(m.kind == "item" for m in mentions):
            target = kitchen[0]  # an ingredient a substitution names
        kind = scope if family in ("any", "limit") and scope in ("any_item", "total") else family
        return ManagerParse([RuleDrop(Const(kind), target, most or 0, days_said(flat))])

    @staticmethod
    def drop_said(flat: str) -> bool:
        """Does the line drop a rule: a drop verb opening or closing it, and a word naming a rule
        or describing one ('kill the fifteen percent thing', 'that drink thing we set up, forget it')?"""
        return bool((P.rule_drop_verb.match(flat) or P.rule_drop_tail.search(flat)) and
                    (P.rule_noun.search(flat) or P.rule_described.search(flat)))

    def rule_said(self, flat: str) -> tuple[str, str, int | None]:
        """(Scope, Target, N) a rule's words say: an item named, a category ('tacos', 'combos'), of
        any one item, items in all; scope 'any' and target 'all' when none is said; N None when no
        number is said. A name not on the menu is taken as said (the bot says so)."""
        tokens = tokenize(P.rule_per.sub(" ", flat))
        mentions = [m for m in find_mentions(self.menu, tokens) if m.kind == "item"]
        named = {i for m in mentions for i in range(m.start, m.end)}  # a number in a name ('7 up') counts nothing
        most = next((found[0] for i in range(len(tokens)) if i not in named and (found := number_at(tokens, i))), None)
        items = [m.name for m in mentions if not (m.end - m.start == 1 and self.category_word(tokens[m.start]) and
                                                  normalize(m.name) not in (tokens[m.start], tokens[m.start].rstrip("s")))]
        if items:  # a category's word alone ('tacos') names the category, not a dish it also fits
            return "item", items[0], most
        said = [t for t in tokens if not re.fullmatch(r"-?\d+", t)]
        for word in said:
            category = self.category_word(word)
            if category:
                return "category", category, most
        if P.rule_combo.search(flat):
            return "category", "combo", most
        if P.rule_any_item.search(flat):
            return "any_item", "all", most
        if P.rule_total.search(flat):
            return "total", "all", most
        rest = " ".join(w for w in said if number_words([w], 0) is None)
        rest = normalize(P.rule_filler.sub(" ", rest))
        if rest:
            name = self.names.spelled(rest, "item")
            return "item", name.name if name else rest, most
        return "any", "all", most

    def category_word(self, word: str) -> str | None:
        """The category a word names ('tacos', 'burrito'), else None."""
        word = normalize(word)
        return self.categories.get(word) or self.categories.get(word.rstrip("s")) or \
            self.categories.get(re.sub(r"es$", "", word))

    def line_store_price(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'here the X costs $1.79', 'set our store's price of X to $1.79': store_price(X, 179),
        this store's own price; the rest of the line must read as prices of menu items."""
        folded = folded_line(text)
        if not P.store_scope.search(folded) or not P.price_like.search(folded):
            return None
        rest = self.parse(P.store_scope.sub(" ", folded), ctx)
        prices = [(p.item, p.value) for p in rest.acts if isinstance(p, Edit) and str(p.property) == "price"
                  and isinstance(p.value, int)]
        if not prices or len(prices) != len([p for p in rest.acts if not isinstance(p, Unsure)]):
            return None
        return ManagerParse([StorePrice(item, cents) for item, cents in prices] +
                            [p for p in rest.acts if isinstance(p, Unsure)], unknown=rest.unknown,
                            corrected=rest.corrected, unheard=rest.unheard)  # half heard: read back first

    def line_chain_price(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'use the chain price for X again': chain_price(X), this store's own price of X goes."""
        if not P.chain_price.search(flat):
            return None
        result = ManagerParse([])
        said = P.chain_price_filler.sub(" ", P.chain_price.sub(" ", flat))
        names = self.names_in(said, result, "item") if normalize(said) else []
        if not names and P.refers_to_it.search(flat) and ctx.last_item:
            names = [ctx.last_item]
        if not names:
            return None
        result.acts = [ChainPrice(name) for name in dict.fromkeys(names)]
        return result

    def line_save(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        return ManagerParse([Save()]) if P.save.match(flat) else None

    def line_save_and_quit(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'save and quit': a goodbye applies the changes too."""
        return ManagerParse([Quit()]) if P.save.match(P.then_quit.sub("", flat)) else None

    def line_quit(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        return ManagerParse([Quit()]) if P.quit.search(flat) and not P.add.search(flat) else None

    def line_undo_named(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'don't delete the cinnamon twists after all': that item's pending changes go. A line
        that takes back the last change ('scratch that, it's pico') is line_undo's."""
        named_undo = P.undo_named.match(flat)
        last = P.undo.match(flat)
        if not named_undo or re.search(r"\d", flat) or (last and not P.undo_bare.match(last.group("cue"))):
            return None
        about = [m.name for m in find_mentions(self.menu, tokenize(named_undo.group("rest"))) if m.kind == "item"] \
            or [m.alternatives["topping"] for m in find_mentions(self.menu, tokenize(named_undo.group("rest")))]
        return ManagerParse([UndoItem(name) for name in dict.fromkeys(about)]) if about else None

    def line_undo_asked(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'no, undo that' to a read-back: nothing happens."""
        return ManagerParse([Decline()]) if P.undo.match(flat) and ctx.ask_topic in YES_NO_QUESTIONS else None

    def line_undo(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'scratch that, I meant 3.79': undo, then the rest of the line (the wrong one said with
        'not' only names what goes); 'my bad, I meant the soft tacos': the last change, made to the
        food meant (correct: admin.lp undoes it and makes it again)."""
        undo = P.undo.match(flat)
        if not undo or ctx.building:
            return None
        tail = P.correct_not.sub(" , ", after_words(folded_line(text), flat[:undo.end()].split())).strip(" ,")
        meant = self.meant(tail)
        if meant:
            return ManagerParse([Correct(name) for name in meant])
        tail = plain_words(tail)
        rest = [p for p in (self.parse(tail, ctx).acts if tail else []) if not isinstance(p, Irrelevant)]
        price = cents(tail, bare_is_price=True) if tail and not rest and ctx.last_item else None
        if price is not None:  # "scratch that, I meant 3.79": the same item, the price meant
            rest = [Edit(ctx.last_item, Const("price"), price)]
        return ManagerParse(list(dict.fromkeys([Undo()] + rest)))

    def line_correct(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'I meant the soft tacos', 'not lettuce, cheese', 'pico, not onions': a line that is only
        the food meant (and the wrong one said with 'not') corrects the last change (correct)."""
        folded = folded_line(text)
        lead = P.correct_lead.match(plain_words(folded))
        rest = after_words(folded, lead.group().split()) if lead else folded
        said = P.correct_not.sub(" , ", rest)
        if ctx.building or (not lead and said == rest):  # neither "I meant ..." nor "not <the wrong one>"
            return None
        if ctx.ask_topic in ("confirm_rule", "confirm_unrule", "confirm_giveaway"):  # "sorry, 5 not 4": the rule read back is not
            return ManagerParse([Decline()])  # the one meant; it is left, to be said again
        meant = self.meant(said.strip(" ,"), stock=bool(lead) and said != rest)
        if meant:
            return ManagerParse([Correct(name) for name in meant])
        price = cents(said, bare_is_price=True) if lead and ctx.last_item and NUMBER_ONLY.fullmatch(plain_words(said)) else None
        if price is not None:  # "sorry, 14.99": the last price change, at the price meant
            return ManagerParse([Undo(), Edit(ctx.last_item, Const("price"), price)])
        return None

    def meant(self, said: str, stock: bool = False) -> list[str]:
        """The food a correction's words name, when one name is all they say (stock: with the
        stock words of the change it corrects, "no wait, corn's back, not ham")."""
        if stock:
            said = P.runout.sub(" ", P.restore.sub(" ", folded_line(said)))
        said = plain_words(P.correct_filler.sub(" ", plain_words(said)))
        phrase = " ".join(w for w in said.split() if w not in CUES.filler)
        if not phrase or re.search(r"\d\.\d\d\b", phrase):  # "crunchy taco is 1.49": a change said, not only a name
            return []
        for kind in ("topping", "item"):
            whole = list(dict.fromkeys(self.whole_names(said, kind)))  # "three cheese blend": a count word in a name
            if whole:
                return whole if len(whole) == 1 else []  # a correction names the one food meant
        near = self.names.spelled(phrase, "item") or self.names.spelled(phrase, "topping")
        if near and near.how in ("exact", "alias", "lexical"):
            return [near.name]
        said_in_part = self.names.holding(phrase.split(), "item")  # "I meant the doritos gordita crunch"
        return [said_in_part] if said_in_part else []

    def line_cancel(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        return ManagerParse([Cancel()]) if P.cancel.match(flat) else None

    def line_confirm_yes(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'yes, add it' to a read-back or an offer."""
        return ManagerParse([Accept()]) if ctx.ask_topic in YES_NO_QUESTIONS and P.confirm_yes.match(flat) \
            and not P.confirm_not.search(flat) else None

    def line_confirm_no(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'no, keep it' to a read-back or an offer; 'no wait, just make it 1.29': no, then the
        change said instead ("it" is what the question was about)."""
        if ctx.ask_topic not in YES_NO_QUESTIONS or not P.confirm_no.match(flat):
            return None
        lead = P.confirm_no_lead.match(flat)
        tail = flat[lead.end():].strip() if lead else ""
        if not tail or P.confirm_not.search(tail):
            return ManagerParse([Decline()])
        about = ManagerContext(building=ctx.building, build_type=ctx.build_type,
                               last_item=ctx.last_item or ctx.ask_target, last_move=ctx.last_move)
        instead = self.parse(tail, about)
        said = [p for p in instead.acts if not isinstance(p, Undo)]  # the no itself undoes what was read back
        rest: list[Act] = [p for p in said if isinstance(p, INSTEAD_OF_NO)]
        if not rest or len(rest) != len(said):
            return ManagerParse([Decline()])
        return ManagerParse([Decline()] + rest, unknown=instead.unknown, corrected=instead.corrected)

    def line_price_put_right(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'no!! 1.49 sorry', 'no, typo, should be 4.69' to a price read back: not that price, this one."""
        target = ctx.ask_target or ctx.last_item
        if ctx.ask_topic != "confirm_price" or not target:
            return None
        for cue in (P.confirm_no_lead, P.undo, P.correct_lead):
            flat = flat[m.end():].strip(" ,") if (m := cue.match(flat)) else flat
        said = P.sorry_after.sub("", flat).strip()
        price = cents(said, bare_is_price=True) if NUMBER_ONLY.fullmatch(said) else None
        return None if price is None else ManagerParse([Decline(), Edit(target, Const("price"), price)])

    def line_yes(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        return ManagerParse([Accept()]) if phrases().reply(flat) == "yes" else None

    def line_no(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        return ManagerParse([Decline()]) if phrases().reply(flat) == "no" or P.no_popular_line.fullmatch(flat) \
            else None

    def line_question(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        return self.question(flat, text, ctx)

    def suggestion(self, text: str) -> str:
        """What to say when a line was not understood: the nearest command (the one whose cue
        words the line shares most), with the names the line mentioned, and where to see more."""
        said = {w.rstrip("s") for w in plain_words(text).split()} | set(plain_words(text).split())
        mentions = find_mentions(self.menu, tokenize(text))
        dish = next((m.name for m in mentions if m.kind == "item"), self.menu.example_dish)
        ingredient = next((m.alternatives["topping"] for m in mentions if "topping" in m.alternatives), None) or \
            next(iter(sorted(self.menu.included(dish))), dish)
        if P.greeting.fullmatch(plain_words(text)):
            return ("Hi! Tell me what ran out or came back, or what to add, change or remove on the menu; "
                    "type /help for examples.")
        commands = CUES.commands
        best = max(commands, key=lambda command: len(said & command[1]))
        if not said & best[1]:
            return (f"Sorry, I didn't catch that. Try \"we're out of {ingredient}\", \"the {dish} now costs $2.49\" "
                    "or \"add a new dish called ...\"; type /help to see everything I understand.")
        nearest = best[0].format(dish=dish, ingredient=ingredient)
        return f"Sorry, I didn't catch that. The nearest thing I know is \"{nearest}\"; type /help to see everything I understand."

    def question(self, flat: str, text: str, ctx: ManagerContext) -> ManagerParse | None:
        """'what's out right now?', 'what have I changed?', 'how much is the X?', 'what's in it?'."""
        if P.out_question.search(flat):
            return ManagerParse([Ask(Const("out"), "all")])
        if P.pending_question.search(flat):
            return ManagerParse([Ask(Const("pending"), "all")])
        asks = bool(P.question_start.match(flat) or P.stock_question_start.match(flat) or "?" in text)
        if asks and (P.runout.search(flat) or P.restore.search(flat) or P.stock_words.search(flat)):
            names = self.stock_list(text, ManagerParse([])) or self.unknown_stock_name(flat, ManagerParse([])) or \
                [m.name for m in find_mentions(self.menu, tokenize(text)) if m.kind == "item"]
            said = P.stock_said_name.match(flat)
            if not names and said and (fresh := new_name(said.group("n"))):
                names = [self.known(said.group("n"), "topping", ManagerParse([])) or fresh]
            if names:  # "is the steak out?": a question about stock never changes it
                return ManagerParse([Ask(Const("out"), name) for name in names])
        kind = next((k for k, cue in ((k, getattr(CUES.value_questions, k)) for k in CUES.value_kinds) if cue.search(flat)), None)
        if kind is None or not asks:
            return None
        result = ManagerParse([])
        items = [m.name for m in find_mentions(self.menu, tokenize(text)) if m.kind == "item"]
        about = items[0] if items else (ctx.last_item if P.refers_to_it.search(flat) else None)
        if about:
            result.acts.append(Ask(Const(kind), about))
            return result
        return None

    def stock_parts(self, clause: str, result: ManagerParse) -> list[str]:
        """A clause cut at its commas where each part says its own stock news ("X is gone, Y is
        fine"): every part then has its own polarity. A list ("X, Y and Z are out") stays whole:
        its first parts have no cue of their own. A part that says a food is fine next to a runout
        changes nothing (its words were heard); next to news of it back ("X is fine, found a case"),
        the clause stays whole."""
        pieces = [p for p in re.split(r",", clause) if p.strip()]
        cued = [bool(P.stock_cue.search(plain_words(p))) for p in pieces]
        if any(cued) and any(not c and self.names_nothing(p) for p, c in zip(pieces, cued)):
            # "truck came short, no X": a part with no stock cue that names nothing is why, not what
            talk = [p for p, c in zip(pieces, cued) if not c and self.names_nothing(p)]
            result.heard.update(word for p in talk for word in plain_words(p).split())
            clause = ",".join(p for p in pieces if p not in talk)
            pieces = [p for p in pieces if p not in talk]
            cued = [bool(P.stock_cue.search(plain_words(p))) for p in pieces]
        if len(pieces) < 2 or sum(cued) < 2:
            return [clause] if clause.strip() else []
        parts, current = [], []
        for piece, has_cue in zip(pieces, cued):
            current.append(piece)
            if has_cue:
                parts.append(",".join(current))
                current = []
        if current:
            parts[-1:] = [",".join(parts[-1:] + current)]
        if not P.runout.search(plain_words(clause)):
            return [clause]  # "black beans are fine, found a case": no runout, the food is back
        result.heard.update(word for p in parts if P.fine.search(plain_words(p)) for word in plain_words(p).split())
        return [p for p in parts if not P.fine.search(plain_words(p))]

    def names_nothing(self, part: str) -> bool:
        """Does a part of a line name nothing of the menu (no dish, ingredient or option)?"""
        return not find_mentions(self.menu, tokenize(plain_words(part)))

    def moves(self, text: str) -> list[str]:
        """'raise X by 20 cents and Y by a dime' as two clauses; an "and" inside a name
        ('black beans and rice by a quarter') splits nothing."""
        inside = [m.said for m in find_mentions(self.menu, tokenize(text)) if " and " in m.said]
        parts, start = [], 0
        for m in P.next_move.finditer(text):
            before, after = folded_line(text[:m.start()]).split()[-1:], folded_line(text[m.end():]).split()[:1]
            if any(f"{' '.join(before)} and {' '.join(after)}" in name for name in inside):
                continue
            parts.append(text[start:m.start()])
            start = m.end()
        return parts + [text[start:]]

    # -- names ---------------------------------------------------------------------------------
    def known(self, phrase: str, kind: str, result: ManagerParse) -> str | None:
        """The KB name a phrase means (exactly, by alias, a close spelling or embeddings), else None."""
        return self.names.lookup(phrase, kind, result.corrected)

    def names_in(self, text: str, result: ManagerParse, kind: str) -> list[str]:
        """Every name of `kind` (item | topping) in a list such as 'beef, rice and cheese'; an
        unknown topping comes back as said (the bot offers to add it)."""
        return self.resolved(self.found_in(text, result, kind), result, kind)

    def found_in(self, text: str, result: ManagerParse, kind: str) -> list[str | list[str]]:
        """The names of a list found by their words: a name, or [phrase] still to look up."""
        found: list[str | list[str]] = []
        chunks = [" ".join(w for w in chunk.split() if folded_line(w) not in ("a", "an", "the", "some", "extra", "with", "of"))
                  for chunk in P.contents_split.split(text)]
        phrases = [phrase for phrase in chunks if normalize(phrase)]
        if len(phrases) > MAX_LIST:  # a turn reads a bounded list, and says so
            result.skipped += len(phrases) - MAX_LIST
            phrases = phrases[:MAX_LIST]
        for phrase in phrases:
            hits = self.whole_names(phrase, kind)
            if hits:
                found += hits
            elif kind == "item" and (group := self.group(phrase)):
                found.append(group)
            else:
                found.append([phrase])
        return found

    def resolved(self, found: list[str | list[str]], result: ManagerParse, kind: str) -> list[str]:
        """`found` with each phrase looked up (one embedding call for them all); a phrase that
        names nothing is a new topping as said, or unknown."""
        said = [entry[0] for entry in found if isinstance(entry, list)]
        close = dict(zip(said, self.names.lookup_many(said, kind, result.corrected)))
        names = []
        for entry in found:
            if not isinstance(entry, list):
                names.append(entry)
            elif near := close[entry[0]]:
                names.append(near)
            elif kind == "topping" and (name := new_name(entry[0])):
                names.append(name)
            else:
                result.unknown.append(entry[0])
        return list(dict.fromkeys(names))

    def whole_names(self, phrase: str, kind: str) -> list[str]:
        """The names of `kind` in a phrase, when they account for every word of it (so that
        'unicorn meat' is not read as the meat it mentions)."""
        tokens = [t for t in tokenize(phrase) if is_word(t)]
        mentions = [m for m in find_mentions(self.menu, tokens) if kind in m.alternatives]
        named = {i for m in mentions for i in range(m.start, m.end)}
        if any(t not in CUES.filler for i, t in enumerate(tokens) if i not in named):
            return []
        return [m.alternatives[kind] for m in mentions]

    def group(self, phrase: str) -> str | None:
        """A combo option group said with or without a count: 'a drink', 'two sides'."""
        bare = P.leading_count.sub("", normalize(phrase))
        return self.groups.get(bare) or self.groups.get(bare.rstrip("s"))

    def quantity_before(self, phrase: str) -> int:
        tokens = tokenize(phrase)
        got = number_at(tokens, 0) if tokens else None
        return got[0] if got else 1

    def contents(self, text: str, result: ManagerParse) -> list[tuple[str, int]]:
        """(item or option group, count) for a combo's contents: 'two crunchy tacos and a drink'."""
        text = P.serving_of.sub(" ", text)  # "a side of <item>"
        out = []
        for chunk in P.items_split.split(text):
            if not normalize(chunk):
                continue
            names = self.names_in(chunk, result, "item")
            if names:
                out.append((names[0], self.quantity_before(chunk)))
        return out

    def category(self, text: str, asked: bool) -> str | None:
        words = normalize(text).split()
        for word in words:
            for form in (word, word.rstrip("s"), word + "s"):
                if form in self.categories:
                    return self.categories[form]
        if asked:
            rest = [w for w in words if w not in ("its", "it", "is", "a", "an", "the", "category", "in", "under")]
            return " ".join(rest) or None
        return None

    def new_item(self, clause: str, rest: str, ctx: ManagerContext, result: ManagerParse) -> bool:
        """'add a new dish called X, ...', 'put X on the menu: ...', 'new <category> item: X, ...': the
        add, and the description that follows it (the rest of the clause and of the line)."""
        said_category = None
        on_menu = P.put_on_menu.search(clause)
        if on_menu:  # "put a <new name> on the menu: <its description>"
            clause = f"{clause[:on_menu.start()]}add {on_menu.group('name')}:{clause[on_menu.end():]}"
        is_new = P.name_is_new.match(clause)
        if is_new:  # "<name> is a new dish: <its description>"
            clause = f"add a new {is_new.group('kind')} called {is_new.group('name')}:{is_new.group('rest')}"
        kind_item = P.kind_of_new.search(clause)
        if kind_item and self.category(kind_item.group("cat"), False):  # "a new <category> item: X", "a <category> called X"
            said_category = self.category(kind_item.group("cat"), False)
            clause = f"{clause[:kind_item.start('cat')]}dish{clause[kind_item.end():]}"
        if not P.add.search(plain_words(clause)) or P.add_negated.search(plain_words(clause)):
            return False  # "people don't add anything": no add
        m = P.name_then_type.search(clause) or P.new_name.search(clause)
        if not m:
            return False
        tail = clause[m.end():]
        part = P.parts.search(tail)
        head = plain_words(clause[m.start():m.end() + (part.start() if part else len(tail))])
        head_items = [x for x in find_mentions(self.menu, tokenize(head)) if x.kind == "item"]
        if head_items and not m.group("type") and P.add_target.search(head):
            return False  # "add guac to the bean burrito": an ingredient for a dish on the menu
        name = new_name(m.group("name"))
        typed = CUES.type_words.get((m.group("type") or "").lower())
        first, _, others = (name or "").partition(" ")
        named = re.search(r"\b(?:called|named)\b|:", clause[m.start():m.start("name")])  # "called X": X as said
        promo = (m.group("type") or "").lower().startswith(("lto", "limited"))  # "a new LTO taco, X": the taco kind
        if not said_category and others and (not typed or promo) and not named and self.category(first.lower(), False):
            said_category, name, typed = self.category(first.lower(), False), new_name(others), "dish"  # "a new drink X"
        described = clause[m.end():]
        if name and (folded_line(name) in CUES.type_words or folded_line(name) in CUES.generic_names):
            kind = CUES.type_words.get(folded_line(name)) or typed or "dish"
            after = re.match(r"\s*[,:;-]\s*([^,;:$\d]+)", described)  # "add a new ingredient, <name>"
            if not after or not new_name(after.group(1)) or re.search(r"\d|\$", after.group(1)):
                result.hint = f"What is the new {kind} called? Say \"add a new {kind} called ...\"."
                return True
            typed = CUES.type_words.get(folded_line(name)) or typed
            name, described = new_name(after.group(1)), described[after.end():]
        as_type = P.as_type.match(described)  # "add Diablo Dressing as a sauce"
        if as_type:
            typed, described = CUES.type_words.get(as_type.group(1)) or typed, described[as_type.end():]
        if name and P.pronoun_name.fullmatch(name):
            name = new_name(P.said_before.sub(" ", clause[:m.start()]))  # "<name> came in, add it as a sauce"
            if not name or normalize(name) in self.menu.lexicon:
                return False
        known = self.menu.lexicon.get(normalize(name or ""), {})
        if not name:
            return False
        name = known.get("item") or known.get("topping") or name
        result.acts.append(AddNew(Const(typed), name) if typed else AddUntyped(name))
        if said_category:
            result.acts.append(Add(name, Const("category"), said_category))
        self.describe(f"{described}; {rest}", name, ctx, result, asked=None, combo=typed == "combo")
        return True

    @staticmethod
    def machine_for(clause: str) -> str:
        """'the freeze machine is down for X and Y': X and Y are out (back, when it is back up)."""
        m = MACHINE_FOR.search(clause)
        if not m:
            return clause
        foods = clause[m.end():]
        return clause[:m.start()] + (f" {foods} is back" if P.machine_up.search(m.group()) else f" out of {foods}")

    # -- one clause ------------------------------------------------------------------------------
    def clause(self, clause: str, ctx: ManagerContext, target: str | None, result: ManagerParse) -> str | None:
        clause = P.none_left.sub(r"out of \1", P.places.sub(" ", clause))  # "no X left in the back": out of X
        clause = self.machine_for(clause)
        clause = P.equipment.sub(" ", clause)  # "the fryer's down, so ...": about a machine, not a food
        flat = plain_words(clause)
        acts = result.acts
        mentions = find_mentions(self.menu, tokenize(clause))
        items = [m.name for m in mentions if m.kind == "item"]
        kitchen = [m.alternatives["topping"] for m in mentions if "topping" in m.alternatives]

        if ctx.ask_topic == "type" and ctx.ask_target and not items:
            kind = next((CUES.type_words[w] for w in flat.split() if CUES.type_words.get(w)), None)
            if kind:
                acts.append(AddNew(Const(kind), ctx.ask_target))
                return target
        stock_names = list(dict.fromkeys([m.alternatives["topping"] for m in mentions if "topping" in m.alternatives]
                                         + [self.kitchen_reading(m.said, m.name, result) for m in mentions if m.kind == "item"]))
        if P.hedge.search(flat) and (kitchen or items) and not P.back_again.search(flat):
            result.hint = (f"Noted: {' and '.join(stock_names)} running low. Nothing is marked out until you "
                           "say it is out (\"we're out of ...\").")
            return target
        if (P.back_again.search(flat) or (P.restore.search(flat) and not P.delete.search(flat) and not P.add.search(flat))) \
                and (kitchen or items or any(self.family(word) for word in flat.split())):
            back = self.stock_list(clause, result) or stock_names
            acts += [self.stock_act("restore", name, result, back=True) for name in back]
            return target
        taken_out = P.taken_out.search(flat)
        if taken_out and any(m.kind == "item" for m in find_mentions(self.menu, tokenize(taken_out.group("owner")))):
            return self.deletion(clause, flat, items, kitchen, target, result, ctx.last_item)  # out of a dish
        if P.runout.search(flat) and not P.add.search(flat) and (not P.delete.search(flat) or "out of stock" in flat) and \
                not P.price_like.search(clause.lower()) and not P.stock_if.search(flat):
            said = self.stock_list(clause, result) or self.unknown_stock_name(flat, result)
            names = said if said else stock_names
            acts += [self.stock_act("runout", name, result) for name in names]
            return target
        return self.menu_change(clause, flat, mentions, ctx, target, result)

    def menu_change(self, clause: str, flat: str, mentions: list[Mention], ctx: ManagerContext, target: str | None,
                    result: ManagerParse) -> str | None:
        """A clause that is no stock news: a price moved, an ingredient taken off, a delete, a swap,
        or an item's price, calories or category edited."""
        acts, toks = result.acts, tokenize(clause)
        items = [m.name for m in mentions if m.kind == "item"]
        kitchen = [m.alternatives["topping"] for m in mentions if "topping" in m.alternatives]
        dishes = [m.name for m in mentions if m.kind == "item" and not self.names_a_kind(toks, m)]
        if three_decimals(clause):
            result.hint = "A price has at most two decimals (like $3.49); nothing changed."
            return target
        outside = " ".join(t for i, t in enumerate(toks) if is_word(t) and
                           not any(m.start <= i < m.end for m in mentions if m.kind == "item"))
        moved = self.price_move(clause, outside, result)  # "cheesy roll up" moves no price up
        if moved is not None and (dishes or result.last_edited):
            for item in dict.fromkeys(dishes or [result.last_edited or ""]):  # one of them is there
                acts.append(Edit(item, Const("price_by"), moved))
                result.last_edited = item
            return target
        if items and kitchen and P.not_included.search(flat):
            owner = items[0]  # "the bean burrito doesn't come with onions anymore": an ingredient edit
            result.acts += [DeleteValue(owner, Const("ingredient"), name) for name in kitchen if name != owner]
            return target
        repriced = P.price_like.search(clause.lower()) and P.reprice_words.search(flat)
        if P.delete.search(flat) and not repriced:
            return self.deletion(clause, flat, items, kitchen, target, result, ctx.last_item)
        swap = self.swap(clause, flat, items, kitchen, target, result)
        if swap:
            return target
        if not dishes and ctx.last_item and (P.refers_to_it_short.search(flat) or P.correction.search(flat)) \
                and P.price_like.search(clause.lower()) and not kitchen:
            dishes = [ctx.last_item]  # "make it 3.49", after asking about it
        if dishes and (P.edit.search(flat) or P.price_like.search(clause.lower())):
            items = dishes
            tokens = tokenize(clause)
            item_spans = {i for m in mentions if m.kind == "item" for i in range(m.start, m.end)}
            rest = " ".join(tok for i, tok in enumerate(tokens) if i not in item_spans)
            priced = P.priced_words.search(clause.lower()) or \
                P.price_like.search(clause.lower())
            if three_decimals(clause):
                result.hint = "A price has at most two decimals (like $3.49); nothing changed."
                return target
            named = P.becomes_category.search(rest)
            price = cents(rest, bare_is_price=bool(priced))
            if price is not None or P.calories.search(rest) or self.category(rest.split(" is ", 1)[-1], False) or named:
                for item in dict.fromkeys(items):  # "the soft and the crunchy taco are both 1.49"
                    self.properties(rest, item, ctx, result, asked="price" if priced else None, edit=True)
                    if named and price is None and not self.category(named.group(1), False):
                        result.acts.append(Edit(item, Const("category"), named.group(1).strip()))
                return target
        return self.addition(clause, flat, mentions, items, kitchen, ctx, target, result)

    def addition(self, clause: str, flat: str, mentions: list[Mention], items: list[str], kitchen: list[str],
                 ctx: ManagerContext, target: str | None, result: ManagerParse) -> str | None:
        """What is added to an item ("add onions to the X", "X: 3 tacos and a drink"), a new item's
        price, or the answer to what the bot asked of the item it is adding. `items`: the items the
        clause is about (those it names, or the one a price edit of "it" meant)."""
        acts = result.acts
        as_kind = P.as_kind.search(flat)
        m = P.add_to_owner.search(P.as_kind.sub(" ", flat).strip())
        if m and (items or kitchen):
            known = self.whole_names(m.group("owner"), "item")
            adding_to = known[0] if known else new_name(m.group("owner"))
            what = m.group("what")
            if adding_to in self.menu.names("combo"):
                for name, count in self.contents(what, result):
                    acts.append(Add(adding_to, Const("contains"), (name, count)))
            elif adding_to:
                prop = Const("popular") if P.popular.search(flat) or (as_kind and "popular" in as_kind.group()) \
                    else Const("ingredient")
                for name in self.names_in(what, result, "topping"):
                    acts.append(Add(adding_to, prop, name))
            return target
        if not items and (price_words := P.price_words.search(flat)):
            m = P.price_of_name.search(flat) or \
                P.name_costs.match(flat)
            costing = new_name(m.group("n")) if m else None
            if costing and P.pronoun_name.fullmatch(costing):  # "it costs 3.49": no dish called "it"
                costing = None if target else ctx.last_item
                if costing is None and not target:
                    result.hint = "Which item do you mean? Say its name with the price (\"the ... now costs $2.49\")."
                    return target
            if costing:
                self.properties(flat, costing, ctx, result, asked="price" if price_words.group(1) != "calories" else None,
                                edit=True)
                return target
        tokens = tokenize(clause)
        named_items = [m for m in mentions if m.kind == "item" and not self.names_a_kind(tokens, m, any_word=True)]
        if target and not named_items:
            self.describe(clause, target, ctx, result, asked=ctx.ask_topic if ctx.ask_target == target else None,
                          bare_list=False)
        return target

    def price_move(self, clause: str, flat: str, result: ManagerParse) -> int | None:
        """Cents a price moves by: 'raise X by 20 cents', 'knock a quarter off X', 'bump X up a
        dime', 'and Y by a dime' (the way of the clause before); None when it is not a move."""
        p = CUES
        amount = None
        coin = re.search(r"\b(?:(\w+) )?(" + "|".join(map(re.escape, p.coins)) + r")s?\b", flat)
        if coin:  # "a quarter", "another dime", "5 bucks", "two quarters"
            count = number_at([coin.group(1)], 0) if coin.group(1) else None
            amount = p.coins[coin.group(2)] * (count[0] if count else 1)
        elif not P.to_value.search(flat):
            amount = cents(folded_line(clause))
        if amount is None or amount <= 0:
            return None
        relative = P.relative_move.search(flat) and not P.to_value.search(flat)
        if not relative:
            return None
        if p.price_down.search(flat):
            result.moving = -1
        elif p.price_up.search(flat):
            result.moving = 1
        return amount * result.moving if result.moving else None

    def stock_list(self, clause: str, result: ManagerParse) -> list[str]:
        """Every name of a stock list: 'lettuce, tomatoes and onions are out', 'no more sour cream
        or pico tonight'; the cue words, time words and filler around the names are dropped."""
        text = folded_line(clause)
        text = P.eighty_six.sub(" ", text)
        text = P.runout.sub(" ", P.restore.sub(" ", P.back_again.sub(" ", P.time_words.sub(" ", text))))
        text = P.correct_not.sub(" , ", P.stock_filler.sub(" ", text))  # "lettuce is back, not the tomatoes"
        chunks = [c for c in P.stock_list_split.split(text) if normalize(c)]
        names = []
        for chunk in chunks[:MAX_LIST]:
            whole = self.stock_names(chunk, result, listed=len(chunks) > 1)
            if whole:  # "three cheese" is a name before it is a count; "tomatoes onions": two names
                names += whole
                continue
            phrase = " ".join(w for w in normalize(chunk).split() if w not in CUES.filler)
            if not phrase:
                continue
            if family := self.family(phrase):
                names += family
                result.heard.add(phrase)
                continue
            found = [m for m in (self.names.match(phrase, "topping"), self.names.match(phrase, "item")) if m]
            best = sorted(found, key=lambda m: m.how not in ("exact", "alias"))  # "mexican pizza": the dish
            name = best[0].name if best else self.names.holding(phrase.split(), "item")  # said in part
            if name and not best:
                result.heard.update(phrase.split())
            if best and best[0].how in ("lexical", "embedding"):
                result.corrected.append((phrase, best[0].name, best[0].how))
            if name is None:
                return []  # a word that is no name: the older reading decides
            names.append(name)
        return list(dict.fromkeys(names))

    def stock_names(self, chunk: str, result: ManagerParse, listed: bool) -> list[str]:
        """The names of a stock list's chunk when they account for every word of it, longest
        first, so a list without commas ("tomatoes onions and guac") is every name in it; a kitchen
        word after a name ("<dish> shells") goes with that name. Each is read as the kitchen knows
        it (`kitchen_reading`). Names side by side in a line that is no list (`listed`: "out of
        <meat> <meat>") may be one name the menu lacks: they are asked about."""
        tokens = [t for t in tokenize(chunk) if is_word(t)]
        mentions = [m for m in find_mentions(self.menu, tokens) if m.kind in ("item", "topping")]
        named = {i: m for m in mentions for i in range(m.start, m.end)}
        if not mentions:
            return []
        found: list[tuple[list[str], str]] = []  # (words said, the name they name)
        rest: list[str] = []  # words between the names: a name said some other way, or no name

        def other_name(before: Mention | None = None) -> bool:
            phrase = " ".join(w for w in rest if w not in CUES.filler)
            rest.clear()
            if not phrase:
                return True
            family = self.family(phrase)
            if family:
                found.extend(([name], name) for name in family)
                result.heard.add(phrase)
                return True
            name = self.known(phrase, "topping", result) or self.known(phrase, "item", result)
            if before and name and result.corrected and result.corrected[-1][:2] == (phrase, name):
                result.doubted.append(phrase)  # "grilled onions": a word only close to a name, said before
                return True  # another, may say which one is meant: asked about first
            found.append(([phrase], name or ""))
            return name is not None

        for i, token in enumerate(tokens):
            m = named.get(i)
            if m and i == m.start:
                if not other_name(before=m):
                    return []
                if found and not rest and i > 0 and named.get(i - 1) and m.kind == "item" and \
                        named[i - 1].kind != "item" and found[-1][1] == named[i - 1].alternatives.get("topping"):
                    result.doubted.append(" ".join(found[-1][0]))  # "chicken nachos": a food said before a dish
                elif found and not rest and not listed and i > 0 and named.get(i - 1):
                    result.doubted.append(" ".join(found[-1][0] + [" ".join(tokens[m.start:m.end])]))
                found.append(([token], m.alternatives.get("topping") or m.name))
            elif m:
                found[-1][0].append(token)
            elif token in CUES.kitchen_parts and found and not rest and i > 0 and i - 1 in named:
                found[-1][0].append(token)  # "<name> shells": the name's kitchen part
            else:
                rest.append(token)
        if not other_name():
            return []
        return list(dict.fromkeys(self.kitchen_reading(" ".join(said), name, result) for said, name in found))

    def names_a_kind(self, tokens: list[str], m, any_word: bool = False) -> bool:
        """'it's a burrito' names a kind, not a dish (any_word: 'a crunchy taco' too, by its last
        word); but a kind's word that is a dish's own whole name (a pack's one dish of a kind, called
        by the kind) is that dish."""
        said = " ".join(tokens[m.start:m.end])
        kind_word = bool({said, said.rstrip("s")} & set(self.categories))
        if kind_word and normalize(m.name) in (said, said.rstrip("s")):
            return False
        return kind_word or (any_word and self.category(said, False) is not None)

    def family(self, phrase: str) -> list[str]:
        """The dishes a plural of the last word their names share names ('the freezes'), when the
        word is no name, alias or category of its own: every one of them."""
        if " " in phrase or not phrase.endswith("s") or phrase in self.menu.lexicon or self.category_word(phrase):
            return []
        head = {phrase[:-1], phrase[:-2] if phrase.endswith("es") else phrase[:-1]}
        named = sorted(name for name in self.menu.items if normalize(name).split()[-1] in head)
        return named if len(named) > 1 else []

    def kitchen_reading(self, said: str, name: str, result: ManagerParse) -> str:
        """A dish said the way the kitchen says what it is made of is that ingredient: a short
        name's plural ("<dish>s", which all of that family share) or its words and a kitchen part
        ("<dish> shells") mean the one ingredient of the dish whose name has those words, when
        other dishes are made with it too. A dish said by its own name stays the dish; out and back read the same words the same way (and
        admin.lp brings back the dish when it was the one said out)."""
        if name not in self.menu.items or name in self.menu.toppings:
            return name
        words = [w for w in normalize(said).split() if w not in CUES.filler]
        kept = [w for w in words if w not in CUES.kitchen_parts]
        fits = [i for i in sorted(self.menu.included(name)) if kept and covers(kept, i)]
        if len(fits) != 1:
            return name
        own = self.names.spelled(said, "item")
        plural = kept[-1].endswith("s") and not kept[-1].endswith("ss")
        if (own and own.how == "exact") or (kept == words and not plural) or self.dishes_with[fits[0]] < 2:
            result.read_as[name] = fits[0]  # the dish said by its own name; back, it may mean the ingredient
            return name
        result.read_as[fits[0]] = name  # the reply says so, and how to mean the dish
        return fits[0]

    def stock_act(self, stock: str, name: str, result: ManagerParse, back: bool = False) -> Act:
        """The runout or restore of a food, with the other food the same words name (an ingredient
        read from a dish's words: that dish; back, a dish said by its name: that ingredient, in
        case it is the one out)."""
        other = result.read_as.get(name)
        said_as = other if other and (back or name in self.menu.toppings) else None
        if stock == "runout":
            return RunoutAs(name, said_as) if said_as else Runout(name)
        return RestoreAs(name, said_as) if said_as else Restore(name)

    def unknown_stock_name(self, flat: str, result: ManagerParse) -> list[str]:
        """'we are out of unicorn meat' -> the name as said (the bot says it is not on the menu)."""
        m = P.unknown_stock_after.search(flat) or \
            P.unknown_stock_before.match(flat)
        if not m:
            return []
        names = []
        for chunk in P.and_split.split(m.group(1)):
            words = [w for w in chunk.split() if w not in CUES.filler]
            phrase = " ".join(words)
            if not phrase:
                continue
            close = self.known(phrase, "topping", result) or self.known(phrase, "item", result) or new_name(phrase)
            if close:
                names.append(close)
        return names

    def deletion(self, clause: str, flat: str, items: list[str], kitchen: list[str], target: str | None,
                 result: ManagerParse, ctx_item: str | None = None) -> str | None:
        acts = result.acts
        m = P.owner_after.search(flat)  # "take the onions off the burrito"
        owner = None
        if m:
            owners = find_mentions(self.menu, tokenize(m.group(1)))
            owner = next((o.name for o in owners if o.kind == "item"), None)
        if owner is None and (target or ctx_item) and P.off_it.search(flat):
            owner = target or ctx_item
        if owner:
            kind = Const("popular") if "popular" in flat else None
            if "popular" in flat and P.all_popular.search(flat) and not kitchen:
                acts.append(DeleteAll(owner, Const("popular")))
                return target
            for name in dict.fromkeys(kitchen):
                acts.append(DeleteValue(owner, kind or Const("ingredient"), name))
            for name in (i for i in items if i != owner):
                acts.append(DeleteValue(owner, Const("contains"), (name, 1)))
            return target
        names = items or kitchen
        if not names:
            m = P.delete_name.search(flat)
            deleted = new_name(m.group(1)) if m else None
            if deleted:
                acts.append(Delete(self.known(deleted, "item", result) or deleted))
            return target
        acts += [Delete(name) for name in names]
        return target

    def swap(self, clause: str, flat: str, items: list[str], kitchen: list[str], target: str | None,
             result: ManagerParse) -> bool:
        """'replace lettuce with onions in the <dish>', 'use onions instead of lettuce'."""
        if not P.swap.search(flat):
            return False
        owner = items[-1] if items else target
        names = kitchen if len(kitchen) >= 2 else [i for i in items if i != owner]
        if owner is None or len(names) < 2:
            return False
        prop = Const("ingredient") if len(kitchen) >= 2 else Const("contains")
        old, new = names[0], names[1]
        if "instead of" in flat or P.use_put.search(flat):
            old, new = new, old
        pair = (old, new) if prop == "ingredient" else ((old, 1), (new, 1))
        result.acts.append(EditSwap(owner, prop, *pair))
        return True

    def properties(self, text: str, name: str, ctx: ManagerContext, result: ManagerParse, asked: str | None,
                   edit: bool = False) -> None:
        """The price, calories and category told for an item on the menu (an edit)."""
        folded = folded_line(text)
        folded = self.numbers(folded, name, "edit", asked, result)
        category = self.category(P.describe_split.split(folded)[0], asked == "category")
        if category and (asked == "category" or P.category_cue.search(folded)):
            result.acts.append(Edit(name, Const("category"), category))

    def numbers(self, folded: str, name: str, verb: str, asked: str | None, result: ManagerParse) -> str:
        """Reads the calories and the price of a part ('560 calories', '$4.49', a bare '4.49',
        'for 3'), appends them, and returns the part without them. A number with cents is a
        price even when calories were asked for ('sorry, make that 2.29')."""
        calories = P.calories.search(folded)
        if calories:
            result.acts.append(SETS[verb](name, Const("calories"), bounded(calories.group(1) or calories.group(2))))
            folded = folded[:calories.start()] + " " + folded[calories.end():]
        with_cents = re.search(r"(?<![\d.])-?\d+\.\d{2}\b", folded)
        if asked == "calories" and not calories and not with_cents and not MONEY.search(folded):
            m = re.search(r"-?\d+", folded)
            if m:
                result.acts.append(SETS[verb](name, Const("calories"), bounded(m.group())))
                return folded[:m.start()] + " " + folded[m.end():]
        if three_decimals(folded):
            result.hint = "A price has at most two decimals (like $3.49); nothing changed."
            return re.sub(r"\$?\s*\d+\.\d+", " ", folded)
        price = cents(folded, bare_is_price=asked == "price" or bool(with_cents) or bool(re.search(
            r"\b(for|at|costing|priced|costs?)\s+\$?\d", folded)))
        if price is not None:
            result.acts.append(SETS[verb](name, Const("price"), price))
            folded = re.sub(r"-?\d+(?:\.\d+)?", " ", MONEY.sub(" ", folded))
            folded = P.price_words_drop.sub(" ", folded)
        return folded

    def describe(self, text: str, name: str, ctx: ManagerContext, result: ManagerParse, asked: str | None,
                 combo: bool = False, bare_list: bool = True) -> None:
        """What the manager tells about a new item, in any order of parts: '<price>, it's a <category>,
        <calories>, with <ingredients>, people love <topping> on it'. Each comma-separated part is
        a price, calories, a category, the start of the ingredient (or combo contents) list, the
        popular toppings, or more of the list it continues. A bare list is ingredients in a
        description (`bare_list`); in a short answer only the list that was asked for is read."""
        combo = combo or ctx.build_type == "combo" or asked == "contains"
        mode = "contains" if combo else {"ingredient": "ingredient", "popular": "popular"}.get(asked or "")
        parts = P.parts.split(folded_line(text))
        if len(parts) > MAX_LIST:  # a turn reads a bounded list, and says so
            result.skipped += len(parts) - MAX_LIST
            parts = parts[:MAX_LIST]
        listing: list[tuple[str, str | list[str]]] = []  # (list, name or phrase): looked up at the end
        for part in parts:
            part = self.numbers(part, name, "add", asked, result)
            part = P.empty_part.sub("", part)
            if not normalize(part):
                continue
            if P.no_popular.search(part):
                result.acts.append(Add(name, Const("popular"), Const("none")))
                continue
            popular = P.popular.search(part)
            if popular:
                self.listed(part[:popular.start()], name, mode, combo, asked, result, bare_list, listing)
                part, mode = part[popular.end():], "popular"
            elif mode != "popular" and (contents := P.contents.search(part)):
                self.listed(part[:contents.start()], name, None, combo, asked, result, bare_list, listing)
                part, mode = part[contents.end():], "contains" if combo else "ingredient"
            mode = self.listed(part, name, mode, combo, asked, result, bare_list, listing)
        for mode in dict.fromkeys(m for m, _ in listing):  # every list's phrases share one lookup
            found = [entry for m, entry in listing if m == mode]
            for topping in self.resolved(found, result, "topping"):
                result.acts.append(Add(name, Const(mode), topping))

    def listed(self, part: str, name: str, mode: str | None, combo: bool, asked: str | None,
               result: ManagerParse, bare_list: bool, listing: list) -> str | None:
        """One part of a description: a category ('it's a burrito', 'breakfast'), or names for
        the list `mode` says (a part with no cue starts the ingredients or the contents); the
        ingredient and topping names go to `listing`."""
        part = P.listed_filler.sub(" ", part)
        if not normalize(part):
            return mode
        said_kind = P.category_said.match(normalize(part))
        category = self.category(part, False) if not combo else None
        if said_kind or (category and mode is None and len(normalize(part).split()) <= 3):
            if not combo:
                value = category or (self.category(said_kind.group(1), True) if said_kind else None)
                if value:  # "it's a": no kind said yet, the question stands
                    result.acts.append(Add(name, Const("category"), value))
            return mode
        if asked == "category" and not combo:
            value = self.category(part, True)
            if value:
                result.acts.append(Add(name, Const("category"), value))
            return mode
        if mode is None and not bare_list and not self.whole_names(part, "item" if combo else "topping"):
            return mode  # words that are no list of names, in an answer that asked for none
        if mode == "contains" or (mode is None and combo):
            for item, count in self.contents(part, result):
                result.acts.append(Add(name, Const("contains"), (item, count)))
            return "contains"
        mode = mode or "ingredient"
        listing += [(mode, entry) for entry in self.found_in(part, result, "topping")]
        return mode
