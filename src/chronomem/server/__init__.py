"""The chronomem MCP server: the fact memory and the shared session record, as tools.

Run it with ``python -m chronomem.server`` (or ``chronomem serve``). It speaks stdio by
default, which is what Cursor, Claude Desktop and most agents expect, and streamable HTTP
with ``--http HOST:PORT``. The database is one SQLite file shared by the memory and the
session record (``--db`` / ``CHRONOMEM_DB``, default ``~/.chronomem/memory.db``).

The owner is server configuration (``--owner`` / ``CHRONOMEM_OWNER``), never a tool argument.
The pieces: :mod:`._config` (flags and environment), :mod:`._tools` (the tools),
:mod:`._output` (what they return), :mod:`._app` (lifespan, auth, transports).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from chronica import ChronicaError
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, ChronoMemError
from chronomem.cli._config import DEFAULT_DB

from ._app import build_server, serve
from ._config import ServerConfig, ServerConfigError, add_server_arguments, config_from_args

__all__ = [
    "DEFAULT_DB",
    "ServerConfig",
    "ServerConfigError",
    "add_server_arguments",
    "build_server",
    "config_from_args",
    "main",
    "serve",
]


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m chronomem.server") -> int:
    """Entry point of ``python -m chronomem.server`` and ``chronomem serve``; returns exit code."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="chronomem MCP server (stdio by default).",
        epilog=f"example: CHRONOMEM_DB=~/.chronomem/memory.db {prog}",
    )
    add_server_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config = config_from_args(args, os.environ)
    except (ServerConfigError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        _check_database(config)
    except (ChronoMemError, ChronicaError) as e:
        print(f"{prog}: cannot use {config.db}: {e}", file=sys.stderr)
        return 1
    serve(config)
    return 0


def _check_database(config: ServerConfig) -> None:
    """Open and close the file once, so a foreign or too-new file is a clear message at
    start rather than a traceback from inside the SDK's lifespan."""
    ChronoMem(config.db, owner=config.owner).close()
    SQLiteStore(config.db).close()
