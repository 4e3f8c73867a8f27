"""``list_namespaces`` after deletes, against LangGraph's InMemoryStore (issue 39 item 10).

Random sequences of puts and deletes (alone and in batches, erasing on delete or not), on
both engines, then every kind of ``list_namespaces``: a namespace is listed while it holds
an item and not once its items are all deleted. InMemoryStore keeps an emptied namespace
as an empty dict (and makes one on a ``get`` of a missing key), which its own listing then
shows; LangGraph's PostgreSQL store lists the namespaces of its rows, so a deleted one goes.
The reference here is InMemoryStore's items: the namespaces that hold one.
"""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import ListNamespacesOp, MatchCondition, PutOp
from langgraph.store.memory import InMemoryStore

from chronomem import ChronoMem
from chronomem.integrations.langgraph import ChronoMemStore
from tests.chronomem.backends import MemoryTarget

NAMESPACES = [("a",), ("a", "b"), ("a", "b", "c"), ("c", "d"), ("x" * 120, "y" * 120)]
"""The last one's category is too long to hold it whole (read from its items instead)."""
_VALUES = st.one_of(st.none(), st.sampled_from(["x", "y", "X", "x ", "y y"]))
_PUT = st.tuples(st.sampled_from(NAMESPACES), st.sampled_from(["k1", "k2"]), _VALUES)
_STEPS = st.lists(st.lists(_PUT, min_size=1, max_size=3), min_size=1, max_size=10)
_LISTINGS = [
    ListNamespacesOp(),
    ListNamespacesOp(max_depth=1),
    ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("a",)),)),
    ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("*",)),), max_depth=2),
]
_runs = itertools.count()


def _listed(ref: InMemoryStore, op: ListNamespacesOp) -> list[tuple[str, ...]]:
    held = InMemoryStore()
    for ns, items in ref._data.items():
        for key, item in items.items():
            held.put(ns, key, item.value)
    return held.batch([op])[0]  # type: ignore[return-value]  # a ListNamespacesOp's result


@given(steps=_STEPS, erase=st.booleans())
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_list_namespaces_after_deletes_matches_in_memory_store(
    memory_target: MemoryTarget,
    steps: list[list[tuple[tuple[str, ...], str, str | None]]],
    erase: bool,
) -> None:
    mem: ChronoMem = (memory_target.opened or [memory_target.open()])[0]
    store = ChronoMemStore(mem.for_owner(f"run-{next(_runs)}"), erase_on_delete=erase)
    ref = InMemoryStore()
    for step in steps:
        ops = [PutOp(ns, key, None if v is None else {"t": v}) for ns, key, v in step]
        store.batch(ops)
        ref.batch(ops)
        for listing in _LISTINGS:
            assert store.batch([listing])[0] == _listed(ref, listing), (step, listing)
