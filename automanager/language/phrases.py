"""The phrase knowledge of the phrase files as matchers, one file for each bot: which dialogue
act a clause's words cue, which words are filler, which words modify an ingredient
(`phrases_customer.toml`, with the short answers and references of `automanager/dialogue.toml`,
which the menu's checks share), and the manager parser's cue patterns (`phrases_manager.toml`). Data,
not regex constants in code, so a new way to say a thing is one line of TOML. Each file is read
once per content digest and its patterns are compiled on first use."""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from itertools import pairwise
from pathlib import Path

from ..dialogue import pronouns, replies
from ..normalize import word_regex
from .customer_templates import plural
from .heard import pattern_words, strings

CUSTOMER_FILE = Path(__file__).with_name("phrases_customer.toml")
MANAGER_FILE = Path(__file__).with_name("phrases_manager.toml")


@dataclass(frozen=True)
class Found:
    """Where a cue phrase was found in a text (the part of `re.Match` the parsers read)."""

    begin: int
    stop: int

    def start(self) -> int:
        return self.begin

    def end(self) -> int:
        return self.stop


@dataclass(frozen=True)
class Cue:
    """A list of phrases matched as whole words on folded text: a phrase's words are runs of
    letters and digits, with only spaces between them. Matched by word lookup, not a compiled
    regex, so a fresh process pays nothing to make the phrase data ready; the leftmost phrase
    wins, and of those starting there the longest."""

    phrases: tuple[str, ...]

    def search(self, text: str) -> Found | None:
        return next(self._found(text), None)

    def every(self, text: str):
        """Every phrase found, left to right, none overlapping."""
        return self._found(text)

    def starts(self, text: str) -> bool:
        found = self.search(text)
        return found is not None and found.start() == 0

    def ends(self, text: str) -> bool:
        """Does a phrase end the text?"""
        return any(found.stop == len(text) for found in self._found(text))

    def whole(self, text: str) -> bool:
        runs = _runs(text)
        return bool(runs) and runs[0][1] == 0 and runs[-1][2] == len(text) and \
            all(text[a[2]:b[1]].isspace() for a, b in pairwise(runs)) and \
            tuple(word for word, _, _ in runs) in self._table[1]

    def sub(self, repl: str, text: str) -> str:
        """The text with every phrase found replaced, as `re.sub` would."""
        out, at = [], 0
        for found in self._found(text):
            out += [text[at:found.start()], repl]
            at = found.end()
        return "".join(out) + text[at:]

    def _found(self, text: str):
        runs = _runs(text)
        by_first, _ = self._table
        i = 0
        while i < len(runs):
            for words in by_first.get(runs[i][0], ()):
                n = len(words)
                if i + n <= len(runs) and all(runs[i + k][0] == words[k] and
                                              (k == 0 or text[runs[i + k - 1][2]:runs[i + k][1]].isspace())
                                              for k in range(n)):
                    yield Found(runs[i][1], runs[i + n - 1][2])
                    i += n
                    break
            else:
                i += 1

    @cached_property
    def _table(self) -> tuple[dict[str, list[tuple[str, ...]]], frozenset[tuple[str, ...]]]:
        """The phrases by first word, longest first, and the set of all of them."""
        every = phrase_set(self.phrases)
        by_first: dict[str, list[tuple[str, ...]]] = {}
        for words in sorted(every, key=len, reverse=True):
            by_first.setdefault(words[0], []).append(words)
        return by_first, every


def phrase_set(phrases: Iterable[str]) -> frozenset[tuple[str, ...]]:
    """Phrases as tuples of their words."""
    return frozenset(tuple(phrase.split()) for phrase in phrases)


@lru_cache(maxsize=1024)
def _runs(text: str) -> tuple[tuple[str, int, int], ...]:
    """The words of a folded text with where each begins and ends: a turn looks its clauses up in
    dozens of cue lists."""
    return tuple((m.group(), m.start(), m.end()) for m in word_regex(text).finditer(text))


class Phrases:
    def __init__(self, data: dict):
        self.data = data
        self.acts = {name: Cue(tuple(words)) for name, words in data["acts"].items() if name != "remove_around"}
        self.remove_around = [tuple(pair) for pair in data["acts"]["remove_around"]]
        self.questions = {name: Cue(tuple(words)) for name, words in data["questions"].items()}
        self.request_modals = frozenset(data["questions"]["request_modals"])
        inside = data["clause_cues"]
        self.inside = {name: Cue(tuple(words)) for name, words in inside.items() if not name.startswith("negation")}
        self.negation, self.negation_openers = frozenset(inside["negation"]), frozenset(inside["negation_openers"])
        self.only_words = frozenset(inside["negation_only"])  # "no, just X": the no answers, X is what is wanted
        self.readings = [(reading, act) for reading, act in data["readings"]["order"]]
        answers = replies()  # the dialogue's words, shared with the menu's checks (automanager/dialogue.toml)
        self.yes = Cue(tuple(answers["yes"]))
        self.no = Cue(tuple(answers["no"]))
        self.any = Cue(tuple(answers["any"]))
        self.polite = Cue(tuple(answers["polite"]))
        words = data["words"]
        self.read_words(words)
        synonyms = data["synonyms"]
        self.category_words = _single_words(synonyms["category"])
        self.cue_words = frozenset(w for table in (self.acts, self.questions) for cue in table.values()
                                   for phrase in cue.phrases for w in phrase.split()) | \
            frozenset(w for table in ("repair_strong", "repair_drop") for phrase in words[table] for w in phrase.split())
        self.examples = [(e["said"], e["means"]) for e in data.get("examples", [])]
        self.cue_phrases = [*(cue for name, cue in self.acts.items() if not name.endswith("_alone")),
                            *(cue for name, cue in self.questions.items() if name != "request_verbs"),
                            Cue(tuple(words["repair_strong"]) + tuple(words["repair_drop"]))]
        self.alone_phrases = [cue for name, cue in self.acts.items() if name.endswith("_alone")]

    def stray_cue_words(self, text: str) -> list[str]:
        """The cue words of a folded text that no cue phrase found in it holds: "ring" with no
        "ring it up" around it and no request it starts cues nothing, nor "done" in a line that is
        more than "done", so it is a word the line leaves unread."""
        held: set[int] = set()
        if self.requests(text) or any(cue.whole(text) for cue in self.alone_phrases):
            held.update(range(len(text)))  # "could you ring up a taco": its verb cues the request; "done"
        for cue in self.cue_phrases:
            for found in cue.every(text):
                held.update(range(found.begin, found.stop))
        return [word for word, begin, _ in _runs(text) if word in self.cue_words and begin not in held]

    def takes_off(self, text: str) -> bool:
        """A remove cue, or a verb and its particle around the food ("take one of the tacos off",
        "take that one off")."""
        words = text.split()
        return bool(self.acts["remove"].search(text)) or any(
            verb in words and particle in words[words.index(verb) + 1:] for verb, particle in self.remove_around)

    def read_words(self, words: dict) -> None:
        """The [words] table: splitters, fillers, operators, references, repair cues, numbers said
        as homophones, and the other word lists the parser reads."""
        self.splitters = frozenset(words["splitters"])
        self.filler = frozenset(words["filler"])
        self.pronouns = Cue(tuple(pronouns()))  # automanager/dialogue.toml, as the short answers
        self.bare_words = frozenset(words["bare_words"])
        self.some_units = Cue(tuple(words["some_units"]))
        self.every_unit = Cue(tuple(words["every_unit"]))
        self.each_unit = Cue(tuple(words["each_unit"]))
        self.numbered = frozenset(words["numbered"])
        self.drink = frozenset(words["drink"])
        self.operators = [(tuple(phrase.split()), op) for phrase, op in
                          sorted(words["operators"], key=lambda pair: -len(pair[0].split()))]
        self.operator_words = frozenset(w for phrase, _ in words["operators"] for w in phrase.split())
        # looked up by the words before a name, of each length an operator has
        self.operator_of = dict(self.operators)
        self.operator_lengths = sorted({len(phrase) for phrase, _ in self.operators}, reverse=True)
        self.substitute = Cue(tuple(words["substitute"]))
        self.negation_goes_on = frozenset(words["negation_goes_on"])
        self.takes_back = frozenset(words["takes_back"])
        self.or_hedges = frozenset(words["or_hedges"])
        self.option_negation = frozenset(words["option_negation"])
        self.discourse: dict[str, list[tuple[str, ...]]] = {}  # by first word, in the file's order
        for phrase in words["discourse"]:
            self.discourse.setdefault(phrase.split()[0], []).append(tuple(phrase.split()))
        self.repair_strong = phrase_set(words["repair_strong"])
        self.repair_weak = phrase_set(words["repair_weak"])
        self.repair_drop = phrase_set(words["repair_drop"])
        self.repair_lead = frozenset(words["repair_lead"])
        self.repair_keeps = frozenset(words["repair_keeps"])
        self.ordinals = {word: int(place) for word, place in words["ordinals"]}
        self.number_homophones = {word: str(number) for word, number in words["number_homophones"]}
        self.homophone_after = frozenset(words["homophone_after"])
        self.people_before = [tuple(phrase.split()) for phrase in words["people_before"]]
        self.people_after = [tuple(phrase.split()) for phrase in words["people_after"]]
        self.unit_nouns = frozenset(words["unit_nouns"])
        self.adding_openers = tuple(sorted((tuple(w.split()) for w in words["adding_openers"]), key=len, reverse=True))
        self.definite = frozenset(words["definite"])
        self.unit_all = frozenset(words["unit_all"])
        self.unit_opens = [tuple(phrase.split()) for phrase in words["unit_opens"]]
        self.list_joins = frozenset(words["list_joins"])
        self.person_unit = frozenset(words["person_unit"])
        self.plural_refs = frozenset(words["plural_refs"])
        self.diet = Cue(tuple(words["diet"]))

    def without_polite(self, flat: str) -> str:
        return " ".join(self.polite.sub(" ", flat).split())

    def reply(self, flat: str) -> str | None:
        """'yes' or 'no' when the whole line is a short answer, polite words aside."""
        flat = " ".join("them" if w == "em" else w for w in flat.split())  # "add em"
        core = self.without_polite(flat)
        for kind, cue in (("no", self.no), ("yes", self.yes)):
            if cue.whole(flat) or (core and cue.whole(core)):
                return kind
        for kind, cue in (("no", self.no), ("yes", self.yes)):
            if core and not cue.sub(" ", core).strip():
                return kind  # "yeah why not", "nope, plain is fine": only answers of one kind
        for kind, cue in (("no", self.no), ("yes", self.yes)):
            first = cue.search(flat) if not core else None  # two answers, polite words both
            rest = flat[first.end():].strip() if first is not None and first.start() == 0 else ""
            if rest and (self.yes.whole(rest) or self.no.whole(rest)):
                return kind  # "yeah, that's fine": the first says which
        return None

    def is_question(self, clause: str) -> bool:
        """A clause that asks rather than orders: 'is it spicy', not 'can I get two'."""
        return self.questions["starts"].starts(clause) and not self.requests(clause)

    def requests(self, clause: str) -> bool:
        """Does the clause ask for something to be done ('could you throw X on it', 'would you
        be able to do a X', 'I was wondering if I could get')? Asking for it is ordering it."""
        q = self.questions
        if q["ordering"].starts(clause) or q["request_wishes"].starts(clause):
            return True
        lead = self.leading(q["request_leads"], clause)  # "do you think", "would it be cool if"
        said = clause if lead is None else lead
        rest = self.leading(q["request_selves"], said)  # "I'll", "I'm gonna": the customer's own doing
        if rest is None:
            words = said.split()
            modal = bool(words) and words[0] in self.request_modals
            if not modal and lead is None:
                return False
            after = " ".join(words[1:] if modal else words)
            if modal and len(words) >= 3 and q["request_verbs"].starts(after):
                return True  # "(Dana) would like a X": its subject said before the clause
            rest = self.leading(q["request_subjects"], after)
            if rest is None:
                return False
            if not modal and rest.split()[:1] and rest.split()[0] in self.request_modals:
                rest = " ".join(rest.split()[1:])  # "do you think I could get"
        while (soft := self.leading(q["request_softeners"], rest)) is not None:
            rest = soft
        return q["request_verbs"].starts(rest)

    @staticmethod
    def leading(cue: Cue, text: str) -> str | None:
        """What follows the cue that starts the text (None when no phrase of it starts it)."""
        found = cue.search(text)
        return text[found.end():].strip() if found is not None and found.start() == 0 else None


class Patterns:
    """The named regular expressions of a phrase file, each compiled when first used; a name whose
    value is a list of names is the alternation of those patterns."""

    def __init__(self, sources: dict[str, str | list[str]]):
        self._sources = sources

    def source(self, name: str) -> str:
        value = self._sources[name]
        return value if isinstance(value, str) else "|".join(self.source(part) for part in value)

    def __getattr__(self, name: str) -> re.Pattern:
        if name.startswith("_") or name not in self._sources:
            raise AttributeError(name)
        pattern = re.compile(self.source(name))
        setattr(self, name, pattern)
        return pattern


KNOWN_PARTS = ("patterns", "value_questions", "words", "rules", "price_moves", "spoken_price")  # cue language


class ManagerPhrases:
    """The manager parser's cue patterns, the words it reads around names, amounts and price moves."""

    def __init__(self, data: dict):
        self.patterns = Patterns(data["patterns"])
        self.value_questions = Patterns(data["value_questions"])
        self.value_kinds = tuple(data["value_questions"])
        self.line_readings = tuple(data["readings"]["line"])
        words = data["words"]
        self.type_words = {word: kind or None for word, kind in words["type_words"].items()}
        self.generic_names = tuple(words["generic_names"])
        self.filler = frozenset(words["filler"])
        self.coins = dict(data["money"])
        self.price_up = Cue(tuple(data["price_moves"]["up"]))
        self.price_down = Cue(tuple(data["price_moves"]["down"]))
        self.commands = [(c["say"], frozenset(c["cues"])) for c in data["manager_commands"]]
        spoken = data.get("spoken_price", {})
        self.zero_cents = frozenset(spoken.get("zero_cents", []))
        self.not_price_after = frozenset(spoken.get("not_after", []))
        self.kitchen_parts = frozenset(words.get("kitchen_parts", []))
        rules = data["rules"]
        self.rule_families = dict(rules["families"])  # a family of rules by the words naming it
        self.weekdays = {word: group["days"] for group in rules["days"].values() for word in group["words"]}
        # every word the cue language knows, and the small talk around a change: no word left unheard
        self.known_words = frozenset(pattern_words(strings([data[part] for part in KNOWN_PARTS] + [list(data["money"])]
                                                           + [c["cues"] for c in data["manager_commands"]])))


def _single_words(table: dict[str, list[str]]) -> dict[str, str]:
    return {word: meaning for meaning, words in table.items() for word in words if " " not in word}


def menu_examples(menu) -> dict[str, str]:
    """Names from the KB for examples in prompts and help texts, so no example holds a menu
    word: the best-selling dish, one of its options, ingredients and toppings, a drink with
    sizes and its largest size."""
    dish = menu.example_dish
    rank = dict(menu.facts.get("popularity", []))
    sizes_of: dict[str, list[str]] = {}
    for item, group, value in menu.facts.get("option", []):
        if group == "size":
            sizes_of.setdefault(item, []).append(value)
    drinks = sorted(sizes_of, key=lambda d: (not menu.is_drink(d), len(sizes_of[d]) < 2, rank.get(d, 1000), d)) or [dish]
    prices = {o: p for i, g, o, p in menu.facts.get("option_price", []) if i == drinks[0] and g == "size"}
    sizes = sorted((prices.get(o, 0), o) for o in sizes_of.get(drinks[0], []))
    toppings = sorted(t for d, t in menu.facts.get("available_topping", []) if d == dish)
    popular = {t for d, t in menu.facts.get("popular_topping", []) if d == dish}
    own = menu.included(dish)
    # first what the dish comes with and can have more of, then what people add; never the dough
    ingredients = sorted(own | popular, key=lambda i: (not (i in own and i in toppings), i not in popular,
                                                       i not in toppings, i)) + [dish, dish]
    option_rank = {(g, o): r for g, o, r in menu.facts.get("option_rank", [])}
    options = sorted((option_rank.get((g, o), 1000), o) for i, g, o in menu.facts.get("option", [])
                     if i == dish and g != "size")
    return {"dish": dish, "dishes": plural(dish, 2), "drink": drinks[0], "drinks": plural(drinks[0], 2),
            "option": options[0][1] if options else sizes[-1][1] if sizes else "large",
            "other_drink": drinks[1] if len(drinks) > 1 else dish, "size": sizes[-1][1] if sizes else "large",
            "ingredient": ingredients[0], "other_ingredient": ingredients[1],
            "topping": toppings[0] if toppings else ingredients[0], "category": menu.category_of.get(dish, "dish")}


def prompt_examples(menu) -> str:
    """The worked examples of phrases_customer.toml for the LLM's parsing prompt, with the KB's own
    names filled in: the LLM learns from the same phrase data as the offline parser."""
    names = menu_examples(menu)
    return "\n".join(f'- "{said.format(**names)}": {means.format(**names)}' for said, means in phrases().examples)


@cache
def phrases() -> Phrases:
    return _read(Phrases, CUSTOMER_FILE)


@cache
def manager_phrases() -> ManagerPhrases:
    return _read(ManagerPhrases, MANAGER_FILE)


_BUILT: dict[tuple[type, str], object] = {}


def _read(kind: type, path: Path):
    """A phrase file's matchers, built once per content digest: a file read again unchanged
    (a reload, another bot of the process) reuses the matchers and their compiled patterns."""
    raw = path.read_bytes()
    key = (kind, hashlib.sha256(raw).hexdigest())
    if key not in _BUILT:
        _BUILT[key] = kind(tomllib.loads(raw.decode("utf-8")))
    return _BUILT[key]
