"""One way to compare names: case, accents, trademark signs and punctuation do not count, and no
letter of any script is lost ("ピザ", "بيتزا" and "Пицца" are names as much as Latin ones)."""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

# Scripts whose combining marks are accents a writer may leave out: "cafe" is "café", and Greek
# capitals carry no tonos ("ΠΙΤΣΑ" is "Πίτσα"). In every other script a mark is part of the letter
# (the dakuten makes サ into ザ, a Devanagari vowel sign is the vowel) and is kept.
ACCENTED_SCRIPTS = frozenset({"LATIN", "GREEK"})

ASCII_WORD = re.compile(r"[a-z0-9]+")


def fold(text: str) -> str:
    """The text with case and accents gone and every letter kept (recomposed, NFC): what two
    spellings of one name have in common. ASCII text only loses its case."""
    if text.isascii():
        return text.casefold()
    kept, base = [], ""
    for char in unicodedata.normalize("NFKD", text):
        if not unicodedata.category(char).startswith("M"):
            base = char
        elif not base.isalpha() or _accented(base):
            continue  # an accent, or a mark on no letter (a variation selector after a digit)
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept).casefold())


def _accented(letter: str) -> bool:
    return letter.isascii() or _script(letter) in ACCENTED_SCRIPTS


def _script(char: str) -> str:
    return unicodedata.name(char, "").split(" ")[0]


def latin(word: str) -> bool:
    """Are all the letters of `word` Latin? English plurals and the typo tolerance of name matching
    are for these: in kana or Han one sign changed is another word, never a typo to fix."""
    return word.isascii() or all(_script(c) == "LATIN" for c in word if c.isalpha())


@cache
def letters() -> str:
    """A regex for one word of letters of any script, with the marks written on them (a
    Devanagari vowel sign is no letter to `str.isalpha`, yet it is part of the word). Built on
    first use, so a process that only reads ASCII never scans the Unicode tables."""
    planes = [*range(0x300, 0x20000), *range(0xE0100, 0xE01F0)]  # no mark lies outside these
    marks = [c for c in planes if unicodedata.category(chr(c)).startswith("M")]
    runs: list[list[int]] = []
    for code in marks:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    ranges = "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in runs)
    return rf"[^\W\d_](?:[^\W\d_]|[{ranges}])*"


@cache
def _word() -> re.Pattern[str]:
    return re.compile(rf"(?:\d|{letters()})+")


def word_regex(text: str) -> re.Pattern[str]:
    """The regex of a run of letters and digits (with the marks on them) for this folded text."""
    return ASCII_WORD if text.isascii() else _word()


def words(text: str) -> list[str]:
    """The runs of letters and digits of folded text: 'x2 ピザ!' -> ['x2', 'ピザ']."""
    return word_regex(text).findall(text)


@lru_cache(maxsize=65536)
def normalize(text: str) -> str:
    """'Super Wrap®' and 'super  wrap' -> 'super wrap'; 'Café' -> 'cafe'; 'ザ' stays 'ザ'. Kept:
    the parser compares the menu's names with what was said over and over."""
    return " ".join(words(fold(text).replace("&", " and ")))
