"""A PostgreSQL server that lives in a temporary folder, for the tests and benchmarks/parallel_grading.py: the
server Debian's ``postgresql`` package installs (``/usr/lib/postgresql/<version>/bin``), started by ``initdb -A
trust`` and ``pg_ctl`` on a free port of 127.0.0.1 with its socket in the same folder, and removed when it stops.

``initdb`` and ``pg_ctl`` refuse to run as root: run as root, the server runs as the ``postgres`` user (the folder
is handed to it); run as anyone else, as that user. Either way the superuser is called ``postgres`` and trusts every
connection from this machine, so never point it at data worth keeping.

Usage::

    with ThrowawayPostgres() as server:
        url = server.create_database("gradebook")   # postgresql+psycopg2://postgres@127.0.0.1:PORT/gradebook
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

DEBIAN_SERVERS = Path("/usr/lib/postgresql")
SERVER_USER = "postgres"  # the OS user that runs the server when we are root; also the database superuser's name


class PostgresMissing(RuntimeError):
    """No PostgreSQL server binaries (initdb, pg_ctl) on this machine."""


def server_binaries() -> Path:
    """The folder holding initdb and pg_ctl: Debian's newest ``/usr/lib/postgresql/<version>/bin``, else the one
    on PATH. Raises PostgresMissing, saying how to install them, when there is none."""
    versions = sorted((p for p in DEBIAN_SERVERS.glob("*/bin") if (p / "initdb").exists()),
                      key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    if versions:
        return versions[-1]
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).parent
    raise PostgresMissing("no PostgreSQL server found (initdb and pg_ctl under /usr/lib/postgresql/*/bin or on PATH);"
                          " install Debian's: apt-get install postgresql")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ThrowawayPostgres:
    """One PostgreSQL server in a temporary folder; ``start`` and ``stop``, or use it as a context manager."""

    def __init__(self) -> None:
        self.binaries = server_binaries()
        self.folder: Path | None = None
        self.port: int | None = None

    def _run(self, *command: str) -> None:
        """Run a server binary, as the postgres user when we are root."""
        argv = [str(self.binaries / command[0]), *command[1:]]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", SERVER_USER, "--", *argv]
        result = subprocess.run(argv, capture_output=True, text=True)
        if result.returncode != 0:
            log = self.folder / "server.log" if self.folder else None
            extra = log.read_text() if log and log.exists() else ""
            raise RuntimeError(f"{' '.join(command[:2])} failed ({result.returncode}):\n"
                               f"{result.stdout}{result.stderr}{extra}")

    def start(self) -> "ThrowawayPostgres":
        self.folder = Path(tempfile.mkdtemp(prefix="attn-postgres-"))
        if os.geteuid() == 0:
            shutil.chown(self.folder, user=SERVER_USER)
        data = self.folder / "data"
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", SERVER_USER, "-E", "UTF8", "--no-sync")
        self.port = free_port()
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
                   " -c max_connections=200")
        self._run("pg_ctl", "-D", str(data), "-o", options, "-l", str(self.folder / "server.log"), "-w", "start")
        return self

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL nbgrader's ``CourseDirectory.db_url`` takes."""
        return f"postgresql+psycopg2://{SERVER_USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database; return its URL."""
        import psycopg2

        if not name.replace("_", "").isalnum():
            raise ValueError(f"database name: expected letters, digits and _, got {name!r}")
        connection = psycopg2.connect(host="127.0.0.1", port=self.port, user=SERVER_USER, dbname="postgres")
        connection.autocommit = True
        try:
            with connection.cursor() as cursor:
                cursor.execute(f'CREATE DATABASE "{name}"')
        finally:
            connection.close()
        return self.url(name)

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        if self.folder is None:
            return
        try:
            if (self.folder / "data" / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> "ThrowawayPostgres":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
