"""Bulk writes on PostgreSQL update each counter row once per transaction (issue 20 item 2).

Every indexed item adds to its terms' document frequencies and its kind's corpus counters.
Upserted once per item, a common word's row was updated n times in one transaction, each
update walking the row versions before it: importing 8,000 episodes took 62 s. The counts
are now held back and written once, at the end of the transaction (or before anything in it
reads them), so a bulk write issues one counter statement whatever its size; recall in a
batch and a savepoint rolled back in a batch still see exact counts.
"""

from __future__ import annotations

from typing import Any

import pytest

from chronomem import ChronoMem, InvalidFactError
from chronomem.engine.postgres import db as pg_db
from chronomem.write.conversations import Turn
from tests.chronomem.backends import MemoryTarget, dsn_url, rows


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement PostgreSQL is sent that writes the counters."""
    sent: list[str] = []
    execute = pg_db.PostgresConnection.execute

    def spy(self: pg_db.PostgresConnection, sql: str, parameters: Any = (), /) -> Any:
        if "INSERT INTO chronomem_term_stats" in sql:
            sent.append(sql)
        return execute(self, sql, parameters)

    monkeypatch.setattr(pg_db.PostgresConnection, "execute", spy)
    return sent


def _turns(n: int, session: str = "s") -> list[Turn]:
    return [Turn(f"turn {i} about the garden weather", "Ann", session) for i in range(n)]


def _exact(mem: ChronoMem) -> None:
    """The counters say what the postings and items say."""
    dfs = dict(rows(mem, "SELECT term, sum(df) FROM chronomem_term_stats GROUP BY term"))
    postings = rows(mem, "SELECT term, count(*) FROM chronomem_postings GROUP BY term")
    assert {t: int(n) for t, n in dfs.items()} == {t: int(n) for t, n in postings}
    [(items,)] = rows(mem, "SELECT coalesce(sum(items), 0) FROM chronomem_corpus")
    [(stored,)] = rows(mem, "SELECT count(*) FROM chronomem_lex")
    assert int(items) == int(stored)


def test_a_bulk_write_issues_one_counter_statement(
    pg_dsn: str, pg_schema: str, counted: list[str]
) -> None:
    target = MemoryTarget("postgres", dsn_url(pg_dsn), pg_schema)
    with target.open() as mem:
        for n in (50, 400):
            counted.clear()
            mem.remember_episodes(_turns(n, f"s{n}"))
            assert len(counted) == 1  # it was one per turn
        records = list(mem.export_facts())
        with target.sibling("copy").open() as copy:
            counted.clear()
            assert copy.import_facts(records) == 450
            assert len(counted) == 1
            _exact(copy)
        counted.clear()
        with mem.batch():
            for i in range(30):
                mem.remember(f"Zed note {i} on the garden")
        assert len(counted) == 1
        _exact(mem)


def test_a_batch_reads_and_undoes_its_own_counts(pg_dsn: str, pg_schema: str) -> None:
    target = MemoryTarget("postgres", dsn_url(pg_dsn), pg_schema)
    with target.open() as mem:
        with mem.batch():
            mem.remember_episodes(_turns(20))
            assert len(mem.recall("garden weather", limit=50)) == 20  # counts read in the batch
            with pytest.raises(InvalidFactError):  # a savepoint undone, its counts with it
                mem.import_facts([
                    {"id": "a", "content": "Zed garden", "system_time": "2024-01-01T00:00:00Z",
                     "valid_from": "2024-01-01T00:00:00Z", "superseded_by": "a",
                     "invalidated_at": "2024-01-01T00:00:00Z"},
                ])  # fmt: skip
            mem.forget(mem.recall("turn 3", limit=1)[0].id)  # lowers what the batch added
            mem.remember("Zed waters the garden")
        _exact(mem)
