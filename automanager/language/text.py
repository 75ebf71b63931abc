"""Text helpers both offline parsers share: folding, tokens, numbers, menu names, yes and no."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from text_to_num import text2num

from ..menu.model import Menu
from ..normalize import fold as letters_folded
from ..normalize import letters
from ..vocab import bounded

# Number words text2num does not read: articles and counting words of ordering.
NUMBER_WORDS = {"a": 1, "an": 1, "single": 1, "both": 2, "none": 0}
MULTIPLIERS = {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
LONGEST_NUMBER = 8  # words read as one number at most ("two hundred and twenty five thousand ...")


@dataclass
class Mention:
    start: int
    end: int
    kind: str  # item | topping | option (name: the value; alternatives["option"]: its group)
    name: str
    alternatives: dict[str, str]  # every kind this phrase can be
    said: str = ""  # the words as said


# The marks that end or split a clause in scripts NFKD leaves alone, as the parsers know them
CLAUSE_MARKS = str.maketrans({"、": ",", "。": ".", "،": ",", "؛": ";", "؟": "?"})


@lru_cache(maxsize=4096)  # a parse folds its line a dozen times (each reading tokenizes it)
def folded_line(text: str) -> str:
    text = letters_folded(text).translate(CLAUSE_MARKS)
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = re.sub(r"\b(she|he|it|they)['’`]ll\b", r"\1 will", text)  # "she'll" is no "shell"
    text = re.sub(r"#\s*(?=\d)", " number ", text)  # "a #2": combo number 2, never two of something
    text = re.sub(r"(?<![\d.])(\d+)['’`]?s\b", r"\1", text)  # "two number 3s": the number, not a word "s"
    return re.sub(r"['’`]", "", text).replace("&", " and ")


ASCII_TOKEN = re.compile(r"\d+(?:st|nd|rd|th)\b|-?\d+(?:\.\d+)?(?:e\d+)?|[a-z]+|[,.;!?]")  # "2nd" is one word


@cache
def _token() -> re.Pattern[str]:
    return re.compile(rf"\d+(?:st|nd|rd|th)\b|-?\d+(?:\.\d+)?(?:e\d+)?|{letters()}|[,.;!?]")


def tokenize(text: str) -> list[str]:
    """Numbers, words of letters of any script ('ピザ' is a word, as a name may be one) and the
    punctuation that ends a clause (a colon is the pause a comma is)."""
    text = re.sub(r":(?!\d)", ",", folded_line(text))  # "three burritos: bean, beef": the pause a comma is
    return (ASCII_TOKEN if text.isascii() else _token()).findall(text)


def is_word(token: str) -> bool:
    """Is this token a word or a whole number (not punctuation, '-2' or '2.5')? `str.isalnum`
    alone says no to 'पिज़्ज़ा', whose vowel signs are marks, not letters."""
    return token.isalnum() or is_letters(token)


def is_letters(token: str) -> bool:
    """Is this token a word of letters (a run `tokenize` made, marks on its letters included)?"""
    return token[:1].isalpha()


def number_at(tokens: list[str], i: int) -> tuple[int, int] | None:
    """(value, tokens used) of a number starting at tokens[i]: '2', 'two', 'twenty five', 'forty',
    'a couple of', 'a dozen', '18 thousand'. Number words are read by text2num."""
    word = tokens[i]
    if re.fullmatch(r"-?\d+(\.\d+)?(e\d+)?", word):
        value, used = bounded(word), 1
    elif word in ("couple", "pair") or tokens[i:i + 2] in (["a", "couple"], ["a", "pair"]):
        skip = 2 if word == "a" else 1
        return 2, skip + (1 if tokens[i + skip:i + skip + 1] == ["of"] else 0)
    elif word == "few" or tokens[i:i + 2] == ["a", "few"]:
        return 3, 2 if word == "a" else 1
    elif word in NUMBER_WORDS:
        value, used = NUMBER_WORDS[word], 1
    elif word in MULTIPLIERS:
        value, used = MULTIPLIERS[word], 1
    elif (spelled := number_words(tokens, i)) is not None:
        value, used = spelled
    else:
        return None
    while i + used < len(tokens) and tokens[i + used] in MULTIPLIERS and value < MULTIPLIERS[tokens[i + used]]:
        value *= MULTIPLIERS[tokens[i + used]]
        used += 1
    return bounded(value), used


def number_words(tokens: list[str], i: int) -> tuple[int, int] | None:
    """The longest run of words from tokens[i] that text2num reads as one number."""
    if not _spelled(tokens[i]):
        return None
    for end in range(min(len(tokens), i + LONGEST_NUMBER), i, -1):
        if end > i + 1 and not _spelled(tokens[end - 1]):
            continue
        try:
            return text2num(" ".join(tokens[i:end]), "en"), end - i
        except ValueError:
            continue
    return None


@lru_cache(maxsize=4096)
def _spelled(word: str) -> bool:
    if not word.isalpha():
        return False
    try:
        text2num(word, "en")
        return True
    except ValueError:
        return False


def find_mentions(menu: Menu, tokens: list[str]) -> list[Mention]:
    """Menu names in the tokens, longest match first: dishes, combos, ingredients, sauces, and
    the option values the KB declares ("large", "thin crust", "2 liter")."""
    longest = menu.longest_phrase
    found, i = [], 0
    while i < len(tokens):
        for n in range(min(longest, len(tokens) - i), 0, -1):
            said = " ".join(tokens[i:i + n])
            entry = menu.lexicon.get(said)
            if entry:
                kind = "item" if "item" in entry else "topping"
                found.append(Mention(i, i + n, kind, entry[kind], entry, said))
                i += n
                break
            if said in menu.option_words:
                group, value = menu.option_words[said]
                found.append(Mention(i, i + n, "option", value, {"option": group}, said))
                i += n
                break
        else:
            i += 1
    return found
