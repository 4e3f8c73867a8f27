"""What chronomem needs from a database connection, and where the two engines differ.

Almost every statement chronomem runs is the same SQL on SQLite and PostgreSQL (``?``
placeholders; the PostgreSQL connection translates them). What cannot be shared lives behind a
:class:`Dialect`, one module per engine (``sqlite/dialect.py``, ``postgres/dialect.py``):

* the lexical index: SQLite keeps postings in FTS5, PostgreSQL in a B-tree of
  ``(owner, term, rowid)``; either way chronomem scores candidates itself (``recall/lexical.py``),
  so the ranking never depends on an engine's scoring function;
* the per-owner term statistics: one row per term on SQLite, whose writes are serial anyway;
  a few shards per term on PostgreSQL, so concurrent writers do not queue on one counter row;
* row locks for ``supersede``/``forget`` and a per-session lock for an episode's position,
  which SQLite's single writer makes unnecessary.

Every connection carries its dialect (``conn.dialect``), so code deep in a write path picks
the right statements without being told which engine it runs on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol

__all__ = [
    "POOL_COLUMNS",
    "TIMED_COLUMNS",
    "Conn",
    "Cursor",
    "Dialect",
    "Pooled",
    "distinct_terms",
    "first_of_each",
]


class Cursor(Protocol):
    """The part of a DB-API cursor chronomem reads: rows as tuples."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Conn(Protocol):
    """A connection inside one of chronomem's transactions."""

    @property
    def dialect(self) -> Dialect: ...

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, seq_of_parameters: Iterable[Sequence[Any]], /) -> Any: ...


POOL_COLUMNS = """f.rowid, f.speaker, f.valid_from, f.trust, f.confidence, f.kind, f.terms,
    chronomem_lex.body, chronomem_lex.ctx1, chronomem_lex.ctx2"""
"""What the lexical pool reads of a candidate: its facts row and its three stored columns, in
the order of :class:`Pooled`'s fields."""


class Pooled(NamedTuple):
    """One candidate of the lexical pool, as :data:`POOL_COLUMNS` reads it."""

    rowid: int
    speaker: str | None
    """The episode's speaker as said (``None`` for a fact)."""
    valid_from: int
    """Epoch microseconds: when a fact became valid, or an episode was said; for an item
    found by the time a question names, the time point of it that fell in the span (the
    day one of its mentions means, see :data:`TIMED_COLUMNS`)."""
    trust: float
    confidence: float
    kind: str
    """``"fact"`` or ``"episode"``."""
    terms: str
    """A fact's Jaccard terms, space-separated."""
    body: str
    """The item's stemmed terms, then those of the turn before it and of the one before."""
    ctx1: str
    ctx2: str


TIMED_COLUMNS = POOL_COLUMNS.replace("f.valid_from", "timed.at")
""":data:`POOL_COLUMNS` for an item found by time: its moment is the time point in the
span (a row ``timed(rowid, at)``), so the date prior scores the day it speaks of."""


_named = tuple.__new__  # Pooled._make without its length check: the columns are fixed above


def distinct_terms(columns: Sequence[str]) -> list[str]:
    """An indexed item's distinct terms over its columns (space-separated strings), sorted:
    each is one posting and one document-frequency count, on either engine."""
    return sorted({t for c in columns for t in c.split()})


def first_of_each(rows: Iterable[Sequence[Any]]) -> list[Pooled]:
    """``rows`` (:data:`POOL_COLUMNS`, in order) as :class:`Pooled`, each rowid kept once, at
    its first place."""
    seen: set[object] = set()
    kept = []
    for row in rows:
        if row[0] not in seen:
            seen.add(row[0])
            kept.append(_named(Pooled, row))
    return kept


class Dialect(Protocol):
    """The statements that differ between engines; every method runs in the caller's
    transaction."""

    for_update: str
    """Appended to a SELECT that reads a row it is about to change ("" where writes are
    serial)."""
    pipelined: bool
    """Whether statements travel in a pipeline, answered only when read (PostgreSQL): a write
    then sends what it can before it reads, to wait for the server fewer times."""
    commits_in_rowid_order: bool
    """Whether a row with a higher rowid is always committed after one with a lower rowid
    (SQLite's one writer), so a reader that saw rowid n has seen every committed row below
    it; PostgreSQL's sequences hand rowids out at insert time, not at commit."""
    writers_in_flight: str
    """A SQL expression, true when a write transaction was still open as this read's
    snapshot was taken: one that may yet commit rows below the highest rowid the snapshot
    holds (never on SQLite, whose rowids are committed in order). An expression, not a
    query, so the vector copy's catch-up asks it in its one probe."""
    null_safe_equal: str
    """The operator that compares with NULL as a value (``IS`` / ``IS NOT DISTINCT FROM``)."""
    byte_order: str
    """Appended to a text column so it compares byte by byte, as the index of categories
    orders it ("" on SQLite, whose default is bytes; ``COLLATE "C"`` on PostgreSQL)."""

    def json_array(self, column: str) -> str:
        """An aggregate gathering ``column`` into a JSON array, as text."""
        ...

    def json_test(
        self, column: str, path: Sequence[str], op: str, value: str | float | bool | None
    ) -> tuple[str, list[object]]:
        """SQL testing the JSON text ``column`` at ``path`` against ``value`` with ``op``
        (``=``, ``<``, ``<=``, ``>``, ``>=``; a ``None`` or bool only with ``=``): true only
        where the field exists with ``value``'s JSON type (a number is any number) and
        compares so, never an error (``recall``'s ``where``)."""
        ...

    def entities(
        self, conn: Conn, owner: str, keyed: Sequence[tuple[str, str]]
    ) -> dict[str, tuple[int, str]]:
        """``(id, stored name)`` of each ``(key, name)`` entity, creating the missing ones."""
        ...

    def visible(
        self, conn: Conn, rowids: Sequence[int], view: tuple[str, Sequence[object]]
    ) -> set[int]:
        """Which of ``rowids`` the view's fragment (on ``f``, the facts table) lets through,
        each probed by its key, whatever the planner knows of the table's size."""
        ...

    def lock_session(self, conn: Conn, owner: str, session: str) -> None:
        """Hold the lock that orders appends to one episode session until commit."""
        ...

    def episodes_by_source(
        self, conn: Conn, owner: str, session: str, sources: Sequence[str]
    ) -> list[tuple[str, str]]:
        """``(source, id)`` of the session's episodes stored under any of ``sources``, each
        found through the unique (owner, session, source) index."""
        ...

    def settle(self, conn: Conn) -> None:
        """Write the counter changes this transaction holds back, before they are read."""
        ...

    def index_terms(
        self, conn: Conn, owner: str, kind: str, rowid: int, columns: Sequence[str], length: float
    ) -> None:
        """Store an item's three columns of terms, its postings and the owner's statistics."""
        ...

    def query_statistics(
        self, conn: Conn, owner: str, speakers: Sequence[str], terms: Sequence[str]
    ) -> tuple[frozenset[str], dict[str, int], dict[str, tuple[int, float]]]:
        """What a recall reads of the owner's counters before it looks for candidates: which
        of ``speakers`` are speakers of the owner's episodes, the document frequency of each
        of ``terms``, and per kind (items, total length)."""
        ...

    def in_list(self, column: str, values: Sequence[object]) -> tuple[str, list[object]]:
        """``column`` is one of ``values``, as a fragment and its parameters."""
        ...

    def facts_by_rowid(self, rowids: Sequence[int]) -> tuple[str, list[object]]:
        """What follows ``FROM`` to read the facts with these rowids as ``f``, each probed by
        its key whatever the planner knows of the table's size, and its parameters."""
        ...

    def pool(
        self,
        conn: Conn,
        owner: str,
        words: tuple[Sequence[str], Sequence[str]],
        found: Sequence[int],
        view: tuple[str, Sequence[object]],
        depth: int,
        span: tuple[int, int] | None = None,
        ceiling: int | None = None,
    ) -> list[Pooled]:
        """The lexical pool, each item once: the ``2 * depth`` newest items said, valid or
        mentioning a day in the ``span`` a question names (see :mod:`chronomem.write.time_index`),
        first, with their time in the span; every item
        holding a rare word (``words[0]``), the ``depth`` newest holding a common one
        (``words[1]``, none newer than rowid ``ceiling`` when given), both through the
        ``view`` filter (a WHERE fragment over ``f`` and its parameters), and the items the
        other channels ``found`` (already filtered)."""
        ...
