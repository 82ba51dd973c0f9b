"""A real ``allegra-rules serve`` process on 127.0.0.1 for the server tests.

``ServerProcess(db)`` starts the command on a free port with its output in a log file
(``env``: extra environment variables, such as ``ALLEGRA_SERVER_BODY_TIMEOUT``),
waits (at most 30 s) until it answers, and stops it on ``stop()`` or at the end of a
``with`` block; ``kill()`` sends SIGKILL, as a crash would. Every test talks from
127.0.0.1, so unless ``args`` set ``--tables-per-hour`` the server lets that address create
``TABLES_PER_HOUR`` tables an hour rather than its default (and as many unfinished tables of
bots only, or with a search bot, unless ``--bot-tables-per-client`` or
``--search-tables-per-client`` are set). ``rss()`` is the server
process's resident memory (``VmRSS`` of ``/proc/<pid>/status``), in bytes.

``Databases`` makes fresh databases of one store, SQLite files or PostgreSQL databases of
the test session's own server (tests/postgres.py), and starts servers on them: the server
tests that take it run on both stores.
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
from typing import Any

import allegra_rules
from postgres import Cluster

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_ROOT = Path(allegra_rules.__file__).resolve().parent.parent
"""The folder ``allegra_rules`` is imported from (``src/``, or a venv's site-packages)."""

TABLES_PER_HOUR = 100_000
"""The tables per hour a test server allows one address unless told otherwise."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _limit_open_files(limit: int) -> Any:
    """A ``preexec_fn`` that sets the soft and hard open-files limits to ``limit``."""

    def limit_files() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    return limit_files


def _listening_sockets(port: int) -> set[str]:
    """The inodes of the sockets listening on TCP ``port`` (Linux: ``/proc/net/tcp``)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                found.add(fields[9])
    return found


class ServerProcess:
    """One server process serving the SQLite file ``db`` or the PostgreSQL URL ``db``.

    A URL is given with ``--database``; its server needs ``log``, a file to write to.
    ``open_files``: the process's open-files limit (soft and hard, ``ulimit -n``).
    """

    def __init__(
        self,
        db: Path | str,
        *args: str,
        log: Path | None = None,
        env: dict[str, str] | None = None,
        open_files: int | None = None,
    ) -> None:
        self.db = db
        self._args = args
        self._log_given = log
        self._env = env
        self._open_files = open_files
        # free_port() may hand another test's server (another xdist worker) the same port
        # before this one binds it: a server that finds its port taken, or another
        # process answering on it, starts again on a new port.
        for _ in range(5):
            self._launch()
            if self._wait_ready():
                return
            self.stop()
        raise RuntimeError("the server found its port taken five times running")

    def _launch(self) -> None:
        db, args, log, env, open_files = (
            self.db, self._args, self._log_given, self._env, self._open_files,
        )  # fmt: skip
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        if log is None:
            assert isinstance(db, Path), "a server of a PostgreSQL URL needs log"
            log = db.with_suffix(f".{self.port}.log")
        self.log = log
        where = ["--db", str(db)] if isinstance(db, Path) else ["--database", db]
        env = {**os.environ, **(env or {})}
        # The server imports the package the tests import: src/ in a checkout, the
        # installed wheel when CI runs the suite against it.
        env["PYTHONPATH"] = os.pathsep.join(
            [str(PACKAGE_ROOT), *filter(None, [env.get("PYTHONPATH")])]
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
                    *where,
                    *(
                        []
                        if "--tables-per-hour" in args
                        else ["--tables-per-hour", str(TABLES_PER_HOUR)]
                    ),
                    *(
                        []
                        if "--bot-tables-per-client" in args
                        else ["--bot-tables-per-client", str(TABLES_PER_HOUR)]
                    ),
                    *(
                        []
                        if "--search-tables-per-client" in args
                        else ["--search-tables-per-client", str(TABLES_PER_HOUR)]
                    ),
                    *args,
                ],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                preexec_fn=None if open_files is None else _limit_open_files(open_files),
            )

    def _wait_ready(self) -> bool:
        """Wait until this process listens on its port; False: the port was taken."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "address already in use" in self.log_text().lower():
                    return False
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            listeners = _listening_sockets(self.port)
            if listeners and not listeners & self._sockets():
                # Something else listens on the port: not this server.
                return False
            if listeners:
                try:
                    with urllib.request.urlopen(self.base + "/", timeout=2):
                        return True
                except (urllib.error.URLError, OSError):
                    pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not start within 30 s")

    def _sockets(self) -> set[str]:
        """The socket inodes the server process holds open (Linux: ``/proc``)."""
        found = set()
        folder = Path(f"/proc/{self.process.pid}/fd")
        try:
            fds = list(folder.iterdir())
        except (FileNotFoundError, PermissionError):
            return found
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                found.add(target[len("socket:[") : -1])
        return found

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

    def workers(self) -> list[int]:
        """The process ids of the server's worker processes (``--workers N``), if any.

        uvicorn starts each worker with ``multiprocessing``'s spawn: a child process whose
        command line names ``multiprocessing.spawn`` (Linux: ``/proc``).
        """
        pid = self.process.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        found = []
        for child in children:
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
            except FileNotFoundError:
                continue
            if b"multiprocessing.spawn" in command and b"resource_tracker" not in command:
                found.append(int(child))
        return found

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


class Databases:
    """Fresh databases of one store, SQLite (``cluster`` ``None``) or PostgreSQL."""

    def __init__(self, folder: Path, cluster: Cluster | None = None) -> None:
        self.folder = folder
        self.cluster = cluster
        self._count = 0

    @property
    def kind(self) -> str:
        """``"sqlite"`` or ``"postgres"``."""
        return "sqlite" if self.cluster is None else "postgres"

    def new(self, name: str = "tables") -> Path | str:
        """A new, empty database: a SQLite file named after ``name``, or a URL."""
        self._count += 1
        if self.cluster is None:
            return self.folder / f"{name}-{self._count}.db"
        return self.cluster.new_database()

    def server(self, db: Path | str, *args: str, **options: Any) -> ServerProcess:
        """A server of ``db`` (``args``, ``options``: as ``ServerProcess``'s)."""
        self._count += 1
        options.setdefault("log", self.folder / f"server-{self._count}.log")
        return ServerProcess(db, *args, **options)
