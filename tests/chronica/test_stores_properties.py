"""The random interleavings of tests/chronica/test_properties.py, on the durable stores.

Each hypothesis example gets a fresh store: a new file for SQLite, a new schema for
PostgreSQL (all dropped with the test's own schema afterwards).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

from .test_properties import ChronicaMachine


class _ClosingMachine(ChronicaMachine):
    def teardown(self) -> None:
        store = self.chronicarius.store
        assert isinstance(store, (SQLiteStore, PostgresStore))
        store.close()


def test_sqlite_interleavings(tmp_path: Path) -> None:
    numbers = itertools.count()

    class Machine(_ClosingMachine):
        make_store = staticmethod(lambda: SQLiteStore(tmp_path / f"{next(numbers)}.db"))

    run_state_machine_as_test(
        Machine, settings=settings(max_examples=60, stateful_step_count=30, deadline=None)
    )


@pytest.mark.postgres
def test_postgres_interleavings(pg_dsn: str, pg_schema: str) -> None:
    numbers = itertools.count()

    class Machine(_ClosingMachine):
        make_store = staticmethod(
            lambda: PostgresStore(pg_dsn, schema=f"{pg_schema}_{next(numbers)}", max_size=2)
        )

    run_state_machine_as_test(
        Machine, settings=settings(max_examples=25, stateful_step_count=30, deadline=None)
    )
