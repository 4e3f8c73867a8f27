"""The dinner-booking session from the chronica design note, end to end.

Run it with ``python -m chronica.demo`` (or ``make demo``). One human and three agents share
one chronicum; each agent reads back only the window it needs; a retried reply is stored
once; a stranger is refused.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ._chronicarius import Chronicarius
from ._errors import ChronicumNotFoundError
from ._model import ActorKind, Actum, ActumKind
from .store import Store
from .stores.inmemory import InMemoryStore

__all__ = ["run"]

OWNER = "ardian"
SESSION = "dinner-friday"


def _say(
    chronicarius: Chronicarius,
    actor_kind: ActorKind,
    actor: str,
    kind: ActumKind,
    content: str,
    **extra: object,
) -> Actum:
    metadata = extra.pop("metadata", {})
    key = extra.pop("idempotency_key", None)
    actum = Actum(
        chronicum_id=SESSION,
        kind=kind,
        actor_kind=actor_kind,
        actor=actor,
        content=content,
        metadata=metadata,  # type: ignore[arg-type]  # demo passes plain dicts
    )
    return chronicarius.record_actum(OWNER, actum, idempotency_key=key)  # type: ignore[arg-type]


def _show(title: str, acta: list[Actum], out: Callable[[str], None]) -> None:
    out(f"\n  {title} ({len(acta)} acta)")
    for actum in acta:
        text = actum.content or f"<{actum.metadata.get('tool', 'empty')}>"
        out(f"    {actum.actor:<10} {actum.kind.value:<13} {text}")


def run(store: Store | None = None, out: Callable[[str], None] = print) -> None:
    """Play the dinner scenario against ``store`` (a fresh in-memory store by default)."""
    c = Chronicarius(store if store is not None else InMemoryStore())
    out(f"chronica: one session ({SESSION!r}) shared by a human and three agents")
    h, a, s = ActorKind.HUMAN, ActorKind.AGENT, ActorKind.SYSTEM
    msg, thought = ActumKind.MESSAGE, ActumKind.THOUGHT
    request, response = ActumKind.TOOL_REQUEST, ActumKind.TOOL_RESPONSE

    _say(c, s, "system", msg, "Session opened for ardian.")
    _say(c, h, OWNER, msg, "Find us a quiet table for four in Kemang on Friday at 7pm.")
    _say(c, a, "concierge", thought, "Search first, then book the best quiet option.")
    _say(c, a, "concierge", msg, "On it: asking the search agent for quiet places in Kemang.")
    _say(c, a, "search", request, "", metadata={"tool": "places.search", "call_id": "s1"})
    _say(
        c,
        a,
        "search",
        response,
        "Kinara (quiet, 4.6), Sana Sini (garden, 4.4), Lucky Cat (loud)",
        metadata={"tool": "places.search", "call_id": "s1"},
    )
    _say(c, a, "search", msg, "Kinara and Sana Sini are quiet and take bookings for four.")
    _say(c, a, "booking", request, "Kinara, Fri 19:00, 4 people", metadata={"tool": "book"})
    _say(c, a, "booking", response, "confirmed #K-2291", metadata={"tool": "book"})
    first = _say(
        c,
        a,
        "booking",
        msg,
        "Booked Kinara, Friday 7pm, table for four (#K-2291).",
        idempotency_key="booking-reply-1",
    )
    # The booking agent timed out and retried with a regenerated reply: stored once.
    retry = _say(
        c,
        a,
        "booking",
        msg,
        "Your table at Kinara is booked for Friday at 19:00.",
        idempotency_key="booking-reply-1",
    )

    everything = c.get_acta(OWNER, SESSION)
    _show("The whole record, oldest first", everything, out)
    concierge = c.get_acta(
        OWNER, SESSION, last_n=4, actum_kinds=[msg, response], actor_kinds=[h, a]
    )
    _show("Concierge's window: last 4 messages and tool results, no thoughts", concierge, out)
    booking = c.get_acta(OWNER, SESSION, actum_kinds=[msg], actor_kinds=[h])
    _show("Booking agent's window: only what the human asked", booking, out)

    out(
        f"\n  Retried reply stored once: {retry.id == first.id} "
        f"(the retry returned the first reply: {retry.content!r})"
    )
    try:
        c.get_acta("mallory", SESSION)
    except ChronicumNotFoundError as e:
        out(f"  Another owner asking for the session is refused: {e}")


if __name__ == "__main__":
    run()
    sys.exit(0)
