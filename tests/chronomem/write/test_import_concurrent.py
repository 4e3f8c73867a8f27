"""Two imports of one file at once into PostgreSQL (issue 20 item 6).

Both used to insert the same ids and one failed with a unique violation on the fact id (5 of
5 tries). Imports now take one advisory lock for their transaction, so the second reads what
the first committed and skips it, as ``import_facts`` documents: both succeed, and together
they insert each record once.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from chronomem import ChronoMem
from tests.chronomem.backends import MemoryTarget, dsn_url

RECORDS = 400


def _export(target: MemoryTarget) -> list[dict[str, Any]]:
    with target.sibling("source").open() as source:
        with source.batch():
            for i in range(RECORDS):
                source.remember(f"Zed fact number {i}", entities=["Zed"])
        return list(source.export_facts())


def _race(mems: Sequence[ChronoMem], records: list[Mapping[str, Any]]) -> list[int | str]:
    """Each memory imports ``records`` at the same moment; its count, or its error."""
    start = threading.Barrier(len(mems))
    outcomes: list[int | str] = []

    def run(mem: ChronoMem) -> None:
        start.wait()
        try:
            outcomes.append(mem.import_facts(records))
        except Exception as e:  # reported by the caller's assertion
            outcomes.append(repr(e))

    threads = [threading.Thread(target=run, args=(m,)) for m in mems]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_two_imports_of_one_file_at_once_both_succeed(pg_dsn: str, pg_schema: str) -> None:
    target = MemoryTarget("postgres", dsn_url(pg_dsn), pg_schema)
    records: list[Mapping[str, Any]] = list(_export(target))
    for attempt in range(3):
        into = target.sibling(f"race{attempt}")  # ids are global: a fresh database each time
        mems = [into.open() for _ in range(2)]
        try:
            outcomes = _race(mems, records)
            assert all(isinstance(n, int) for n in outcomes), outcomes
            assert sum(int(n) for n in outcomes) == RECORDS  # each record once, by one of them
            assert mems[0].stats()["facts"] == RECORDS
        finally:
            for m in mems:
                m.close()
