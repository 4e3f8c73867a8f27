"""The target flags every door takes, declared once: ``--db``, ``--owner`` and, for a door
served over HTTP, ``--http`` with ``--allow-host`` and ``--no-token``.

The same help in every door, and the same refusal of an empty ``--owner`` at parse time (an
argparse usage error, exit code 2); ``CHRONOMEM_OWNER=`` is refused by
:func:`~chronomem._doors.settings.resolve_owner` with the same rule.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from .access import NO_TOKEN_FLAG
from .settings import DEFAULT_DB, DEFAULT_OWNER, check_owner

__all__ = ["HttpFlag", "add_target_arguments"]


@dataclass(frozen=True, kw_only=True)
class HttpFlag:
    """How a door served over HTTP describes its ``--http``: what it serves and its default."""

    purpose: str
    """The help's opening words, e.g. ``serve streamable HTTP instead of stdio``."""
    example: str
    """The address shown in the help (the default, when there is one)."""
    default: str | None = None


def _owner(text: str) -> str:
    try:
        return check_owner(text)
    except ValueError as e:  # argparse shows an ArgumentTypeError's words as the reason
        raise argparse.ArgumentTypeError(str(e)) from None


_owner.__name__ = "owner"  # named in argparse's message for any other error


def add_target_arguments(parser: argparse.ArgumentParser, *, http: HttpFlag | None = None) -> None:
    """Add ``--db`` and ``--owner`` to ``parser`` (and ``--http``, ``--allow-host``,
    ``--no-token`` if given ``http``): the database and owner resolve through
    :mod:`~chronomem._doors.settings`, the token through :mod:`~chronomem._doors.access`."""
    parser.add_argument(
        "--db",
        help=f"SQLite file or postgresql:// DSN (env CHRONOMEM_DB, default {DEFAULT_DB})",
    )
    parser.add_argument(
        "--owner",
        type=_owner,
        help=f"whose memory (env CHRONOMEM_OWNER, default {DEFAULT_OWNER!r})",
    )
    if http is None:
        return
    default = f"default {http.default}" if http.default else f"e.g. {http.example}"
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=http.default,
        help=f"{http.purpose} ({default}); clients need a token: CHRONOMEM_TOKEN, or the "
        "one printed at start; a non-loopback HOST needs CHRONOMEM_TOKEN",
    )
    parser.add_argument(
        NO_TOKEN_FLAG,
        action="store_true",
        help="serve without a token, on loopback only: every account on this machine can "
        "then read this memory through the port",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="extra Host header value accepted over HTTP (DNS-rebinding protection stays on)",
    )
