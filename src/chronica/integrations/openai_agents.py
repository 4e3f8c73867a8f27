"""The OpenAI Agents SDK's ``Session``, kept in chronica: ``ChronicaSession``.

Switching from the SDK's own store is one line::

    session = SQLiteSession("dinner-friday", "agents.db")                  # before
    session = ChronicaSession("dinner-friday", owner="ardian", store="agents.db")  # after
    result = await Runner.run(agent, "A table for four, please.", session=session)

Install with ``pip install 'chronomem[openai-agents]'``; the module itself imports only
the SDK's types, so importing it costs nothing at run time. The session is the chronicum
``session_id`` of ``owner``, so other agents read the same conversation through chronica,
each item as an actum of a meaningful kind (see :mod:`chronica.integrations._openai_items`).

**Append-only.** Nothing is ever deleted. ``pop_item`` records a retraction (a ``SYSTEM``
message naming the actum it takes back) and ``clear_session`` a clear marker; the adapter's
reads honour both, and the chronicum keeps everything for the audit trail. The SDK's
``OpenAIResponsesCompactionSession`` rewrites a session it wraps through
``_atomic_replace_items``: a clear marker and the compacted items in one write.

**Memory.** Given ``memory=`` (chronomem's ``ChronoMem``, or anything with the methods of
:class:`chronica.integrations.memory.SessionMemory`), every write is followed by indexing what
is new, so each message is an episode too (speaker, session, time, ``source`` = the actum's
id) and a popped or cleared item is forgotten. The session write comes first; indexing reads
only what follows the last indexed actum, and a failure there is logged, never raised: the
next write, or an explicit ``index_session``, catches up.

**Retries.** A retried ``add_items`` is the same ``ChronicaSession`` object receiving the same
items (equal as JSON, in the same order) after a call with them raised or was cancelled: what
the failed attempt had already stored is stored once and the rest is appended in order. On a
:class:`chronica.BatchStore` (every store chronica ships) a call is one transaction, stored
whole or not at all, and its first actum carries the call's mark: a retry looks for it in the
chronicum and writes only if it is not there, so no idempotency key is kept for every item
(one more index entry each, a fifth of a turn's write). On any other store every item is
recorded under an idempotency key that the retry reuses. Once a call has succeeded, the same
items again are a new turn and are stored again, as the SDK's own stores would. A new
``ChronicaSession`` (another process, say) never takes its calls for another object's
retries.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import os
import secrets
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from chronica import (
    Actum,
    BatchStore,
    Chronicarius,
    ChronicaTypeError,
    ChronicumNotFoundError,
    IdempotencyUnsupportedError,
    IdempotentStore,
    InvalidActumError,
    InvalidArgumentError,
    Store,
    TailStore,
)
from chronica._offload import offload
from chronica._validation import check_chronicum_id, check_owner

from ._openai_items import (
    MARK,
    UnmappableItemError,
    check,
    clear_marker,
    item_actum,
    marked,
    retraction,
)
from ._openai_log import Log, decoded
from .memory import SessionMemory, capture, check_memory

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from agents.memory import SessionSettings

__all__ = ["ChronicaSession", "UnmappableItemError"]

_T = TypeVar("_T")
_KEY = "openai-agents"  # the prefix of every idempotency key the adapter uses
_REMEMBERED_FAILURES = 64


class ChronicaSession:
    """An OpenAI Agents SDK ``Session`` over any chronica store.

    ``store`` is a chronica store (``SQLiteStore``, ``PostgresStore``, ``InMemoryStore``...),
    or a path to open a ``SQLiteStore`` at, or a ``postgresql://`` DSN to open a
    ``PostgresStore`` with; a store the session opened is closed by :meth:`close`, one it
    was given belongs to the caller. ``owner`` owns the chronicum: another owner's session
    of the same ID is a different one. ``agent`` is the actor recorded for the agent's
    items (assistant messages, tool calls and outputs, reasoning). ``memory`` (a
    ``chronomem.ChronoMem``) makes every message an episode of it as it is recorded.

    Store calls run in a worker thread, so a slow disk or network never blocks the event
    loop. Every read still asks the store what is new (so appends by other processes are
    seen), but the session keeps what it has already read decoded, since acta never change:
    a read decodes only the acta appended since, at the cost of holding the session's items
    as JSON text in memory. Example::

        session = ChronicaSession("dinner-friday", owner="ardian", store="agents.db")
        await session.add_items([{"role": "user", "content": "A table for four, please."}])
        assert await session.get_items(limit=1) == [
            {"role": "user", "content": "A table for four, please."}
        ]
    """

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        *,
        owner: str,
        store: Store | str | os.PathLike[str],
        agent: str = "openai-agents",
        session_settings: SessionSettings | None = None,
        memory: SessionMemory | None = None,
    ) -> None:
        self.session_id = check_chronicum_id(session_id)
        self._memory = check_memory(memory)
        self._owner = check_owner(owner)
        self._agent = _check_agent(agent)
        self.session_settings = session_settings
        self._store, self._owns_store = _open(store)
        if not isinstance(self._store, IdempotentStore):
            if self._owns_store:
                _close(self._store)
            raise IdempotencyUnsupportedError(self._store)
        self._chronicarius = Chronicarius(self._store)
        # Keys name this object and its call, so no other session's call matches them.
        self._nonce = secrets.token_hex(8)
        self._calls = itertools.count()
        self._failed: dict[str, int] = {}  # batch digest -> the call number to retry with
        self._retrying: set[int] = set()  # calls taken from _failed, not yet written again
        self._batched = isinstance(self._store, BatchStore)
        self._lock = threading.Lock()
        # What this object has read, so reads decode only news (and, on a TailStore, a read
        # that finds nothing new or only this session's write builds no actum at all).
        self._log = Log(
            self._fetch, self._fetch_ids if isinstance(self._store, TailStore) else None
        )

    @property
    def owner(self) -> str:
        """The owner every item is recorded for."""
        return self._owner

    @property
    def store(self) -> Store:
        """The chronica store the session is kept in."""
        return self._store

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items, oldest first; with ``limit``, the latest ``limit`` of them.

        ``limit=None`` falls back to ``session_settings.limit``. Retracted items (by
        :meth:`pop_item`) and items before the latest :meth:`clear_session` are left out, as
        are acta that other agents wrote to the chronicum directly.
        """
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        if limit is not None and limit == 0:
            return []
        # Negative means all, as SQLiteSession's SQL LIMIT does; no session holds 2**62 items.
        count = min(limit, 2**62) if limit is not None and limit > 0 else None
        return await _in_thread(self._items, count)

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` in order, each as one actum; a retried call stores nothing twice.

        Every item is checked before anything is written: one the adapter cannot record
        raises :class:`UnmappableItemError` naming it, and none of the batch is stored. On a
        :class:`chronica.BatchStore` (all of chronica's stores) the call is one transaction,
        as in ``SQLiteSession``: a turn costs one commit, and a failure stores none of it.
        """
        batch: list[Any] = list(items)
        if not batch:
            return
        call = self._claim_call(batch)
        try:
            await _finish(_in_thread(self._add, batch, call))
        except UnmappableItemError:
            raise
        except BaseException:
            self._remember_failure(batch, call)
            raise

    async def _atomic_replace_items(self, items: list[TResponseInputItem]) -> bool:
        """Show ``items`` as the whole session from now on, in one write; True once done.

        The SDK's ``OpenAIResponsesCompactionSession`` calls this hook (it looks for it on
        the session's type) to put a compacted history in place of the session's. Here that
        is a clear marker followed by ``items``, recorded as one ``record_acta``: on a
        :class:`chronica.BatchStore` one transaction, so no reader ever sees the session
        empty between the clear and the rewrite, and a failure changes nothing. Nothing is
        deleted: the items before stay in the chronicum's record. On any other store it
        answers False, and the SDK clears and adds in two calls.
        """
        if not isinstance(self._store, BatchStore):
            return False
        batch: list[Any] = list(items)
        call = self._claim_call(batch)
        try:
            await _finish(_in_thread(self._record, batch, call, True))
        except UnmappableItemError:
            raise
        except BaseException:
            self._remember_failure(batch, call)
            raise
        return True

    async def pop_item(self) -> TResponseInputItem | None:
        """Retract the latest item and return it; None if the session has none.

        The item stays in the chronicum: a retraction actum is appended that the adapter's
        reads honour. Two racing pops never return the same item.
        """
        popped = await _finish(_in_thread(self._pop))
        return None if popped is None else cast("TResponseInputItem", popped)

    async def clear_session(self) -> None:
        """Retract every item so far by appending a clear marker; nothing is deleted."""
        await _finish(_in_thread(self._clear))

    def close(self) -> None:
        """Close the store if the session opened it; a store it was given stays open."""
        if self._owns_store:
            _close(self._store)

    def __repr__(self) -> str:
        return f"ChronicaSession({self.session_id!r}, owner={self._owner!r}, store={self._store!r})"

    # The blocking halves, run in a worker thread.

    def _fetch(self, last_n: int) -> list[Actum]:
        try:
            return self._chronicarius.get_acta(self._owner, self.session_id, last_n=last_n)
        except ChronicumNotFoundError:
            return []

    def _fetch_ids(self, last_n: int) -> list[str]:
        try:
            return cast("TailStore", self._store).acta_ids(
                self.session_id, owner_id=self._owner, last_n=last_n
            )
        except ChronicumNotFoundError:
            return []

    def _items(self, limit: int | None) -> list[TResponseInputItem]:
        """The live items, decoded by one ``json.loads`` of their texts, in the worker."""
        return cast(
            "list[TResponseInputItem]", decoded([held for _, held in self._log.live(limit)])
        )

    def _add(self, batch: list[Any], call: int) -> None:
        """Record the batch as one ``record_acta``: one transaction on a batch store."""
        self._record(batch, call, False)

    def _record(self, batch: list[Any], call: int, clear: bool) -> None:
        """Record the batch as one ``record_acta``; with ``clear``, after a clear marker in
        the same write (see :meth:`_atomic_replace_items`).

        chronica checks every actum before it writes any, so an item it refuses stores
        nothing; only then are the items checked one by one, to name the one refused.
        """
        acta = [
            item_actum(i, item, chronicum_id=self.session_id, owner=self._owner, agent=self._agent)
            for i, item in enumerate(batch)
        ]
        if clear:
            acta.insert(0, clear_marker(self.session_id, self._agent))
        keys = None
        if self._batched:  # one transaction: the mark on its first actum says it was stored
            mark = f"{self._nonce}:{call}"
            with self._lock:
                retry = call in self._retrying
                self._retrying.discard(call)
            if retry and self._stored(mark):
                self._remember()
                return  # the failed attempt stored it all; the next read fetches it
            acta[0] = marked(acta[0], mark)
        else:  # one write an item: each under a key a retry reuses
            prefix = f"{_KEY}:{self._nonce}:{call:012}:"
            keys = [f"{prefix}{i:06}" for i in range(len(batch))]
            if clear:
                keys.insert(0, f"{prefix}clear")
        try:
            stored = self._chronicarius.record_acta(self._owner, acta, idempotency_keys=keys)
        except (InvalidActumError, ChronicaTypeError):
            for i, actum in enumerate(acta[1:] if clear else acta):
                check(i, actum)  # raises the error that names the refused item
            raise
        self._log.wrote(stored)
        self._remember()

    def _stored(self, mark: str) -> bool:
        """Whether the chronicum holds the batch of the call marked ``mark`` (a retry's question,
        asked of the store: other writers may have appended since, so it reads back further
        until it finds the mark or has read the whole chronicum)."""
        n = 64
        while True:
            acta = self._fetch(n)
            for actum in reversed(acta):
                record = actum.metadata.get(MARK)
                if isinstance(record, Mapping) and record.get("call") == mark:
                    return True
            if len(acta) < n:
                return False
            n *= 8

    def _pop(self) -> Any:
        """Retract the newest live item; return it, or None if there is none."""
        while True:
            live = self._log.live(1)
            if not live:
                return None
            nonce = secrets.token_hex(8)
            taken, held = live[0]
            stored = self._chronicarius.record_actum(
                self._owner,
                retraction(self.session_id, self._agent, taken, nonce),
                idempotency_key=f"{_KEY}:pop:{taken}",
            )
            if stored.metadata[MARK].get("nonce") == nonce:
                self._log.wrote([stored])
                self._remember()
                return decoded([held])[0]
            # Another pop retracted this item first: take the next one.

    def _clear(self) -> None:
        try:
            self._chronicarius.get_chronicum(self._owner, self.session_id)
        except ChronicumNotFoundError:
            return  # nothing was ever recorded: nothing to clear
        marker = clear_marker(self.session_id, self._agent)
        self._log.wrote([self._chronicarius.record_actum(self._owner, marker)])
        self._remember()

    def _remember(self) -> None:
        """After a write: the memory indexes what is new (never raises; see ``capture``)."""
        if self._memory is not None:
            capture(self._memory, self._chronicarius, self.session_id, self._owner)

    # Retries of add_items.

    def _claim_call(self, batch: list[Any]) -> int:
        with self._lock:
            if self._failed:
                call = self._failed.pop(_digest(batch), None)
                if call is not None:
                    self._retrying.add(call)
                    return call
            return next(self._calls)

    def _remember_failure(self, batch: list[Any], call: int) -> None:
        digest = _digest(batch)
        with self._lock:
            self._failed[digest] = call
            while len(self._failed) > _REMEMBERED_FAILURES:
                del self._failed[next(iter(self._failed))]


def _digest(batch: list[Any]) -> str:
    try:
        text = json.dumps(batch, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(batch)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _in_thread(call: Callable[..., _T], *args: Any) -> asyncio.Future[_T]:
    """Run a blocking store call on a worker thread, off the event loop (see
    :mod:`chronica._offload`: a cheaper hand-off than the default executor's)."""
    return offload(call, *args)


async def _finish(work: asyncio.Future[_T]) -> _T:
    """Await a write to its end even if the caller is cancelled, then re-raise the cancel.

    As the SDK's own stores do: a cancelled ``add_items`` never leaves a write running
    behind the caller, which a later call could overtake.
    """
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        while not work.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({work})
        if not work.cancelled():
            work.exception()  # retrieved, so asyncio never logs it as unhandled
        raise


def _check_agent(agent: object) -> str:
    if not isinstance(agent, str):
        raise ChronicaTypeError("agent", "str", agent)
    if not agent.strip() or len(agent) > 256 or "\x00" in agent:
        raise InvalidArgumentError("agent", "must be a non-empty name of at most 256 characters")
    return agent


def _open(store: object) -> tuple[Store, bool]:
    """The store ``store`` names, and whether the session opened it (and so closes it)."""
    if isinstance(store, Store):
        return store, False
    if isinstance(store, str) and store.startswith(("postgresql://", "postgres://")):
        from chronica.stores.postgres import PostgresStore  # needs chronomem[postgres]

        return PostgresStore(store), True
    if isinstance(store, (str, os.PathLike)):
        from chronica.stores.sqlite import SQLiteStore

        return SQLiteStore(store), True
    raise ChronicaTypeError(
        "store", "a chronica Store, a SQLite path or a postgresql:// DSN", store
    )


def _close(store: Store) -> None:
    close: Callable[[], object] | None = getattr(store, "close", None)
    if close is not None:
        close()
