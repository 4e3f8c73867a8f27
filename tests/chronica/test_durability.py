"""The durable stores across processes, crashes and reopenings, and on files not their own.

Child processes come from a ``forkserver`` that has already imported chronica and this
module, so forty of them start in milliseconds instead of each paying for the imports.
Every child opens its own store: nothing crosses a fork but plain data.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import random
import sqlite3
import time
import traceback
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import pytest

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    Chronicarius,
    Chronicum,
    ChronicumNotFoundError,
)
from chronica._ids import new_actum_id
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

OWNER = "ardian"
CID = "dinner-friday"

_CTX = multiprocessing.get_context("forkserver")
_CTX.set_forkserver_preload(["chronica.stores.sqlite", "chronica.stores.postgres", __name__])


def _open(spec: dict[str, str]) -> SQLiteStore | PostgresStore:
    if spec["backend"] == "sqlite":
        return SQLiteStore(spec["path"])
    return PostgresStore(spec["dsn"], schema=spec["schema"], max_size=1)


def _child(spec: dict[str, str], role: str, name: str, count: int, pipe: Connection) -> None:
    """Open the store, wait for the start signal, then play ``role`` and report on ``pipe``."""
    try:
        # "fresh": open only after the start signal, so every child races to create the file.
        c = None if role == "fresh" else Chronicarius(_open(spec))

        def actum(i: int) -> Actum:
            return Actum(
                chronicum_id=CID,
                kind=ActumKind.MESSAGE,
                actor_kind=ActorKind.AGENT,
                actor=name,
                content=f"{name}:{i}",
            )

        pipe.send("ready")
        pipe.recv()  # the start signal: every child begins at once
        c = c or Chronicarius(_open(spec))
        if role in ("append", "fresh"):
            pipe.send([c.record_actum(OWNER, actum(i)).id for i in range(count)])
        elif role == "once":
            pipe.send(c.record_actum(OWNER, actum(0), idempotency_key="the-key").id)
        else:  # "crash": append until killed, acknowledging each ID only once it returned
            for i in range(1_000_000):
                pipe.send(c.record_actum(OWNER, actum(i)).id)
    except BaseException:
        pipe.send(("error", traceback.format_exc()))
        raise


@dataclasses.dataclass(frozen=True)
class Backend:
    """How to open one durable store, here and (through ``spec``) in a child process."""

    spec: dict[str, str]

    @property
    def open(self) -> Callable[[], SQLiteStore | PostgresStore]:
        return lambda: _open(self.spec)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return Backend({"backend": "sqlite", "path": str(tmp_path / "chronica.db")})
    dsn: str = request.getfixturevalue("pg_dsn")
    schema: str = request.getfixturevalue("pg_schema")
    return Backend({"backend": "postgres", "dsn": dsn, "schema": schema})


@dataclasses.dataclass
class _Child:
    process: BaseProcess
    pipe: Connection

    def receive(self) -> Any:
        message = self.pipe.recv()
        if isinstance(message, tuple) and message[:1] == ("error",):
            raise AssertionError(f"child failed:\n{message[1]}")
        return message


def _spawn(backend: Backend, role: str, name: str, count: int = 0) -> _Child:
    ours, theirs = _CTX.Pipe()
    process = _CTX.Process(target=_child, args=(backend.spec, role, name, count, theirs))
    process.start()
    theirs.close()  # so our end sees EOF once the child is gone
    return _Child(process, ours)


def _start_together(children: list[_Child]) -> None:
    for child in children:
        assert child.receive() == "ready"
    for child in children:
        child.pipe.send("go")


def _finish(child: _Child) -> Any:
    result = child.receive()
    child.process.join(60)
    assert child.process.exitcode == 0
    return result


def _create(backend: Backend) -> None:
    with backend.open() as store:
        store.create(CID, owner_id=OWNER)


def test_eight_processes_appending_keep_every_writers_order(backend: Backend) -> None:
    _create(backend)
    children = [_spawn(backend, "append", f"w{i}", 250) for i in range(8)]
    _start_together(children)
    written = [_finish(child) for child in children]
    with backend.open() as store:
        stored = store.acta(CID, owner_id=OWNER)
    assert len(stored) == 2000
    assert len({a.id for a in stored}) == 2000
    for i, ids in enumerate(written):
        assert [a.id for a in stored if a.actor == f"w{i}"] == ids


def test_processes_creating_one_new_file_at_once_share_it(tmp_path: Path) -> None:
    backend = Backend({"backend": "sqlite", "path": str(tmp_path / "brand-new.db")})
    children = [_spawn(backend, "fresh", f"w{i}", 20) for i in range(8)]
    _start_together(children)
    written = [_finish(child) for child in children]
    with backend.open() as store:
        stored = store.acta(CID, owner_id=OWNER)
        assert store.get(CID, owner_id=OWNER).owner_id == OWNER
    assert sorted(a.id for a in stored) == sorted(i for ids in written for i in ids)


def test_forty_processes_racing_one_key_store_exactly_one(backend: Backend) -> None:
    _create(backend)
    children = [_spawn(backend, "once", f"p{i}") for i in range(40)]
    _start_together(children)
    returned = {_finish(child) for child in children}
    with backend.open() as store:
        stored = store.acta(CID, owner_id=OWNER)
    assert len(stored) == 1
    assert returned == {stored[0].id}


def _crash_once(backend: Backend, rng: random.Random, name: str) -> None:
    child = _spawn(backend, "crash", name)
    _start_together([child])
    acknowledged = [child.receive() for _ in range(rng.randint(1, 120))]
    time.sleep(rng.uniform(0, 0.02))
    child.process.kill()  # SIGKILL: no cleanup, no atexit, no checkpoint
    child.process.join(30)
    assert child.process.exitcode == -9
    with contextlib.suppress(EOFError):
        while True:  # IDs the child sent before it died were acknowledged too
            acknowledged.append(child.receive())
    with backend.open() as store:
        stored = [a.id for a in store.acta(CID, owner_id=OWNER) if a.actor == name]
    assert stored[: len(acknowledged)] == acknowledged
    # At most the one write in flight when the kill landed may be stored unacknowledged.
    assert len(stored) - len(acknowledged) in (0, 1)


def test_every_acknowledged_actum_survives_sigkill(backend: Backend) -> None:
    rng = random.Random(os.getpid())
    _create(backend)
    for attempt in range(20 if backend.spec["backend"] == "sqlite" else 4):
        _crash_once(backend, rng, f"crasher-{attempt}")
        if backend.spec["backend"] == "sqlite":
            with sqlite3.connect(backend.spec["path"]) as raw:
                assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            raw.close()


def _actum(i: int, **changes: Any) -> Actum:
    fields: dict[str, Any] = {
        "chronicum_id": CID,
        "kind": list(ActumKind)[i % 4],
        "actor_kind": list(ActorKind)[i % 3],
        "actor": f"agent-{i % 2}",
        "content": f"actum {i} 🍜",
        "metadata": {"i": i, "nested": {"ok": [1, 2.5, None, True]}} if i % 2 else {},
    }
    return Actum(**(fields | changes))


def test_reopened_store_returns_identical_acta_in_identical_order(backend: Backend) -> None:
    with backend.open() as store:
        chronicarius = Chronicarius(store)
        sent = [chronicarius.record_actum(OWNER, _actum(i)) for i in range(50)]
        chronicum = store.get(CID, owner_id=OWNER)
    with backend.open() as store:
        assert store.acta(CID, owner_id=OWNER) == sent
        assert store.get(CID, owner_id=OWNER) == chronicum
        assert Chronicarius(store).get_acta(OWNER, CID, last_n=7) == sent[-7:]


def test_export_and_restore_are_lossless_and_repeatable(backend: Backend) -> None:
    with backend.open() as store:
        chronicarius = Chronicarius(store)
        sent = [chronicarius.record_actum(OWNER, _actum(i)) for i in range(20)]
        chronicarius.record_actum("bea", _actum(0, chronicum_id="gift"))
        beas = chronicarius.record_actum("bea", _actum(1))  # her own chronicum of that name
        exported = [(c, store.acta(c.id, owner_id=c.owner_id)) for c in store.chronica()]
        source_seen = store.chronica()
    assert [(c.owner_id, c.id) for c, _ in exported] == [
        (OWNER, CID),
        ("bea", "gift"),
        ("bea", CID),
    ]
    assert exported[0][1] == sent
    assert exported[2][1] == [beas]
    with _other_store(backend) as other:
        restoring = Chronicarius(other)
        for attempt in range(2):  # the second import finds every ID and adds nothing
            added = [restoring.restore(c.owner_id, [c], acta) for c, acta in exported]
            assert added == ([20, 1, 1] if attempt == 0 else [0, 0, 0])
        assert other.chronica() == source_seen
        for chronicum, acta in exported:
            assert other.acta(chronicum.id, owner_id=chronicum.owner_id) == acta
        later = restoring.record_actum(OWNER, _actum(99))
        assert other.acta(CID, owner_id=OWNER) == [*sent, later]


def _other_store(backend: Backend) -> SQLiteStore | PostgresStore:
    if backend.spec["backend"] == "sqlite":
        return SQLiteStore(backend.spec["path"] + ".restored")
    return PostgresStore(backend.spec["dsn"], schema=backend.spec["schema"] + "_restored")


RESTORED_ACTA = 3_000


def _restore_child(spec: dict[str, str], chronicum_id: str, pipe: Connection) -> None:
    """Restore one big chronicum in one call, saying when it starts (to be killed meanwhile)."""
    try:
        at = datetime.now(timezone.utc) - timedelta(days=1)
        chronicum = Chronicum(id=chronicum_id, owner_id=OWNER, created_at=at)
        acta = [
            dataclasses.replace(_actum(i, chronicum_id=chronicum_id), id=new_actum_id(), at=at)
            for i in range(RESTORED_ACTA)
        ]
        c = Chronicarius(_open(spec))
        pipe.send("restoring")
        pipe.send(c.restore(OWNER, [chronicum], acta))
    except BaseException:
        pipe.send(("error", traceback.format_exc()))
        raise


def test_a_restore_killed_midway_leaves_all_or_nothing(backend: Backend) -> None:
    rng = random.Random(os.getpid())
    for attempt in range(6):
        chronicum_id = f"imported-{attempt}"
        ours, theirs = _CTX.Pipe()
        process = _CTX.Process(target=_restore_child, args=(backend.spec, chronicum_id, theirs))
        process.start()
        theirs.close()
        child = _Child(process, ours)
        assert child.receive() == "restoring"
        time.sleep(rng.uniform(0, 0.15))
        process.kill()
        process.join(30)
        with backend.open() as store:
            try:
                stored = len(store.acta(chronicum_id, owner_id=OWNER))
            except ChronicumNotFoundError:
                stored = 0
        assert stored in (0, RESTORED_ACTA), f"a killed restore left {stored} acta"
