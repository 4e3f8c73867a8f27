"""How ``chronomem ui`` is configured: the database, the owner, the address, the token.

The rules for who may connect are every door's (:mod:`chronomem._doors.access`), shared with
the MCP server rather than restated: a token always (``CHRONOMEM_TOKEN``, or one made at
start and carried by the printed URL), unless ``--no-token`` on loopback; any other address
needs ``CHRONOMEM_TOKEN`` and a token strong enough not to be guessed; and the Host header is
checked either way (DNS-rebinding protection). Only the database rule differs: the inspector
reads, so it never creates a file or a folder; a PostgreSQL DSN is taken as given (nothing is
created there either: see :mod:`chronomem.ui._sources`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from chronomem._doors.access import token_for
from chronomem._doors.arguments import HttpFlag, add_target_arguments
from chronomem._doors.settings import SettingsError, parse_http, resolve_db, resolve_owner

__all__ = ["DEFAULT_UI_PORT", "UiConfig", "UiConfigError", "add_ui_arguments", "config_from_args"]

DEFAULT_UI_PORT = 8766
"""One above the MCP server's default, so both can run side by side on one machine."""


_COOKIE = "a token: set CHRONOMEM_TOKEN and open the printed URL once (it sets a cookie)"


class UiConfigError(SettingsError):
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
    token_generated: bool = False
    """Whether ``token`` was made at start (the printed URL carries it) rather than given."""
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
    address = f"127.0.0.1:{DEFAULT_UI_PORT}"
    add_target_arguments(
        parser, http=HttpFlag(purpose="address to serve", example=address, default=address)
    )


def config_from_args(args: argparse.Namespace, environ: Mapping[str, str]) -> UiConfig:
    """Build a :class:`UiConfig`; refuse an empty owner, an exposed bind without a strong
    token, and a database file that does not exist (reading creates nothing). Without
    ``CHRONOMEM_TOKEN`` a token is made now, unless ``--no-token`` (loopback only)."""
    try:
        owner = resolve_owner(args.owner, environ)
        host, port = parse_http(args.http)
        token = token_for(host, environ, how=_COOKIE, no_token=args.no_token)
        db = resolve_db(args.db, environ)
    except SettingsError as e:
        raise UiConfigError(str(e)) from None
    if isinstance(db, Path) and not os.path.exists(db):
        raise UiConfigError(f"{db}: not found (the inspector reads an existing memory)")
    return UiConfig(
        db=db,
        owner=owner,
        host=host,
        port=port,
        token=None if token is None else token.value,
        token_generated=token is not None and token.generated,
        allowed_hosts=tuple(args.allow_host),
    )
