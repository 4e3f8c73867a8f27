"""ChronicaSessionService: Google ADK's session service over chronica, proved with ADK itself.

The reference is ADK's own ``InMemorySessionService``: the same script (ADK's real agent loop
with a scripted model, or direct calls) runs against both under the same clock and IDs, and
what the framework sees must be equal, down to event IDs, timestamps and state.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
import typing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events import Event, EventActions
from google.adk.sessions import BaseSessionService, InMemorySessionService
from google.adk.sessions.base_session_service import GetSessionConfig
from google.genai import types

from chronica import Chronicarius, InvalidArgumentError, Store
from chronica.integrations.adk import ChronicaSessionService, UnmappableEventError, owner_for
from chronica.stores.inmemory import InMemoryStore
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore
from tests.chronica.integrations import adk_script
from tests.chronica.integrations.adk_script import (
    APP,
    FIRST_START,
    FIRST_TURNS,
    LATER_START,
    LATER_TURNS,
    USER,
    converse,
    deterministic,
    session_view,
)
from tests.chronica.spy import PlainStore, SpyStore

_CTX = multiprocessing.get_context("forkserver")
_CTX.set_forkserver_preload([adk_script.__name__])


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Each kind of chronica store the adapter must work on."""
    if request.param == "memory":
        yield InMemoryStore()
    elif request.param == "sqlite":
        with SQLiteStore(tmp_path / "adk.db") as sqlite:
            yield sqlite
    else:
        dsn, schema = request.getfixturevalue("pg_dsn"), request.getfixturevalue("pg_schema")
        with PostgresStore(dsn, schema=schema) as postgres:
            yield postgres


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """A store several processes can open, described so it can be sent to them."""
    if request.param == "sqlite":
        return {"sqlite": str(tmp_path / "adk.db")}
    return {
        "dsn": request.getfixturevalue("pg_dsn"),
        "schema": request.getfixturevalue("pg_schema"),
    }


def _run(coroutine: typing.Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


def _text(author: str, text: str, **actions: Any) -> Event:
    role = "user" if author == "user" else "model"
    content = types.Content(role=role, parts=[types.Part(text=text)])
    return Event(
        author=author, invocation_id="inv-1", content=content, actions=EventActions(**actions)
    )


# -- the agent loop ---------------------------------------------------------------------------


def test_the_agent_loop_sees_what_it_sees_in_memory_across_two_processes(
    durable: dict[str, str],
) -> None:
    async def reference() -> tuple[list[str], list[str], dict[str, Any]]:
        service = InMemorySessionService()
        with deterministic(FIRST_START):
            session = await service.create_session(app_name=APP, user_id=USER)
            first = await converse(service, session.id, FIRST_TURNS)
        with deterministic(LATER_START):
            later = await converse(service, session.id, LATER_TURNS)
        final = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
        return first, later, session_view(final)

    async def first_process(store: Store) -> tuple[str, list[str]]:
        service = ChronicaSessionService(store)
        with deterministic(FIRST_START):
            session = await service.create_session(app_name=APP, user_id=USER)
            return session.id, await converse(service, session.id, FIRST_TURNS)

    want_first, want_later, want_final = _run(reference())
    with adk_script.open_store(durable) as store:
        session_id, first = _run(first_process(store))
    with ProcessPoolExecutor(1, mp_context=_CTX) as pool:
        later = pool.submit(adk_script.continue_in_process, durable, session_id).result()
    with adk_script.open_store(durable) as store:
        service = ChronicaSessionService(store)
        final = _run(service.get_session(app_name=APP, user_id=USER, session_id=session_id))
    assert first == want_first
    assert later == want_later  # the second process's model saw the same history
    assert session_view(final) == want_final
    assert {"last_reply", "last_city", "user:topics", "app:notes"} <= set(final.state)
    assert not any(key.startswith("temp:") for key in final.state)


def test_events_are_acta_of_meaningful_kinds(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "adk.db") as store:
        service = ChronicaSessionService(store)
        with deterministic(0):
            session = _run(service.create_session(app_name=APP, user_id=USER))
            _run(converse(service, session.id, ["what's the weather in Paris?"]))
        acta = Chronicarius(store).get_acta(owner_for(APP, USER), session.id)
    shown = [(a.kind.value, a.actor_kind.value, a.actor) for a in acta]
    assert shown == [
        ("thought", "system", "adk"),
        ("message", "human", "user"),
        ("tool_request", "agent", "concierge"),
        ("tool_response", "agent", "concierge"),
        ("message", "agent", "concierge"),
    ]
    assert [a.content for a in acta] == [
        "ADK session created",
        "what's the weather in Paris?",
        'get_weather({"city": "Paris"})',
        'get_weather -> {"city": "Paris", "sky": "sunny"}',
        'Done: {"city": "Paris", "sky": "sunny"}',
    ]


# -- the service's calls, beside ADK's own ---------------------------------------------------


async def _calls(service: BaseSessionService) -> list[Any]:
    """Every method, the awkward cases included; returns what a caller would observe."""
    seen: list[Any] = []

    async def observe(call: typing.Awaitable[Any]) -> Any:
        try:
            result = await call
        except (AlreadyExistsError, SessionNotFoundError) as e:
            seen.append([type(e).__name__, str(e)])
            return None
        if result is None or isinstance(result, dict):
            seen.append(result)
        elif hasattr(result, "sessions"):
            seen.append([session_view(s) for s in result.sessions])
        elif isinstance(result, Event):
            seen.append(result.model_dump(mode="json"))
        else:
            seen.append(session_view(result))
        return result

    start = {"app:theme": "dark", "user:lang": "id", "trip": "Bali", "temp:draft": 1}
    s1 = await observe(service.create_session(app_name=APP, user_id=USER, state=start))
    s2 = await observe(service.create_session(app_name=APP, user_id=USER, session_id=" s-2 "))
    await observe(service.create_session(app_name=APP, user_id="mina", session_id="s-2"))
    await observe(service.create_session(app_name=APP, user_id=USER, session_id="s-2"))
    hello = _text("user", "Find a villa in Ubud")
    events = [
        hello,
        _text(
            "concierge",
            "Looking",
            state_delta={"trip": "Ubud", "user:lang": "en", "app:count": 1, "temp:t": 3},
        ),
        Event(
            author="concierge",
            invocation_id="inv-1",
            partial=True,
            content=types.Content(role="model", parts=[types.Part(text="Loo")]),
        ),
        hello,  # the same event again: stored once
        Event(
            author="concierge",
            invocation_id="inv-1",
            content=types.Content(role="model", parts=[types.Part(text="thinking", thought=True)]),
        ),
        Event(
            author="concierge",
            invocation_id="inv-1",
            actions=EventActions(state_delta={"stage": "booked"}, end_of_agent=True),
        ),
    ]
    for event in events:
        await observe(service.append_event(s1, event))
        seen.append([dict(s1.state), len(s1.events), s1.last_update_time])
    middle = events[1].timestamp
    configs = [None, GetSessionConfig(num_recent_events=0), GetSessionConfig(num_recent_events=2),
               GetSessionConfig(num_recent_events=100), GetSessionConfig(after_timestamp=middle),
               GetSessionConfig(num_recent_events=1, after_timestamp=middle)]  # fmt: skip
    for config in configs:
        await observe(service.get_session(app_name=APP, user_id=USER, session_id=s1.id,
                                          config=config))  # fmt: skip
    for app, user in [(APP, USER), (APP, None), (APP, "nobody"), ("other", None)]:
        await observe(service.list_sessions(app_name=app, user_id=user))
    await observe(service.get_user_state(app_name=APP, user_id=USER))
    await observe(service.get_session(app_name=APP, user_id="mina", session_id=s1.id))
    await observe(service.delete_session(app_name=APP, user_id=USER, session_id=" s-2"))
    await observe(service.get_session(app_name=APP, user_id=USER, session_id="s-2"))
    await observe(service.append_event(s2, _text("user", "too late")))
    await observe(service.delete_session(app_name=APP, user_id=USER, session_id="s-2"))
    await observe(service.delete_session(app_name=APP, user_id=USER, session_id="never"))
    again = await observe(service.create_session(app_name=APP, user_id=USER, session_id="s-2",
                                                 state={"fresh": True}))  # fmt: skip
    await observe(service.append_event(again, _text("user", "a new start")))
    await observe(service.get_session(app_name=APP, user_id=USER, session_id="s-2"))
    await observe(service.get_session(app_name=APP, user_id=USER, session_id=""))
    await observe(service.list_sessions(app_name=APP))
    return seen


def test_every_call_observes_what_in_memory_does(store: Store) -> None:
    with deterministic(0):
        want = _run(_calls(InMemorySessionService()))
    with deterministic(0):
        got = _run(_calls(ChronicaSessionService(store)))
    assert len(got) == len(want)
    for number, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g == w, f"observation {number} differs"


def test_one_user_never_sees_another_users_sessions() -> None:
    async def run() -> None:
        service = ChronicaSessionService(InMemoryStore())
        a = await service.create_session(app_name="a:b", user_id="c", session_id="s")
        await service.append_event(a, _text("user", "secret"))
        b = await service.create_session(app_name="a", user_id="b:c", session_id="s")
        seen = await service.get_session(app_name="a", user_id="b:c", session_id="s")
        assert seen is not None
        assert seen.events == []
        assert b.id == a.id
        listed = await service.list_sessions(app_name="a")
        assert [(s.app_name, s.user_id) for s in listed.sessions] == [("a", "b:c")]

    _run(run())
    assert owner_for("a:b", "c") != owner_for("a", "b:c")
    assert owner_for("trips", "ardian") == "adk:trips:ardian"
    assert owner_for("x" * 300, "y").startswith("adk#")


# -- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        (_text("user", "broken \ud800 text"), "surrogates not allowed"),
        (_text("user", "x" * (1 << 21)), "larger than 1048576 bytes"),
        (Event(author="user", invocation_id="i", output=object()), "no JSON form"),
        (_text("a" * 300, "ok"), "actor is longer than 256"),
    ],
    ids=["lone-surrogate", "over-1-MiB", "no-json-form", "author-too-long"],
)
def test_an_event_chronica_cannot_hold_is_refused_naming_it(event: Event, problem: str) -> None:
    store = SpyStore()
    service = ChronicaSessionService(store)
    session = _run(service.create_session(app_name=APP, user_id=USER, state={"k": 1}))
    writes, state = list(store.writes), dict(session.state)
    with pytest.raises(UnmappableEventError, match=problem) as caught:
        _run(service.append_event(session, event))
    assert caught.value.event_id == event.id
    assert event.id in str(caught.value)
    assert store.writes == writes  # nothing written
    assert (session.events, session.state) == ([], state)  # nor applied
    stored = _run(service.get_session(app_name=APP, user_id=USER, session_id=session.id))
    assert stored is not None
    assert stored.events == []


def test_bad_sessions_and_state_are_refused_before_any_write() -> None:
    store = SpyStore()
    service = ChronicaSessionService(store)
    with pytest.raises(InvalidArgumentError, match="state"):
        _run(service.create_session(app_name=APP, user_id=USER, state={"k": {1, object()}}))
    with pytest.raises(InvalidArgumentError, match="session_id"):
        _run(service.create_session(app_name=APP, user_id=USER, session_id="s" * 300))
    assert store.writes == []
    with pytest.raises(TypeError, match="IdempotentStore"):
        ChronicaSessionService(PlainStore())  # PlainStore is a Store, not an IdempotentStore
    with pytest.raises(TypeError, match="Store"):
        ChronicaSessionService("sessions.db")  # type: ignore[arg-type]  # the point of the test


def test_an_event_over_64_kib_round_trips_through_the_content() -> None:
    store = InMemoryStore()
    service = ChronicaSessionService(store)
    session = _run(service.create_session(app_name=APP, user_id=USER))
    blob = types.Part(inline_data=types.Blob(mime_type="image/png", data=bytes(range(256)) * 800))
    big = Event(author="user", invocation_id="i", content=types.Content(role="user", parts=[blob]))
    _run(service.append_event(session, big))
    stored = _run(service.get_session(app_name=APP, user_id=USER, session_id=session.id))
    assert stored.events == [big]
    [actum] = Chronicarius(store).get_acta(owner_for(APP, USER), session.id)[1:]
    assert actum.metadata["adk"]["in_content"] is True


# -- processes, threads, the event loop -------------------------------------------------------


@pytest.mark.slow
def test_eight_processes_append_to_one_session_losing_nothing(durable: dict[str, str]) -> None:
    writers, count = 8, 25
    with adk_script.open_store(durable) as store:
        service = ChronicaSessionService(store)
        session = _run(service.create_session(app_name=APP, user_id=USER, session_id="busy"))
    start_at = time.time() + 3
    with ProcessPoolExecutor(writers, mp_context=_CTX) as pool:
        jobs = [pool.submit(adk_script.append_in_process, durable, session.id, w, count, start_at)
                for w in range(writers)]  # fmt: skip
        for job in jobs:
            job.result()
    with adk_script.open_store(durable) as store:
        service = ChronicaSessionService(store)
        final = _run(service.get_session(app_name=APP, user_id=USER, session_id="busy"))
    assert final is not None
    texts = [e.content.parts[0].text for e in final.events if e.content and e.content.parts]
    assert len(texts) == writers * count
    for w in range(writers):
        mine = [t for t in texts if t and t.startswith(f"{w}:")]
        assert mine == [f"{w}:{n}" for n in range(count)]  # each writer's order kept
        last = count - 1
        assert final.state[f"w{w}"] == final.state[f"user:w{w}"] == final.state[f"app:w{w}"] == last


def test_racing_creates_of_one_id_make_one_session(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "adk.db") as store:

        async def race() -> list[str]:
            services = [ChronicaSessionService(store) for _ in range(8)]  # as 8 processes
            calls = [s.create_session(app_name=APP, user_id=USER, session_id="x") for s in services]
            results = await asyncio.gather(*calls, return_exceptions=True)
            return [type(r).__name__ for r in results]

        outcomes = _run(race())
        assert sorted(outcomes) == ["AlreadyExistsError"] * 7 + ["Session"]
        acta = Chronicarius(store).get_acta(owner_for(APP, USER), "x")
        assert len(acta) == 1  # one creation marker


def test_a_slow_store_never_blocks_the_event_loop() -> None:
    class SlowStore(InMemoryStore):
        def record_once(self, actum: Any, idempotency_key: str, *, owner_id: str) -> Any:
            time.sleep(0.3)
            return super().record_once(actum, idempotency_key, owner_id=owner_id)

    async def run() -> int:
        service = ChronicaSessionService(SlowStore())
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        await service.create_session(app_name=APP, user_id=USER)
        task.cancel()
        return ticks

    assert _run(run()) >= 20
