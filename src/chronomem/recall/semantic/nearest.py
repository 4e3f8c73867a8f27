"""Nearest neighbours by meaning: the owner's items nearest a question, whatever its words.

The file stays the source of truth: every vector lives in ``chronomem_vectors``, written in
the transaction that writes its item. This index is the process's copy of one owner's vectors,
in memory, caught up from the table before each search: the rows added since the last one
(an index range on the table's key), or all of them again when an erasure or a re-embedding
bumped the file's vector epoch. So a killed process loses nothing (its copy dies with it and
the next one reads the table), an erased vector leaves every copy at the next search (and
exists in no file but the table it was deleted from), and a vector is never searched twice.

Up to LISTS_FROM items the search reads every vector: the first ``coarse`` dimensions of each
shortlist (the static model's dimensions come in order of variance, so a quarter of them rank
almost as well as all: near-exact, not exact, since a vector whose leading dimensions undersell
it can miss the shortlist), and the shortlist is ranked on every dimension. Beyond, it reads only
the lists nearest the question (:mod:`.lists`), so its cost stops growing with the owner.
Measured against the candidates an embedded approximate index offers, and why this one: see
docs/retrieval.md, "Vector index".
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chronomem.engine.dialect import Conn
from chronomem.recall.semantic import lists
from chronomem.recall.semantic.spaces import VectorSpace
from chronomem.recall.semantic.threads import single_blas_thread
from chronomem.recall.semantic.vectors import EPOCH_KEY

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Copy", "NearestIndex", "top_rows"]

_SHORTLIST = 8  # the shortlist is this many times the neighbours asked for (at least 256)
_READ_BATCH = 5000
# PostgreSQL draws rowids from a sequence when a row is inserted, not when it commits, so a
# transaction open during one catch-up (a batch, an import) may commit rows below the highest
# item that catch-up saw. The catch-up after one that saw a writer in flight reads this many
# rowids again below it, and every RESYNC_SECONDS a copy is read whole again, so such a row
# joins the search within seconds (the words find it meanwhile). With no writer in flight, and
# always on SQLite (one writer, committing in rowid order), nothing is read twice.
_LATE_WINDOW = 4096
_RESYNC_SECONDS = 60.0


_SAMPLE_STEP = 8  # top_rows estimates its threshold from every 8th score
_SAMPLE_MARGIN = 1.25  # ... aiming this many times the rows wanted above it


def top_rows(np: Any, scores: Any, keep: int) -> Any:
    """The positions of the ``keep`` highest of ``scores`` (1-D, longer than ``keep``), in
    no order: what ``argpartition`` gives, for a tenth of its cost on a shortlist's scores.

    A selection over every score (introselect) cost 127 microseconds at 10,000 items, a
    whole recall's 4 %, and grows with the copy. Here a threshold comes from a strided
    sample (every 8th score, partitioned), aiming at a quarter more rows than ``keep``; only
    the scores at or above it are selected from (14 microseconds in all at 10,000). The result
    is exact, not approximate: when at least ``keep`` scores reach the threshold, the
    ``keep`` highest all do. When the sample misjudged and fewer do, every score is selected
    from, as before."""
    sample = scores[::_SAMPLE_STEP]
    aim = int(keep * _SAMPLE_MARGIN) // _SAMPLE_STEP + 1
    if aim < len(sample):
        threshold = np.partition(sample, len(sample) - aim)[len(sample) - aim]
        above = np.flatnonzero(scores >= threshold)
        if len(above) >= keep:
            return above[np.argpartition(-scores[above], keep - 1)[:keep]]
    return np.argpartition(-scores, keep - 1)[:keep]


def _probe(conn: Conn) -> tuple[int, int, bool]:
    """What a catch-up starts from, in one statement (one round trip on PostgreSQL, where it
    took three): the vectors' epoch, the highest item holding a vector, and whether writers
    were in flight as the snapshot was taken."""
    row = conn.execute(
        f"""SELECT (SELECT value FROM chronomem_settings WHERE key = ?),
                   (SELECT max(item) FROM chronomem_vectors), {conn.dialect.writers_in_flight}""",
        (EPOCH_KEY,),
    ).fetchone()
    epoch, newest, in_flight = row
    return int(epoch or 0), int(newest or 0), bool(in_flight)


@dataclass
class Copy:
    """One owner's vectors in memory: rows ``0..count`` of growable arrays."""

    dim: int
    coarse: int
    epoch: int
    made: float = 0.0  # time.monotonic() when the copy was started
    late: bool = False  # the last catch-up saw a writer in flight (PostgreSQL)
    through: int = 0  # every item up to here was read (up to its late window on PostgreSQL)
    count: int = 0
    items: Any = None  # int64 (capacity,)
    exact: Any = None  # int8 (capacity, dim)
    rough: Any = None  # float32 (capacity, coarse)
    inverted: lists.Lists | None = None  # past LISTS_FROM items: which rows a search reads
    ordered: bool = True  # items ascending (always on SQLite): a rowid is found by bisection
    making: threading.Thread | None = None  # lists being made (see current_lists)
    ready: lists.Lists | None = None  # ... and once made, until a search swaps them in
    failed: BaseException | None = None  # ... or why they could not be
    lock: threading.Lock = field(default_factory=threading.Lock)

    def nearest(self, np: Any, question: Any, k: int) -> list[tuple[int, float]]:
        """The ``k`` items of the copy nearest ``question``, nearest first, with their
        cosine (the caller holds the lock)."""
        if self.count == 0 or k <= 0:
            return []
        inverted = self.current_lists(np)
        keep = max(256, _SHORTLIST * k)
        shortlists = self.coarse < self.dim  # the static model's dimensions come in order
        scores = None
        if inverted is None and shortlists and self.count > keep:
            # Every row: a slice of the copy, not a gather of it.
            short = top_rows(np, self.rough[: self.count] @ question[: self.coarse], keep)
        elif inverted is None:
            short = np.arange(self.count)
            if not shortlists:
                # A space searched whole keeps every dimension in rough: the exact rows as
                # floats already, so no gather and no conversion of the copy (at a million
                # items, while the first lists are made, 1.5 GB a search).
                scores = (self.rough[: self.count] @ question) / 127.0
        elif shortlists:
            pool, rough = inverted.ranked(np, self.rough, question, self.count)
            short = pool[top_rows(np, rough, keep)] if len(pool) > keep else pool
        else:
            short = inverted.candidates(np, question, self.count)
        if scores is None:
            scores = (self.exact[short].astype(np.float32) @ question) / 127.0
        top = min(k, len(short))
        best = (
            np.argpartition(-scores, top - 1)[:top] if top < len(short) else np.arange(len(short))
        )
        best = best[np.argsort(-scores[best], kind="stable")]
        items = self.items[short[best]].tolist()
        return list(zip(items, scores[best].astype(float).tolist(), strict=True))

    def cosines(self, np: Any, question: Any, rowids: list[int]) -> dict[int, float]:
        """The cosine of ``question`` with each of ``rowids`` the copy holds, by bisection of
        its items (the caller holds the lock); empty when the items are not in order (a late
        row on PostgreSQL), for the caller to read from the table instead."""
        if not self.ordered or self.count == 0 or not rowids:
            return {}
        wanted = np.asarray(rowids, dtype=np.int64)
        items = self.items[: self.count]
        at = np.minimum(np.searchsorted(items, wanted), self.count - 1)
        held = items[at] == wanted
        rows = at[held]
        scores = (self.exact[rows].astype(np.float32) @ question) / 127.0
        return dict(zip(wanted[held].tolist(), scores.astype(float).tolist(), strict=True))

    def current_lists(self, np: Any, *, wait: bool = False) -> lists.Lists | None:
        """The lists a search reads past LISTS_FROM items (``None`` below, or while the first
        are made). When they are due (none yet, or the tail past its share) they are made in
        a thread of their own (``lists.BACKGROUND``) and swapped in by the first search after
        they are ready; meanwhile a search reads every row, or the lists they replace and
        their whole tail. ``wait``: made, or waited for, here (the caller holds the lock)."""
        n = self.count
        if n < lists.LISTS_FROM:
            return None
        if self.making is not None and (wait or not self.making.is_alive()):
            self.making.join()
            self.making, ready, failed = None, self.ready, self.failed
            self.ready = self.failed = None
            if failed is not None:
                raise failed
            self.inverted = ready
        if self.making is None and (self.inverted is None or self.inverted.stale(n)):
            current, rough = self.inverted, self.rough  # rows 0..n of rough never change

            def make() -> None:
                try:
                    self.ready = (
                        lists.Lists.train(np, rough, n)
                        if current is None
                        else current.extend(np, rough, n)
                    )
                except BaseException as e:  # raised in the search that swaps them in
                    self.failed = e

            if lists.BACKGROUND and not wait:
                self.making = threading.Thread(target=make, name="chronomem-lists", daemon=True)
                self.making.start()
            else:
                make()
                if self.failed is not None:
                    failed, self.failed = self.failed, None
                    raise failed
                self.inverted, self.ready = self.ready, None
        return self.inverted

    def append(self, np: Any, items: list[int], blobs: list[bytes]) -> None:
        if not items:
            return
        new = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(items), self.dim)
        need = self.count + len(items)
        if self.items is None or need > len(self.items):
            capacity = max(1024, need * 2)
            grown = (
                np.zeros(capacity, dtype=np.int64),
                np.zeros((capacity, self.dim), dtype=np.int8),
                np.zeros((capacity, self.coarse), dtype=np.float32),
            )
            if self.items is not None:
                grown[0][: self.count] = self.items[: self.count]
                grown[1][: self.count] = self.exact[: self.count]
                grown[2][: self.count] = self.rough[: self.count]
            self.items, self.exact, self.rough = grown
        if self.count and items[0] <= self.items[self.count - 1]:
            self.ordered = False
        self.items[self.count : need] = items
        self.exact[self.count : need] = new
        self.rough[self.count : need] = new[:, : self.coarse]
        self.count = need

    def loaded(self, np: Any, items: list[int], window: int) -> list[bool]:
        """Which of ``items`` (all above ``through - window``) are in the copy already."""
        if not items or window == 0 or self.count == 0:
            return [False] * len(items)
        tail = self.items[max(0, self.count - 2 * window - _READ_BATCH) : self.count]
        return [bool(b) for b in np.isin(np.asarray(items, dtype=np.int64), tail)]


class NearestIndex:
    """The nearest-neighbour copies of one memory (a file or a PostgreSQL schema), per owner."""

    def __init__(self) -> None:
        self._copies: dict[tuple[str, str], Copy] = {}
        self._lock = threading.Lock()

    def search(
        self, conn: Conn, owner: str, space: VectorSpace, question: npt.NDArray[np.float32], k: int
    ) -> list[tuple[int, float]]:
        """The owner's ``k`` items nearest ``question`` (a unit vector of ``space``), nearest
        first, with their cosine; read through ``conn``'s snapshot, visible or not (the
        caller filters by its view)."""
        import numpy as np

        copy = self._caught_up(np, conn, owner, space)
        with copy.lock, single_blas_thread():
            return copy.nearest(np, question, k)

    def cosines(
        self, owner: str, space: VectorSpace, question: npt.NDArray[np.float32], rowids: list[int]
    ) -> dict[int, float]:
        """The cosine of ``question`` with each of the owner's ``rowids`` that the process's
        copy holds (caught up by this recall's :meth:`search`), without reading the table:
        for the items the words found beside the nearest. Rowids it lacks are left out."""
        import numpy as np

        with self._lock:
            copy = self._copies.get((owner, space.name))
        if copy is None or copy.dim != space.dim:
            return {}
        with copy.lock, single_blas_thread():
            return copy.cosines(np, question, rowids)

    def forget_owner(self, owner: str) -> None:
        """Drop the process's copy of ``owner``'s vectors (the next search reads them anew)."""
        with self._lock:
            for key in [key for key in self._copies if key[0] == owner]:
                del self._copies[key]

    def _caught_up(self, np: Any, conn: Conn, owner: str, space: VectorSpace) -> Copy:
        epoch, newest, in_flight = _probe(conn)
        ordered = conn.dialect.commits_in_rowid_order
        key = (owner, space.name)
        now = time.monotonic()
        with self._lock:
            copy = self._copies.get(key)
            stale = copy is not None and not ordered and now - copy.made > _RESYNC_SECONDS
            if copy is None or stale or copy.epoch != epoch or copy.dim != space.dim:
                copy = Copy(space.dim, min(space.coarse, space.dim), epoch, made=now)
                self._copies[key] = copy
        with copy.lock:
            late = _LATE_WINDOW if copy.late else 0
            copy.late = not ordered and in_flight
            after = max(0, copy.through - late)
            if after >= newest:  # nothing new, nothing late: most searches end here
                copy.through = max(copy.through, newest)
                return copy
            while True:
                # The new rows by the table's key, then their owners by the facts' key.
                rows = conn.execute(
                    """SELECT item, vec FROM chronomem_vectors
                       WHERE item > ? AND item <= ? ORDER BY item LIMIT ?""",
                    (after, newest, _READ_BATCH),
                ).fetchall()
                items = [int(i) for i, _ in rows]
                mine = conn.dialect.visible(conn, items, ("f.owner = ?", [owner]))
                dim = copy.dim
                if late:
                    known = copy.loaded(np, items, late)
                    fitting = [
                        row
                        for row, seen in zip(rows, known, strict=True)
                        if row[0] in mine and not seen and len(row[1]) == dim
                    ]
                else:  # nothing read twice: one test a row (a million rows at a first search)
                    fitting = [row for row in rows if row[0] in mine and len(row[1]) == dim]
                copy.append(np, [int(i) for i, _ in fitting], [v for _, v in fitting])
                if len(rows) < _READ_BATCH:
                    copy.through = max(copy.through, newest)
                    return copy
                after = items[-1]
