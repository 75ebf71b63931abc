"""Self-corrections inside a line: "a large coke, no wait, a medium", "two tacos, I mean three",
"a chicken quesadilla, sorry, steak", "a pepsi, actually scratch that".

Speech repairs have three parts: what is corrected (the reparandum), a cue ("no wait", "I mean")
and the correction. The correction takes the place of the last thing of its own kind said before
the cue (a quantity, an option value, a food, an ingredient, a word of a name) and nothing else
changes; the line is then read as if it had been said right the first time. A correction that
fits nothing it could correct is left alone, to be read (and said back) as it was said.
"""

from __future__ import annotations

from collections.abc import Callable

from ..menu.model import Menu
from ..names import covers
from ..normalize import normalize
from .phrases import Phrases
from .text import Mention, is_letters, number_at

HESITATIONS = frozenset({"uh", "um", "umm", "er", "erm", "oh"})  # hesitations between the word and its cue
MAX_REPAIRS = 3  # corrections read per line; a line of nothing but cues costs a bounded time
Finder = Callable[[list[str]], list[Mention]]


class Repairs:
    def __init__(self, menu: Menu, phrases: Phrases, find: Finder, plain: Callable[[str], bool]):
        self.menu, self.p, self.find, self.plain = menu, phrases, find, plain

    def __call__(self, tokens: list[str]) -> list[str]:
        """The tokens with every correction made (the cues gone)."""
        for _ in range(MAX_REPAIRS):
            if not self.has_cue(tokens):
                return tokens
            fixed = self.first(tokens, self.find(tokens))
            if fixed is None:
                return tokens
            tokens = fixed
        return tokens

    def has_cue(self, tokens: list[str]) -> bool:
        return any(self.cue_at(tokens, i) for i in range(1, len(tokens)))

    def cue_at(self, tokens: list[str], i: int) -> int:
        """The length of the correction cue at tokens[i], 0 if none: strong cues anywhere, weak ones
        only after or before a comma."""
        for table, weak in ((self.p.repair_strong, False), (self.p.repair_drop, False), (self.p.repair_weak, True)):
            for n in (4, 3, 2, 1):
                words = tuple(tokens[i:i + n])
                if words not in table:
                    continue
                comma_after = tokens[i + n:i + n + 1] == [","]
                if not weak or comma_after or (tokens[i - 1] in (",", ".", ";") and words[0] not in self.p.negation):
                    return n  # "a coke, no sprite" is no correction; "a coke, no, a sprite" is
                if tokens[i - 1] in (",", ".", ";") and i + n < len(tokens) and (more := self.cue_at(tokens, i + n)):
                    return n + more  # "a coke, nah actually a sprite": a cue right after a cue is one
        return 0

    def first(self, tokens: list[str], mentions: list[Mention]) -> list[str] | None:
        for i in range(1, len(tokens)):
            n = self.cue_at(tokens, i)
            if not n or any(m.start < i < m.end or m.start == i for m in mentions):
                continue
            before = [m for m in mentions if m.end <= i]
            items = [m for m in before if m.kind == "item"]
            start, end = self.correction(tokens, i + n, mentions)
            fixed = self.word_corrected(tokens, mentions, i, start) if tuple(tokens[i:i + n]) in self.p.repair_strong \
                else None
            fixed = fixed or (self.repair(tokens, mentions, items, before, i, n, start, end) if items else None)
            if fixed is None and before:
                fixed = self.whole_unit(tokens, mentions, i, n, start, end)
            if fixed is not None:
                return fixed
        return None

    def word_corrected(self, tokens: list[str], mentions: list[Mention], cue: int, start: int) -> list[str] | None:
        """'a medium, uh, I mean regular mountain dew': a word or two said after the unit's article
        or count, before any food, put right by an option value or a count: the correction takes
        their place, and nothing said before the unit is touched."""
        said = next((m for m in mentions if m.start <= start < m.end), None)
        if start >= len(tokens) or not (said.kind == "option" if said else number_at(tokens, start)):
            return None
        at = cue
        while at > 0 and (tokens[at - 1] in HESITATIONS or tokens[at - 1] in (",", ".", ";")):
            at -= 1
        lead = next((j for j in range(at - 1, max(-1, at - 4), -1) if tokens[j] in ("a", "an")
                     or number_at(tokens, j) or tokens[j] in self.p.splitters), None)
        counted = number_at(tokens, start) and tokens[lead] not in ("a", "an", "one") if lead is not None else False
        if lead is None or tokens[lead] in self.p.splitters or not (0 if counted else 1) <= at - lead - 1 <= 2 or \
                any(m.start <= lead < m.end for m in mentions) or \
                any(m.start < at and m.end > lead + 1 and m.kind != "option" for m in mentions):
            return None
        keep = lead if number_at(tokens, start) else lead + 1
        return tokens[:keep] + tokens[start:]

    def whole_unit(self, tokens: list[str], mentions: list[Mention], cue: int, n: int, start: int,
                   end: int) -> list[str] | None:
        """'a large pepperoni and a small cheese, no wait, a medium cheese': a correction that is a
        whole unit of its own (an article or count, then what it is) takes the place of the unit
        said last, from the clause's start up to the cue."""
        said = [m for m in mentions if start <= m.start and m.end <= end]
        if not said or tuple(tokens[cue:cue + n]) in self.p.repair_weak and tokens[cue + n:cue + n + 1] != [","] \
                or not (number_at(tokens, start) or tokens[start] in ("a", "an")) or \
                set(tokens[cue + n:end]) & self.p.repair_keeps:
            return None
        at = cue - 1 if tokens[cue - 1] in (",", ".", ";") else cue
        begin = max([j + 1 for j in range(at) if tokens[j] in self.p.splitters and
                     not any(m.start <= j < m.end for m in mentions)], default=0)
        return tokens[:begin] + tokens[start:end] + tokens[end:]

    def correction(self, tokens: list[str], start: int, mentions: list[Mention]) -> tuple[int, int]:
        """The span of the correction after a cue: its words up to the next clause ("..., and a X"),
        never cutting a name ("chips and guacamole")."""
        while start < len(tokens) and (tokens[start] in (",", ".", ";") or tokens[start] in self.p.repair_lead):
            start += 1
        end = start
        while end < len(tokens) and (tokens[end] not in (",", ".", ";", "!", "?", "and", "plus") or
                                     any(m.start < end < m.end for m in mentions)):
            end += 1
        return start, end

    def repair(self, tokens: list[str], mentions: list[Mention], items: list[Mention], before: list[Mention],
               cue: int, n: int, start: int, end: int) -> list[str] | None:
        said = [m for m in mentions if start <= m.start and m.end <= end]
        new_items = [m for m in said if m.kind == "item"]
        options = [m for m in said if m.kind == "option"]
        toppings = [m for m in said if m.kind == "topping"]
        numbers = {j + k for j in range(start, end) if tokens[j] not in ("a", "an") and (got := number_at(tokens, j))
                   for k in range(got[1])}
        number = min(numbers, default=None)
        covered = {j for m in said for j in range(m.start, m.end)} | numbers
        words = [t for j, t in enumerate(tokens[start:end], start) if j not in covered and is_letters(t)
                 and not self.plain(t)]
        drops = tuple(tokens[cue:cue + n]) in self.p.repair_drop
        last = items[-1]
        unit = self.unit_start(tokens, mentions, last)
        rest = tokens[end:]
        old_toppings = [m for m in before if m.kind == "topping" and m.start >= unit]
        said_like = bool(toppings and old_toppings and self.operator(tokens, cue + n, toppings[0].start) ==
                         self.operator(tokens, unit, old_toppings[-1].start))  # "with olives, sorry, with ham"
        if set(tokens[cue + n:end]) & self.p.repair_keeps or tokens[start:start + 1] and tokens[start] in self.p.takes_back or \
                (toppings and not new_items and not said_like and (
                tokens[cue] in self.p.negation or self.operator(tokens, cue + n, toppings[0].start))):
            return None  # "a taco, no onions", "a pizza, actually add ham": a modifier; "..., er not X": X taken back
        if new_items and (drops or self.p.acts["remove"].starts(" ".join(tokens[start:end]))) and \
                (dropped := self.dropped(tokens, mentions, items, new_items, cue, end)) is not None:
            return dropped  # else "a pepsi, scratch that, a diet pepsi": the new food in its place
        if len(new_items) == 1 and not options and not toppings and any(
                set(normalize(new_items[0].said).split()) < set(normalize(m.name).split()) for m in items):
            return tokens[:cue] + rest  # "a chicken chalupa, sorry, just the one chalupa": the same food said short
        if new_items:  # "a bowl, actually make it a burrito": the food said last, with its count
            return self.food_corrected(tokens, mentions, items, before, new_items, options, number, cue, n, start, end)
        if drops and not said and not words and number is None:  # "two tacos and a pepsi, scratch that"
            clause = max([j + 1 for j in range(unit) if tokens[j] in self.p.splitters], default=0)
            return tokens[:clause] + rest
        if number is not None and not options and not toppings and not words:  # "two tacos, I mean three"
            count = self.count_of(tokens, unit, last.start)
            at = next(j for j in range(unit, last.start + 1) if not count or tokens[j:j + len(count)] == count)
            spoken = tokens[number:number + number_at(tokens, number)[1]]  # type: ignore[index]
            head = tokens[:at] if count else [t for t in tokens[:unit]] + \
                [t for t in tokens[unit:last.start] if t not in ("a", "an")]
            tail = tokens[at + len(count):cue] if count else tokens[last.start:cue]
            return head + spoken + tail + rest
        if options and not toppings and not words:  # "a large coke, no, a medium"
            return self.new_options(tokens, mentions, items, options, cue, rest)
        if (toppings or words) and number is None and not options:
            return self.name_corrected(tokens, last, toppings, words, old_toppings, cue, start, end)
        return None

    def food_corrected(self, tokens: list[str], mentions: list[Mention], items: list[Mention], before: list[Mention],
                       new_items: list[Mention], options: list[Mention], number: int | None, cue: int, n: int,
                       start: int, end: int) -> list[str]:
        """The food said last put in the place of the one of its kind said before, with its count
        and the options of it that the new one takes too; or, when that one was taken off, said
        instead of it."""
        rest = tokens[end:]
        old = next((m for m in reversed(items) if self.menu.category_of.get(m.name) ==
                    self.menu.category_of.get(new_items[0].name)), items[-1])
        unit = self.unit_start(tokens, mentions, old)
        begin = max([j + 1 for j in range(unit) if tokens[j] in self.p.splitters], default=0)
        lead = tokens[begin:unit]
        taken_off = self.p.acts["remove"].search(" ".join(lead)) or lead[:1] and lead[0] in self.p.negation
        if taken_off and not set(tokens[cue + n:start + 1]) & self.p.definite:  # "..., sorry, the X": X goes
            # "scratch the pepsi, I meant a diet pepsi": the one taken off is what the correction replaces
            return tokens[:begin] + tokens[start:end] + ["instead", "of"] + tokens[unit:old.end] + rest
        count = [] if number is not None or (start < new_items[0].start and tokens[new_items[0].start - 1] in
                                              ("a", "an") and new_items[0].start - 1 >= start) else \
            self.count_of(tokens, unit, old.start)
        kept = [t for m in before if m.kind == "option" and unit <= m.start < old.start and
                m.alternatives["option"] not in {o.alternatives["option"] for o in options} and
                any(g == m.alternatives["option"] for g, _ in self.menu.options_of(new_items[0].name))
                for t in tokens[m.start:m.end]]
        return tokens[:unit] + count + kept + tokens[start:end] + tokens[old.end:cue] + rest

    def name_corrected(self, tokens: list[str], last: Mention, toppings: list[Mention], words: list[str],
                       old_toppings: list[Mention], cue: int, start: int, end: int) -> list[str] | None:
        """A word of the last name put right ("three soft tacos, I mean crunchy"), a topping said
        again ("I mean italian sausage"), or an ingredient swapped ("no, make it steak")."""
        rest = tokens[end:]
        names = words + [w for m in toppings for w in m.said.split()]
        other = self.renamed(last.name, names)
        if other:  # "three soft tacos, I mean crunchy": the name with the word put right
            return tokens[:last.start] + normalize(other).split() + tokens[last.end:cue] + rest
        if toppings and not words and old_toppings:  # "a sausage pizza, I mean italian sausage"
            old_topping = old_toppings[-1]
            return tokens[:old_topping.start] + tokens[toppings[0].start:end] + tokens[old_topping.end:cue] + rest
        swapped = self.swapped(last.name, [m.name for m in toppings]) if toppings and not words else None
        if swapped:  # "a chicken <dish>, no, make it steak": the one ingredient steak can take the place of
            return tokens[:last.end] + ["with"] + tokens[start:end] + ["instead", "of"] + \
                normalize(swapped).split() + tokens[last.end:cue] + rest
        return None

    def operator(self, tokens: list[str], start: int, at: int) -> str | None:
        """The modifier phrase ("add", "with", "light on") just before tokens[at], if any."""
        return next((" ".join(words) for words, _ in self.p.operators
                     if at - len(words) >= start and tuple(tokens[at - len(words):at]) == words), None)

    def dropped(self, tokens: list[str], mentions: list[Mention], items: list[Mention], named: list[Mention],
                cue: int, end: int) -> list[str] | None:
        """'two roll ups and a pepsi, actually scratch the pepsi': the unit said before goes."""
        out = list(tokens)
        for m in named:
            old = next((x for x in reversed(items) if x.name == m.name), None)
            if old is None:
                return None  # not said in this line: an ordinary remove of what was ordered before
            start = self.unit_start(tokens, mentions, old)
            while start > 0 and tokens[start - 1] in (",", "and", "plus"):
                start -= 1
            out[start:old.end] = [""] * (old.end - start)
        return [t for t in out[:cue] if t] + tokens[end:]

    def new_options(self, tokens: list[str], mentions: list[Mention], items: list[Mention],
                    options: list[Mention], cue: int, rest: list[str]) -> list[str] | None:
        """Each option value said takes the place of the value of its group said before, on the
        food said last that has one (or offers the group)."""
        out = list(tokens[:cue])
        for new in options:
            group = new.alternatives["option"]
            old = next((m for m in reversed(mentions) if m.kind == "option" and m.end <= cue and
                        m.alternatives["option"] == group), None)
            if old is not None:
                out[old.start:old.end] = [""] * (old.end - old.start)
                out[old.start] = new.said
                continue
            target = next((m for m in reversed(items) if any(g == group for g, _ in self.menu.options_of(m.name))), None)
            if target is None:
                return None
            out[target.start] = f"{new.said} {out[target.start]}"
        return " ".join(t for t in out if t).split() + rest

    def unit_start(self, tokens: list[str], mentions: list[Mention], item: Mention) -> int:
        """Where the words of one ordered unit begin: its count, article, options and ingredients
        said before the food ("two large pepperoni <pizzas>")."""
        start = item.start
        while start > 0:
            j = start - 1
            inside = next((m for m in mentions if m.start <= j < m.end), None)
            if inside and inside.kind in ("option", "topping"):
                start = inside.start
            elif inside is None and (number_at(tokens, j) or tokens[j] in ("the", "my", "of")) and \
                    tokens[j] not in self.p.splitters:
                start = j
            else:
                break
        return start

    @staticmethod
    def count_of(tokens: list[str], start: int, end: int) -> list[str]:
        """The words of the count said in tokens[start:end] ("two", "twenty five"), if any."""
        for j in range(start, end):
            got = number_at(tokens, j)
            if got:
                return tokens[j:j + got[1]]
        return []

    def swapped(self, dish: str, new: list[str]) -> str | None:
        """The one ingredient of the dish that the ingredient said can replace (the KB's
        replaceable_ingredient/3), if exactly one."""
        old = {o for d, o, n in self.menu.facts.get("replaceable_ingredient", []) if d == dish and n in new}
        return old.pop() if len(old) == 1 else None

    def renamed(self, old: str, words: list[str]) -> str | None:
        """The food of the same kind whose name is `old` with the words said in place of others
        ("crunchy" said of a soft one: the crunchy one of that kind); None unless exactly one fits best."""
        kind = self.menu.category_of.get(old)
        own = set(normalize(old).split())
        scored = []
        for name in self.menu.items:
            if name == old or self.menu.category_of.get(name) != kind or not covers(words, name):
                continue
            mine = set(normalize(name).split())
            shared = len(own & mine)
            extra = len(mine - own - {w for w in mine if covers([w], " ".join(words))})
            if shared and not extra:  # every word of it said, or of the old name: never a guess at one more
                scored.append((shared, name))
        if not scored:
            return None
        scored.sort(reverse=True)
        best = [name for score, name in scored if score == scored[0][0]]
        return best[0] if len(best) == 1 else None
