"""The lean acta layout of SQLiteStore (schema version 3): what a write costs and what it keeps.

An actum's rowid is its chronicum's number shifted up plus its position, so an append writes
the table and two indexes (idempotency key, actum ID); every read walks a rowid range or one
of those indexes, never the whole table; and a chronicum that would overflow its range is
refused rather than spilling into the next one.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chronica import ActorKind, Actum, ActumKind, Chronicarius, StoreError
from chronica.stores import _sqlite_browse, _sqlite_rows
from chronica.stores._sqlite_schema import POSITION_BITS
from chronica.stores._sqlite_writes import _LAST_POS
from chronica.stores.sqlite import SQLiteStore

OWNER = "ardian"


def _said(chronicum_id: str, content: str) -> Actum:
    return Actum(
        chronicum_id=chronicum_id,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN,
        actor=OWNER,
        content=content,
    )


def test_an_append_keeps_two_indexes_up_to_date_not_three(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "c.db").close()
    conn = sqlite3.connect(tmp_path / "c.db")
    try:
        indexes = {row[1] for row in conn.execute("PRAGMA index_list('chronica_acta')")}
    finally:
        conn.close()
    # No (owner, chronicum, seq) index: the rowid is the position.
    assert indexes == {"chronica_acta_by_key", "chronica_acta_by_id"}


_STATEMENTS = {
    "insert": (_sqlite_rows.INSERT_ONCE, 10),
    "by key": (_sqlite_rows.BY_KEY, 3),
    "last ids": (_sqlite_rows.LAST_IDS, 3),
    "window": (_sqlite_rows.window_sql(0, 0), 3),
    "filtered window": (_sqlite_rows.window_sql(2, 1), 6),
    "chronica page": (_sqlite_browse._CHRONICA_PAGE, 3),
    "counts": (_sqlite_browse._COUNTS, 1),
    "find": (_sqlite_browse._FIND, 2),
    "last position": (_LAST_POS, 1),
}


@pytest.mark.parametrize("name", sorted(_STATEMENTS))
def test_no_statement_scans_the_acta(name: str, tmp_path: Path) -> None:
    statement, n_params = _STATEMENTS[name]
    SQLiteStore(tmp_path / "c.db").close()
    conn = sqlite3.connect(tmp_path / "c.db")
    try:
        plan = [row[-1] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}", [1] * n_params)]
    finally:
        conn.close()
    assert not [step for step in plan if step.startswith("SCAN")], plan


def test_positions_are_each_chronicums_own_from_1(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "c.db") as store:
        c = Chronicarius(store)
        for i in range(3):
            c.record_actum(OWNER, _said("dinner", f"d{i}"))
            c.record_actum(OWNER, _said("trip", f"t{i}"))
        c.record_acta(OWNER, [_said("dinner", "d3"), _said("dinner", "d4")])
        page = store.acta_page("dinner", owner_id=OWNER, limit=10)
        assert [(e.position, e.actum.content) for e in page.entries] == [
            (i + 1, f"d{i}") for i in range(5)
        ]
        later = store.acta_page("trip", owner_id=OWNER, limit=10, after=1)
        assert [e.position for e in later.entries] == [2, 3]
        found = store.find_actum(page.entries[3].actum.id, owner_id=OWNER)
        assert found is not None
        assert found.position == 4


def test_a_batch_is_stamped_with_one_moment(tmp_path: Path) -> None:
    # One transaction, one time: as SQLiteSession stamps a turn, and one clock reading.
    with SQLiteStore(tmp_path / "c.db") as store:
        stored = Chronicarius(store).record_acta(OWNER, [_said("dinner", f"{i}") for i in range(4)])
        assert len({actum.at for actum in stored}) == 1
        assert [a.at for a in store.acta("dinner", owner_id=OWNER)] == [a.at for a in stored]


def test_a_full_chronicum_refuses_the_next_actum_and_spills_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    with SQLiteStore(path) as store:
        c = Chronicarius(store)
        c.record_actum(OWNER, _said("dinner", "first"))
        neighbour = c.record_actum(OWNER, _said("trip", "next door"))
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        (num,) = conn.execute(
            "SELECT num FROM chronica_chronica WHERE owner_id = ? AND id = ?", (OWNER, "dinner")
        ).fetchone()
        last = (num << POSITION_BITS) + 2**POSITION_BITS - 1  # the chronicum's last position
        conn.execute("UPDATE chronica_acta SET pos = ? WHERE chronicum = ?", (last, num))
    finally:
        conn.close()
    with SQLiteStore(path) as store:
        c = Chronicarius(store)
        with pytest.raises(StoreError, match="is full"):
            c.record_actum(OWNER, _said("dinner", "one too many"))
        with pytest.raises(StoreError, match="is full"):
            c.record_acta(OWNER, [_said("dinner", "two"), _said("dinner", "too many")])
        assert [a.content for a in c.get_acta(OWNER, "dinner")] == ["first"]
        assert [a.id for a in c.get_acta(OWNER, "trip")] == [neighbour.id]
