"""Real `automanager` processes for crash and concurrency tests: chats (one JSON record a turn) and
the HTTP service."""

from __future__ import annotations

import json
import os
import resource
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx


class ChatProcess:
    """`before`: Python code the process runs before the chat starts (to make it fail at a chosen point)."""

    def __init__(self, role: str, state_dir: Path, resume: str | None = None, before: str = ""):
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        start = ["-c", f"{before}\nimport runpy\nrunpy.run_module('automanager', run_name='__main__')"] if before \
            else ["-m", "automanager"]
        args = [sys.executable, *start, role, "--json", "--state-dir", str(state_dir)]
        self.proc = subprocess.Popen(args + (["--resume", resume] if resume else []), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def say(self, line: str) -> dict:
        """Send a line and wait for the bot's acknowledged turn."""
        self.send(line)
        reply = self.proc.stdout.readline()
        if not reply:
            raise AssertionError(f"no reply to {line!r}: {self.proc.stderr.read()}")
        return json.loads(reply)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)

    def close(self) -> str:
        """End input, wait, return stderr."""
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        return self.proc.stderr.read()


class ServeProcess:
    """`automanager serve` on 127.0.0.1 (a free port) over a state dir, without an LLM or any
    AUTOMANAGER_* setting of the machine but the database the test chose (and those in `settings`);
    `kill` is SIGKILL."""

    def __init__(self, state_dir: Path, settings: dict[str, str] | None = None, args: list[str] | None = None,
                 descriptors: int | None = None, ca: Path | None = None):
        """`args`: more options of `automanager serve`; `descriptors`: its descriptor limit (ulimit -n);
        `ca`: the authority that signed the certificate `args` name (--certfile): served over https,
        and trusted by that authority alone."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))
               or k == "AUTOMANAGER_DATABASE_URL"}  # the engine the test chose (conftest clears it otherwise)
        env.update(settings or {})

        def limit() -> None:
            if descriptors is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))

        self.proc = subprocess.Popen([sys.executable, "-m", "automanager", "serve", "--port", str(self.port),
                                      "--state-dir", str(state_dir), "--backend", "offline", *(args or [])],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, env=env, preexec_fn=limit if descriptors is not None else None)
        self.url = f"{'https' if ca else 'http'}://127.0.0.1:{self.port}"
        self.http = httpx.Client(base_url=self.url, timeout=60, verify=ssl.create_default_context(cafile=ca) if ca
                                 else True)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.http.get("/openapi.json")
                break
            except httpx.TransportError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.kill()
                    raise AssertionError(f"the service did not start: {self.proc.stderr.read()}") from None
                time.sleep(0.1)
        self.manager = {"Authorization": "Bearer " + (state_dir / "manager-token").read_text().strip()}

    def turn(self, lane: dict, text: str, turn_id: str) -> dict:
        answer = self.http.post(f"/api/lanes/{lane['lane']}/turns", json={"text": text, "turn_id": turn_id},
                                headers={"Authorization": f"Bearer {lane['token']}"})
        assert answer.status_code == 200, answer.text
        return answer.json()

    def kill(self) -> None:
        self.http.close()
        self.proc.kill()
        self.proc.wait(timeout=30)

    def close(self) -> str:
        """Stop it (SIGTERM), return its stderr."""
        self.http.close()
        self.proc.terminate()
        try:
            return self.proc.communicate(timeout=30)[1]
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.communicate(timeout=30)[1]


def serve_refused(state_dir: Path, settings: dict[str, str] | None = None,
                  args: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """`automanager serve` as ServeProcess starts it (with more options, `args`), expected to refuse
    to start: its exit code and output (bounded in time: one that starts is stopped after 120 s and
    fails the test)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AUTOMANAGER_"))
           or k == "AUTOMANAGER_DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "automanager", "serve", "--port", str(port), "--state-dir",
                           str(state_dir), "--backend", "offline", *(args or [])], env={**env, **(settings or {})},
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
