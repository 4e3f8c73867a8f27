"""The chronomem MCP server: the fact memory and the shared session record, as tools.

Run it with ``python -m chronomem.server`` (or ``chronomem serve``). It speaks stdio by
default, which is what Cursor, Claude Desktop and most agents expect, and streamable HTTP
with ``--http HOST:PORT``. The database is one SQLite file shared by the memory and the
session record (``--db`` / ``CHRONOMEM_DB``, default ``~/.chronomem/memory.db``).

The owner is server configuration (``--owner`` / ``CHRONOMEM_OWNER``), never a tool argument.
The pieces: :mod:`._config` (flags and environment), :mod:`._tools` (the tools),
:mod:`._output` (what they return), :mod:`._state` (what a running server holds),
:mod:`._app` (auth, transports), :mod:`._stdio` (stdio that answers every request),
:mod:`._confirm` (the user confirms a forget, when the client can ask), :mod:`._icons`.

The MCP SDK is the ``mcp`` extra. This module imports it only when a server is built, so
without the extra ``chronomem serve`` says what to install instead of failing on an import.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from chronica import ChronicaError
from chronomem import ChronoMem, ChronoMemError
from chronomem._doors.blas import one_blas_thread
from chronomem._doors.settings import DEFAULT_DB, open_session_store, shown, without_password

from ._config import ServerConfig, ServerConfigError, add_server_arguments, config_from_args

if TYPE_CHECKING:
    from ._app import build_server, serve

__all__ = [
    "DEFAULT_DB",
    "MCP_EXTRA",
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
    one_blas_thread()  # before numpy loads: see chronomem._doors.blas
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
        from ._app import serve
    except ModuleNotFoundError as e:
        if not _is_the_sdk(e):
            raise
        print(f"{prog}: the MCP server needs the MCP SDK: {MCP_EXTRA}", file=sys.stderr)
        return 2
    try:
        _check_database(config)
    except (ChronoMemError, ChronicaError) as e:
        # A driver's message may quote the DSN, password and all: blanked, as the name is.
        reason = without_password(str(e), config.db)
        print(f"{prog}: cannot use {shown(config.db)}: {reason}", file=sys.stderr)
        return 1
    serve(config)
    return 0


MCP_EXTRA = "pip install 'chronomem[mcp]'"
"""How to install what the server needs."""

_SDK_PACKAGES = frozenset({"mcp", "mcp_types", "pydantic", "anyio", "starlette", "uvicorn"})


def _is_the_sdk(error: ModuleNotFoundError) -> bool:
    """Whether the missing module is the SDK or one of its own dependencies (not our bug)."""
    return (error.name or "").partition(".")[0] in _SDK_PACKAGES


def __getattr__(name: str) -> Any:
    # build_server and serve need the SDK: imported on first use, not with this package.
    if name in ("build_server", "serve"):
        from . import _app

        return getattr(_app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _check_database(config: ServerConfig) -> None:
    """Open and close the file once, so a foreign or too-new file is a clear message at
    start rather than a traceback from inside the SDK's lifespan."""
    ChronoMem(config.db, owner=config.owner).close()
    open_session_store(config.db).close()
