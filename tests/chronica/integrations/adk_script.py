"""A scripted Google ADK agent and the process entry points of the ADK adapter's tests.

The model is a ``BaseLlm`` that answers from a script (no network, no API key); its tools
change session, ``user:``, ``app:`` and ``temp:`` state, and the agent writes each reply to
``output_key``. Time and IDs come from ADK's own platform providers, counted from a given
start, so two runs of the script (one per session service, or split across processes)
produce the same events, IDs and timestamps.

Functions whose names end in ``_in_process`` run in child processes (imported by name).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import time
from collections.abc import AsyncGenerator, Iterator
from typing import Any, ClassVar

from google.adk.agents import LlmAgent
from google.adk.events import Event, EventActions
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.platform import time as platform_time
from google.adk.platform import uuid as platform_uuid
from google.adk.runners import Runner
from google.adk.sessions import BaseSessionService, Session
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from chronica.integrations.adk import ChronicaSessionService
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore

APP, USER = "trips", "ardian"
FIRST_TURNS = ["hello", "what's the weather in Paris?", "note: dinner on Friday"]
LATER_TURNS = ["what's the weather in Jakarta?", "note: flights", "thanks, bye"]
FIRST_START, LATER_START = 0, 10_000  # where each process's clock and ID counter start


class ScriptedLlm(BaseLlm):
    """Answers from a script and remembers every request it was shown (as JSON)."""

    seen: ClassVar[list[str]] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """One deterministic reply to the newest content."""
        self.seen.append(json.dumps([c.model_dump(mode="json") for c in llm_request.contents]))
        yield LlmResponse(content=types.Content(role="model", parts=[_reply(llm_request)]))


def _reply(request: LlmRequest) -> types.Part:
    part = (request.contents[-1].parts or [types.Part()])[0]
    if part.function_response is not None:
        answer = part.function_response.response or {}
        return types.Part(text=f"Done: {json.dumps(answer, sort_keys=True)}")
    text = part.text or ""
    weather = re.search(r"weather in (\w+)", text)
    if weather:
        call = types.FunctionCall(name="get_weather", args={"city": weather[1]})
        return types.Part(function_call=call)
    if text.startswith("note: "):
        call = types.FunctionCall(name="take_note", args={"topic": text.removeprefix("note: ")})
        return types.Part(function_call=call)
    return types.Part(text=f"You said: {text}")


def get_weather(city: str, tool_context: ToolContext) -> dict[str, Any]:
    """The weather in a city."""
    tool_context.state["last_city"] = city
    tool_context.state["temp:looked_up"] = city  # temp: never persisted
    return {"city": city, "sky": "sunny" if city == "Paris" else "rain"}


def take_note(topic: str, tool_context: ToolContext) -> dict[str, Any]:
    """Note a topic for the user, across sessions."""
    topics = [*tool_context.state.get("user:topics", []), topic]
    tool_context.state["user:topics"] = topics
    tool_context.state["app:notes"] = tool_context.state.get("app:notes", 0) + 1
    return {"noted": topic, "count": len(topics)}


def runner(service: BaseSessionService) -> Runner:
    """The scripted agent with two tools, on ``service``."""
    agent = LlmAgent(
        name="concierge",
        model=ScriptedLlm(model="scripted"),
        instruction="Help with trips.",
        tools=[get_weather, take_note],
        output_key="last_reply",
    )
    return Runner(app_name=APP, agent=agent, session_service=service)


@contextlib.contextmanager
def deterministic(start: int) -> Iterator[None]:
    """ADK's clock and IDs counted from ``start`` (a step of 1 ms; IDs ``id-<n>``)."""
    clock, ids = itertools.count(start), itertools.count(start)
    platform_time.set_time_provider(lambda: 1_800_000_000 + next(clock) / 1000)
    platform_uuid.set_id_provider(lambda: f"id-{next(ids):06d}")
    try:
        yield
    finally:
        platform_time.reset_time_provider()
        platform_uuid.reset_id_provider()


async def converse(service: BaseSessionService, session_id: str, turns: list[str]) -> list[str]:
    """Run ``turns`` through the agent; returns what the model was shown, request by request."""
    ScriptedLlm.seen = []
    run = runner(service)
    for text in turns:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in run.run_async(user_id=USER, session_id=session_id, new_message=message):
            pass
    return list(ScriptedLlm.seen)


def session_view(session: Session | None) -> dict[str, Any]:
    """Everything a framework reads from a session, as comparable JSON."""
    assert session is not None
    return {
        "id": session.id,
        "app_name": session.app_name,
        "user_id": session.user_id,
        "state": session.state,
        "last_update_time": session.last_update_time,
        "events": [e.model_dump(mode="json") for e in session.events],
    }


def open_store(spec: dict[str, str]) -> SQLiteStore | PostgresStore:
    """A store from a picklable description: ``{"sqlite": path}`` or ``{"dsn", "schema"}``."""
    if "sqlite" in spec:
        return SQLiteStore(spec["sqlite"])
    return PostgresStore(spec["dsn"], schema=spec["schema"])


def continue_in_process(spec: dict[str, str], session_id: str) -> list[str]:
    """The second process: open the same store and carry on with the later turns."""
    store = open_store(spec)
    try:
        with deterministic(LATER_START):
            return asyncio.run(converse(ChronicaSessionService(store), session_id, LATER_TURNS))
    finally:
        store.close()


def append_in_process(
    spec: dict[str, str], session_id: str, writer: int, count: int, start_at: float
) -> None:
    """One of several racing writers: ``count`` events in order, each with state deltas."""

    async def append() -> None:
        service = ChronicaSessionService(store)
        session = await service.get_session(app_name=APP, user_id=USER, session_id=session_id)
        assert session is not None
        await asyncio.sleep(max(0.0, start_at - time.time()))
        for n in range(count):
            event = Event(
                author=f"writer-{writer}",
                invocation_id=f"w{writer}-{n}",
                content=types.Content(role="model", parts=[types.Part(text=f"{writer}:{n}")]),
                actions=EventActions(
                    state_delta={f"w{writer}": n, f"user:w{writer}": n, f"app:w{writer}": n}
                ),
            )
            await service.append_event(session, event)

    store = open_store(spec)
    try:
        asyncio.run(append())
    finally:
        store.close()
