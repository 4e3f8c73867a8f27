"""ChronoMemMemoryService on both engines, and one ADK user's delete never reaching another's.

test_adk_memory.py proves the service with ADK's own runner on SQLite; these run the service's
whole round trip (add, add again, search, delete) on every engine the memory runs on, and the
ownership rule where it matters most: a delete names a memory by ID, so an ID taken from one
user must forget nothing when another user (or the same user in another app) sends it.
"""

from __future__ import annotations

import asyncio

from google.adk.events import Event
from google.adk.sessions import Session
from google.genai import types

from chronomem.integrations.adk import ChronoMemMemoryService
from tests.chronomem.backends import MemoryTarget

APP = "trips"


def _session(user: str, session_id: str, *texts: str, app: str = APP) -> Session:
    events = [
        Event(author="user", invocation_id="i", content=types.Content(
            role="user", parts=[types.Part(text=text)]))
        for text in texts
    ]  # fmt: skip
    return Session(id=session_id, app_name=app, user_id=user, events=events)


def _search(service: ChronoMemMemoryService, user: str, query: str, app: str = APP) -> list[str]:
    found = asyncio.run(service.search_memory(app_name=app, user_id=user, query=query))
    return [(m.content.parts or [types.Part()])[0].text or "" for m in found.memories]


def test_the_round_trip_on_each_engine(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        service = ChronoMemMemoryService(mem)
        session = _session("ardian", "s1", "Book the villa in Ubud", "For four nights")
        asyncio.run(service.add_session_to_memory(session))
        asyncio.run(service.add_session_to_memory(session))  # again: nothing new
        episodes = service.memory_for(APP, "ardian")
        assert episodes.stats()["episodes"] == 2
        assert _search(service, "ardian", "villa Ubud")[0] == "Book the villa in Ubud"
        found = asyncio.run(service.search_memory(app_name=APP, user_id="ardian", query="villa"))
        villa = found.memories[0].id
        asyncio.run(service.delete_memory(app_name=APP, user_id="ardian", memory_id=villa))
        asyncio.run(service.add_session_to_memory(session))  # a forgotten turn stays forgotten
        assert "Book the villa in Ubud" not in _search(service, "ardian", "villa Ubud")
        assert episodes.get(villa or "").forgotten is True


def test_one_user_cannot_delete_anothers_memory(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        service = ChronoMemMemoryService(mem)
        asyncio.run(
            service.add_session_to_memory(_session("ardian", "s", "Mina's passport is A123"))
        )
        found = asyncio.run(service.search_memory(app_name=APP, user_id="ardian", query="passport"))
        [entry] = found.memories
        for app, user in [(APP, "bea"), ("other-app", "ardian")]:
            # The service answers as for an unknown ID (nothing to say to a stranger) ...
            asyncio.run(service.delete_memory(app_name=app, user_id=user, memory_id=entry.id))
        # ... and the memory is untouched: still found, still active, for its owner only.
        assert _search(service, "ardian", "passport") == ["Mina's passport is A123"]
        assert service.memory_for(APP, "ardian").get(entry.id or "").forgotten is False
        assert _search(service, "bea", "passport") == []
