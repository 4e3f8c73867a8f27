"""Who may connect to a door served over HTTP: the rules the MCP server and the inspector share.

Every HTTP door wants a token, loopback included: a memory file is private (0600), but a port
on 127.0.0.1 is open to every account on the machine, so without a token another user who
cannot read the file would recall its secrets through the port. ``CHRONOMEM_TOKEN`` names
the token; without it the door makes one at start (32 random URL-safe characters, as Jupyter
does) and prints it: it is kept nowhere, so a restart makes a new one unless
``CHRONOMEM_TOKEN`` is set. ``--no-token`` serves without one, on loopback only, for a
machine with a single user. Off loopback the token must also be strong enough not to be
guessed, because anyone who can reach the port may try tokens as fast as the door answers.
Each door says how its clients present the token; the rule is one.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from .settings import SettingsError

__all__ = [
    "MIN_TOKEN_CHARS",
    "MIN_TOKEN_DISTINCT",
    "NO_TOKEN_FLAG",
    "TOKEN_ADVICE",
    "HttpToken",
    "check_token",
    "is_loopback",
    "token_for",
]

_LOOPBACK_NAMES = ("localhost",)

MIN_TOKEN_CHARS = 32
"""Shortest bearer token accepted on a network bind: 32 random URL-safe characters are about
190 bits, far beyond guessing; the memory behind it is private."""

MIN_TOKEN_DISTINCT = 10
"""Fewest different characters in such a token: "aaaa...a" or "1212...12" is long, not secret.
A random hex token of 32 digits has about 16."""

TOKEN_ADVICE = 'make one with: python -c "import secrets; print(secrets.token_urlsafe(32))"'
"""The end of every refusal: how to make a token that will be accepted."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (so HTTP on it needs no token)."""
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_token(token: str, host: str) -> None:
    """Refuse (:class:`SettingsError`) a token that could be guessed, for a bind other
    machines can reach."""
    problem = None
    if len(token) < MIN_TOKEN_CHARS:
        problem = f"is {len(token)} characters; at least {MIN_TOKEN_CHARS} are needed"
    elif len(set(token)) < MIN_TOKEN_DISTINCT:
        problem = (
            f"uses only {len(set(token))} different characters; "
            f"a random token uses at least {MIN_TOKEN_DISTINCT}"
        )
    if problem:
        raise SettingsError(
            f"refusing to serve on non-loopback address {host!r}: CHRONOMEM_TOKEN {problem}, "
            f"so it could be guessed by anyone who reaches the port; {TOKEN_ADVICE}"
        )


NO_TOKEN_FLAG = "--no-token"
"""The flag that serves a loopback door without a token."""


@dataclass(frozen=True)
class HttpToken:
    """The token a door wants, and whether it was made at start (so the door prints it)."""

    value: str
    generated: bool = False


def token_for(
    host: str, environ: Mapping[str, str], *, how: str, no_token: bool = False
) -> HttpToken | None:
    """The token a door bound to ``host`` requires: ``CHRONOMEM_TOKEN``, or one made now;
    ``None`` only with ``no_token`` on loopback.

    Off loopback a missing or guessable token is refused (:class:`SettingsError`), and so is
    ``no_token``; ``how`` completes "without ..." with what the door's clients need to know,
    e.g. ``"a bearer token: set CHRONOMEM_TOKEN (clients send ...)"``. On loopback a token
    given is taken as it is (a weak one is the user's own business).
    """
    given = environ.get("CHRONOMEM_TOKEN") or None
    if no_token:
        if given is not None:
            raise SettingsError(f"{NO_TOKEN_FLAG} and CHRONOMEM_TOKEN contradict each other")
        if not is_loopback(host):
            raise SettingsError(
                f"refusing {NO_TOKEN_FLAG} on non-loopback address {host!r}: anyone who "
                f"reaches the port would read this memory; serve {how}"
            )
        return None
    if given is None:
        if not is_loopback(host):
            raise SettingsError(
                f"refusing to serve on non-loopback address {host!r} without {how}; {TOKEN_ADVICE}"
            )
        return HttpToken(secrets.token_urlsafe(32), generated=True)
    if not is_loopback(host):
        check_token(given, host)
    return HttpToken(given)
