"""The times an item is about, indexed so that a question naming a day, month or year finds it.

``chronomem_mentions`` holds ``(owner, at, item)`` rows: the item's own time (when an episode
was said, when a fact became valid) and, for an episode, each day its words mention
("yesterday", "last month": :mod:`chronomem.text.mentions`). A question's span is then one
backward range of this index (see the dialects' pool), whatever the memory's size.

A table of its own rather than an index on ``chronomem_facts(owner, valid_from)``: such an
index matches the ``owner = ? AND valid_from <= ?`` of every recall's view, and SQLite's
planner, without statistics, then drove the word channel's FTS5 query from it, one probe per
item (recall 8 ms -> 60 ms on one LoCoMo conversation).
"""

from __future__ import annotations

from collections.abc import Sequence

from chronomem.engine.dialect import Conn
from chronomem.text.mentions import Mention, time_points

__all__ = ["index_times"]


def index_times(conn: Conn, owner: str, rowid: int, at: int, said: Sequence[Mention]) -> None:
    """Index the item at its own time ``at`` and at the days it mentions."""
    points = dict.fromkeys([at, *time_points(said)])
    conn.executemany(
        "INSERT INTO chronomem_mentions (owner, at, item) VALUES (?, ?, ?)",
        [(owner, p, rowid) for p in points],
    )
