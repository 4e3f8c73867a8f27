"""LangGraph's long-term memory store over chronomem: ``ChronoMemStore``.

Switching from LangGraph's own store is one line::

    graph = builder.compile(store=InMemoryStore())                        # before
    graph = builder.compile(store=ChronoMemStore(ChronoMem("memory.db")))  # after

Needs ``pip install 'chronomem[langgraph]'``. The store is a
``langgraph.store.base.BaseStore``: ``get``, ``put``, ``delete``, ``search`` and
``list_namespaces`` and their async twins work as LangGraph documents them, on a SQLite file
(embedded, shared by processes) or PostgreSQL, in the memory's owner. What it adds:

* history: a ``put`` on an existing key supersedes its fact, so every value the key held stays
  in ``timeline`` (:meth:`ChronoMemStore.history`) and ``recall(..., as_of=...)`` sees the
  value of that time; ``delete`` forgets (the item leaves every read, its history stays),
  or, with ``erase_on_delete=True``, purges every value the key ever held (content gone from
  the file, a tombstone keeps only ids and times: :meth:`chronomem.ChronoMem.purge`);
* ``search`` with a ``query`` and no embedding service: chronomem's own recall ranks the items
  (lexical, entity and its embedded semantic channel), each with its score.

Each item is one fact (see :mod:`chronomem.integrations._langgraph_records` for the mapping),
recallable by the memory's other users like any fact, with its key's row beside it
(:class:`chronomem.KeyedFacts`): a get reads one row, a search without a query reads the
namespace's rows in order, ``list_namespaces`` a table of namespaces. TTL is LangGraph's
(``TTLConfig``, a put's ``ttl``, ``refresh_ttl``), and an expired item, never returned, is
erased when swept (see :mod:`chronomem.integrations._langgraph_ttl`). Values must be JSON (a
tuple comes back a list).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta, timezone

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)

from chronomem import ChronoMem, ChronoMemError, InvalidArgumentError, InvalidFactError, Keyed

from ._langgraph_namespaces import legacy_items, list_namespaces
from ._langgraph_records import (
    MARK,
    MAX_DEPTH,
    Stored,
    category_of,
    check_unicode,
    content_of,
    entities_of,
    key_entity,
    matches_filter,
    metadata_of,
    pushed_down,
    pushed_down_value,
    stored,
)
from ._langgraph_ttl import Sweeper, check_ttl, check_ttl_config

__all__ = ["ChronoMemStore"]

_QUERY_CAP = 5000
"""The most items a search with a query asks recall for before filtering."""
_VALUE_RULE = (
    "ChronoMemStore keeps an item's value whole in its fact's metadata: JSON of at most "
    "64 KiB with the item's namespace and key, nested at most 64 deep"
)
_DELETED = "deleted through the LangGraph store"
_ERASED = "deleted through the LangGraph store, which erases on delete"
_EXPIRED = "expired in the LangGraph store (its time to live ran out)"


class ChronoMemStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are chronomem facts of ``memory``'s owner.

    A batch runs its reads first, then its writes (the last put of a key wins), as LangGraph's
    own stores do; a batch with writes is one transaction (:meth:`ChronoMem.batch`).

    ``search`` without a query returns the items under the prefix that pass ``filter``,
    ordered by namespace then key (a stable page order for ``offset``), ``score`` ``None``.
    With a query it ranks by chronomem's recall and keeps those under the prefix that pass
    ``filter``: a string equality of the filter runs inside recall's channels
    (``recall(..., where=...)``, before any limit); the rest runs over recall's candidates,
    at least ``candidates`` and four times ``offset + limit``, widened while too few pass and
    recall has more (up to 5,000). So a query returns the items that relate to it, not every
    item.

    ``ttl`` is LangGraph's ``TTLConfig`` (``default_ttl`` and a put's ``ttl`` in minutes,
    ``refresh_on_read``, ``sweep_interval_minutes``): an item expired is never returned nor
    listed, and :meth:`sweep_ttl` (or the sweeper :meth:`start_ttl_sweeper` runs) erases it,
    every value it held, as :meth:`chronomem.ChronoMem.purge` does. ``clock`` tells the time
    the TTLs are counted in (default: now, UTC); a test passes one it can move.
    """

    supports_ttl = True

    def __init__(
        self,
        memory: ChronoMem,
        *,
        candidates: int = 100,
        erase_on_delete: bool = False,
        ttl: TTLConfig | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.memory = memory
        """The memory holding the items (its owner's)."""
        self.candidates = candidates
        self.erase_on_delete = erase_on_delete
        """Whether ``delete`` erases the key's every value (an application that must forget a
        user for real) instead of forgetting the current one and keeping its history."""
        self.ttl_config = check_ttl_config(ttl)
        self._clock = clock or _utcnow
        self._sweeper = Sweeper(self.sweep_ttl, self.ttl_config)
        self._adopted = False

    # -- the BaseStore contract ---------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` and return their results in order (see the class docstring)."""
        ops = list(ops)
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            validate_op_namespace(op)
            check_unicode(op)
            if isinstance(op, PutOp):
                _check_put(op)
                puts[(op.namespace, op.key)] = op
        self._adopt()
        now = self._clock()
        if not puts:
            return self._reads(ops, now)
        erase: list[str] = []
        self._sweep_expired([op for op in puts.values() if op.value is not None], now, ops)
        if len(ops) == 1:  # one put: its own transaction, with no savepoint inside a batch
            results: list[Result] = [None]
            erase = self._write(ops[0], now, alone=True)  # type: ignore[arg-type]  # the one op is a put
        else:
            with self.memory.batch():
                results = self._reads(ops, now)
                for op in puts.values():
                    erase += self._write(op, now)
        # A purge commits its own transactions, so it runs after the batch: the delete took
        # effect atomically above (forgotten); if killed here, deleting the key again finishes.
        for fact_id in erase:
            self.memory.purge(fact_id, reason=_ERASED)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` on a worker thread, so the event loop never waits on the database."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- beyond it ----------------------------------------------------------------------------

    def history(self, namespace: tuple[str, ...], key: str) -> list[Item]:
        """Every value ``key`` held in ``namespace``, oldest first, deleted ones included
        (``updated_at`` is when each was put; a value whose text reads as the one before it,
        in case and spacing, takes its place: no fact of its own was written)."""
        items = [_item(s) for s in self._versions(namespace, key)]
        current = self.memory.keyed.get(namespace, key, now=None)
        if current is not None and items and items[-1].value != current.value:
            items[-1] = _item_of(current)
        return items

    def sweep_ttl(self) -> int:
        """Erase every item expired by now (each value it held, as a purge does); returns
        how many went. Cannot run inside :meth:`chronomem.ChronoMem.batch`."""
        return self._sweep(self._clock(), None)

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep every ``sweep_interval_minutes`` (default the config's, else 5) on a daemon
        thread until :meth:`stop_ttl_sweeper`; a store without a TTL config sweeps nothing."""
        return self._sweeper.start(sweep_interval_minutes)

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; whether it stopped within ``timeout`` seconds."""
        return self._sweeper.stop(timeout)

    # -- reads --------------------------------------------------------------------------------

    def _reads(self, ops: Sequence[Op], now: datetime) -> list[Result]:
        """Every read of ``ops`` (a put reads as ``None``), then the renewal of the time to
        live of what a get or a search with ``refresh_ttl`` returned."""
        fresh: list[Keyed] = []
        results = [self._read(op, now, fresh) for op in ops]
        if any(k.ttl is not None for k in fresh):
            self.memory.keyed.refresh(fresh, now=now)
        return results

    def _read(self, op: Op, now: datetime, fresh: list[Keyed]) -> Result:
        if isinstance(op, GetOp):
            found = self.memory.keyed.get(op.namespace, op.key, now=now)
            if found is not None and op.refresh_ttl:
                fresh.append(found)
            return None if found is None else _item_of(found)
        if isinstance(op, SearchOp):
            found_items = self._search(op, now)
            if op.refresh_ttl:
                fresh += [k for k, _ in found_items]
            return [_search_item(k, score) for k, score in found_items]
        if isinstance(op, ListNamespacesOp):
            return list_namespaces(self.memory.keyed, op, now)
        if isinstance(op, PutOp):
            return None
        raise ValueError(f"Unknown operation type: {type(op)}")

    def _versions(self, namespace: Sequence[str], key: str) -> list[Stored]:
        facts = self.memory.timeline(key_entity(namespace, key))
        found = [stored(f) for f in facts if f.kind == "fact"]
        return [s for s in found if s and s.namespace == tuple(namespace) and s.key == key]

    def _search(self, op: SearchOp, now: datetime) -> list[tuple[Keyed, float | None]]:
        if op.query and op.query.strip():
            return self._ranked(op, op.query, now)
        want = op.offset + op.limit
        kept: list[Keyed] = []
        equal = pushed_down_value(op.filter)
        after: tuple[tuple[str, ...], str] | None = None
        while True:
            page, after = self.memory.keyed.under(
                op.namespace_prefix, now=now, after=after, limit=max(2 * want, 50),
                equal=equal, keep=lambda value: matches_filter(value, op.filter),
                enough=want - len(kept),
            )  # fmt: skip
            kept += page
            if len(kept) >= want or after is None:
                break
        return [(k, None) for k in kept[op.offset : want]]

    def _ranked(self, op: SearchOp, query: str, now: datetime) -> list[tuple[Keyed, float | None]]:
        want = max(op.offset + op.limit, 0)
        asked = min(max(self.candidates, 4 * want), _QUERY_CAP)
        where = pushed_down(op.filter) or None
        if where and self.memory.keyed.drifted():
            where = None  # a fact's metadata may hold an older value than its key's
        category = self._sole_category(op.namespace_prefix, now)
        while True:
            found = self.memory.recall(
                query, kinds=["fact"], limit=asked, where=where, category=category
            )
            current = self.memory.keyed.of_facts([f.id for f in found], now=now)
            kept: dict[tuple[tuple[str, ...], str], tuple[Keyed, float | None]] = {}
            for fact in found:
                k = current.get(fact.id)
                if k is None or k.namespace[: len(op.namespace_prefix)] != op.namespace_prefix:
                    continue
                if matches_filter(k.value, op.filter):
                    kept.setdefault((k.namespace, k.key), (k, fact.score))
            if len(kept) >= want or len(found) < asked or asked >= _QUERY_CAP:
                break
            asked = min(asked * 4, _QUERY_CAP)
        return list(kept.values())[op.offset : op.offset + op.limit]

    def _sole_category(self, prefix: tuple[str, ...], now: datetime) -> str | None:
        """The category of the one namespace under ``prefix``, if there is just one (the usual
        ``search(("memories", user), query=...)``): recall then keeps to it inside its
        channels, before its limit, instead of ranking every item and dropping the others."""
        found = self.memory.keyed.namespaces(prefix, now=now, limit=2)  # two: "not one"
        return category_of(found[0]) if len(found) == 1 else None

    def _adopt(self) -> None:
        """Give the items a store wrote before the keyed table existed (chronomem before
        schema version 16) their rows, once per store, so they read as before."""
        if self._adopted:
            return
        keyed = self.memory.keyed
        if keyed.empty() and self.memory.categories(prefix=f"{MARK}:", limit=1):
            for s in legacy_items(self.memory):
                keyed.adopt(s.namespace, s.key, s.value, fact_id=s.fact.id,
                            created_at=s.created_at, updated_at=s.updated_at)  # fmt: skip
        self._adopted = True

    # -- writes -------------------------------------------------------------------------------

    def _write(self, op: PutOp, now: datetime, *, alone: bool = False) -> list[str]:
        """Apply one put (or delete); return the ids of the facts to erase after the batch."""
        try:
            if op.value is None:
                return self._delete(op.namespace, op.key)
            self._put(op, now, alone=alone)
            return []
        except InvalidFactError as e:
            if e.field != "metadata":
                raise
            # The value is the fact's metadata, so chronomem's metadata rules are the value's:
            # say so in LangGraph's terms (issue 39 item 14), not as a field the caller never
            # named. The batch's transaction rolls back: nothing of it is written.
            raise InvalidArgumentError("value", f"{e.problem} ({_VALUE_RULE})") from e

    def _sweep_expired(self, puts: Sequence[PutOp], now: datetime, ops: Sequence[Op]) -> None:
        """Erase the expired, unswept items a batch puts again, before it (an erasure commits
        its own transactions): their values must go, not stay as the new value's history.
        A single put learns it from its own write (nothing read first); a batch reads once."""
        if not puts or len(ops) == 1:
            return
        keys = [(op.namespace, op.key) for op in puts]
        if self.memory.keyed.expired_among(keys, now=now):
            self._sweep(now, keys)

    def _sweep(self, now: datetime, only: Sequence[tuple[tuple[str, ...], str]] | None) -> int:
        keyed = self.memory.keyed
        return keyed.sweep(
            now=now, reason=_EXPIRED, only=only,
            history=lambda k: [s.fact.id for s in self._versions(k.namespace, k.key)],
        )  # fmt: skip

    def _delete(self, namespace: tuple[str, ...], key: str) -> list[str]:
        self.memory.keyed.delete(namespace, key, reason=_DELETED)
        if not self.erase_on_delete:
            return []
        return [s.fact.id for s in self._versions(namespace, key)]

    def _put(self, op: PutOp, now: datetime, *, alone: bool) -> None:
        assert op.value is not None  # a delete went to _delete
        value = dict(op.value)
        content = content_of(op.key, value)
        put = functools.partial(
            self.memory.keyed.put, op.namespace, op.key, value, content=content,
            category=category_of(op.namespace),
            entities=entities_of(op.namespace, op.key, content),
            metadata=metadata_of(op.namespace, op.key, value, None),
            expires_at=None if op.ttl is None else now + timedelta(minutes=op.ttl), ttl=op.ttl,
            now=now, index_later=alone,
        )  # fmt: skip
        if put() is None:  # its key held an expired item, not yet swept: erase it, then put
            if not alone:  # the batch erased what had expired before it began
                raise ChronoMemError(f"key {op.key!r} expired while the batch ran: put it again")
            self._sweep(now, [(op.namespace, op.key)])
            put()


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _check_put(op: PutOp) -> None:
    check_ttl(op.ttl)
    if op.value is not None:
        if not op.namespace or op.namespace[0] == "langgraph":
            raise ValueError(f"invalid namespace {op.namespace!r} for a put")
        if len(op.namespace) > MAX_DEPTH:
            raise ValueError(f"a namespace may have at most {MAX_DEPTH} labels")


def _item(s: Stored) -> Item:
    return Item(value=s.value, key=s.key, namespace=s.namespace, created_at=s.created_at,
                updated_at=s.updated_at)  # fmt: skip


def _item_of(k: Keyed) -> Item:
    return Item(value=k.value, key=k.key, namespace=k.namespace, created_at=k.created_at,
                updated_at=k.updated_at)  # fmt: skip


def _search_item(k: Keyed, score: float | None) -> SearchItem:
    return SearchItem(namespace=k.namespace, key=k.key, value=k.value, created_at=k.created_at,
                      updated_at=k.updated_at, score=score)  # fmt: skip
