"""Taking items out of the lexical index, with the statistics BM25 reads kept exact.

A purged item's terms leave the postings (FTS5's row on SQLite, the B-tree rows on PostgreSQL)
and its document frequencies and corpus counters go down by what it added. An episode's terms
also sit in the context columns of the two turns after it in its session (see
:mod:`chronomem.recall.lexindex`), so those turns are indexed again with the purged turn's
place empty: no stemmed word of a purged turn stays anywhere in the index.

The counters change once per transaction, all terms in sorted order: PostgreSQL's writers lock
counter rows in that order too (see the PostgreSQL dialect), so a purge and a writer never wait
on each other in a cycle. The counters only ever go down here, so a term whose count reaches
zero loses its rows, and with them the last trace of the word.
"""

from __future__ import annotations

from collections import Counter

from chronomem.engine.dialect import Conn, distinct_terms
from chronomem.recall.lexindex import CONTEXT_TURNS, turns_before, weighted_length

__all__ = ["Unindexer", "forget_from_context"]


class Unindexer:
    """The index changes of one purge transaction: rows go at once, counters at :meth:`flush`."""

    def __init__(self, conn: Conn, owner: str) -> None:
        self.conn = conn
        self.owner = owner
        self._pg = bool(conn.dialect.for_update)  # the engine with postings rows and shards
        self._terms: Counter[str] = Counter()  # how much each term's df goes down
        self._items: Counter[str] = Counter()  # per kind: items removed
        self._length: dict[str, float] = {}  # per kind: length removed

    def _columns(self, rowid: int) -> list[str] | None:
        row = self.conn.execute(
            "SELECT body, ctx1, ctx2 FROM chronomem_lex WHERE rowid = ?", (rowid,)
        ).fetchone()
        return None if row is None else [str(c) for c in row]

    def remove(self, rowid: int, kind: str) -> int:
        """Take the item out of the index; returns how many distinct terms it had there."""
        columns = self._columns(rowid)
        if columns is None:
            return 0
        terms = distinct_terms(columns)
        if self._pg and terms:
            self.conn.execute(
                "DELETE FROM chronomem_postings WHERE owner = ? AND rowid = ? AND term = ANY(?)",
                (self.owner, rowid, terms),
            )
        self.conn.execute("DELETE FROM chronomem_lex WHERE rowid = ?", (rowid,))
        self._terms.update(terms)
        self._items[kind] += 1
        self._shorten(kind, weighted_length(columns))
        return len(terms)

    def refresh_followers(self, session: str, seq: int) -> None:
        """Index the two turns after position ``seq`` of ``session`` again, their context
        read from the turns before them as they are now (a removed turn reads as empty)."""
        followers = self.conn.execute(
            """SELECT seq, rowid FROM chronomem_facts WHERE owner = ? AND session = ?
               AND kind = 'episode' AND seq > ? ORDER BY seq LIMIT ?""",
            (self.owner, session, seq, CONTEXT_TURNS),
        ).fetchall()
        for follower_seq, rowid in followers:
            # A forgotten turn reads as empty, as when written.
            before = turns_before(self.conn, self.owner, session, follower_seq)
            context = [words for _, words in before]
            self._recontext(int(rowid), context + [""] * (CONTEXT_TURNS - len(context)))

    def _recontext(self, rowid: int, context: list[str]) -> None:
        old = self._columns(rowid)
        if old is None or old[1:] == context:
            return
        new = [old[0], *context]
        gone = set(distinct_terms(old)) - set(distinct_terms(new))
        self.conn.execute(
            "UPDATE chronomem_lex SET ctx1 = ?, ctx2 = ? WHERE rowid = ?", (*context, rowid)
        )
        if self._pg and gone:
            self.conn.execute(
                "DELETE FROM chronomem_postings WHERE owner = ? AND rowid = ? AND term = ANY(?)",
                (self.owner, rowid, sorted(gone)),
            )
        self._terms.update(gone)
        before, after = (weighted_length(x) for x in (old, new))
        self._shorten("episode", before - after)

    def _shorten(self, kind: str, length: float) -> None:
        self._length[kind] = self._length.get(kind, 0.0) + length

    def flush(self) -> None:
        """Lower the owner's counters by everything removed, terms in sorted order."""
        self.conn.dialect.settle(self.conn)  # what this transaction added is counted first
        if self._terms:
            (self._lower_terms_pg if self._pg else self._lower_terms_sqlite)()
        for kind in sorted(set(self._items) | set(self._length)):
            self._lower_corpus(kind, self._items[kind], self._length.get(kind, 0.0))
        self._terms.clear()
        self._items.clear()
        self._length.clear()

    def _lower_terms_sqlite(self) -> None:
        ordered = sorted(self._terms.items())
        self.conn.executemany(
            "UPDATE chronomem_term_stats SET df = df - ? WHERE owner = ? AND term = ?",
            [(n, self.owner, term) for term, n in ordered],
        )
        self.conn.executemany(
            "DELETE FROM chronomem_term_stats WHERE owner = ? AND term = ? AND df <= 0",
            [(self.owner, term) for term, _ in ordered],
        )

    def _lower_terms_pg(self) -> None:
        """Every shard of the terms locked in term order, then each term's count taken from
        its largest shards first: the sum over shards (what a recall reads) falls by exactly
        the amount, and no shard goes below zero."""
        terms = sorted(self._terms)
        rows = self.conn.execute(
            """SELECT term, shard, df FROM chronomem_term_stats
               WHERE owner = ? AND term = ANY(?) ORDER BY term COLLATE "C", shard FOR UPDATE""",
            (self.owner, terms),
        ).fetchall()
        shards: dict[str, list[tuple[int, int]]] = {}
        for term, shard, df in rows:
            shards.setdefault(term, []).append((int(df), int(shard)))
        updates: list[tuple[int, str, int]] = []
        for term, owned in shards.items():
            due = self._terms[term]
            for df, shard in sorted(owned, reverse=True):
                take = min(df, due)
                if take:
                    updates.append((df - take, term, shard))
                    due -= take
        self.conn.executemany(
            "UPDATE chronomem_term_stats SET df = ? WHERE owner = ? AND term = ? AND shard = ?",
            [(df, self.owner, term, shard) for df, term, shard in updates],
        )
        self.conn.execute(
            "DELETE FROM chronomem_term_stats WHERE owner = ? AND term = ANY(?) AND df <= 0",
            (self.owner, terms),
        )

    def _lower_corpus(self, kind: str, items: int, length: float) -> None:
        rows = self.conn.execute(
            f"""SELECT {"shard, " if self._pg else ""}items, length FROM chronomem_corpus
                WHERE owner = ? AND kind = ?{" ORDER BY shard FOR UPDATE" if self._pg else ""}""",
            (self.owner, kind),
        ).fetchall()
        if not rows:
            return
        if not self._pg:
            rows = [(0, *r) for r in rows]
        # Items and length come off the largest shards first; the sums fall by the amounts.
        for shard, have, total in sorted(rows, key=lambda r: (-int(r[1]), int(r[0]))):
            take, cut = min(int(have), items), min(float(total), length)
            if not take and not cut:
                continue
            items, length = items - take, length - cut
            where = " AND shard = ?" if self._pg else ""
            params = (take, cut, self.owner, kind, *((int(shard),) if self._pg else ()))
            self.conn.execute(
                f"""UPDATE chronomem_corpus SET items = items - ?, length = length - ?
                    WHERE owner = ? AND kind = ?{where}""",
                params,
            )
        self.conn.execute(
            "DELETE FROM chronomem_corpus WHERE owner = ? AND kind = ? AND items <= 0",
            (self.owner, kind),
        )


def forget_from_context(conn: Conn, owner: str, rowid: int) -> None:
    """After ``forget`` of the episode at ``rowid``: the two turns after it are indexed again
    without its words. Its own row stays (recall never returns a forgotten item; ``purge``
    is what erases words from the index and the file)."""
    row = conn.execute(
        "SELECT session, seq FROM chronomem_facts WHERE rowid = ? AND kind = 'episode'",
        (rowid,),
    ).fetchone()
    if row is None:
        return
    index = Unindexer(conn, owner)
    index.refresh_followers(str(row[0]), int(row[1]))
    index.flush()
