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
recallable by the memory's other users like any fact. TTL is not supported: the store says so
(``supports_ttl = False``) and refuses a ``ttl`` rather than keeping an item it was asked to
drop. Values must be JSON (a tuple comes back a list).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterable, Sequence
from datetime import datetime

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
    validate_op_namespace,
)

from chronomem import ChronoMem, FactNotActiveError, InvalidArgumentError, InvalidFactError

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
    matches_namespace,
    metadata_of,
    namespace_of,
    prefix_entity,
    pushed_down,
    stored,
)

__all__ = ["ChronoMemStore"]

_RETRIES = 200
"""Attempts of one put when other processes change the same key meanwhile (PostgreSQL).

Each lost attempt means another put of the key committed (progress), and the next attempt
reads its value. Three were too few: 3 processes putting one key lost 16 of 120 puts, 4
lost 44 of 160 (issue 39 item 9). With ``n`` writers a put loses a round to one of the
others at most, and a jittered pause spreads the rounds out, so 200 is never reached in
practice; a put that did reach it would raise rather than spin for ever."""
_PAUSE = 0.002
"""The first pause between attempts, in seconds (doubled up to 64 times that, jittered)."""
_QUERY_CAP = 5000
"""The most items a search with a query asks recall for before filtering."""
_VALUE_RULE = (
    "ChronoMemStore keeps an item's value whole in its fact's metadata: JSON of at most "
    "64 KiB with the item's namespace and key, nested at most 64 deep"
)
_DELETED = "deleted through the LangGraph store"
_ERASED = "deleted through the LangGraph store, which erases on delete"
_CATEGORY_HEAD = 150
"""How many bytes of a category a namespace prefix may ask for (a shortened one keeps 180)."""


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
    """

    supports_ttl = False

    def __init__(
        self, memory: ChronoMem, *, candidates: int = 100, erase_on_delete: bool = False
    ) -> None:
        self.memory = memory
        """The memory holding the items (its owner's)."""
        self.candidates = candidates
        self.erase_on_delete = erase_on_delete
        """Whether ``delete`` erases the key's every value (an application that must forget a
        user for real) instead of forgetting the current one and keeping its history."""

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
        if not puts:
            return [self._read(op) for op in ops]
        erase: list[str] = []
        with self.memory.batch():
            results = [self._read(op) for op in ops]
            for op in puts.values():
                erase += self._write(op)
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
        (``updated_at`` is when each was put)."""
        return [_item(s) for s in self._versions(namespace, key)]

    # -- reads --------------------------------------------------------------------------------

    def _read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            current = self._current(op.namespace, op.key)
            return None if not current else _item(current[-1])
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        if isinstance(op, PutOp):
            return None
        raise ValueError(f"Unknown operation type: {type(op)}")

    def _versions(self, namespace: Sequence[str], key: str) -> list[Stored]:
        facts = self.memory.timeline(key_entity(namespace, key))
        found = [stored(f) for f in facts if f.kind == "fact"]
        return [s for s in found if s and s.namespace == tuple(namespace) and s.key == key]

    def _current(self, namespace: Sequence[str], key: str) -> list[Stored]:
        """The key's active values, newest last: one, unless two processes created the key
        at once on PostgreSQL (then the newest is the value, and the next put settles it)."""
        active = [s for s in self._versions(namespace, key) if s.active]
        return sorted(active, key=lambda s: (s.updated_at, s.fact.id))

    def _under(self, prefix: Sequence[str]) -> list[Stored]:
        """The active items under ``prefix``, one per key: one indexed read of its entity."""
        newest: dict[tuple[tuple[str, ...], str], Stored] = {}
        for fact in self.memory.timeline(prefix_entity(prefix)):
            s = stored(fact) if fact.kind == "fact" else None
            if s and s.active and s.namespace[: len(prefix)] == tuple(prefix):
                seen = newest.get((s.namespace, s.key))
                if seen is None or seen.updated_at < s.updated_at:
                    newest[(s.namespace, s.key)] = s
        return list(newest.values())

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.query and op.query.strip():
            return self._ranked(op, op.query)
        items = [s for s in self._under(op.namespace_prefix) if matches_filter(s.value, op.filter)]
        items.sort(key=lambda s: (s.namespace, s.key))
        return [_search_item(s, None) for s in items[op.offset : op.offset + op.limit]]

    def _ranked(self, op: SearchOp, query: str) -> list[SearchItem]:
        want = max(op.offset + op.limit, 0)
        asked = min(max(self.candidates, 4 * want), _QUERY_CAP)
        where = pushed_down(op.filter) or None
        category = self._sole_category(op.namespace_prefix)
        while True:
            found = self.memory.recall(
                query, kinds=["fact"], limit=asked, where=where, category=category
            )
            kept: dict[tuple[tuple[str, ...], str], tuple[Stored, float]] = {}
            for fact in found:
                s = stored(fact)  # type: ignore[arg-type]  # kinds=["fact"]: only facts
                if s is None or s.namespace[: len(op.namespace_prefix)] != op.namespace_prefix:
                    continue
                if matches_filter(s.value, op.filter):
                    kept.setdefault((s.namespace, s.key), (s, fact.score))
            if len(kept) >= want or len(found) < asked or asked >= _QUERY_CAP:
                break
            asked = min(asked * 4, _QUERY_CAP)
        page = list(kept.values())[op.offset : op.offset + op.limit]
        return [_search_item(s, score) for s, score in page]

    def _sole_category(self, prefix: tuple[str, ...]) -> str | None:
        """The category of the one namespace under ``prefix``, if there is just one (the usual
        ``search(("memories", user), query=...)``): recall then keeps to it inside its
        channels, before its limit, instead of ranking every item and dropping the others."""
        # Two: enough to know "not one".
        found = self.memory.categories(prefix=_category_head(prefix), limit=2)
        if len(found) != 1:
            return None
        namespace = namespace_of(found[0])  # None: shortened, so not known whole
        return found[0] if namespace is not None and namespace[: len(prefix)] == prefix else None

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        # The longest literal start of a prefix condition narrows the read to its entity.
        start: tuple[str, ...] = ()
        for c in conditions:
            if c.match_type == "prefix":
                literal = tuple(c.path[: c.path.index("*")] if "*" in c.path else c.path)
                start = max(start, literal, key=len)
        namespaces = self._namespaces(start)
        kept = [
            ns
            for ns in namespaces
            if all(matches_namespace(ns, c.path, suffix=c.match_type == "suffix")
                   for c in conditions)
        ]  # fmt: skip
        if op.max_depth is not None:
            kept = list({ns[: op.max_depth] for ns in kept})
        return sorted(kept)[op.offset : op.offset + op.limit]

    def _namespaces(self, start: tuple[str, ...]) -> set[tuple[str, ...]]:
        """The namespaces holding an item, under ``start``: read from the categories, and
        from the items only where a category was too long to hold its namespace whole."""
        found: set[tuple[str, ...]] = set()
        shortened = False
        for category in self.memory.categories(prefix=_category_head(start)):
            ns = namespace_of(category)
            shortened = shortened or ns is None
            if ns is not None and ns[: len(start)] == start:
                found.add(ns)
        if shortened:
            found |= {s.namespace for s in self._under(start)}
        return found

    # -- writes -------------------------------------------------------------------------------

    def _write(self, op: PutOp) -> list[str]:
        """Apply one put (or delete); return the ids of the facts to erase after the batch."""
        try:
            return self._attempts(op)
        except InvalidFactError as e:
            if e.field != "metadata":
                raise
            # The value is the fact's metadata, so chronomem's metadata rules are the value's:
            # say so in LangGraph's terms (issue 39 item 14), not as a field the caller never
            # named. The batch's transaction rolls back: nothing of it is written.
            raise InvalidArgumentError("value", f"{e.problem} ({_VALUE_RULE})") from e

    def _attempts(self, op: PutOp) -> list[str]:
        for attempt in range(_RETRIES):
            try:
                if op.value is None:
                    return self._delete(op.namespace, op.key)
                self._put(op)
                return []
            except FactNotActiveError:
                # Another process superseded or forgot the value between our read and our
                # write (PostgreSQL runs both at once): read again and redo, after a pause
                # that keeps the writers of one key from colliding in lockstep.
                if attempt == _RETRIES - 1:
                    raise
                time.sleep(random.uniform(0, _PAUSE * 2 ** min(attempt, 6)))
        return []

    def _delete(self, namespace: tuple[str, ...], key: str) -> list[str]:
        for s in self._current(namespace, key):
            self.memory.forget(s.fact.id, reason=_DELETED)
        if not self.erase_on_delete:
            return []
        return [s.fact.id for s in self._versions(namespace, key)]

    def _put(self, op: PutOp) -> None:
        assert op.value is not None  # a delete went to _delete
        current = self._current(op.namespace, op.key)
        value = dict(op.value)
        if not current:
            self._remember(op.namespace, op.key, value, created_at=None)
            return
        *extra, latest = current
        for s in extra:
            self.memory.forget(s.fact.id, reason="two values were put at once; the newer won")
        if latest.value == value:
            return  # the value it holds: no new belief, no history entry
        content = content_of(op.key, value)
        fields = _fields(op.namespace, op.key, value, content, latest.created_at)
        try:
            self.memory.supersede(latest.fact.id, content, **fields)  # type: ignore[arg-type]  # _fields' mapping holds supersede's keywords
        except InvalidFactError as e:
            if e.field != "content":
                raise
            # A new value whose text reads the same as the old one's (case, spacing):
            # chronomem refuses that as a supersede, so the old value is forgotten instead.
            self.memory.forget(latest.fact.id, reason="replaced by a value that reads the same")
            self._remember(op.namespace, op.key, value, created_at=latest.created_at)

    def _remember(
        self, namespace: tuple[str, ...], key: str, value: dict[str, object], *,
        created_at: datetime | None,
    ) -> None:  # fmt: skip
        content = content_of(key, value)
        fields = _fields(namespace, key, value, content, created_at)
        self.memory.remember(content, dedup=False, **fields)  # type: ignore[arg-type]  # _fields' mapping holds remember's keywords


def _category_head(prefix: Sequence[str]) -> str:
    """How the categories under ``prefix`` start (at most the bytes a shortened one keeps)."""
    return f"{MARK}:{'.'.join(prefix)}".encode()[:_CATEGORY_HEAD].decode(errors="ignore")


def _check_put(op: PutOp) -> None:
    if op.ttl is not None:
        raise NotImplementedError(
            "TTL is not supported by ChronoMemStore (supports_ttl is False); put with "
            "ttl=None: chronomem keeps an item until it is deleted"
        )
    if op.value is not None:
        if not op.namespace or op.namespace[0] == "langgraph":
            raise ValueError(f"invalid namespace {op.namespace!r} for a put")
        if len(op.namespace) > MAX_DEPTH:
            raise ValueError(f"a namespace may have at most {MAX_DEPTH} labels")


def _fields(
    namespace: tuple[str, ...],
    key: str,
    value: dict[str, object],
    content: str,
    created_at: datetime | None,
) -> dict[str, object]:
    return {
        "category": category_of(namespace),
        "entities": entities_of(namespace, key, content),
        "metadata": metadata_of(namespace, key, value, created_at),
    }


def _item(s: Stored) -> Item:
    return Item(value=s.value, key=s.key, namespace=s.namespace, created_at=s.created_at,
                updated_at=s.updated_at)  # fmt: skip


def _search_item(s: Stored, score: float | None) -> SearchItem:
    return SearchItem(namespace=s.namespace, key=s.key, value=s.value, created_at=s.created_at,
                      updated_at=s.updated_at, score=score)  # fmt: skip
