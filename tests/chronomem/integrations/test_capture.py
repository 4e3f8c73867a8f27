"""Capture without being asked: the session adapters given ``memory=`` make every message an
episode as it is recorded, and a memory that fails never fails the session."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from google.adk.events import Event
from google.genai import types

from chronica import Chronicarius
from chronica.integrations.adk import ChronicaSessionService, owner_for
from chronica.integrations.memory import SessionMemory
from chronica.integrations.openai_agents import ChronicaSession
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, Episode
from chronomem.integrations.adk import ChronoMemMemoryService
from tests.chronomem.backends import MemoryTarget

OWNER, SID = "ardian", "dinner-friday"


def active(mem: ChronoMem) -> list[dict[str, Any]]:
    return [r for r in mem.export_facts() if r["kind"] == "episode" and not r["forgotten"]]


def test_every_message_is_an_episode_as_it_is_recorded(memory_target: MemoryTarget) -> None:
    async def converse(session: ChronicaSession) -> None:
        await session.add_items([{"role": "user", "content": "A quiet table in Kemang?"}])
        await session.add_items(
            [
                {"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "Kinara, 7pm"},
                {"role": "assistant", "content": "Booked Kinara at 7pm."},
            ]
        )
        await session.pop_item()  # takes the assistant's message back
        await session.add_items([{"role": "assistant", "content": "Kinara is booked at 7pm."}])

    with memory_target.session_store() as store, memory_target.open(owner=OWNER) as mem:
        session = ChronicaSession(SID, owner=OWNER, store=store, memory=mem)
        asyncio.run(converse(session))
        acta = {a.id: a for a in Chronicarius(store).get_acta(OWNER, SID)}
        episodes = active(mem)
        assert [(e["content"], e["speaker"], e["session"]) for e in episodes] == [
            ("A quiet table in Kemang?", OWNER, SID),
            ("Kinara is booked at 7pm.", "openai-agents", SID),
        ]
        for e in episodes:  # speaker, session, time and source are the actum's
            at = acta[e["source"]].at
            assert at is not None
            assert at.isoformat() == e["at"]
        # Nothing is left for an explicit call to catch up.
        assert mem.index_session(Chronicarius(store), SID) == 0


class Flaky:
    """A memory that fails while ``down`` is set, and is ``mem`` otherwise."""

    def __init__(self, mem: ChronoMem) -> None:
        self.mem, self.down = mem, True

    def index_session(self, chronicarius: Chronicarius, chronicum_id: str, **kw: Any) -> int:
        if self.down:
            raise OSError("disk full")
        return self.mem.index_session(chronicarius, chronicum_id, **kw)

    def for_owner(self, owner: str) -> SessionMemory:
        return self


def test_a_failing_memory_never_fails_the_session_and_is_caught_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SQLiteStore(tmp_path / "chronica.db")
    with store, ChronoMem(tmp_path / "memory.db", owner=OWNER) as mem:
        flaky = Flaky(mem)
        session = ChronicaSession(SID, owner=OWNER, store=store, memory=flaky)
        first: Any = {"role": "user", "content": "Remember the cake"}
        with caplog.at_level(logging.WARNING, "chronica.integrations.memory"):
            asyncio.run(session.add_items([first]))
        assert "disk full" in caplog.text
        assert asyncio.run(session.get_items()) == [first]  # the record holds it
        assert active(mem) == []
        flaky.down = False
        asyncio.run(session.add_items([{"role": "assistant", "content": "Cake noted"}]))
        assert [e["content"] for e in active(mem)] == ["Remember the cake", "Cake noted"]


def test_a_memory_without_the_methods_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="index_session"):
        ChronicaSession(SID, owner=OWNER, store=tmp_path / "c.db", memory=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="index_session"):
        ChronicaSessionService(SQLiteStore(tmp_path / "a.db"), memory="memory.db")  # type: ignore[arg-type]


def test_adk_events_are_searchable_without_add_session_to_memory(tmp_path: Path) -> None:
    async def converse(service: ChronicaSessionService) -> None:
        session = await service.create_session(app_name="trips", user_id=OWNER)
        for author, text in [("user", "My sister Mina lives in Bandung"), ("agent", "Noted.")]:
            event = Event(author=author, invocation_id="i1",
                          content=types.Content(role="user" if author == "user" else "model",
                                                parts=[types.Part(text=text)]))  # fmt: skip
            await service.append_event(session, event)

    with SQLiteStore(tmp_path / "one.db") as store, ChronoMem(tmp_path / "one.db") as mem:
        asyncio.run(converse(ChronicaSessionService(store, memory=mem)))
        found = asyncio.run(
            ChronoMemMemoryService(mem).search_memory(
                app_name="trips", user_id=OWNER, query="Where does Mina live?"
            )
        )
        assert found.memories[0].content.parts == [
            types.Part(text="My sister Mina lives in Bandung")
        ]
        user_memory = mem.for_owner(owner_for("trips", OWNER))
        assert len(active(user_memory)) == 2
        assert active(mem) == []  # the memory's own owner is not the ADK user's


def test_the_cost_an_append_adds_is_bounded(tmp_path: Path) -> None:
    """An append with a memory costs about one incremental index, at 30 turns as at 600."""

    async def turns(session: ChronicaSession, n: int) -> float:
        start = time.perf_counter()
        for i in range(n):
            await session.add_items([{"role": "user", "content": f"turn {i} of the dinner talk"}])
        return (time.perf_counter() - start) / n

    store = SQLiteStore(tmp_path / "chronica.db")
    with store, ChronoMem(tmp_path / "memory.db", owner=OWNER) as mem:
        session = ChronicaSession(SID, owner=OWNER, store=store, memory=mem)
        early = asyncio.run(turns(session, 30))
        asyncio.run(turns(session, 540))
        late = asyncio.run(turns(session, 30))
        assert late < 3 * early + 0.005  # flat, not growing with the session
        assert len(active(mem)) == 600
        assert isinstance(next(iter(active(mem))), dict)
        assert isinstance(mem.recall("turn 5", limit=1)[0], Episode)
