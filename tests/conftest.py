"""Shared fixtures: the shipped KB, and a state dir that never touches the user's."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

from automanager import paths


def pytest_configure(config):
    """The processes the tests start (hundreds: chats, services, crash tests) keep their compiled
    modules for the session, as an installed package has them, instead of compiling every module
    at each start where PYTHONDONTWRITEBYTECODE is set. Outside the source tree; xdist's workers
    inherit it."""
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None and "PYTHONPYCACHEPREFIX" not in os.environ:
        folder = tempfile.mkdtemp(prefix="automanager-tests-bytecode-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ["PYTHONPYCACHEPREFIX"] = folder


def pytest_collection_modifyitems(items):
    """A test on a real PostgreSQL server is slow (`-m "not slow"` leaves it out): the server's
    fixture, or the PostgreSQL side of `engine`."""
    for item in items:
        params = getattr(item, "callspec", None)
        if "postgres_server" in item.fixturenames or (params and params.params.get("engine") == "postgresql"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """Every test gets its own AUTOMANAGER_HOME and the shipped menu."""
    monkeypatch.setenv("AUTOMANAGER_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("AUTOMANAGER_KB", raising=False)
    monkeypatch.delenv("AUTOMANAGER_DATABASE_URL", raising=False)
    return tmp_path / "home"


@pytest.fixture
def kb_files():
    return paths.kb_files()


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server for this test session (skipped, with the reason, where none starts)."""
    from postgres import Server

    server = Server()
    reason = server.why_not()
    if reason:
        pytest.skip(reason)
    try:
        server.start()
    except Exception as exc:  # the binaries are there but the server does not come up: say why
        pytest.skip(f"PostgreSQL did not start: {getattr(exc, 'stderr', '') or exc}".strip()[:300])
    yield server
    server.remove()


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, monkeypatch):
    """Run the test on both database engines: SQLite in the state dir, and a fresh database on a
    real PostgreSQL server (AUTOMANAGER_DATABASE_URL)."""
    if request.param == "postgresql":
        monkeypatch.setenv("AUTOMANAGER_DATABASE_URL", request.getfixturevalue("postgres_server").new_database())
    else:
        monkeypatch.delenv("AUTOMANAGER_DATABASE_URL", raising=False)
    return request.param
