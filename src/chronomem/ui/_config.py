"""How ``chronomem ui`` is configured: the database, the owner, the address, the token.

The rules for who may connect are the MCP server's (:mod:`chronomem.server._config`), reused
rather than restated: loopback needs nothing, any other address needs ``CHRONOMEM_TOKEN`` and
a token strong enough not to be guessed, and the Host header is checked either way
(DNS-rebinding protection). Only the database rule differs: the inspector reads, so it never
creates a file or a folder; a PostgreSQL DSN is taken as given (nothing is created there
either: see :mod:`chronomem.ui._sources`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from chronomem.cli._config import DEFAULT_DB, DEFAULT_OWNER, resolve_db, resolve_owner
from chronomem.server._config import (
    TOKEN_ADVICE,
    ServerConfigError,
    _parse_http,
    check_token,
    is_loopback,
)

__all__ = ["DEFAULT_UI_PORT", "UiConfig", "UiConfigError", "add_ui_arguments", "config_from_args"]

DEFAULT_UI_PORT = 8766
"""One above the MCP server's default, so both can run side by side on one machine."""


class UiConfigError(ServerConfigError):
    """The inspector was asked to start in a way that is unsafe or impossible."""


@dataclass(frozen=True, kw_only=True)
class UiConfig:
    """Everything the inspector needs to start; built from flags and environment."""

    db: Path | str
    """A SQLite file, or a ``postgresql://`` DSN."""
    owner: str
    host: str = "127.0.0.1"
    port: int = DEFAULT_UI_PORT
    token: str | None = None
    allowed_hosts: tuple[str, ...] = ()

    def allowed_host_names(self) -> frozenset[str]:
        """Host header names (without port) the inspector answers: DNS-rebinding protection.

        A page on another site that rebinds its own name to 127.0.0.1 still sends its own
        name as Host, so only names this machine is known by, the bound address and the
        names given with ``--allow-host`` get an answer.
        """
        names = {"127.0.0.1", "localhost", "::1"}
        if self.host not in ("0.0.0.0", "::"):
            names.add(self.host)
        names.update(self.allowed_hosts)
        return frozenset(n.lower() for n in names)


def add_ui_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the flags of ``chronomem ui`` to ``parser``."""
    parser.add_argument(
        "--db",
        help=f"SQLite file or postgresql:// DSN (env CHRONOMEM_DB, default {DEFAULT_DB})",
    )
    parser.add_argument(
        "--owner", help=f"whose memory (env CHRONOMEM_OWNER, default {DEFAULT_OWNER!r})"
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=f"127.0.0.1:{DEFAULT_UI_PORT}",
        help=f"address to serve (default 127.0.0.1:{DEFAULT_UI_PORT}); "
        "a non-loopback HOST needs CHRONOMEM_TOKEN",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="extra Host header value accepted (DNS-rebinding protection stays on)",
    )


def config_from_args(args: argparse.Namespace, environ: Mapping[str, str]) -> UiConfig:
    """Build a :class:`UiConfig`; refuse an exposed bind without a strong token, and a
    database file that does not exist (reading creates nothing)."""
    try:
        host, port = _parse_http(args.http)
    except ServerConfigError as e:
        raise UiConfigError(str(e)) from None
    token = environ.get("CHRONOMEM_TOKEN") or None
    if not is_loopback(host):
        if token is None:
            raise UiConfigError(
                f"refusing to serve on non-loopback address {host!r} without a token: set "
                "CHRONOMEM_TOKEN and open the printed URL once (it sets a cookie); " + TOKEN_ADVICE
            )
        try:
            check_token(token, host)
        except ServerConfigError as e:
            raise UiConfigError(str(e)) from None
    db = resolve_db(args.db, environ)
    if isinstance(db, Path) and not os.path.exists(db):
        raise UiConfigError(f"{db}: not found (the inspector reads an existing memory)")
    return UiConfig(
        db=db,
        owner=resolve_owner(args.owner, environ),
        host=host,
        port=port,
        token=token,
        allowed_hosts=tuple(args.allow_host),
    )
