"""A real PostgreSQL server for tests, from Debian's binaries (initdb and pg_ctl in a temp dir, on a
free loopback port), and a fresh database per test. Run as root, the server runs as the `postgres`
user the package makes (PostgreSQL refuses root). Where no server can be started, the tests that
need one skip with the reason."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl: on the PATH, else Debian's /usr/lib/postgresql/<N>/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """One PostgreSQL server in a temp folder of its own, for the whole test session (of one pytest
    worker). The folder is made under the system's temp dir, not pytest's: pytest's folders are
    its owner's only, and the server's user must reach its data."""

    def __init__(self, max_connections: int = 200) -> None:
        self.folder, self.port = Path(tempfile.mkdtemp(prefix="automanager-pg-")), free_port()
        self.max_connections = max_connections
        self.data = self.folder / "data"
        self.bin = binaries()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.user = "postgres" if os.geteuid() == 0 else os.environ.get("USER", "postgres")

    def why_not(self) -> str | None:
        """None when a server can be started here, else the reason."""
        if self.bin is None:
            return "no PostgreSQL server binaries (initdb) found: install Debian's postgresql package"
        if self.as_user and shutil.which("runuser") is None:
            return "running as root without runuser: cannot start PostgreSQL as another user"
        return None

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.as_user, *args], capture_output=True, text=True, timeout=120, check=check)

    def start(self) -> None:
        if self.as_user:
            shutil.chown(self.folder, "postgres", "postgres")
        self.run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.user, "--no-sync",
                 "-E", "UTF8")
        self.restart()

    def stop(self) -> None:
        """Stop the server (it can be started again with `restart`)."""
        self.run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def restart(self) -> None:
        """Start the server on its data folder (again)."""
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off "
                   f"-c max_connections={self.max_connections}")
        self.run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-t", "60",
                 "-o", options, "start")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database on this server; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)
