"""``AsyncChronoMem``: chronomem for asyncio applications (agent frameworks, the LangGraph
store's ``abatch``, an MCP server).

Like chronica's ``AsyncChronicarius`` it delegates to a :class:`ChronoMem` on a worker thread
instead of duplicating it: the rules live in one place, and blocking drivers (sqlite3, psycopg)
never stall the event loop. The coroutines are made by one function, :func:`_twin`, from the
sync methods themselves (their parameters and return types carried over by ``ParamSpec``), and
a test checks that every public ``ChronoMem`` method has its twin, so a new method cannot be
forgotten here.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, TypeVar

from ._memory import ChronoMem

__all__ = ["AsyncChronoMem"]

P = ParamSpec("P")
R = TypeVar("R")

_EXPORT_CHUNK = 1000
"""Records an ``export_facts`` hop reads (one thread hop per record would cost more than it
reads)."""


def _twin(
    method: Callable[Concatenate[ChronoMem, P], R],
) -> Callable[Concatenate[AsyncChronoMem, P], Coroutine[Any, Any, R]]:
    """The coroutine that runs ``method`` on the memory in a worker thread.

    An iterator argument (a generator of turns or records) is read here, before the hop, so a
    generator touching the caller's state runs on the caller's thread, as chronica's
    ``record_acta`` does.
    """

    async def twin(self: AsyncChronoMem, /, *args: P.args, **kwargs: P.kwargs) -> R:
        read = [list(a) if isinstance(a, Iterator) else a for a in args]
        return await asyncio.to_thread(method, self.sync, *read, **kwargs)  # type: ignore[arg-type]  # the same arguments, an iterator read into a list (still an Iterable)

    functools.update_wrapper(twin, method)  # its name and, for help(), its signature
    twin.__qualname__ = f"AsyncChronoMem.{method.__name__}"
    twin.__doc__ = f"See :meth:`ChronoMem.{method.__name__}` (run on a worker thread)."
    return twin


class AsyncChronoMem:
    """The methods of :class:`ChronoMem` as coroutines: ``await mem.recall(...)``.

    Open it as ``ChronoMem`` opens (``AsyncChronoMem("memory.db", owner=...)``) or around an
    existing memory (``AsyncChronoMem.wrap(mem)``, sharing its connection). Calls run on
    asyncio's default thread pool, so many may be in flight at once; the memory is safe to
    share between threads. ``async with`` closes it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sync = ChronoMem(*args, **kwargs)
        """The :class:`ChronoMem` every call runs on (for sync code beside async code)."""

    @classmethod
    def wrap(cls, memory: ChronoMem) -> AsyncChronoMem:
        """An ``AsyncChronoMem`` over ``memory`` (closing either closes both)."""
        self = cls.__new__(cls)
        self.sync = memory
        return self

    @property
    def owner(self) -> str:
        """The owner every call is scoped to."""
        return self.sync.owner

    @property
    def path(self) -> str:
        """See :attr:`ChronoMem.path`."""
        return self.sync.path

    def for_owner(self, owner: str) -> AsyncChronoMem:
        """See :meth:`ChronoMem.for_owner` (no I/O, so not a coroutine)."""
        return AsyncChronoMem.wrap(self.sync.for_owner(owner))

    async def __aenter__(self) -> AsyncChronoMem:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def batch(self, work: Callable[[ChronoMem], R]) -> R:
        """Run ``work(memory)`` inside :meth:`ChronoMem.batch`, on one worker thread.

        A batch is a transaction of the thread that opened it, and each ``await`` may resume
        on another thread, so the async form takes the writes as one sync function: all of
        them commit together, or an exception leaving ``work`` rolls all of them back.
        """

        def run() -> R:
            with self.sync.batch():
                return work(self.sync)

        return await asyncio.to_thread(run)

    async def export_facts(self) -> AsyncIterator[dict[str, Any]]:
        """See :meth:`ChronoMem.export_facts`: read a thousand records per thread hop."""
        records = self.sync.export_facts()

        def chunk() -> list[dict[str, Any]]:
            return list(itertools.islice(records, _EXPORT_CHUNK))

        while read := await asyncio.to_thread(chunk):
            for record in read:
                yield record

    close = _twin(ChronoMem.close)
    remember = _twin(ChronoMem.remember)
    supersede = _twin(ChronoMem.supersede)
    forget = _twin(ChronoMem.forget)
    purge = _twin(ChronoMem.purge)
    purge_session = _twin(ChronoMem.purge_session)
    prune = _twin(ChronoMem.prune)
    erase_owner = _twin(ChronoMem.erase_owner)
    remember_episode = _twin(ChronoMem.remember_episode)
    remember_episodes = _twin(ChronoMem.remember_episodes)
    index_session = _twin(ChronoMem.index_session)
    get = _twin(ChronoMem.get)
    recall = _twin(ChronoMem.recall)
    timeline = _twin(ChronoMem.timeline)
    entity_names = _twin(ChronoMem.entity_names)
    fact_ids = _twin(ChronoMem.fact_ids)
    unique_prefixes = _twin(ChronoMem.unique_prefixes)
    fact_ids_ending = _twin(ChronoMem.fact_ids_ending)
    unique_suffixes = _twin(ChronoMem.unique_suffixes)
    contradictions = _twin(ChronoMem.contradictions)
    stats = _twin(ChronoMem.stats)
    categories = _twin(ChronoMem.categories)
    reindex = _twin(ChronoMem.reindex)
    import_facts = _twin(ChronoMem.import_facts)
    import_with_sessions = _twin(ChronoMem.import_with_sessions)
