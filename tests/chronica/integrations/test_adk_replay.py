"""ChronicaSessionService reads from the newest end: windows, snapshots and generations.

A windowed read walks back only to a base (the creation marker, or a snapshot and the actum
it runs through); these tests shrink the window and the snapshot interval so every path is
taken, and check each read against ADK's ``InMemorySessionService``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events import Event, EventActions
from google.adk.sessions import BaseSessionService, InMemorySessionService, Session
from google.adk.sessions.base_session_service import GetSessionConfig
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from chronica import ActorKind, Actum, ActumKind, Chronicarius
from chronica.integrations.adk import ChronicaSessionService, _book, owner_for
from chronica.stores.inmemory import InMemoryStore
from tests.chronica.integrations.adk_script import APP, USER, deterministic, session_view

SID = "trip"


class WindowSpy(InMemoryStore):
    """Remembers the ``last_n`` of every read."""

    def __init__(self) -> None:
        super().__init__()
        self.windows: list[int] = []

    def acta(self, chronicum_id: str, **options: Any) -> list[Actum]:
        self.windows.append(options.get("last_n", 0))
        return super().acta(chronicum_id, **options)


def _event(n: int) -> Event:
    return Event(
        author="user" if n % 2 else "concierge",
        invocation_id=f"inv-{n // 2}",
        content=types.Content(
            role="user" if n % 2 else "model", parts=[types.Part(text=f"turn {n}")]
        ),
        actions=EventActions(state_delta={"turn": n, f"k{n % 3}": n, "user:last": n}),
    )


async def _get(service: BaseSessionService, config: GetSessionConfig | None) -> Any:
    found = await service.get_session(app_name=APP, user_id=USER, session_id=SID, config=config)
    return None if found is None else session_view(found)


def test_windowed_reads_match_in_memory_and_stay_short_on_a_long_session() -> None:
    async def fill(service: BaseSessionService, events: list[Event]) -> None:
        session = await service.create_session(app_name=APP, user_id=USER, session_id=SID)
        for event in events:
            await service.append_event(session, event)

    with deterministic(0):
        events = [_event(n) for n in range(300)]
    reference, spy = InMemorySessionService(), WindowSpy()
    ours = ChronicaSessionService(spy)
    for service in (reference, ours):
        with deterministic(1000):
            asyncio.run(fill(service, events))
    middle = events[150].timestamp
    configs = [
        GetSessionConfig(num_recent_events=5),
        GetSessionConfig(num_recent_events=0),
        GetSessionConfig(num_recent_events=120),
        GetSessionConfig(after_timestamp=middle),
        GetSessionConfig(num_recent_events=7, after_timestamp=middle),
        None,
    ]
    for config in configs:
        assert asyncio.run(_get(ours, config)) == asyncio.run(_get(reference, config))
    spy.windows.clear()
    asyncio.run(_get(ours, GetSessionConfig(num_recent_events=5)))
    # One short read of the session (and one actum of each state log), never all 300 events.
    assert max(spy.windows) == _book.SNAPSHOT_AFTER + _book.WINDOW
    acta = Chronicarius(spy).get_acta(owner_for(APP, USER), SID, actor_kinds=[ActorKind.SYSTEM])
    snapshots = [a for a in acta if a.metadata["adk"]["type"] == "snapshot"]
    assert len(snapshots) >= 300 // _book.SNAPSHOT_AFTER - 1


def test_acta_other_writers_add_to_the_chronicum_are_ignored() -> None:
    store = InMemoryStore()
    service = ChronicaSessionService(store)
    session = asyncio.run(service.create_session(app_name=APP, user_id=USER, session_id=SID))
    asyncio.run(service.append_event(session, _event(1)))
    note = Actum(chronicum_id=SID, kind=ActumKind.THOUGHT, actor_kind=ActorKind.AGENT,
                 actor="auditor", content="looks fine")  # fmt: skip
    Chronicarius(store).record_actum(owner_for(APP, USER), note)
    found = asyncio.run(service.get_session(app_name=APP, user_id=USER, session_id=SID))
    assert found is not None
    assert [e.content.parts[0].text for e in found.events if e.content and e.content.parts] == [
        "turn 1"
    ]


# -- any sequence of calls, against the reference --------------------------------------------

_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 99)),
        st.tuples(st.just("get"), st.none() | st.integers(0, 12), st.none() | st.integers(0, 30)),
        st.tuples(st.just("delete")),
        st.tuples(st.just("delete-racing-a-snapshot")),
        st.tuples(st.just("recreate-racing-a-snapshot")),
        st.tuples(st.just("create")),
    ),
    max_size=40,
)


async def _create(services: Sequence[BaseSessionService]) -> list[Session]:
    created = []
    for service in services:
        with deterministic(0):  # one creation time for both
            created.append(await service.create_session(app_name=APP, user_id=USER, session_id=SID))
    return created


async def _replay_ops(ops: Sequence[tuple[Any, ...]]) -> None:
    reference, store = InMemorySessionService(), InMemoryStore()
    ours = ChronicaSessionService(store)
    book = ours._book
    pair = await _create((reference, ours))
    stamps: list[float] = []
    for op in ops:
        if op[0] == "append":
            event = _event(op[1])
            stamps.append(event.timestamp)
            outcomes = []
            for service, session in zip((reference, ours), pair, strict=True):
                try:
                    await service.append_event(session, event.model_copy(deep=True))
                    outcomes.append("ok")
                except SessionNotFoundError:
                    outcomes.append("not found")
            assert outcomes[0] == outcomes[1]
        elif op[0] == "get":
            after = stamps[min(op[2], len(stamps) - 1)] if op[2] is not None and stamps else None
            config = GetSessionConfig(num_recent_events=op[1], after_timestamp=after)
            assert await _get(ours, config) == await _get(reference, config)
        elif op[0] == "create":
            if await reference.get_session(app_name=APP, user_id=USER, session_id=SID) is None:
                pair = await _create((reference, ours))
        else:
            # A reader that read the session before the delete records its snapshot after it
            # (and after the ID is created again).
            stale = book._walk(owner_for(APP, USER), SID)
            for service in (reference, ours):
                await service.delete_session(app_name=APP, user_id=USER, session_id=SID)
            if op[0] == "recreate-racing-a-snapshot":
                pair = await _create((reference, ours))
            if op[0] != "delete" and stale.status == "live":
                book._snapshot(owner_for(APP, USER), SID, stale)
    assert await _get(ours, None) == await _get(reference, None)


@settings(max_examples=80, deadline=None)
@given(ops=_OPS, window=st.integers(1, 4), every=st.integers(1, 4))
def test_any_sequence_of_calls_reads_as_in_memory(
    ops: list[tuple[Any, ...]], window: int, every: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_book, "WINDOW", window)
        patch.setattr(_book, "SNAPSHOT_AFTER", every)
        asyncio.run(_replay_ops(ops))
