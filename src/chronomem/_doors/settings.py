"""Where a door's database and owner come from, and how the database is named on screen.

One place decides this for every ``chronomem`` command, ``chronomem serve`` and
``chronomem ui``: a flag wins, then the environment (``CHRONOMEM_DB``, ``CHRONOMEM_OWNER``),
then the default. An owner is checked by the library's own rule, so ``--owner ""`` is refused
here as ``ChronoMem(owner="")`` refuses it, instead of quietly reading the default owner's
memory. A PostgreSQL password never reaches the screen: :func:`shown` names a database
without it and :func:`without_password` cleans a message that may quote it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from chronomem import ChronoMemError
from chronomem._checks import check_owner
from chronomem.engine.storage import POSTGRES_EXTRA, has_postgres_driver, is_postgres

if TYPE_CHECKING:
    from chronica.stores.postgres import PostgresStore
    from chronica.stores.sqlite import SQLiteStore

__all__ = [
    "DEFAULT_DB",
    "DEFAULT_OWNER",
    "SettingsError",
    "Target",
    "check_owner",
    "is_dsn",
    "make_private_folders",
    "open_session_store",
    "parse_http",
    "resolve_db",
    "resolve_owner",
    "shown",
    "without_password",
]

Target = Path | str
"""A SQLite file (a ``Path``), or a PostgreSQL database (a ``postgresql://`` DSN)."""

DEFAULT_DB = "~/.chronomem/memory.db"
"""Where the command line and the server keep the memory unless told otherwise."""

DEFAULT_OWNER = "default"
"""Whose memory it is unless told otherwise: the same owner ``ChronoMem(path)`` uses, so a
fact written from Python is found by the command line and the server on the same file."""


class SettingsError(ChronoMemError, ValueError):
    """A door was asked to start in a way that is unsafe or impossible (a usage error)."""


def is_dsn(value: object) -> bool:
    """Whether ``value`` is a PostgreSQL URL rather than a file name (as ``ChronoMem`` tells)."""
    return isinstance(value, str) and is_postgres(value)


def resolve_db(
    value: str | os.PathLike[str] | None, environ: Mapping[str, str], *, create: bool = False
) -> Target:
    """The database: flag, then ``CHRONOMEM_DB``, then the default; a file path, or a
    ``postgresql://`` DSN kept as it was given.

    Only a caller that writes passes ``create``, which makes a file's missing folders
    (private to the user: a memory is personal); reading never creates anything.

    A DSN on an install without the ``postgres`` extra is refused here with
    :class:`SettingsError` saying so, before a door reaches for the driver: every command,
    the server and the inspector answer that one line, never ``ModuleNotFoundError``.
    """
    raw = value if value is not None else environ.get("CHRONOMEM_DB") or DEFAULT_DB
    if is_dsn(raw):
        if not has_postgres_driver():
            raise SettingsError(POSTGRES_EXTRA)
        return str(raw)
    path = Path(os.path.expanduser(os.fspath(raw)))
    if create:
        make_private_folders(path.parent)
    return path


def make_private_folders(folder: Path) -> None:
    """Create ``folder`` and any missing parents with mode 0700; existing ones are left as the
    user set them. (``mkdir(parents=True, mode=...)`` applies the mode to the last one only.)"""
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for each in reversed(missing):
        try:
            each.mkdir(mode=0o700)
        except FileExistsError:  # another process made it meanwhile
            continue


def resolve_owner(value: str | None, environ: Mapping[str, str]) -> str:
    """The owner: flag, then ``CHRONOMEM_OWNER``, then the library's default owner.

    A flag or a variable that is set but empty (``CHRONOMEM_OWNER=``) is refused with
    :class:`SettingsError`: it names no one, and reading the default owner's memory instead
    would show one person's memory to a caller who asked for another's.
    """
    if value is not None:
        where, raw = "--owner", value
    elif "CHRONOMEM_OWNER" in environ:
        where, raw = "CHRONOMEM_OWNER", environ["CHRONOMEM_OWNER"]
    else:
        return DEFAULT_OWNER
    try:
        return check_owner(raw)
    except ValueError as e:
        raise SettingsError(f"{where}: {e}") from None


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (or a bare ``PORT`` on 127.0.0.1; ``[::1]:PORT`` for IPv6) as a pair."""
    host, sep, port_text = value.rpartition(":")
    if not sep:
        host, port_text = "", value
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise SettingsError(f"--http expects HOST:PORT, got {value!r}") from None
    if not 0 < port < 65536:
        raise SettingsError(f"--http port must be 1-65535, got {port}")
    return host, port


def open_session_store(db: Target, *, read_only: bool = False) -> SQLiteStore | PostgresStore:
    """chronica's store on the same database as the memory: the file itself, or the same
    PostgreSQL database (chronica's tables in its own ``chronica`` schema). ``read_only``
    for a command that only reads: it creates no table (a memory-only database reads as
    holding no sessions) and writes nothing."""
    if isinstance(db, str):
        from chronica.stores.postgres import PostgresStore

        return PostgresStore(db, read_only=read_only)
    from chronica.stores.sqlite import SQLiteStore

    return SQLiteStore(db, read_only=read_only)


def shown(db: Target) -> str:
    """``db`` as a door prints it: the file, or the DSN without its password."""
    if not isinstance(db, str):
        return str(db)
    try:
        from chronomem.engine.postgres.db import redacted
    except ImportError:  # no driver to read the DSN with: name nothing in it
        return "a PostgreSQL database"
    return redacted(db)


def without_password(text: str, db: Target) -> str:
    """``text`` (an error about ``db``) with ``db``'s password, and ``db`` itself, blanked:
    for every message a door prints, whatever library wrote it."""
    if not isinstance(db, str):
        return text
    text = text.replace(db, shown(db))
    try:
        from chronomem.engine.postgres.db import scrubbed
    except ImportError:  # without the driver no message can quote the DSN's parts
        return text
    return scrubbed(text, db)
