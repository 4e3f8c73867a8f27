"""A real LangGraph graph compiled with ``store=ChronoMemStore(...)``: its nodes read and write
memories through the store LangGraph injects, in two processes one after the other on one
database, then both at once.

Run as a script (``python -m tests.chronomem.integrations.test_langgraph_graph <db> ...``) it
is one process's run of the graph.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from chronomem import ChronoMem
from chronomem.integrations.langgraph import ChronoMemStore
from tests.chronomem.backends import MemoryTarget

ROOT = Path(__file__).resolve().parents[3]
NAMESPACE = ("users", "ardian", "memories")


class Turn(TypedDict):
    user: str
    said: str
    recalled: list[str]
    visits: int


def remember(state: Turn, *, store: BaseStore) -> dict[str, object]:
    """Write what the user said, and count visits (a put on an existing key)."""
    ns = ("users", state["user"], "memories")
    store.put(ns, f"said-{state['said'][:20]}", {"text": state["said"]})
    seen = store.get(("users", state["user"]), "profile")
    visits = (seen.value["visits"] if seen else 0) + 1
    store.put(("users", state["user"]), "profile", {"visits": visits})
    return {"visits": visits}


def recall(state: Turn, *, store: BaseStore) -> dict[str, object]:
    """Read back what relates to the turn, through search with a text query."""
    found = store.search(("users", state["user"]), query=state["said"], limit=5)
    return {"recalled": [i.value["text"] for i in found if "text" in i.value]}


def build(memory: ChronoMem):  # type: ignore[no-untyped-def]  # LangGraph's compiled type is generic in four parameters
    builder = StateGraph(Turn)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=ChronoMemStore(memory))


def _command(target: MemoryTarget, said: list[str]) -> list[str]:
    args = json.dumps(target.args())
    return [sys.executable, "-m", "tests.chronomem.integrations.test_langgraph_graph", args, *said]


def _run_in_child(target: MemoryTarget, *said: str) -> list[dict[str, object]]:
    out = subprocess.run(
        _command(target, list(said)), cwd=ROOT, capture_output=True, text=True, timeout=120,
        check=True,
    )  # fmt: skip
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_a_graph_remembers_across_processes(memory_target: MemoryTarget) -> None:
    [first] = _run_in_child(memory_target, "I moved to Kemang and I love spicy ramen")
    assert first["visits"] == 1
    [second] = _run_in_child(memory_target, "Where should I eat ramen tonight?")
    assert second["visits"] == 2
    assert "I moved to Kemang and I love spicy ramen" in second["recalled"]  # type: ignore[operator]
    # The history of the profile is in the memory: one value per visit, superseded in turn.
    store = ChronoMemStore(memory_target.open())
    visits = [i.value["visits"] for i in store.history(("users", "ardian"), "profile")]
    assert visits == [1, 2]


def test_two_processes_run_the_graph_at_once(memory_target: MemoryTarget) -> None:
    notes = {c: [f"child {c} note {i}" for i in range(5)] for c in "ab"}
    children = [
        subprocess.Popen(_command(memory_target, said), cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for said in notes.values()
    ]
    for child in children:
        child.communicate(timeout=120)
        assert child.returncode == 0
    store = ChronoMemStore(memory_target.open())
    # Every turn of both is kept. The graph's visit counter is a read then a put, so two
    # processes may count one visit twice (as on any store; on PostgreSQL both may even
    # create the key at once): each put still lands whole, and one value is current.
    kept = {i.value["text"] for i in store.search(NAMESPACE, limit=100)}
    assert kept == {n for said in notes.values() for n in said}
    visits = [i.value["visits"] for i in store.history(("users", "ardian"), "profile")]
    assert set(visits) <= set(range(1, 11))
    current = store.get(("users", "ardian"), "profile")
    assert current is not None
    assert current.value["visits"] in visits


def main(args: list[str]) -> None:
    target = MemoryTarget.from_args(json.loads(args[0]))
    graph = build(target.open())
    for said in args[1:]:
        out = graph.invoke({"user": "ardian", "said": said, "recalled": [], "visits": 0})
        print(json.dumps({"visits": out["visits"], "recalled": out["recalled"]}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
