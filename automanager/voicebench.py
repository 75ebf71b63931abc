"""`automanager bench --voice`: the voice lane measured end to end with no microphone. Each
customer line of a corpus is spoken by espeak-ng (a few voices and speeds, clean and with engine
noise mixed in by sox), recognized, and run as the turn it would be at a voice lane; its speaker answers the reply as a
person who knows what they meant would (was it read as the typed line was?): yes or no to a
read-back, the line said again more slowly when the reply said words of it were not understood.
The same scenario is run from its text. Figures: the word error rate of the transcripts, the share of
scenarios whose final order equals the text run's, the units the voice run rang up that the text run
did not (the figure that must stay 0: a misheard line asks or is said back), the share of lines
asked about (recognized unsure), recognition time per second of audio, and the time from the end
of a 3-second line to its reply's first audio (recognition, the turn, the first chunk of speech)."""

from __future__ import annotations

import io
import re
import subprocess
import tempfile
import time
import wave
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import voice
from .acts import Unsure
from .evaluation.scenario import Scenario, load_scenarios
from .star import CustomerChat
from .star.chat import Turn
from .state import Pending
from .store import Home


@dataclass(frozen=True)
class Setting:
    name: str
    voice: str
    rate: int
    noise: float  # the engine noise's amplitude mixed in (0: clean)


SETTINGS = [Setting("clean, US voice, 160 wpm", "en-us", 160, 0.0),
            Setting("clean, UK voice, 140 wpm", "en", 140, 0.0),
            Setting("engine noise, US voice, 160 wpm", "en-us", 160, 0.08),
            Setting("engine noise, UK voice, 140 wpm", "en", 140, 0.08)]


def words(text: str) -> str:
    """A transcript as the word error rate compares it: lower case, no punctuation, numbers as said."""
    text = re.sub(r"[^a-z0-9' ]+", " ", text.lower().replace("'", ""))
    return " ".join(NUMBERS.get(w, w) for w in text.split())


NUMBERS = {str(n): w for n, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                            "nine", "ten"])}


def seconds(audio: bytes) -> float:
    """A WAV's length from its bytes (espeak-ng writing to a pipe leaves the header's length unset)."""
    with wave.open(io.BytesIO(audio)) as wav:
        frame = wav.getsampwidth() * wav.getnchannels()
        return (len(audio) - 44) / frame / wav.getframerate()


def noisy(audio: bytes, amount: float) -> bytes:
    """Brown noise (an idling engine) mixed under the speech with sox."""
    if not amount:
        return audio
    with tempfile.TemporaryDirectory() as tmp:
        speech, out = Path(tmp) / "speech.wav", Path(tmp) / "out.wav"
        speech.write_bytes(audio)
        subprocess.run(["sox", "-m", str(speech), "|sox -R -n -r 22050 -c 1 -p synth "
                        f"{seconds(audio):.2f} brownnoise vol {amount}", str(out)], check=True, timeout=60,
                       capture_output=True)
        return out.read_bytes()


SLOWER = 30  # words a minute slower: a line said again after "sorry, X isn't on our menu"
THREE_SECONDS = (2.5, 3.5)  # a line this long (s) counts for the release-to-first-audio figures


@dataclass
class Run:
    """A scenario's customer lines in one chat: the order it ends with, and every unit any of its
    turns ever had on the order (the most of each at once), each unit one comparable text."""

    final: list[str] = field(default_factory=list)
    ever: Counter[str] = field(default_factory=Counter)
    read: list[list[str]] = field(default_factory=list)  # each customer line's acts as the chat read them

    def saw(self, order: list[dict]) -> None:
        self.final = sorted(repr(sorted(unit.items())) for unit in order)
        self.ever |= Counter(self.final)


def final_order(scenario: Scenario, root: Path, ear: Ear | None, typed: Run | None = None) -> Run:
    """The scenario's customer lines in one customer chat (typed, or spoken and heard by `ear`).
    A spoken line read back as a question is answered as the person who said it would: yes when
    it was read as the typed line was (`typed`, the text run), no otherwise; then the script goes
    on. Every scenario's state dir shares one cache of ground programs (`root/cache`): each would
    ground the menu afresh otherwise."""
    (root / "cache").mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=root))
    (folder / "cache").symlink_to(root / "cache")
    home = Home(folder, scenario.pack)
    home.clock = scenario.now
    chat, run = CustomerChat(home), Run()
    for step in scenario.steps:
        if step.role != "customer":
            continue
        if chat.ended:
            chat = CustomerChat(home)
        turn = chat.turn(step.text) if ear is None else ear.answer(chat, step.text)
        run.read.append(turn.parsed)
        if ear is not None and typed is not None and len(run.read) <= len(typed.read):
            follow_up(chat, ear, step.text, turn, typed.read[len(run.read) - 1])
        run.saw(chat.order())
    return run


def follow_up(chat: CustomerChat, ear: Ear, line: str, turn: Turn, meant: list[str]) -> None:
    """What the line's speaker says to the reply before going on, knowing what they meant (`meant`:
    the line as the typed run read it): a read-back is answered yes when it is what was meant, else
    no; "did you mean X?" yes when X was meant; a reply that said some words were not understood,
    when they were meant, gets the line said once more, more slowly, as a person repeats at a
    speaker (and that one's reply is answered the same way)."""
    for again in (False, True):
        if asked := read_back(chat):
            meant_it = without_doubt(meant) in (without_doubt(turn.parsed), sorted(asked))
            ear.answer(chat, "yes" if meant_it else "no", answering=True)
            return
        if any(act.startswith("guess(") and f"({act[6:-1]}," in " ".join(meant) for act in turn.parsed):
            ear.answer(chat, "yes", answering=True)  # the name it asks about is one the line ordered
            return
        if again or not turn.unheard or without_doubt(turn.parsed) == without_doubt(meant):
            return
        turn = ear.answer(chat, line, answering=True, slower=True)


def read_back(chat: CustomerChat) -> list[str]:
    """The changes the turn read back as a question (a half-heard line's, or "is the drink for
    your combo?"), kept until a yes, as acts print."""
    return [str(typed.change) for typed in chat.state if isinstance(typed, Pending)]


def without_doubt(acts: list[str]) -> list[str]:
    return sorted(act for act in acts if act != str(Unsure()))


def rung_up_beyond(heard: Run, typed: Run) -> int:
    """The units the voice run had on its order at some turn that the text run never had, each
    with its changes: what was rung up though nobody said it. A change the voice run asked about
    rather than made is no such unit (the order before it was said)."""
    return len(unsaid_units(heard, typed))


def unsaid_units(heard: Run, typed: Run) -> list[str]:
    """Those units themselves (rung_up_beyond), for the bench's report."""
    return sorted((heard.ever - typed.ever).elements())


def percentile(values: list[float], share: float) -> float:
    """The value `share` of `values` are at or under (nearest rank); 0 for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))] if ordered else 0.0


@dataclass
class Ear:
    """One setting's voice lane: each line spoken, maybe made noisy, recognized and answered; what
    was said and heard, and the times it took, kept for the figures."""

    setting: Setting
    prompt: str
    said: list[str] = field(default_factory=list)
    heard: list[str] = field(default_factory=list)
    audio_s: float = 0.0
    recognition_s: float = 0.0
    unsure: int = 0
    first_audio_s: list[float] = field(default_factory=list)  # release to the reply's first audio, 3-second lines
    answers: Counter[str] = field(default_factory=Counter)  # read-backs answered: yes / no

    def answer(self, chat: CustomerChat, line: str, answering: bool = False, slower: bool = False) -> Turn:
        """The line spoken to the lane: recognized and taken as the turn, its reply's speech begun.
        `answering`: a yes or no to a read-back, or a line said again (`slower`), counted apart
        from the corpus's lines."""
        rate = self.setting.rate - SLOWER * slower
        audio = noisy(voice.speak(line, rate, self.setting.voice), self.setting.noise)
        released = time.perf_counter()
        got = voice.transcribe(audio, self.prompt)
        recognized = time.perf_counter()
        turn = chat.heard(got.text, got.sure)
        next(voice.speech(turn.reply))  # the first chunk of the reply's speech, as the lane's speaker gets it
        if answering:
            self.answers["again" if slower else line] += 1
            return turn
        length = seconds(audio)
        if THREE_SECONDS[0] <= length <= THREE_SECONDS[1]:
            self.first_audio_s.append(time.perf_counter() - released)
        self.recognition_s += recognized - released
        self.audio_s += length
        self.said.append(words(line))
        self.heard.append(words(got.text))
        self.unsure += not got.sure
        return turn

    def figures(self, agree: int, beyond: int, scenarios: int) -> dict:
        import jiwer

        lines = len(self.said)
        return {"setting": self.setting.name, "lines": lines,
                "word_error_rate": round(jiwer.wer(self.said, self.heard), 3) if lines else 0.0,
                "orders_agree": round(agree / scenarios, 3) if scenarios else 0.0,
                "units_rung_up_not_said": beyond,
                "asked_about": round(self.unsure / lines, 3) if lines else 0.0,
                "read_backs_answered": {"yes": self.answers["yes"], "no": self.answers["no"]},
                "said_again": self.answers["again"],
                "recognition_per_audio_second": round(self.recognition_s / self.audio_s, 3) if self.audio_s else 0.0,
                "three_second_lines": len(self.first_audio_s),
                "first_audio_p50_s": round(percentile(self.first_audio_s, 0.5), 3),
                "first_audio_p95_s": round(percentile(self.first_audio_s, 0.95), 3)}


def voice_run(corpus: Path, prompt: str, limit: int | None = None,
              progress: Callable[[str], None] = lambda _s: None) -> dict:
    """The voice bench over a corpus's scenarios (the first `limit`) in every SETTING; `prompt`:
    the menu's names for the recognizer (voice.menu_prompt), as the service gives them."""
    scenarios = [s for s in load_scenarios([corpus]) if any(step.role == "customer" for step in s.steps)][:limit]
    results = []
    voice.transcribe(voice.speak("hello"), prompt)  # the model loaded before any line is timed, as a service does
    with tempfile.TemporaryDirectory() as tmp:
        texts = [final_order(s, Path(tmp) / "text", None) for s in scenarios]
        for k, setting in enumerate(SETTINGS):
            ear, agree, unsaid = Ear(setting, prompt), 0, {}
            for i, scenario in enumerate(scenarios):
                progress(f"{setting.name}: {scenario.name}")
                heard = final_order(scenario, Path(tmp) / f"voice{k}", ear, texts[i])
                agree += heard.final == texts[i].final
                if beyond := unsaid_units(heard, texts[i]):
                    unsaid[scenario.name] = beyond
            results.append({**ear.figures(agree, sum(map(len, unsaid.values())), len(scenarios)),
                            "rung_up_not_said_in": unsaid})
    return {"corpus": corpus.name, "scenarios": len(scenarios), "recognizer": voice.chosen(),
            "settings": results}
