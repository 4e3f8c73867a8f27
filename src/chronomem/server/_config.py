"""How the server is configured: its transport, its token and the hosts it answers.

The database, the owner, ``--http`` and who may connect are read as every door reads them
(:mod:`chronomem._doors`); this module adds what only a server needs. Nothing here imports the
MCP SDK, so a bad flag is a quick message.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from chronomem._doors.access import HttpToken, token_for
from chronomem._doors.arguments import HttpFlag, add_target_arguments
from chronomem._doors.settings import SettingsError, Target, parse_http, resolve_db, resolve_owner

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_PORT",
    "DEFAULT_SESSION_IDLE",
    "ServerConfig",
    "ServerConfigError",
    "add_server_arguments",
    "config_from_args",
]

DEFAULT_PORT = 8765
"""The MCP server's port in examples; the inspector's default is one above it."""

DEFAULT_MAX_SESSIONS = 100
"""Open HTTP sessions at most: a personal memory has a handful of clients, and each session
held costs memory (1,500 abandoned ones grew the process by 59 MB)."""

DEFAULT_SESSION_IDLE = 900.0
"""Seconds a session may sit with no request in flight before it is closed. An open event
stream counts as activity, so a connected client is never cut off; an abandoned session is."""

_BEARER = "a bearer token: set CHRONOMEM_TOKEN (clients send 'Authorization: Bearer <token>')"


class ServerConfigError(SettingsError):
    """The server was asked to start in a way that is unsafe or impossible."""


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """Everything the server needs to start; built from flags and environment."""

    db: Target
    owner: str
    http: tuple[str, int] | None = None
    token: str | None = None
    token_generated: bool = False
    """Whether ``token`` was made at start (and is printed then) rather than given."""
    allowed_hosts: tuple[str, ...] = ()
    max_sessions: int = DEFAULT_MAX_SESSIONS
    session_idle: float = DEFAULT_SESSION_IDLE
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "WARNING"


def _positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    """An argparse type: a finite number above zero (argparse turns the error into usage)."""

    def parse(text: str) -> float:
        value = kind(text)
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"must be a number above 0, got {text!r}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its message
    return parse


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the flags of ``chronomem serve`` / ``python -m chronomem.server`` to ``parser``."""
    add_target_arguments(
        parser,
        http=HttpFlag(
            purpose="serve streamable HTTP instead of stdio", example=f"127.0.0.1:{DEFAULT_PORT}"
        ),
    )
    parser.add_argument(
        "--max-sessions",
        type=_positive(int),
        default=DEFAULT_MAX_SESSIONS,
        metavar="N",
        help=f"HTTP sessions open at once; more are refused with 503 ({DEFAULT_MAX_SESSIONS})",
    )
    parser.add_argument(
        "--session-idle",
        type=_positive(float),
        default=DEFAULT_SESSION_IDLE,
        metavar="SECONDS",
        help="close an HTTP session idle this long; an open event stream is not idle "
        f"({DEFAULT_SESSION_IDLE:.0f})",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
        help="server log level on stderr (default WARNING)",
    )


def config_from_args(args: argparse.Namespace, environ: Mapping[str, str]) -> ServerConfig:
    """Build a :class:`ServerConfig`; refuse an empty owner, and an exposed HTTP bind without
    a strong token. HTTP without ``CHRONOMEM_TOKEN`` gets a token made now, unless
    ``--no-token`` (loopback only) says to serve without one."""
    try:
        owner = resolve_owner(args.owner, environ)
        http = parse_http(args.http) if args.http else None
        if http is None:
            if args.no_token:
                raise SettingsError("--no-token is for HTTP (--http HOST:PORT)")
            token = (
                HttpToken(environ["CHRONOMEM_TOKEN"]) if environ.get("CHRONOMEM_TOKEN") else None
            )
        else:
            token = token_for(http[0], environ, how=_BEARER, no_token=args.no_token)
        db = resolve_db(args.db, environ, create=True)  # the server writes
    except SettingsError as e:
        raise ServerConfigError(str(e)) from None
    return ServerConfig(
        db=db,
        owner=owner,
        http=http,
        token=None if token is None else token.value,
        token_generated=token is not None and token.generated,
        allowed_hosts=tuple(args.allow_host),
        max_sessions=args.max_sessions,
        session_idle=args.session_idle,
        log_level=args.log_level,
    )
