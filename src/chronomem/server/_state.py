"""What the server holds while it runs, and how tools reach it without blocking the loop.

SQLite calls block: a write may wait up to the busy timeout for another process's write lock.
On the event loop that wait would stall every session (a ``tools/list`` took 6.6 s behind one
locked write), so every library call runs in a worker thread, writes and reads on separate
thread budgets so queued writes cannot use up the threads reads need.

One more wait hides inside the memory: ``ChronoMem`` guards its one connection with a lock
and holds it while SQLite makes a write wait, so a read on the same memory would queue behind
the write. Before a write, the server therefore waits for SQLite's write lock on a connection
of its own (:meth:`State.write`), releasing it at once; the memory's own write then finds the
lock free, unless another process takes it in those microseconds. (A second ``ChronoMem`` for
reads would avoid even that; it is safe since
``chronomem.engine.sqlite.schema.check_file`` stopped opening the database file itself.)
chronica's ``SQLiteStore`` pools one connection per thread, so its reads never queue behind its
writes. In WAL mode a read never waits for a writer.

On PostgreSQL (``--db postgresql://...``) the memory and ``PostgresStore`` each keep a pool of
connections and the server takes row locks, not a database lock: writes run side by side, on
as many threads as reads, and there is no probe.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import anyio
import anyio.to_thread

from chronica import Chronicarius
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem
from chronomem._doors.settings import Target, open_session_store

if TYPE_CHECKING:
    from chronica.stores.postgres import PostgresStore

__all__ = ["MAX_READ_THREADS", "State", "open_state"]

T = TypeVar("T")

MAX_READ_THREADS = 8
"""Reads run side by side (WAL); enough threads that a burst of recalls does not queue."""

_LOCK_WAIT_SECONDS = 60.0
"""As long as the libraries wait for a write lock before giving up."""


@dataclass(frozen=True)
class State:
    """One owner's memory and session record on one file, opened by the server's lifespan."""

    owner: str
    memory: ChronoMem
    chronicarius: Chronicarius
    store: SQLiteStore | PostgresStore
    probe: sqlite3.Connection | None
    """Waits for SQLite's write lock outside the memory's connection lock (SQLite only)."""
    writes: anyio.CapacityLimiter
    reads: anyio.CapacityLimiter
    _probe_lock: threading.Lock = field(default_factory=threading.Lock)

    async def write(self, work: Callable[[State], T]) -> T:
        """Run ``work(self)`` in the write thread once SQLite's write lock is free."""
        return await anyio.to_thread.run_sync(self._write, work, limiter=self.writes)

    async def read(self, work: Callable[[State], T]) -> T:
        """Run ``work(self)`` in a read thread, never queued behind a waiting write."""
        return await anyio.to_thread.run_sync(work, self, limiter=self.reads)

    def _write(self, work: Callable[[State], T]) -> T:
        if self.probe is None:
            return work(self)
        with self._probe_lock, contextlib.suppress(sqlite3.Error):
            # Errors are the write's to report: if the lock cannot be had, the memory's own
            # attempt fails with the library's readable error.
            self.probe.execute("BEGIN IMMEDIATE")
            self.probe.execute("ROLLBACK")
        return work(self)

    def close(self) -> None:
        """Release the file (every handle, even if one fails to close)."""
        with contextlib.ExitStack() as stack:
            stack.callback(self.memory.close)
            stack.callback(self.store.close)
            if self.probe is not None:
                stack.callback(self.probe.close)


def _open(
    db: Target, owner: str
) -> tuple[ChronoMem, SQLiteStore | PostgresStore, sqlite3.Connection | None]:
    with contextlib.ExitStack() as opened:
        memory = opened.enter_context(ChronoMem(db, owner=owner))
        store = open_session_store(db)
        opened.callback(store.close)
        probe = None
        if isinstance(db, Path):
            # Opened by SQLite itself (never a plain open() of the file): SQLite keeps one set
            # of file locks per process, and closing any other handle to the file would drop
            # them.
            probe = sqlite3.connect(
                db, timeout=_LOCK_WAIT_SECONDS, isolation_level=None, check_same_thread=False
            )
        opened.pop_all()  # all opened: the state owns them now
    return memory, store, probe


async def open_state(db: Target, owner: str) -> State:
    """Open the database in a worker thread (opening may wait for a lock or migrate it)."""
    memory, store, probe = await anyio.to_thread.run_sync(_open, db, owner)
    return State(
        owner=owner,
        memory=memory,
        chronicarius=Chronicarius(store),
        store=store,
        probe=probe,
        # On SQLite one writer thread: writes queue on its one write lock anyway, and the
        # probe and the memory's connection serve one thread at a time. PostgreSQL takes
        # row locks, so its writes get as many threads as reads.
        writes=anyio.CapacityLimiter(1 if probe is not None else MAX_READ_THREADS),
        reads=anyio.CapacityLimiter(MAX_READ_THREADS),
    )
