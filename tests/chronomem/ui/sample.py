"""A small memory with every thing the inspector draws, for its tests and screenshots, on a
SQLite file or a PostgreSQL database (chronica's and chronomem's default schemas there).

One shared session (a human, three agents, the system; messages, thoughts, tool calls), an
older one, a session and facts holding hostile text, a supersede chain with a forgotten fact,
and an open contradiction. ``HOSTILE`` strings would run if any page rendered them as HTML;
each sets ``window.__pwned``, which the browser tests check stays unset.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from chronica import ActorKind, Actum, ActumKind, Chronicarius
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem

__all__ = ["HOSTILE", "OWNER", "SESSION", "Db", "fill", "session_store"]

Db = Path | str
"""Where the inspector reads: a SQLite file, or a ``postgresql://`` URL."""

OWNER = "ardian"
SESSION = "dinner-friday"
HOSTILE = (
    "<script>window.__pwned = 1</script>",
    '"><img src=x onerror="window.__pwned = 1">',
    "javascript:window.__pwned=1",
)

_T = ActumKind
_A = ActorKind
_DINNER: list[tuple[ActumKind, ActorKind, str, str, dict[str, str] | None]] = [
    (_T.MESSAGE, _A.HUMAN, "ardian", "Find us a quiet table for four in Kemang on Friday at 7pm.",
     None),
    (_T.THOUGHT, _A.AGENT, "concierge", "Quiet + four people: ask search for places with booths.",
     None),
    (_T.MESSAGE, _A.AGENT, "concierge", "On it: looking for quiet places in Kemang.", None),
    (_T.TOOL_REQUEST, _A.AGENT, "search", '{"area": "Kemang", "party": 4, "quiet": true}',
     {"tool": "search_restaurants", "call_id": "c1"}),
    (_T.TOOL_RESPONSE, _A.SYSTEM, "search_restaurants", '["Kinara", "Rumah Makan Sunda"]',
     {"tool": "search_restaurants", "call_id": "c1"}),
    (_T.MESSAGE, _A.AGENT, "search", "Kinara has booths and is quiet before 8pm.", None),
    (_T.TOOL_REQUEST, _A.AGENT, "booking", '{"venue": "Kinara", "time": "19:00", "party": 4}',
     {"tool": "book_table", "call_id": "c2"}),
    (_T.TOOL_RESPONSE, _A.SYSTEM, "book_table", '{"confirmation": "KIN-4471"}',
     {"tool": "book_table", "call_id": "c2"}),
    (_T.MESSAGE, _A.AGENT, "booking", "Booked Kinara, Friday 7pm, table for four (KIN-4471).",
     None),
    (_T.MESSAGE, _A.HUMAN, "ardian", "Perfect, thanks!", None),
]  # fmt: skip


def _actum(session: str, kind: ActumKind, actor_kind: ActorKind, actor: str, content: str,
           metadata: dict[str, str] | None = None) -> Actum:  # fmt: skip
    return Actum(chronicum_id=session, kind=kind, actor_kind=actor_kind, actor=actor,
                 content=content, metadata=metadata or {})  # fmt: skip


def session_store(db: Db) -> SQLiteStore | PostgresStore:
    """chronica's store on ``db``, as ``chronomem``'s command line opens it."""
    return SQLiteStore(db) if isinstance(db, Path) else PostgresStore(db, max_size=2)


def fill(db: Db, *, hostile: bool = True) -> None:
    """Write the sample sessions and memory to ``db`` (a new file or an empty database);
    ``hostile=False`` leaves out the hostile session and facts (for screenshots)."""
    with session_store(db) as store:
        c = Chronicarius(store)
        c.record_actum(OWNER, _actum("trip-bali", _T.MESSAGE, _A.HUMAN, "ardian",
                                     "Plan a weekend in Ubud in March."))  # fmt: skip
        c.record_actum(OWNER, _actum("trip-bali", _T.MESSAGE, _A.AGENT, "concierge",
                                     "Two nights at a villa near the rice terraces?"))  # fmt: skip
        for text in HOSTILE if hostile else ():
            c.record_actum(OWNER, _actum("hostile", _T.MESSAGE, _A.HUMAN, text, text))
        if hostile:
            c.record_actum(OWNER, _actum("hostile", _T.TOOL_REQUEST, _A.AGENT, "agent",
                                         HOSTILE[1], {"tool": HOSTILE[0]}))  # fmt: skip
        c.record_acta(OWNER, [_actum(SESSION, *row) for row in _DINNER])
        c.record_actum("bob", _actum("bobs-own", _T.MESSAGE, _A.HUMAN, "bob", "Pizza?"))
        _memory(db, c, hostile=hostile)


def _memory(db: Db, c: Chronicarius, *, hostile: bool) -> None:
    jan, mar = datetime(2026, 1, 1, tzinfo=timezone.utc), datetime(2026, 3, 1, tzinfo=timezone.utc)
    with ChronoMem(db, owner=OWNER) as mem:
        home = mem.remember("Ardian lives in Kemang", category="home", valid_from=jan)
        mem.supersede(home, "Ardian lives in Menteng", category="home", valid_from=mar)
        mem.remember("Ardian prefers quiet tables with booths", category="food",
                     valid_from=datetime(2025, 11, 1, tzinfo=timezone.utc))  # fmt: skip
        typo = mem.remember("Ardian is allergic to peanut", category="health",
                            valid_from=datetime(2025, 12, 1, tzinfo=timezone.utc))  # fmt: skip
        mem.forget(typo, reason="it was a typo: shellfish")
        mem.remember("Ardian's phone is a Pixel 9", category="phone")
        mem.remember("Ardian's phone is an iPhone 16", category="phone")
        for text in HOSTILE if hostile else ():
            mem.remember(f"Ardian wrote {text}", category="notes", entities=["Ardian", text])
        mem.index_session(c, SESSION)
