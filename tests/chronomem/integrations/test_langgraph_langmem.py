"""LangMem's memory tools writing through ``ChronoMemStore``, inside a real LangGraph graph.

No LLM: the graph's tool node runs the tool calls a model would have made (the last message's
``tool_calls``), and LangMem's tools reach the store the way LangMem documents, through the
store the graph was compiled with. What they write must be chronomem facts (recallable, with
history), and LangMem's search tool must find it again by a text query, with no embedding
index.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.warnings import LangGraphDeprecatedSinceV10

from chronomem import ChronoMem
from chronomem.integrations.langgraph import ChronoMemStore
from tests.chronomem.backends import MemoryTarget

with warnings.catch_warnings():
    # trustcall (a LangMem dependency) imports Send from langgraph.constants, deprecated
    # since LangGraph 1.0; the warning is theirs, raised once at import.
    warnings.filterwarnings("ignore", category=LangGraphDeprecatedSinceV10)
    from langmem import (  # type: ignore[import-untyped]  # LangMem ships no py.typed
        create_manage_memory_tool,
        create_search_memory_tool,
    )

NAMESPACE = ("memories", "{langgraph_user_id}")
CONFIG = {"configurable": {"langgraph_user_id": "ardian"}}


def _graph(memory: ChronoMem) -> Any:
    """START -> tools -> END, the tool node holding LangMem's two tools, the store ours."""
    tools = ToolNode([create_manage_memory_tool(NAMESPACE), create_search_memory_tool(NAMESPACE)])
    builder = StateGraph(MessagesState)
    builder.add_node("tools", tools)
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    return builder.compile(store=ChronoMemStore(memory))


def _call(graph: Any, name: str, **args: Any) -> ToolMessage:
    """Run one tool call the way a model's message would ask for it; its tool message."""
    asked = AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "call-1"}])
    out = graph.invoke({"messages": [asked]}, CONFIG)
    reply = out["messages"][-1]
    assert isinstance(reply, ToolMessage)
    assert reply.status == "success", reply.content
    return reply


def _created_id(reply: ToolMessage) -> str:
    said = str(reply.content)
    assert said.startswith("created memory "), said
    return said.removeprefix("created memory ")


def test_langmem_tools_write_chronomem_facts_and_find_them(memory_target: MemoryTarget) -> None:
    memory = memory_target.open(owner="ardian")
    graph = _graph(memory)
    seats = _created_id(_call(graph, "manage_memory", content="Prefers window seats on flights"))
    _call(graph, "manage_memory", content="Allergic to peanuts, carries an epinephrine pen")
    _call(graph, "manage_memory", content="Works from the Jakarta office on Mondays")

    # They are chronomem facts, recallable by the memory's other users.
    recalled = memory.recall("peanuts allergy", limit=3)
    assert "Allergic to peanuts" in recalled[0].content

    # LangMem's search tool finds them by a text query, best first, with no embedding index.
    found = json.loads(str(_call(graph, "search_memory", query="peanut allergy").content))
    assert found[0]["value"] == {"content": "Allergic to peanuts, carries an epinephrine pen"}
    assert found[0]["namespace"] == ["memories", "ardian"]
    assert found[0]["score"] is not None

    # An update through the tool supersedes: the old value stays in the history.
    _call(graph, "manage_memory", action="update", id=seats, content="Prefers aisle seats now")
    store = ChronoMemStore(memory)
    history = [i.value["content"] for i in store.history(("memories", "ardian"), seats)]
    assert history == ["Prefers window seats on flights", "Prefers aisle seats now"]
    current = [f.content for f in memory.recall("seats", limit=5) if "seats" in f.content]
    assert len(current) == 1
    assert "aisle" in current[0]

    # A delete through the tool forgets: gone from search, still in the history.
    _call(graph, "manage_memory", action="delete", id=seats)
    found = json.loads(str(_call(graph, "search_memory", query="seats").content))
    assert all("seats" not in f["value"]["content"] for f in found)
    assert len(store.history(("memories", "ardian"), seats)) == 2
