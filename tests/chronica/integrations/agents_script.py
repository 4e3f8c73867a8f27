"""The OpenAI Agents SDK's real agent loop with a scripted model: no network, no API key.

:func:`converse` plays a script of user turns through ``Runner.run`` against any session and
returns every input the model was given, which is the transcript the framework sees. Run as
a module, it continues a conversation kept in a chronica SQLite file from a second process
and prints that transcript as JSON::

    python -m tests.chronica.integrations.agents_script DB OWNER SESSION_ID TURN...
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, ModelResponse, ModelSettings, RunConfig, Runner, Usage, function_tool
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.memory import Session
from agents.models.interface import Model, ModelTracing
from agents.tool import Tool
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam
from openai.types.responses.response_reasoning_item import Summary

from chronica.integrations.openai_agents import ChronicaSession
from chronica.stores.sqlite import SQLiteStore

__all__ = ["FIRST_PROCESS", "SECOND_PROCESS", "ScriptedModel", "converse"]

# "/pop N" takes the last N items back through the session, as an app's "undo" would.
FIRST_PROCESS = [
    "Hi, I'm Ardian and I want dinner on Friday.",
    "/pop 2",
    "Hi, I'm Ardian and I want a quiet dinner on Friday.",
    "What's the weather in Paris?",
]
SECOND_PROCESS = ["And the weather in Jakarta?", "Thanks, that's all."]

_WEATHER = {"Paris": "sunny, 21°C", "Jakarta": "rain, 29°C"}


@function_tool
def get_weather(city: str) -> str:
    """Today's weather in ``city``."""
    return _WEATHER.get(city, "unknown")


class ScriptedModel(Model):
    """Answers from its input alone, so any process replaying one history answers alike.

    A question about the weather in a city gets a reasoning item and a ``get_weather`` call;
    a tool output gets a message quoting it; anything else an echo that counts the history,
    so a model that was shown a different history answers differently.
    """

    def __init__(self) -> None:
        self.seen: list[list[Any]] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        items: list[Any] = [{"role": "user", "content": input}] if isinstance(input, str) else input
        self.seen.append(copy.deepcopy(items))
        return ModelResponse(output=_reply(items), usage=Usage(), response_id=None)

    def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError("the scripted model does not stream")


def _reply(items: list[Any]) -> list[TResponseOutputItem]:
    n, last = len(items), items[-1]
    if last.get("type") == "function_call_output":
        return [_message(n, f"The weather there: {last['output']}.")]
    text = last.get("content")
    city = re.search(r"weather in (\w+)", text) if isinstance(text, str) else None
    if city:
        summary = Summary(type="summary_text", text=f"Look up the weather in {city[1]}.")
        return [
            ResponseReasoningItem(id=f"rs_{n}", type="reasoning", summary=[summary]),
            ResponseFunctionToolCall(
                id=f"fc_{n}",
                call_id=f"call_{n}",
                type="function_call",
                name="get_weather",
                arguments=json.dumps({"city": city[1]}),
                status="completed",
            ),
        ]
    return [_message(n, f"Noted ({n} items so far): {text}")]


def _message(n: int, text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{n}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


async def converse(session: Session, script: list[str]) -> list[list[Any]]:
    """Play ``script`` through ``Runner.run`` on ``session``; every input the model saw."""
    model = ScriptedModel()
    agent = Agent(
        name="concierge",
        instructions="Help Ardian plan dinner.",
        model=model,
        tools=[get_weather],
    )
    config = RunConfig(tracing_disabled=True)
    for line in script:
        if line.startswith("/pop "):
            for _ in range(int(line.split()[1])):
                await session.pop_item()
        else:
            await Runner.run(agent, line, session=session, run_config=config)
    return model.seen


def main(argv: list[str]) -> None:
    """Continue the conversation ``argv`` names and print what the model saw, as JSON."""
    path, owner, session_id, *script = argv
    with SQLiteStore(path) as store:
        session = ChronicaSession(session_id, owner=owner, store=store)
        seen = asyncio.run(converse(session, script))
    json.dump(seen, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
