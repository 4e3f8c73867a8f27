"""``ChronoMem``: the public face of the memory. It owns every rule; SQL lives elsewhere
(the facts table's in :mod:`chronomem.engine.items`, what an insert writes in
:mod:`chronomem.write`, recall's in :mod:`chronomem.recall`)."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any

from chronomem.claims.contradictions import find_contradictions
from chronomem.engine import items as table
from chronomem.engine import names
from chronomem.engine.dialect import Conn
from chronomem.engine.items import FactRow
from chronomem.engine.storage import Storage, open_storage
from chronomem.recall.channels import Meaning
from chronomem.recall.distinct import distinct
from chronomem.recall.fusion import Candidate, check_weights, fuse
from chronomem.recall.lexical import LexicalParams
from chronomem.recall.semantic.nearest import NearestIndex
from chronomem.recall.view import KINDS, View
from chronomem.recall.where import check_where, where_sql
from chronomem.text.entities import entity_key
from chronomem.text.tokens import estimate_tokens, pack
from chronomem.write import purge as purging
from chronomem.write.conversations import Indexed, Turn, episodes_of, index_chronicum
from chronomem.write.episodes import check_episode, insert_episode, insert_episodes
from chronomem.write.facts import (
    SystemClock,
    prepare,
    remember_fact,
)
from chronomem.write.imported import ImportedTombstone
from chronomem.write.importing import import_records
from chronomem.write.keyed_index import catch_up
from chronomem.write.revise import forget_item, supersede_fact
from chronomem.write.upgrade import upgrade_data
from chronomem.write.uses import UseLog
from chronomem.write.vector_space import choose_space, reembed

from ._checks import (
    check_budget,
    check_fact,
    check_id,
    check_kinds,
    check_opt_text,
    check_owner,
    check_positive,
    check_text,
    check_time,
)
from ._errors import (
    ChronoMemError,
    DatabaseError,
    InvalidArgumentError,
    UnknownIdError,
)
from ._keyed import KeyedFacts
from ._model import Contradiction, Episode, Fact, FactId, Purged
from ._records import parse_record, row_to_fact, row_to_item

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from chronica import Chronicarius, RestoreBatch

Item = Fact | Episode

__all__ = ["ChronoMem"]

DEFAULT_LIMIT = 10
PACK_SCAN = 200
_SPARE_ROWS = 2
"""Candidates' rows read beyond the number wanted, for duplicates to be replaced without a
second read (a repeat among the first ten is rare: 41 rows read for 10 kept happened only on
templated synthetic turns)."""
_EXPORT_BATCH = 1000


class ChronoMem:
    """A bi-temporal memory of facts and episodes on one SQLite file (shareable with chronica)
    or, given a ``postgresql://`` DSN or a ``psycopg_pool.ConnectionPool``, on PostgreSQL.

    Facts are what an agent decided to believe (``remember``/``supersede``/``forget``);
    episodes are what was said, in order (``remember_episode``). ``recall`` ranks both.
    Every method is scoped to ``owner``: another owner's items behave as if they did not
    exist. Safe to share between threads; several processes may open the same file, and
    many processes on many machines the same PostgreSQL database.

    ``synchronous`` is SQLite's durability setting (``"NORMAL"`` or ``"FULL"``); on
    PostgreSQL durability is the server's (``synchronous_commit``, on by default: at least
    ``FULL``). ``schema`` is the PostgreSQL schema holding the tables (default
    ``"chronomem"``; letters, digits and underscores), and is refused for a SQLite file.
    ``encoder`` picks the vector space of a new memory: ``"static"`` (the default, shipped
    in the package), ``"minilm-l6"`` (all-MiniLM-L6-v2, the ``encoder`` extra) or
    ``"minilm-l6-q8"`` (its int8 graph, faster, a space of its own); a memory
    keeps the one its vectors are from (see :meth:`reindex`). ``track_use`` (default on)
    records when :meth:`recall` last returned each item, for :meth:`prune`'s ``unused_for``
    (see :mod:`chronomem.write.uses`); off, recall writes nothing (an operator's inspector).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | ConnectionPool = "chronomem.db",
        *,
        owner: str = "default",
        token_counter: Callable[[str], int] | None = None,
        weights: Mapping[str, float] | None = None,
        synchronous: str = "NORMAL",
        schema: str | None = None,
        encoder: str | None = None,
        track_use: bool = True,
    ) -> None:
        self.owner = check_owner(owner)
        if not isinstance(track_use, bool):
            raise InvalidArgumentError("track_use", "must be a bool")
        if token_counter is not None and not callable(token_counter):
            raise InvalidArgumentError("token_counter", "must be a callable str -> int")
        self._count: Callable[[str], int] = token_counter or estimate_tokens
        self.weights = check_weights(weights)
        self._db = open_storage(path, upgrade=upgrade_data, synchronous=synchronous, schema=schema)
        try:
            space = choose_space(self._db, encoder)
        except BaseException:
            self._db.close()
            raise
        self._db.vector_space = space
        self._meaning = Meaning(space, NearestIndex())
        self._clock = SystemClock()
        # Shared by for_owner views; its timer reads the clock the memory has then.
        # A file opened for reading only records nothing, and says nothing of it.
        tracking = track_use and not self._db.read_only
        self._uses = UseLog(self._db, lambda: self._clock.now(), enabled=tracking)
        self._batching = threading.local()  # this thread's open batch() blocks (views share it)
        # The lexical channel's measured parameters; scripts/eval_locomo.py ablates them.
        self._lexical = LexicalParams()

    @property
    def path(self) -> str:
        """The database file (``~`` expanded), or the PostgreSQL server, database and schema
        (never a password)."""
        return self._db.path

    @property
    def keyed(self) -> KeyedFacts:
        """This owner's facts addressed by namespace and key, each key's value beside its
        fact (what a framework's key-value store keeps: see :class:`KeyedFacts`)."""
        return KeyedFacts(self)

    def __enter__(self) -> ChronoMem:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Index what keyed puts left listed, write the uses recall noted (see ``track_use``),
        then release the file. Later calls raise :class:`DatabaseError`."""
        try:
            if not getattr(self._batching, "depth", 0):
                # A closed writer leaves no fact waiting for its index. One closed already, or
                # refused a write now, leaves them listed for the next writer (crash-safe).
                with contextlib.suppress(DatabaseError):
                    self._indexed()
                self._uses.close(self._clock.now())
        finally:
            self._db.close()

    def for_owner(self, owner: str) -> ChronoMem:
        """This memory's file and settings, scoped to ``owner``: one file, many owners.

        For a service that keeps each of its users' memories apart (the ADK memory service
        gives every app and user an owner). The result shares this memory's connection, so
        closing either closes both.
        """
        view = copy.copy(self)
        view.owner = check_owner(owner)
        return view

    # -- writes -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Many writes, one transaction: ``with mem.batch(): ...``.

        Every write inside the block, by this memory or a :meth:`for_owner` view of it, from
        this thread, joins the batch: all commit together when the block ends, and an
        exception leaving the block rolls all of them back. A write that fails inside is
        undone alone, so a caught error leaves the others in the batch. Reads inside see the
        batch's writes; a batch inside a batch joins it. Other threads wait for a batch on a
        SQLite file to end (one writer at a time, as ever); on PostgreSQL they run their own
        transactions meanwhile.
        """
        self._batching.depth = getattr(self._batching, "depth", 0) + 1
        try:
            with self._db.write():
                yield
        finally:
            self._batching.depth -= 1

    def remember(
        self,
        content: str,
        *,
        category: str | None = None,
        trust: float = 0.8,
        confidence: float = 1.0,
        valid_from: datetime | None = None,
        entities: Iterable[str] | None = None,
        source: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        dedup: bool = True,
    ) -> FactId:
        """Store a fact; ``valid_from`` defaults to now. ``.contradicts`` lists active conflicts.

        A fact whose content an active fact of this owner and category already says (the
        same text after Unicode NFKC, case folding, whitespace and surrounding punctuation)
        is not stored again: the existing fact's id comes back with ``.duplicate_of`` set to
        it (``None`` on a fresh write). ``dedup=False`` stores it anyway.
        """
        p = prepare(check_fact(content, category=category, trust=trust, confidence=confidence,
                               valid_from=valid_from, entities=entities, source=source,
                               metadata=metadata))  # fmt: skip
        if not isinstance(dedup, bool):
            raise InvalidArgumentError("dedup", "must be a bool")
        return remember_fact(self._db, self.owner, p, dedup=dedup, clock=self._clock)

    def supersede(
        self,
        old_id: str,
        content: str,
        *,
        category: str | None = None,
        trust: float = 0.8,
        confidence: float = 1.0,
        valid_from: datetime | None = None,
        entities: Iterable[str] | None = None,
        source: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> FactId:
        """Replace an active fact in one transaction; the old one ends at the new ``valid_from``.

        New content that is the old fact's own (after the normalisation ``remember``'s
        duplicate check uses) is refused with :class:`InvalidFactError` and nothing changes:
        a supersede says the belief changed, and that one did not.
        """
        old = check_id(old_id)
        p = prepare(check_fact(content, category=category, trust=trust, confidence=confidence,
                               valid_from=valid_from, entities=entities, source=source,
                               metadata=metadata))  # fmt: skip
        return supersede_fact(self._db, self.owner, old, p, clock=self._clock)

    def forget(self, fact_id: str, reason: str | None = None) -> None:
        """Soft-delete: the fact leaves recall but stays in ``timeline``, ``get`` and exports."""
        fid = check_id(fact_id)
        why = check_opt_text("reason", reason, max_bytes=2048)
        forget_item(self._db, self.owner, fid, why, clock=self._clock)

    def purge(self, item_id: str, *, reason: str | None = None) -> Purged:
        """Erase a fact or an episode for real (an operator's act; agents ``forget``): content,
        category, metadata, claim, entity links, postings and vector go (from the file's bytes
        too, on SQLite); a tombstone keeps id, times, lineage, ``purged_at`` and the reason.
        Again on a tombstone it removes nothing. Returns what went, per kind."""
        return purging.purge_item(self._unbatched(), self.owner, item_id, reason, self._clock.now)

    def purge_session(
        self,
        session: str,
        *,
        reason: str | None = None,
        chronicarius: Chronicarius | None = None,
        owner: str | None = None,
    ) -> Purged:
        """:meth:`purge` every episode of ``session``, a few per transaction (each whole or a
        tombstone if killed; running it again finishes).

        With ``chronicarius``, the session's record goes too: chronica's chronicum of the
        same id (of ``owner``, default this memory's owner) and all its acta, erased by
        :meth:`chronica.Chronicarius.erase_chronicum` (from the file's bytes, on SQLite), so
        the words are in neither the memory nor the record (a session known to only one of
        them is erased there). Without it the record stays: chronica is append-only."""
        return purging.purge_session(
            self._unbatched(), self.owner, session, reason, self._clock.now,
            record=purging.record_eraser(chronicarius, owner or self.owner),
        )  # fmt: skip

    def prune(
        self,
        *,
        episodes_older_than: timedelta | None = None,
        unused_for: timedelta | None = None,
    ) -> Purged:
        """Retention: :meth:`purge` every episode said more than ``episodes_older_than`` ago,
        and every item (fact in any state, or episode) that :meth:`recall` has not returned
        for ``unused_for``; at least one of them. An item never recalled counts from when it
        was written (from when the file began recording uses, for one stored before that:
        schema version 15 on SQLite, 12 on PostgreSQL). A recorded use is at most an hour
        older than the true one, and this memory's unwritten ones are written first; one
        another process has not written yet (at most a minute's) makes an item look older.
        Tombstones keep lineage as :meth:`purge` leaves it. Idempotent, a few per
        transaction, safe beside writers."""
        return purging.prune(
            self._unbatched(), self.owner, self._clock.now,
            episodes_older_than=episodes_older_than, unused_for=unused_for,
            first=lambda: self._uses.flush(self._clock.now()),
        )  # fmt: skip

    def erase_owner(self) -> Purged:
        """Delete this owner's facts, episodes and tombstones and all derived from them; no
        tombstone stays (chronica's sessions: ``Chronicarius.erase_owner``)."""
        return purging.erase_all(self._unbatched(), self.owner)

    def _prime(self, texts: Sequence[str]) -> None:
        """Embed ``texts`` in batches before a transaction stores them (an encoder's cost
        is paid outside the write lock, and a batch at a time)."""
        space = self._meaning.space
        if space is not None and texts:
            space.prime(texts)

    def _unbatched(self) -> Storage:
        if getattr(self._batching, "depth", 0):
            raise ChronoMemError(
                "purge, purge_session, prune and erase_owner cannot run inside batch(): each "
                "commits its own transactions (and on SQLite then empties the write-ahead log)"
            )
        self._indexed()  # a re-embedding must find every vector's fact indexed
        return self._db

    def _indexed(self) -> None:
        """Index the facts keyed puts stored without their index, before a read of it (see
        :mod:`chronomem.write.keyed_index`): one probe read when there are none (about 10 us on
        SQLite); nothing on a file opened read-only, which cannot write the index."""
        if not self._db.read_only:
            catch_up(self._db)

    def remember_episode(
        self,
        content: str,
        *,
        speaker: str,
        session: str,
        at: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Append one turn of a conversation to ``session``; returns its id.

        Order within a session is call order, never ``at``; ``at`` (default now, naive = UTC)
        is when it was said. The turn is indexed with the two before it, so a reply is found
        through the question it answers.
        """
        e = check_episode(content, speaker=speaker, session=session, at=at, metadata=metadata)
        with self._db.write() as conn:
            return insert_episode(conn, self.owner, e, system_time=self._clock.now())

    def remember_episodes(self, turns: Iterable[Turn]) -> list[str]:
        """Remember many turns of conversations as episodes in one transaction; returns each
        turn's episode id, in order.

        For turns recorded elsewhere (a chronica session, an agent framework's events): a turn
        whose ``source`` its session already holds is not stored again and gets the stored
        episode's id, so indexing the same turns twice, or from two processes at once, stores
        each once. Every turn is checked before anything is written (a bad one stores none:
        :class:`InvalidFactError` naming the field); content over an episode's 64 KiB is
        stored by its beginning, since a turn from elsewhere cannot be asked to be shorter.
        """
        episodes = episodes_of(turns)
        self._prime([e.content for e in episodes])
        with self._db.write() as conn:
            ids, _ = insert_episodes(conn, self.owner, episodes, self._clock.now)
        return ids

    def index_session(
        self, chronicarius: Chronicarius, chronicum_id: str, *, owner: str | None = None
    ) -> Indexed:
        """Make a chronica session recallable: its MESSAGE acta become episodes.

        Speaker is the actor, session the chronicum id, ``at`` the actum's time, and each
        episode keeps its actum's id as ``source``. Incremental and idempotent: a call reads
        only the acta recorded after the one its session's newest episode came from, and
        concurrent calls store each actum once. Retractions are honoured: an item an OpenAI
        Agents ``ChronicaSession`` popped or cleared is not indexed, or is forgotten when its
        retraction is read; the markers themselves are never episodes. A turn that cannot be
        stored as said is trimmed or skipped, never raised. Returns an :class:`Indexed`: the
        number of episodes added, with what was skipped, trimmed and forgotten. ``owner`` is
        the chronica owner (default: this memory's owner); another owner's session raises
        chronica's not-found error.
        """
        with self._db.write() as conn:
            return index_chronicum(conn, self.owner, chronicarius, chronicum_id,
                                   owner or self.owner, self._clock.now)  # fmt: skip

    # -- reads --------------------------------------------------------------------------------

    def get(self, fact_id: str) -> Item:
        """The fact or episode, whatever its state; :class:`UnknownIdError` (both a
        :class:`FactNotFoundError` and an :class:`EpisodeNotFoundError`) if unknown or not
        yours."""
        fid = check_id(fact_id)
        with self._db.read() as conn:
            row = table.item_row(conn, self.owner, fid)
        if row is None:
            raise UnknownIdError(fid)
        return row_to_item(row)

    def recall(
        self,
        query: str,
        *,
        token_budget: int | None = None,
        limit: int | None = None,
        active_only: bool = True,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        category: str | None = None,
        kinds: Iterable[str] | None = None,
        where: Mapping[str, Any] | None = None,
        relevant_only: bool = False,
    ) -> list[Item]:
        """Facts and episodes relevant to ``query``, best first, each with ``kind``, ``score``,
        ``tokens`` and ``ranks``.

        View: by default what is valid now, as believed now (neither superseded, forgotten
        nor valid only from a later date); with ``active_only=False`` superseded facts too
        (forgotten never). ``as_of`` (valid time; for an episode, when it was said) and
        ``known_at`` (system time) select a bi-temporal view and take precedence over
        ``active_only``. ``kinds`` restricts the result to ``("fact",)`` or ``("episode",)``;
        ``category`` applies to facts; ``where`` tests metadata fields inside every channel,
        before any limit (``{"city": "Bandung", "stars": {"$gte": 4}}``, see
        :mod:`chronomem.recall.where`). Packing: with ``token_budget``, items are taken best
        first and one that does not fit is skipped (first fit), so the total never exceeds
        the budget; ``limit`` caps the count (default 10 when neither is given).
        ``relevant_only`` is a relevance floor: only items with evidence beyond a name the
        question shares (one of its other words, a meaning near it, a link from what it names)
        come back, so fewer items rather than padding (the MCP tools and hooks set it).
        Every item returned counts as used, for :meth:`prune`'s ``unused_for`` (buffered in
        this process and written in batches: see ``track_use``).
        """
        text = check_text("query", query, max_bytes=8192)
        budget = check_budget(token_budget)
        cap = check_positive("limit", limit)
        tests = check_where(where)
        if not isinstance(active_only, bool):
            raise InvalidArgumentError("active_only", "must be a bool")
        if not isinstance(relevant_only, bool):
            raise InvalidArgumentError("relevant_only", "must be a bool")
        view = View(
            owner=self.owner,
            now=0,
            kinds=check_kinds(kinds, KINDS),
            category=check_opt_text("category", category),
            active_only=active_only,
            as_of=check_time("as_of", as_of),
            known_at=check_time("known_at", known_at),
        )
        if cap is None and budget is None:
            cap = DEFAULT_LIMIT
        self._indexed()
        with self._db.read() as conn:
            # "Now" is read after the snapshot is taken: every write the snapshot holds was
            # stamped before it, so a fact another process superseded a moment ago is never
            # still "valid now" here.
            sql, params = where_sql(conn.dialect, tests)
            view = dataclasses.replace(view, now=self._clock.now(), where=sql,
                                       where_params=tuple(params))  # fmt: skip
            ranked = fuse(conn, text, view, self.weights, self._lexical, self._meaning,
                          relevant_only=relevant_only)  # fmt: skip
            want = cap if budget is None and cap is not None else PACK_SCAN
            # The candidates' rows are read once, in chunks of rank order: their contents
            # tell them apart, and only the kept become records (one statement, on
            # PostgreSQL one round trip, where reading the texts first took two).
            rows: dict[int, FactRow] = {}

            def contents(rowids: Sequence[int]) -> dict[int, str]:
                read = table.rows_by_rowid(conn, rowids)
                rows.update(read)
                return {rowid: row.content for rowid, row in read.items()}

            chosen = distinct(ranked, contents, want, at_least=want + _SPARE_ROWS)
            facts = self._materialise(chosen, rows)
        found = pack(facts, lambda f: f.tokens, budget=budget, limit=cap)
        if self._uses.note([item.id for item in found], view.now) and not getattr(
            self._batching, "depth", 0
        ):
            self._uses.flush(view.now)  # inside a batch it waits: the batch could roll back
        return found

    def _materialise(self, ranked: Sequence[Candidate], rows: Mapping[int, FactRow]) -> list[Item]:
        return [
            row_to_item(rows[c.rowid], score=c.score, tokens=self._tokens(rows[c.rowid].content),
                        ranks=dict(c.ranks))
            for c in ranked
        ]  # fmt: skip

    def _tokens(self, content: str) -> int:
        n = self._count(content)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ChronoMemError(f"token_counter returned {n!r}; expected an int >= 0")
        return n

    def timeline(self, entity: str) -> list[Fact]:
        """Every fact about ``entity`` (any spelling of it), active and historical, oldest first."""
        key = entity_key(check_text("entity", entity, max_bytes=200))
        self._indexed()
        with self._db.read() as conn:
            rows = table.timeline_rows(conn, self.owner, key)
        return [row_to_fact(r) for r in rows]

    def entity_names(self, prefix: str = "", *, after: str = "", limit: int = 20) -> list[str]:
        """Names of this owner's entities whose normal form starts with ``prefix``'s, in that
        form's order, after the entity ``after`` names (the last of a previous page), at most
        ``limit``: for completing a name as it is typed, through the entities' index."""
        start, above = _prefix_key("prefix", prefix), _prefix_key("after", after)
        n = check_positive("limit", limit) or 1
        self._indexed()
        with self._db.read() as conn:
            found = names.entity_names(conn, self.owner, start, after=above, limit=n)
        return [name for _, name in found]

    def fact_ids(self, prefix: str = "", *, limit: int = 20) -> list[str]:
        """Ids of this owner's facts (any state) that start with ``prefix``, in id order, at
        most ``limit``: for completing an id as it is typed, through the ids' index."""
        start = "" if prefix == "" else check_text("prefix", prefix, max_bytes=200)
        n = check_positive("limit", limit) or 1
        with self._db.read() as conn:
            return names.fact_ids(conn, self.owner, start, limit=n)

    def unique_prefixes(self, ids: Iterable[str], *, shortest: int = 8) -> dict[str, str]:
        """For each of ``ids``, its shortest prefix (at least ``shortest`` characters) that
        starts no other fact id of this owner, as git abbreviates a commit: short ids a model
        can read and give back (another owner's ids never count). Two look-ups per id, each
        a bounded range of the ids' index, in one statement. An id no fact of this owner has still
        gets a prefix that starts none of its facts."""
        n = check_positive("shortest", shortest) or 1
        wanted = list(dict.fromkeys(check_id(i) for i in ids))
        with self._db.read() as conn:
            around = names.fact_neighbours(conn, self.owner, wanted, n)
        return {
            fid: fid[: max(n, _common(fid, below) + 1, _common(fid, above) + 1)]
            for fid, (below, above) in zip(wanted, around, strict=True)
        }

    def fact_ids_ending(self, suffix: str, *, limit: int = 20) -> list[str]:
        """Ids of this owner's facts that end with ``suffix`` (at least 8 characters, as
        :meth:`unique_suffixes` gives them), in id order, at most ``limit``: one probe of the
        index of the ids' last eight digits."""
        end = check_text("suffix", suffix, max_bytes=200)
        if len(end) < names.TAIL:
            raise InvalidArgumentError("suffix", f"must have at least {names.TAIL} characters")
        n = check_positive("limit", limit) or 1
        with self._db.read() as conn:
            return names.fact_ids_ending(conn, self.owner, end, limit=n)

    def unique_suffixes(self, ids: Iterable[str], *, shortest: int = 8) -> dict[str, str]:
        """For each of ``ids``, the shortest end of it that ends no other fact id of this
        owner, with at least ``shortest`` characters (8 at the least) and enough for the
        owner's size: short ids that stay valid while the memory grows.

        A fact id is its time, then random digits. Ids written moments apart share their
        start, so a shortest unique prefix soon stops being unique; their ends are random,
        so an end stays unique unless a later id happens to end alike. The digits grow with
        the memory (four more than writing its count in hex takes: 8 up to 65,535 facts, 9
        up to about a million, 10 up to 16 million), so ten times more facts later make a
        shown end ambiguous about once in 6,500. One probe of the ids' tail index per 100
        ids, and one read of the count."""
        n = max(check_positive("shortest", shortest) or 1, names.TAIL)
        wanted = list(dict.fromkeys(check_id(i) for i in ids))
        with self._db.read() as conn:
            n = max(n, len(f"{names.fact_count(conn, self.owner):x}") + 4)
            twins = names.tail_twins(conn, self.owner, wanted)
        return {
            fid: fid[-max([n, *(_common(fid[::-1], t[::-1]) + 1 for t in twins[fid])]) :]
            for fid in wanted
        }

    def contradictions(self) -> list[Contradiction]:
        """Groups of active facts (same entity, category and attribute) that disagree."""
        self._indexed()
        with self._db.read() as conn:
            return find_contradictions(conn, self.owner)

    def stats(self) -> dict[str, int | str]:
        """Counts of facts by state, of episodes and of entities, plus the file and schema."""
        self._indexed()
        with self._db.read() as conn:
            n = table.counts(conn, self.owner)
        return {
            **n._asdict(), "path": self.path, "owner": self.owner,
            "schema_version": self._db.schema_version,
        }  # fmt: skip

    @property
    def encoder(self) -> str | None:
        """The vector space this memory embeds and searches with (``None``: the channel is
        off, numpy or the model missing)."""
        space = self._meaning.space
        return None if space is None else space.name

    def reindex(self, encoder: str, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Re-embed every item of the file (every owner's) with ``encoder`` and make it the
        file's space; returns the vectors stored. Resumable: killed, run it again. Writers in
        other processes should be stopped first (they embed with the space they opened)."""
        if progress is not None and not callable(progress):
            raise InvalidArgumentError("progress", "must be a callable (done, total) -> None")
        count = reembed(self._unbatched(), encoder, progress)
        space = choose_space(self._db, encoder)
        self._db.vector_space = space
        self._meaning = Meaning(space, NearestIndex())
        return count

    def categories(self, prefix: str = "", *, limit: int | None = None) -> list[str]:
        """The categories of this owner's active facts that start with ``prefix``, sorted,
        the first ``limit`` of them if given (one index probe per category, no item read: how
        the LangGraph store lists its namespaces)."""
        if not isinstance(prefix, str):
            raise InvalidArgumentError("prefix", "must be a str")
        cap = check_positive("limit", limit)
        with self._db.read() as conn:
            return table.categories(conn, self.owner, prefix, cap)

    def export_facts(self) -> Iterator[dict[str, Any]]:
        """Every fact and episode of this owner as a JSON-able dict (``kind`` says which; all
        times and lineage), oldest first."""
        last = 0
        while True:
            with self._db.read() as conn:
                page = table.export_page(conn, self.owner, last, _EXPORT_BATCH)
            if not page:
                return
            for _, row in page:
                record = row_to_item(row).to_dict()
                for key in ("score", "tokens", "ranks"):
                    del record[key]
                yield record
            last = page[-1][0]

    def import_facts(self, records: Iterable[Mapping[str, Any]]) -> int:
        """Restore exported facts and episodes exactly (ids, times, lineage); all or nothing.

        Every record is validated with the rules of a live write before anything is written.
        Ids already present for this owner are skipped, so re-importing is harmless; the
        return value counts the items actually inserted.
        """
        parsed = [parse_record(r) for r in records]
        self._prime([r.data.content for r in parsed if not isinstance(r, ImportedTombstone)])
        return sum(import_records(self._db, self.owner, parsed))

    def import_with_sessions(
        self, records: Iterable[Mapping[str, Any]], sessions: RestoreBatch | None
    ) -> tuple[int, int, int]:
        """:meth:`import_facts`, and chronica's sessions of this same SQLite file restored in
        the same transaction, all or nothing; returns the facts, the episodes and the acta
        newly stored.

        ``sessions`` is what :meth:`chronica.Chronicarius.check_restore` returned for this
        memory's file (the command line's ``import`` of an export that holds both), or
        ``None``: the records alone, counted by kind.
        """
        from chronica import RestoreBatch
        from chronica.stores.sqlite import restore_batch

        if sessions is not None and not isinstance(sessions, RestoreBatch):
            raise InvalidArgumentError("sessions", "must be a chronica RestoreBatch or None")
        parsed = [parse_record(r) for r in records]
        self._prime([r.data.content for r in parsed if not isinstance(r, ImportedTombstone)])
        stored = 0

        def restore(conn: Conn) -> None:
            nonlocal stored
            if sessions is None:
                return
            if not isinstance(conn, sqlite3.Connection):
                raise ChronoMemError("sessions are restored with the facts on a SQLite memory only")
            stored = restore_batch(conn, sessions)

        facts, episodes = import_records(self._db, self.owner, parsed, then=restore)
        return facts, episodes, stored


def _common(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share from the start."""
    # Unequal lengths on purpose: the shorter id ends the comparison.
    n = min(len(a), len(b))
    return next((i for i, (x, y) in enumerate(zip(a[:n], b[:n], strict=True)) if x != y), n)


def _prefix_key(field: str, prefix: object) -> str:
    """The normal form of a typed prefix (``""`` stays ``""``: every entity)."""
    return "" if prefix == "" else entity_key(check_text(field, prefix, max_bytes=200))
