"""Round trips per write on PostgreSQL: how often ``remember`` waits for the server.

Counted from libpq's own protocol trace of the one pooled connection: each time the client
stops sending and reads, it waited for the server once. A ``remember`` outside a batch is one
call of the server's own function (schema version 9); any other write is one pipeline whose
BEGIN travels with its first statement and whose COMMIT travels with its last ones (issue 23);
the inserts nobody reads travel as one statement (see ``engine/postgres/held.py``).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from pathlib import Path

import psycopg
import psycopg_pool
import pytest

from chronomem import ChronoMem, DatabaseError

pytestmark = pytest.mark.postgres


@pytest.fixture
def traced(pg_dsn: str, pg_schema: str, tmp_path: Path) -> Iterator[tuple[ChronoMem, Path]]:
    """A memory on a pool of one connection, and the file its trace goes to when asked.

    Its first write is made here, so that the write a test traces after one of its own is
    the memory's third: the 1st, 2nd, 4th... ask about planner statistics after they commit
    (one more statement, see chronomem/engine/postgres/statistics.py), the rest never."""
    with (
        psycopg_pool.ConnectionPool(pg_dsn, min_size=1, max_size=1, open=True) as pool,
        ChronoMem(pool, owner="ardian", schema=pg_schema) as mem,
    ):
        mem.remember("the fixture's own first write")
        yield mem, tmp_path / "trace.txt"


@contextlib.contextmanager
def _tracing(mem: ChronoMem, path: Path) -> Iterator[list[int]]:
    """Yields a list that, once the block ends, holds how often the block waited for the
    server, then how many statements it sent."""
    waits: list[int] = []
    pool = mem._db._pool  # type: ignore[attr-defined]
    with path.open("w") as out:
        with pool.connection() as conn:
            conn.pgconn.trace(out.fileno())
            conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            yield waits
        finally:
            with pool.connection() as conn:
                conn.pgconn.untrace()
    sides = [line[:1] for line in path.read_text().splitlines() if line[:1] in ("F", "B")]
    waits.append(sum(1 for a, b in itertools.pairwise(sides) if (a, b) == ("F", "B")))
    waits.append(
        sum(
            1
            for line in path.read_text().splitlines()
            if line.startswith("F\t") and "\tExecute\t" in line
        )
    )


def test_a_fact_with_a_claim_is_one_call(traced: tuple[ChronoMem, Path]) -> None:
    mem, path = traced
    mem.remember("Ardian's phone is a Pixel 8", entities=["Ardian"], category="device")
    with _tracing(mem, path) as waits:
        fid = mem.remember("Ardian's phone is a Xperia 10", entities=["Ardian"],
                           category="device")  # fmt: skip
    # One statement, the server's chronomem_remember, in autocommit: no BEGIN, no COMMIT.
    assert waits == [1, 1]
    assert len(fid.contradicts) == 1


def test_a_fact_without_entities_is_one_call(traced: tuple[ChronoMem, Path]) -> None:
    mem, path = traced
    mem.remember("the garden was quiet all morning")
    with _tracing(mem, path) as waits:
        mem.remember("the weather was warm and sunny all week")
    assert waits == [1, 1]


def test_a_duplicate_is_one_call_with_its_conflicts(traced: tuple[ChronoMem, Path]) -> None:
    mem, path = traced
    first = mem.remember("Ardian's phone is a Pixel 8", entities=["Ardian"], category="device")
    other = mem.remember("Ardian's phone is a Xperia 10", entities=["Ardian"], category="device")
    mem.remember("Besa lives in Durres")  # the 4th write asks about planner statistics
    with _tracing(mem, path) as waits:
        again = mem.remember("ardian's phone is a pixel 8", entities=["Ardian"],
                             category="device")  # fmt: skip
    assert again.duplicate_of == first
    assert again.contradicts == (other,)
    assert waits == [1, 1]


def test_inside_a_batch_a_fact_is_the_batch_s_statements(
    traced: tuple[ChronoMem, Path],
) -> None:
    mem, path = traced
    with _tracing(mem, path), mem.batch():
        mem.remember("Ardian's phone is a Pixel 8", entities=["Ardian"], category="device")
    # The batch's one transaction holds the row (a call would be a transaction of its own).
    sent = path.read_text()
    assert "chronomem_remember" not in sent
    assert sent.count("INSERT INTO chronomem_facts") == 1


def test_a_duplicate_leaves_nothing_of_the_row_sent_in_case(
    traced: tuple[ChronoMem, Path],
) -> None:
    mem, _ = traced
    first = mem.remember("Ardian lives in Tirana", entities=["Ardian"])
    again = mem.remember("ardian lives in tirana", entities=["Ardian", "Tirana"])
    assert again.duplicate_of == first
    with mem._db.read() as conn:
        facts = conn.execute("SELECT id FROM chronomem_facts WHERE owner = 'ardian'").fetchall()
        names = conn.execute("SELECT name FROM chronomem_entities WHERE owner = 'ardian'")
        assert first in [f[0] for f in facts]
        assert len(facts) == 2  # the fixture's own fact and the first: nothing of the duplicate
        assert [n[0] for n in names.fetchall()] == ["Ardian"]  # no Tirana: rolled back


def test_a_write_that_fails_leaves_nothing_and_a_usable_connection(
    traced: tuple[ChronoMem, Path],
) -> None:
    mem, _ = traced
    db = mem._db
    insert = "INSERT INTO chronomem_entities (owner, key, name) VALUES (?, ?, ?)"

    def fails_in_python() -> None:
        with db.write() as conn:
            conn.execute(insert, ("ardian", "tirana", "Tirana"))
            raise RuntimeError("the caller's own error")

    def fails_on_the_server() -> None:
        with db.write() as conn:
            conn.execute(insert, ("ardian", "durres", "Durres"))
            conn.execute(insert, ("ardian", "durres", "Durres"))

    with pytest.raises(RuntimeError):
        fails_in_python()
    with pytest.raises(DatabaseError, match=r"duplicate key"):
        fails_on_the_server()
    with db.read() as conn:
        names = conn.execute("SELECT name FROM chronomem_entities WHERE owner = 'ardian'")
        assert names.fetchall() == []
    fid = mem.remember("Ardian lives in Tirana")
    assert mem.get(fid).content == "Ardian lives in Tirana"
