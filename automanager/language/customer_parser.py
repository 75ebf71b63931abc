"""The offline customer parser: text -> customer predicates, deterministically.

It is the "mock LLM" of the offline backend and must hold a real conversation. It works in
steps, as dialogue systems do:
  1. normalize: folded tokens, numbers in words (text2num), menu names from the KB lexicon;
  2. split into clauses and give each its dialogue act (order, change, remove, replace,
     question, suggestion, a short answer to the bot's last question): one small recognizer
     (`reads_*`) per reading of a clause, tried in the order `[readings]` of the phrase file
     declares; a question never changes the order;
  3. find what each clause mentions: items, ingredients, options (sizes, styles, crusts: the KB's
     option groups), quantities and words
     that refer back ("it", "those", "one of them"); words that look like a name but match none
     are corrected (close spelling, then sentence embeddings) or said back as not on the menu;
  4. attach each modifier to the item of its clause, or to the item the context means;
  5. refer back to the order (passed in as `Context`): "the drink" is the drink ordered.
The cue phrases live in `phrases_customer.toml`, not here, and no menu word appears in this file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from copy import deepcopy
from dataclasses import dataclass, replace
from itertools import pairwise, takewhile

from ..acts import (
    Accept,
    Act,
    BareList,
    Cancel,
    Complete,
    Copy,
    Decline,
    Either,
    Greet,
    Irrelevant,
    NeedRecommend,
    Order,
    Query,
    Quit,
    Refer,
    Remove,
    Replace,
    SetQuantity,
    Specify,
    Stop,
    Unsure,
    Update,
    UpdateUnits,
    Vague,
    Wrong,
)
from ..menu.model import Menu
from ..names import NameMatcher, covers
from ..normalize import normalize
from ..reasoner import Const, Value
from .coverage import CHANGING, Talk
from .food_sense import FoodSense, english
from .phrases import phrases
from .reading import Context, Parse, asked_not_taken
from .repair import Repairs
from .text import MULTIPLIERS, Mention, find_mentions, is_letters, is_word, number_at, tokenize

OPENERS = {"oh", "ok", "okay", "so", "um", "uh", "umm", "hmm", "well", "hi", "hey", "hello", "and", "but",
           "wait", "actually", "sorry", "yeah", "yes", "sure", "cool", "alright", "great", "sweet", "nah",
           "no", "then", "also", "hi there", "there", "guys", "oops", "shoot", "dang", "eh", "ah", "right", "hm",
           "huh", "er", "erm", "mm", "hmmm"}
ARTICLES = {"a", "an", "some", "any", "another"}
DEFINITE = {"the", "my", "that", "this", "those", "these"}
DETERMINERS = ARTICLES | DEFINITE
LINKING = {"to", "for", "into", "of", "than", "by", "instead", "like", "as"}  # "switch the X to a Y": one clause
POSSESSIVE_IS = re.compile(r"s (\w+)$")  # "the pepsis fine" is "the pepsi's fine": the pepsi is
STRETCHED = re.compile(r"(\w)\1+$")  # a last letter said long
ADJACENT_TRIES = 10  # back-to-back names looked up as one name, per line


def option_value(group: str, value: str, wanted: bool) -> tuple:
    """The Opt of an option update: (group, value, yes|no)."""
    return Const(group), value, Const("yes" if wanted else "no")


def line_of(act: Act) -> int:
    """The order line an act belongs to: 0 for none, or for an act that has no line."""
    return getattr(act, "line", 0)


@dataclass
class Clause:
    tokens: list[str]
    mentions: list[Mention]
    act: str = "order"
    asks: bool = False  # it ended with a question mark
    ends: bool = False  # it ended a sentence (a full stop, a question or exclamation mark)
    count: int | None = None  # how many of its food it orders, when its own number counts a list
    glued: bool = False  # no word cut it from the clause before ("two tacos a bean burrito")
    referred: bool = False  # it starts with a clause of its own that only refers ("the big one, ...")
    doubted: bool = False  # its act is a guess (an order after a removal said "make it ..."): asked about

    @property
    def text(self) -> str:
        return " ".join(t for t in self.tokens if is_word(t))

    def items(self) -> list[Mention]:
        return [m for m in self.mentions if m.kind == "item"]

    def toppings(self) -> list[Mention]:
        return [m for m in self.mentions if m.kind == "topping"]

    def options(self) -> list[Mention]:
        return [m for m in self.mentions if m.kind == "option"]


@dataclass
class Seen:
    """What the readings of a clause look at: the clause, its words without openers, its foods,
    the context, and the foods the clauses before it ordered."""

    clause: Clause
    text: str
    items: list[Mention]
    ctx: Context
    earlier: list[str]


def first_word_at(text: str, clause: Clause, m: Mention) -> int:
    """Where in the clause's text the words of mention m begin."""
    return len(" ".join(t for t in clause.tokens[:m.start] if is_word(t)))


class CustomerParser:
    def __init__(self, menu: Menu, names: NameMatcher | None = None):
        self.menu = menu
        self.names = names or NameMatcher(menu)
        self.p = phrases()
        self.option_tokens = frozenset(w for phrase in menu.option_words for w in phrase.split())
        # kinds a customer can ask for: the phrase data's ("combo") and the KB's labels ("vegetarian")
        self.category_words = {**self.p.category_words, **menu.label_words}
        # the words of a meal's choices ("sides", "the sauce"): said around picks, never unknown names
        self.group_words = frozenset(w for group in menu.groups for word in normalize(group).split() for w in (word, word + "s"))
        self.readings = [(getattr(self, "reads_" + reading), act) for reading, act in self.p.readings]
        self.item_words = {name: frozenset(normalize(name).split()) for name in menu.items}
        self.by_words = {words: name for name, words in self.item_words.items()}
        self.name_ends = frozenset(w.rstrip("s") for name in menu.items if (w := normalize(name).split()[-1:][0]))
        self.repairs = Repairs(menu, self.p, self.mentions_in, self.plain_word)
        self.brand = tuple(normalize(menu.restaurant).split())  # "I'm at <the restaurant>": never a food
        self.talk = Talk(self.p, FoodSense([*menu.items, *menu.toppings, *menu.categories]))
        self.vague_amounts = frozenset(self.p.data["words"]["vague_amounts"])
        self.vague_numbers = frozenset(self.p.data["words"]["vague_numbers"])
        self.kinds = set(self.category_words) | {c + end for c in menu.categories for end in ("", "s", "es")}
        # kind words of ingredients ("sauce"): the last word of two or more ingredient names that is
        # no name itself; said alone it means the dish's own ingredient of that kind (own_ingredient)
        heads: dict[str, int] = {}
        for name in menu.toppings:
            words = normalize(name).split()
            if len(words) > 1:
                heads[words[-1]] = heads.get(words[-1], 0) + 1
        self.kind_words = {w for w, n in heads.items() if n > 1 and w not in menu.lexicon}

    # -- the whole line ------------------------------------------------------------------
    def parse(self, text: str, ctx: Context | None = None) -> Parse:
        ctx = ctx or Context()
        said = " ".join(t for t in tokenize(text) if is_word(t))
        tokens = self.heard_numbers(self.repairs(self.not_quantities(self.without_discourse(self.unstretched(
            tokenize(text))))))
        flat = " ".join(t for t in tokens if is_word(t))
        talk = self.small_talk(flat)
        if talk and not talk[1]:  # "hi how are you doing I want a X": the order after the small talk
            tokens = self.after_small_talk(tokens)
            flat = " ".join(t for t in tokens if is_word(t))
        acts = self.p.acts
        if not flat and not said:
            return Parse([Irrelevant()], [], [])
        if acts["quit"].search(flat):
            return Parse([Quit()], [], [])
        if acts["store_rule"].search(flat):  # only a manager sets the store's rules: nothing is ordered
            return Parse([Irrelevant()], [], [])
        if (cue := self.whole_line_cue(said)) and not (ctx.ask_topic == "more" and acts["one_more"].search(said)):
            return Parse([Wrong() if cue == "wrong" else Greet(Const(cue))], [], [])
        mentions = self.mentions_in(tokens)
        asked = ctx.asked_kind[0] if ctx.asked_kind else None  # a food of another kind is no answer's name
        if not any(m.kind == "item" and (self.menu.category_of.get(m.name) in (asked, None) or m.name == asked)
                   for m in mentions) \
                and (answer := self.kind_answer(flat, ctx)):
            return answer  # "the veggie one": which of the kind asked about
        context = self.talk.spans(tokens, mentions, self.kinds, lambda w: self.plain_word(w) or bool(self.p.reply(w)))
        # the store's deals talked about ("I heard there's a deal on X"): the deals a manager stated are the answer
        deals: list[Act] = [Query(Const("deals"), "all", 1, None)] \
            if self.talk.deals.search(" ".join(tokens[i] for i in sorted(context))) else []
        if context:  # talk around the order ("for my son", "we're in a hurry") is read as nothing
            tokens = ["" if i in context else t for i, t in enumerate(tokens)]
            mentions = [m for m in mentions if not context & set(range(m.start, m.end))]
            flat = " ".join(t for t in tokens if is_word(t))
            if not self.talk.opened(flat):  # "we're in a hurry", "sorry, the baby's fussy": heard, and nothing to do
                return Parse(deals or [Greet(Const("hello" if talk and not ctx.ordered else "noted"))], [], [])
        tokens, mentions, choices = self.either_or(tokens, mentions, flat)
        bare = self.p.without_polite(flat)  # "I'm good, thanks": polite words only, and a closing among them
        unled = bare.split(" ", 1)[-1] if self.p.inside["no_first"].starts(bare) else bare  # "nah, that's good"
        complete = bool(acts["complete"].search(flat)) or ctx.ask_topic in (None, "else", "more") and (
            acts["complete_alone"].whole(unled) or not bare and bool(acts["complete_alone"].search(flat)))
        if (answer := self.whole_line_answer(tokens, mentions, flat, said, ctx, complete)) is not None:
            return answer
        return self.read_clauses(tokens, mentions, flat, ctx, talk, complete,
                                 [*(Either(*choice) for choice in choices), *deals])

    def whole_line_answer(self, tokens: list[str], mentions: list[Mention], flat: str, said: str, ctx: Context,
                          complete: bool) -> Parse | None:
        """A line that is one answer as a whole (yes, no, that's all, cancel, stop, "whatever" to a
        choice, "both" to "which one?", small talk), or None: its clauses are read."""
        acts = self.p.acts
        if ctx.ask_topic == "more" and acts["one_more"].search(said) and not any(m.kind == "item" for m in mentions):
            return Parse([Accept()], [], [])  # "one more thing": the summary's order reopens
        if not flat:
            return Parse([Irrelevant()], [], [])
        if not any(m.kind == "item" for m in mentions) and self.cancels_all(flat):
            return Parse([Cancel()], [], [])
        if acts["stop"].starts(self.opened(flat)) and len(flat.split()) <= 5:
            return Parse([Stop()], [], [])
        if ctx.ask_topic and ctx.ask_topic.startswith("choice") and not mentions and \
                self.p.any.whole(self.p.without_polite(self.opened(flat))):
            return Parse([Accept()], [], [])  # "whatever": the bot makes the choice
        if ctx.ask_topic and ctx.ask_topic.startswith("choice") and not mentions and \
                self.p.inside["decline_choice"].search(flat):
            return Parse([Decline()], [], [])  # "I don't want a drink": asked once more, then the default
        if ctx.held and (answer := self.which_answer(tokens, ctx)):
            return answer  # "both" to "which one?" is every unit, not a yes
        if self.as_it_is(flat, mentions):
            return Parse([Decline()], [], [])  # "no, the tacos are fine": nothing to change
        reply = self.p.reply(flat)
        if reply == "yes" and not mentions:
            return Parse([Accept()], [], [])
        if reply == "no" and not mentions:
            return Parse([Decline()], [], [])
        if ctx.recommended_toppings and (taken := self.suggested_but(tokens, mentions, ctx)):
            return taken
        if ctx.discussed and (taken := self.discussed_but(tokens, mentions, ctx)):
            return taken
        if complete and not mentions and (self.p.inside["no_first"].starts(flat) or self.only_cues(flat)):
            return Parse([Complete()], [], [])
        small_talk = self.small_talk(flat) if not mentions else None
        if small_talk and small_talk[1]:
            return Parse([Greet(Const(small_talk[0]))], [], [])
        return None

    def read_clauses(self, tokens: list[str], mentions: list[Mention], flat: str, ctx: Context,
                     talk: tuple[str, bool] | None, complete: bool, extra: list[Act]) -> Parse:
        """The line read clause by clause: each clause's act, names and references, then what the
        line as a whole adds (`extra`: choices left open, deals asked about)."""
        result = Parse([], [], [])
        clauses = self.with_references(self.clauses(tokens, mentions), ctx)
        for clause in clauses:  # "you still have X right": asked with a tag, no question mark
            clause.asks = clause.asks or self.p.questions["tags"].ends(clause.text) and \
                bool(self.p.questions["available"].search(clause.text))
        self.mark_requests(clauses, flat, ctx)
        half_heard = self.read_each(clauses, result, ctx)
        self.give_acts(clauses, ctx, flat)
        # "the chicken one, make it two": a reference no change or removal of the line acts on is half heard
        half_heard += [c for c in clauses if c.referred and c.act not in ("change", "remove") or c.doubted]
        self.count_of_a_list(clauses)
        self.units_of_a_list(clauses, result)
        state = {"line": 0, "last": ctx.ordered[-1] if flat.startswith("with ") and ctx.ordered else None,
                 "label": next((self.menu.label_words[w] for w in flat.split() if w in self.menu.label_words), None),
                 "each": self.p.each_unit.search(flat) is not None}  # "... on both": picks for each meal
        for clause in clauses:
            self.clause(clause, ctx, result, state)
        result.acts += extra
        if any(c in self.menu.combos for c in ctx.ordered) and any(isinstance(a, Order) for a in result.acts) \
                and not self.adds_more(tokens):  # what it means is only read after a meal
            result.acts.append(BareList())
        named = {w for clause in clauses for m in clause.mentions for w in clause.tokens[m.start:m.end]}
        result.unread = result.unknown + [w for w in self.p.stray_cue_words(flat) if w not in named
                                          and not self.grammar_word(w) and number_at([w], 0) is None]
        result.unknown = [said for said in result.unknown if self.talk.leftover(said.split())]  # talk is no name
        if any(clause.act in CHANGING for clause in half_heard):
            result.acts.append(Unsure())
        if complete:
            result.acts.append(Complete())
        result.acts = self.folded_names(result.acts, flat)
        totals = {a.food for a in result.acts if isinstance(a, SetQuantity)}  # "one more X, so two X total":
        result.acts = [a for a in result.acts if not (isinstance(a, Copy) and a.food in totals)]  # the total is all
        asked_not_taken(result)
        if not result.acts and not result.unknown and state["label"]:
            # "I'm vegetarian", "what's meatless?": nothing else said, the foods of that kind are the answer
            result.acts.append(Query(Const("menu"), state["label"], 1, None))
        if talk and not ctx.ordered:  # "hi, can I get a taco": hello back, then the order
            result.acts.insert(0, Greet(Const(talk[0])))
        if all(isinstance(p, Unsure) for p in result.acts) and not result.unknown:  # nothing read but doubt
            result.acts = [Irrelevant()]
        return result

    def folded_names(self, acts: list[Act], flat: str) -> list[Act]:
        """An item ordered with an option value that makes, with its name, another item's whole name
        ("the supreme ones" of a taco that has a Supreme of its own) is that other item; not when the
        value was said as an option ("supreme style")."""
        for act in acts:
            if not isinstance(act, Order) or not act.line:
                continue
            for update in acts:
                opt = update.option if isinstance(update, Update) else None
                if isinstance(update, Update) and isinstance(opt, tuple) and update.line == act.line and \
                        update.dish == act.food and str(update.operation) == "option" and str(opt[2]) == "yes" \
                        and f"{normalize(str(opt[1]))} {opt[0]}" not in flat:
                    longer = self.named_with(act.food, normalize(str(opt[1])).split())
                    if longer:
                        return self.folded_names(flat=flat, acts=[
                            a.but(food=longer) if a is act else a.but(dish=longer)
                            if isinstance(a, Update) and a.line == act.line and a.dish == act.food else a
                            for a in acts if a is not update])
        return acts

    def mark_requests(self, clauses: list[Clause], flat: str, ctx: Context) -> None:
        """A sentence said as a request ("can I get a X and a Y?") asks nothing: the question mark
        ends a request, not a question ("hi, it's me. can I get a X?")."""
        sentence: list[Clause] = []
        for clause in clauses:
            sentence.append(clause)
            if clause.ends or clause is clauses[-1]:
                opened = self.opened(" ".join(c.text for c in sentence))
                follow_up = ctx.asked_price and self.p.questions["follow_up"].starts(opened)  # "what about the X?"
                if (self.p.requests(self.opened(flat)) or self.p.requests(opened)) and not follow_up:
                    for part in sentence:
                        part.asks = False
                sentence = []

    def read_each(self, clauses: list[Clause], result: Parse, ctx: Context) -> list[Clause]:
        """Each clause's names, kinds and unknown words; the clauses read with words left over (half
        heard: their changes are asked about)."""
        counted: dict[str, int] = {}  # how many of each item the clauses so far ordered
        half_heard = []
        alone = {fits[0] for c in clauses if not c.items() and len(fits := self.fits_of(c.mentions)) == 1}
        among = alone.pop() if len(alone) == 1 else None  # "three medium, one ham, one plain": the ham one's item
        for before, clause in zip([None, *clauses], clauses):
            self.kind_with_ingredient(clause, result)
            self.kind_discussed(clause, ctx)
            self.combo_said_short(clause)
            self.variant_named(clause)
            self.counted_name(clause)
            if clause.act != "unknown":
                heard = len(result.unknown)
                self.find_unknown(clause, result, ctx, list(counted))
                self.name_runs_on(clause, result)
                if clause.act != "unknown" and any(self.talk.leftover(words.split()) and not self.tried_a_name(clause, words)
                                                   for words in result.unknown[heard:]):
                    half_heard.append(clause)
                self.implied_item(clause, counted, ctx, among)
            if clause.act == "unknown" and clause.glued and before:  # "a X 12 zorp pack": where X ends is unsure
                half_heard.append(before)
            for m in clause.items():
                counted[m.name] = counted.get(m.name, 0) + self.quantity_before(clause.tokens, m.start, clause.mentions, 1)
        return half_heard

    def not_quantities(self, tokens: list[str]) -> list[str]:
        """The tokens without numbers that count people or years ("a family of four", "for my 2
        kids", "she's 7", "not four"): they order nothing."""
        out: list[str] = []
        i = 0
        while i < len(tokens):
            got = number_at(tokens, i) if tokens[i] not in ("a", "an") else None
            if got:
                end = i + got[1]
                after = next((w for w in self.p.people_after if tuple(tokens[end:end + len(w)]) == w), None)
                before = next((w for w in self.p.people_before if tuple(out[len(out) - len(w):]) == w), None)
                if after and not before and self.names_item_at(tokens, end):
                    after = None  # "one kids meal": the words start a name on the menu, a count of it
                if after or before:
                    if before and not after:
                        del out[len(out) - len(before):]
                    i = end + (len(after) if after else 0)
                    continue
            out.append(tokens[i])
            i += 1
        return out

    def names_item_at(self, tokens: list[str], start: int) -> bool:
        """Does a name of the menu start at tokens[start]?"""
        return any(m.kind == "item" and m.start == start for m in self.mentions_in(tokens))

    def heard_numbers(self, tokens: list[str]) -> list[str]:
        """'I'll have to crunchy tacos and for bean burritos', 'to bean burritos' (a line heard, not
        typed): a word that sounds like a number, first in the line or after a word that orders or
        joins, and before a food said in the plural, is that number."""
        if not set(tokens) & self.p.number_homophones.keys():
            return tokens
        plural = {m.start for m in self.mentions_in(tokens) if m.kind == "item" and m.said.endswith("s")}
        return [self.p.number_homophones[t] if t in self.p.number_homophones and i + 1 in plural and
                (i == 0 or tokens[i - 1] in self.p.homophone_after) else t for i, t in enumerate(tokens)]

    def suggested_but(self, tokens: list[str], mentions: list[Mention], ctx: Context) -> Parse | None:
        """'sounds good, but not the sausage' after toppings were suggested: the suggested toppings
        are added, except those the rest of the line says no to (never the whole suggestion)."""
        cut = next((i for i, t in enumerate(tokens) if t in (",", "but", ".", "!")), None)
        if cut is None or self.p.reply(" ".join(t for t in tokens[:cut] if is_word(t))) != "yes" or not mentions or \
                any(m.kind != "topping" or self.operator_before(tokens, m, mentions) != "no" for m in mentions):
            return None
        left_out = {m.name for m in mentions}
        return Parse([Update(dish, Const("add"), topping) for dish, topping in ctx.recommended_toppings
                      if topping not in left_out], [], [])

    def discussed_but(self, tokens: list[str], mentions: list[Mention], ctx: Context) -> Parse | None:
        """'ok I'll take it, but no olives', 'can I do that without olives' about the food just asked
        about: a yes (the rules order it) and the changes said after it, on that food."""
        cut = next((i for i, t in enumerate(tokens) if t in (",", "but", "with", "without")), None)
        head = self.opened(" ".join(t for t in tokens[:cut] if is_word(t))) if cut is not None else ""
        taken = self.p.reply(head) == "yes" or self.p.requests(head) and self.refers_back(head)  # "can I do that"
        if not taken or not mentions or any(m.kind == "item" for m in mentions):
            return None
        rest = Clause(tokens, mentions, "order", False)
        acts: list[Act] = [Accept()]
        self.updates(rest, ctx.discussed, 0, ctx, acts)
        return Parse(acts, [], [])

    def mentions_in(self, tokens: list[str]) -> list[Mention]:
        """The menu names, ingredients and option values said, each read as the context of its
        words makes it ("no <side>" is the ingredient)."""
        mentions = self.names_with_and(tokens, [self.as_topping(tokens, m) for m in find_mentions(self.menu, tokens)
                                                if not self.verb_not_option(tokens, m)])
        return self.kind_of_ingredient(tokens, self.adjacent_names(tokens, mentions))

    def kind_of_ingredient(self, tokens: list[str], mentions: list[Mention]) -> list[Mention]:
        """'light sauce', 'extra sauce': a kind word of ingredients said alone is a topping mention
        of that word; updates makes it the dish's own ingredient of that kind, or says it back."""
        inside = {i for m in mentions for i in range(m.start, m.end)}
        found = [Mention(i, i + 1, "topping", tok, {"topping": tok, "kind_word": tok}, tok)
                 for i, tok in enumerate(tokens) if i not in inside and
                 (tok in self.kind_words or tok.endswith("s") and tok[:-1] in self.kind_words)]
        return sorted(mentions + found, key=lambda m: m.start) if found else mentions

    def names_with_and(self, tokens: list[str], mentions: list[Mention]) -> list[Mention]:
        """'a black bans and rice': a misspelled name with "and" in it is one name, not two
        clauses; each "and" is tried with the words around it up to the next article or splitter."""
        inside = {i for m in mentions for i in range(m.start, m.end)}
        for i, tok in enumerate(tokens):
            if tok != "and" or i in inside:
                continue
            start = i
            while start > 0 and tokens[start - 1] not in self.p.splitters and tokens[start - 1] not in ARTICLES \
                    and tokens[start - 1] not in ("a", "an") and not number_at(tokens, start - 1):
                start -= 1
            end = i + 1
            while end < len(tokens) and tokens[end] not in self.p.splitters and tokens[end] not in ("a", "an"):
                end += 1
            if start == i or end == i + 1:
                continue
            match = self.names.match(" ".join(tokens[start:end]), "item")
            if match and " and " in normalize(match.name) and match.how != "embedding":
                kept = [m for m in mentions if m.end <= start or m.start >= end]
                mentions = sorted(kept + [Mention(start, end, "item", match.name, {"item": match.name},
                                                  " ".join(tokens[start:end]))], key=lambda m: m.start)
                inside.update(range(start, end))
        return mentions

    def either_or(self, tokens: list[str], mentions: list[Mention], flat: str) \
            -> tuple[list[str], list[Mention], list[tuple[str, str]]]:
        """'a pepsi or a coke', 'with sour cream or guacamole': a choice the customer has not made.
        Two names of one kind joined by "or" (articles, numbers and options between them) are one
        thing when they name the same item with the same options, else neither is taken and the
        bot asks which: never both. Not after a "no" (it goes on over "or": "no onions or
        peppers"), nor in a question ("do you have pepsi or coke?"). The words of a choice are
        blanked, so they are neither ordered nor said back as not on the menu."""
        questions = self.p.questions
        if questions["starts"].starts(flat) and not self.p.requests(flat):
            return tokens, mentions, []
        tokens, kept, choices = list(tokens), list(mentions), []
        named = [m for m in mentions if m.kind in ("item", "topping")]
        sizes = [m for m in mentions if m.kind == "option"]  # "a medium or a large": two values of one group
        pairs = [*pairwise(named), *((a, b) for a, b in pairwise(sizes)
                                           if a.alternatives.get("option") == b.alternatives.get("option"))]
        for first, second in sorted(pairs, key=lambda pair: pair[0].start):
            if first.kind != second.kind or first not in kept or \
                    self.operator_before(tokens, first, mentions) == "no":
                continue
            own = [m for m in mentions if m.kind == "option" and m.end <= first.start and first.kind != "option" and
                   all(n.kind == "option" for n in mentions if m.end <= n.start < first.start)]
            options = [m for m in mentions if m.kind == "option" and first.end <= m.start < second.start]
            between = [t for i, t in enumerate(tokens[first.end:second.start], first.end)
                       if is_word(t) and number_at(tokens, i) is None and not any(m.start <= i < m.end for m in options)]
            if between.count("or") != 1 or any(t != "or" and t not in self.p.filler and t not in self.p.or_hedges
                                               for t in between):
                continue
            same = first.name == second.name and {m.name for m in own} == {m.name for m in options}
            gone = [second, *options] if same else [first, second, *options, *own]
            kept = [m for m in kept if m not in gone]
            lead = min(m.start for m in [first, *own])
            start = first.end if same else lead
            tokens[start:second.end] = [""] * (second.end - start)
            either = [i for i in range(lead - 1, max(lead - 3, -1), -1) if tokens[i] not in ARTICLES]
            if either and tokens[either[0]] == "either":  # "either a pepsi or a coke"
                tokens[either[0]] = ""
            if not same:
                choices.append((first.name, second.name))
        for phrase in self.p.any.phrases if choices else ():  # "pepsi or coke, doesn't matter": still asked
            words = phrase.split()
            for i in range(len(tokens) - len(words) + 1):
                if tokens[i:i + len(words)] == words and not any(m.start < i + len(words) and i < m.end for m in kept):
                    tokens[i:i + len(words)] = [""] * len(words)
        return tokens, kept, choices

    def adjacent_names(self, tokens: list[str], mentions: list[Mention]) -> list[Mention]:
        """'the spicy potatoe taco': two names said back to back, with nothing between them, are
        first read as one name with the words just before them; only a close spelling of a whole
        name counts (never two items the customer did not separate)."""
        out: list[Mention] = []
        tries = 0  # a line of a thousand names costs a bounded number of lookups
        for m in mentions:
            last = out[-1] if out else None
            if last and last.kind == m.kind == "item" and last.end == m.start and last.name != m.name \
                    and tries < ADJACENT_TRIES:
                tries += 1
                start = last.start
                while start > 0 and start > last.start - 2 and is_letters(tokens[start - 1]) and \
                        tokens[start - 1] not in self.p.filler and tokens[start - 1] not in ARTICLES and \
                        tokens[start - 1] not in self.p.splitters and not number_at(tokens, start - 1) and \
                        not any(x.start <= start - 1 < x.end for x in out):
                    start -= 1
                said = " ".join(tokens[start:m.end])
                whole = self.names.spelled(said, "item")
                if whole and whole.name not in (last.name, m.name):
                    out[-1] = Mention(start, m.end, "item", whole.name, {"item": whole.name}, said)
                    continue
                if last.start == start and m.said != normalize(m.name) and last.said != normalize(last.name):
                    out.pop()  # "a black bean chalupa" where none is sold, each said short: one name the
                    continue  # menu lacks (said back or asked), never two dishes nobody separated
            out.append(m)
        return out

    def verb_not_option(self, tokens: list[str], m: Mention) -> bool:
        """'can I get', 'can you': a word that names an option value (a can) used as a verb, where a
        sentence starts (never "not thin, I want it deep dish")."""
        starts = m.start == 0 or tokens[m.start - 1] in OPENERS or tokens[m.start - 1] in self.p.splitters
        return m.kind == "option" and m.end - m.start == 1 and starts and tokens[m.start] in self.p.request_modals \
            and tokens[m.end:m.end + 1] in (["i"], ["you"], ["we"], ["u"])  # "large I guess" stays a size

    def brand_at(self, tokens: list[str], i: int) -> tuple[str, ...] | None:
        """The restaurant's name said at tokens[i], whole or two or more of its words in a row ("is
        this the corner slice?" of a Corner Slice Pizzeria)."""
        for start in range(len(self.brand) - 1):
            for end in range(len(self.brand), start + 1, -1):
                if tuple(tokens[i:i + end - start]) == self.brand[start:end]:
                    return self.brand[start:end]
        return None

    def unstretched(self, tokens: list[str]) -> list[str]:
        """'yooo', 'uhhh', 'heyyy': a word of talk said long is that word (never a word of its own,
        such as "off", nor a name)."""
        return [short if t not in self.menu.lexicon and not english(t) and (short := STRETCHED.sub(r"\1", t)) != t and
                (short in self.p.filler or short in OPENERS or short in self.p.acts["hello"].phrases) else t
                for t in tokens]

    def without_discourse(self, tokens: list[str]) -> list[str]:
        """The tokens without phrases that only steer the talk ("oh, one more thing") and the
        restaurant's own name ("sorry, I'm at the <restaurant>"); "no wait" before "make it two X"
        is the cue of that correction, no removal."""
        out, i = [], 0
        rest = [t for t in tokens[2:] if t != ","]
        if tuple(tokens[:2]) in self.p.repair_strong and set(tokens[:2]) & self.p.negation and \
                self.p.inside["recount"].starts(" ".join(rest)):
            i = 2
        while i < len(tokens):
            phrase = next((d for d in self.p.discourse.get(tokens[i], ()) if tuple(tokens[i:i + len(d)]) == d), None) \
                or self.brand_at(tokens, i)
            if phrase:
                i += len(phrase)
            elif tokens[i] in self.p.negation and [t for t in tokens[i + 1:i + 3] if t != ","][:1] and \
                    [t for t in tokens[i + 1:i + 3] if t != ","][0] in self.p.only_words:
                i += 2 if tokens[i + 1:i + 2] == [","] else 1  # "no, just cheese": an answer, then what is wanted
            else:
                out.append(tokens[i])
                i += 1
        return out

    def small_talk(self, flat: str) -> tuple[str, bool] | None:
        """(kind, alone) when the line opens with a greeting, small talk or thanks; alone: the
        line says nothing else (polite words aside)."""
        found = [(match.start(), kind) for kind in ("hello", "how_are_you", "thanks")
                 if (match := self.p.acts[kind].search(flat))]
        if not found:
            return None
        rest = flat
        for kind in ("how_are_you", "hello", "thanks"):
            rest = self.p.acts[kind].sub(" ", rest)
        rest = self.p.polite.sub(" ", rest)
        kind = "how_are_you" if any(k == "how_are_you" for _, k in found) else min(found)[1]
        alone = all(w in OPENERS or w in ("there", "you", "guys", "folks", "all", "today", "again") for w in rest.split())
        return (kind, alone) if alone or min(found)[0] == 0 else None

    def after_small_talk(self, tokens: list[str]) -> list[str]:
        """The tokens after the greetings and small talk a line opens with."""
        i = 0
        while True:
            while i < len(tokens) and (tokens[i] in OPENERS or not is_word(tokens[i])):
                i += 1
            rest = " ".join(tokens[i:])
            found = next((f for kind in ("how_are_you", "hello") if (f := self.p.acts[kind].search(rest))
                          and f.start() == 0), None)
            if found is None:
                return tokens[i:]
            i += len(rest[:found.end()].split())

    def as_it_is(self, flat: str, mentions: list[Mention]) -> bool:
        """Does the line end saying what it names is fine the way it is, with no size, option or
        topping said ("no the tacos are fine", "those are normal")?"""
        words = flat.split()
        return self.p.inside["as_is"].ends(flat) and not any(
            m.kind == "option" or m.kind == "topping" and words[m.start - 1:m.start] != ["the"] for m in mentions)

    def whole_line_cue(self, said: str) -> str | None:
        """'wrong' for "that's not what I said", 'wait' for "hold on, let me think": a line of that
        cue alone (openers, polite words and a "no" aside), which orders and changes nothing."""
        for kind in ("wrong", "wait"):
            cue = self.p.inside[kind]
            rest = self.p.inside["cue_around"].sub(" ", self.p.polite.sub(" ", cue.sub(" ", said))).split()
            if cue.search(said) and all(w in OPENERS or self.p.reply(w) == "no" for w in rest):
                return kind
        return None

    def cancels_all(self, flat: str) -> bool:
        cue = self.p.acts["cancel"]
        return flat in ("cancel", "start over") or \
            bool(cue.search(flat) and self.p.acts["cancel_scope"].search(flat))

    def only_cues(self, flat: str) -> bool:
        """A line of nothing but a closing phrase and polite words ("ok thats it thanks")."""
        rest = self.p.acts["complete"].sub(" ", flat)
        rest = self.p.polite.sub(" ", rest)
        return all(w in self.p.filler or w in OPENERS for w in rest.split())

    def adds_more(self, tokens: list[str]) -> bool:
        """Does the line start (after "uh", "ok"...) with a word saying its foods are more ("and a
        coke", "also")? "and" is an opener too, so it is looked for before the openers are passed."""
        first = next((i for i, t in enumerate(tokens) if t not in OPENERS or
                      any(tuple(tokens[i:i + len(w)]) == w for w in self.p.adding_openers)), len(tokens))
        return any(tuple(tokens[first:first + len(w)]) == w for w in self.p.adding_openers)

    @staticmethod
    def opened(text: str) -> str:
        """The clause without the words people start with ("oh", "ok so", "hi there")."""
        words = text.split()
        while words and words[0] in OPENERS:
            words.pop(0)
        return " ".join(words)

    def as_topping(self, tokens: list[str], m: Mention) -> Mention:
        """A name that is both a side dish and an ingredient is the ingredient after a word that
        introduces one: "with <it>", "no <it>", "sub <it>", "<it> instead of"."""
        after = tokens[m.end:m.end + 2]
        cue = any(m.start >= n and tuple(tokens[m.start - n:m.start]) in self.p.operator_of
                  for n in self.p.operator_lengths) or \
            bool(self.p.substitute.search(" ".join(tokens[max(m.start - 6, 0):m.start])))
        if m.kind == "item" and "topping" in m.alternatives and (cue or after == ["instead", "of"]):
            return replace(m, kind="topping", name=m.alternatives["topping"])
        return m

    def clauses(self, tokens: list[str], mentions: list[Mention]) -> list[Clause]:
        inside = {i for m in mentions for i in range(m.start, m.end)}
        cuts, start = [], 0
        for i, tok in enumerate(tokens):
            item_before = any(m.kind == "item" and start <= m.start and m.end <= i for m in mentions)
            if item_before and i not in inside and i > start and (tok in ("a", "an") or self.counts(tokens, i)) \
                    and tokens[i - 1] not in self.p.operator_words and tokens[i - 1] not in LINKING \
                    and not any(m.start == i for m in mentions) and self.names_ahead(tokens, i, mentions) \
                    and not self.p.acts["replace"].search(" ".join(tokens[start:i])) \
                    and not any(m.kind == "item" and m.end == i and m.start >= start + 2 and  # "make that X a Y"
                                self.p.inside["replace_that"].whole(" ".join(tokens[m.start - 2:m.start]))
                                for m in mentions):  # "make the X a Y": one clause
                cuts.append((start, i))  # "two tacos a bean burrito", "a pizza with ham one medium pizza": two clauses
                start = i
            elif i > start and i not in inside and self.unit_follows(tokens, start, i, mentions):
                cuts.append((start, i))  # "a large pepperoni a medium hawaiian": each its own unit
                start = i
            elif i > start + 1 and i not in inside and self.unnamed_unit_ends(tokens, start, i, mentions):
                cuts.append((start, i))  # "two beefy five layers a <name>": the words before, a name of their own
                start = i
            elif item_before and i > start and self.named_again(tokens, i, mentions):
                cuts.append((start, i))  # "a coke and a diet coke the coke large": about the coke said
                start = i
            elif tok in self.p.only_words and i > start + 1 and i not in inside and \
                    self.p.acts["remove"].search(" ".join(tokens[start:i])) and \
                    (tokens[i - 1] in ("one", "ones") or any(m.end == i for m in mentions)):
                cuts.append((start, i))  # "scratch the pepperoni one just the hawaiian": what stays, said after
                start = i
            if tok in self.p.splitters and i not in inside:
                # "and" between two modifiers of one dish keeps the clause ("with beans and extra cheese")
                if tok in ("and", ",") and self.modifier_follows(tokens, i, mentions, item_before):
                    continue
                if tok in ("also", "then") and i - start <= 2 and tokens[i - 1:i] in (["i"], ["we"], ["you"]):
                    continue  # "can I also get": one clause
                if tok == "," and self.choices_for_them(tokens[start:i], mentions, start):
                    continue  # "drinks for those, a X and a Y": the choices said after the pause
                cuts.append((start, i))
                start = i + 1
        cuts.append((start, len(tokens)))
        return [Clause(tokens[a:b], [replace(m, start=m.start - a, end=m.end - a) for m in mentions if a <= m.start < b],
                       asks="?" in tokens[b:b + 1], ends=tokens[b:b + 1] in (["."], ["!"], ["?"]),
                       glued=a > 0 and tokens[a - 1] not in self.p.splitters)
                for a, b in cuts if b > a and any(is_word(t) for t in tokens[a:b])]

    def choices_for_them(self, words: list[str], mentions: list[Mention], start: int) -> bool:
        """'drinks for those', 'sides for them': a combo's group named for units referred to, no
        food named; the choices follow."""
        groups = {g.lower() for g in self.menu.groups}
        return not any(m.kind == "item" and start <= m.start < start + len(words) for m in mentions) and \
            any(w in groups or w.removesuffix("s") in groups for w in words) and self.refers_back(" ".join(words))

    def with_references(self, clauses: list[Clause], ctx: Context) -> list[Clause]:
        """'the first one, make it deep dish': a clause that only refers to ordered units is the
        target of the clause after it (when that one names no food of its own)."""
        out: list[Clause] = []
        for clause in clauses:
            before = out[-1] if out else None
            if before and not clause.items() and not before.ends and self.only_reference(before, ctx):
                shift = len(before.tokens)
                out[-1] = Clause(before.tokens + clause.tokens, before.mentions +
                                 [replace(m, start=m.start + shift, end=m.end + shift) for m in clause.mentions],
                                 asks=clause.asks, ends=clause.ends, glued=before.glued, referred=True)
            else:
                out.append(clause)
        return out

    def only_reference(self, clause: Clause, ctx: Context) -> bool:
        """Is the clause nothing but a reference to ordered units ("the big one", "the first thing I
        ordered", "the one with chicken")?"""
        refs, used = self.unit_refs(clause, ctx)
        inside = {i for m in used for i in range(m.start, m.end)}
        return bool(refs) and len(used) == len(clause.mentions) and all(
            i in inside or t in self.p.definite or t in self.p.unit_nouns or t in self.p.ordinals or
            t in self.p.filler or t in self.talk.words for i, t in enumerate(clause.tokens) if is_word(t))

    def named_again(self, tokens: list[str], i: int, mentions: list[Mention]) -> bool:
        """Does a definite word at tokens[i] start a name said as an item earlier in the line ("the
        coke" after "a coke"), not after a word that links it to what comes before?"""
        after = next((m for m in mentions if m.start == i + 1 and m.kind == "item"), None)
        return tokens[i] in self.p.definite and after is not None and \
            tokens[i - 1] not in self.p.operator_words and tokens[i - 1] not in LINKING and \
            any(m.kind == "item" and m.name == after.name and m.end <= i for m in mentions)

    def unnamed_unit_ends(self, tokens: list[str], start: int, i: int, mentions: list[Mention]) -> bool:
        """'two beefy five layers a cheesy gordita crunch': a count, then words that name nothing yet
        (a name said loosely), end where an article starts a name: the count is theirs."""
        got = number_at(tokens, start)
        return got is not None and tokens[start] not in ("a", "an") and tokens[i] in ("a", "an") and \
            any(m.start == i + 1 and m.kind == "item" for m in mentions) and \
            not any(start <= m.start < i for m in mentions) and tokens[i - 1] not in LINKING and \
            tokens[i - 1] not in self.p.operator_words and \
            any(is_letters(t) and t not in self.p.filler for t in tokens[start + got[1]:i])

    def unit_follows(self, tokens: list[str], start: int, i: int, mentions: list[Mention]) -> bool:
        """'a large pepperoni a medium hawaiian': a counted run of options and ingredients with no
        name (an item implied_item finds) ends where an article or a number starts another such run."""
        got = number_at(tokens, i)
        if not got or tokens[i - 1] in self.p.operator_words or tokens[i - 1] in LINKING:
            return False
        before = [m for m in mentions if start <= m.start and m.end <= i]
        nxt = next((m for m in mentions if m.start >= i), None)
        if not before or any(m.kind == "item" for m in before) or nxt is None or nxt.start != i + got[1] or \
                nxt.kind not in ("option", "topping") or any(m.start <= i < m.end for m in mentions):
            return False
        counted = next((j for j in range(start, before[0].start) if number_at(tokens, j)), None)
        return counted is not None and all(tokens[j] in (",",) or any(m.start <= j < m.end for m in before)
                                           for j in range(before[0].start, i))

    def modifier_follows(self, tokens: list[str], i: int, mentions: list[Mention], item_before: bool) -> bool:
        """Does an ingredient (after modifier words only: "and extra cheese") or an option of the
        item named before ("a pizza with ham and thin crust", no item after it) follow the
        splitter at tokens[i]?"""
        nxt = next((m for m in mentions if m.start > i), None)
        if nxt is None or any(t not in self.p.operator_words for t in tokens[i + 1:nxt.start]):
            return False
        ahead = next((j for j in range(i + 1, len(tokens)) if tokens[j] in self.p.splitters), len(tokens))
        if any(t in self.p.ordinals and tokens[j - 1] == "the" for j, t in enumerate(tokens[i + 1:ahead], i + 1)):
            return False  # "onions on the first one and peppers on the second": each its own unit
        if any(tokens[m.start - 1] in self.p.definite and tokens[m.end:m.end + 1] and tokens[m.end] in self.p.unit_nouns
               for m in mentions if i + 1 < m.start < ahead):
            return False  # "the mushroom one medium and the olive one personal": each unit its own
        return nxt.kind == "topping" or nxt.kind == "option" and nxt.start == i + 1 and item_before and \
            not self.names_ahead(tokens, nxt.end - 1, mentions)

    def names_ahead(self, tokens: list[str], i: int, mentions: list[Mention]) -> bool:
        """Is a food named after tokens[i] before the next splitter ("a bean burito", not "a large")?"""
        starts = {m.start for m in mentions if m.kind == "item"}
        for j in range(i + 1, len(tokens)):
            if tokens[j] in self.p.splitters:
                return False
            if j in starts or (not self.plain_word(tokens[j]) and not number_at(tokens, j)):
                return True
        return False

    @staticmethod
    def counts(tokens: list[str], i: int) -> bool:
        """Does a number at tokens[i] count what follows it ("2 burritos", not "pepsi x2")?"""
        got = number_at(tokens, i)
        after = tokens[i + got[1]:i + got[1] + 1] if got else []
        return bool(after) and is_letters(after[0]) and after[0] not in ("of", "please", "thanks", "more", "total")

    # -- words that look like a name -------------------------------------------------------
    def off_menu_words(self, clause: Clause) -> list[str]:
        """The runs of words after "do you have" (the cue of an availability question) that are no
        menu name and no word of the phrase data: what was asked about and is not on the menu."""
        said = " ".join(clause.tokens)
        cue = self.p.questions["available"].search(said)
        after = len(said[:cue.end()].split()) if cue else len(clause.tokens)
        runs, run = [], []
        for i, tok in enumerate(clause.tokens + [""]):
            named = i < after or any(m.start <= i < m.end for m in clause.mentions)
            if is_letters(tok) and not named and not self.plain_word(tok):
                run.append(tok)
            elif run:
                runs.append(" ".join(run))
                run = []
        return runs

    def plain_word(self, word: str) -> bool:
        """A word that is not part of a name: filler, a cue, an option word, a modifier."""
        return word in self.p.cue_words or self.grammar_word(word)

    def grammar_word(self, word: str) -> bool:
        """A plain word other than a cue's: filler, an option word, a modifier, a count's noun."""
        p = self.p
        return (word in p.filler or word in self.option_tokens
                or word in p.operator_words or word in OPENERS or word in p.drink or not is_letters(word)
                or word in self.category_words or word in p.unit_nouns or word in p.ordinals or word in p.person_unit
                or word in self.vague_amounts or word in self.group_words)

    def ordered_by_words(self, said: str, ctx: Context) -> str | None:
        """'the pizzas', 'one of the tacos': an ordered food whose name holds every word said."""
        words = [w for w in said.split() if w not in self.p.filler]
        matching = [f for f in ctx.ordered if words and covers(words, f)]
        return matching[-1] if len(set(matching)) == 1 else None

    def words_around_a_name(self, clause: Clause, content: list[int], numbers: set[int], result: Parse,
                            ctx: Context) -> None:
        """'a ceesy bean and rice burrito': words before a name may belong to it. The span up to
        that name is looked up whole; if it names nothing, the words are said back, never dropped."""
        toks = clause.tokens
        item = next((m for m in clause.items() if m.start > content[0]), None)
        if item is None:  # words after the last name: part of it ("... spreme combo"), or said back
            self.words_after_a_name(clause, content, result)
            return
        content = [i for i in content if i < item.start]  # "the X pizza like they have at Y": "X pizza"
        end = item.end
        while end < len(toks) and (toks[end] in self.category_words or toks[end] in self.option_tokens):
            end += 1  # "... crunchwrap combo": the name goes on
        span = " ".join(t for i, t in enumerate(toks[content[0]:end], start=content[0])
                        if is_word(t) and (t not in self.p.filler or i in numbers))
        start = content[0]
        trailing = next((m for m in clause.toppings() if m.start == end), None)  # "... burrito steak"
        leading = next((m for m in clause.mentions if m.end == start), None)  # "black bean cntina ..."
        name = None
        for before, after in ((leading, None), (None, trailing)):
            if before or after:
                longer_said = " ".join(x for x in (before and before.said, span, after and after.said) if x)
                longer = self.names.match(longer_said, "item")
                if longer and longer.how != "embedding":
                    name, span = longer.name, longer_said
                    start, end = (before.start if before else start), (after.end if after else end)
                    result.corrected.append((span, name, longer.how))
                    break
        name = name or self.names.lookup(span, "item", result.corrected)
        if name:
            kept = [m for m in clause.mentions if m.end <= start or m.start >= end]
            clause.mentions = sorted(kept + [Mention(start, end, "item", name, {"item": name}, span)],
                                     key=lambda m: m.start)
        elif content[-1] + 1 == item.start:  # "a volcano taco": a word the menu lacks makes it no dish of ours
            self.said_back(clause, item, span, result)
        else:  # "the spicy one with a taco": the words are said back, the name said stands
            spoken = [i for i in content if i < item.start]
            words = " ".join(toks[i] for i in spoken)
            ordered = self.ordered_by_words(words, ctx)  # "make the roll up a Y": the ordered one, said in part
            if ordered:
                clause.mentions = sorted(clause.mentions + [Mention(spoken[0], spoken[-1] + 1, "item", ordered,
                                                                    {"item": ordered}, words)], key=lambda m: m.start)
            else:
                result.unknown.append(words)

    def words_after_a_name(self, clause: Clause, content: list[int], result: Parse) -> None:
        toks = clause.tokens
        last = clause.items()[-1]
        end = content[-1] + 1
        while end < len(toks) and (toks[end] in self.category_words or toks[end] in self.option_tokens):
            end += 1
        after = [t for t in toks[last.end:end] if is_word(t) and t not in self.p.filler]
        if not after:
            return
        if set(toks[last.end:content[0]]) & (ARTICLES | LINKING) and self.p.acts["replace"].search(clause.text):
            # "switch the X to a beefy five layer": a name of its own
            said = " ".join(t for t in toks[content[0]:end] if is_word(t))
            whole = self.names.lookup(said, "item", result.corrected)
            if whole:
                clause.mentions = sorted(clause.mentions + [Mention(content[0], end, "item", whole, {"item": whole}, said)],
                                         key=lambda m: m.start)
                return
        counted = last.start > 0 and toks[last.start - 1].isdigit()  # "2 chicken chalupas ... combo"
        for start in ([last.start - 1] if counted else []) + [last.start]:
            said = " ".join(toks[start:last.end] + after)
            whole = self.names.lookup(said, "item", result.corrected)
            if whole:
                kept = [m for m in clause.mentions if m is not last]
                clause.mentions = sorted(kept + [Mention(start, end, "item", whole, {"item": whole}, said)],
                                         key=lambda m: m.start)
                return
        if self.ends_a_name(last.said) or toks[last.end:last.end + 1] != after[:1]:
            # "a pizza and some garlic fries": an ingredient's word that starts the name said back is
            # part of that name, never an ingredient added to the dish before it
            joined = [m for m in clause.mentions if m.kind == "topping" and m.end == content[0]]
            if joined:
                after = [t for t in toks[joined[0].start:end] if is_word(t) and t not in self.p.filler]
                clause.mentions = [m for m in clause.mentions if m not in joined]
            result.unknown.append(" ".join(after))  # "two tacos pronto": the name is whole; the words are said back
        else:  # "nacho fries": a name that goes on with words no name has is no dish of ours
            self.said_back(clause, last, " ".join(toks[last.start:last.end] + after), result)

    def ends_a_name(self, said: str) -> bool:
        """Does the phrase end as menu names end ("... taco", "... pepsi"), so words after it are not
        part of it?"""
        words = said.split()
        return bool(words) and (words[-1] in self.name_ends or words[-1].rstrip("s") in self.name_ends)

    @staticmethod
    def said_back(clause: Clause, item: Mention, said: str, result: Parse) -> None:
        """A name said with words no menu name has: the whole of it is said back and its food is
        not ordered (a "lava burrito" is no bean burrito); the rest of the clause stands."""
        result.unknown.append(said)
        clause.mentions = [m for m in clause.mentions if m is not item]
        if not clause.items():
            clause.act, clause.mentions = "unknown", []

    def variant_named(self, clause: Clause) -> None:
        """'the steak grande toasted breakfast burrito', '... burrito with steak', 'a veggie power
        menu bowl': a food named with a word of an ingredient (just before it, or after "with") or a
        word of no name just before it is the menu's own food whose name is that food's name with
        the word, when the menu has exactly one: never the food with it added, nor the word dropped."""
        toks = clause.tokens
        for item in clause.items():
            free = item.start  # the words of no mention just before the name
            while free > 0 and is_letters(toks[free - 1]) and toks[free - 1] not in self.p.filler and \
                    not any(m.start < free <= m.end for m in clause.mentions):
                free -= 1
            spans = [(t.start, t.end, t) for t in clause.toppings()
                     if t.end == item.start and self.operator_before(toks, t, clause.mentions) in (None, "add")
                     or t.start == item.end + 1 and toks[item.end] == "with"]
            for start, end, t in spans + [(free, item.start, None)] * (free < item.start):
                own, said = set(normalize(item.name).split()), set(toks[start:end] if t is None else normalize(t.said).split())
                fits = [f for f, its in self.item_words.items() if f != item.name and own < its and its - own <= said]
                if len(fits) == 1:
                    start, end = min(item.start, start), max(item.end, end)
                    kept = [m for m in clause.mentions if m is not item and m is not t]
                    clause.mentions = sorted(kept + [Mention(start, end, "item", fits[0], {"item": fits[0]},
                                                             " ".join(toks[start:end]))], key=lambda m: m.start)
                    return

    def counted_name(self, clause: Clause) -> None:
        """'a 12 pack of <name>', 'a dozen <name>': a count (and a word before "of") that, after the
        name, make another name of the menu ("<name> 12 Pack") are that name, never twelve of the one said."""
        toks = clause.tokens
        for item in clause.items():
            own = {w for w in normalize(item.name).split() if not w.isdigit()}
            for j in range(max(0, item.start - 3), item.start):
                got = number_at(toks, j) if toks[j] not in ("a", "an") or toks[j + 1:j + 2] == ["dozen"] else None
                if not got or j + got[1] != item.start:
                    continue
                fits = [f for f in self.menu.items if str(got[0]) in normalize(f).split() and
                        own <= set(normalize(f).split())]
                if len(fits) == 1 and fits[0] != item.name:
                    kept = [m for m in clause.mentions if m is not item]
                    clause.mentions = sorted(kept + [Mention(j, item.end, "item", fits[0], {"item": fits[0]},
                                                             " ".join(toks[j:item.end]))], key=lambda m: m.start)
                break
            of = item.start - 1 - (toks[item.start - 1:item.start] == ["the"])  # "a 12 pack of (the) <name>"
            i = next((j for j in range(max(0, of - 4), of - 1) if (got := number_at(toks, j)) and j + got[1] == of - 1
                      and toks[j] not in ("a", "an")), None)  # "twelve pack of ...": the count in words too
            said = number_at(toks, i) if i is not None else None
            if i is None or said is None or toks[of] != "of" or not is_letters(toks[of - 1]):
                continue
            count = str(said[0])
            match = self.names.match(f"{item.said} {count} {toks[of - 1]}", "item")
            if match is None or match.how == "embedding":
                continue
            words = set(normalize(match.name).split())
            if count in words and {w for w in normalize(item.name).split() if not w.isdigit()} <= words:
                kept = [m for m in clause.mentions if m is not item]
                clause.mentions = sorted(kept + [Mention(i, item.end, "item", match.name, {"item": match.name},
                                                         " ".join(toks[i:item.end]))], key=lambda m: m.start)

    def name_runs_on(self, clause: Clause, result: Parse) -> None:
        """A name read from misspelled words with an ingredient said right before or after it, where
        the ingredient's words and the name make a longer name of the menu ('<dish> <meat>' sold
        as its own dish): that longer name, as the same words spelled right are; never the
        shorter dish with the ingredient added."""
        for first, second in zip(clause.mentions, clause.mentions[1:]):
            kinds = (first.kind, second.kind)
            if first.end != second.start or kinds not in (("item", "topping"), ("topping", "item")) or \
                    first.kind == "topping" and self.operator_before(clause.tokens, first, clause.mentions):
                continue
            item = first if first.kind == "item" else second
            said = f"{first.said} {second.said}"
            longer = self.names.spelled(said, "item")
            if not longer or not set(normalize(item.name).split()) < set(normalize(longer.name).split()):
                continue
            whole = Mention(first.start, second.end, "item", longer.name, {"item": longer.name}, said)
            clause.mentions = sorted([m for m in clause.mentions if m not in (first, second)] + [whole],
                                     key=lambda m: m.start)
            result.corrected = [(phrase, name, how) for phrase, name, how in result.corrected if name != item.name]
            result.corrected.append((said, longer.name, longer.how))
            return

    def kind_with_ingredient(self, clause: Clause, result: Parse) -> None:
        """'a steak wrap' when no such wrap is sold: an ingredient before a bare kind word is
        one name said, looked up whole, and said back if there is none; never some other dish of
        that kind with the ingredient added."""
        for topping, item in zip(clause.mentions, clause.mentions[1:]):
            kind_word = item.kind == "item" and item.end - item.start == 1 and \
                (item.said in self.menu.categories or item.said.rstrip("s") in self.menu.categories)
            if topping.kind != "topping" or not kind_word or topping.end != item.start or \
                    self.operator_before(clause.tokens, topping, clause.mentions):
                continue
            said = f"{topping.said} {item.said}"
            option = next((m for m in clause.mentions if m.kind == "option" and m.end == topping.start), None)
            match = self.names.match_many([said], "item", unsure=True)[0]
            lead = self.lead_words(clause, topping.start)  # "a spicy potato taco": a name's first word
            longer = self.names.match(f"{' '.join(lead)} {said}", "item") if lead else None
            if longer and longer.how in ("exact", "alias", "lexical"):
                match, said = longer, f"{' '.join(lead)} {said}"
                clause.mentions.remove(topping)
                topping = replace(topping, start=topping.start - len(lead))
            if match and match.how == "unsure":  # "a steak burrito": asked about, never rung up
                result.corrected.append((said, match.name, "unsure"))
                match = None
            if option and not (match and match.how != "embedding"):
                said = f"{option.said} {said}"  # "a grilled cheese burrito"
            if not match and self.menu.builds_with(item.name, topping.name):
                continue  # "a pepperoni pizza" where pizzas are made to order: the pizza with it
            if match and match.how != "embedding":
                whole = Mention(topping.start, item.end, "item", match.name, {"item": match.name}, said)
                clause.mentions = [m for m in clause.mentions if m not in (topping, item)] + [whole]
                clause.mentions.sort(key=lambda m: m.start)
            else:
                result.unknown.append(said)
                clause.act = "unknown"
                clause.mentions = []
            return

    def lead_words(self, clause: Clause, start: int) -> list[str]:
        """The words just before `start` that no name covers and that are no plain words."""
        covered = {i for m in clause.mentions for i in range(m.start, m.end)}
        first = start
        while first > 0 and first - 1 not in covered and is_letters(word := clause.tokens[first - 1]) and \
                word not in self.p.filler and word not in OPENERS and word not in self.p.operator_words and \
                word not in ARTICLES:
            first -= 1
        return clause.tokens[first:start]

    def fits_of(self, mentions: list[Mention]) -> list[str]:
        """The items that have every option value and can take every ingredient said."""
        options = {(m.alternatives["option"], m.name) for m in mentions if m.kind == "option"}
        toppings = {m.name for m in mentions if m.kind == "topping"}
        if not options and not toppings:
            return []
        return [item for item in sorted(self.menu.items) if options <= self.menu.options_of(item)
                and all(self.menu.builds_with(item, t) for t in toppings)]

    def implied_item(self, clause: Clause, counted: dict[str, int], ctx: Context, among: str | None = None) -> None:
        """'a large pepperoni', 'two medium with ham': counted options and toppings with no name
        order the one item that has them all; when several do, nothing is guessed. "three pies,
        one pepperoni" is one of the three (counted: what the sentence ordered so far). "Two large
        ones": more of the food last spoken of, when the words fit it."""
        toks = clause.tokens
        modifiers = [m for m in clause.mentions if m.kind in ("topping", "option")]
        if clause.items() or not modifiers:
            return
        first = modifiers[0]
        count = next((j for j in range(first.start) if (got := number_at(toks, j)) and  # "one plain cheese"
                      not (j and (toks[j - 1] in self.p.definite or toks[j - 1] in ("on", "in") and (
                          any(m.start < j - 1 for m in clause.mentions) or set(toks[:j - 1]) & self.p.definite))) and
                      # "that one on a crust": a place, not a count ("throw in two large ones" counts)
                      all(t in self.p.bare_words or not t for t in toks[j + got[1]:first.start])), None)
        options = {(m.alternatives["option"], m.name) for m in modifiers if m.kind == "option"}
        fits = self.fits_of(modifiers)
        fits = [among] if len(fits) > 1 and among in fits else fits  # of the item the rest of the line implies
        if count is None and clause.act == "order" and not clause.asks and first.start and \
                toks[first.start - 1] in self.p.definite and options and \
                self.p.inside["take"].search(" ".join(toks[:first.start])) and \
                len(fits) == 1 and fits[0] not in ctx.ordered:  # "I'll try the supreme" before any pizza: one
            count = first.start - 1
        if count is None or toks[count] in self.p.unit_all:  # "..., both xl": the units said, no new ones
            return
        one = next((k for k in range(first.end, len(toks)) if toks[k] in ("one", "ones")), None)
        if one is not None and all(t in self.p.bare_words or t in self.p.filler or not t or
                                   any(m.start <= k < m.end for m in modifiers)
                                   for k, t in enumerate(toks[first.start:one], first.start)):
            # "a large one": of the food whose size is asked, else of the food last spoken of, as they are said,
            # else of the item the line's units imply: a unit of it ordered with nothing of the kind said yet,
            # or new units (the rules)
            asked = ctx.ask_target if str(ctx.ask_topic).startswith("pick(") and ctx.ask_target in fits else None
            kind = asked or ctx.discussed or (ctx.ordered[-1] if ctx.ordered else None)
            kind = among if kind not in fits and among in fits else kind
            if kind in fits:
                said = "" if toks[count] in ("a", "an", "one") else normalize(kind)
                clause.mentions = sorted(clause.mentions + [Mention(one, one + 1, "item", kind, {"item": kind},
                                                                    said)], key=lambda m: (m.start, m.end))
            return
        if len(fits) == 1 and not (toks[count] in ("one", "1") and counted.get(fits[0], 0) > 1):
            clause.mentions = sorted(clause.mentions + [Mention(first.start, first.start, "item", fits[0],
                                                                {"item": fits[0]}, "")],
                                     key=lambda m: (m.start, m.end))

    def variant_said(self, clause: Clause, dish: str, result: Parse, state: dict) -> bool:
        """'one of the potato ones' after a burrito that cannot take potatoes and has a potato one:
        that one ordered, as many as said; 'the chicken one' right after: that one instead; "make the
        quesadilla chicken instead" of a steak one: the chicken quesadilla in its place, never the
        steak one with chicken added."""
        cannot = [m for m in clause.toppings() if not self.menu.builds_with(dish, m.name)]
        instead = "instead" in clause.tokens
        said = clause.toppings() if instead else cannot
        variant = self.variant_by_word(dish, said) if said and ({"one", "ones"} & set(clause.tokens) or instead) \
            else None
        if variant is None:
            return False
        state["line"] += 1
        words = [t for t in clause.tokens if is_word(t) and t not in OPENERS]
        if words[:1] and words[0] in self.p.definite or instead:  # "oh, the chicken one": the one meant, instead
            result.acts.append(Replace(dish, variant[0], state["line"]))
        else:  # "and one of the chicken ones": another
            result.acts.append(Order(variant[0], self.number_in(clause) or 1, state["line"]))
        state["last"] = variant[0]
        rest = Clause(clause.tokens, [m for m in clause.mentions if m not in variant[1]], clause.act, clause.asks)
        self.updates(rest, variant[0], state["line"], Context(), result.acts)
        return True

    def swap_said(self, text: str, toppings: list[Mention], dish: str, line: int, acts: list[Act],
                  units: int | None) -> None:
        """'sub black beans for the refried': one ingredient for another on the dish; when that makes
        another item's name ("the chicken X, steak instead"), that item."""
        old, new = (toppings[1], toppings[0]) if self.p.inside["new_first"].search(text) \
            or self.p.inside["sub"].search(text) else (toppings[0], toppings[1])
        has = self.menu.included(dish)
        if new.name in has and old.name not in has:  # the KB knows which one the dish comes with
            old, new = new, old
        variant = self.variant_swapped(dish, old, new) if not units else None
        at = next((i for i, a in enumerate(acts) if isinstance(a, Order) and a.food == dish and line and a.line == line),
                  None)
        if variant and at is not None:
            acts[at] = acts[at].but(food=variant)
        elif variant:
            acts.append(Replace(dish, variant, line))
        else:
            change = (old.name, new.name)
            acts.append(UpdateUnits(dish, Const("change"), change, units, line) if units else
                        Update(dish, Const("change"), change, line))

    def named_with(self, food: str, words: Sequence[str], without: Set[str] = frozenset()) -> str | None:
        """Another item whose name is exactly `food`'s words (less `without`) and the words said."""
        other = self.by_words.get((self.item_words.get(food, frozenset()) - without) | frozenset(words))
        return other if other != food else None

    def variant_swapped(self, dish: str, old: Mention, new: Mention) -> str | None:
        """The item whose name is the dish's with the old ingredient's word put for the new one's
        (a chicken quesadilla, steak instead of chicken: the steak quesadilla), if the menu has it."""
        gone = set(normalize(old.said).split()) | set(normalize(old.name).split())
        if not gone & self.item_words.get(dish, frozenset()):
            return None  # the old ingredient is no word of the dish's name
        return next((variant for said in (new.said, new.name)
                     if (variant := self.named_with(dish, normalize(said).split(), gone))
                     and new.name in self.menu.included(variant)), None)

    def variant_by_word(self, kind: str, modifiers: list[Mention]) -> tuple[str, list[Mention]] | None:
        """The item whose name is `kind`'s with one word said of a modifier ("potato" of the potato
        one), and the modifiers that word came from."""
        for m in modifiers:
            for word in normalize(m.said).split():
                variant = self.named_with(kind, [word])
                if variant:
                    return variant, [x for x in modifiers if word in normalize(x.said).split()]
        return None

    def find_unknown(self, clause: Clause, result: Parse, ctx: Context, named: Sequence[str] = ()) -> None:
        """Words of a clause that match no menu name: corrected when close to one, else said back.
        A word after "the" that names one of the foods this sentence ordered ("the crunchy one") is a
        reference to it (placed_ref), no name.

        They never vanish and never swallow the next item: each clause is read on its own."""
        toks = clause.tokens
        covered = {i for m in clause.mentions for i in range(m.start, m.end)}
        result.unknown += [f"{toks[i]} {toks[i + 1]}" for i in range(len(toks) - 1)  # "a number 5" no meal has
                           if toks[i] in self.p.numbered and not {i, i + 1} & covered and number_at(toks, i + 1)]
        content, numbers = self.unnamed_words(clause)
        if not content or self.p.acts["recommend"].search(clause.text):
            return
        if clause.items():
            self.words_around_a_name(clause, content, numbers, result, ctx)
            return
        question = self.p.is_question(self.opened(clause.text)) or clause.asks
        first, content = self.name_span(toks, content, numbers)
        span = [t for i, t in enumerate(toks[first:content[-1] + 1], start=first)
                if is_word(t) and (t not in self.p.filler or i in numbers)]
        phrase = " ".join(span)
        if question and not (set(toks[max(0, first - 2):first]) & ARTICLES):
            return  # "what's the difference between ...": words of a question, not a name
        words = self.name_words(phrase)
        if words and toks[first - 1:first] and toks[first - 1] in self.p.definite and \
                len([f for f in named if covers(words, f)]) == 1:
            return
        said = " ".join(t for t in span if self.menu.option_words.get(t, ("",))[0] != "size") or phrase
        self.name_or_said_back(clause, result, ctx, first, content[0], content[-1] + 1, span, phrase, said)

    def unnamed_words(self, clause: Clause) -> tuple[list[int], set[int]]:
        """The places of the clause's words no name, number or plain word covers, and those of its numbers."""
        toks = clause.tokens
        covered = {i for m in clause.mentions for i in range(m.start, m.end)}
        numbers: set[int] = set()
        for i in range(len(toks)):
            got = number_at(toks, i)
            if got and toks[i] not in ("a", "an"):
                numbers.update(range(i, i + got[1]))
        content = [i for i, t in enumerate(toks) if i not in covered and i not in numbers and not self.plain_word(t)
                   and not (t in self.p.bare_words and i - 1 in numbers)]  # "one plain cheese": that one as it comes
        return content, numbers

    def name_span(self, toks: list[str], content: list[int], numbers: set[int]) -> tuple[int, list[int]]:
        """Where a name of unknown words may start and the places it covers: it may start with
        words that are no names alone ("big", "spicy") and end in a kind or an option word."""
        first = content[0]  # the name may start with words that are not names alone ("big", "spicy")
        while first > 0 and first - 1 not in numbers and is_letters(toks[first - 1]) and \
                toks[first - 1] not in self.p.filler and toks[first - 1] not in OPENERS:
            first -= 1
        last = content[-1]  # and may end in words that are not names alone ("... combo", "... supreme")
        while last + 1 < len(toks) and is_letters(toks[last + 1]) and last + 1 not in numbers and \
                toks[last + 1] not in self.p.filler and toks[last + 1] not in self.p.operator_words and \
                (toks[last + 1] in self.category_words or toks[last + 1] in self.option_tokens):
            last += 1
        return first, content + list(range(content[-1] + 1, last + 1))

    def name_or_said_back(self, clause: Clause, result: Parse, ctx: Context, first: int, unnamed: int, end: int,
                          span: list[str], phrase: str, said: str) -> None:
        """The unknown words (from `first`, the first one no name covers at `unnamed`, to `end`) as a
        name corrected to the menu's (with a topping after it, or without an option word before
        it), a kind asked about, or said back."""
        toks = clause.tokens
        trailing = next((m for m in clause.toppings() if m.start == end), None)  # "... burrito steak"
        longer = self.names.match(f"{said} {trailing.said}", "item") if trailing else None
        name: str | None
        if longer and trailing and longer.how != "embedding":
            name, end = longer.name, trailing.end
            result.corrected.append((f"{said} {trailing.said}", name, longer.how))
        else:
            name = self.ordered_by_words(said, ctx) or self.kind_of_ordered(said, clause, ctx) or \
                self.names.lookup(said, "item", result.corrected)
        options = [m for m in clause.options() if first <= m.start and m.end <= end]
        if not name and options and options[-1].end == end:  # "a beefy five layer grilled": the name, then its style
            end = options[-1].start
            said = " ".join(t for t in toks[first:end] if is_word(t) and t not in self.p.filler)
            name = self.names.lookup(said, "item", result.corrected) if said else None
        if name:  # the option values said around the name stay ("a medium mango brisk")
            start = max([m.end for m in options if m.end <= unnamed], default=first)
            kept = [m for m in clause.mentions if m.end <= first or m.start >= end or m in options]
            kept = [m for m in kept if not (start <= m.start < end)]
            clause.mentions = sorted(kept + [Mention(start, end, "item", name, {"item": name}, phrase)],
                                     key=lambda m: m.start)
        elif (kind := self.kind_said(span)) is not None:  # "a bowl": which is asked, never said back
            article = first > 0 and toks[first - 1] in ("a", "an")
            result.acts.append(Vague(kind, self.quantity_before(toks, first, clause.mentions, int(article))))
            clause.act, clause.mentions = "unknown", []
        else:
            result.unknown.append(phrase)
            if self.names_a_food(clause, first):
                clause.act = "unknown"
                clause.mentions = []

    def combo_said_short(self, clause: Clause) -> None:
        """'the two chicken chalupas combo': a count, a name and a combo word that one combo's name
        holds (its number among them) are that combo, one of it."""
        toks = clause.tokens
        for i, m in enumerate(clause.mentions):
            if m.kind != "item" or m.start == 0 or self.p.category_words.get(toks[m.end] if m.end < len(toks) else "") != "combo" or \
                    not number_at(toks, m.start - 1):
                continue
            said = [toks[m.start - 1], *m.said.split(), toks[m.end]]
            combos = [c for c in self.menu.combos if covers(said, c)]
            if len(combos) == 1:
                clause.mentions[i] = Mention(m.start - 1, m.end + 1, "item", combos[0], {"item": combos[0]},
                                             " ".join(said))

    def kind_discussed(self, clause: Clause, ctx: Context) -> None:
        """'the burrito' right after a burrito was asked about: that burrito, not the one the kind's
        word names alone."""
        kind = self.menu.category_of.get(ctx.discussed or "")
        for i, m in enumerate(clause.mentions):
            if kind and ctx.discussed and m.kind == "item" and m.name not in (ctx.discussed, *ctx.ordered) and m.start and \
                    clause.tokens[m.start - 1] in self.p.definite and self.kind_said(m.said.split()) == kind:
                clause.mentions[i] = Mention(m.start, m.end, "item", ctx.discussed, {"item": ctx.discussed}, m.said)

    def kind_said(self, words: list[str]) -> str | None:
        """The kind of food a word names alone ("bowl", "bowls"), if that is all that was said."""
        if len(words) != 1:
            return None
        return next((k for k in (words[0], words[0].removesuffix("s"), words[0].removesuffix("es"))
                     if k in self.menu.categories), None)

    def tried_a_name(self, clause: Clause, words: str) -> bool:
        """Are the words said back a name tried after an article or a number ("a pizza and some
        garlic fries"), not words left over beside what the clause does? A number right after a
        name may be part of the name said ("... delights 12 zorp pack"), and words right before a
        name or a word that goes on ("a 2 pack of ...") part of it: never a name of their own."""
        said = words.split()
        toks = clause.tokens
        first = next((i for i in range(len(toks)) if toks[i:i + len(said)] == said), None)
        end = (first or 0) + len(said)
        return first is not None and self.after_article(clause, first) and \
            not any(m.kind == "item" and first - 1 <= m.end <= first or m.start == end for m in clause.mentions) and \
            (end == len(toks) or toks[end] in self.p.splitters or toks[end] in ARTICLES or number_at(toks, end) is not None)

    def names_a_food(self, clause: Clause, first: int) -> bool:
        """Do the unknown words from `first` on try to name a food (a clause with no modifier, or
        words after an article or a number: "a large zorp")? Else they are words left over beside
        the changes the clause makes ("no lettuce on them zorp"), which then are asked about."""
        return not any(m.kind in ("topping", "option") for m in clause.mentions) or first == 0 or \
            self.after_article(clause, first)

    def after_article(self, clause: Clause, first: int) -> bool:
        """Do the words from `first` on come after an article or a number (sizes and fillers between:
        "an order of garlic knots")?"""
        toks = clause.tokens
        k = first
        while k > 0 and (any(m.kind == "option" and m.end == k for m in clause.mentions) or
                         toks[k - 1] in self.p.filler and toks[k - 1] not in ARTICLES and
                         not any(m.start < k <= m.end for m in clause.mentions)):
            k = next((m.start for m in clause.mentions if m.kind == "option" and m.end == k), k - 1)
        return k > 0 and (toks[k - 1] in ARTICLES or number_at(toks, k - 1) is not None)

    # -- dialogue acts ---------------------------------------------------------------------
    def give_acts(self, clauses: list[Clause], ctx: Context, flat: str) -> None:
        """Each clause's act; a clause with no cue of its own (just "the pepsi") carries on the
        act of the one before ("take off the nachos and the pepsi")."""
        previous: str | None = None
        earlier: list[str] = []
        for clause in clauses:
            if clause.act == "unknown":
                continue
            values = [m for m in clause.mentions if m.kind == "option"]
            said = clause.tokens[:values[0].start] if values and values[0].start > 0 else clause.tokens
            if self.p.inside["as_is"].ends(POSSESSIVE_IS.sub(r" s \1", " ".join(t for t in said if is_word(t)))) and \
                    clause.items() and all(m.name in ctx.ordered and m.end <= len(said) for m in clause.items()):
                clause.act = "topic"  # "the pepsi's fine. make it a large": fine as it is, never ordered again;
                continue  # what "it" means next ("pepsi's fine, regular": the value said after it is on it)
            own = self.act_of(clause, ctx, earlier)
            if own is None:  # "scratch the X, give me a Y": a clause that asks for something orders it
                asked = self.p.requests(self.opened(clause.text)) or \
                    self.p.questions["request_verbs"].starts(self.opened(clause.text))
                only = self.opened(clause.text).split()[:1] in ([w] for w in self.p.only_words)
                own = previous if previous and previous in ("remove", "question") and not asked and not only else "order"
                clause.doubted = clause.doubted or only and previous == "remove" and \
                    any(m.name in ctx.ordered for m in clause.items())  # "scratch the X, just the Y": Y kept, asked
                if own == "remove" and self.p.inside["changing"].search(clause.text):
                    own, clause.doubted = "order", True  # "scratch the X, so just make it two Y": no removal of Y
            if own == "order" and any(m.name in ctx.ordered for m in clause.items()) and \
                    (self.p.inside["recount"].starts(self.opened(clause.text)) or self.the_ordered(clause, ctx)):
                clause.doubted = True  # "make it two large Y", "then the Y and a Z" with a Y ordered: asked
            if own == "order" and clause is clauses[-1] and ctx.ordered and self.p.inside["echo_end"].ends(flat) \
                    and clause.items() and all(m.name == ctx.ordered[-1] for m in clause.items()):
                clause.doubted = True  # "oh ok, a large Y then" right after a large Y was rung up: asked
            clause.act = own
            previous = None if clause.asks or clause.ends else own  # after a "?" or "." a new sentence starts
            if own == "order":
                earlier += [m.name for m in clause.items()]
        for i, clause in enumerate(clauses):  # "one more pizza, medium, with ham": a new one, made as said
            if clause.act == "copy" and clause.items() and not clause.ends and not self.refers_back(clause.text) and \
                    not self.p.inside["copy_like"].search(clause.text):
                end = next((j for j in range(i + 1, len(clauses)) if clauses[j].ends), len(clauses) - 1)
                if any(c.act == "order" and not c.items() and c.toppings() for c in clauses[i + 1:end + 1]):
                    clause.act = "order"
        first, rest = (clauses[0], clauses[1:]) if clauses else (None, [])
        if first and rest and rest[0].act in ("set", "replace", "quantity", "change", "resize") and \
                tuple(self.opened(first.text).split()) in self.p.repair_drop:
            first.act = "unknown"  # "scratch that, just one burrito": the cue of the correction that follows

    def the_ordered(self, clause: Clause, ctx: Context) -> bool:
        """Is a food of the clause said with "the" (no count, no change) while it is on the order:
        the one there, or one more?"""
        toks = clause.tokens
        return not self.negated(clause.text) and any(self.ordered_named(m, ctx) and
                   next((t for t in reversed(toks[:m.start]) if t in DETERMINERS), None) in DEFINITE and
                   not any(number_at(toks, i) and toks[i] not in ("a", "an") for i in range(m.start))
                   for m in clause.items()) and not clause.toppings() and not clause.options()

    def count_of_a_list(self, clauses: list[Clause]) -> None:
        """'three 2 liters: coke, diet coke and sprite', 'two large sodas, a pepsi and a sprite': a
        number and options said before a list of as many foods count the list: each as many as it
        is said, each with those options (never three cokes and two more drinks)."""
        for i, clause in enumerate(clauses):
            items, toks = clause.items(), clause.tokens
            if clause.act != "order" or len(items) > 1 or items and items[0].said.endswith("s") or clause.ends:
                continue
            head = items[0].start if items else len(toks)  # the list may start in this clause or after it
            at = next((j for j in range(head) if number_at(toks, j) and toks[j] not in ("a", "an")), None)
            if at is None:
                continue
            n, length = number_at(toks, at) or (0, 0)
            end = next((j for j in range(i + 1, len(clauses)) if clauses[j].ends), len(clauses) - 1)
            rest = clauses[i + 1:end + 1]
            between = [t for k, t in enumerate(toks[at + length:head], at + length)
                       if not any(m.start <= k < m.end for m in clause.mentions) and t not in ARTICLES]
            said = [m for m in clause.mentions if m.kind == "option" and m.end <= head]
            counted = sum(self.number_in(c) or 1 for c in rest)  # "four 2 liters, two cokes and two sprites"
            if n < 2 or counted != n - len(items) or not (said or set(between) & self.p.drink) or \
                    any(t not in self.p.drink and t not in self.p.filler for t in between) or \
                    any(c.act != "order" or len(c.items()) != 1 or c.toppings() or c.options() for c in rest):
                continue
            if items:
                clause.count = 1
            else:  # "two 1 liters please, a fanta and a pepsi": the count orders nothing itself
                clause.act, clause.mentions = "unknown", []
            for c in rest:
                c.mentions = sorted(c.mentions + [replace(m, start=0, end=0) for m in said], key=lambda m: m.start)

    def units_of_a_list(self, clauses: list[Clause], result: Parse) -> None:
        """'two large pizzas, a ham and a bacon', 'two burritos, a bean and a beef': a count of a
        food said in the plural, then units said one by one without the food's name (each "a"/"one"
        and what it is): each unit is the food's word said with its own words ('a bean burrito'),
        with what was said with the count; the list is those units, never that many more. Fewer
        units leave the rest as said with the count; more are not guessed at: nothing is taken."""
        for i, clause in enumerate(clauses):
            items, toks = clause.items(), clause.tokens
            if clause.act != "order" or len(items) != 1:
                continue
            head = items[0]
            if not head.said and "ones" in toks[head.start:]:  # "two large ones": the food they are
                at = toks.index("ones", head.start)
                head = replace(head, start=at, end=at + 1, said=normalize(head.name))
            if not head.said.endswith("s") and toks[head.start:head.end] != ["ones"]:
                continue
            n = self.quantity_before(toks, head.start, [m for m in clause.mentions if m is not items[0]])
            rest = list(takewhile(lambda c: self.may_be_unit(c) and not c.ends, clauses[i + 1:]))
            if i + 1 + len(rest) < len(clauses) and self.may_be_unit(clauses[i + 1 + len(rest)]) and \
                    not clauses[i + 1 + len(rest)].items():
                rest.append(clauses[i + 1 + len(rest)])  # the list may end its sentence
            words = [t for c in [Clause(toks[head.end:], []), *rest] for t in [*c.tokens, ","]]
            paused = not any(is_word(t) for t in toks[head.end:]) or toks[head.end:head.end + 1] == [","]
            units = self.list_units(words, paused)
            counts = [self.number_in(Clause(u, [])) or 1 for u in units]  # "two cheese, a ham": three units
            if not n or n < 2 or len(units) < 2:
                continue
            if sum(counts) > n:  # "two pizzas, a ham, a bacon and a sausage": which is meant is asked
                for c in [clause, *rest]:
                    c.act, c.mentions = "unknown", []
                continue
            said = [replace(m, start=0, end=0) for m in clause.mentions if m.kind != "item" and m.end <= head.start]
            made = [Clause(u, self.mentions_in(u)) for u in
                    ([*u[:u.index("with")], head.said, *u[u.index("with"):]] if "with" in u else [*u, head.said]
                     for u in units)]
            if not all(len(c.items()) == 1 and (c.items()[0].said != head.said or self.own_name(head))
                       for c in made):  # "bean, beef, <no such>" of "burritos": each unit must name its food
                for c in [clause, *rest]:  # "three burritos: bean, beef and <no such>": the list is asked
                    c.act, c.mentions = "unknown", []
                continue
            taken = {w for u in units for w in u}  # "cheesy" read alone before: a unit's word, no unknown name
            result.unknown = [said for said in result.unknown if not set(said.split()) <= taken]
            result.corrected = [c for c in result.corrected if not set(c[0].split()) <= taken]
            for c in made:
                c.mentions = sorted(c.mentions + said, key=lambda m: m.start)
            clause.tokens, clause.mentions = toks[:head.end], [m for m in clause.mentions if m.end <= head.end]
            if sum(counts) < n:  # "three large pies: one ham, one bacon": the third as said with the count, last
                clause.count = n - sum(counts)
                clauses[i:i + 1 + len(rest)] = [*made, clause]
            else:
                clause.act, clause.mentions = "unknown", []
                clauses[i + 1:i + 1 + len(rest)] = made

    def own_name(self, m: Mention) -> bool:
        """Is the food named by a name of its own ('pizzas', 'pies'), not by a kind word it was
        read as ('burritos')?"""
        said = m.said
        return normalize(m.name) in (said, said.removesuffix("s"), said.removesuffix("es")) or \
            self.kind_said(said.split()) is None

    def may_be_unit(self, clause: Clause) -> bool:
        """A unit of a list names no food and is said of no units already ('..., all medium', 'no
        cheese on either')."""
        return not any(m.said for m in clause.items()) and not self.p.every_unit.search(clause.text)

    def list_units(self, words: list[str], paused: bool) -> list[list[str]]:
        """The units a list says: from each word that opens a unit ("a", "one", a count) to the next; with
        none said, the words between the joins of a list set off by a pause ("three burritos: bean,
        beef and potato"); said on ("two pizzas adding ham and bacon") it is said of each unit.
        Joins and closing filler are no unit's."""
        words = [w for w in words if is_word(w) or w in self.p.list_joins]
        starts = [k for k in range(len(words)) if any(tuple(words[k:k + len(o)]) == o for o in self.p.unit_opens)
                  or (k == 0 or words[k - 1] in self.p.list_joins) and number_at(words, k)]  # "two cheese, a ham"
        if starts and any(w not in self.p.filler and is_word(w) for w in words[:starts[0]]) or not starts and not paused:
            return []
        cuts = starts or [k + 1 for k, w in enumerate(words) if w in self.p.list_joins]
        units = [words[a:b] for a, b in pairwise(sorted({0, *cuts, len(words)}))]
        units = [u[:len(u) - len(list(takewhile(lambda w: w in self.p.list_joins or w in self.p.filler, reversed(u))))]
                 for u in units]
        return [[w for w in u if w not in self.p.list_joins] for u in units if u]

    def act_of(self, clause: Clause, ctx: Context, earlier: Sequence[str] = ()) -> str | None:
        """The act of one clause: the act of the first reading (in the phrase file's order) that
        fits it; `earlier` holds the foods ordered by the clauses before it."""
        seen = Seen(clause, self.opened(clause.text), clause.items(), ctx, list(earlier))
        return next((act for reads, act in self.readings if reads(seen)), None)

    # -- the readings of a clause: one small recognizer each, tried in the order the phrase file declares
    def reads_recommend(self, s: Seen) -> bool:
        return bool(self.p.acts["recommend"].search(s.text)) and not self.p.requests(s.text)

    def reads_resize_cued(self, s: Seen) -> bool:
        return bool(self.p.acts["upsize"].search(s.text) or self.p.acts["downsize"].search(s.text)) \
            and self.resizes(s.clause, s.ctx)

    def reads_question(self, s: Seen) -> bool:
        return self.p.is_question(s.text) or (s.clause.asks and not self.p.requests(s.text)) or \
            (s.clause.asks and s.ctx.asked_price and self.p.questions["follow_up"].starts(s.text))

    def reads_managing(self, s: Seen) -> bool:
        return bool(self.p.acts["managing"].search(s.text))

    def reads_value_question(self, s: Seen) -> bool:
        q = self.p.questions
        return any(cue.search(s.text) for cue in (q["price"], q["calories"], q["total"])) and not s.items

    def reads_stock_question(self, s: Seen) -> bool:
        return bool(self.p.inside["stock_question"].search(s.text))

    def reads_unit_remove(self, s: Seen) -> bool:
        refs, used = self.unit_refs(s.clause, s.ctx)  # "take the onions off the ham one": the onions only
        return self.p.takes_off(s.text) and bool(refs) and \
            not any(m.kind in ("topping", "option") and m not in used for m in s.clause.mentions)

    def reads_unit_change(self, s: Seen) -> bool:
        refs, used = self.unit_refs(s.clause, s.ctx)  # "one of those but small" is a copy, not a change of one
        return bool(refs) and not self.reads_copy(s) and any(m.kind in ("topping", "option") and m not in used for m in s.clause.mentions) \
            and not any(m.kind == "item" and m not in used for m in s.clause.mentions) and not self.renames(s)

    def renames(self, s: Seen) -> bool:
        """'make the burrito the potato one': the ordered food named becomes its kind's food with that word."""
        old = self.ordered_named(s.items[0], s.ctx) if len(s.items) == 1 else None
        return bool(old and self.p.acts["replace"].search(s.text) and self.kind_one(s.clause, old))

    def reads_remove(self, s: Seen) -> bool:
        return self.p.takes_off(s.text) and bool(s.items or self.refers_back(s.text)) and \
            not self.p.inside["keeps"].search(s.text) and not s.clause.toppings() and \
            not (s.clause.options() and not s.items)  # "I don't want it on thin crust": the option, not "it"

    def reads_remove_negated(self, s: Seen) -> bool:
        # "large on the pizza, not on the tea": a food a change is not about stays
        return self.negated(s.clause.text) and bool(s.items) and not s.clause.toppings() and \
            not any(self.is_target(s.clause.tokens, m, self.p.definite) for m in s.items) and \
            all(m.name in s.ctx.ordered or self.ordered_named(m, s.ctx) for m in s.items)

    def reads_order_instead(self, s: Seen) -> bool:
        # "instead of that" right after a refusal: the refused food, never one of the order
        return len(s.items) == 1 and "instead" in s.text.split() and bool(s.ctx.said_unknown or s.ctx.refused) \
            and (not self.refers_back(s.text) or self.p.pronouns.whole(s.text.split("instead of ", 1)[-1])) \
            and not any(m.name in s.ctx.ordered for m in s.items)

    def reads_replace(self, s: Seen) -> bool:
        old = (self.ordered_named(s.items[0], s.ctx) or s.items[0].name) if s.items else s.ctx.ordered[-1] if s.ctx.ordered and self.refers_back(s.text) else None
        kind = bool(old and self.kind_one(s.clause, old)) or bool(
            set(s.clause.tokens) & self.p.drink and not any(self.combo_for_choice(m.name, s.ctx, None, s.clause.tokens)
                                                            for m in s.items))  # "switch my drink": the combo's
        return bool(self.p.acts["replace"].search(s.text) or self.make_that_a(s)) and \
            bool(len(s.items) >= 2 or (s.items and ("instead" in s.text or self.refers_back(s.text))) or kind) \
            and not (s.clause.toppings() and len(s.items) < 2 and not kind)

    def make_that_a(self, s: Seen) -> bool:
        """'make that X a Y': the ordered X named right after the cue, then an article and Y."""
        toks = s.clause.tokens
        if len(s.items) != 2 or not self.ordered_named(s.items[0], s.ctx):
            return False
        first = s.items[0]
        return self.p.inside["replace_that"].whole(" ".join(toks[max(0, first.start - 2):first.start])) and \
            toks[first.end:first.end + 1] in (["a"], ["an"])

    def reads_replace_with(self, s: Seen) -> bool:
        return bool(self.p.acts["replace_with"].search(s.text)) and not s.items and bool(self.renaming(s.clause, s.ctx)) or \
            bool(self.p.acts["replace_with"].search(s.text)) and len(s.items) == 1 \
            and (not self.ordered_named(s.items[0], s.ctx) or not s.earlier and self.said_again(s.clause, s.items, s.ctx)) \
            and bool(s.ctx.ordered or s.earlier) and (self.number_in(s.clause) is None or self.opens_repair(s.clause))

    def opens_repair(self, clause: Clause) -> bool:
        """Does the line open with a correction cue ('oops', 'sorry, I meant ...'), not a quantity
        one ('make that twenty ...')?"""
        said = [t for t in clause.tokens if is_word(t)]
        words = [t for t in said if t not in OPENERS]
        return any(tuple(said[:n]) in self.p.repair_strong for n in (1, 2, 3, 4)) or any(
            tuple(words[:n]) in self.p.repair_strong and (words[n - 1] in ("mean", "meant") or
                                                         not self.p.acts["set_quantity"].starts(" ".join(words[:n])))
            for n in (1, 2, 3, 4))

    def renaming(self, clause: Clause, ctx: Context) -> tuple[str, str] | None:
        """'I meant bean' after a beef burrito: words said with no food and no operator that put a
        word of an ordered food's name right name another food of its kind: (the old, the new)."""
        toppings = clause.toppings()
        if clause.items() or clause.options() or not toppings or \
                any(self.operator_before(clause.tokens, m, clause.mentions) for m in toppings):
            return None
        words = [w for m in toppings for w in m.said.split()]
        return next(((old, new) for old in reversed(ctx.ordered) if (new := self.repairs.renamed(old, words))), None)

    def said_again(self, clause: Clause, items: list[Mention], ctx: Context) -> bool:
        """'oops, I meant a large supreme' after a large hawaiian: a line that opens with a
        correction cue and names a food ordered, made otherwise, corrects its last units."""
        return self.opens_repair(clause) and len(items) == 1 and bool(self.ordered_named(items[0], ctx)) and \
            bool(clause.toppings() or clause.options())

    def reads_set_quantity(self, s: Seen) -> bool:
        return bool(s.items) and bool(self.p.acts["set_quantity"].search(s.text)) \
            and all(self.ordered_named(m, s.ctx) for m in s.items) and not s.clause.toppings() and not s.clause.options()

    def reads_resize(self, s: Seen) -> bool:
        # "... large with ham": the ham too; "two more like that but party size": a copy's size
        return self.resizes(s.clause, s.ctx) and not s.clause.toppings() and not self.reads_copy(s)

    def reads_copy(self, s: Seen) -> bool:
        cue = self.p.acts["copy"].search(s.text)  # "make one of those large", "ham on one of them": a change
        # "one of those" orders a copy said alone or with "but ..." after it; "one of them doesn't want X",
        # "make one of those large" change one of them; after a suggestion or a question it is that food
        partitive = cue is not None and s.text[cue.start():cue.end()].startswith("one of")
        return cue is not None and bool(s.ctx.ordered) and not s.earlier and \
            not (partitive and (self.p.inside["changing"].search(s.text[:cue.start()]) or
                                s.ctx.recommended_items or s.ctx.discussed or
                                s.text[cue.end():].split()[:1] not in ([], ["but"], ["too"], ["please"]))) and \
            s.text[:cue.start()].split()[-1:] not in (["to"], ["on"], ["onto"]) and \
            all(self.ordered_named(m, s.ctx) for m in s.items) and not (s.items and s.clause.toppings()) and \
            not any(s.text[cue.end():].split()[:1] == m.said.split()[:1] for m in s.clause.toppings())  # "one more X"

    def reads_quantity(self, s: Seen) -> bool:
        return not s.items and not s.clause.toppings() and not s.clause.options() and self.number_in(s.clause) is not None

    def reads_quantity_refers(self, s: Seen) -> bool:
        return not s.items and self.refers_back(s.text) and bool(self.p.inside["take"].search(s.text)) \
            and not s.clause.toppings() and not s.clause.options()

    def negated(self, text: str) -> bool:
        """A clause that starts with "no" or "not" and goes on ("actually no pepsi"), openers aside."""
        words = text.split()
        k = next((i for i, w in enumerate(words) if w not in self.p.negation_openers), len(words))
        return k + 1 < len(words) and words[k] in self.p.negation

    def refers_back(self, text: str) -> bool:
        return bool(self.p.pronouns.search(text))

    def number_in(self, clause: Clause) -> int | None:
        for i in range(len(clause.tokens)):
            got = number_at(clause.tokens, i)
            if got and clause.tokens[i] not in ("a", "an"):
                return got[0]
        return None

    def resizes(self, clause: Clause, ctx: Context) -> bool:
        """'make the pepsi a large', 'upsize my drink', 'make it a regular': the size of an
        ordered drink changes; nothing new is ordered."""
        text = clause.text
        said_size = bool(self.sizes_in(clause)) or \
            self.p.acts["upsize"].search(text) or self.p.acts["downsize"].search(text)
        if not said_size:
            return False
        items = clause.items()
        if items:
            ordered = all(self.ordered_named(m, ctx) for m in items)
            determiner = next((t for t in reversed(clause.tokens[:items[0].start]) if t in DETERMINERS), None)
            definite = determiner in DEFINITE  # "my wife wants a small X": the article of X says a new one
            changing = self.p.inside["changing"].search(text)
            return ordered and bool(definite or changing) and self.number_in(clause) in (None, 1)  # "a large one"
        return bool(set(clause.tokens) & self.p.drink or self.refers_back(text)
                    or self.p.acts["upsize"].search(text) or self.p.acts["downsize"].search(text)) \
            and self.p.inside["resizing"].search(text) is not None

    # -- one clause ------------------------------------------------------------------------
    def clause(self, clause: Clause, ctx: Context, result: Parse, state: dict) -> None:
        acts = result.acts
        toks, text = clause.tokens, clause.text
        placed = state.setdefault("placed", {})  # the foods this line ordered, each with its last order line
        switched = self.p.acts["replace"].search(text) is not None  # "switch the X to Y": Y is the new food
        targets = [m for m in clause.items() if self.is_target(toks, m, self.p.definite) and
                   not (switched and any(x.end <= m.start for x in clause.items())) or
                   self.modified_ordered(clause, m, ctx, placed)]
        items = [m for m in clause.items() if m not in targets]
        state["aimed"] = bool(targets)
        if targets:  # "large for the pizza, small for the lemonade": each about the food it names
            state["last"] = self.ordered_named(targets[0], ctx) or targets[0].name
        dish = self.context_dish(ctx, state["last"])
        act = clause.act
        if combo := self.combo_whose_pick(clause, ctx):
            state["choosing"] = combo  # "oh and the drink for the combo, mountain dew please": the combo's
        if act == "topic" and clause.items():  # a size said with it goes on it ("the pepsi's fine, make it a large")
            state["last"] = self.ordered_named(clause.items()[-1], ctx) or clause.items()[-1].name
            self.updates(Clause(clause.tokens, [m for m in clause.mentions if m.kind != "item"], "change", False),
                         state["last"], 0, ctx, acts)
        if act in ("unknown", "managing", "topic"):
            return
        if act in ("order", "quantity") and (many := self.drink_not_named(clause)) is not None:
            acts.append(Vague("drink", many))  # "and a soda": which drink is asked
            for m in clause.options():  # "three 2 liter sodas": the value waits for the answer (asked_with)
                value = (m.alternatives["option"], m.name)
                drink = next((d for d in sorted(self.menu.items) if self.menu.category_of.get(d) == "drink" and
                              value in self.menu.options_of(d)), None)
                if drink:
                    acts.append(Update(drink, Const("option"), option_value(*value, True), 0))
            return
        if act == "recommend":
            acts.append(self.recommendation(text, items + targets, dish, state["label"]))
        elif act == "question":
            self.question(clause, items + targets, dish, ctx, result, state)
        elif act == "remove" and self.unit_refs(clause, ctx)[0]:  # "take off the last thing"
            self.refer(clause, ctx, result, state)
            acts.append(Remove("", Const("all")))
        elif act == "change":  # "no lettuce on the second one": on the units referred to
            used = self.refer(clause, ctx, result, state)
            rest = Clause(clause.tokens, [m for m in clause.mentions if m not in used], clause.act, clause.asks)
            self.updates(rest, "", state["line"], ctx, acts)
        elif act == "remove":
            self.removal(clause, items, ctx, acts, placed)
        elif act == "replace":
            self.replacement(clause, items, ctx, result, state)
        elif act == "resize":
            self.resize(clause, items or targets, ctx, acts, state, dish)
        elif act == "set":
            for m in items:
                n = self.quantity_before(toks, m.start, clause.mentions)
                acts.append(SetQuantity(self.ordered_named(m, ctx), n if n is not None else 1))
                state["last"] = self.ordered_named(m, ctx)
        elif act == "quantity":
            self.quantity(clause, ctx, result, state)
        elif act == "copy":
            self.copy(clause, ctx, result, state)
        else:
            self.order(clause, items, ctx, result, state)

    def question(self, clause: Clause, named: list[Mention], dish: str | None, ctx: Context, result: Parse,
                 state: dict) -> None:
        """A question's query; words of a food the menu lacks said back instead of "everything is
        available"; the item asked about remembered ("...? I'll take one")."""
        acts = result.acts
        query = self.query(clause, named, dish, ctx)
        if query and query.food == "all" and str(query.kind) in ("available", "menu") and state["label"]:
            query = Query(Const("menu"), state["label"], 1, None)  # "I'm vegan, what do you have?"
        off_menu = self.off_menu_words(clause) if query and (query.kind, query.food) == (Const("available"), "all") else []
        if off_menu:  # "do you have root beer?": not on the menu, never "everything is available"
            result.unknown += off_menu
        elif query:
            acts.append(query)
            if str(query.kind) not in ("menu", "total", "with") and query.food in self.menu.items:
                state["asked"] = (query.food, query.quantity, query.size)  # "...? I'll take one"

    def removal(self, clause: Clause, items: list[Mention], ctx: Context, acts: list[Act], placed: dict) -> None:
        """Each food named taken off (that many of it, or all), or the last one ordered."""
        toks = clause.tokens
        foods = [self.ordered_named(m, ctx) or m.name for m in items] or \
            ([ctx.ordered[-1]] if ctx.ordered else [])
        units: list[Mention | None] = list(items) or [None]
        for m, food in zip(units, foods):
            n = self.quantity_before(toks, m.start, clause.mentions) if m else None
            if m and self.unsaid(m.name, n, placed, acts):
                continue
            acts.append(Remove(food, n if n else Const("all")))

    def resize(self, clause: Clause, named_items: list[Mention], ctx: Context, acts: list[Act], state: dict,
               dish: str | None) -> None:
        """A size for the food named, the foods asked about, every food ("all of those large"), or
        the one in context."""
        text = clause.text
        named = self.ordered_named(named_items[0], ctx) if named_items else None
        asked = ctx.ask_group if ctx.ask_topic == "pick(size)" and not named else []
        every = not named and not asked and bool(self.p.every_unit.search(text))
        if every:  # "make all of those large": each food sized (the rules refuse a size one lacks)
            asked = [f for f in ctx.ordered if "size" in {g for g, _ in self.menu.options_of(f)}]
        resized: list[str | None] = list(asked) or [named or self.context_sized(ctx) or dish]
        for target in resized:
            size = self.size_for(target, clause) if target else None
            size = size or next(iter(self.sizes_in(clause)[-1:]), None) if every else size
            if size:  # "another of those, make it a medium": the copy just placed, not the one copied
                line = state.get("placed", {}).get(target, 0) if state.get("copied") else 0
                acts.append(Update(target or "", Const("option"), option_value("size", size, True), line))  # "": none

    @staticmethod
    def unsaid(food: str, n: int | None, placed: dict[str, int], acts: list[Act]) -> bool:
        """'two tacos and a pepsi, scratch the pepsi': a food this sentence ordered, taken off in
        it, is unsaid (its order line, or n of its units), never left in the order."""
        line = placed.get(food)
        said = next((p for p in acts if isinstance(p, Order) and p.line == line and p.food == food), None)
        if said is None:
            return False
        if n and n < said.quantity:
            acts[acts.index(said)] = said.but(quantity=said.quantity - n)
        else:
            acts[:] = [p for p in acts if line_of(p) != line]
        return True

    def order(self, clause: Clause, items: list[Mention], ctx: Context, result: Parse, state: dict) -> None:
        toks = clause.tokens
        one = any(t in ("one", "ones") and not any(m.start <= i < m.end for m in clause.items())
                  for i, t in enumerate(toks))  # "gimme a large one": of the food talked about
        if not clause.items() and (state.get("asked") and one or not state["line"] and (
                self.asked_food(ctx) and self.number_in(clause) or one and (ctx.discussed or ctx.recommended_items))):
            return self.quantity(clause, ctx, result, state)  # "you have X? gimme a large one": X, large
        acts = result.acts
        comma = next((j for j in range(items[-1].end, len(toks)) if toks[j] == ","), None) if items else None
        tail = None if comma is None else self.part(clause, comma, len(toks))
        if tail and (set(tail.tokens) & self.p.definite or self.p.every_unit.search(tail.text)):
            # "a ham pizza and a small olive one, deep dish on the ham one", "..., extra cheese on
            # both": the words after the comma may be about other units of the sentence; tried on a copy first
            head = self.part(clause, 0, len(toks) - len(tail.tokens))
            trial, tried = Parse(list(acts), [], []), deepcopy(state)
            self.order(head, items, ctx, trial, tried)
            picked = self.placed_ref(tail, trial.acts)
            if picked and picked[0][1] != tried["line"] or len(self.every_placed(tail, trial.acts)) > 1:
                self.order(head, items, ctx, result, state)
                self.order(tail, [], ctx, result, state)
                return
        one = self.one_of_them(clause, items)
        placed = self.place_items(clause, items, ctx, result, state, one)
        if len(placed) > 1:  # "two medium ham pizzas with a large pepsi": each item its own modifiers
            for (m, line), (after, _) in zip(placed, placed[1:] + [(None, 0)]):
                self.updates(self.item_span(clause, m, after), m.name, line, ctx, result.acts)
            return
        if len(placed) == 1 and len(items) > 1:  # "a large number 1 with rings": large is the meal's, not a choice's
            m, line = placed[0]
            after = min((x for x in items if x.start > m.start), key=lambda x: x.start, default=None)
            if after is not None:
                a, b = self.span_of(clause, m, after)
                self.updates(self.part(clause, a, b), m.name, line, ctx, result.acts)
                clause = Clause(toks, [x for x in clause.mentions if not a <= x.start < b or x.kind == "item"],
                                clause.act, clause.asks)
        self.changes_said(clause, items, ctx, result, state, one)

    def place_items(self, clause: Clause, items: list[Mention], ctx: Context, result: Parse, state: dict,
                    one: bool) -> list[tuple[Mention, int]]:
        """Each item the clause names, ordered on a line of its own (or as a combo's choice, or
        asked about when said vaguely); the items ordered, with their lines."""
        toks, acts = clause.tokens, result.acts
        placed: list[tuple[Mention, int]] = []  # the items ordered here, with their lines
        discussed = ctx.discussed if ctx.discussed in self.menu.combos else None
        if discussed and not state["line"] and items and self.number_in(clause) is not None and \
                all(m.name in self.menu.combo_choices(discussed) for m in items):
            self.order_discussed(ctx, result, state, self.number_in(clause))  # "ok, one with a baja blast"
        for m in items:
            vague = self.vague_kind(clause, m)
            if vague:  # "some tacos": which is asked, never guessed
                acts.append(Vague(*vague))
                clause.mentions = [x for x in clause.mentions if not (x.kind == "option" and x.start >= m.end)]
                continue  # the values said before it wait for the answer ("for the office party" is no size)
            said_with = self.combo_with(m, toks, placed, state["last"]) or state.get("with_combo")  # "a number 2 with ..."
            state["with_combo"] = said_with  # "... with fries and a latte": the list goes on
            m = self.slot_member(m, state.get("choosing") or said_with)
            choice_combo = self.combo_for_choice(m.name, ctx, state["last"], toks, state["each"]) or next(
                (c for c in [state.get("choosing")] if c and m.name in self.menu.combo_choices(c)), None) or \
                (said_with if said_with and self.slot_left(said_with, acts) and self.taken_as_pick(m.name, said_with) else None)
            said_n = self.quantity_before(toks, m.start, clause.mentions, default=0)
            meals = self.meals_of(choice_combo, acts, ctx, state) if choice_combo else 1
            each = state["each"] and meals > 1 and said_n in (0, 1, meals)  # "fries on both", "both with a coke"
            if choice_combo and state["last"] != choice_combo and not each:  # "drinks on those: two X, one Y"
                state["choosing"] = choice_combo
                for _ in range(said_n - 1):
                    state["line"] += 1
                    acts.append(Specify(choice_combo, m.name, state["line"]))
            if choice_combo and state["last"] == choice_combo and not each and (
                    not self.slot_left(choice_combo, acts) or said_n > 1):
                choice_combo = None  # "a combo with a lemonade and also a pepsi", "a combo and two pepsis": orders
            if choice_combo:  # each choice its own line: the n-th choice fills the n-th open slot
                for _ in range(meals if each else 1):
                    state["line"] += 1
                    acts.append(Specify(choice_combo, m.name, state["line"]))
                continue
            n = clause.count or self.quantity_before(toks, m.start, clause.mentions, default=self.asked_count(m, ctx))
            if not m.said and n == 1 and (line := self.described_unit(m.name, clause, acts, state)):
                placed.append((m, line))  # "I'll try the hawaiian, a medium": the unit just said, described
                continue
            part = (1 if one else self.units_of_them(clause, m)) if m is items[-1] else None
            if part and n > part:  # "three tacos, one with no lettuce", "..., jalapenos on two of them": two lines
                state["line"] += 1
                acts.append(Order(m.name, n - part, state["line"]))
                said_first = [x for x in clause.mentions if x.end <= m.start and x.kind in ("option", "topping")]
                self.updates(Clause(toks[:m.end], said_first, clause.act, clause.asks), m.name, state["line"], ctx,
                             acts)  # "two small pizzas, ...": both small
                n = part
            state["line"] += 1
            acts.append(Order(m.name, n, state["line"]))
            state["with_combo"] = None  # a food of its own ends a list of picks
            self.maybe_ordered_before(clause, m, n, ctx, state, acts)
            placed.append((m, state["line"]))
            state["last"] = m.name
            state.setdefault("placed", {})[m.name] = state["line"]
        return placed

    @staticmethod
    def maybe_ordered_before(clause: Clause, m: Mention, n: int, ctx: Context, state: dict, acts: list[Act]) -> None:
        """'one pepperoni, one ham' after 'two pizzas', 'a medium coke' to 'what size?': the line may
        be units ordered before with nothing of what it says yet (the rules decide: refer bare)."""
        bare = state.setdefault("bare", set())  # the lines that may be units ordered before
        answering = str(ctx.ask_topic).startswith("pick(") and bool(clause.options())
        if (not m.said or answering) and m.name in ctx.ordered and set(state.get("placed", {}).values()) <= bare:
            bare.add(state["line"])
            acts.append(Refer(Const("bare"), n, state["line"]))

    @staticmethod
    def described_unit(food: str, clause: Clause, acts: list[Act], state: dict) -> int | None:
        """The order line of one unit of the food said earlier in this line with no value of the
        groups this clause gives (a food said with nothing, then "a medium"), if any."""
        line = state.get("placed", {}).get(food)
        groups = {m.alternatives["option"] for m in clause.options()}
        one = any(isinstance(a, Order) and a.food == food and a.line == line and a.quantity == 1 for a in acts)
        given = any(isinstance(a, Update) and a.line == line and isinstance(a.option, tuple) and
                    str(a.option[0]) in groups for a in acts)
        return line if line and one and groups and not given and not clause.toppings() else None

    def changes_said(self, clause: Clause, items: list[Mention], ctx: Context, result: Parse, state: dict,
                     one: bool) -> None:
        """The changes of a clause that ordered at most one item: on that item, on a unit this line
        ordered named again, on each unit the sentence ordered, or on units ordered before."""
        toks, text, acts = clause.tokens, clause.text, result.acts
        if not items and (picked := self.placed_ref(clause, result.acts)):
            (food, at), used = picked  # "a ham pizza and a bacon one, thin crust on the bacon one"
            rest = Clause(toks, [m for m in clause.mentions if m not in used], clause.act, clause.asks)
            self.updates(rest, food, at, ctx, acts)
            return
        every_line = self.every_placed(clause, acts) if not items and not state.get("aimed") else []
        for food, at in every_line:  # "a pepsi and a dew, make both large": each unit of the sentence that takes it
            self.updates(clause, food, at, ctx, acts)
        if every_line:
            return
        dish = items[-1].name if items else self.context_dish(ctx, state["last"])
        if not clause.items():  # no food named: "it" is the one that can take the change
            dish = self.taking(clause, ctx, dish)
            if dish and self.variant_said(clause, dish, result, state):
                return
        # a food this line ordered, named again ("..., large for the pizza"): its order line
        line = state["line"] if items else state.get("placed", {}).get(dish, 0) \
            if state.get("aimed") or not self.p.every_unit.search(clause.text) else 0
        units = None
        if not items and one:
            line = self.line_of_one(acts, state) or line
            units = None if line else 1  # no order line of one this sentence: one of the units ordered before
        elif not items and state["line"] and (some := self.units_with(clause)):
            line = self.line_of_one(acts, state, some) or line  # "three burritos, two with no onions"
        elif not items and not state["line"] and (some := self.some_of_them(clause) or self.units_with(clause)):
            units = some  # "mushrooms on two of them": on that many of the units ordered before
        back = self.taken_back(toks, clause.toppings())
        if not items and not line and back and back is not clause.toppings()[-1]:
            state["line"] += 1  # "not bacon, ham" of an order made before: on the units that have the bacon
            acts.append(Refer(Const("said"), back.name, state["line"]))
            self.updates(clause, "", state["line"], ctx, acts)
            return
        answering_kind = not items and not state["last"] and not one and (ctx.ask_topic in ("options", "which") or str(ctx.ask_topic).startswith("pick("))
        every = [f for f in ctx.ordered if clause.options() and all(  # each food with that option group (rules refuse a value it lacks)
            m.alternatives["option"] in {g for g, _ in self.menu.options_of(f)} for m in clause.options())] \
            if not items and not line and not clause.toppings() and self.p.every_unit.search(text) else []
        targets: list[str | None] = list(ctx.ask_group) if answering_kind and ctx.ask_group else list(every) or [dish]
        for target in targets:  # "all of them large": each food that has the option
            self.updates(clause, target, line, ctx, result.acts, units)  # "fresco please": on each dish asked about

    def placed_ref(self, clause: Clause, acts: list[Act]) -> tuple[tuple[str, int], list[Mention]] | None:
        """'..., deep dish on the medium', 'extra onions on the bean one', 'the chicken one grilled':
        a definite reference to one of the units this sentence ordered (by a word of its food's name,
        or an option or ingredient said for it) picks that unit's order line, and the words of the
        reference say no change themselves. (food, line) and the mentions used; None unless exactly
        one of two or more units fits."""
        toks = clause.tokens
        lines = {p.line: p.food for p in acts if isinstance(p, Order) and p.line}
        if len(lines) < 2:
            return None
        said: dict[int, set[Value]] = {line: set() for line in lines}
        for p in acts:
            if isinstance(p, (Update, UpdateUnits)) and p.line in said:
                value = p.option  # an option's (group, value, yes|no): its value
                said[p.line].add(value[1] if p.operation == Const("option") and isinstance(value, tuple) else value)

        def fits(line: int, words: list[str], name: str | None) -> bool:
            return name in said[line] or bool(words) and covers(words, lines[line])

        modifiers = [m for m in clause.mentions if m.kind in ("option", "topping")]
        covered = {j for m in clause.mentions for j in range(m.start, m.end)}
        for i in range(1, len(toks)):
            if toks[i - 1] not in self.p.definite:
                continue
            m = next((x for x in modifiers if x.start == i), None)
            if m is None and (i in covered or not is_letters(toks[i]) or toks[i] in self.p.filler):
                continue
            end = m.end if m else i + 1
            words = self.name_words(m.said if m else toks[i])
            picked = [line for line in lines if fits(line, words, m.name if m else None)]
            if len(picked) == 1 and (m is None or any(x is not m for x in modifiers)) and \
                    (end == len(toks) or toks[end] in self.p.unit_nouns or m is not None or
                     not any(x.start >= end for x in clause.mentions)):
                return (lines[picked[0]], picked[0]), [m] if m else []
        return None

    def every_placed(self, clause: Clause, acts: list[Act]) -> list[tuple[str, int]]:
        """'two soft tacos and a crunchy taco, all fresco', '..., no onions on either': a change
        said for all (both, each, either) after two or more order lines of this sentence goes on
        each of those lines whose food takes it (an option it offers, an ingredient it comes with
        or can have; what it lacks is no change for it): (food, line) of each."""
        if not self.p.every_unit.search(clause.text) or not (clause.toppings() or clause.options()):
            return []
        lines = [(p.food, p.line) for p in acts if isinstance(p, Order) and p.line]
        if len(lines) < 2:
            return []

        def takes(food: str) -> bool:
            offered = {g for g, _ in self.menu.options_of(food)}
            return all(m.alternatives["option"] in offered for m in clause.options()) and all(
                self.own_ingredient(food, m) in self.menu.included(food) or self.menu.builds_with(food, m.name) or
                self.operator_before(clause.tokens, m, clause.mentions) not in ("no", "less", "extra", "regular") and
                self.takes(food, m.name) for m in clause.toppings())
        return [(food, line) for food, line in lines if takes(food)]

    def asked_count(self, m: Mention, ctx: Context) -> int:
        """How many of m a line that says no number orders: as many as were asked for when m answers
        "Which drink would you like?" after "two drinks", else one."""
        kind, n = ctx.asked_kind or ("", 0)
        return n if n and kind in (m.name, self.menu.category_of.get(m.name)) else 1

    def asked_food(self, ctx: Context) -> tuple[str, int, None] | None:
        """The food last turn's "How many Xs would you like?" was about (a kind of one food, or a
        food), with how many were asked for: what "two large" answers."""
        if not ctx.asked_kind:
            return None
        kind, n = ctx.asked_kind
        foods = [f for f in self.menu.items if self.menu.category_of.get(f) == kind] or \
            [f for f in [kind] if f in self.menu.items]
        return (foods[0], n or 1, None) if len(foods) == 1 else None

    def drink_not_named(self, clause: Clause) -> int | None:
        """How many drinks (0: not said) a clause orders by a general word alone, not saying which
        ("a soda", "a couple of drinks", "something to drink"); None when it names a drink, or
        means the one ordered ("the drink")."""
        toks = clause.tokens
        at = next((i for i, t in enumerate(toks) if t in self.p.drink), None)
        if at is None or clause.items() or "drink" not in self.menu.categories:
            return None
        before = toks[max(0, at - 3):at]
        if set(before) & self.p.definite or not set(before) & (ARTICLES | self.vague_amounts | {"something"}) and \
                not any(number_at(before, i) for i in range(len(before))):
            return None
        return 0 if set(before) & self.vague_amounts else self.quantity_before(toks, at, clause.mentions, 0)

    def vague_kind(self, clause: Clause, m: Mention) -> tuple[str, int] | None:
        """(kind, how many: 0 when not said) when a name said as its kind's word alone does not say
        which: with an amount that is no number ("some tacos", "a few burritos") or in the plural
        with no exact number ("tacos", "a couple of burritos"). "a taco" or "two tacos" is the
        menu's own reading of the word."""
        said = normalize(m.said).split()
        kind = self.kind_said(said)
        start = m.start  # the words said for it start before its options and toppings ("some pepperoni pizzas")
        while x := next((x for x in clause.mentions if x.start < x.end == start and x.kind in ("option", "topping")),
                        None):
            start = x.start
        before = clause.tokens[max((x.end for x in clause.mentions if x.end <= start), default=0):start]
        amount = set(before[-3:]) & self.vague_amounts  # "a bunch of", not "any chance I could get a"
        if kind is not None and amount:  # "a few pizzas": how many is asked
            return kind, 0
        if amount and self.said_plural(said, m.name):
            return m.name, 0  # "a few cokes": how many is asked ("some cinnamon twists" is one order of them)
        if kind is None or normalize(m.name) in (kind, said[0]):
            return None
        exact = any(number_at(before, i) for i in range(len(before))
                    if before[i] not in ("a", "an") and before[i] not in self.vague_numbers)
        return (kind, self.quantity_before(clause.tokens, m.start, clause.mentions, 0)) \
            if said[0] != kind and not exact else None

    @staticmethod
    def said_plural(said: list[str], name: str) -> bool:
        """Was the name said in the plural of its last word ("cokes"), the name itself not plural?"""
        last = normalize(name).split()[-1]
        return said[-1] in (last + "s", last + "es")

    def kind_answer(self, flat: str, ctx: Context) -> Parse | None:
        """'the veggie one' after "Which bowl would you like?": the one food of that kind whose name
        holds the words said orders as many as were asked for."""
        if ctx.asked_kind is None:
            return None
        kind, n = ctx.asked_kind

        def own_words(text: str) -> list[str]:  # the words that tell foods of the kind apart
            return [w for w in text.split() if w.removesuffix("s") != kind]

        words = [w for w in own_words(self.opened(flat)) if w not in self.p.filler and w not in self.p.definite and
                 w not in self.p.unit_nouns]
        foods = [f for f in sorted(self.menu.items) if self.menu.category_of.get(f) == kind] or \
            [f for f in [kind] if f in self.menu.items]  # "How many Cokes?": the food itself
        count = number_at(words, 0) if len(foods) == 1 and words else None
        if count and count[1] == len(words):  # "three" to "How many pizzas?": the kind's one food
            return Parse([Order(foods[0], count[0], 1)], [], [])
        fits = [f for f in foods if words and covers(words, f)]
        if len(fits) > 1:  # "the bean one": the name that is the words said and the kind's word, if one is
            fits = [f for f in fits if own_words(normalize(f)) == words] or fits
        if len(fits) == 2:  # "the chicken one" of two: which of the two is asked
            return Parse([Either(*fits)], [], [])
        if len(fits) > 1:  # still several: asked again, never read as something else
            return Parse([Vague(kind, n)], [], [])
        return Parse([Order(fits[0], n or 1, 1)], [], []) if fits else None

    def units_of_them(self, clause: Clause, m: Mention) -> int | None:
        """'three pizzas, jalapenos on two of them', 'three burritos, two with no onions': how many
        of the units of m the ingredients said after it go on (a number before "of them", or before
        the word that says what is done to them), if any."""
        toks = clause.tokens
        if not any(x.kind == "topping" and x.start > m.end for x in clause.mentions):
            return None
        for j in range(m.end, len(toks)):
            got = number_at(toks, j)
            after = toks[j + got[1]:j + got[1] + 2] if got else []
            if got and toks[j] not in ("a", "an") and (after in (["of", "them"], ["of", "those"], ["of", "these"]) or
                                                      after[:1] and after[0] in self.p.operator_words):
                return got[0]
        return None

    def item_span(self, clause: Clause, m: Mention, after: Mention | None) -> Clause:
        """The part of a clause that modifies item m: from the options and ingredients said just
        before it ("two medium ham <pizzas>") to those said just before the next item."""
        return self.part(clause, *self.span_of(clause, m, after))

    def span_of(self, clause: Clause, m: Mention, after: Mention | None) -> tuple[int, int]:
        """Where item_span starts and ends in the clause."""
        def start_of(item: Mention) -> int:
            start = item.start
            while start > 0 and (self.modifier_at(clause, start - 1) or number_at(clause.tokens, start - 1)):
                start -= 1
            return start

        return start_of(m), start_of(after) if after else len(clause.tokens)

    @staticmethod
    def part(clause: Clause, a: int, b: int) -> Clause:
        """The words a..b of a clause, as a clause of their own."""
        return Clause(clause.tokens[a:b], [replace(x, start=x.start - a, end=x.end - a) for x in clause.mentions
                                           if a <= x.start and x.end <= b], clause.act, clause.asks)

    def modifier_at(self, clause: Clause, i: int) -> bool:
        """Is tokens[i] part of an option or ingredient mention, or "and" between two of them?"""
        inside = any(x.kind in ("option", "topping") and x.start <= i < x.end for x in clause.mentions)
        return inside or clause.tokens[i] == "and" and i > 0 and self.modifier_at(clause, i - 1)

    def units_with(self, clause: Clause) -> int | None:
        """The N of a clause that starts with "N with ...", "N without ...", "N no ..." (more than
        one): the modifiers go on that many units."""
        words = [t for t in clause.tokens if is_word(t)]
        while words and (words[0] in OPENERS or words[0] == "and"):
            words.pop(0)
        got = number_at(words, 0) if words and words[0] not in ("a", "an") else None
        return got[0] if got and got[0] > 1 and words[got[1]:got[1] + 1] and \
            words[got[1]] in self.p.operator_words and clause.toppings() else None

    @staticmethod
    def line_of_one(acts: list[Act], state: dict, units: int = 1) -> int | None:
        """'three tacos, one with no onions, one with extra cheese': the last order line of this
        sentence gives up one unit (or the units said: "two with no onions") for each "one with",
        the modifiers going on it; the units left go to a line after it, so the units are in the
        order said ("one with ham and one with pineapple": the ham one first). The last units left
        take the last one."""
        orders = {i: p for i, p in enumerate(acts) if isinstance(p, Order)}
        if not orders:
            return None
        index = max(orders) if orders[max(orders)].quantity > 1 or state.get("rest") not in orders else state["rest"]
        last = orders[index]
        food, n = last.food, last.quantity
        if n <= units:
            state.pop("rest", None)
            return last.line
        acts[index] = last.but(quantity=units)
        state["line"] += 1
        acts.append(Order(food, n - units, state["line"]))
        state["rest"] = len(acts) - 1
        # what was said for the whole line ("two large pizzas, one with ham") goes on the rest too
        acts += [p.but(line=state["line"]) for p in list(acts)
                 if isinstance(p, (Update, UpdateUnits)) and p.line == last.line]
        return last.line

    def slot_member(self, m: Mention, combo: str | None) -> Mention:
        """A food said in words of one of the choices of the combo it is said with is that choice
        ("a kids meal with nuggets": the kids nuggets, not the nuggets sold alone)."""
        choices = self.menu.combo_choices(combo) if combo else set()
        if m.name in choices or not (said := self.name_words(m.said)):
            return m
        fits = [d for d in choices if covers(said, d)]
        return replace(m, name=fits[0]) if len(fits) == 1 else m

    def combo_with(self, m: Mention, toks: list[str], placed: list[tuple[Mention, int]], last: str | None) -> str | None:
        """The combo ordered right before a food said "with" it ("a number 2 with a latte", "a kids
        meal, with the burger"). A food that is none of its choices may still be taken as a pick
        (taken_as_pick): the rules refuse it and name the choices, so the customer is asked rather
        than rung up for what they meant as the meal's."""
        combo, start = (placed[-1][0].name, placed[-1][0].end) if placed else (last, 0)
        if not combo or not self.menu.combo_choices(combo) or "with" not in toks[start:m.start]:
            return None
        return combo

    def taken_as_pick(self, name: str, combo: str) -> bool:
        """Is a food said with a combo that is none of its choices meant as its pick ("a number 2
        with a latte": asked, as a latte is a pick of some meal), not as a food of its own ("a combo
        with a bean burrito", "... and a cheeseburger": the kind of its fixed parts)?"""
        kinds = self.menu.category_of
        parts = {kinds.get(part) for c, part in self.menu.facts.get("combo_contain", []) if c == combo} - {None}
        return any(name in members for members in self.menu.groups.values()) and kinds.get(name) not in parts

    @staticmethod
    def meals_of(combo: str, acts: Sequence[Act], ctx: Context, state: dict) -> int:
        """How many units of a combo picks said "on both" go with: those this sentence ordered,
        else those of the order."""
        now = [a.quantity for a in acts if isinstance(a, Order) and a.food == combo]
        return now[-1] if now and state["last"] == combo else ctx.units.get(combo, 1)

    def slot_left(self, combo: str, acts: list[Act]) -> bool:
        ordered = sum(p.quantity for p in acts if isinstance(p, Order) and p.food == combo)
        chosen = sum(1 for p in acts if isinstance(p, Specify) and p.combo == combo)
        return chosen < max(ordered, 1) * self.menu.choice_slots(combo)

    @staticmethod
    def some_of_them(clause: Clause) -> int | None:
        """The N of "N of them", "two of those", "three of the pizzas" (more than one)."""
        toks = clause.tokens
        for i in range(1, len(toks) - 1):
            got = number_at(toks, i - 1)
            if toks[i] == "of" and got and got[0] > 1 and toks[i + 1] in ("them", "em", "those", "these", "the"):
                return got[0]
        return None

    def one_of_them(self, clause: Clause, items: list[Mention]) -> bool:
        """Do the modifiers of this clause go on one unit only ("..., one with no onions")?"""
        return bool(clause.toppings() or clause.options()) and \
            bool(self.p.some_units.search(clause.text)) and not self.p.every_unit.search(clause.text) and \
            (not items or bool(clause.toppings()) and clause.toppings()[0].start > items[-1].end)

    def quantity(self, clause: Clause, ctx: Context, result: Parse, state: dict) -> None:
        """A number or "one of those" with no name: the food the customer asked about, the
        suggestion, or (with "make it", "I meant") the last food ordered."""
        if about := state.get("asked") or self.asked_food(ctx):  # "do you have X? I'll take one", "two large"
            food, many, size = about
            ctx = replace(ctx, discussed=food, discussed_quantity=many, discussed_size=size)
        n = self.number_in(clause)
        text = clause.text
        target = state["last"] or (ctx.ordered[-1] if ctx.ordered else None)
        if state["line"] and not ctx.discussed:
            said = [(i, p) for i, p in enumerate(result.acts) if isinstance(p, Order)]
            if said and n and n > 1 and self.some_of_them(clause):  # "a gordita crunch, so two of those": two in all
                at, line = said[-1]
                result.acts[at] = line.but(quantity=n)
            return  # "a pepsi, two": the number was read with the order before it
        if ctx.discussed and (not self.p.acts["set_quantity"].search(text) or ctx.discussed not in ctx.ordered):
            if {"one", "ones"} & set(clause.tokens) and (variant := self.variant_by_word(ctx.discussed, clause.toppings())):
                # "the chicken one" of the chalupa asked about: the menu's chicken chalupa, never one with chicken added
                clause.mentions = [m for m in clause.mentions if m not in variant[1]]
                ctx = replace(ctx, discussed=variant[0])
            size = next((MULTIPLIERS[w] for w in clause.tokens if w in MULTIPLIERS), 0)
            if n and size and str(size) in normalize(ctx.discussed).split():
                n = max(n // size, 1)  # "one dozen" of the 12 pack asked about: one of it
            self.order_discussed(ctx, result, state, n)
            self.updates(clause, ctx.discussed, state["line"], ctx, result.acts)
            return
        if ctx.recommended_items and not self.p.acts["set_quantity"].search(text):
            food = ctx.recommended_items[0]
        elif target and self.p.acts["set_quantity"].search(text):  # a bare number changes nothing: it is asked
            result.acts.append(SetQuantity(target, n if n is not None else 1))
            return
        else:
            return
        state["line"] += 1
        result.acts.append(Order(food, n if n is not None else 1, state["line"]))
        state["last"] = food
        self.updates(clause, food, state["line"], ctx, result.acts)

    def copy(self, clause: Clause, ctx: Context, result: Parse, state: dict) -> None:
        """'another one of those', 'two more of the tacos', 'the same again for my wife': more made
        like what was ordered (ASP copies the last unit: size, options, changes)."""
        named = [f for m in clause.items() if (f := self.ordered_named(m, ctx))]
        words = [t for t in clause.tokens if is_letters(t)]
        n = next((got[0] for i in range(len(words)) if (got := number_at(words, i)) and
                  words[i] not in ("a", "an", "one") and words[i + got[1]:i + got[1] + 1] == ["more"]), 1)
        said = [m for m in clause.mentions if m.kind in ("option", "topping")]  # "the same again but large"
        whole = not named and bool(self.p.acts["copy_all"].search(clause.text)) and \
            not (said and len(ctx.ordered) == 1)
        food = "all" if whole else (named[-1] if named else ctx.ordered[-1])
        if any(isinstance(p, SetQuantity) and p.food == food for p in result.acts):
            return  # "make it two, she'll want another one": the count said is the whole of it
        if state.get("copied") == state["line"] and n == 1 and state["last"] == food and not named:
            self.updates(Clause(clause.tokens, said, clause.act, clause.asks), food, state["line"], ctx, result.acts)
            return  # "another one, same thing but with no onions": one copy, described
        state["line"] += 1
        twice = not whole and bool(self.p.acts["double"].search(clause.text))  # each unit once more
        result.acts.append(Copy(food, Const("all") if twice else n, state["line"]))
        state["last"] = None if whole else food
        state["copied"] = state["line"]  # "another one, same thing but ...": one copy, described
        if not whole:  # what is said with the copy, and in the clauses after it, is on the new ones only
            state.setdefault("placed", {})[food] = state["line"]
            self.updates(Clause(clause.tokens, said, clause.act, clause.asks), food, state["line"], ctx, result.acts)

    def order_discussed(self, ctx: Context, result: Parse, state: dict, n: int | None = None) -> None:
        """'ok, two of those' / 'do that': the food asked about, in the amount and size asked."""
        state["line"] += 1
        result.acts.append(Order(ctx.discussed, n or ctx.discussed_quantity, state["line"]))
        group = next((g for g, v in self.menu.options_of(ctx.discussed or "") if v == ctx.discussed_size), "size")
        if ctx.discussed_size:  # "how much is a 2 liter coke?" then "I'll take two": with the value asked
            result.acts.append(Update(ctx.discussed, Const("option"), option_value(group, ctx.discussed_size, True),
                                      state["line"]))
        state["last"] = ctx.discussed

    def replacement(self, clause: Clause, items: list[Mention], ctx: Context, result: Parse, state: dict) -> None:
        names = self.replaced_names(clause, items, ctx)
        if names is None:
            return
        old_name, new_name, kind = names
        toks = clause.tokens
        n = next((got[0] for i in range(1, len(toks)) if toks[i] == "of" and (got := number_at(toks, i - 1))), None)
        if old_name and new_name != old_name and n:  # "change two of them to crunchy": those units only
            state["line"] += 1
            result.acts += [Remove(old_name, n), Order(new_name, n, state["line"])]
            state["last"] = new_name
            return
        said_now = next((p for p in reversed(result.acts) if isinstance(p, Order) and
                         (p.food == old_name or len(items) == 1)), None)  # "..., no, make that a X"
        if said_now and new_name in self.menu.combo_choices(said_now.food):
            state["line"] += 1  # "a X combo and make the drink a Y": Y is the combo's choice, the combo stays
            result.acts.append(Specify(said_now.food, new_name, state["line"]))
            return
        asked = ctx.ask_target if str(ctx.ask_topic).startswith("choice") else None
        if not said_now and asked and old_name == asked and new_name in self.menu.combo_choices(asked):
            state["line"] += 1  # "which drink?" - "make it a milk then": the pick asked for, the meal stays
            result.acts.append(Specify(asked, new_name, state["line"]))
            return
        if said_now:  # "a bean burrito, wait no, make that a beef burrito": the order said just now changes
            result.acts.remove(said_now)
            state["line"] += 1
            result.acts.append(Order(new_name, said_now.quantity, state["line"]))
            state["last"] = new_name
            return
        if old_name and old_name != new_name:
            state["line"] += 1
            result.acts.append(Replace(old_name, new_name, state["line"]))
            state["last"] = new_name
            said = self.quantity_before(toks, items[-1].start, clause.mentions) if items else None
            if said and (said > 1 or set(toks) & {"one", "1"}):  # "I meant two soft tacos": that many, whatever the count was
                result.acts.append(SetQuantity(new_name, said, state["line"]))
            if not kind:  # the words of "a chicken one" named the food, not an ingredient to add
                self.updates(clause, new_name, state["line"], ctx, result.acts)
        elif old_name and self.said_again(clause, items, ctx):
            n = self.quantity_before(toks, items[-1].start, clause.mentions, default=1)
            state["line"] += 1  # the last n units ordered go, the ones said now take their place
            result.acts += [Refer(Const("food"), old_name, state["line"]),
                            Refer(Const("last"), n, state["line"]), Remove("", Const("all"))]
            state["line"] += 1
            result.acts.append(Order(new_name, n, state["line"]))
            state["last"] = new_name
            self.updates(clause, new_name, state["line"], ctx, result.acts)
        elif old_name and not any(m.said for m in items):  # "change it to a vegetarian": the food it is, restyled
            state["last"] = old_name
            self.updates(clause, old_name, 0, ctx, result.acts)

    def replaced_names(self, clause: Clause, items: list[Mention],
                       ctx: Context) -> tuple[str | None, str, str | None] | None:
        """What a replacement takes out and puts in, and the kind's word when the new food is named by
        one ("a chicken one"); None when it names nothing to put in."""
        text = clause.text
        kind = None
        if len(items) >= 2:
            first, second = items[0], items[1]
            cue = self.p.inside["new_first"].search(text)
            at = first_word_at(text, clause, first)
            old_first = cue is not None and cue.end() <= at and len(text[cue.end():at].split()) <= 2
            new, old = (first, second) if cue and not old_first else (second, first)
            old_name: str | None = self.ordered_named(old, ctx) or old.name
            new_name = new.name
        elif self.said_again(clause, items, ctx):
            old_name = new_name = self.ordered_named(items[0], ctx) or items[0].name
        elif not items and (renamed := self.renaming(clause, ctx)):
            old_name, new_name = renamed  # "I meant bean": the food with that word, nothing added
            kind = new_name
        else:
            named = clause.items()
            old_name = self.ordered_named(named[0], ctx) if len(named) == 1 else \
                ctx.ordered[-1] if not named and ctx.ordered and self.refers_back(text) else None
            kind = self.kind_one(clause, old_name) if old_name else None
            if kind:  # "change the quesadilla to a chicken one": the same kind of food, with that word
                new_name = kind
            elif new_ones := items or [m for m in named if not self.ordered_named(m, ctx)]:  # "... them to a Y"
                new_name = new_ones[0].name
                old_name = self.ordered_like(new_name, ctx, exact=False)
            else:
                return None
        return old_name, new_name, kind

    def kind_of_ordered(self, said: str, clause: Clause, ctx: Context) -> str | None:
        """'change two of them to crunchy': in a change, words that name no food alone name the
        ordered food's own kind with those words (a soft one to crunchy: the crunchy one)."""
        if not self.p.acts["replace"].search(clause.text) or not ctx.ordered:
            return None
        return self.repairs.renamed(ctx.ordered[-1], said.split())

    def kind_one(self, clause: Clause, old: str) -> str | None:
        """'a chicken one', 'the crunchy ones': the food of old's kind named by the words before
        "one" (an ingredient or a word of a name)."""
        toks = clause.tokens
        for i, tok in enumerate(toks):
            if tok in ("one", "ones") and i > 0:
                words: list[str] = []
                j = i - 1
                while j >= 0 and is_letters(toks[j]) and toks[j] not in ARTICLES and toks[j] not in LINKING and \
                        toks[j] not in self.p.splitters and toks[j] not in ("the", "my"):
                    words.insert(0, toks[j])
                    j -= 1
                if words:
                    return self.repairs.renamed(old, words)
        return None

    # -- references to the order ------------------------------------------------------------
    def unit_refs(self, clause: Clause, ctx: Context) -> tuple[list[tuple[str, str | int]], list[Mention]]:
        """What picks some of the units ordered ("the second one", "the small one", "the pepperoni
        pizza", "both of the drinks", "the last thing"), and the mentions it uses; ([], []) when
        the clause picks none of them (a food named alone is the old way: all its units)."""
        toks = clause.tokens
        if not ctx.ordered:
            return [], []
        refs, used = self.mention_refs(clause, ctx)
        refs = self.word_refs(clause) + refs
        if not refs and not clause.items() and (clause.toppings() or clause.options()) and any(
                t in self.p.plural_refs and (toks[i - 1:i] != ["of"] or toks[i - 2:i - 1] == ["one"])
                for i, t in enumerate(toks)):
            refs.append(("recent", 1))  # "make them large", "jalapenos on one of those": the units just ordered
        if not refs and clause.act == "remove" and not clause.items() and self.refers_back(clause.text):
            refs.append(("recent", 1))  # "take that off": what the last line named, asked which if unlike
            refs += [] if set(toks) & self.p.plural_refs else [("alike", 1)]
        if not refs and set(toks) & self.p.person_unit and (clause.toppings() or clause.options()):
            refs.append(("one", 1))  # "he wants his with no tomatoes": one unit, the person's
        if not refs and (self.p.diet.search(clause.text) or self.p.every_unit.search(clause.text)) and \
                clause.toppings() and not clause.items():
            refs.append(("all", 1))  # "I can't eat onions", "no onions on anything": every unit that comes with them
        if not refs:
            return [], []
        for m in clause.items():  # "the second pizza": of that food
            food = self.ordered_named(m, ctx)
            if food and m not in used:
                refs.append(("food", food))
                used.append(m)
        singular = any(t in self.p.unit_nouns for t in toks) and not set(toks) & self.p.unit_all
        if singular and not any(kind in ("nth", "one", "alike") for kind, _ in refs):
            refs.append(("one", 1))
        return refs, used

    def word_refs(self, clause: Clause) -> list[tuple[str, str | int]]:
        """What picks units by its words alone: "the second one", "the drink", "the other taco",
        "that one", "the meat one", "both"."""
        toks = clause.tokens
        refs: list[tuple[str, str | int]] = []
        for i, tok in enumerate(toks):
            before = toks[max(0, i - 2):i]
            definite = bool(set(before) & (self.p.definite | self.p.unit_all))
            if tok in self.p.ordinals and definite and not any(m.start <= i < m.end for m in clause.mentions):
                first = number_at(toks, i + 1) if self.p.ordinals[tok] == 1 and i + 1 < len(toks) else None
                refs.append(("last", -first[0]) if first and first[0] > 1 else ("nth", self.p.ordinals[tok]))  # "the first two"
            elif tok in self.p.drink and definite and "drink" in self.menu.categories:
                refs.append(("category", "drink"))  # "the drink" of a coke and a sprite: which one?
                refs += [] if tok.endswith("s") or set(before) & self.p.unit_all else [("alike", 1)]
            elif tok == "other" and toks[i - 1:i] == ["the"]:  # "the other taco": the one not made like its twin
                refs.append(("other", 1))
            elif tok in self.p.unit_nouns and toks[i - 1:i] in (["that"], ["this"]):
                refs.append(("recent", 1))  # "do that one on a stuffed crust": the one just talked about
            elif tok in self.p.unit_nouns and i >= 2 and toks[i - 2] in self.p.definite and is_letters(toks[i - 1]) and \
                    toks[i - 1] not in self.p.ordinals and toks[i - 1] not in self.p.drink and toks[i - 1] != "other" and \
                    not any(m.start <= i - 1 < m.end for m in clause.mentions):
                refs.append(("word", toks[i - 1]))  # "the meat one": that word of a unit, or nothing the order has
            elif tok == "both" and (toks[i + 1:i + 2] in ([], ["of"], ["the"], [","], ["."], ["?"]) or any(
                    m.start == i + 1 and m.kind in ("option", "topping") for m in clause.mentions)):
                refs.append(("last", 2))  # "on both", "make those both large": the last two units
        return refs

    def mention_refs(self, clause: Clause, ctx: Context) -> tuple[list[tuple[str, str | int]], list[Mention]]:
        """What picks units by a name it says: "the small one", "the guac one", "the one with
        chicken", "the taco" of two made differently; with the mentions it uses."""
        refs: list[tuple[str, str | int]] = []
        used: list[Mention] = []
        for m in clause.mentions:
            before = clause.tokens[max(0, m.start - 2):m.start]
            after = clause.tokens[m.end:m.end + 1]
            if m.kind == "option" and (set(before) & self.p.definite and (
                    set(after) & self.p.unit_nouns or any(x.kind == "item" and x.start == m.end for x in clause.mentions) or
                    before[-1:] == ["the"] and not any(is_word(t) for t in clause.tokens[m.end:])) or
                    self.the_one_with(clause, m)):  # "cancel the hawaiian", "the one in the bottle"
                # "the small one", "the large pizza"; "the supreme one" of a name with that word: the name
                refs += [("word", w) for w in self.ordered_words(m.said, ctx)] or [("option", m.name)]
                used.append(m)
            elif m.kind == "topping" and set(before) & self.p.definite and \
                    (set(after) & self.p.unit_nouns or any(x.kind == "item" and x.start == m.end and
                                                           self.ordered_named(x, ctx) for x in clause.mentions)):
                words = self.name_words(m.said, m.name) or self.ordered_words(m.said, ctx)  # "the bean one"
                refs += [("word", w) for w in words] or [("topping", m.name)]  # "the guac one", "the mushroom pizza"
                used.append(m)
            elif m.kind == "topping" and self.the_one_with(clause, m):
                # "the one with chicken": made with it; "the one without onions": something said of them
                words = self.name_words(m.said, m.name) or self.ordered_words(m.said, ctx)
                refs += [("said", m.name)] if self.the_one_with(clause, m) == "without" else \
                    [("word", w) for w in words] or [("topping", m.name)]
                used.append(m)
            elif m.kind == "item" and set(before) & self.p.definite and self.ordered_named(m, ctx) and \
                    (len({f for f in ctx.ordered if covers(self.name_words(m.said), f)}) > 1 or
                     self.ordered_named(m, ctx) in ctx.several and not m.said.endswith("s")):
                # "the taco" of a soft and a crunchy one, "the pizza" of two: all of them only if made alike
                refs += [("word", w) for w in self.name_words(m.said)]
                some = self.some_of_them(clause)  # "two of the tacos": the last two of them
                refs += [("last", some)] if some else [] if m.said.endswith("s") else [("alike", 1)]
                used.append(m)
        return refs, used

    def the_one_with(self, clause: Clause, m: Mention) -> str | None:
        """'the one with chicken', 'the one in the bottle': the word linking a unit noun after a
        definite word to the mention m (with, without, in, on), if that is what comes before m."""
        toks = clause.tokens[:m.start]
        toks = toks[:-1] if toks[-1:] in (["a"], ["an"], ["the"]) else toks
        return toks[-1] if len(toks) >= 3 and toks[-1] in ("with", "without", "in", "on") and \
            toks[-2] in self.p.unit_nouns and toks[-3] in self.p.definite else None

    def ordered_words(self, said: str, ctx: Context) -> list[str]:
        """The words said that are words of the names of the foods ordered."""
        names = {v for f in ctx.ordered for w in normalize(f).split() for v in (w, w.removesuffix("s"))}
        words = self.name_words(said)
        return words if words and all(w in names or w.rstrip("s") in names for w in words) else []

    def name_words(self, said: str, name: str | None = None) -> list[str]:
        """The words of a reference that may be words of names (of `name`'s, when given)."""
        own = normalize(name).split() if name else None
        return [w for w in normalize(said).split() if w not in self.p.filler and w not in self.p.definite and
                w not in self.p.unit_nouns and (own is None or w in own or w.rstrip("s") in own)]

    def which_answer(self, tokens: list[str], ctx: Context) -> Parse | None:
        """'the soft one', 'the crunchy taco', 'the second one' after the bot asked which unit a change
        is for: a line of nothing but a reference (the rules apply the held change to what it picks)."""
        words = [t for t in tokens if is_word(t) and t not in OPENERS and not self.p.polite.whole(t)]
        named = {v for f in [*ctx.ordered, *self.menu.toppings] for w in normalize(f).split()  # "the ham one"
                 for v in (w, w.removesuffix("s"))}
        options = self.menu.option_words  # "the veggie one": the unit with that option value
        telling = named | set(options) | set(self.p.ordinals) | self.p.unit_all | {"of", "them", "those"}
        content = [w for w in words if w not in self.p.definite and w not in self.p.unit_nouns and
                   (w in telling or w.rstrip("s") in named or w not in self.p.filler)]  # "soft one pls"
        if content and all(w in self.p.unit_all or w in ("of", "them", "those") for w in content):
            return Parse([Refer(Const("all"), 1, 1)], [], [])  # "both": every unit asked about
        if not content or len(content) > 4 or \
                any(w not in self.p.ordinals and w not in named and w.rstrip("s") not in named and w not in options
                    for w in content):
            return None
        refs: list[tuple[str, str | int]] = [("nth", self.p.ordinals[w]) if w in self.p.ordinals else
                                             ("option", options[w][1]) if w in options and w not in named else
                                             ("word", w) for w in content]
        refs += [] if any(kind == "nth" for kind, _ in refs) else [("one", 1)]
        return Parse([Refer(Const(kind), value, 1) for kind, value in refs], [], [])

    def refer(self, clause: Clause, ctx: Context, result: Parse, state: dict) -> list[Mention]:
        """The references of a clause, on a line of their own; the mentions they used."""
        refs, used = self.unit_refs(clause, ctx)
        state["line"] += 1
        result.acts += [Refer(Const(kind), value, state["line"]) for kind, value in refs]
        return used

    def ordered_named(self, m: Mention, ctx: Context) -> str | None:
        """The ordered food a mention means: itself, or the ordered food whose name holds every
        word said ("the wrap" is an ordered Grilled Wrap)."""
        if m.name in ctx.ordered:
            return m.name
        said = [w for w in m.said.split() if w not in self.p.filler] if m.said else []
        matching = [f for f in ctx.ordered if said and covers(said, f)]
        return matching[-1] if matching else None

    def ordered_like(self, name: str, ctx: Context, exact: bool = True) -> str | None:
        """The ordered food a name refers to: itself if ordered, else the last of its category."""
        if name in ctx.ordered and exact:
            return name
        category = self.menu.category_of.get(name)
        same = [f for f in ctx.ordered if self.menu.category_of.get(f) == category and f != name]
        if same:
            return same[-1]
        return name if exact else (ctx.ordered[-1] if ctx.ordered else None)

    @staticmethod
    def is_target(toks: list[str], m: Mention, definite: frozenset[str]) -> bool:
        """'add beans to my burrito', 'large for the pizza': the item after to/on/onto (or "for" and
        a definite word) is what changes, not an order."""
        before = [t for t in toks[max(0, m.start - 6):m.start]
                  if t not in ("my", "the", "your", "both", "all", "those", "of", "one", "just", "only", "each")]
        return bool(before) and (before[-1] in ("to", "on", "onto", "in") or
                                 before[-1] == "for" and toks[m.start - 1] in definite)

    def modified_ordered(self, clause: Clause, m: Mention, ctx: Context, placed: dict[str, int]) -> bool:
        """'make the tacos fresco', 'my burrito with no onions', 'a coke and a sprite, the coke
        large': a definite reference to a food already ordered (or by this line), in a clause that
        modifies it, changes that food; it orders nothing."""
        toks = clause.tokens
        definite = toks[max(0, m.start - 1):m.start] in (["the"], ["my"], ["those"], ["these"], ["both"], ["our"], ["that"],
                                                         ["this"])
        # "large pizza, small sprite" answering "what size?": the foods ordered, named bare ("a large
        # pizza" only of the food asked about); "another", "also", a count order more
        article = set(toks[:m.start]) & ARTICLES
        answering = str(ctx.ask_topic).startswith("pick(") and bool(clause.options()) and m.name in ctx.ordered and \
            (not article or article <= {"a", "an"} and m.name in ctx.ask_group) and \
            not set(toks) & self.p.repair_keeps and \
            not any(number_at(toks, j) and toks[j] not in ("a", "an") for j in range(m.start))
        modifies = bool(clause.toppings() or clause.options())
        partitive = toks[max(0, m.start - 2):m.start - 1] == ["of"]  # "make 3 of the tacos ...": some of them
        return (definite or answering) and modifies and bool(self.ordered_named(m, ctx) or m.name in placed) and \
            (answering or partitive or self.quantity_before(toks, m.start, clause.mentions) is None)

    def quantity_before(self, toks: list[str], end: int, mentions: list[Mention], default: int | None = None):
        prev_end = max([m.end for m in mentions if m.end <= end and m.start < end and m.kind == "item"], default=0)
        for i in range(prev_end, end):
            got = number_at(toks, i)
            if got and toks[i + got[1]:i + got[1] + 1] in (["dollar"], ["dollars"], ["buck"], ["bucks"]):
                continue  # "the five dollar box": a price, not a quantity
            if got and i > 0 and toks[i - 1] in ("number", "no", "num"):
                continue  # "the number 3 combo": a name, not a quantity
            if got and any(x.kind == "option" and x.start <= i < x.end for x in mentions):
                continue  # "a 20 oz bottle", "a two liter": a number inside an option value is part of it
            if got and not (toks[i] in ("a", "an") and i + got[1] < end - 2):
                return got[0]
        for i in range(end, len(toks)):  # "pepsi, two of them" / "x3"
            if any(m.start <= i < m.end for m in mentions):
                continue
            got = number_at(toks, i)
            if got and toks[i] not in ("a", "an", "one") and i > end:
                return got[0]
        return default

    def taking(self, clause: Clause, ctx: Context, dish: str | None) -> str | None:
        """'no onions on it' after a burrito and a drink: "it" is the food that can take the change,
        the last ordered one that comes with or offers every ingredient said, when the food the
        context names takes none of them."""
        names = {m.name for m in clause.toppings()}
        if not names or not dish or any(self.takes(dish, t) for t in names):
            return dish
        return next((f for f in reversed(ctx.ordered) if all(self.takes(f, t) for t in names)), dish)

    def takes(self, food: str, topping: str) -> bool:
        return topping in self.menu.included(food) or (food, topping) in self.menu.topping_pairs

    def context_dish(self, ctx: Context, last_item: str | None) -> str | None:
        if last_item:
            return last_item
        if ctx.ask_target and ctx.ask_target in self.menu.items and ctx.ask_topic != "else":
            return ctx.ask_target
        dishes = [f for f in ctx.ordered if f in self.menu.items]
        return dishes[-1] if dishes else None

    def context_sized(self, ctx: Context, group: str = "size") -> str | None:
        """The item a bare option value ("a large", "make it thin crust") is about: the one whose
        question is open, else the last ordered item that offers the group."""
        if ctx.ask_topic == f"pick({group})" and ctx.ask_target:
            return ctx.ask_target
        offering = [f for f in ctx.ordered if any(g == group for g, _ in self.menu.options_of(f))]
        return offering[-1] if offering else None

    def combo_for_choice(self, name: str, ctx: Context, last_item: str | None,
                         tokens: Sequence[str] = (), each: bool = False) -> str | None:
        """The combo a named dish is a choice for: the combo just said or asked about, or an
        ordered combo whose group the clause names ("make the drink a <drink>")."""
        asked = ctx.ask_topic and (ctx.ask_topic.startswith("choice") or ctx.ask_target in self.menu.combos)
        combos = ([last_item] if last_item else []) + ([ctx.ask_target] if asked else [])  # its pick, or its size
        with_it = "with" in tokens and self.refers_back(" ".join(tokens)) or each  # "and a <drink> with it", "... on both"
        around = [t for t in tokens if t not in normalize(name).split()]  # "an extra bbq sauce" names no group
        combos += [c for c in reversed(ctx.ordered) if c in self.menu.combos and any(
            (with_it or self.group_said(group, around)) and name in self.menu.groups[group]
            for group in self.groups_of(c))][:1]
        for combo in combos:
            if combo and name in self.menu.combo_choices(combo):
                return combo
        return None

    def groups_of(self, combo: str) -> list[str]:
        """The choices a combo offers ("Drink", "Side")."""
        return [group for c, group in self.menu.facts.get("combo_contain", []) if c == combo and group in self.menu.groups]

    def choice_said(self, meal: str, m: Mention) -> str | None:
        """The meal's choice an ingredient word names ("no sauce" with a meal whose sauce is a pick)."""
        said = normalize(m.said or "").split()[-1:]  # a dish that is no meal has no choices: none
        return next((group for group in self.groups_of(meal) if said == [normalize(group).split()[-1] + "s"] or
                     said == normalize(group).split()[-1:]), None)

    @staticmethod
    def group_said(group: str, tokens: Sequence[str]) -> bool:
        return group.lower() in tokens or group.lower() + "s" in tokens

    def combo_whose_pick(self, clause: Clause, ctx: Context) -> str | None:
        """'the drink for the combo, ...': the ordered combo (the last) one of whose choices a clause
        naming no food speaks of: the food said next is that pick."""
        if clause.items():
            return None
        return next((c for c in reversed(ctx.ordered) if c in self.menu.combos and
                     any(self.group_said(group, clause.tokens) for group in self.groups_of(c))), None)

    # -- suggestions and questions ----------------------------------------------------------
    def recommendation(self, text: str, items: list[Mention], context_dish: str | None,
                       label: str | None = None) -> NeedRecommend:
        """label: a kind the line said of the customer ("I'm vegetarian, what do you suggest")."""
        upgrade = self.p.acts["upgrade"].search(text)
        if items and upgrade:  # "what do people add to the soft taco?"
            return NeedRecommend(items[0].name, Const("upgrade"))
        category = self.category_in(text) or label
        if category:
            return NeedRecommend(category, Const("category"))
        if items:
            return NeedRecommend(items[0].name, Const("upgrade"))
        if (upgrade or self.refers_back(text)) and context_dish:
            return NeedRecommend(context_dish, Const("upgrade"))
        return NeedRecommend("all", Const("category"))

    def query(self, clause: Clause, items: list[Mention], dish: str | None, ctx: Context) -> Query | None:
        q, text, toppings = self.p.questions, clause.text, clause.toppings()
        food = items[0].name if items else None
        n = self.quantity_before(clause.tokens, items[0].start, clause.mentions, default=1) if items else 1
        offered = {v for _, v in self.menu.options_of(food)} if food else set()
        said = [m.name for m in clause.options()]  # "a 2 liter coke": a value of any group the food offers
        size = next(iter([v for v in said if v in offered] or self.sizes_in(clause)), None)

        def ask(kind: str, about: str | None) -> Query:
            assert about, "a question is about something"  # each caller checks it has one
            return Query(Const(kind), about, n, size) if about == food else Query(Const(kind), about, 1, None)

        back = self.refers_back(text) and not food
        if q["why"].search(text):
            if q["why_price"].search(text) or re.search(r"\d", " ".join(clause.tokens)):  # "why so expensive"
                whole = not food and (q["whole_order"].search(text) or ctx.ask_topic == "more")  # after the summary
                return ask("why", "all" if whole else food or ctx.discussed or dish or "all")
            if food or ctx.refused:  # "why can't I have it": what ran out
                return ask("available", food or ctx.refused)
        if ctx.ask_topic and ctx.ask_topic.startswith("choice") and not food and q["menu"].search(text):
            return ask("choices", ctx.ask_target)  # "what are my options?" for the combo asked about
        priced = q["price"].search(text) and ctx.ordered  # "how much is my order so far", "how much is that"
        if not food and (q["total"].search(text) or priced and (q["whole_order"].search(text) or back and not ctx.discussed and not said)):
            return ask("total", "all")  # "how much is that gonna be", with an order: its total
        if q["price"].search(text) and said and not food:
            return self.option_price_query(clause, said[0], dish, ctx)  # the price of an option value
        about = food or (ctx.discussed if back else None) or dish
        if q["price"].search(text):
            return ask("price", about or "all")
        if q["calories"].search(text):
            return ask("calories", about or "all")
        if q["toppings"].search(text) and not toppings:
            return ask("toppings", about or "all")
        if q["sizes"].search(text):
            return ask("sizes", food or self.context_sized(ctx) or "all")
        group = self.group_asked(clause)
        if group and not food and (q["menu"].search(text) or q["available"].search(text)):
            value = min(v for g, v in self.menu.option_words.values() if g == group)  # the group, by one of its values
            return Query(Const("options"), value, 1, None)  # "what crusts do you have?"
        named = [m for m in clause.mentions if m.end - m.start > 1]  # "crunchwrap combo" is no category word
        category = self.category_in(" ".join(t for i, t in enumerate(clause.tokens)
                                             if not any(m.start <= i < m.end for m in named)))
        kinds_of = self.p.inside["kinds_of"].starts(self.opened(text))
        if category and (kinds_of or not food) and (q["menu"].search(text) or q["available"].search(text)):
            return ask("menu", category)
        if not food and not category and not toppings and q["whole_menu"].search(text):
            return ask("menu", "all")  # "what's on the menu?": its kinds, a few of each
        if q["available"].search(text) and (food or toppings or not back):
            return ask("available", food or (toppings[0].name if toppings else "all"))
        if q["available"].search(text):  # "do you have it in large?": about what "it" is, if anything
            return ask("available", about) if about else None
        if food and ctx.asked_price and not q["ingredients"].search(text):
            return ask("price", food)  # "how much is a large pizza?" then "and a 2 liter coke?"
        if food or (about and q["ingredients"].search(text)):
            return ask("ingredients", food or about)
        if toppings:
            return ask("available", toppings[0].name)
        return None

    def group_asked(self, clause: Clause) -> str | None:
        """'what crusts do you have': an option group of the KB named by itself (or its plural),
        outside any option value ("thin crust" names a value, not the group)."""
        inside = {i for m in clause.mentions for i in range(m.start, m.end)}
        groups = self.menu.option_groups
        return next((w.removesuffix("s") if w not in groups else w for i, w in enumerate(clause.tokens)
                     if i not in inside and (w in groups or w.removesuffix("s") in groups)), None)

    def option_price_query(self, clause: Clause, value: str, dish: str | None, ctx: Context) -> Query:
        """'how much would it be with stuffed crust?' about an ordered item that offers the value:
        its price with it (with); 'how much extra is stuffed crust?': what the value adds to the one
        item that offers it, or to the ordered one (extra); else it is asked which item is meant."""
        offering = sorted(i for i in self.menu.items if any(v == value for _, v in self.menu.options_of(i)))
        ordered = [f for f in ctx.ordered if f in offering]
        if ordered and (self.refers_back(clause.text) or "with" in clause.tokens):
            return Query(Const("with"), ordered[-1], 1, value)
        about = dish if dish in offering else ordered[-1] if ordered else offering[0] if len(offering) == 1 else None
        if about is None:
            return Query(Const("price"), "all", 1, None)
        if about == dish and not set(clause.tokens) & {"extra", "more", "upcharge", "surcharge", "add"}:
            return Query(Const("price"), about, 1, value)  # "a coke" then "how much for a large?"
        return Query(Const("extra"), about, 1, value)

    def category_in(self, text: str) -> str | None:
        for w in text.split():
            if w in self.category_words:
                return self.category_words[w]
            for cand in (w, w[:-1], w[:-2]):
                if cand in self.menu.categories:
                    return cand
        return None

    # -- modifiers ---------------------------------------------------------------------------
    @staticmethod
    def sizes_in(clause: Clause) -> list[str]:
        return [m.name for m in clause.options() if m.alternatives["option"] == "size"]

    def size_for(self, item: str, clause: Clause) -> str | None:
        """The size said, else the one "upsize" (the dearest) or "downsize" (the cheapest) means."""
        said = self.sizes_in(clause)
        if said:
            return said[0]
        prices = {o: p for i, g, o, p in self.menu.facts.get("option_price", []) if i == item and g == "size"}
        sizes = sorted((prices.get(o, 0), o) for g, o in self.menu.options_of(item) if g == "size")
        if not sizes:
            return None
        return sizes[0][1] if self.p.acts["downsize"].search(clause.text) else sizes[-1][1]

    def updates(self, clause: Clause, dish: str | None, line: int, ctx: Context, acts: list[Act],
                units: int | None = None) -> None:
        if dish is None:
            return
        toks, text = clause.tokens, clause.text
        toppings = clause.toppings()
        swap = self.p.substitute.search(text)
        if swap and len(toppings) >= 2:
            self.swap_said(text, toppings, dish, line, acts, units)
            toppings = toppings[2:]
        elif dish and not line and not units and len(toppings) == 1 and (
                "instead" in toks and self.operator_before(toks, toppings[0], clause.mentions) in (None, "add") or
                self.p.acts["replace_with"].starts(self.opened(text)) and
                self.operator_before(toks, toppings[0], clause.mentions) is None):
            # "sausage instead", "make that italian sausage": what it takes the place of on the units
            # ordered, the rules say (the one added, or the one added whose name shares a word)
            acts.append(Update(dish, Const("change"), ("", toppings[0].name), line))
            toppings = []
        operation = None
        plain = "no" if self.p.takes_off(text) else "add"  # "take the onions off that": off, never added
        back = self.taken_back(toks, toppings)
        for m in toppings:
            if m is back:  # "not olives, mushrooms": the olives said earlier this line are unsaid, else taken back
                said_here = [p for p in acts if isinstance(p, (Update, UpdateUnits)) and p.dish == dish and
                             p.option == m.name and p.line == line and line]
                acts[:] = [p for p in acts if p not in said_here]
                operation = "unsay" if dish == "" else "no"  # "a pizza, not pepperoni": none on it
                if not said_here:
                    acts.append(Update(dish, Const(operation), m.name, line))
                continue
            operation = self.operator_before(toks, m, clause.mentions) or self.carried(operation, toks, m, clause) or plain
            if operation == "no" and (group := self.choice_said(dish, m)):  # "no sauce" with a meal: none of its pick
                acts.append(Update(dish, Const("no"), group, line))
                continue
            owned = operation in ("no", "less", "extra", "regular") or "kind_word" in m.alternatives
            owners = ctx.ordered if dish == "" else [dish]  # "no cheese on the third one": that unit's own cheese
            names = sorted({self.own_ingredient(d, m) for d in owners} | ({m.name} if dish == "" else set())) \
                if owned else [m.name]
            for name in names:
                acts.append(UpdateUnits(dish, Const(operation), name, units, line) if units else
                            Update(dish, Const(operation), name, line))
        if not toppings and self.p.inside["add_suggested"].search(text) and ctx.recommended_toppings:
            for rec_dish, topping in ctx.recommended_toppings:
                acts.append(Update(rec_dish, Const("add"), topping))
        for m in clause.options():
            group = m.alternatives["option"]
            since = max([x.end for x in clause.mentions if x.end <= m.start and
                         (x.kind != "option" or x.alternatives["option"] == group)], default=0)
            negated = bool(set(toks[max(since, m.start - 5):m.start]) & self.p.option_negation) or \
                self.p.inside["new_first"].search(" ".join(toks[max(since, m.start - 3):m.start])) is not None
            offers = any(g == group for g, _ in self.menu.options_of(dish))
            target = dish if offers or line else self.context_sized(ctx, group) or dish
            acts.append(Update(target, Const("option"), option_value(group, m.name, not negated),
                               line if target == dish else 0))

    def carried(self, operation: str | None, toks: list[str], m: Mention, clause: Clause) -> str | None:
        """The operation an ingredient said without its own takes from the one before: "with ham,
        bacon and onions" all added; "extra cheese and ham": only the cheese is extra; a "no" goes
        on over "or" ("no peppers or onions")."""
        if operation in ("extra", "less", "unsay"):
            return "add"
        if operation == "no":
            before = max((x.end for x in clause.toppings() if x.end <= m.start), default=m.start)
            return "no" if set(toks[before:m.start]) & self.p.negation_goes_on else "add"
        return operation

    def taken_back(self, toks: list[str], toppings: list[Mention]) -> Mention | None:
        """X of "not X, Y" / "not the X": an ingredient right after a word that takes it back (never
        the end of a longer operator: "but not X" is a "no")."""
        for m in toppings:
            k = m.start - 1 - (toks[m.start - 1:m.start] == ["the"])
            if k < 0 or toks[k] not in self.p.takes_back:
                continue
            if not any(1 < n <= k + 1 and tuple(toks[k - n + 1:k + 1]) in self.p.operator_of
                       for n in self.p.operator_lengths):
                return m
        return None

    def own_ingredient(self, dish: str, m: Mention) -> str:
        """'no cheese' on a dish whose cheese has another name: the dish's own ingredient whose
        name holds the words said, when the one named is not in the dish."""
        has = self.menu.included(dish)
        said = [w for w in (m.said or "").split() if w not in self.p.filler]
        said = [m.alternatives["kind_word"]] if "kind_word" in m.alternatives else said
        if m.name in has or not said:
            return m.name
        own = sorted(i for i in has if covers(said, i))
        return own[0] if len(own) == 1 else m.name

    def operator_before(self, toks: list[str], m: Mention, mentions: list[Mention]) -> str | None:
        """The modifier word closest before an ingredient ("along with extra cheese": extra). A word
        inside a matched name ("extra large", a size) is that name's, never also an operator."""
        prev_end = max([x.end for x in mentions if x.end <= m.start and x.kind != "option"], default=0)
        longest = max(4, self.p.operator_lengths[0])  # "not in the mood for X"
        start = max(prev_end, m.start - longest)
        window = [None if any(x.start <= i < x.end for x in mentions) else t
                  for i, t in enumerate(toks[start:m.start], start=start)]
        found = [(i + n, n, self.p.operator_of[said]) for n in self.p.operator_lengths
                 for i in range(len(window) - n + 1) if (said := tuple(window[i:i + n])) in self.p.operator_of]
        return max(found)[2] if found else None
