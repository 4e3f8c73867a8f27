"""Actum IDs: UUIDv7, strictly increasing in a process, unique across processes."""

from __future__ import annotations

import multiprocessing
import random
import uuid
from unittest import mock

from chronica._ids import new_actum_id, new_actum_ids

# One fixed millisecond for every process: the clock can no longer keep them apart, so only
# the IDs' own entropy can.
_FROZEN_NS = 1_750_000_000_000 * 1_000_000


def _mint(n: int) -> list[str]:
    return [new_actum_id() for _ in range(n)]


def _mint_seeded_in_one_millisecond(n: int) -> list[str]:
    random.seed(1234)  # what ML and agent code does at start-up, in every process
    with mock.patch("time.time_ns", return_value=_FROZEN_NS):
        return _mint(n)


def test_ids_are_version_7_and_strictly_increasing() -> None:
    ids = _mint(20_000)  # more than 4,096 per millisecond exercises the counter overflow
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(uuid.UUID(i).version == 7 for i in ids[:100])


def test_ids_are_unique_across_processes() -> None:
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        batches = pool.map(_mint, [5_000] * 4)
    everything = [i for batch in batches for i in batch]
    assert len(set(everything)) == len(everything)


def test_processes_that_seed_random_alike_still_mint_distinct_ids() -> None:
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        first, second = pool.map(_mint_seeded_in_one_millisecond, [1_000, 1_000])
    assert set(first).isdisjoint(second)
    assert len(set(first)) == len(first)


def test_a_batch_of_ids_continues_the_same_increasing_sequence() -> None:
    # One clock reading for a whole batch, more than a millisecond's counter can hold.
    before = new_actum_id()
    batch = new_actum_ids(5_000)
    after = new_actum_id()
    minted = [before, *batch, after]
    assert minted == sorted(minted)
    assert len(set(minted)) == len(minted)
    assert all(uuid.UUID(i).version == 7 for i in batch[:100])
    assert new_actum_ids(0) == []
