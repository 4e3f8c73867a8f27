"""The lexical index on SQLite: stemmed terms in FTS5 plus the statistics BM25 needs.

FTS5 here is a postings list and nothing more: it finds the items holding a term, newest
first when asked. The scoring (see _lexical.py) is chronomem's own, so every document's terms
are stored in three columns it can read back:

* ``body``: the item's own text;
* ``ctx1``, ``ctx2``: for an episode, the text of the one and two turns before it in the same
  session. A reply ("Yes, we won a trophy!") is found through the question it answers
  ("Did your team win anything?"), which is how people recall conversations.

``chronomem_term_stats`` holds each owner's document frequency per term and
``chronomem_corpus`` each owner's document count and total (weighted) length per kind, so an owner's
ranking never depends on another owner's data and costs no scan at query time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ._lexicon import index_terms

__all__ = ["FIELD_WEIGHTS", "context_of", "index_document", "weighted_length"]

# How much a term counts in each column: the turn itself, the turn before, the one before that.
FIELD_WEIGHTS = (1.0, 0.5, 0.25)


def weighted_length(fields: Sequence[Sequence[str]]) -> float:
    """A document's length for BM25's length normalisation: its terms, weighted by column."""
    return sum(w * len(f) for w, f in zip(FIELD_WEIGHTS, fields, strict=False))


def index_document(
    conn: sqlite3.Connection,
    owner: str,
    kind: str,
    rowid: int,
    content: str,
    context: Sequence[str] = (),
) -> str:
    """Index one item (inside the caller's transaction); returns its body terms as stored.

    ``context`` holds the stored body terms of the preceding turns, nearest first.
    """
    body = " ".join(index_terms(content))
    columns = [body, *context[:2]]
    columns += [""] * (3 - len(columns))
    conn.execute(
        "INSERT INTO chronomem_lex (rowid, body, ctx1, ctx2) VALUES (?, ?, ?, ?)",
        (rowid, *columns),
    )
    fields = [c.split() for c in columns]
    distinct = {t for f in fields for t in f}
    conn.executemany(
        """INSERT INTO chronomem_term_stats (owner, term, df) VALUES (?, ?, 1)
           ON CONFLICT (owner, term) DO UPDATE SET df = df + 1""",
        [(owner, t) for t in distinct],
    )
    conn.execute(
        """INSERT INTO chronomem_corpus (owner, kind, items, length) VALUES (?, ?, 1, ?)
           ON CONFLICT (owner, kind) DO UPDATE SET items = items + 1,
           length = length + excluded.length""",
        (owner, kind, weighted_length(fields)),
    )
    return body


def context_of(conn: sqlite3.Connection, rowids: Sequence[int]) -> list[str]:
    """The stored body terms of ``rowids``, in the order given (missing ones as '')."""
    if not rowids:
        return []
    marks = ",".join("?" * len(rowids))
    found = dict(
        conn.execute(
            f"SELECT rowid, body FROM chronomem_lex WHERE rowid IN ({marks})", list(rowids)
        ).fetchall()
    )
    return [found.get(r, "") for r in rowids]
