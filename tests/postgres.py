"""A throwaway PostgreSQL server for the tests: initdb in a temporary folder, a unix socket.

``find_bin()`` finds the folder of ``initdb``, ``pg_ctl`` and ``postgres``: on ``PATH``,
else Debian's ``/usr/lib/postgresql/<major>/bin``. ``Cluster.start()`` makes a cluster
in a new temporary folder (trust authentication, no fsync, listening on a unix socket in
that folder only, no TCP) and starts it; ``new_database()`` creates an empty database and
returns its URL; ``stop()`` stops the server and removes the folder.
``Cluster(bin_dir, folder)`` is a handle on a server another process started in
``folder``. PostgreSQL refuses to run as root: as root the programs run as the user
``postgres`` (Debian's package makes it), which owns the folder.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

PROGRAMS = ("initdb", "pg_ctl", "postgres")
USER = "allegra"
"""The cluster's superuser, the user of every URL."""


def find_bin() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``, or ``None``."""
    found = shutil.which("initdb")
    candidates = [Path(found).resolve().parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for folder in candidates:
        if all((folder / name).exists() for name in PROGRAMS):
            return folder
    return None


def can_run_as_root() -> bool:
    """Whether root can run the programs: as the user ``postgres``, with ``runuser``."""
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return False
    return shutil.which("runuser") is not None


class Cluster:
    """A PostgreSQL server of the tests' own, in a temporary folder.

    ``Cluster(bin_dir)`` makes a new folder for a server that ``start()`` starts;
    ``Cluster(bin_dir, folder)`` names the folder of one already running (another test
    process's: the workers of one run share one server, see ``tests/conftest.py``).
    """

    def __init__(self, bin_dir: Path, folder: Path | None = None) -> None:
        self.bin = bin_dir
        self.dir = folder if folder is not None else Path(tempfile.mkdtemp(prefix="allegra-pg-"))
        self.data = self.dir / "data"
        self._names = itertools.count()
        self._as: list[str] = []
        if os.geteuid() == 0:
            if folder is None:
                owner = pwd.getpwnam("postgres")
                os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        subprocess.run(
            [*self._as, *args],
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=60,
        )

    def start(self, *, durable: bool = False) -> Cluster:
        """initdb and start the server (at most a minute); returns ``self``.

        Tests run without ``fsync`` (nothing they write must survive the machine);
        ``durable`` keeps PostgreSQL's own defaults, as a benchmark should.
        """
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        options = f"-k {self.dir} -c listen_addresses='' -c max_connections=400"
        if not durable:
            options += " -c fsync=off"
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.dir / "log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        return self

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this server (through its unix socket)."""
        return f"postgresql://{USER}@/{database}?host={self.dir}"

    def new_database(self) -> str:
        """Create an empty database; returns its URL."""
        import psycopg

        name = f"tables_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)
