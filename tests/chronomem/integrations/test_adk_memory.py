"""ChronoMemMemoryService: Google ADK's memory service over chronomem, proved with ADK itself.

The agent loop test runs ADK's ``Runner`` with a scripted model that calls ADK's own
``load_memory`` tool, over chronica sessions and chronomem memories in one SQLite file, beside
ADK's in-memory services running the same script.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncGenerator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar

import pytest
from google.adk.agents import LlmAgent
from google.adk.events import Event
from google.adk.memory import BaseMemoryService, InMemoryMemoryService
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import BaseSessionService, InMemorySessionService, Session
from google.adk.tools.load_memory_tool import load_memory
from google.genai import types
from pydantic import BaseModel

from chronica.integrations.adk import ChronicaSessionService, owner_for
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, InvalidArgumentError
from chronomem.integrations.adk import ChronoMemMemoryService

APP, USER = "trips", "ardian"
TOLD = ["My sister Mina lives in Bandung", "I prefer window seats on long flights"]


class MemoryLlm(BaseLlm):
    """Calls ``load_memory`` for "recall: <query>" and reads the memories back."""

    replies: ClassVar[list[str]] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """One deterministic reply to the newest content."""
        part = (llm_request.contents[-1].parts or [types.Part()])[0]
        if part.function_response is not None:
            result = (part.function_response.response or {}).get("result")
            if isinstance(result, BaseModel):  # as the tool returned it, before any storage
                result = result.model_dump(mode="json")
            texts = [m["content"]["parts"][0]["text"] for m in (result or {})["memories"]]
            reply = types.Part(text="I remember: " + " | ".join(texts))
            self.replies.append(reply.text or "")
        elif (part.text or "").startswith("recall: "):
            query = (part.text or "").removeprefix("recall: ")
            reply = types.Part(function_call=types.FunctionCall(name="load_memory",
                                                                args={"query": query}))  # fmt: skip
        else:
            reply = types.Part(text="Noted.")
        yield LlmResponse(content=types.Content(role="model", parts=[reply]))


async def _remember_then_recall(
    sessions: BaseSessionService, memory: BaseMemoryService, query: str
) -> str:
    agent = LlmAgent(name="concierge", model=MemoryLlm(model="scripted"), tools=[load_memory])
    runner = Runner(app_name=APP, agent=agent, session_service=sessions, memory_service=memory)

    async def say(session_id: str, text: str) -> None:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id=USER, session_id=session_id, new_message=message):
            pass

    first = await sessions.create_session(app_name=APP, user_id=USER)
    for text in TOLD:
        await say(first.id, text)
    told = await sessions.get_session(app_name=APP, user_id=USER, session_id=first.id)
    assert told is not None
    await memory.add_session_to_memory(told)
    later = await sessions.create_session(app_name=APP, user_id=USER)
    MemoryLlm.replies = []
    await say(later.id, f"recall: {query}")
    [reply] = MemoryLlm.replies
    return reply


def test_the_agent_loop_recalls_what_an_earlier_session_said(tmp_path: Path) -> None:
    path = tmp_path / "agent.db"  # chronica's sessions and chronomem's memories: one file
    with SQLiteStore(path) as store, ChronoMem(path) as mem:
        ours = asyncio.run(_remember_then_recall(
            ChronicaSessionService(store), ChronoMemMemoryService(mem), "where does Mina live?"
        ))  # fmt: skip
    reference = asyncio.run(_remember_then_recall(
        InMemorySessionService(), InMemoryMemoryService(), "where does Mina live?"
    ))  # fmt: skip
    for reply in (reference, ours):
        assert reply.removeprefix("I remember: ").split(" | ")[0] == TOLD[0]


def _events(*texts: str, author: str = "user") -> list[Event]:
    role = "user" if author == "user" else "model"
    return [
        Event(author=author, invocation_id="i", content=types.Content(
            role=role, parts=[types.Part(text=text)]))
        for text in texts
    ]  # fmt: skip


def _session(session_id: str, events: list[Event], user: str = USER) -> Session:
    return Session(id=session_id, app_name=APP, user_id=user, events=events)


def test_adding_a_session_again_adds_only_its_new_events(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db") as mem:
        service = ChronoMemMemoryService(mem)
        events = _events("Book the villa in Ubud", "For four nights")
        thought = Event(author="concierge", content=types.Content(
            role="model", parts=[types.Part(text="planning", thought=True)]))  # fmt: skip
        calls = Event(author="concierge", content=types.Content(role="model", parts=[
            types.Part(function_call=types.FunctionCall(name="book", args={}))]))  # fmt: skip
        session = _session("s1", [*events, thought, calls])

        async def add_twice_at_once() -> None:
            await asyncio.gather(*(service.add_session_to_memory(session) for _ in range(2)))

        asyncio.run(add_twice_at_once())
        episodes = service.memory_for(APP, USER)
        assert episodes.stats()["episodes"] == 2  # text only: no thought, no call
        session.events.extend(_events("And a driver from the airport"))
        asyncio.run(service.add_session_to_memory(session))
        assert episodes.stats()["episodes"] == 3
        asyncio.run(service.add_events_to_memory(app_name=APP, user_id=USER, events=events))
        assert episodes.stats()["episodes"] == 5  # no session: ADK's "unknown session"
        assert mem.stats()["episodes"] == 0  # the memory's own owner holds none of them


def test_search_answers_with_adk_memory_entries_and_delete_forgets(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db") as mem:
        service = ChronoMemMemoryService(mem)
        told = _events(*TOLD)
        asyncio.run(service.add_session_to_memory(_session("s1", told)))
        found = asyncio.run(service.search_memory(app_name=APP, user_id=USER, query="Mina"))
        entry = found.memories[0]  # (the next turn may follow: it is read with its context)
        assert entry.content == types.Content(role="user", parts=[types.Part(text=TOLD[0])])
        assert entry.author == "user"
        when = datetime.fromtimestamp(told[0].timestamp, timezone.utc)
        assert datetime.fromisoformat(entry.timestamp or "") == when
        assert entry.custom_metadata["session_id"] == "s1"
        assert entry.custom_metadata["event_id"] == told[0].id
        asyncio.run(service.delete_memory(app_name=APP, user_id=USER, memory_id=entry.id))
        asyncio.run(service.add_session_to_memory(_session("s1", told)))  # not brought back
        again = asyncio.run(service.search_memory(app_name=APP, user_id=USER, query="Mina"))
        assert entry.id not in [m.id for m in again.memories]
        for unknown in [entry.id, "no-such-id", "", None]:
            asyncio.run(service.delete_memory(app_name=APP, user_id=USER, memory_id=unknown))


def test_each_app_and_user_sees_only_their_own_memories(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db") as mem:
        service = ChronoMemMemoryService(mem)
        asyncio.run(service.add_session_to_memory(_session("s", _events("Mina's passport"))))
        for app, user in [(APP, "mina"), ("other-app", USER)]:
            found = asyncio.run(service.search_memory(app_name=app, user_id=user, query="passport"))
            assert found.memories == []
        mine = asyncio.run(service.search_memory(app_name=APP, user_id=USER, query="passport"))
        assert len(mine.memories) == 1
        assert service.memory_for(APP, USER).owner == owner_for(APP, USER)


@pytest.mark.parametrize(
    "query", ["", "   ", "NEAR(a b) OR *", '"; DROP TABLE x', "a\x00b", "\ud800", "word " * 5000]
)
def test_any_query_is_safe(tmp_path: Path, query: str) -> None:
    with ChronoMem(tmp_path / "m.db") as mem:
        service = ChronoMemMemoryService(mem)
        asyncio.run(service.add_session_to_memory(_session("s", _events("a word or two"))))
        found = asyncio.run(service.search_memory(app_name=APP, user_id=USER, query=query))
        assert all(m.author == "user" for m in found.memories)


def test_no_event_makes_a_session_unindexable(tmp_path: Path) -> None:
    # Each of these once failed the whole add (and every later one) with a raw error.
    events = [
        *_events("fine"),
        *_events("too long an author", author="a" * 2000),
        *_events("an author with NUL", author="concierge\x00bot"),
        *_events(" " * 70_000 + "words after 64 KiB of blanks"),
        Event(author="user", timestamp=1e12, content=types.Content(
            role="user", parts=[types.Part(text="a time past year 9999")])),
        Event(author="user", timestamp=float("nan"), content=types.Content(
            role="user", parts=[types.Part(text="a time that is no number")])),
        *_events("the gondola arrives at dawn"),
    ]  # fmt: skip
    with ChronoMem(tmp_path / "m.db") as mem:
        service = ChronoMemMemoryService(mem)
        asyncio.run(service.add_session_to_memory(_session("s", events)))
        stored = {r["content"]: r for r in service.memory_for(APP, USER).export_facts()}
        assert len(stored) == len(events)
        assert stored["too long an author"]["speaker"] == "a" * 1024
        assert stored["an author with NUL"]["speaker"] == "concierge bot"
        assert "words after 64 KiB of blanks" in stored
        late = stored["a time past year 9999"]
        assert late["at"] == late["system_time"]  # dated when indexed
        found = asyncio.run(service.search_memory(app_name=APP, user_id=USER, query="gondola"))
        assert found.memories[0].content.parts == [types.Part(text="the gondola arrives at dawn")]


def test_odd_text_is_kept_readable(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db") as mem:
        service = ChronoMemMemoryService(mem)
        odd = _events("null \x00 here", "lone \ud800 surrogate")
        asyncio.run(service.add_session_to_memory(_session("s", odd)))
        for query, text in [("null", "null   here"), ("surrogate", "lone ? surrogate")]:
            found = asyncio.run(service.search_memory(app_name=APP, user_id=USER, query=query))
            assert found.memories[0].content.parts == [types.Part(text=text)]
        with pytest.raises(InvalidArgumentError, match="limit"):
            ChronoMemMemoryService(mem, limit=0)
        with pytest.raises(TypeError, match="ChronoMem"):
            ChronoMemMemoryService("m.db")  # type: ignore[arg-type]  # the point of the test


def test_results_are_plain_json(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db") as mem:
        service = ChronoMemMemoryService(mem, limit=1)
        asyncio.run(service.add_session_to_memory(_session("s", _events(*TOLD))))
        found = asyncio.run(service.search_memory(app_name=APP, user_id=USER, query="flights"))
        dumped: dict[str, Any] = json.loads(found.model_dump_json())
        assert len(dumped["memories"]) == 1


def test_the_cores_never_import_adk() -> None:
    code = (
        "import sys, chronica, chronomem, chronica.stores.sqlite, chronomem.integrations\n"
        "assert not [m for m in sys.modules if m.startswith('google')], 'ADK imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
