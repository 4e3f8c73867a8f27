"""Where an ADK app's records live in chronica: owners and reserved chronicum IDs.

An ADK user's sessions are chronica under the owner ``adk:<app>:<user>``, one chronicum per
session ID, verbatim, so nothing else may live there. The app's bookkeeping (app and user
state, the lists of users and sessions) lives under a second owner, ``adk-app:<app>``. Names
are percent-encoded, so no app name or user ID can contain the ``:`` that separates them and
two different pairs never share an owner; a name too long for chronica (or for a chronomem
owner, which this package shares) becomes a SHA-256 digest under its own ``#`` spelling,
which no readable name can take.
"""

from __future__ import annotations

import hashlib
import json
from urllib.parse import quote

from chronica import ChronicaTypeError, InvalidArgumentError

__all__ = [
    "APP_STATE",
    "USERS",
    "app_owner_for",
    "owner_for",
    "sessions_list_for",
    "user_state_for",
]

MAX_NAME_CHARS = 200
"""Longest readable name; the tighter of chronica's IDs (256 characters) and chronomem's owners
(200 bytes; every readable name is ASCII)."""

APP_STATE = "app-state"
"""The app's state deltas (``app:`` keys), under the app's owner."""
USERS = "users"
"""One actum per user who ever created a session, under the app's owner."""


def _quoted(field: str, value: object) -> str:
    if not isinstance(value, str):
        raise ChronicaTypeError(field, "str", value)
    try:
        return quote(value, safe="")
    except UnicodeEncodeError:
        raise InvalidArgumentError(field, "contains a lone surrogate") from None


def _name(prefix: str, fields: dict[str, object]) -> str:
    parts = [_quoted(field, value) for field, value in fields.items()]
    readable = ":".join([prefix, *parts])
    if len(readable) <= MAX_NAME_CHARS:
        return readable
    digest = hashlib.sha256(json.dumps(list(fields.values())).encode()).hexdigest()
    return f"{prefix}#{digest}"


def owner_for(app_name: str, user_id: str) -> str:
    """The chronica owner (and chronomem owner) of one ADK user's sessions in one app.

    ``owner_for("trips", "ardian") == "adk:trips:ardian"``; read a session's acta with
    ``Chronicarius.get_acta(owner_for(app, user), session_id)``.
    """
    return _name("adk", {"app_name": app_name, "user_id": user_id})


def app_owner_for(app_name: str) -> str:
    """The chronica owner of one ADK app's bookkeeping: its state and its lists."""
    return _name("adk-app", {"app_name": app_name})


def sessions_list_for(user_id: str) -> str:
    """The chronicum (under the app's owner) listing a user's session creations."""
    return _name("sessions", {"user_id": user_id})


def user_state_for(user_id: str) -> str:
    """The chronicum (under the app's owner) of a user's state deltas (``user:`` keys)."""
    return _name("user-state", {"user_id": user_id})
