"""Arguments from a hostile run that escaped as raw Python errors or said too much: each is
refused as an :class:`~chronomem.InvalidArgumentError` (or a fact error) that names the
argument, on both engines."""

from __future__ import annotations

import pytest

from chronomem import ChronoMem, InvalidArgumentError, InvalidFactError
from tests.chronomem.backends import MemoryTarget


@pytest.mark.parametrize("kinds", [[["fact"]], [{"fact": 1}], [None], ("fact", ["episode"])])
def test_kinds_that_are_not_strings_are_refused(memory_target: MemoryTarget, kinds: object) -> None:
    with memory_target.open() as mem, pytest.raises(InvalidArgumentError, match="kinds"):
        mem.recall("anything", kinds=kinds)  # type: ignore[arg-type]  # the hostile call


@pytest.mark.parametrize("weight", [10**400, -(10**400)])
def test_a_weight_beyond_any_float_is_refused(memory_target: MemoryTarget, weight: int) -> None:
    with pytest.raises(InvalidArgumentError, match="bm25 must be finite and >= 0"):
        memory_target.open(weights={"bm25": weight})


@pytest.mark.parametrize(
    "schema", ["information_schema", "pg_catalog", "pg_toast", "pg_temp_1", "PG_mine"]
)
def test_a_postgresql_system_schema_is_refused(pg_dsn: str, schema: str) -> None:
    from tests.chronomem.backends import dsn_url

    with pytest.raises(InvalidArgumentError, match="system schema"):
        ChronoMem(dsn_url(pg_dsn), schema=schema)


def test_an_import_never_says_whose_an_id_is(memory_target: MemoryTarget) -> None:
    with memory_target.open(owner="alice") as alice:
        alice.remember("Alice's locker code is 4412")
        records = list(alice.export_facts())
    with memory_target.open(owner="mallory") as mallory:
        with pytest.raises(InvalidFactError) as refused:
            mallory.import_facts(records)
        message = str(refused.value)
        assert "cannot be imported" in message
        assert "owner" not in message  # no existence oracle
        assert mallory.stats()["facts"] == 0
