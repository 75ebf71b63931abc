"""Real `automanager` chat processes for crash and concurrency tests: one JSON record a turn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


class ChatProcess:
    def __init__(self, role: str, state_dir: Path, resume: str | None = None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        args = [sys.executable, "-m", "automanager", role, "--json", "--state-dir", str(state_dir)]
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
