"""ChronicaSession: the OpenAI Agents SDK's ``Session`` over chronica, proved with the SDK.

The transcript tests run the SDK's real agent loop (``Runner.run``) with a scripted model
and compare what the model was shown against the SDK's own ``SQLiteSession``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import re
import sqlite3
import subprocess
import sys
import time
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents.memory import Session, SessionSettings, SQLiteSession
from openai.types.responses.response_input_item_param import ResponseInputItemParam

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    Chronicarius,
    ChronicumNotFoundError,
    IdempotencyUnsupportedError,
    Store,
    StoreError,
)
from chronica.integrations.openai_agents import ChronicaSession, UnmappableItemError
from chronica.stores.inmemory import InMemoryStore
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore
from tests.chronica.integrations import appenders
from tests.chronica.integrations.agents_script import FIRST_PROCESS, SECOND_PROCESS, converse
from tests.chronica.integrations.input_items import SAMPLES

OWNER, SID = "ardian", "dinner-friday"
REPO = Path(__file__).resolve().parents[3]

_CTX = multiprocessing.get_context("forkserver")
_CTX.set_forkserver_preload([appenders.__name__])


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Each kind of chronica store the adapter must work on."""
    if request.param == "memory":
        yield InMemoryStore()
    elif request.param == "sqlite":
        with SQLiteStore(tmp_path / "chronica.db") as sqlite:
            yield sqlite
    else:
        dsn, schema = request.getfixturevalue("pg_dsn"), request.getfixturevalue("pg_schema")
        with PostgresStore(dsn, schema=schema) as postgres:
            yield postgres


def _session(store: Store, **options: Any) -> ChronicaSession:
    return ChronicaSession(SID, owner=OWNER, store=store, **options)


def _run(coroutine: typing.Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


def _turns(*texts: str) -> list[Any]:
    """User messages, as the SDK's easy input items."""
    return [{"role": "user", "content": text} for text in texts]


def _all_samples() -> list[Any]:
    return [item for items in SAMPLES.values() for item in items]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# The protocol, and the agent loop.


def test_it_is_an_agents_sdk_session() -> None:
    session = _session(InMemoryStore())
    assert isinstance(session, Session)
    assert session.session_id == SID
    assert session.session_settings is None
    assert session.owner == OWNER


def test_the_agent_loop_sees_what_sqlitesession_gives_it_and_a_second_process_continues(
    tmp_path: Path,
) -> None:
    reference = SQLiteSession(SID)
    expected = _run(converse(reference, FIRST_PROCESS + SECOND_PROCESS))
    path = tmp_path / "agents.db"
    with SQLiteStore(path) as store:
        first = _run(converse(_session(store), FIRST_PROCESS))
    second = subprocess.run(
        [
            sys.executable,
            "-m",
            f"{__package__}.agents_script",
            str(path),
            OWNER,
            SID,
            *SECOND_PROCESS,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert _json(first + json.loads(second.stdout)) == _json(expected)
    with SQLiteStore(path) as store:
        items = _run(_session(store).get_items())
    assert _json(items) == _json(_run(reference.get_items()))
    reference.close()


def test_the_agent_loop_on_postgresql_sees_what_sqlitesession_gives_it(
    pg_dsn: str, pg_schema: str
) -> None:
    script = FIRST_PROCESS + SECOND_PROCESS
    reference = SQLiteSession(SID)
    with PostgresStore(pg_dsn, schema=pg_schema) as store:
        assert _json(_run(converse(_session(store), script))) == _json(
            _run(converse(reference, script))
        )
    reference.close()


def test_other_agents_read_the_conversation_as_meaningful_acta() -> None:
    store = InMemoryStore()
    _run(converse(_session(store, agent="concierge"), ["What's the weather in Paris?"]))
    acta = Chronicarius(store).get_acta(OWNER, SID)
    seen = [(a.kind, a.actor_kind, a.actor, a.content) for a in acta]
    assert seen == [
        (ActumKind.MESSAGE, ActorKind.HUMAN, OWNER, "What's the weather in Paris?"),
        (ActumKind.THOUGHT, ActorKind.AGENT, "concierge", "Look up the weather in Paris."),
        (ActumKind.TOOL_REQUEST, ActorKind.AGENT, "concierge", '{"city": "Paris"}'),
        (ActumKind.TOOL_RESPONSE, ActorKind.AGENT, "concierge", "sunny, 21°C"),
        (ActumKind.MESSAGE, ActorKind.AGENT, "concierge", "The weather there: sunny, 21°C."),
    ]
    assert acta[2].metadata["tool"] == "get_weather"
    assert acta[2].metadata["call_id"] == acta[3].metadata["call_id"] == "call_1"


# Items round-trip exactly.


def _union_types() -> set[str]:
    found: set[str] = set()
    for member in typing.get_args(ResponseInputItemParam):
        literal = typing.get_type_hints(member)["type"]
        while typing.get_origin(literal) is not typing.Literal:
            literal = next(a for a in typing.get_args(literal) if a is not type(None))
        found.update(typing.get_args(literal))
    return found


def test_the_samples_cover_every_input_item_type_of_the_installed_sdk() -> None:
    # A new SDK release that adds an item type fails here, not in a user's agent loop.
    assert set(SAMPLES) == _union_types()


def test_every_input_item_type_round_trips_exactly(store: Store) -> None:
    items = _all_samples()
    session = _session(store)
    _run(session.add_items(items))
    got = _run(session.get_items())
    assert _json(got) == _json(items)  # equal, and in the same key order
    reference = SQLiteSession(SID)
    _run(reference.add_items(items))
    assert _json(got) == _json(_run(reference.get_items()))
    reference.close()


def test_items_come_back_as_fresh_plain_dicts() -> None:
    session = _session(InMemoryStore())
    _run(session.add_items([SAMPLES["message"][5]]))
    got = _run(session.get_items())[0]
    got["content"][0]["text"] = "changed"  # the caller's to edit, as SQLiteSession's are
    assert _run(session.get_items()) == [SAMPLES["message"][5]]


def test_a_large_item_keeps_its_main_text_in_content() -> None:
    store = InMemoryStore()
    output = SAMPLES["function_call_output"][1]
    _run(_session(store).add_items([output]))
    [actum] = Chronicarius(store).get_acta(OWNER, SID)
    assert actum.content == output["output"]  # 300 KB: far over metadata's 64 KiB


@pytest.mark.parametrize(
    ("limit", "settings"),
    [(None, None), (0, None), (1, None), (3, None), (1000, None), (-1, None), (None, 2)],
)
def test_get_items_limits_match_sqlitesession(limit: int | None, settings: int | None) -> None:
    items = _turns(*(f"turn {i}" for i in range(7)))
    chosen = SessionSettings(limit=settings) if settings is not None else None
    ours = _session(InMemoryStore(), session_settings=chosen)
    theirs = SQLiteSession(SID, session_settings=chosen)
    for session in (ours, theirs):
        _run(session.add_items(items))  # plain dicts
        _run(session.pop_item())
    assert _run(ours.get_items(limit)) == _run(theirs.get_items(limit))
    theirs.close()


# Append-only: pop_item and clear_session retract, never delete.


def test_pop_item_retracts_the_latest_item_and_keeps_it_in_the_record(store: Store) -> None:
    session = _session(store)
    items = _turns("one", "two")
    _run(session.add_items(items))  # plain dicts
    assert _run(session.pop_item()) == items[1]
    assert _run(session.get_items()) == items[:1]
    acta = Chronicarius(store).get_acta(OWNER, SID)
    assert [a.content for a in acta[:2]] == ["one", "two"]
    retraction = acta[2]
    assert (retraction.kind, retraction.actor_kind) == (ActumKind.MESSAGE, ActorKind.SYSTEM)
    assert acta[1].id in retraction.content
    assert _run(session.pop_item()) == items[0]
    assert _run(session.pop_item()) is None
    assert _run(session.get_items()) == []


def test_clear_session_retracts_everything_before_it(store: Store) -> None:
    session = _session(store)
    _run(session.clear_session())  # a session never written: nothing to clear, nothing written
    with pytest.raises(ChronicumNotFoundError):
        Chronicarius(store).get_acta(OWNER, SID)
    _run(session.add_items(_turns("old")))
    _run(session.clear_session())
    assert _run(session.get_items()) == []
    assert _run(session.pop_item()) is None
    _run(session.add_items(_turns("new")))
    assert _run(session.get_items()) == [{"role": "user", "content": "new"}]
    contents = [a.content for a in Chronicarius(store).get_acta(OWNER, SID)]
    assert contents == ["old", "clear_session retracted every earlier item", "new"]


def test_reads_look_past_retractions_for_the_latest_items() -> None:
    session = _session(InMemoryStore())
    items = _turns(*(f"turn {i}" for i in range(10)))
    _run(session.add_items(items))  # plain dicts
    for _ in range(4):
        _run(session.pop_item())
    assert _run(session.get_items(limit=3)) == items[3:6]


def test_racing_pops_never_return_the_same_item(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "chronica.db") as store:
        items = _turns(*(f"turn {i}" for i in range(40)))
        _run(_session(store).add_items(items))  # plain dicts

        async def pop_all(session: ChronicaSession) -> list[Any]:
            popped = []
            while (item := await session.pop_item()) is not None:
                popped.append(item)
            return popped

        async def race() -> list[list[Any]]:
            return await asyncio.gather(*(pop_all(_session(store)) for _ in range(4)))

        results = _run(race())
    popped = [item["content"] for result in results for item in result]
    assert sorted(popped) == sorted(item["content"] for item in items)


def test_other_agents_acta_in_the_chronicum_are_not_items() -> None:
    store = InMemoryStore()
    session = _session(store)
    _run(session.add_items(_turns("book it")))
    booking = Actum(
        chronicum_id=SID,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.AGENT,
        actor="booking",
        content="Booked Kinara.",
    )
    Chronicarius(store).record_actum(OWNER, booking)
    assert _run(session.get_items()) == [{"role": "user", "content": "book it"}]
    assert _run(session.get_items(limit=1)) == [{"role": "user", "content": "book it"}]
    assert _run(session.pop_item()) == {"role": "user", "content": "book it"}


# Owners, retries, bad input.


def test_the_owner_comes_from_the_session_never_from_the_item() -> None:
    store = InMemoryStore()
    item: Any = {"role": "user", "content": "hi", "owner": "mallory", "actor": "mallory"}
    _run(_session(store).add_items([item]))
    [actum] = Chronicarius(store).get_acta(OWNER, SID)
    assert actum.actor == OWNER
    mallory = ChronicaSession(SID, owner="mallory", store=store)
    assert _run(mallory.get_items()) == []
    assert _run(mallory.pop_item()) is None
    assert _run(_session(store).get_items()) == [item]


@pytest.mark.parametrize("per_item", [False, True], ids=["one-transaction", "per-item"])
def test_a_retried_add_items_is_stored_once(tmp_path: Path, per_item: bool) -> None:
    with contextlib.closing(appenders.LostAckStore(tmp_path / "chronica.db")) as store:
        # Batched, the whole call commits and then fails; per item, the second item is
        # committed, then the call fails, with the third not written.
        store.fail_at = 2
        session = _session(appenders.PerItem(store) if per_item else store)
        items = _turns(*(f"turn {i}" for i in range(3)))
        with pytest.raises(StoreError):
            _run(session.add_items(items))  # plain dicts
        assert len(Chronicarius(store).get_acta(OWNER, SID)) == (2 if per_item else 3)
        _run(session.add_items(items))  # the retry
        assert _run(session.get_items()) == items
        _run(session.add_items(items[:1]))  # a new turn, same words
        assert _run(session.get_items()) == [*items, items[0]]
        assert len(Chronicarius(store).get_acta(OWNER, SID)) == 4


def test_a_retry_finds_its_stored_call_behind_other_writers_and_keeps_no_key_per_item(
    tmp_path: Path,
) -> None:
    with contextlib.closing(appenders.LostAckStore(tmp_path / "chronica.db")) as store:
        store.fail_at = 3  # the whole turn is committed, then the call fails
        session = _session(store)
        items = _turns("turn 0", "turn 1", "turn 2")
        with pytest.raises(StoreError):
            _run(session.add_items(items))
        other = _session(store)  # another writer appends more than a first look back reads
        for i in range(30):
            _run(other.add_items(_turns(f"other {i}", f"more {i}", f"again {i}")))
        _run(session.add_items(items))  # the retry
        got = _run(session.get_items())
        assert got.count(items[0]) == 1
        assert len(got) == 3 + 90
        # A batch store's turn is found by its first actum's mark: no key for every item.
        with contextlib.closing(sqlite3.connect(tmp_path / "chronica.db")) as conn:
            (keyed,) = conn.execute(
                "SELECT count(*) FROM chronica_acta WHERE idempotency_key IS NOT NULL"
            ).fetchone()
        assert keyed == 0


def test_a_retry_of_a_call_that_stored_nothing_stores_it(tmp_path: Path) -> None:
    class FailsFirst(SQLiteStore):
        failed = False

        def record_many(self, acta: Any, *, owner_id: str, idempotency_keys: Any = None) -> Any:
            if not self.failed:
                self.failed = True
                raise StoreError("the disk is full")
            return super().record_many(acta, owner_id=owner_id, idempotency_keys=idempotency_keys)

    with contextlib.closing(FailsFirst(tmp_path / "chronica.db")) as store:
        session = _session(store)
        items = _turns("turn 0", "turn 1")
        with pytest.raises(StoreError, match="disk is full"):
            _run(session.add_items(items))
        _run(session.add_items(items))  # the retry: nothing was stored, so all of it is
        assert _run(session.get_items()) == items


def test_a_cancelled_add_items_finishes_its_write_and_its_retry_stores_nothing_twice() -> None:
    class SlowStore(InMemoryStore):
        def record_many(self, acta: Any, *, owner_id: str, idempotency_keys: Any = None) -> Any:
            time.sleep(0.2)
            return super().record_many(acta, owner_id=owner_id, idempotency_keys=idempotency_keys)

    store = SlowStore()
    session = _session(store)
    items = _turns(*(f"turn {i}" for i in range(4)))

    async def cancel_then_retry() -> None:
        task = asyncio.ensure_future(session.add_items(items))
        await asyncio.sleep(0.07)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The cancelled call's write ran to its end before the cancellation was raised.
        assert len(Chronicarius(store).get_acta(OWNER, SID)) == 4
        await session.add_items(items)  # the retry

    _run(cancel_then_retry())
    assert _run(session.get_items()) == items


BAD_ITEMS = [
    pytest.param("hello", "item 1 cannot be recorded in chronica: is a str", id="not-an-object"),
    pytest.param(
        {"type": "function_call_output", "call_id": "c", "output": float("nan")},
        "item 1 (function_call_output) cannot be recorded in chronica: is not JSON",
        id="nan",
    ),
    pytest.param(
        {"type": "function_call_output", "call_id": "c", "output": {1, 2}},
        "is not JSON",
        id="a-set",
    ),
    pytest.param(
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "x" * (2 << 20)},
        "invalid actum: content is larger than",
        id="over-1-MiB",
    ),
    pytest.param(
        {"type": "message", "role": "user", "content": [{"a": "x" * 40_000}] * 3},
        "is too large",
        id="too-much-besides-its-text",
    ),
]


@pytest.mark.parametrize(("bad", "message"), BAD_ITEMS)
def test_an_item_it_cannot_record_is_named_and_nothing_of_the_call_is_written(
    store: Store, bad: Any, message: str
) -> None:
    session = _session(store)
    batch = [{"role": "user", "content": "first"}, bad, {"role": "user", "content": "third"}]
    with pytest.raises(UnmappableItemError, match=re.escape(message)):
        _run(session.add_items(batch))
    with pytest.raises(ChronicumNotFoundError):
        Chronicarius(store).get_acta(OWNER, SID)


def test_the_error_names_the_item_by_index_and_type() -> None:
    nan: Any = {"type": "function_call_output", "call_id": "c", "output": float("nan")}
    with pytest.raises(UnmappableItemError) as caught:
        _run(_session(InMemoryStore()).add_items([_turns("hi")[0], nan]))
    assert (caught.value.index, caught.value.item_type) == (1, "function_call_output")


# Stores, threads, processes.


def test_a_store_that_cannot_deduplicate_is_refused() -> None:
    class PlainStore:
        def __init__(self) -> None:
            self._inner = InMemoryStore()
            self.create, self.record = self._inner.create, self._inner.record
            self.acta, self.get = self._inner.acta, self._inner.get

    with pytest.raises(IdempotencyUnsupportedError):
        ChronicaSession(SID, owner=OWNER, store=PlainStore())


def test_a_path_opens_a_sqlite_store_the_session_closes(tmp_path: Path) -> None:
    session = ChronicaSession(SID, owner=OWNER, store=str(tmp_path / "agents.db"))
    _run(session.add_items(_turns("hi")))
    assert isinstance(session.store, SQLiteStore)
    session.close()
    with pytest.raises(StoreError, match="closed"):
        _run(session.get_items())
    reopened = ChronicaSession(SID, owner=OWNER, store=tmp_path / "agents.db")
    assert _run(reopened.get_items()) == [{"role": "user", "content": "hi"}]
    reopened.close()


@pytest.mark.postgres
def test_a_postgresql_dsn_opens_a_postgres_store(pg_dsn: str) -> None:
    if not pg_dsn.startswith(("postgresql://", "postgres://")):
        pg_dsn = "postgresql:///?" + "&".join(pg_dsn.split())  # key=value form, as a URI
    session_id = f"dsn-{time.time_ns()}"  # the default schema is shared by runs: a fresh ID
    session = ChronicaSession(session_id, owner=OWNER, store=pg_dsn)
    assert isinstance(session.store, PostgresStore)
    _run(session.add_items(_turns("hi")))
    assert _run(session.get_items()) == [{"role": "user", "content": "hi"}]
    session.close()


def test_store_calls_do_not_block_the_event_loop() -> None:
    class SlowStore(InMemoryStore):
        def acta(self, *args: Any, **kwargs: Any) -> list[Actum]:
            time.sleep(0.3)
            return super().acta(*args, **kwargs)

    session = _session(SlowStore())
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    async def read_while_ticking() -> None:
        ticker = asyncio.ensure_future(tick())
        await session.get_items()
        ticker.cancel()

    _run(read_while_ticking())
    assert ticks >= 10  # the loop ran on while the store slept


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """How a child process opens the store: a SQLite file or a PostgreSQL schema."""
    if request.param == "sqlite":
        return {"backend": "sqlite", "path": str(tmp_path / "chronica.db")}
    dsn: str = request.getfixturevalue("pg_dsn")
    return {"backend": "postgres", "dsn": dsn, "schema": request.getfixturevalue("pg_schema")}


def _receive(pipe: Any) -> Any:
    message = pipe.recv()
    if isinstance(message, tuple) and message[:1] == ("error",):
        raise AssertionError(f"writer failed:\n{message[1]}")
    return message


def test_eight_processes_append_to_one_session(backend: dict[str, str]) -> None:
    writers, count = [f"w{n}" for n in range(8)], 12
    children = []
    for name in writers:
        ours, theirs = _CTX.Pipe()
        child = _CTX.Process(target=appenders.writer, args=(backend, name, count, theirs))
        child.start()
        theirs.close()
        children.append((child, ours))
    for _, pipe in children:
        assert _receive(pipe) == "ready"
    for _, pipe in children:
        pipe.send("go")
    failures = [_receive(pipe) for _, pipe in children]
    for child, _ in children:
        child.join(60)
        assert child.exitcode == 0
    assert failures == [1] * 8  # every writer had one call fail after a commit, and retried
    with _open(backend) as store:
        items = _run(ChronicaSession(appenders.SESSION, owner=OWNER, store=store).get_items())
    contents = [item["content"] for item in items]
    assert len(contents) == len(set(contents)) == 8 * count  # nothing lost, nothing twice
    for name in writers:
        assert [c for c in contents if c.startswith(f"{name}:")] == [
            item["content"] for item in appenders.items(name, count)
        ]


def _open(backend: dict[str, str]) -> SQLiteStore | PostgresStore:
    if backend["backend"] == "sqlite":
        return SQLiteStore(backend["path"])
    return PostgresStore(backend["dsn"], schema=backend["schema"])


def test_reads_hand_out_fresh_items_and_see_other_sessions_appends() -> None:
    store = InMemoryStore()
    ours, theirs = _session(store), _session(store)
    _run(ours.add_items(_turns("one", "two")))
    first = _run(ours.get_items())
    first[0]["content"] = "changed by the caller"
    assert _run(ours.get_items(limit=1)) == _turns("two")
    _run(theirs.add_items(_turns("three")))  # another object, as another process would be
    _run(theirs.pop_item())
    _run(theirs.add_items(_turns("four")))
    assert _run(ours.get_items()) == _turns("one", "two", "four")
    assert _run(ours.pop_item()) == _turns("four")[0]
    _run(theirs.clear_session())
    assert _run(ours.get_items()) == []
