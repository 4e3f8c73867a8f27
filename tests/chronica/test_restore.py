"""Restoring an export: every record passes the rules of a live write, and a batch is whole.

The rules are proven the same by construction: each bad actum of the live-write tests
(``BAD_ACTA``) is slipped into an otherwise good export, and must fail with the error a live
``record_actum`` gives it, before the store is called at all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    ChronicaError,
    Chronicarius,
    ChronicaTypeError,
    Chronicum,
    ChronicumNotFoundError,
    DuplicateActumError,
    InvalidActumError,
    InvalidArgumentError,
    RestoreUnsupportedError,
    Store,
)
from chronica._ids import new_actum_id
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

from .spy import PlainStore, SpyStore
from .test_chronicarius import BAD_ACTA

OWNER = "ardian"
AT = datetime(2025, 3, 1, 19, 0, tzinfo=timezone(timedelta(hours=7)))


def _export(chronicum_id: str = "dinner", n: int = 3) -> tuple[Chronicum, list[Actum]]:
    chronicum = Chronicum(id=chronicum_id, owner_id=OWNER, created_at=AT)
    acta = [
        Actum(
            id=new_actum_id(),
            chronicum_id=chronicum_id,
            kind=ActumKind.MESSAGE,
            actor_kind=ActorKind.AGENT,
            actor="concierge",
            content=f"message {i}",
            metadata={"turn": i},
            at=AT + timedelta(seconds=i),
        )
        for i in range(n)
    ]
    return chronicum, acta


@pytest.fixture
def spy() -> SpyStore:
    return SpyStore()


def test_an_export_comes_back_exactly(spy: SpyStore) -> None:
    (dinner, its_acta), (trip, more) = _export("dinner"), _export("trip", 2)
    c = Chronicarius(spy)
    assert c.restore(OWNER, [dinner, trip], [*its_acta, *more]) == 5
    assert c.get_chronicum(OWNER, "dinner").created_at == AT
    got = c.get_acta(OWNER, "dinner")
    assert got == its_acta
    assert [a.at for a in got] == [a.at for a in its_acta]
    assert all(a.at is not None and a.at.tzinfo is timezone.utc for a in got)
    assert c.restore(OWNER, [dinner, trip], [*its_acta, *more]) == 0


@pytest.mark.parametrize(("changes", "error", "field"), BAD_ACTA)
def test_a_record_a_live_write_refuses_is_refused_by_restore_too(
    spy: SpyStore, changes: dict[str, Any], error: type[Exception], field: str
) -> None:
    chronicum, acta = _export()
    bad = dataclasses.replace(acta[1], **changes)
    with pytest.raises(ChronicaError) as live:
        Chronicarius(SpyStore()).record_actum(OWNER, bad)
    c = Chronicarius(spy)
    for attempt in (c.check_restore, c.restore):
        with pytest.raises(error) as restored:
            attempt(OWNER, [chronicum], [acta[0], bad, acta[2]])
        assert type(restored.value) is type(live.value)
        assert getattr(restored.value, "field", None) == getattr(live.value, "field", None)
        assert field in str(restored.value)
        assert str(restored.value) == f"acta[1]: {live.value}"  # which record, then why
    assert spy.calls == []


RESTORE_ONLY: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"id": 5}, ChronicaTypeError, "id"),
    ({"id": ""}, InvalidActumError, "id"),
    ({"id": "x" * 257}, InvalidActumError, "id"),
    ({"id": "a\x00b"}, InvalidActumError, "id"),
    ({"at": None}, ChronicaTypeError, "at"),
    ({"at": "2025-03-01T19:00:00+07:00"}, ChronicaTypeError, "at"),
    ({"at": datetime(2025, 3, 1, 19, 0)}, InvalidActumError, "at"),
    (
        {"at": datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-14)))},
        InvalidActumError,
        "at",
    ),
]


@pytest.mark.parametrize(("changes", "error", "field"), RESTORE_ONLY)
def test_an_exported_id_and_time_are_checked(
    spy: SpyStore, changes: dict[str, Any], error: type[Exception], field: str
) -> None:
    chronicum, acta = _export()
    with pytest.raises(error, match=field):
        Chronicarius(spy).restore(
            OWNER, [chronicum], [*acta, dataclasses.replace(acta[0], **changes)]
        )
    assert spy.calls == []


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"id": ""}, InvalidArgumentError),
        ({"id": 7}, ChronicaTypeError),
        ({"id": "c" * 100_000}, InvalidArgumentError),
        ({"owner_id": "mallory"}, InvalidArgumentError),
        ({"created_at": datetime(2025, 3, 1)}, InvalidArgumentError),
        ({"created_at": "yesterday"}, ChronicaTypeError),
    ],
)
def test_an_exported_chronicum_is_checked(
    spy: SpyStore, changes: dict[str, Any], error: type[Exception]
) -> None:
    chronicum, _ = _export()
    with pytest.raises(error, match=r"chronica\[0\]"):
        Chronicarius(spy).restore(OWNER, [dataclasses.replace(chronicum, **changes)], [])
    assert spy.calls == []


def test_a_batch_must_hang_together(spy: SpyStore) -> None:
    chronicum, acta = _export()
    c = Chronicarius(spy)
    stray = dataclasses.replace(acta[0], id=new_actum_id(), chronicum_id="elsewhere")
    with pytest.raises(InvalidArgumentError, match="not among the chronica"):
        c.restore(OWNER, [chronicum], [*acta, stray])
    with pytest.raises(InvalidArgumentError, match="appears twice"):
        c.restore(OWNER, [chronicum], [*acta, acta[0]])
    with pytest.raises(InvalidArgumentError, match="appears twice"):
        c.restore(OWNER, [chronicum, chronicum], acta)
    with pytest.raises(ChronicaTypeError):
        c.restore(OWNER, [{"id": "dinner"}], [])  # type: ignore[list-item]  # on purpose
    with pytest.raises(ChronicaError):
        c.restore("", [chronicum], acta)
    assert spy.calls == []


def test_a_store_that_cannot_restore_is_refused_before_anything_is_checked() -> None:
    plain = PlainStore()
    chronicum, acta = _export()
    for attempt in (Chronicarius(plain).check_restore, Chronicarius(plain).restore):
        with pytest.raises(RestoreUnsupportedError):
            attempt(OWNER, [chronicum], acta)
    assert plain.calls == []


# --- on the durable stores: the issue's own examples, and all or nothing --------------------


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    store: SQLiteStore | PostgresStore
    if request.param == "sqlite":
        store = SQLiteStore(tmp_path / "chronica.db")
    else:
        dsn = request.getfixturevalue("pg_dsn")
        store = PostgresStore(dsn, schema=request.getfixturevalue("pg_schema"))
    with store:
        yield store


def _nested(depth: int) -> list[Any]:
    deep: list[Any] = []
    for _ in range(depth):
        deep = [deep]
    return deep


HOSTILE: list[tuple[str, dict[str, Any]]] = [
    ("NUL content", {"content": "a\x00b"}),
    ("3 MB content", {"content": "x" * 3_000_000}),
    ("5,000-character actor", {"actor": "a" * 5_000}),
    ("an id that is a number", {"id": 5}),
    ("metadata nested 5,000 deep", {"metadata": {"a": _nested(5_000)}}),
]


@pytest.mark.parametrize(("what", "changes"), HOSTILE, ids=[what for what, _ in HOSTILE])
def test_a_hostile_export_stores_nothing(
    durable: SQLiteStore | PostgresStore, what: str, changes: dict[str, Any]
) -> None:
    chronicum, acta = _export()
    with pytest.raises(ChronicaError):
        Chronicarius(durable).restore(
            OWNER, [chronicum], [*acta, dataclasses.replace(acta[0], **changes)]
        )
    assert durable.chronica() == []


def test_a_hundred_kilobyte_chronicum_id_stores_nothing(
    durable: SQLiteStore | PostgresStore,
) -> None:
    chronicum, acta = _export("c" * 100_000)
    with pytest.raises(InvalidArgumentError):
        Chronicarius(durable).restore(OWNER, [chronicum], acta)
    assert durable.chronica() == []


def test_a_clash_with_another_owners_actum_stores_nothing(
    durable: SQLiteStore | PostgresStore,
) -> None:
    c = Chronicarius(durable)
    hers = c.record_actum("alice", _export()[1][0])
    (dinner, acta), (trip, more) = _export("dinner"), _export("trip")
    with pytest.raises(DuplicateActumError):
        c.restore(OWNER, [dinner, trip], [*acta, *more, dataclasses.replace(more[0], id=hers.id)])
    assert [ch.owner_id for ch in durable.chronica()] == ["alice"]
    for chronicum_id in ("dinner", "trip"):
        with pytest.raises(ChronicumNotFoundError):
            c.get_acta(OWNER, chronicum_id)
