"""Whisper's reading of a spoken line, word by word with how sure it is of each word. The line's
speech (voice activity detection keeps it, drops silence and engine noise) is encoded once and
decoded twice from that encoding: by beam search, whose words are the transcript, and greedily, whose
token probabilities give each word its own. A word the two decodings do not agree on is one the
recognizer was unsure of (probability 0), whatever either says of it. A mean over a line hides one
misheard name among sure words; this does not, at the cost of a second, cheap decoding."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

RATE = 16_000  # Hz the recognizer hears
WINDOW = 30 * RATE  # samples Whisper reads at once (its encoder always sees 30 s)
BEAM = 5
NO_SPEECH = 0.6  # a window the model thinks holds no speech, and whose words it is unsure of, is no words
LOW_LOGPROB = -1.0
MAX_TOKENS = 448  # Whisper's text length; the prompt takes at most half of it


@dataclass(frozen=True)
class Word:
    text: str  # as written, punctuation kept
    probability: float  # 0..1; 0 where the two decodings disagree


@dataclass(frozen=True)
class Reading:
    words: tuple[Word, ...]
    logprob: float  # the beam's mean token log probability over the line


def read(model: Any, samples: Any, prompt: str) -> Reading:
    """The line's speech read window by window (a drive-through line is one window)."""
    import numpy as np
    from faster_whisper.vad import collect_chunks, get_speech_timestamps

    speech = get_speech_timestamps(samples)
    if not speech:
        return Reading((), 0.0)
    voiced = np.concatenate(collect_chunks(samples, speech)[0])
    words: list[Word] = []
    logprobs: list[float] = []
    for start in range(0, len(voiced), WINDOW):
        window_words, logprob = read_window(model, voiced[start:start + WINDOW], prompt)
        words += window_words
        logprobs += [logprob] * len(window_words)
    return Reading(tuple(words), sum(logprobs) / len(logprobs) if logprobs else 0.0)


def read_window(model: Any, samples: Any, prompt: str) -> tuple[list[Word], float]:
    """One window's words, and the beam's mean token log probability."""
    import numpy as np
    from faster_whisper.tokenizer import Tokenizer
    from faster_whisper.transcribe import get_suppressed_tokens

    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language="en")
    features = model.feature_extractor(samples)[..., :model.feature_extractor.nb_max_frames]
    features = np.pad(features, ((0, 0), (0, model.feature_extractor.nb_max_frames - features.shape[-1])))
    encoded = model.encode(features)
    prompt_tokens = tokenizer.encode(" " + prompt.strip())[-(MAX_TOKENS // 2 - 1):] if prompt else []
    start = [tokenizer.sot_prev, *prompt_tokens] if prompt_tokens else []
    start += [*tokenizer.sot_sequence, tokenizer.no_timestamps]
    options = {"suppress_tokens": get_suppressed_tokens(tokenizer, [-1]), "suppress_blank": True,
               "max_length": MAX_TOKENS - len(start)}
    beam = model.model.generate(encoded, [start], beam_size=BEAM, return_scores=True, return_no_speech_prob=True,
                                **options)[0]
    tokens = [t for t in beam.sequences_ids[0] if t < tokenizer.eot]
    logprob = beam.scores[0] * len(tokens) / (len(tokens) + 1)  # the score is their sum over the length (as faster-whisper)
    if not tokens or (beam.no_speech_prob > NO_SPEECH and logprob < LOW_LOGPROB):
        return [], logprob
    greedy = model.model.generate(encoded, [start], beam_size=1, return_logits_vocab=True, **options)[0]
    greedy_tokens = greedy.sequences_ids[0]
    steps = np.asarray(greedy.logits[0])  # one row of the vocabulary's logits for each token chosen
    chances = [token_probability(row, token) for row, token in zip(steps, greedy_tokens)]
    return agreed(spelled(tokenizer, tokens, [1.0] * len(tokens)), spelled(tokenizer, greedy_tokens, chances)), logprob


def token_probability(logits: Any, token: int) -> float:
    """The probability the decoder gave the token it chose (a softmax over the vocabulary)."""
    import numpy as np

    row = logits.astype(np.float64).reshape(-1)
    return float(np.exp(row[token] - np.logaddexp.reduce(row)))


PUNCTUATION = re.compile(r"^\W*$")


def spelled(tokenizer: Any, tokens: list[int], chances: list[float]) -> list[Word]:
    """Tokens joined into words (a token starting with a space starts one); a word is as sure as
    its least sure piece, punctuation aside."""
    words: list[tuple[str, float]] = []
    for token, chance in zip(tokens, chances):
        if token >= tokenizer.eot:
            continue
        piece = tokenizer.decode([token])
        if words and not piece.startswith(" "):
            text, sure = words[-1]
            words[-1] = (text + piece, sure if PUNCTUATION.match(piece) else min(sure, chance))
        else:
            words.append((piece.strip(), 1.0 if PUNCTUATION.match(piece) else chance))
    return [Word(text, round(sure, 3)) for text, sure in words if text]


NUMERALS = dict(enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]))


def bare(word: Word) -> str:
    """A word as the decodings are compared: lower case, no punctuation, "2" as "two"."""
    said = re.sub(r"[^\w']", "", word.text.lower())
    return NUMERALS.get(int(said), said) if said.isdigit() and len(said) < 3 else said


def agreed(beam: list[Word], greedy: list[Word]) -> list[Word]:
    """The beam's words, each as sure as the greedy decoding was of the same word, or 0 where the
    greedy decoding heard another."""
    probability = [0.0] * len(beam)
    matcher = SequenceMatcher(a=[bare(w) for w in beam], b=[bare(w) for w in greedy], autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            probability[block.a + k] = greedy[block.b + k].probability
    return [Word(word.text, chance) for word, chance in zip(beam, probability)]
