"""chronomem's engine-specific statements on SQLite (see engine/dialect.py).

FTS5 is the postings list: ``chronomem_lex`` holds each item's stemmed terms in three
columns and finds the items holding any term, newest first when asked. Writes are serial
(``BEGIN IMMEDIATE``), so no statement here needs a row lock.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from chronomem.engine.dialect import (
    POOL_COLUMNS,
    TIMED_COLUMNS,
    Conn,
    Pooled,
    distinct_terms,
    first_of_each,
)
from chronomem.engine.sqlite.frequencies import count_terms, fold, journal_counts

__all__ = ["SQLITE", "SQLiteConnection"]


def _quoted(word: str) -> str:
    # Every token is quoted (inner quotes doubled), so user text is always data, never syntax.
    return '"' + word.replace('"', '""') + '"'


def _match(terms: Sequence[str]) -> str:
    return " OR ".join(_quoted(t) for t in terms)


def _journal(conn: Conn) -> bool:
    """Whether the file's schema has the document-frequency journal (see frequencies.py)."""
    return getattr(conn, "journal", False) is True


class SQLiteDialect:
    """The :class:`~chronomem.engine.dialect.Dialect` of SQLite."""

    for_update = ""
    commits_in_rowid_order = True
    writers_in_flight = "0"  # one writer, whose rowids are committed in order
    pipelined = False
    null_safe_equal = "IS"
    byte_order = ""

    def json_array(self, column: str) -> str:
        """``json_group_array``: already text."""
        return f"json_group_array({column})"

    def json_test(
        self, column: str, path: Sequence[str], op: str, value: str | float | bool | None
    ) -> tuple[str, list[object]]:
        """``json_type`` checks the kind (``json_extract`` reads true as 1), then the value."""
        at = "$" + "".join(f'."{p}"' for p in path)
        if value is None:
            return f"json_type({column}, ?) = 'null'", [at]
        if isinstance(value, bool):
            return f"json_type({column}, ?) = ?", [at, "true" if value else "false"]
        kinds = "('integer', 'real')" if isinstance(value, (int, float)) else "('text')"
        return (
            f"json_type({column}, ?) IN {kinds} AND json_extract({column}, ?) {op} ?",
            [at, at, value],
        )

    def entities(
        self, conn: Conn, owner: str, keyed: Sequence[tuple[str, str]]
    ) -> dict[str, tuple[int, str]]:
        """Looked up one by one (each a cheap indexed read in process); inserted if missing.

        Known entities are looked up, not upserted: an upsert rewrites the row (and dirties
        its page in the WAL) even when nothing changes, which serial writes pay for on every
        commit.
        """
        found: dict[str, tuple[int, str]] = {}
        for key, name in keyed:
            row = (
                conn.execute(
                    "SELECT id, name FROM chronomem_entities WHERE owner = ? AND key = ?",
                    (owner, key),
                ).fetchone()
                or conn.execute(
                    """INSERT INTO chronomem_entities (owner, key, name) VALUES (?, ?, ?)
                       RETURNING id, name""",
                    (owner, key, name),
                ).fetchone()
            )
            found[key] = (int(row[0]), row[1])
        return found

    def visible(
        self, conn: Conn, rowids: Sequence[int], view: tuple[str, Sequence[object]]
    ) -> set[int]:
        """One ``rowid IN (...)`` probe per id, by the primary key."""
        if not rowids:
            return set()
        where, params = view
        among = ",".join("?" * len(rowids))
        rows = conn.execute(
            f"SELECT f.rowid FROM chronomem_facts f WHERE f.rowid IN ({among}) AND {where}",
            [*rowids, *params],
        ).fetchall()
        return {int(row[0]) for row in rows}

    def lock_session(self, conn: Conn, owner: str, session: str) -> None:
        """Nothing to do: the write transaction already holds the database's write lock."""

    def settle(self, conn: Conn) -> None:
        """Add the journal's document frequencies to the stored ones (see frequencies.py), so
        a count about to be lowered is whole."""
        fold(conn, journal=_journal(conn))

    def index_terms(
        self, conn: Conn, owner: str, kind: str, rowid: int, columns: Sequence[str], length: float
    ) -> None:
        """One FTS5 row (its postings), the owner's document frequencies (in the journal,
        see frequencies.py) and corpus counter."""
        conn.execute(
            "INSERT INTO chronomem_lex (rowid, body, ctx1, ctx2) VALUES (?, ?, ?, ?)",
            (rowid, *columns),
        )
        distinct = distinct_terms(columns)
        count_terms(conn, owner, distinct, journal=_journal(conn))
        conn.execute(
            """INSERT INTO chronomem_corpus (owner, kind, items, length) VALUES (?, ?, 1, ?)
               ON CONFLICT (owner, kind) DO UPDATE SET items = items + 1,
               length = length + excluded.length""",
            (owner, kind, length),
        )

    def query_statistics(
        self, conn: Conn, owner: str, speakers: Sequence[str], terms: Sequence[str]
    ) -> tuple[frozenset[str], dict[str, int], dict[str, tuple[int, float]]]:
        """Indexed lookups of the owner's speakers and counters, and the journal's share of
        the document frequencies (a few kilobytes of text, see frequencies.py)."""
        named: frozenset[str] = frozenset()
        if speakers:
            among, keys = self.in_list("key", speakers)
            named = frozenset(
                row[0]
                for row in conn.execute(
                    f"SELECT key FROM chronomem_speakers WHERE owner = ? AND {among}",
                    (owner, *keys),
                )
            )
        among, words = self.in_list("term", terms)
        dfs = dict(
            conn.execute(
                f"SELECT term, df FROM chronomem_term_stats WHERE owner = ? AND {among}",
                (owner, *words),
            ).fetchall()
        )
        for term, n in journal_counts(conn, owner, terms, journal=_journal(conn)).items():
            dfs[term] = dfs.get(term, 0) + n
        corpus = conn.execute(
            "SELECT kind, items, length FROM chronomem_corpus WHERE owner = ?", (owner,)
        ).fetchall()
        return named, dfs, {kind: (int(n), float(length)) for kind, n, length in corpus}

    def episodes_by_source(
        self, conn: Conn, owner: str, session: str, sources: Sequence[str]
    ) -> list[tuple[str, str]]:
        """One statement: ``source IN (...)`` is a probe of the index per source here."""
        among, params = self.in_list("source", sources)
        rows = conn.execute(
            f"""SELECT source, id FROM chronomem_facts WHERE owner = ? AND session = ?
                AND kind = 'episode' AND {among}""",
            (owner, session, *params),
        ).fetchall()
        return [(str(source), str(eid)) for source, eid in rows]

    def in_list(self, column: str, values: Sequence[object]) -> tuple[str, list[object]]:
        """``column IN (?, ?, ...)``."""
        return f"{column} IN ({','.join('?' * len(values))})", list(values)

    def facts_by_rowid(self, rowids: Sequence[int]) -> tuple[str, list[object]]:
        """``rowid IN (...)``: a probe of the primary key per id."""
        among, params = self.in_list("f.rowid", rowids)
        return f"chronomem_facts f WHERE {among}", params

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
        """Up to four queries, each cheap in process: the items said, valid or mentioning a
        day in the ``span`` (a backward walk of an index range that stops at ``2 * depth``),
        FTS5 over the rare words' postings, FTS5 walking the common words' postings newest
        first until ``depth``, the found rows."""
        rare, common = words
        where, params = view
        rows: list[tuple[Any, ...]] = [] if span is None else _timed(conn, owner, span, view, depth)
        if rare:
            rows += conn.execute(
                f"""SELECT {POOL_COLUMNS}
                    FROM chronomem_lex JOIN chronomem_facts f ON f.rowid = chronomem_lex.rowid
                    WHERE chronomem_lex MATCH ? AND {where}""",
                (_match(rare), *params),
            ).fetchall()
        if common:
            below, start = (
                ("", []) if ceiling is None else (" AND chronomem_lex.rowid <= ?", [ceiling])
            )
            rows += conn.execute(
                f"""SELECT {POOL_COLUMNS}
                    FROM chronomem_lex JOIN chronomem_facts f ON f.rowid = chronomem_lex.rowid
                    WHERE chronomem_lex MATCH ?{below} AND {where}
                    ORDER BY chronomem_lex.rowid DESC LIMIT ?""",
                (_match(common), *start, *params, depth),
            ).fetchall()
        seen = {r[0] for r in rows}
        rest = [r for r in dict.fromkeys(found) if r not in seen]
        if rest:
            among, ids = self.in_list("chronomem_lex.rowid", rest)
            rows += conn.execute(
                f"""SELECT {POOL_COLUMNS}
                    FROM chronomem_lex JOIN chronomem_facts f ON f.rowid = chronomem_lex.rowid
                    WHERE {among}""",
                ids,
            ).fetchall()
        return first_of_each(rows)


def _timed(
    conn: Conn, owner: str, span: tuple[int, int], view: tuple[str, Sequence[object]], depth: int
) -> list[tuple[Any, ...]]:
    """The ``2 * depth`` newest items said, valid or mentioning a day in ``span`` (one backward
    walk of ``chronomem_mentions``, see write/time_index.py), each with that time (see
    ``TIMED_COLUMNS``)."""
    where, params = view
    start, end = span
    return conn.execute(
        f"""SELECT {TIMED_COLUMNS}
            FROM chronomem_mentions timed JOIN chronomem_facts f ON f.rowid = timed.item
            JOIN chronomem_lex ON chronomem_lex.rowid = timed.item
            WHERE timed.owner = ? AND timed.at BETWEEN ? AND ? AND {where}
            ORDER BY timed.at DESC LIMIT ?""",
        (owner, start, end, *params, 2 * depth),
    ).fetchall()


SQLITE = SQLiteDialect()


class SQLiteConnection(sqlite3.Connection):
    """A ``sqlite3`` connection that says which dialect it speaks (``sqlite3.connect``'s
    ``factory``): no wrapper between chronomem and the driver on the hot path."""

    dialect = SQLITE
    journal = False
    """True once ``migrate`` has brought the file to the schema version with the
    document-frequency journal: its own older steps count terms without it."""
    vector_space: object = None
    """What the memory embeds with (set by the memory; the engine never reads it)."""
