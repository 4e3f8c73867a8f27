"""A throwaway PostgreSQL server for tests and benchmarks: initdb + pg_ctl in a temp dir.

The server listens only on a Unix socket inside its own directory, so it needs no free
port and cannot collide with anything. ``initdb`` refuses to run as root, so as root the
directory is handed to the ``postgres`` user and every server command runs through
``runuser -u postgres --``. Failing to start raises :class:`PGServerError` with the
server's log: callers must let it fail the run, never turn it into a skip.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

__all__ = ["PGServerError", "dsn_url", "find_bindir", "throwaway_server", "with_dbname"]

_PORT = 5432  # only names the socket file; the socket lives in a private directory


class PGServerError(RuntimeError):
    """The throwaway server could not be found or started."""


def find_bindir() -> Path:
    """Locate ``initdb`` / ``pg_ctl``: ``pg_config --bindir``, else the newest Debian layout."""
    candidates: list[str] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True
            )
            candidates.append(out.stdout.strip())
        except (OSError, subprocess.CalledProcessError):
            pass
    found = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += sorted(found, key=lambda p: int(Path(p).parent.name), reverse=True)
    for candidate in candidates:
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    raise PGServerError(
        "no PostgreSQL server binaries (initdb, pg_ctl) found via pg_config --bindir or "
        "/usr/lib/postgresql/*/bin; install postgresql or set CHRONICA_TEST_PG_DSN"
    )


def _as_server_user(argv: Sequence[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *argv]
    return list(argv)


def _run(argv: Sequence[str], log: Path) -> None:
    result = subprocess.run(
        _as_server_user(argv), capture_output=True, text=True, timeout=120, check=False
    )
    if result.returncode != 0:
        server_log = log.read_text(errors="replace") if log.exists() else ""
        raise PGServerError(
            f"{' '.join(argv)} failed ({result.returncode}):\n{result.stdout}\n"
            f"{result.stderr}\n{server_log}"
        )


@contextmanager
def throwaway_server(
    settings: dict[str, str] | None = None, *, prefix: str = "chronica-pg-"
) -> Iterator[str]:
    """Start a private server, yield its DSN, and stop and delete it afterwards.

    ``settings`` become ``-c name=value`` server options (tests turn fsync off for speed).
    """
    bindir = find_bindir()
    root = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    root.chmod(0o755)  # the postgres user must be able to traverse it
    if os.geteuid() == 0:
        shutil.chown(root, user="postgres", group="postgres")
    data, log = root / "data", root / "server.log"
    user = "postgres" if os.geteuid() == 0 else _current_user()
    options = {"listen_addresses": "''", "unix_socket_directories": f"'{root}'"}
    options |= {"port": str(_PORT), "max_connections": "200", **(settings or {})}
    started = False
    try:
        _run(
            [str(bindir / "initdb"), "-D", str(data), "-U", user, "--auth=trust", "-E", "UTF8"],
            log,
        )
        opts = " ".join(f"-c {name}={value}" for name, value in options.items())
        _run(
            [str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", opts, "-w", "start"],
            log,
        )
        started = True
        yield f"host={root} port={_PORT} user={user} dbname=postgres"
    finally:
        if started:
            _run([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], log)
        shutil.rmtree(root, ignore_errors=True)


def _current_user() -> str:
    import getpass

    return getpass.getuser()


def dsn_url(dsn: str) -> str:
    """``dsn`` (a URL or ``key=value`` pairs) as the ``postgresql://`` URL ``ChronoMem`` takes."""
    if dsn.startswith(("postgresql://", "postgres://")):
        return dsn
    import psycopg.conninfo  # only where a server is used: the module itself needs no driver

    params = {k: str(v) for k, v in psycopg.conninfo.conninfo_to_dict(dsn).items()}
    return "postgresql://?" + urllib.parse.urlencode(params)


def with_dbname(url: str, dbname: str) -> str:
    """``url`` (as :func:`dsn_url` makes it) naming database ``dbname`` instead."""
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    query["dbname"] = dbname
    # Built by hand: urlunsplit drops the "//" of a URL with an empty host (a socket path).
    return f"{parts.scheme}://{parts.netloc}{parts.path}?{urllib.parse.urlencode(query)}"
