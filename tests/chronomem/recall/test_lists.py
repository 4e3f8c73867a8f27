"""The inverted file over a large owner's vectors (recall.semantic.lists): every row in one
list, the tail searched until it joins, new centroids when the copy doubles, and the lists'
neighbours those of the exact search on vectors with structure."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from chronomem.recall.semantic import lists
from chronomem.recall.semantic.lists import Lists
from chronomem.recall.semantic.nearest import Copy
from tests.chronomem.backends import MemoryTarget
from tests.chronomem.recall.test_nearest import CELLO, FILLER

DIM, COARSE = 32, 16


def _clustered(n: int, seed: int, clusters: int = 40) -> Any:
    """Unit vectors around ``clusters`` centres, their variance falling dimension by
    dimension: structure, as real sentences have, in the static model's order (PCA)."""
    rng = np.random.default_rng(seed)
    fall = 1.0 / (1.0 + np.arange(DIM) / 4.0)
    centres = rng.standard_normal((clusters, DIM)) * fall
    rows = centres[rng.integers(0, clusters, n)] + 0.35 * rng.standard_normal((n, DIM)) * fall
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _copy(vectors: Any) -> Copy:
    copy = Copy(DIM, COARSE, epoch=0)
    stored = np.rint(vectors * 127).astype(np.int8)
    copy.append(np, list(range(1, len(stored) + 1)), [r.tobytes() for r in stored])
    return copy


@pytest.fixture
def small_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lists from 2,000 rows, 50 rows a list: the large-owner path at a test's size, made in
    the search that needs them."""
    monkeypatch.setattr(lists, "BACKGROUND", False)
    monkeypatch.setattr(lists, "LISTS_FROM", 2_000)
    monkeypatch.setattr(lists, "LIST_SIZE", 50)
    monkeypatch.setattr(lists, "PROBES", 4)


def test_every_row_sits_in_one_list(small_lists: None) -> None:
    copy = _copy(_clustered(3_000, 1))
    made = Lists.train(np, copy.rough, copy.count)
    assert len(made.centroids) == 3_000 // lists.LIST_SIZE
    assert sorted(made.order.tolist()) == list(range(3_000))
    for i in range(len(made.centroids)):
        members = made.order[made.starts[i] : made.starts[i + 1]]
        assert (made.labels[members] == i).all()


def test_the_tail_is_searched_then_joins_then_the_lists_are_made_again(small_lists: None) -> None:
    vectors = _clustered(6_000, 2)
    copy = _copy(vectors[:3_000])
    question = vectors[0]
    copy.current_lists(np)
    first = copy.inverted
    assert first is not None
    assert first.covered == 3_000
    more = np.rint(vectors[3_000:3_100] * 127).astype(np.int8)
    copy.append(np, list(range(3_001, 3_101)), [r.tobytes() for r in more])
    lists_now = copy.current_lists(np)
    assert lists_now is not None
    pool = lists_now.candidates(np, question, copy.count)
    assert copy.inverted is first, "100 new rows are under the tail's share: searched as they are"
    assert set(range(3_000, 3_100)) <= set(pool.tolist())
    rest = np.rint(vectors[3_100:3_400] * 127).astype(np.int8)
    copy.append(np, list(range(3_101, 3_401)), [r.tobytes() for r in rest])
    joined = copy.current_lists(np)
    assert joined is not None
    assert joined.covered == 3_400, "the tail joined its lists"
    assert joined.centroids is first.centroids, "... under the same centroids"
    assert first.covered == 3_000, "new lists: a search may still be reading the old"
    last = np.rint(vectors[3_400:] * 127).astype(np.int8)
    copy.append(np, list(range(3_401, 6_001)), [r.tobytes() for r in last])
    copy.current_lists(np)
    assert copy.inverted is not joined
    assert copy.inverted.trained_at == 6_000, "doubled: centroids trained again"


def test_lists_are_made_beside_the_searches_that_go_on_without_them(
    small_lists: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lists, "BACKGROUND", True)
    vectors = _clustered(3_000, 6)
    copy = _copy(vectors)
    exact = copy.nearest(np, vectors[42], 10)  # the lists start; this search reads every row
    assert copy.making is not None
    copy.making.join()
    assert copy.inverted is None, "made, but swapped in only by the next search"
    through_lists = copy.nearest(np, vectors[42], 10)
    assert copy.inverted is not None
    assert copy.making is None
    assert exact[0][0] == through_lists[0][0] == 43, "a stored vector is its own nearest"
    # Past the tail's share the new lists are made in the background too; the old ones serve.
    first = copy.inverted
    more = np.rint(_clustered(400, 7) * 127).astype(np.int8)
    copy.append(np, list(range(3_001, 3_401)), [r.tobytes() for r in more])
    assert copy.current_lists(np) is first
    assert copy.current_lists(np, wait=True) is not first
    assert copy.inverted.covered == 3_400


def test_lists_that_could_not_be_made_say_why_in_the_next_search(
    small_lists: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lists, "BACKGROUND", True)

    def fail(*args: Any, **kwargs: Any) -> Lists:
        raise MemoryError("no room for the lists")

    monkeypatch.setattr(Lists, "train", fail)
    copy = _copy(_clustered(3_000, 8))
    copy.nearest(np, _clustered(1, 9)[0], 5)
    assert copy.making is not None
    copy.making.join()
    with pytest.raises(MemoryError, match="no room"):
        copy.nearest(np, _clustered(1, 9)[0], 5)
    assert copy.inverted is None


def test_the_lists_find_the_exact_searchs_neighbours(
    small_lists: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    vectors = _clustered(5_000, 3)
    copy = _copy(vectors)
    rng = np.random.default_rng(4)
    questions = vectors[rng.integers(0, 5_000, 30)] + 0.2 * rng.standard_normal((30, DIM))
    questions = (questions / np.linalg.norm(questions, axis=1, keepdims=True)).astype(np.float32)
    found = []
    for q in questions:
        near = {i for i, _ in copy.nearest(np, q, 10)}
        monkeypatch.setattr(lists, "LISTS_FROM", 10**9)
        exact = {i for i, _ in copy.nearest(np, q, 10)}
        monkeypatch.setattr(lists, "LISTS_FROM", 2_000)
        found.append(len(near & exact) / 10)
    assert copy.inverted is not None, "the search read lists"
    assert np.mean(found) >= 0.9, found
    # A stored vector asked for is its own nearest, list or no list.
    [(item, cosine)] = copy.nearest(np, vectors[1234], 1)
    assert item == 1235
    assert cosine > 0.99


def test_recall_by_meaning_through_the_lists(
    memory_target: MemoryTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lists, "BACKGROUND", False)
    monkeypatch.setattr(lists, "LISTS_FROM", 100)
    monkeypatch.setattr(lists, "LIST_SIZE", 20)
    monkeypatch.setattr(lists, "PROBES", 2)
    rng = random.Random(5)
    with memory_target.open() as mem:
        mem.remember_episode(CELLO, speaker="Ben", session="s")
        for _ in range(240):
            mem.remember_episode(
                rng.choice(FILLER), speaker=rng.choice(["Ana", "Ben"]), session="s"
            )
        found = mem.recall("Does Ana play a musical instrument?", limit=3)
        [(_, index)] = mem._meaning.index._copies.items()
        assert index.inverted is not None, "the search read lists, the cello turn among them"
        assert index.inverted.covered == 241
        assert found[0].content == CELLO


def test_the_copy_gives_a_rowids_cosine_as_the_table_would() -> None:
    from chronomem.recall.semantic.model import cosines as cosines_of

    rng = np.random.default_rng(5)
    vectors = rng.integers(-127, 128, size=(300, DIM), dtype=np.int8)
    copy = Copy(DIM, COARSE, 0)
    rowids = list(range(10, 910, 3))
    copy.append(np, rowids, [v.tobytes() for v in vectors])
    question = _clustered(1, seed=9)[0]
    asked = [rowids[7], 11, rowids[299], rowids[0], 5_000]  # 11 and 5,000: not in the copy
    got = copy.cosines(np, question, asked)
    assert set(got) == {rowids[7], rowids[299], rowids[0]}
    for rowid, cosine in got.items():
        blob = vectors[rowids.index(rowid)].tobytes()
        assert cosine == pytest.approx(float(cosines_of(question, [blob])[0]), abs=1e-6)
    copy.append(np, [20], [vectors[0].tobytes()])  # a late row, below the newest (PostgreSQL)
    assert copy.cosines(np, question, asked) == {}, "out of order: the caller reads the table"
