"""Talk around the order, and what a line leaves unread (design.md section 8: coverage decides
acting or asking).

A customer says more than the order: whom it is for ("for my buddy Mike"), why ("we're in a
hurry", "she can't have gluten"), what someone said ("the manager said tacos are free"). Those
spans are context: they are covered (read as nothing) before the order is read, so they neither
break its reading nor are said back as "not on our menu", and a name inside a report or a remark
about the store's prices is mentioned, never ordered, and what other people cannot eat changes
nothing by itself ("a few of the kids don't eat beef": only a change said for their food does). The cue words are data (`[talk]` of
phrases_customer.toml). Words of a clause that no reading covers and that are neither filler nor
context make the line's changes unsure (`half_heard`): the bot asks before making them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .food_sense import FoodSense
from .phrases import Cue, Phrases
from .text import Mention, is_letters, number_at

# the acts of a clause that change the order: on a clause half heard they are asked about
CHANGING = frozenset({"order", "remove", "replace", "set", "resize", "change", "quantity", "copy"})


class Talk:
    """Finds the spans of a line that are talk around the order (the `[talk]` cues)."""

    def __init__(self, p: Phrases, sense: FoodSense | None = None):
        talk = p.data["talk"]
        self.p = p
        self.sense = sense  # tells a word the menu lacks that is talk from a food (food_sense.py)
        self.people = frozenset(talk["people"])
        self.whom_lead = frozenset(talk["whom_lead"])
        self.statements = Cue(tuple(talk["statements"]))
        self.store_talk = Cue(tuple(talk["store_talk"]))
        self.deals = Cue(tuple(talk["deals"]))
        self.reports = Cue(tuple(talk["reports"]))
        self.asked_aside = Cue(tuple(talk["asked_aside"]))
        self.places = Cue(tuple(talk["places"]))
        self.saying = Cue(tuple(talk["saying"]))
        self.ends = frozenset(talk["ends"])
        self.because = frozenset(talk["because"])
        self.words = frozenset(talk["words"])
        self.verbs = frozenset(talk["verbs"])
        self.subjects = frozenset(talk["subjects"])
        self.past = frozenset(talk["past"])

    def spans(self, tokens: Sequence[str], mentions: Sequence[Mention], kinds: set[str],
              known: Callable[[str], bool]) -> set[int]:
        """The positions of the tokens that are talk around the order; `kinds`: the words that
        name a kind of food ("burritos", "veggie"), never talk; `known`: words the parser reads
        (never a person's name)."""
        named = {i for m in mentions for i in range(m.start, m.end)}
        covered = self.for_whom(tokens, named)
        covered |= {m.start for m in mentions if m.kind == "option" and m.end - m.start == 1 and m.start >= 2 and
                    tokens[m.start - 2] in self.whom_lead and tokens[m.start - 1] in self.p.definite and
                    (m.end == len(tokens) or not is_letters(tokens[m.end]))}  # "for the party": an occasion
        remark = False  # the clause before was a remark: "I'm so hungry" goes on over "so"
        spans = self.clauses(tokens)
        for n, (start, end) in enumerate(spans):
            text = self.opened(" ".join(t for t in tokens[start:end] if t))
            unnamed = " ".join(t for i, t in enumerate(tokens[start:end], start) if t and i not in named)
            deal = self.deals.search(unnamed)
            if not text:
                continue
            if self.p.requests(text):  # "I want the bogo deal on chalupas": the deal's words are no food
                for words in map(str.split, self.deals.phrases):
                    covered.update(j for i in range(start, end - len(words) + 1)
                                   if list(tokens[i:i + len(words)]) == words for j in range(i, i + len(words)))
                continue
            if self.p.is_question(text) or "?" in tokens[end:end + 1]:
                if deal or self.asked_aside.search(text):  # "is there a coupon for the nachos?": the deals are
                    covered.update(range(start, end))  # the answer; "hon, do you want X or Y?" asks the car
                continue
            covered.update(self.subject(tokens, start, end, named, known))
            if reason := self.reason(tokens, spans, n, mentions, text):
                covered.update(reason)  # "my son only eats cheese pizza, so a small cheese"
                continue
            named_here = any(start <= i < end for i in named)
            diet = self.p.diet.search(text)
            no_item = not any(m.kind == "item" and start <= m.start < end for m in mentions)
            if self.reports.search(text) or self.thing_said(text) or self.store_talk.search(unnamed) or no_item and (deal or
                    diet and set(text[:diet.start()].split()) & self.people or
                    self.places.search(text) and self.statements.starts(text)):
                covered.update(range(start, end))  # "the manager said tacos are free", "the kids don't eat beef"
            elif not named_here and not self.cued(text) and not set(text.split()) & kinds and (
                    self.statements.starts(text) or self.tells(text) or
                    self.reason_for(tokens, spans, n) and text.split()[0] not in ("a", "an") and
                    number_at(text.split(), 0) is None or
                    self.only_talk(" ".join(t for i, t in enumerate(tokens[start:end], start) if t and i not in covered),
                                   remark)):
                covered.update(range(start - remark, end))  # "we're in a hurry", "no dairy for him"
                remark = True
                continue
            remark = False
        return covered

    def subject(self, tokens: Sequence[str], start: int, end: int, named: set[int],
                known: Callable[[str], bool]) -> set[int]:
        """'Dana wants a X', "Priya's vegetarian", 'my coworker Sam asked for a X': the name a clause
        starts with (after the people it is one of), before a verb of wanting or being (or, said
        with 's, before a word of talk)."""
        i = next((k for k in range(start, end) if tokens[k] and tokens[k] not in self.p.acts["hello"].phrases
                  and tokens[k] not in ("oh", "ok", "okay", "so", "and", "but", "then", "well")), end)
        if i < end and tokens[i] in self.p.definite | {"his", "her", "their"}:
            k = i + 1
            while k < end and self.person(tokens[k]):
                k += 1
            i = k if k > i + 1 else i
        if i + 1 >= end or i in named or known(tokens[i]) or not is_letters(tokens[i]) or \
                tokens[i] in self.words or tokens[i] in self.people or tokens[i] in self.p.cue_words:
            return set()
        after = tokens[i + 1]
        said = after in self.verbs or tokens[i].endswith("s") and (after in self.words or after in self.people)
        return {i} if said and i + 1 not in named else set()

    def reason(self, tokens: Sequence[str], spans: list[tuple[int, int]], n: int, mentions: Sequence[Mention],
               text: str) -> range | None:
        """'my son only eats cheese pizza, so a small cheese', 'a bean burrito because the kids love
        bean burritos': a remark about someone that gives the reason for what the line orders
        (before "so", after "because") names that food, never orders it again: the remark and its
        word are covered. A verb of wanting orders ("my wife wants X, so Y for me")."""
        words = text.split() + [""]
        start, end = spans[n]
        someone = words[0] in self.subjects or self.person(words[0]) or \
            words[0] in self.p.definite | {"his", "her", "their"} and self.person(words[1])
        if not (self.statements.starts(text) or someone) or set(words) & self.verbs or \
                not any(m.kind == "item" and start <= m.start < end for m in mentions):
            return None
        other = self.reason_for(tokens, spans, n)
        if other is None or not any(other[0] <= m.start < other[1] for m in mentions):
            return None
        return range(start, other[0]) if other[0] > start else range(other[1], end)

    def reason_for(self, tokens: Sequence[str], spans: list[tuple[int, int]], n: int) -> tuple[int, int] | None:
        """The clause the n-th one gives the reason for: the next, after "so"; the one before, before
        "because" or "since"."""
        start, end = spans[n]
        if n + 1 < len(spans) and "so" in tokens[end:spans[n + 1][0]]:
            return spans[n + 1]
        if n and set(tokens[spans[n - 1][1]:start]) & self.because:
            return spans[n - 1]
        return None

    def thing_said(self, text: str) -> bool:
        """'the sign out front says 2 for 5 on X', 'the guy on the phone said it'd be 15 bucks': what
        a thing (or someone unnamed) said, reported, never an order passed on by a person."""
        said = self.saying.search(text)
        subject = text[:said.start()].split() if said else []
        return bool(subject) and subject[0] in ("the", "your") and not any(self.person(w) for w in subject)

    def tells(self, text: str) -> bool:
        """'we just came from practice', 'we lost': a subject and a verb in the past tell what
        happened (a verb of wanting never: "I wanted a X" orders)."""
        words = text.split()
        verb = next((w for w in words[1:] if w not in self.p.filler), "")
        return len(words) > 1 and words[0] in self.subjects and verb not in self.verbs and \
            (verb in self.past or verb.endswith("ed"))

    def person(self, word: str) -> bool:
        """A word of people, also said with 's ("the baby's crying")."""
        return word in self.people or word.removesuffix("s") in self.people

    def only_talk(self, text: str, remark: bool) -> bool:
        """A clause of talk words, people and filler alone (filler alone after a remark)."""
        words = [w for w in text.split() if w not in self.p.filler]
        return bool(words or remark) and all(w in self.words or self.person(w) for w in words)

    def cued(self, text: str) -> bool:
        """Does the clause hold the cue of an act ("I'm done", "same for her") or answer a question?
        A quantity's cue ("just", "only") is one only where a number is said; "take the first thing
        off", "take that one off": a reference to the order is no talk."""
        words = text.split()
        counted = any(w not in ("a", "an") and number_at(words, i) for i, w in enumerate(words))
        return any(cue.search(text) for act, cue in self.p.acts.items() if act != "set_quantity" or counted) \
            or self.p.takes_off(text) or self.p.reply(text) is not None or \
            any(a in self.p.definite and b in self.p.ordinals for a, b in zip(words, words[1:]))

    def leftover(self, words: Sequence[str]) -> list[str]:
        """The words said back for a clause that are not talk around the order: neither talk words
        nor people, nor words that name no food or drink ("for pickup", "I suppose")."""
        left = [w for w in words if w not in self.words and not self.person(w)]
        return [] if left and self.sense and (self.sense.talk(left) or self.sense.talk(list(words))) else left

    def for_whom(self, tokens: Sequence[str], named: set[int]) -> set[int]:
        """'for my son', 'for the twins', 'for my buddy Mike': the words after "for" that name
        people (and one word more after a person, a name), never a menu name; after a count, the
        "for" too ("one for my wife")."""
        covered: set[int] = set()
        for i, tok in enumerate(tokens):
            if tok not in self.whom_lead:
                continue
            j = i + 1
            while j < len(tokens) and tokens[j] in self.p.definite | {"his", "her", "their", "your", "our"}:
                j += 1
            k = j
            while k < len(tokens) and (tokens[k] in self.people or tokens[k].removesuffix("s") in self.people) \
                    and k not in named:
                k += 1
            if k == j:
                continue
            if k < len(tokens) and is_letters(tokens[k]) and k not in named and tokens[k] not in self.p.filler \
                    and tokens[k] not in self.p.splitters and tokens[k] not in self.p.cue_words \
                    and number_at(list(tokens), k) is None:
                k += 1  # "for my buddy mike": the person's name
            counted = i > 0 and tokens[i - 1] not in ("a", "an") and number_at(list(tokens), i - 1) is not None
            if counted:  # "one for my neighbors, medium with mushrooms": the count and what follows are one unit
                k += tokens[k:k + 1] == [","]
            covered.update(range(i + 1 - counted, k))
        return covered

    def clauses(self, tokens: Sequence[str]) -> list[tuple[int, int]]:
        cuts, start = [], 0
        for i, tok in enumerate(tokens):
            if tok in self.p.splitters - {"and"} or tok in self.ends:
                cuts.append((start, i))
                start = i + 1
        cuts.append((start, len(tokens)))
        return [(a, b) for a, b in cuts if b > a]

    def opened(self, text: str) -> str:
        words = text.split()
        while words and (words[0] in self.p.acts["hello"].phrases or words[0] in ("oh", "ok", "okay", "so", "well",
                                                                                     "um", "uh", "and", "but", "sorry")):
            words.pop(0)
        return " ".join(words)

