"""Actum IDs: UUIDv7, strictly increasing in a process, unique across processes."""

from __future__ import annotations

import multiprocessing
import uuid

from chronica._ids import new_actum_id


def _mint(n: int) -> list[str]:
    return [new_actum_id() for _ in range(n)]


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
