"""The offline customer parser: text -> customer predicates, deterministically.

It is the "mock LLM" of the offline backend and must hold a real conversation: menu names
come from the KB lexicon (names, aliases, plurals, close spellings), quantities from digits
and number words, and short answers ("no thanks", "regular", "two") take their meaning from
the bot's last question, passed in as `Context`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..menu.model import Menu
from ..names import NameMatcher
from ..reasoner import Const
from ..vocab import Pred
from .text import ACCEPT, DECLINE, NUMBER_WORDS, Mention, find_mentions, number_at, tokenize

SPLITTERS = {",", ".", ";", "!", "?", "and", "plus", "also", "then"}

OPERATORS = [  # (words before a topping, operation); longest phrases first
    (("easy", "on"), "less"), (("light", "on"), "less"), (("hold", "the"), "no"),
    (("a", "little"), "less"), (("lots", "of"), "extra"), (("no",), "no"), (("without",), "no"),
    (("hold",), "no"), (("minus",), "no"), (("less",), "less"), (("light",), "less"),
    (("extra",), "extra"), (("double",), "extra"), (("more",), "extra"), (("add",), "add"),
    (("with",), "add"), (("some",), "add"), (("plus",), "add"), (("have",), "add"),
]
SIZE_WORDS = {"large": "large", "big": "large", "regular": "regular", "small": "regular", "medium": "regular"}
STYLE_WORDS = {"fresco": "fresco", "supreme": "supreme", "grilled": "grill", "grill": "grill"}
CATEGORY_WORDS = {"vegan": "veggie", "vegetarian": "veggie", "veggie": "veggie", "chicken": "chicken",
                  "combo": "combo", "combos": "combo", "meal": "combo", "meals": "combo", "box": "combo"}

QUIT = re.compile(r"\b(bye|goodbye|see you|see ya|here it is|have a (good|nice|great) (day|night))\b")
COMPLETE = re.compile(r"\b(thats (all|it|everything)|that is (all|it|everything)|nothing else|"
                      r"im (done|all set|finished)|all set|that ll be all|thatll be all|that will be all|"
                      r"done ordering|no more|ready to pay|finish( my order)?|check out|complete)\b")
CANCEL = re.compile(r"\b(cancel|scrap|forget|clear)\b.*\b(order|everything|all)\b|\bstart over\b|\bcancel\b$")
STOP = re.compile(r"^(please )?(stop|halt|wait)( \w+){0,3}$|\bstop (adding|it|that)\b")
RECOMMEND = re.compile(r"\b(recommend|suggest|whats good|what is good|popular|best seller|"
                       r"what do people|what should i|any good|favorite|favourite)\b")
UPGRADE = re.compile(r"\b(add|top|topping|toppings|put on|goes well|go with)\b")
PRICE = re.compile(r"\b(how much|price|cost|costs)\b")
CALORIES = re.compile(r"\b(calorie|calories|cal|kcal)\b")
INGREDIENTS = re.compile(r"\b(whats in|what is in|ingredients|made with|made of|comes? (on|in|with)|inside)\b")
TOPPINGS = re.compile(r"\b(what toppings|which toppings|what can i (add|put)|add ons|addons|extras|"
                      r"toppings|sauces (do|can))\b")
AVAILABLE = re.compile(r"\b(do you (have|still have|sell)|is there|are there|available|out of|sold out)\b")
MENU = re.compile(r"\b(menu|what (kinds?|sorts?|types?) of|which|what) \w*\b")
TOTAL = re.compile(r"\b(total|how much (is|do) (my|i|it all)|what do i owe|my bill)\b")
REMOVE = re.compile(r"\b(take off|take away|remove|drop|cancel|get rid of|dont want|do not want|"
                    r"no more|scratch)\b")
SET_QTY = re.compile(r"\b(make (that|it|them|those)|actually|just|only|change (that|it) to)\b")
REPLACE = re.compile(r"\b(instead|make (it|that) an?|switch (it|that)? ?to|swap (it|that)? ?for|"
                     r"change (it|that) to an?)\b")
TOPPING_CUES = {"with", "no", "without", "extra", "add", "for", "light", "less", "more", "double", "hold",
                "swap", "sub", "substitute", "plus"}
ORDER_WORDS = re.compile(r"\b(want|like|have|get|give|order|take|grab|need|add)\b")
FILLER = {"i", "id", "would", "like", "want", "can", "could", "may", "please", "get", "have", "give", "me",
          "a", "an", "the", "some", "order", "to", "do", "you", "take", "ill", "im", "lets", "hi", "hello",
          "hey", "uh", "um", "and", "of", "for", "with", "my", "just", "also", "one", "two", "three", "x",
          "size", "style", "it", "that", "them", "thanks", "thank", "too", "more", "as", "well", "now", "is",
          "are", "there", "any", "your", "our", "this", "be", "go", "what", "all", "something", "those"}


@dataclass
class Context:
    """What the bot said last: the question, the suggestions, and the order so far."""

    ask_target: str | None = None
    ask_topic: str | None = None  # toppings | style(S) | size | choice(...) | else
    recommended_items: list[str] = field(default_factory=list)
    recommended_toppings: list[tuple[str, str]] = field(default_factory=list)  # (dish, topping)
    ordered: list[str] = field(default_factory=list)  # foods in order of first unit


@dataclass
class Parse:
    preds: list[Pred]
    unknown: list[str]  # phrases that looked like menu names and are not on the menu
    corrected: list[tuple[str, str, str]]  # (what was said, the menu name it was read as, how)


class CustomerParser:
    def __init__(self, menu: Menu, names: NameMatcher | None = None):
        self.menu = menu
        self.names = names or NameMatcher(menu)

    def parse(self, text: str, ctx: Context | None = None) -> Parse:
        ctx = ctx or Context()
        tokens = tokenize(text)
        flat = " ".join(t for t in tokens if t.isalnum())
        result = Parse([], [], [])
        if not flat:
            return Parse([Pred("irrelevant")], [], [])
        if QUIT.search(flat):
            return Parse([Pred("quit")], [], [])
        if CANCEL.search(flat) and not find_mentions(self.menu, tokens):
            return Parse([Pred("cancel")], [], [])
        if STOP.search(flat):
            return Parse([Pred("stop")], [], [])
        complete = bool(COMPLETE.search(flat))
        if ACCEPT.match(flat):
            return Parse([Pred("accept")], [], [])
        if DECLINE.match(flat) or (complete and re.match(r"^(no|nope|nah)\b", flat)):
            return Parse([Pred("complete" if complete else "decline")], [], [])

        mentions = [self.as_topping(tokens, m) for m in find_mentions(self.menu, tokens)]
        self.find_unknown(tokens, mentions, result)
        segments = self.segments(tokens, mentions)
        line = 0
        last_item: str | None = None
        for seg_tokens, seg_mentions in segments:
            seg = " ".join(t for t in seg_tokens if t.isalnum())
            line, last_item = self.segment(seg, seg_tokens, seg_mentions, ctx, result, line, last_item, flat)
        if complete:
            result.preds.append(Pred("complete"))
        if not result.preds and not result.unknown:
            result.preds.append(Pred("irrelevant"))
        return result

    @staticmethod
    def as_topping(tokens: list[str], m: Mention) -> Mention:
        """A name that is both a side dish and an ingredient is the ingredient after a word that
        introduces one: "with <it>", "instead of <it>", "no <it>"."""
        before = tokens[max(m.start - 2, 0):m.start]
        if m.kind == "item" and "topping" in m.alternatives and before and \
                (before[-1] in TOPPING_CUES or before == ["instead", "of"]):
            return replace(m, kind="topping", name=m.alternatives["topping"])
        return m

    def find_unknown(self, tokens: list[str], mentions: list[Mention], result: Parse) -> None:
        """Words after an ordering verb that match no menu name: corrected if close, else unknown.

        Toppings alone ("can I have tomatoes") are an update; toppings inside an unknown name
        ("a bean burrito" once it is off the menu) are not."""
        if any(m.kind == "item" for m in mentions):
            return
        flat = " ".join(t for t in tokens if t.isalnum())
        m = re.search(r"\b(want|like|have|get|give me|order|take)\b (.+)$", flat) or \
            re.match(r"^(and |also |plus )?(a|an|\d+|one|two|three|four|five) (.+)$", flat)
        if not m or RECOMMEND.search(flat) or "?" in tokens and re.match(r"^(what|how|which|is|are|do)\b", flat):
            return
        words = [w for w in m.group(m.lastindex).split()
                 if w not in FILLER and not w.isdigit() and w not in NUMBER_WORDS]
        if all(w in SIZE_WORDS or w in STYLE_WORDS or w in ("size", "style") for w in words):
            return
        covered = {tokens[i] for m in mentions for i in range(m.start, m.end)}
        if not words or all(w in covered for w in words):
            return
        mentions.clear()
        phrase = " ".join(words)
        name = self.names.lookup(phrase, "item", result.corrected)
        if name:
            start = tokens.index(words[0]) if words[0] in tokens else 0
            mentions.append(Mention(start, start + len(words), "item", name, {"item": name}))
        else:
            result.unknown.append(phrase)

    def segments(self, tokens: list[str], mentions: list[Mention]) -> list[tuple[list[str], list[Mention]]]:
        inside = {i for m in mentions for i in range(m.start, m.end)}
        cuts, start = [], 0
        for i, tok in enumerate(tokens):
            if tok in SPLITTERS and i not in inside:
                # "and" between two toppings of one dish keeps the segment ("with beans and cheese")
                nxt = next((m for m in mentions if m.start > i), None)
                if tok in ("and", ",") and nxt and nxt.kind == "topping" and nxt.start == i + 1:
                    continue
                cuts.append((start, i))
                start = i + 1
        cuts.append((start, len(tokens)))
        return [(tokens[a:b], [replace(m, start=m.start - a, end=m.end - a) for m in mentions if a <= m.start < b])
                for a, b in cuts if b > a]

    # -- one clause ----------------------------------------------------------------------
    def segment(self, seg: str, toks: list[str], mentions: list[Mention], ctx: Context, result: Parse,
                line: int, last_item: str | None, whole: str) -> tuple[int, str | None]:
        preds = result.preds
        targets = [m for m in mentions if m.kind == "item" and self.is_target(toks, m)]
        items = [m for m in mentions if m.kind == "item" and m not in targets]
        if targets and not last_item:
            last_item = self.ordered_like(targets[0].name, ctx)
        toppings = [m for m in mentions if m.kind == "topping"]
        qty = self.quantity_before(toks, items[0].start if items else len(toks), mentions)
        context_dish = self.context_dish(ctx, last_item)

        if RECOMMEND.search(seg):
            preds.append(self.recommendation(seg, items + targets, context_dish))
            return line, last_item
        query = self.query(seg, items + targets, toppings, context_dish)
        if query:
            preds.append(query)
            return line, last_item
        if REMOVE.search(seg) and items and not re.search(r"\b(instead|add)\b", seg):
            for m in items:
                n = self.quantity_before(toks, m.start, mentions, default=None)
                preds.append(Pred("remove", (m.name, n if n else Const("all"))))
            return line, last_item
        if REPLACE.search(seg) and items:
            new = items[0].name
            old = items[1].name if len(items) > 1 and "instead of" in seg else self.ordered_like(new, ctx, exact=False)
            if old and old != new:
                preds.append(Pred("replace", (old, new)))
                return line + 1, new
        if not items and qty is not None and not toppings and not result.unknown:
            if ctx.recommended_items and not SET_QTY.search(seg):
                preds.append(Pred("order", (ctx.recommended_items[0], qty)))
                return line + 1, ctx.recommended_items[0]
            target = last_item or (ctx.ordered[-1] if ctx.ordered else None)
            if target and SET_QTY.search(seg):
                preds.append(Pred("set_quantity", (target, qty)))
                return line, last_item
        if items and SET_QTY.search(seg) and re.search(r"\b(make|actually|just|only|change)\b", seg) \
                and items[0].name in ctx.ordered and not REPLACE.search(seg):
            preds.append(Pred("set_quantity", (items[0].name, qty if qty is not None else 1)))
            return line, items[0].name

        for m in items:
            choice_combo = self.combo_for_choice(m.name, ctx, last_item)
            if choice_combo:
                preds.append(Pred("specify", (choice_combo, m.name)))
                continue
            n = self.quantity_before(toks, m.start, mentions, default=1)
            line += 1
            preds.append(Pred("order", (m.name, n), line))
            last_item = m.name
        if result.unknown and not items and not toppings:
            return line, last_item  # words of a name we do not sell are not size or style answers
        dish = items[-1].name if items else context_dish
        line_of = line if items else 0
        self.updates(seg, toks, mentions, toppings, dish, line_of, ctx, preds)
        return line, last_item

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
    def is_target(toks: list[str], m: Mention) -> bool:
        """'add beans to my burrito': the item after to/on/onto is what changes, not an order."""
        before = [t for t in toks[max(0, m.start - 3):m.start] if t not in ("my", "the", "your", "both", "all", "those")]
        return bool(before) and before[-1] in ("to", "on", "onto", "in")

    def quantity_before(self, toks: list[str], end: int, mentions: list[Mention], default: int | None = None):
        prev_end = max([m.end for m in mentions if m.end <= end], default=0)
        for i in range(prev_end, end):
            got = number_at(toks, i)
            if got and not (toks[i] in ("a", "an") and i + got[1] < end - 2):
                return got[0]
        for i in range(end, len(toks)):  # "pepsi, two of them" / "x3"
            got = number_at(toks, i)
            if got and toks[i] not in ("a", "an", "one") and i > end:
                return got[0]
        return default

    def context_dish(self, ctx: Context, last_item: str | None) -> str | None:
        if last_item:
            return last_item
        if ctx.ask_target and ctx.ask_target in self.menu.items and ctx.ask_topic != "else":
            return ctx.ask_target
        dishes = [f for f in ctx.ordered if f in self.menu.items]
        return dishes[-1] if dishes else None

    def combo_for_choice(self, name: str, ctx: Context, last_item: str | None) -> str | None:
        combos = ([last_item] if last_item else []) + (
            [ctx.ask_target] if ctx.ask_topic and ctx.ask_topic.startswith("choice") else [])
        for combo in combos:
            if combo and name in self.menu.combo_choices(combo):
                return combo
        return None

    def recommendation(self, seg: str, items: list[Mention], context_dish: str | None) -> Pred:
        if items and UPGRADE.search(seg):  # "what do people add to the soft taco?"
            return Pred("need_recommend", (items[0].name, Const("upgrade")))
        words = seg.split()
        for w in words:
            singular = w[:-1] if w.endswith("s") else w
            if w in CATEGORY_WORDS:
                return Pred("need_recommend", (CATEGORY_WORDS[w], Const("category")))
            for cand in (w, singular, w[:-2] if w.endswith("es") else w):
                if cand in self.menu.categories:
                    return Pred("need_recommend", (cand, Const("category")))
        if items:
            return Pred("need_recommend", (items[0].name, Const("upgrade")))
        if UPGRADE.search(seg) and context_dish:
            return Pred("need_recommend", (context_dish, Const("upgrade")))
        return Pred("need_recommend", ("all", Const("category")))

    def query(self, seg: str, items: list[Mention], toppings: list[Mention], dish: str | None) -> Pred | None:
        food = items[0].name if items else None
        is_question = "?" in seg or re.match(r"^(what|whats|how|hows|which|is|are|do|does|can|could)\b", seg)
        if TOTAL.search(seg) and not food:
            return Pred("query", (Const("total"), "all"))
        if PRICE.search(seg):
            return Pred("query", (Const("price"), food or dish or "all"))
        if CALORIES.search(seg):
            return Pred("query", (Const("calories"), food or dish or "all"))
        if TOPPINGS.search(seg) and not toppings:
            return Pred("query", (Const("toppings"), food or dish or "all"))
        if INGREDIENTS.search(seg) and is_question and (food or dish):
            return Pred("query", (Const("ingredients"), food or dish))
        if re.match(r"^(what|which)\b", seg) and AVAILABLE.search(seg) and self.category_in(seg):
            return Pred("query", (Const("menu"), self.category_in(seg)))
        # "(we're / you're) out of tomatoes" is about availability, never a request to add them
        if AVAILABLE.search(seg) and (is_question or re.search(r"\b(out of|sold out|ran out|run out)\b", seg)):
            target = food or (toppings[0].name if toppings else None)
            if target:
                return Pred("query", (Const("available"), target))
            category = self.category_in(seg)
            return Pred("query", (Const("menu"), category)) if category else Pred("query", (Const("available"), "all"))
        if is_question and MENU.search(seg) and not food:
            category = self.category_in(seg)
            if category:
                return Pred("query", (Const("menu"), category))
        return None

    def category_in(self, seg: str) -> str | None:
        for w in seg.split():
            for cand in (w, w[:-1], w[:-2]):
                if cand in self.menu.categories:
                    return cand
        return None

    def updates(self, seg: str, toks: list[str], mentions: list[Mention], toppings: list[Mention],
                dish: str | None, line: int, ctx: Context, preds: list[Pred]) -> None:
        if dish is None:
            return
        swap = re.search(r"\b(change|swap|replace|sub|substitute)\b", seg)
        if swap and len(toppings) >= 2:
            preds.append(Pred("update", (dish, Const("change"), (toppings[0].name, toppings[1].name)), line))
            toppings = toppings[2:]
        elif "instead of" in seg and len(toppings) >= 2:
            preds.append(Pred("update", (dish, Const("change"), (toppings[1].name, toppings[0].name)), line))
            toppings = toppings[2:]
        operation = None
        for m in toppings:
            operation = self.operator_before(toks, m, mentions) or operation or "add"
            preds.append(Pred("update", (dish, Const(operation), m.name), line))
        if not toppings and re.search(r"\b(add|put) (them|it|those|that)\b", seg) and ctx.recommended_toppings:
            for rec_dish, topping in ctx.recommended_toppings:
                preds.append(Pred("update", (rec_dish, Const("add"), topping)))
        inside = {i for m in mentions for i in range(m.start, m.end)}
        for i, tok in enumerate(toks):
            if i in inside:
                continue
            negated = any(t in ("no", "not", "without", "dont", "nope") for t in toks[max(0, i - 3):i])
            if tok in STYLE_WORDS:
                preds.append(Pred("update", (dish, Const(STYLE_WORDS[tok]), Const("no" if negated else "yes")), line))
            elif tok in SIZE_WORDS:
                target = dish if self.menu.is_drink(dish) or line else self.context_drink(ctx) or dish
                preds.append(Pred("update", (target, Const("size"), Const(SIZE_WORDS[tok])), line if target == dish else 0))

    def operator_before(self, toks: list[str], m: Mention, mentions: list[Mention]) -> str | None:
        prev_end = max([x.end for x in mentions if x.end <= m.start], default=0)
        window = toks[max(prev_end, m.start - 4):m.start]
        for words, op in OPERATORS:
            n = len(words)
            for i in range(len(window) - n, -1, -1):
                if tuple(window[i:i + n]) == words:
                    return op
        return None

    def context_drink(self, ctx: Context) -> str | None:
        if ctx.ask_topic == "size" and ctx.ask_target:
            return ctx.ask_target
        drinks = [f for f in ctx.ordered if self.menu.is_drink(f)]
        return drinks[-1] if drinks else None
