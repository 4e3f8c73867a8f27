"""The lexical index: stemmed terms per item, plus the statistics BM25 needs.

The index is a postings list and nothing more (FTS5 on SQLite, a B-tree on PostgreSQL; see
the dialect modules): it finds the items holding a term, newest first when asked. The scoring
(see recall/lexical.py) is chronomem's own, so every document's terms are stored in three columns
it can read back:

* ``body``: the item's own text;
* ``ctx1``, ``ctx2``: for an episode, the text of the one and two turns before it in the same
  session. A reply ("Yes, we won a trophy!") is found through the question it answers
  ("Did your team win anything?"), which is how people recall conversations.

``chronomem_term_stats`` holds each owner's document frequency per term and
``chronomem_corpus`` each owner's document count and total (weighted) length per kind, so an owner's
ranking never depends on another owner's data and costs no scan at query time.
"""

from __future__ import annotations

from collections.abc import Sequence

from chronomem.engine.dialect import Conn
from chronomem.text.lexicon import index_terms

__all__ = [
    "CONTEXT_TURNS",
    "FIELD_WEIGHTS",
    "document_columns",
    "fact_fields",
    "index_document",
    "reindex",
    "turns_before",
    "weighted_length",
]

# How much a term counts in each column: the turn itself, the turn before, the one before that.
FIELD_WEIGHTS = (1.0, 0.5, 0.25)
CONTEXT_TURNS = len(FIELD_WEIGHTS) - 1
"""How many turns before an episode its context holds."""


def weighted_length(columns: Sequence[str]) -> float:
    """A document's length for BM25's length normalisation: the terms of its columns
    (space-separated strings, see :func:`document_columns`), weighted by column."""
    return sum(w * len(c.split()) for w, c in zip(FIELD_WEIGHTS, columns, strict=False))


def index_document(
    conn: Conn,
    owner: str,
    kind: str,
    rowid: int,
    content: str,
    context: Sequence[str] = (),
) -> str:
    """Index one item (inside the caller's transaction); returns its body terms as stored.

    ``context`` holds the stored body terms of the preceding turns, nearest first.
    """
    columns = document_columns(content, context)
    conn.dialect.index_terms(conn, owner, kind, rowid, columns, weighted_length(columns))
    return columns[0]


_FIELD_STRINGS = 32  # metadata strings a fact's fields hold, at most
_FIELD_CHARS = 200


def fact_fields(category: str | None, metadata: str | None) -> list[str]:
    """A fact's context column: the terms of its category and of its metadata's string
    values (the fields an agent gave it: ``category="car"``, ``{"sport": "badminton"}``), so
    a question can match them as words, at the weight of a turn's context.

    ``metadata`` is the stored JSON text; its keys are not words the fact says."""
    words = [category.replace("/", " ").replace("_", " ")] if category else []
    if metadata:
        import json

        try:
            value: object = json.loads(metadata)
        except ValueError:
            value = None
        stack = [value]
        while stack and len(words) < _FIELD_STRINGS:
            item = stack.pop()
            if isinstance(item, str):
                words.append(item[:_FIELD_CHARS])
            elif isinstance(item, dict):
                stack.extend(reversed(list(item.values())))
            elif isinstance(item, list):
                stack.extend(reversed(item))
    terms = " ".join(index_terms(" ".join(words))) if words else ""
    return [terms] if terms else []


def document_columns(content: str, context: Sequence[str] = ()) -> list[str]:
    """The columns an item is indexed by: its body terms, then its context's (see
    :func:`index_document`), each a space-separated string, every column present."""
    columns = [" ".join(index_terms(content)), *context[:CONTEXT_TURNS]]
    return columns + [""] * (len(FIELD_WEIGHTS) - len(columns))


def turns_before(
    conn: Conn, owner: str, session: str, seq: int | None = None
) -> list[tuple[int, str]]:
    """The episodes of ``session`` just before position ``seq`` (before none: the newest),
    as many as a context holds, nearest first: each one's position and stored body terms.

    A forgotten turn has no words (its words must not find the turns after it, issue 20
    item 9), nor has one the index does not hold. One statement, the hot path of a serial
    ``remember_episode``: a scalar subquery per turn rather than a join, so two primary-key
    probes whatever either engine's planner knows of the tables' sizes.
    """
    below = "" if seq is None else " AND f.seq < ?"
    rows = conn.execute(
        f"""SELECT f.seq, CASE WHEN f.forgotten = 0 THEN
               (SELECT l.body FROM chronomem_lex l WHERE l.rowid = f.rowid) END
           FROM chronomem_facts f
           WHERE f.owner = ? AND f.session = ? AND f.kind = 'episode'{below}
           ORDER BY f.seq DESC LIMIT ?""",
        (owner, session, *(() if seq is None else (seq,)), CONTEXT_TURNS),
    ).fetchall()
    return [(int(position), words or "") for position, words in rows]


def reindex(conn: Conn) -> None:
    """Index every item again, as it was first written: a schema migration runs this, after
    emptying the index and its counters, when the lexicon's terms change (see text/lexicon.py),
    so an old memory ranks as a new one would. An episode's context is the stored body of
    the turns before it in its session, exactly as ``remember_episode`` builds it."""
    rows = conn.execute(
        """SELECT rowid, owner, kind, content, session, forgotten, category, metadata
           FROM chronomem_facts ORDER BY owner, kind, session, seq, rowid"""
    ).fetchall()
    previous: list[str] = []  # the stored body terms of the turns before, nearest first
    last_session: tuple[str, object] | None = None
    for rowid, owner, kind, content, session, forgotten, category, metadata in rows:
        if kind != "episode":
            index_document(conn, owner, kind, rowid, content, fact_fields(category, metadata))
            continue
        if (owner, session) != last_session:
            previous, last_session = [], (owner, session)
        body = index_document(conn, owner, kind, rowid, content, previous)
        previous = ["" if forgotten else body, *previous][:CONTEXT_TURNS]  # as turns_before
