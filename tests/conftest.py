"""Shared fixtures: the shipped KB, and a state dir that never touches the user's."""

from __future__ import annotations

import pytest

from automanager import paths


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """Every test gets its own AUTOMANAGER_HOME and the shipped menu."""
    monkeypatch.setenv("AUTOMANAGER_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("AUTOMANAGER_KB", raising=False)
    return tmp_path / "home"


@pytest.fixture
def kb_files():
    return paths.kb_files()
