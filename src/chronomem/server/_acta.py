"""How much of a session ``chronica_get_acta`` hands a model: a window, never the whole.

With ``last_n=0`` meaning "all", the tool once returned a 100,000-acta session whole (68 MB,
+227 MB in the server). A model's context holds a few hundred turns at most, so the default
is the last :data:`DEFAULT_LAST_N`; asked for more, the reply still stops at
:data:`MAX_ACTA` acta and about :data:`MAX_REPLY_CHARS` characters of content and
metadata, keeping the newest, and says so in its ``note`` with what to ask instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from chronica import Actum

__all__ = ["DEFAULT_LAST_N", "MAX_ACTA", "MAX_REPLY_CHARS", "fetch_size", "window"]

DEFAULT_LAST_N = 50
"""The acta a call without ``last_n`` returns: a conversation's recent turns."""

MAX_ACTA = 1000
"""The most acta one reply holds, whatever ``last_n`` asks (``0`` included)."""

MAX_REPLY_CHARS = 2_000_000
"""About the most content and metadata one reply carries: two of chronica's largest acta
(1 MiB each), so the newest actum always fits whole."""


def fetch_size(last_n: int) -> int:
    """The ``last_n`` to ask the store for: what the caller asked, within :data:`MAX_ACTA`,
    and one more when that limit applies, to learn whether older acta were left out."""
    return MAX_ACTA + 1 if last_n == 0 or last_n > MAX_ACTA else last_n


def _size(actum: Actum) -> int:
    return len(actum.content) + len(json.dumps(dict(actum.metadata), default=str))


def window(acta: Sequence[Actum], last_n: int) -> tuple[list[Actum], str | None]:
    """The newest of ``acta`` (oldest first) that fit one reply, and a note if any were left
    out for size (``None`` when the reply is what was asked)."""
    kept = list(acta[-MAX_ACTA:])
    total = 0
    for i in range(len(kept) - 1, -1, -1):
        total += _size(kept[i])
        if total > MAX_REPLY_CHARS and i < len(kept) - 1:
            kept = kept[i + 1 :]
            break
    if len(kept) == len(acta):
        return kept, None
    more = "more" if len(acta) > MAX_ACTA else f"{len(acta) - len(kept)} more"
    why = (
        f"at most {MAX_ACTA} acta"
        if len(kept) == MAX_ACTA
        else f"about {MAX_REPLY_CHARS:,} characters"
    )
    return kept, (
        f"truncated: the {len(kept)} most recent acta (a reply holds {why}); {more} older "
        f"acta of this window were left out (asked last_n={last_n}); ask with a smaller "
        "last_n, or kinds/actor_kinds, for a narrower window"
    )
