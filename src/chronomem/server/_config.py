"""How the server is configured: its transport, its token and the hosts it answers.

The database and the owner are read exactly as the command line reads them
(:mod:`chronomem.cli._config`); this module adds what only a server needs. Nothing here
imports the MCP SDK, so a bad flag is a quick message.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from chronomem import ChronoMemError
from chronomem.cli._config import DEFAULT_DB, DEFAULT_OWNER, Target, resolve_db, resolve_owner

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_PORT",
    "DEFAULT_SESSION_IDLE",
    "MIN_TOKEN_CHARS",
    "ServerConfig",
    "ServerConfigError",
    "add_server_arguments",
    "check_token",
    "config_from_args",
    "is_loopback",
]

DEFAULT_PORT = 8765
_LOOPBACK_NAMES = ("localhost",)

MIN_TOKEN_CHARS = 32
"""Shortest bearer token accepted on a network bind: 32 random URL-safe characters are about
190 bits, far beyond guessing; the memory behind it is private."""

MIN_TOKEN_DISTINCT = 10
"""Fewest different characters in such a token: "aaaa...a" or "1212...12" is long, not secret.
A random hex token of 32 digits has about 16."""

DEFAULT_MAX_SESSIONS = 100
"""Open HTTP sessions at most: a personal memory has a handful of clients, and each session
held costs memory (1,500 abandoned ones grew the process by 59 MB)."""

DEFAULT_SESSION_IDLE = 900.0
"""Seconds a session may sit with no request in flight before it is closed. An open event
stream counts as activity, so a connected client is never cut off; an abandoned session is."""

TOKEN_ADVICE = 'make one with: python -c "import secrets; print(secrets.token_urlsafe(32))"'


class ServerConfigError(ChronoMemError, ValueError):
    """The server was asked to start in a way that is unsafe or impossible."""


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """Everything the server needs to start; built from flags and environment."""

    db: Target
    owner: str
    http: tuple[str, int] | None = None
    token: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    max_sessions: int = DEFAULT_MAX_SESSIONS
    session_idle: float = DEFAULT_SESSION_IDLE
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "WARNING"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (so HTTP on it needs no token)."""
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parse_http(value: str) -> tuple[str, int]:
    host, sep, port_text = value.rpartition(":")
    if not sep:
        host, port_text = "", value
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise ServerConfigError(f"--http expects HOST:PORT, got {value!r}") from None
    if not 0 < port < 65536:
        raise ServerConfigError(f"--http port must be 1-65535, got {port}")
    return host, port


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
    parser.add_argument(
        "--db",
        help=f"SQLite file or postgresql:// DSN (env CHRONOMEM_DB, default {DEFAULT_DB})",
    )
    parser.add_argument(
        "--owner", help=f"whose memory this is (env CHRONOMEM_OWNER, default {DEFAULT_OWNER!r})"
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help=f"serve streamable HTTP instead of stdio (e.g. 127.0.0.1:{DEFAULT_PORT}); "
        "a non-loopback HOST needs CHRONOMEM_TOKEN",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="extra Host header value accepted over HTTP (DNS-rebinding protection stays on)",
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


def check_token(token: str, host: str) -> None:
    """Refuse a bearer token that could be guessed, for a bind other machines can reach.

    Anyone who can reach the port may try tokens as fast as the server answers, so a short
    or repetitive one guards nothing.
    """
    problem = None
    if len(token) < MIN_TOKEN_CHARS:
        problem = f"is {len(token)} characters; at least {MIN_TOKEN_CHARS} are needed"
    elif len(set(token)) < MIN_TOKEN_DISTINCT:
        problem = (
            f"uses only {len(set(token))} different characters; "
            f"a random token uses at least {MIN_TOKEN_DISTINCT}"
        )
    if problem:
        raise ServerConfigError(
            f"refusing to serve on non-loopback address {host!r}: CHRONOMEM_TOKEN {problem}, "
            f"so it could be guessed by anyone who reaches the port; {TOKEN_ADVICE}"
        )


def config_from_args(args: argparse.Namespace, environ: Mapping[str, str]) -> ServerConfig:
    """Build a :class:`ServerConfig`; refuse an exposed HTTP bind without a strong token."""
    http = _parse_http(args.http) if args.http else None
    token = environ.get("CHRONOMEM_TOKEN") or None
    if http is not None and not is_loopback(http[0]):
        if token is None:
            raise ServerConfigError(
                f"refusing to serve on non-loopback address {http[0]!r} without a bearer token: "
                "set CHRONOMEM_TOKEN (clients send 'Authorization: Bearer <token>'); "
                + TOKEN_ADVICE
            )
        check_token(token, http[0])
    return ServerConfig(
        db=resolve_db(args.db, environ, create=True),  # the server writes
        owner=resolve_owner(args.owner, environ),
        http=http,
        token=token,
        allowed_hosts=tuple(args.allow_host),
        max_sessions=args.max_sessions,
        session_idle=args.session_idle,
        log_level=args.log_level,
    )
