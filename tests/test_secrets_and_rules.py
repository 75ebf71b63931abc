"""Issue 37's attacks on secrets and store rules: a database URL's password is never printed, however
malformed the URL; a store rule never changes more, or gives away more, than the manager confirmed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from automanager.database import redacted

# a password with each character that ends a URL's user info early, unescaped; then escaped; then a
# URL libpq cannot read at all
SHAPES = {"slash": "postgresql://bob:Zq/Xw@127.0.0.1:{port}/chain",
          "hash": "postgresql://bob:Zq#Xw@127.0.0.1:{port}/chain",
          "question": "postgresql://bob:Zq?Xw@127.0.0.1:{port}/chain",
          "at": "postgresql://bob:Zq@Xw@127.0.0.1:{port}/chain",
          "percent": "postgresql://bob:Zq%Xw@127.0.0.1:{port}/chain",
          "space": "postgresql://bob:Zq Xw@127.0.0.1:{port}/chain",
          "encoded": "postgresql://bob:Zq%2FXw@127.0.0.1:{port}/chain"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_cli(args: list[str], url: str, tmp_path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))}
    env["AUTOMANAGER_DATABASE_URL"] = url
    return subprocess.run([sys.executable, "-m", "automanager", *args, "--state-dir", str(tmp_path / "state")],
                          input="a soft taco\n", capture_output=True, text=True, timeout=90, env=env)


def one_line_without_the_password(done: subprocess.CompletedProcess[str]) -> str:
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output and "Zq" not in output and "Xw" not in output, output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), output
    return lines[0]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_password_is_masked_in_every_shape(shape):
    url = SHAPES[shape].format(port=5432)
    shown = redacted(url)
    assert "Zq" not in shown and "Xw" not in shown and shown == "postgresql://bob:***@127.0.0.1:5432/chain"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("command", [["state", "stock"], ["customer", "--backend", "offline"]])
def test_a_password_is_never_printed_by_the_cli(shape, command, tmp_path):
    line = one_line_without_the_password(run_cli(command, SHAPES[shape].format(port=free_port()), tmp_path))
    assert "AUTOMANAGER_DATABASE_URL" in line and "bob:***@127.0.0.1" in line
    if shape in ("slash", "at", "percent", "space"):  # libpq would misread or not read it: say how to write it
        assert "percent-encode" in line


def test_serve_never_prints_the_password(tmp_path):
    url = SHAPES["at"].format(port=free_port())
    line = one_line_without_the_password(run_cli(["serve", "--backend", "offline", "--port", str(free_port())], url,
                                                 tmp_path))
    assert "%40" in line


def test_help_never_prints_the_password(tmp_path):
    for command in (["serve", "--help"], ["customer", "--help"], ["--help"]):
        env = {**os.environ, "AUTOMANAGER_DATABASE_URL": SHAPES["at"].format(port=5432)}
        done = subprocess.run([sys.executable, "-m", "automanager", *command], capture_output=True, text=True,
                              timeout=60, env=env)
        assert done.returncode == 0 and "Zq" not in done.stdout + done.stderr


@pytest.mark.parametrize("url", ["postgresql://[::1/db", "postgresql://bob:Zq@[::1/db", "host=h password=Zq"])
def test_a_malformed_url_is_one_line_never_a_traceback(url, tmp_path):
    line = one_line_without_the_password(run_cli(["state", "stock"], url, tmp_path))
    assert "AUTOMANAGER_DATABASE_URL" in line and "postgresql://" in line
