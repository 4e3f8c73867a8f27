"""Inserts nobody reads back, held and sent as one statement (issue 23).

Each statement a pipelined write sends costs the client a driver call and a flush of its
socket (about 35 µs of CPU together, more than the server's work for a one-row insert) and
wakes the server once more. A fact's index entries were five such statements (its lexical
columns, postings, vector, time mention and entity links). So consecutive inserts whose rows
nobody reads are held back, and sent as one statement of data-modifying CTEs
(``WITH _h0 AS (INSERT ...), _h1 AS (INSERT ...) INSERT ...``) as soon as anything else is
about to run, or the transaction (or a savepoint) ends.

One statement gives the same rows as several in a row only where no sub-statement could
tell the difference, so an insert is held only when:

* it reads no table (``VALUES``, or a ``SELECT`` from ``unnest`` of its parameters): the
  sub-statements of one statement share a snapshot and do not see each other's rows;
* no other held insert writes its table: two sub-statements touching one row is an error
  where two statements are not (``ON CONFLICT ... DO UPDATE``);
* it returns nothing (``RETURNING``): its rows would be read.

The statement that comes next ends them. If it names none of their tables (so it reads and
writes the same rows with them as after them) and is a query or a change, it is the main
statement of that one (a write's counters are, at its end); anything else is a statement of
its own, sent after the held ones. Held inserts that update on conflict (a namespace's count,
an entity link, the vectors' epoch) lock rows other transactions write, so they go as a
statement of their own before the next one, never its CTEs: PostgreSQL runs CTEs nothing
reads after the main statement, so a keyed put locked its counters before its namespace's
count, a purge the other way round, and the two deadlocked (the race test in
tests/chronomem/engine/test_concurrency.py). Foreign keys are checked at the end of the
statement, when every sub-statement's rows are there (none of chronomem's cascades). An
error in a held insert surfaces when it is sent, which in a pipeline is no later than before:
a write's statements are answered only when one of them is read, or at COMMIT.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

__all__ = ["NOTHING_TO_READ", "HeldInserts", "held_table", "many_rows"]

_INSERT = re.compile(r"\s*INSERT\s+INTO\s+(\w+)\s*\(", re.IGNORECASE)
_TABLE = re.compile(r"\bchronomem_\w+")
_FROM = re.compile(r"\b(?:FROM|JOIN|USING)\s+(\w+)", re.IGNORECASE)
_VALUES = re.compile(r"^(.*\bVALUES\s*)(\([^()]*\))(.*)$", re.IGNORECASE | re.DOTALL)


@functools.lru_cache(maxsize=512)
def held_table(sql: str) -> str | None:
    """The table ``sql`` inserts into if it may be held (see the module's rules), else
    ``None``."""
    found = _INSERT.match(sql)
    if found is None or re.search(r"\bRETURNING\b", sql, re.IGNORECASE):
        return None
    table = found.group(1)
    if set(_TABLE.findall(sql)) - {table}:
        return None
    if any(source.lower() != "unnest" for source in _FROM.findall(sql)):
        return None
    return table


@functools.lru_cache(maxsize=512)
def _rows_statement(sql: str, count: int) -> str | None:
    parts = _VALUES.match(sql)
    if parts is None or _updates_on_conflict(sql):
        return None  # one row updated twice by one statement is an error
    head, row, tail = parts.groups()
    return head + ", ".join([row] * count) + tail


def many_rows(sql: str, rows: Sequence[Sequence[Any]]) -> tuple[str, list[Any]] | None:
    """``sql`` (a one-row ``INSERT ... VALUES``) inserting every row of ``rows`` in one
    statement, with its parameters; ``None`` where that could differ from one statement
    per row (an ``ON CONFLICT ... DO UPDATE``, which may meet its own row twice)."""
    statement = _rows_statement(sql, len(rows))
    if statement is None:
        return None
    return statement, [value for row in rows for value in row]


class _NothingToRead:
    """What ``execute`` returns for a held insert: it has no rows, as psycopg says of any
    statement without ``RETURNING``."""

    __slots__ = ()

    def _refuse(self) -> NoReturn:
        import psycopg  # the postgres extra is installed wherever this runs

        raise psycopg.ProgrammingError("the last operation didn't produce a result")

    def fetchone(self) -> Any:
        self._refuse()

    def fetchall(self) -> list[Any]:
        self._refuse()

    def __iter__(self) -> Iterator[Any]:
        self._refuse()


NOTHING_TO_READ = _NothingToRead()


class HeldInserts:
    """The inserts held so far in one transaction, in the order they were made."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: list[tuple[str, str, Sequence[Any]]] = []

    def holds(self, table: str) -> bool:
        """Whether an insert into ``table`` is held already."""
        return any(held == table for held, _, _ in self._held)

    def hold(self, table: str, query: str, parameters: Sequence[Any]) -> None:
        """Hold an insert into ``table`` (``query`` in psycopg's ``%s`` style)."""
        self._held.append((table, query, parameters))

    def take(self) -> tuple[str, list[Any]] | None:
        """The held inserts as one statement and its parameters (``None``: none held), and
        forget them."""
        if not self._held:
            return None
        held, self._held = self._held, []
        if len(held) == 1:
            return held[0][1], list(held[0][2])
        *first, (_, last, _) = held
        # Placeholders are positional: the parameters follow the statements' text order.
        statement = _combined(tuple(query for _, query, _ in first), last)
        return statement, [value for _, _, parameters in held for value in parameters]

    def take_before(
        self, sql: str, query: str, parameters: Sequence[Any]
    ) -> tuple[str, list[Any]] | None:
        """The held inserts and then the statement ``sql`` (``query`` in psycopg's style)
        as one statement, the held ones its CTEs, and forget them; ``None`` (nothing taken)
        when none is held or ``sql`` cannot end them (see :func:`_ends_held`). The one
        statement reads what ``sql`` alone would: it reads none of the tables they write."""
        reads = _ends_held(sql)
        if not self._held or reads is None or reads & {table for table, _, _ in self._held}:
            return None
        if any(_updates_on_conflict(q) for _, q, _ in self._held):
            return None  # it locks a row others write: sent before ``sql``, not after it
        held, self._held = self._held, []
        own = query.strip()
        if own[:4].upper() == "WITH":  # its own CTEs join the list, after the held ones
            ctes = tuple(q for _, q, _ in held)
            statement = _combined(ctes, "").rstrip() + "," + own[4:]
        else:
            statement = _combined(tuple(q for _, q, _ in held), own)
        return statement, [v for _, _, ps in held for v in ps] + list(parameters)

    def drop(self) -> None:
        """Forget the held inserts unsent (their transaction or savepoint is undone)."""
        self._held.clear()


@functools.lru_cache(maxsize=512)
def _ends_held(sql: str) -> frozenset[str] | None:
    """The tables ``sql`` names, if it may be the main statement after held inserts: a
    query or a change (a CTE list may precede it), neither recursive nor locking rows
    (``FOR UPDATE``). ``None`` for anything else: a transaction or schema command, which
    must run on its own."""
    words = sql.split(None, 2)
    first = words[0].upper() if words else ""
    if first not in ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH"):
        return None
    if first == "WITH" and len(words) > 1 and words[1].upper() == "RECURSIVE":
        return None
    if re.search(r"\bFOR\s+(?:NO\s+KEY\s+)?(?:UPDATE|SHARE)\b", sql, re.IGNORECASE):
        return None
    return frozenset(_TABLE.findall(sql))


@functools.lru_cache(maxsize=512)
def _updates_on_conflict(sql: str) -> bool:
    return re.search(r"\bDO\s+UPDATE\b", sql, re.IGNORECASE) is not None


@functools.lru_cache(maxsize=256)
def _combined(first: tuple[str, ...], last: str) -> str:
    ctes = ", ".join(f"_h{i} AS ({query})" for i, query in enumerate(first))
    return f"WITH {ctes} {last}"
