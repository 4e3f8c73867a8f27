"""Where the database and the owner come from, for every way in.

One place decides this for every ``chronomem`` command and for ``python -m chronomem.server``:
a flag wins, then the environment (``CHRONOMEM_DB``, ``CHRONOMEM_OWNER``), then the default.
Nothing here imports the MCP SDK, so commands other than ``serve`` start fast, and the server
reads its database and owner exactly as the command line does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from chronomem.engine.storage import is_postgres

if TYPE_CHECKING:
    from chronica.stores.postgres import PostgresStore
    from chronica.stores.sqlite import SQLiteStore

__all__ = [
    "DEFAULT_DB",
    "DEFAULT_OWNER",
    "Target",
    "is_dsn",
    "make_private_folders",
    "open_session_store",
    "resolve_db",
    "resolve_owner",
]

Target = Path | str
"""A SQLite file (a ``Path``), or a PostgreSQL database (a ``postgresql://`` DSN)."""


DEFAULT_DB = "~/.chronomem/memory.db"
"""Where the command line and the server keep the memory unless told otherwise."""

DEFAULT_OWNER = "default"
"""Whose memory it is unless told otherwise: the same owner ``ChronoMem(path)`` uses, so a
fact written from Python is found by the command line and the server on the same file."""


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
    """
    raw = value if value is not None else environ.get("CHRONOMEM_DB") or DEFAULT_DB
    if is_dsn(raw):
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
    """The owner: flag, then ``CHRONOMEM_OWNER``, then the library's default owner."""
    return value or environ.get("CHRONOMEM_OWNER") or DEFAULT_OWNER


def open_session_store(db: Target) -> SQLiteStore | PostgresStore:
    """chronica's store on the same database as the memory: the file itself, or the same
    PostgreSQL database (chronica's tables in its own ``chronica`` schema)."""
    if isinstance(db, str):
        from chronica.stores.postgres import PostgresStore

        return PostgresStore(db)
    from chronica.stores.sqlite import SQLiteStore

    return SQLiteStore(db)
