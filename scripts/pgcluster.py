"""A throwaway PostgreSQL cluster for tests and benchmarks.

Started from the machine's server binaries (`initdb`, `pg_ctl`) in a temporary
directory with a UTF-8 locale, listening only on a Unix socket and a loopback
port, and removed when the context ends. As root, the server runs as the
`postgres` system user, because PostgreSQL refuses to run as root.

`standby()` adds a streaming replica of such a cluster (pg_basebackup -R from
the primary, started read-only with hot_standby on another port), so that the
read-replica routing is tested against a real standby, not a mock.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit


def find_bin_dir() -> Path | None:
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


def _utf8_locale() -> str:
    """A UTF-8 locale that classifies CJK characters as letters (pg_trgm needs it)."""
    available = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.split()
    for wanted in ("en_US.utf8", "en_US.UTF-8", "C.utf8", "C.UTF-8"):
        if wanted in available:
            return wanted
    return "C.UTF-8"


@contextlib.contextmanager
def cluster(database: str = "archive", also: Sequence[str] = (), over_socket: bool = False,
            settings: Sequence[str] = ()) -> Iterator[str]:
    """Yield a DATABASE_URL of a new, empty database in a private cluster (with the databases `also`, empty too).

    `settings` are more server settings, each as `name=value`.

    Over TCP on 127.0.0.1, or with `over_socket` through the cluster's Unix socket, which answers each
    statement sooner (the test suite's runs).
    """
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) were not found.")
    root = Path(tempfile.mkdtemp(prefix="archive-pg-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sockets, "postgres")
    port = _free_port()
    locale = _utf8_locale()
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.STDOUT}
    try:
        subprocess.run(
            _as_server_user(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(data),
                    "-E",
                    "UTF8",
                    f"--locale={locale}",
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--no-sync",
                ]
            ),
            check=True,
            **quiet,
        )
        options = f"-k {sockets} -p {port} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        options += "".join(f" -c {setting}" for setting in settings)
        subprocess.run(
            _as_server_user(
                [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"]
            ),
            check=True,
            **quiet,
        )
        for name in (database, *also):
            subprocess.run(
                _as_server_user(
                    [str(bin_dir / "createdb"), "-h", str(sockets), "-p", str(port), "-U", "postgres", name]
                ),
                check=True,
                **quiet,
            )
        host = quote(str(sockets), safe="") if over_socket else "127.0.0.1"
        yield f"postgres://postgres@{host}:{port}/{database}"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                _as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]), **quiet
            )
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Standby:
    """A running streaming replica: its DATABASE_URL, and a way to stop it early."""

    url: str
    data: Path
    bin_dir: Path

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(
                _as_server_user([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"]),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                timeout=60,
            )


@contextlib.contextmanager
def standby(primary_url: str, timeout: float = 120) -> Iterator[Standby]:
    """Yield a hot standby that streams from the cluster at ``primary_url``.

    The primary must be one of ours (trust authentication, whose default
    pg_hba.conf admits replication connections from loopback).
    """
    bin_dir = find_bin_dir()
    if bin_dir is None or not (bin_dir / "pg_basebackup").exists():
        raise RuntimeError("PostgreSQL server binaries (pg_basebackup, pg_ctl) were not found.")
    primary = urlsplit(primary_url)
    root = Path(tempfile.mkdtemp(prefix="archive-pg-standby-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sockets, "postgres")
    port = _free_port()
    handle = Standby(url=primary._replace(netloc=f"postgres@127.0.0.1:{port}").geturl(), data=data, bin_dir=bin_dir)
    try:
        conninfo = f"host={primary.hostname} port={primary.port} user={primary.username or 'postgres'}"
        backup = [str(bin_dir / "pg_basebackup"), "-d", conninfo, "-D", str(data)]
        subprocess.run(
            _as_server_user(
                [*backup, "--write-recovery-conf", "--wal-method=stream", "--checkpoint=fast", "--no-sync"]
            ),
            check=True,
            capture_output=True,
            timeout=timeout,
        )
        options = f"-k {sockets} -p {port} -c listen_addresses=127.0.0.1 -c hot_standby=on -c fsync=off"
        subprocess.run(
            _as_server_user(
                [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"]
            ),
            check=True,
            capture_output=True,
            timeout=timeout,
        )
        yield handle
    finally:
        handle.stop()
        shutil.rmtree(root, ignore_errors=True)
