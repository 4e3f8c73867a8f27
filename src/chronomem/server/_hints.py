"""What each tool does to the memory, told to the client (MCP tool annotations).

A client reads these to decide what it may call without asking the user: a read-only tool
freely, a destructive one only with consent. They must tell the truth, so each is argued here,
and ``tests/chronomem/server/test_mcp_features.py`` checks that a read-only tool leaves the
database byte for byte (SQLite) or row for row (PostgreSQL) as it was. No tool reaches past
the server's own database, so none is open-world.
"""

from __future__ import annotations

from mcp.types import ToolAnnotations

__all__ = ["HINTS"]


def _reads(title: str) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=True,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=False,
    )


def _writes(title: str, *, destructive: bool, idempotent: bool) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


HINTS: dict[str, ToolAnnotations] = {
    "chronomem_recall": _reads("Recall what is known"),
    "chronomem_timeline": _reads("An entity's history"),
    "chronomem_contradictions": _reads("Unresolved contradictions"),
    "chronica_get_acta": _reads("Read a shared session"),
    # Adds a fact; the same content again, while the first is active in its category, is
    # "already known" and stores nothing.
    "chronomem_remember": _writes("Remember a fact", destructive=False, idempotent=True),
    # Every call is one more turn of the conversation, even with the same words.
    "chronomem_remember_episode": _writes(
        "Record a conversation turn", destructive=False, idempotent=False
    ),
    # Ends an active belief (kept as history, but recall stops returning it); a second call
    # finds it no longer active and is refused.
    "chronomem_supersede": _writes("Replace a changed fact", destructive=True, idempotent=False),
    # Takes a fact out of recall; forgetting it again changes nothing more.
    "chronomem_forget": _writes("Forget a fact", destructive=True, idempotent=True),
    # Appends to a shared session; a retry is deduplicated only with an idempotency_key.
    "chronica_record_actum": _writes(
        "Append to a shared session", destructive=False, idempotent=False
    ),
    # Adds only the messages not indexed yet: a second call adds nothing.
    "chronomem_index_session": _writes(
        "Make a session recallable", destructive=False, idempotent=True
    ),
}
"""Each tool's annotations, by tool name (every tool has one: ``build_server`` checks)."""
