"""chronomem's engine-specific statements on PostgreSQL (see engine/dialect.py).

Postings are a B-tree of ``(owner, term, rowid)``: "every item holding a rare term" is an index
range, "the newest items holding a common term" a backward index scan that stops at the
depth, so neither grows with the memory. Many writers run at once here, so:

* counters are sharded: a write claims a shard no other open transaction holds (an advisory
  lock, tried shard by shard, never waited for) and adds to its rows there; a read sums a
  term's few shards. So writers do not queue on the row of a common word;
* rows are locked in one global order (terms sorted, entities by key) so that two writers
  never wait on each other in a cycle;
* an episode takes its session's advisory lock before reading the position it appends at.

No psycopg import: the statements are text, run through the connection in postgres/db.py.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from chronomem.engine.dialect import (
    POOL_COLUMNS,
    TIMED_COLUMNS,
    Conn,
    Pooled,
    distinct_terms,
    first_of_each,
)

__all__ = ["POSTGRES", "SHARDS", "HeldCounters"]

SHARDS = 16
"""Counter shards per (owner, term): one per concurrent writer, up to this many."""

# The first shard whose advisory lock this transaction can take at once (reentrant: a shard
# it already holds qualifies), else one by process id (waiting then, beyond SHARDS writers).
_SHARD = f"""coalesce(
    (SELECT s FROM generate_series(0, {SHARDS - 1}) AS s
     WHERE pg_try_advisory_xact_lock(hashtext('chronomem.shard:' || ?), s) LIMIT 1),
    pg_backend_pid() % {SHARDS})"""


class HeldCounters:
    """The counter changes of one write transaction, written once, at its end.

    Updating one row again and again in one transaction leaves a new row version each time,
    and each update walks the versions before it: a bulk write (``remember_episodes``, an
    import, a ``batch``) of n items updating the row of a common word cost O(n^2), 62 s for
    8,000 episodes (issue 20 item 2). Held back and summed, each counter row is updated once
    per transaction. The log is append-only so that a savepoint undone (one failed write in
    a batch) drops exactly its own entries: :meth:`mark` before it, :meth:`undo` after.
    """

    __slots__ = ("_log",)

    def __init__(self) -> None:
        self._log: list[tuple[str, str, list[str], float]] = []

    def add(self, owner: str, kind: str, terms: list[str], length: float) -> None:
        """One indexed item's share: its distinct terms, its kind and weighted length."""
        self._log.append((owner, kind, terms, length))

    def mark(self) -> int:
        """Where the log stands, for :meth:`undo`."""
        return len(self._log)

    def undo(self, mark: int) -> None:
        """Forget what was added since ``mark`` (its savepoint was rolled back)."""
        del self._log[mark:]

    def settle(self, conn: Conn) -> None:
        """Write the summed changes, owner by owner, and empty the log."""
        terms: dict[str, Counter[str]] = {}
        kinds: dict[str, dict[str, tuple[int, float]]] = {}
        for owner, kind, distinct, length in self._log:
            terms.setdefault(owner, Counter()).update(distinct)
            items, total = kinds.setdefault(owner, {}).get(kind, (0, 0.0))
            kinds[owner][kind] = (items + 1, total + length)
        self._log.clear()
        for owner in sorted(kinds):
            _add_counters(conn, owner, terms[owner], kinds[owner])


def _add_counters(
    conn: Conn, owner: str, terms: Counter[str], kinds: dict[str, tuple[int, float]]
) -> None:
    # One shard claimed for both counters; terms and kinds sorted, the same statement in
    # every writer, so rows are always locked in the same order: every term row first, in
    # term order, then the kinds' rows, as a purge locks them (write/unindex.py). The main
    # statement reads the count of the terms' rows so that they are written before it runs:
    # a data-modifying CTE nothing reads runs after the main statement, which would lock
    # the kinds' row first and deadlock against a purge (found by the purge_session test in
    # tests/chronomem/engine/test_concurrency.py).
    words, ks = sorted(terms), sorted(kinds)
    conn.execute(
        f"""WITH mine AS MATERIALIZED (SELECT {_SHARD} AS shard),
            terms AS (
                INSERT INTO chronomem_term_stats (owner, term, shard, df)
                SELECT ?, t, mine.shard, n
                FROM unnest(?::text[], ?::bigint[]) WITH ORDINALITY AS u(t, n, i), mine
                ORDER BY i
                ON CONFLICT (owner, term, shard)
                DO UPDATE SET df = chronomem_term_stats.df + excluded.df
                RETURNING 1)
            INSERT INTO chronomem_corpus (owner, kind, shard, items, length)
            SELECT ?, k, mine.shard, n, l
            FROM unnest(?::text[], ?::bigint[], ?::float8[]) WITH ORDINALITY AS v(k, n, l, i), mine
            WHERE (SELECT count(*) FROM terms) >= 0
            ORDER BY i
            ON CONFLICT (owner, kind, shard) DO UPDATE SET
            items = chronomem_corpus.items + excluded.items,
            length = chronomem_corpus.length + excluded.length""",
        (
            owner, owner, words, [terms[w] for w in words],
            owner, ks, [kinds[k][0] for k in ks], [kinds[k][1] for k in ks],
        ),
    )  # fmt: skip


class PostgresDialect:
    """The :class:`~chronomem.engine.dialect.Dialect` of PostgreSQL."""

    for_update = " FOR UPDATE"
    commits_in_rowid_order = False
    # The snapshot saw a transaction in progress: its oldest running id below the next one
    # to be assigned.
    writers_in_flight = (
        "pg_snapshot_xmin(pg_current_snapshot()) < pg_snapshot_xmax(pg_current_snapshot())"
    )
    pipelined = True
    null_safe_equal = "IS NOT DISTINCT FROM"
    byte_order = ' COLLATE "C"'

    def json_array(self, column: str) -> str:
        """``json_agg`` cast to text, so both engines hand back the same string."""
        return f"json_agg({column} ORDER BY f.rowid)::text"

    def json_test(
        self, column: str, path: Sequence[str], op: str, value: str | float | bool | None
    ) -> tuple[str, list[object]]:
        """jsonb compares typed (numbers numerically, ``1`` = ``1.0``); ``jsonb_typeof``
        keeps an ordering to values of the operand's kind."""
        field = f"({column}::jsonb #> ?::text[])"
        kind = (
            "null" if value is None
            else "boolean" if isinstance(value, bool)
            else "number" if isinstance(value, (int, float))
            else "string"
        )  # fmt: skip
        return (
            f"jsonb_typeof({field}) = '{kind}' AND {field} {op} ?::jsonb",
            [list(path), list(path), json.dumps(value)],
        )

    def entities(
        self, conn: Conn, owner: str, keyed: Sequence[tuple[str, str]]
    ) -> dict[str, tuple[int, str]]:
        """All of a fact's entities in one statement: the missing ones inserted (in key
        order), the known ones read. A key another writer inserts meanwhile is not in this
        statement's snapshot, so it is read again once that writer has committed."""
        keys = [k for k, _ in keyed]
        # The arrays are read through scalar subqueries: the planner then estimates their
        # length alike for every call and keeps one generic plan; given the arrays themselves,
        # it planned each call anew (155 us of the server's time on a write's critical path).
        # The known ones are looked up one key at a time (LIMIT 1 keeps the lateral subquery a
        # probe of the (owner, key) index, whatever the planner's statistics say): joined to
        # the keys wanted, the generic plan read every entity of the owner, a write costing
        # more as the memory grew (0.29 ms of the server's time at 2,000 entities).
        rows = conn.execute(
            """WITH wanted AS (
                   SELECT * FROM unnest((SELECT ?::text[]), (SELECT ?::text[])) AS w(key, name)),
               added AS (INSERT INTO chronomem_entities (owner, key, name)
                         SELECT ?, key, name FROM wanted ORDER BY key
                         ON CONFLICT (owner, key) DO NOTHING RETURNING id, key, name)
               SELECT id, key, name FROM added
               UNION ALL
               SELECT e.id, w.key, e.name FROM wanted w CROSS JOIN LATERAL (
                   SELECT id, name FROM chronomem_entities
                   WHERE owner = ? AND key = w.key LIMIT 1) e""",
            (keys, [n for _, n in keyed], owner, owner),
        ).fetchall()
        found = {key: (int(i), name) for i, key, name in rows}
        late = [k for k in keys if k not in found]
        if late:
            for i, key, name in conn.execute(
                "SELECT id, key, name FROM chronomem_entities WHERE owner = ? AND key = ANY(?)",
                (owner, late),
            ).fetchall():
                found[key] = (int(i), name)
        return found

    def visible(
        self, conn: Conn, rowids: Sequence[int], view: tuple[str, Sequence[object]]
    ) -> set[int]:
        """Each id's fact probed by its key in a lateral subquery (``OFFSET 0`` keeps the
        planner from turning it into a scan of a table it has no statistics for)."""
        if not rowids:
            return set()
        where, params = view
        rows = conn.execute(
            f"""SELECT u.r FROM unnest(?::bigint[]) AS u(r)
                CROSS JOIN LATERAL (
                    SELECT 1 FROM (SELECT * FROM chronomem_facts WHERE rowid = u.r OFFSET 0) AS f
                    WHERE {where}) AS seen""",
            (list(rowids), *params),
        ).fetchall()
        return {int(row[0]) for row in rows}

    def lock_session(self, conn: Conn, owner: str, session: str) -> None:
        """A transaction-scoped advisory lock on (owner, session), released at commit."""
        key = "chronomem.session:" + json.dumps([owner, session], ensure_ascii=False)
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (key,)).fetchone()

    def episodes_by_source(
        self, conn: Conn, owner: str, session: str, sources: Sequence[str]
    ) -> list[tuple[str, str]]:
        """One statement, a probe of the (owner, session, source) index per source in a
        lateral subquery: given ``source = ANY(?)``, the planner of a table whose statistics
        were older than the session read every turn of it (605 rows to add one turn to a
        session of 600), so indexing a long session grew with its length."""
        rows = conn.execute(
            """SELECT q.source, e.id FROM unnest(CAST(? AS text[])) AS q(source)
               CROSS JOIN LATERAL (
                   SELECT id FROM chronomem_facts
                   WHERE owner = ? AND session = ? AND kind = 'episode' AND source = q.source
                   LIMIT 1) e""",
            (sorted(set(sources)), owner, session),
        ).fetchall()
        return [(str(source), str(eid)) for source, eid in rows]

    def index_terms(
        self, conn: Conn, owner: str, kind: str, rowid: int, columns: Sequence[str], length: float
    ) -> None:
        """The item's columns, one posting per distinct term, and the sharded counters."""
        conn.execute(
            "INSERT INTO chronomem_lex (rowid, body, ctx1, ctx2) VALUES (?, ?, ?, ?)",
            (rowid, *columns),
        )
        distinct = distinct_terms(columns)
        if distinct:
            conn.execute(
                """INSERT INTO chronomem_postings (owner, term, rowid)
                   SELECT ?, t, ? FROM unnest(?::text[]) AS t""",
                (owner, rowid, distinct),
            )
        held = getattr(conn, "counters", None)
        if isinstance(held, HeldCounters):
            held.add(owner, kind, distinct, length)
        else:  # a migration's reindex: no transaction end to settle at
            _add_counters(conn, owner, Counter(distinct), {kind: (1, length)})

    def settle(self, conn: Conn) -> None:
        """Write the counters held back by this transaction's writes (see :class:`HeldCounters`)."""
        held = getattr(conn, "counters", None)
        if isinstance(held, HeldCounters):
            held.settle(conn)

    def query_statistics(
        self, conn: Conn, owner: str, speakers: Sequence[str], terms: Sequence[str]
    ) -> tuple[frozenset[str], dict[str, int], dict[str, tuple[int, float]]]:
        """One statement: the speakers, the shards of each term and of each kind summed
        (short index ranges: a few shards per term).

        Each speaker and each term is its own probe of its table's index, in a lateral
        subquery the planner cannot flatten: given ``term = ANY(?)`` beside the owner, it read
        every term the owner has and filtered them whenever its statistics were older than
        the memory (a recall costing more as the vocabulary grew)."""
        self.settle(conn)  # a recall inside a batch counts the batch's own writes
        rows = conn.execute(
            """SELECT 'speaker', q.key, 0::float8, 0::float8
               FROM unnest(CAST(? AS text[])) AS q(key) CROSS JOIN LATERAL (
                   SELECT 1 FROM chronomem_speakers WHERE owner = ? AND key = q.key LIMIT 1) s
               UNION ALL
               SELECT 'term', q.term, s.df, 0::float8
               FROM unnest(CAST(? AS text[])) AS q(term) CROSS JOIN LATERAL (
                   SELECT sum(df)::float8 AS df FROM chronomem_term_stats
                   WHERE owner = ? AND term = q.term) s
               WHERE s.df IS NOT NULL
               UNION ALL
               SELECT 'kind', kind, sum(items)::float8, sum(length) FROM chronomem_corpus
               WHERE owner = ? GROUP BY kind""",
            (sorted(set(speakers)), owner, sorted(set(terms)), owner, owner),
        ).fetchall()
        named = frozenset(name for what, name, _, _ in rows if what == "speaker")
        dfs = {name: int(n) for what, name, n, _ in rows if what == "term"}
        corpus = {name: (int(n), float(length)) for what, name, n, length in rows if what == "kind"}
        return named, dfs, corpus

    def facts_by_rowid(self, rowids: Sequence[int]) -> tuple[str, list[object]]:
        """Each id's fact in a lateral subquery, as :meth:`visible` reads them: ``rowid =
        ANY(?)`` let the planner of a table it has no statistics for scan it whole."""
        return (
            """unnest(?::bigint[]) AS u(r) CROSS JOIN LATERAL (
                   SELECT * FROM chronomem_facts WHERE rowid = u.r OFFSET 0) AS f""",
            [list(rowids)],
        )

    def in_list(self, column: str, values: Sequence[object]) -> tuple[str, list[object]]:
        """``column = ANY(?)``: one statement text whatever the count, so the server plans
        it once (psycopg prepares a statement it has run a few times)."""
        return f"{column} = ANY(?)", [list(values)]

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
        """All its parts in one statement (one round trip):

        * for a question naming a ``span``, the ``2 * depth`` newest items said, valid or
          mentioning a day in it (a backward scan of an index range), first, with that time
          (see ``TIMED_COLUMNS``);
        * every posting of the rare words (each a bounded index range), read first as a
          step of its own: left to choose, the planner of a table not yet analysed (a new or
          freshly filled memory) scanned every posting of the owner once per fact (165 ms
          for 369 episodes instead of 0.5 ms);
        * per common word, a backward scan of its postings through the view stopping at
          ``depth``, then the ``depth`` newest of their union (the newest overall are among
          them), chosen before any row is read whole;
        * the rows the other channels found.
        """
        rare, common = words
        where, params = view
        timed: tuple[str, list[object]] = ("", [])
        if span is not None:
            timed = _timed(owner, span, view, depth)
        below, start = ("", []) if ceiling is None else (" AND p.rowid <= ?", [ceiling])
        rows = conn.execute(
            f"""WITH {timed[0]}hit AS MATERIALIZED (
                    SELECT DISTINCT p.rowid FROM chronomem_postings p
                    WHERE p.owner = ? AND p.term = ANY(?)),
                newest AS MATERIALIZED (
                    SELECT DISTINCT x.rowid FROM unnest(?::text[]) AS q(term)
                    CROSS JOIN LATERAL (
                        SELECT p.rowid FROM chronomem_postings p
                        CROSS JOIN LATERAL (
                            SELECT 1 FROM (SELECT * FROM chronomem_facts
                                           WHERE rowid = p.rowid OFFSET 0) AS f
                            WHERE {where}) AS seen
                        WHERE p.owner = ? AND p.term = q.term{below}
                        ORDER BY p.rowid DESC LIMIT ?) AS x
                    ORDER BY x.rowid DESC LIMIT ?)
                SELECT 0, {POOL_COLUMNS}
                FROM hit JOIN chronomem_facts f ON f.rowid = hit.rowid
                JOIN chronomem_lex ON chronomem_lex.rowid = hit.rowid
                WHERE {where}
                UNION ALL
                SELECT 1, {POOL_COLUMNS}
                FROM newest JOIN chronomem_facts f ON f.rowid = newest.rowid
                JOIN chronomem_lex ON chronomem_lex.rowid = newest.rowid
                UNION ALL
                SELECT 2, {POOL_COLUMNS}
                FROM unnest(?::bigint[]) AS u(r)
                CROSS JOIN LATERAL (SELECT * FROM chronomem_facts
                                    WHERE rowid = u.r OFFSET 0) AS f
                JOIN chronomem_lex ON chronomem_lex.rowid = u.r{_TIMED_ROWS if span else ""}""",
            (*timed[1], owner, list(rare), list(common), *params, owner, *start, depth, depth,
             *params, list(found)),
        ).fetchall()  # fmt: skip
        rows.sort(key=lambda r: r[0])  # timed items first, then rare words', as on SQLite
        return first_of_each(r[1:] for r in rows)


_TIMED_ROWS = f"""
    UNION ALL
    SELECT -1, {TIMED_COLUMNS}
    FROM timed JOIN chronomem_facts f ON f.rowid = timed.rowid
    JOIN chronomem_lex ON chronomem_lex.rowid = timed.rowid"""


def _timed(
    owner: str, span: tuple[int, int], view: tuple[str, Sequence[object]], depth: int
) -> tuple[str, list[object]]:
    """The pool's first step for a question naming a span: ``timed(rowid, at)``, the
    ``2 * depth`` newest items said, valid or mentioning a day in it (see write/time_index.py)."""
    where, params = view
    start, end = span
    sql = f"""timed AS MATERIALIZED (
            SELECT m.item AS rowid, m.at FROM chronomem_mentions m
            JOIN chronomem_facts f ON f.rowid = m.item
            WHERE m.owner = ? AND m.at BETWEEN ? AND ? AND {where}
            ORDER BY m.at DESC LIMIT ?),
        """
    return sql, [owner, start, end, *params, 2 * depth]


POSTGRES = PostgresDialect()
