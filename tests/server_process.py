"""A real ``allegra-rules serve`` process on 127.0.0.1 for the server tests.

``ServerProcess(db)`` starts the command on a free port with its output in a log file
(``env``: extra environment variables, such as ``ALLEGRA_SERVER_BODY_TIMEOUT``),
waits (at most 30 s) until it answers, and stops it on ``stop()`` or at the end of a
``with`` block; ``kill()`` sends SIGKILL, as a crash would. Every test talks from
127.0.0.1, so unless ``args`` set ``--tables-per-hour`` the server lets that address create
``TABLES_PER_HOUR`` tables an hour rather than its default. ``rss()`` is the server
process's resident memory (``VmRSS`` of ``/proc/<pid>/status``), in bytes.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parent.parent

TABLES_PER_HOUR = 100_000
"""The tables per hour a test server allows one address unless told otherwise."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """One server process serving the SQLite file ``db``."""

    def __init__(
        self,
        db: Path,
        *args: str,
        log: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.db = db
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.log = log or db.with_suffix(f".{self.port}.log")
        env = {**os.environ, **(env or {})}
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])]
        )
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "allegra_rules",
                    "serve",
                    "--port",
                    str(self.port),
                    "--db",
                    str(db),
                    *(
                        []
                        if "--tables-per-hour" in args
                        else ["--tables-per-hour", str(TABLES_PER_HOUR)]
                    ),
                    *args,
                ],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.base + "/", timeout=2):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not start within 30 s")

    def log_text(self) -> str:
        """Everything the server wrote so far."""
        return self.log.read_text(errors="replace")

    def rss(self) -> int:
        """The server process's resident memory in bytes (Linux: ``/proc``)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS in /proc/<pid>/status")

    def kill(self) -> None:
        """SIGKILL, then wait for the process to be gone."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
