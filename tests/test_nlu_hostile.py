"""`eval-nlu` on hostile data: a clear error (exit 2) or a scored run, never a traceback."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from automanager.cli import app

GOOD = {"dev.SRC": "i want a large pizza", "dev.EXR": "(ORDER (PIZZAORDER (NUMBER 1 ) (SIZE LARGE ) ) )"}
HOSTILE = {
    "invalid UTF-8": b'{"dev.SRC": "a pizza \xff\xfe", "dev.EXR": "(ORDER )"}\n',
    "a number for the utterance": (json.dumps({**GOOD, "dev.SRC": 42}) + "\n").encode(),
    "a list for the gold": (json.dumps({**GOOD, "dev.EXR": ["(ORDER )"]}) + "\n").encode(),
    "not JSON": b"{this is not json\n",
    "a JSON list row": b"[1, 2, 3]\n",
    "deep nesting": ("[" * 100000 + "]" * 100000 + "\n").encode(),
    "a missing field": (json.dumps({"dev.SRC": "a pizza"}) + "\n").encode(),
    "unbalanced gold": (json.dumps({**GOOD, "dev.EXR": "(ORDER (PIZZAORDER (NUMBER 1 )"}) + "\n").encode(),
    "empty gold": (json.dumps({**GOOD, "dev.EXR": ""}) + "\n").encode(),
    "gold of another shape": (json.dumps({**GOOD, "dev.EXR": "(ORDER (SANDWICHORDER (NUMBER x ) ) )"}) + "\n").encode(),
    "an empty file": b"",
}


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_hostile_dataset_files_end_cleanly(tmp_path, attack):
    (tmp_path / "PIZZA_dev.json").write_bytes(HOSTILE[attack])
    result = CliRunner().invoke(app, ["eval-nlu", "pizza", "--split", "dev", "--data", str(tmp_path), "--json"])
    assert result.exit_code in (0, 2), (attack, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), (attack, repr(result.exception))
    assert "Traceback" not in result.output
