"""Who may connect to a door served over HTTP: the rules the MCP server and the inspector share.

Loopback needs nothing; any other address needs ``CHRONOMEM_TOKEN``, and a token strong
enough not to be guessed, because anyone who can reach the port may try tokens as fast as the
door answers. Each door says how its clients present the token; the rule is one.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from .settings import SettingsError

__all__ = [
    "MIN_TOKEN_CHARS",
    "MIN_TOKEN_DISTINCT",
    "TOKEN_ADVICE",
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


def token_for(host: str, environ: Mapping[str, str], *, how: str) -> str | None:
    """The token (``CHRONOMEM_TOKEN``) a door bound to ``host`` requires, or ``None``.

    Off loopback a missing or guessable token is refused (:class:`SettingsError`); ``how``
    completes "without ..." with what the door's clients need to know, e.g. ``"a bearer token:
    set CHRONOMEM_TOKEN (clients send ...)"``. On loopback a token is optional, so a weak one
    is the user's own business.
    """
    token = environ.get("CHRONOMEM_TOKEN") or None
    if is_loopback(host):
        return token
    if token is None:
        raise SettingsError(
            f"refusing to serve on non-loopback address {host!r} without {how}; {TOKEN_ADVICE}"
        )
    check_token(token, host)
    return token
