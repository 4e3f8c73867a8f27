"""Checkpoints off the writer's path: a serial writer at ``synchronous=NORMAL`` never waits
for one.

In WAL mode a commit appends its pages to the log, and a checkpoint copies the log back into
the database file. SQLite runs it inside the commit that takes the log past
``wal_autocheckpoint`` pages, so one write in a hundred or so waits for it. At NORMAL that is
the only moment anything waits for the disk (the log synced, its pages written back, the file
synced): 10-20 ms on a file of 1,000,000 episodes, a quarter of a serial writer's time on
average (matrix 6 of the benchmark).

A :class:`Checkpointer` runs the checkpoint in a thread of its own, on a connection of its
own, at most once per :data:`INTERVAL` while writes come. It is ``PASSIVE``: it copies what
no reader still needs and never waits for a lock, so it blocks neither the writer nor a
reader, of this process or another. The thread leaves after :data:`IDLE` seconds without a
write (and closes its connection), so a memory nobody writes to holds no thread, and one
never closed leaks none for long. The writer's own automatic checkpoint stays as a backstop,
at :data:`BACKSTOP` times its usual pages: a log the thread cannot keep up with (a bulk
import's commit, a reader holding an old snapshot, a child process forked without the
thread) is still bounded.

At ``synchronous=FULL`` every commit waits for the disk anyway, and a checkpoint beside it
gained nothing when measured, so there the writer checkpoints as before.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator

__all__ = ["BACKSTOP", "IDLE", "INTERVAL", "Checkpointer"]

INTERVAL = 0.1
"""Seconds between two checkpoints at most: a serial writer at NORMAL appends about as many
pages in that time as the writer's own checkpoint used to copy at once."""
IDLE = 5.0
"""Seconds without a write after which the thread leaves."""
BACKSTOP = 4
"""How many times its usual ``wal_autocheckpoint`` the writer connection keeps while a
checkpointer runs beside it."""

_log = logging.getLogger("chronomem.sqlite")


class Checkpointer:
    """Passive checkpoints of one file, in the background, after the writes that
    :meth:`nudge` it."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._changed = threading.Condition(threading.Lock())
        self._due = False
        self._closing = False
        self._thread: threading.Thread | None = None
        self._running = threading.Lock()  # held through each checkpoint; see held_off()
        self.checkpoints = 0
        """How many checkpoints ran (tests and benchmarks read it)."""

    def nudge(self) -> None:
        """A write committed: checkpoint within :data:`INTERVAL` (the thread is started if
        none runs). Cheap (a lock and a flag), and never raises: the write stands."""
        with self._changed:
            if self._closing or self._due:
                return  # a checkpoint is due already: its thread wakes on its own
            self._due = True
            if self._thread is not None:
                self._changed.notify()
                return
            thread = threading.Thread(
                target=self._run, name=f"chronomem-checkpoint {self._path}", daemon=True
            )
            try:
                thread.start()
            except RuntimeError as e:  # no thread to be had: the writer's backstop remains
                _log.warning("no background checkpoint of %s: %s", self._path, e)
                return
            self._thread = thread

    @contextlib.contextmanager
    def held_off(self) -> Iterator[None]:
        """No background checkpoint runs inside (one under way is waited for): SQLite runs one
        checkpoint at a time and refuses a second at once, so one that must complete (a
        purge emptying the log) holds the thread off first."""
        with self._running:
            yield

    def wait_quiet(self, timeout: float = 5.0) -> bool:
        """Wait until no checkpoint is due or under way, for at most ``timeout`` seconds;
        whether it is so. For measurements that must not time one file's writes beside
        another file's checkpoints."""
        deadline = time.monotonic() + timeout
        while True:
            with self._changed:
                due = self._due
            if not due and self._running.acquire(blocking=False):
                self._running.release()
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)

    def close(self) -> None:
        """Stop the thread, waiting for a checkpoint under way; safe to call twice."""
        with self._changed:
            self._closing = True
            thread = self._thread
            self._changed.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        last = 0.0
        try:
            while self._next(last):
                if conn is None:
                    conn = _connect(self._path)
                last = time.monotonic()
                self._checkpoint(conn)
        except sqlite3.Error as e:  # no connection to be had: the writer's backstop remains
            _log.warning("no background checkpoints of %s: %s", self._path, e)
            with self._changed:
                self._closing, self._thread = True, None
        finally:
            if conn is not None:
                conn.close()

    def _next(self, last: float) -> bool:
        """Wait until a checkpoint is due and :data:`INTERVAL` has passed since the last one;
        False when the thread should leave (closing, or idle), having cleared ``_thread``."""
        with self._changed:
            while not self._closing:
                wait = IDLE if not self._due else last + INTERVAL - time.monotonic()
                if self._due and wait <= 0:
                    self._due = False
                    return True
                if not self._changed.wait(wait) and not self._due:
                    break  # idle: the next nudge starts a new thread
            self._thread = None
            return False

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        try:
            with self._running:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.checkpoints += 1
        except sqlite3.Error as e:  # e.g. the file was removed; the writer's backstop remains
            _log.debug("checkpoint of %s failed: %s", self._path, e)


def _connect(path: str) -> sqlite3.Connection:
    """The thread's own connection: a checkpoint needs no settings (``PASSIVE`` never waits)."""
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False)
