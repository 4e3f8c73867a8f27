"""An inverted file over one owner's vectors: a search that reads a few lists, not every row.

An exact search costs what the owner holds: 2 ms at 100,000 items, 39 ms at a million on this
machine (bench/vectors.md), where recall has 5 ms in all. So past LISTS_FROM items the copy
is cut into lists by k-means over its vectors' leading dimensions (spherical: centroids are
unit vectors, nearness is the dot product), about one list per LIST_SIZE items, and a search
ranks only the rows of the PROBES lists whose centroids are nearest the question, plus the
rows added since the lists were made (the tail, scanned whole). When the tail outgrows a
share of the lists (TAIL_SHARE), its rows join their nearest lists; when the copy has doubled
since the centroids were trained, they are trained again.

What it gives up is measured, not assumed: the share of the exact search's neighbours it
finds, and the LoCoMo figures with lists forced onto every conversation, are in
bench/vectors.md. Nothing here is stored: the lists are rebuilt from the copy, which is
rebuilt from the file (see :mod:`.nearest`), so erasure and crashes need nothing of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BACKGROUND", "LISTS_FROM", "LIST_SIZE", "PROBES", "Lists"]

LISTS_FROM = 50_000
"""Below this many items the exact search is cheap enough (1 ms at 50,000)."""
LIST_SIZE = 1_000
"""Items per list, on average: a million items make 1,000 lists."""
PROBES = 32
"""Lists a search reads: at a million items, about 32,000 rows of a million."""
TAIL_SHARE = 0.05
"""The tail (rows newer than the lists) joins the lists when it passes this share of them."""
BACKGROUND = True
"""Whether lists are made in a thread of their own while searches go on without them (exact,
or over the lists they replace, the tail searched whole): at a million items, making them
takes seconds (bench/vectors.md), which the first search of a process would otherwise wait.
``False``: the search that needs them makes them (tests, benchmarks)."""
_TRAINING_ROWS = 64  # rows sampled per list to train the centroids
_ROUNDS = 8  # k-means rounds
_CHUNK = 65_536  # rows assigned at once (bounds the scratch matrix)


@dataclass
class Lists:
    """Lists over rows ``0..covered`` of a copy's ``rough`` matrix; rows from ``covered`` on
    are the tail. ``order`` holds the covered rows' positions list by list, list ``i`` at
    ``order[starts[i]:starts[i + 1]]``, and ``sorted_rows`` their leading dimensions in the
    same order (a second copy of them: at a million items, 256 MB beside the copy's 512)."""

    centroids: Any  # float32 (lists, dims), unit rows
    trained_at: int  # the copy's size when the centroids were trained
    covered: int
    order: Any  # int64 (covered,)
    starts: Any  # int64 (lists + 1,)
    labels: Any  # int32 (covered,): each covered row's list
    sorted_rows: Any  # float32 (covered, dims): the covered rows' leading dimensions, list by list

    @classmethod
    def train(cls, np: Any, rough: Any, count: int, seed: int = 0) -> Lists:
        """Centroids from a sample of the first ``count`` rows, and every row in its list."""
        lists = max(1, count // LIST_SIZE)
        rng = np.random.default_rng(seed)
        sample = rough[rng.choice(count, min(count, lists * _TRAINING_ROWS), replace=False)]
        sample = _unit(np, sample)
        centroids = sample[rng.choice(len(sample), lists, replace=False)].copy()
        for _ in range(_ROUNDS):
            nearest = np.argmax(sample @ centroids.T, axis=1)
            sums = np.zeros_like(centroids)
            np.add.at(sums, nearest, sample)
            empty = ~sums.any(axis=1)
            sums[empty] = centroids[empty]  # a list nobody chose keeps its centroid
            centroids = _unit(np, sums)
        labels = _assign(np, centroids, rough[:count])
        made = cls(centroids, count, 0, None, None, labels, None)
        made._index(np, count, rough)
        return made

    def extend(self, np: Any, rough: Any, count: int) -> Lists:
        """New lists: these with the tail joined (rows ``covered..count``), or trained again
        when the copy has doubled since the centroids were. These are left as they are: a
        search may be reading them while the new ones are made (see ``BACKGROUND``)."""
        if count >= 2 * self.trained_at:
            return Lists.train(np, rough, count)
        tail = _assign(np, self.centroids, rough[self.covered : count])
        labels = np.concatenate([self.labels, tail])
        made = Lists(self.centroids, self.trained_at, 0, None, None, labels, None)
        made._index(np, count, rough)
        return made

    def stale(self, count: int) -> bool:
        """Whether the tail has outgrown its share and should join the lists."""
        return count - self.covered > TAIL_SHARE * self.covered

    def candidates(self, np: Any, question: Any, count: int) -> Any:
        """The positions of the rows a search ranks: the PROBES nearest lists and the tail."""
        probed = self._probed(np, question)
        parts = [self.order[self.starts[i] : self.starts[i + 1]] for i in probed]
        parts.append(np.arange(self.covered, count, dtype=np.int64))
        return np.concatenate(parts)

    def ranked(self, np: Any, rough: Any, question: Any, count: int) -> tuple[Any, Any]:
        """The rows a search ranks (as :meth:`candidates`) and their dot products with the
        question's leading dimensions: each list is a slice of the rows in list order, so no
        row is gathered from the copy (at a million items, 32,000 gathered rows cost more
        than the products)."""
        head = question[: self.centroids.shape[1]]
        positions, scores = [], []
        for i in self._probed(np, question):
            part = slice(self.starts[i], self.starts[i + 1])
            positions.append(self.order[part])
            scores.append(self.sorted_rows[part] @ head)
        positions.append(np.arange(self.covered, count, dtype=np.int64))
        scores.append(rough[self.covered : count] @ head)
        return np.concatenate(positions), np.concatenate(scores)

    def _probed(self, np: Any, question: Any) -> list[int]:
        scores = self.centroids @ question[: self.centroids.shape[1]]
        probes = min(PROBES, len(scores))
        return [int(i) for i in np.argpartition(-scores, probes - 1)[:probes]]

    def _index(self, np: Any, count: int, rough: Any) -> None:
        self.covered = count
        self.order = np.argsort(self.labels, kind="stable").astype(np.int64)
        sizes = np.bincount(self.labels, minlength=len(self.centroids))
        self.starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.sorted_rows = rough[self.order]


def _unit(np: Any, rows: Any) -> Any:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def _assign(np: Any, centroids: Any, rows: Any) -> Any:
    """Each row's nearest centroid, a chunk at a time."""
    out = np.empty(len(rows), dtype=np.int32)
    for start in range(0, len(rows), _CHUNK):
        out[start : start + _CHUNK] = np.argmax(rows[start : start + _CHUNK] @ centroids.T, axis=1)
    return out
