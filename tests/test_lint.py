"""The code stays clean: ruff (the rules in pyproject.toml) over the package and the tests, and
mypy (strict on the bottom layer) over the package. Their own output is the failure message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", [["ruff", "check", "automanager", "tests"], ["mypy"]], ids=["ruff", "mypy"])
def test_the_linter_finds_nothing(command):
    done = subprocess.run([sys.executable, "-m", *command], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
