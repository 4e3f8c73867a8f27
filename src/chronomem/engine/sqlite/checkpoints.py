"""Checkpoints on a thread of their own, so a writer's commit does not wait for them.

In WAL mode a commit appends its pages to the ``-wal`` log, and a checkpoint copies them back
into the database file and syncs it. SQLite runs one inside the commit that takes the log past
``wal_autocheckpoint`` pages, so every few hundred serial writes one waits for a copy and two
syncs: at 1,000,000 episodes one ``remember_episode`` in about 200 waited 20-30 ms, a sixth of
the mean call at ``synchronous=NORMAL``.

Here a thread with a connection of its own runs a ``PASSIVE`` checkpoint after every
:data:`CHECKPOINT_EVERY` commits of its :class:`~chronomem.engine.sqlite.db.Database`, beside
the writer (Python's sqlite3 lets go of the GIL while SQLite works, so on a second core the
two overlap). The writer's own auto-checkpoint stays where it was, as a backstop: a passive
checkpoint running beside a busy writer never ends with the whole log copied, and SQLite
starts the log over only after one that does, so without the backstop a writer that never
pauses would grow the log, and every read's search of it, without end (600 serial writes
left 8,748 pages in it). The backstop's checkpoint copies only the few pages the thread has
not, so it is short. But SQLite skips it, rather than wait, while the thread runs one, and
a writer at ``synchronous=NORMAL`` can commit faster than the thread copies and syncs: 600
writes (checkpoints every 5 commits, backstop at 200 pages) left 1,015-7,765 pages in the
log, and 3,000 at the defaults 6,400-7,800 pages against a backstop of 4,000. So a writer
that finds the thread's checkpoint still running after as many commits as would take the
log past the backstop waits for it to end and copies the rest of the log itself
(:meth:`Checkpointer.catch_up`). So does a writer after the thread's checkpoint finds the
log past the backstop: a thread whose checkpoints each last a few commits is almost always
running one when the backstop comes due, never long enough to count as behind, and the log
grew to 1,863 pages in that 600-write run under CI's load. That one runs beside no other
writer of the memory, copies the whole log and lets the next commit start it over: the 600
writes left 258-685 pages (381-468 beside two busy and two syncing processes), and at the
defaults a quiet machine waits once at most (3,000 calls, 2,364-2,823/s, 0-1 catching up).

The backstop is not set higher: a log that grows into new space makes a FULL commit's sync
write the file's new size too, and with the backstop at 16,000 pages 1,000 FULL
calls from an empty log ran at 1,150-1,353/s against 1,560-1,756/s.

Measured on copies of the 1,000,000-episode fill, serial ``remember_episode`` calls, each
variant in a process of its own, in turn (the writer checkpointing at 4,000 pages, against
this thread): at NORMAL, 3,000 calls, 2,448-2,533/s against 2,617-2,761/s, the slowest call
18-20 ms against 8-9 ms; 1,000 calls, 1,827-2,498/s against 2,442-2,584/s; at FULL, 1,000
calls, 1,560-1,756/s against 1,585-1,697/s (the same: FULL syncs every commit anyway).

A checkpoint is as safe here as in the writer: SQLite runs one at a time across every
process (a busy one is skipped, not waited for), and a process killed in the middle leaves
the log to be copied by the next. If the thread's connection fails, the failure is logged and
the backstop does the work.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import urllib.parse

from chronica.stores.sqlite import WAL_AUTOCHECKPOINT_PAGES

__all__ = ["BACKSTOP_PAGES", "CHECKPOINT_EVERY", "Checkpointer"]

log = logging.getLogger("chronomem.sqlite")

CHECKPOINT_EVERY = 50
"""Commits between two checkpoints of the thread."""

_PAGES_PER_COMMIT = 20
"""The most pages of log one remembered episode writes, about (16-20 in a large memory)."""

BACKSTOP_PAGES = WAL_AUTOCHECKPOINT_PAGES
"""The writer's own auto-checkpoint, in pages of log (see the module's docstring)."""


class Checkpointer:
    """The checkpoint thread of one database file, started by the first commit that asks for
    a checkpoint (a memory that only reads never starts one)."""

    def __init__(self, path: str, *, synchronous: str, backstop_pages: int) -> None:
        # mode=rw: a file removed under the memory is not created again, empty.
        self._uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=rw"
        self._path = path
        self._synchronous = synchronous  # a checkpoint syncs as the writer's commits do
        # Commits a checkpoint of the thread may run through before the writer catches up:
        # as many as take the log past the backstop when each writes as much as an episode.
        self._behind_after = max(CHECKPOINT_EVERY, backstop_pages // _PAGES_PER_COMMIT)
        self._backstop_pages = backstop_pages
        self._overdue = False  # the thread found the log past the backstop: it was skipped
        self._commits = 0  # since the thread was last woken
        self._count = 0  # since the memory opened
        self._began_at: int | None = None  # _count when the thread's running checkpoint began
        self._turn = threading.Lock()  # one checkpoint at a time: the thread's or the writer's
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.checkpoints = 0
        """Checkpoints the thread has run to their end (one skipped as busy is not one)."""
        self.caught_up = 0
        """Checkpoints the writer ran itself because the thread's fell behind."""

    @property
    def running(self) -> bool:
        """Whether the thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def committed(self) -> bool:
        """Count a commit of the writer; every :data:`CHECKPOINT_EVERY`-th wakes the thread.

        Returns whether the writer should :meth:`catch_up`: the thread's running checkpoint
        began as many commits ago as would take the log past the backstop, or the thread's
        last one found the log past it (the backstop was skipped every time it came due,
        because the thread was always checkpointing). Called with the writer's lock held, so
        commits are counted one at a time."""
        self._count += 1
        began_at = self._began_at
        behind = self._overdue or (
            began_at is not None and self._count - began_at >= self._behind_after
        )
        self._commits += 1
        if self._commits >= CHECKPOINT_EVERY:
            self._commits = 0
            self._start_or_wake()
        return behind

    def catch_up(self, conn: sqlite3.Connection) -> None:
        """Wait for the thread's checkpoint to end, then copy the rest of the log on the
        writer's connection ``conn``, between two of its transactions. The write is already
        committed, so a failure is logged and left to the backstop."""
        with self._turn:
            try:
                busy = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[0]
            except sqlite3.Error as e:
                log.warning("a checkpoint of %s failed: %s", self._path, e)
                return
        if not busy:
            self._overdue = False
            self.caught_up += 1

    def _start_or_wake(self) -> None:
        if self._thread is None and not self._stopping:
            self._thread = threading.Thread(
                target=self._run, name=f"chronomem checkpoints of {self._path}", daemon=True
            )
            self._thread.start()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread, after the checkpoint it is running; safe to call twice."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self._uri, uri=True, isolation_level=None)
        except sqlite3.Error as e:
            log.warning("checkpoints of %s stay with its writer: %s", self._path, e)
            return
        try:
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    return
                with self._turn:
                    self._began_at = self._count
                    try:
                        busy, pages, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    finally:
                        self._began_at = None
                if not busy:
                    self.checkpoints += 1
                    if pages >= self._backstop_pages:
                        self._overdue = True
        except sqlite3.Error as e:
            log.warning("checkpoints of %s stay with its writer: %s", self._path, e)
        finally:
            conn.close()
