"""Recall results are read-only dicts of their JSON form (issue 20 item 18), on both engines.

Callers drop results into prompts, logs and replies the way they would a dict: membership,
iteration, ``get``, ``len``, ``dict()`` and ``json.dumps`` all work, the mapping's values are
what JSON carries, and the typed values stay on the attributes.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Mapping
from datetime import datetime, timezone

import pytest

from chronomem import Episode, Fact
from tests.chronomem.backends import MemoryTarget

MAY = datetime(2024, 5, 8, 9, 30, tzinfo=timezone.utc)


def test_results_are_json_ready_read_only_mappings(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember("Noor works at Acme", entities=["Noor"], metadata={"k": [1]}, valid_from=MAY)
        mem.remember_episode("Noor said hello yesterday", speaker="Noor", session="s", at=MAY)
        results = mem.recall("Noor hello Acme", limit=5)
        assert {type(r) for r in results} == {Fact, Episode}
        decoded = json.loads(json.dumps(results))
        for record, plain in zip(results, decoded, strict=True):
            assert isinstance(record, Mapping)
            assert "content" in record
            assert "nope" not in record
            assert list(record) == list(type(record).__dataclass_fields__)
            assert len(record) == len(plain)
            assert dict(record) == plain == record.to_dict()
            assert record.get("content") == record.content
            assert record.get("nope", 7) == 7
            assert {**record}["id"] == record.id
            assert copy.copy(record) == record == pickle.loads(pickle.dumps(record))
        fact = next(r for r in results if isinstance(r, Fact))
        assert fact.valid_from == MAY
        assert fact["valid_from"] == MAY.isoformat()
        assert fact.entities == ("Noor",)
        assert fact["entities"] == ["Noor"]
        assert fact["metadata"] == {"k": [1]}
        episode = next(r for r in results if isinstance(r, Episode))
        assert episode.at == MAY
        assert episode["at"] == "2024-05-08T09:30:00+00:00"
        assert episode["mentions"][0]["start"] == "2024-05-07"
        changes: tuple[Callable[[], object], ...] = (
            lambda: fact.__setitem__("content", "x"),
            lambda: fact.__delitem__("content"),
            lambda: fact.update(content="x"),
            lambda: fact.pop("content"),
            lambda: fact.setdefault("more", 1),
            fact.clear,
            fact.popitem,
        )
        for change in changes:
            with pytest.raises(TypeError, match="read-only"):
                change()
        assert fact["content"] == "Noor works at Acme"
