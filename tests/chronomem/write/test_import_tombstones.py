"""A backup of a memory that erased something restores (issue 39 item 1).

``export`` writes a purged item's tombstone with ``content: ""``; ``import`` read it as a live
write and refused the whole file (``line N: invalid content: must not be empty``, exit 2), on
both engines: one purge, prune, purge_session or erase-on-delete made a backup unrestorable.
Every kind of item goes through the command line's export and import here, and the restored
memory must answer every read as the original does.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import PutOp

from chronomem import ChronoMem, InvalidFactError
from chronomem.cli import main
from chronomem.integrations.langgraph import ChronoMemStore
from tests.chronomem.backends import Databases

OWNER = "ardian"
LONG_AGO = datetime(2020, 3, 1, 12, tzinfo=timezone.utc)


def _fill(memory: ChronoMem) -> None:
    """Active, superseded, forgotten and purged facts; episodes live, forgotten, purged by
    ``purge``, ``purge_session`` and ``prune``; a LangGraph key erased on delete."""
    memory.remember("Sari is allergic to peanuts", category="health")
    lisbon = memory.remember("Ana lives in Lisbon", valid_from=LONG_AGO)
    memory.supersede(lisbon, "Ana lives in Porto", valid_from=LONG_AGO + timedelta(days=400))
    memory.purge(lisbon)  # as_of early 2020 knew Lisbon: a tombstone now, found by no read
    old = memory.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")
    middle = memory.supersede(old, "ThinkPad T14 primary interface is Ethernet")
    memory.supersede(middle, "ThinkPad T14 primary interface is USB-C Ethernet")
    memory.purge(old, reason="wrong")  # a purged fact whose successor stays
    gone = memory.remember("Noor's locker code is 4471")
    memory.forget(gone, reason="changed")
    memory.remember("Noor prefers window seats on trains")
    purged = memory.remember("Noor's bank pin is 9911", entities=["Noor"])
    memory.purge(purged)
    memory.remember_episode("we booked the table for eight", speaker="ana", session="dinner")
    said = memory.remember_episode("my bank pin is 2468", speaker="ana", session="dinner")
    memory.remember_episode("see you on friday at the tram stop", speaker="bo", session="dinner")
    memory.purge(said, reason="a secret")
    hush = memory.remember_episode("keep this between us", speaker="bo", session="lunch")
    memory.forget(hush)
    for text in ("the passport number is X123", "the visa expires soon"):
        memory.remember_episode(text, speaker="ana", session="travel")
    memory.purge_session("travel")
    memory.remember_episode("the old flat had mould", speaker="ana", session="2020", at=LONG_AGO)
    memory.prune(episodes_older_than=timedelta(days=365))
    store = ChronoMemStore(memory, erase_on_delete=True)
    store.batch([PutOp(("users", "ana"), "diet", {"food": "vegan"})])
    store.batch([PutOp(("users", "ana"), "diet", {"food": "vegetarian"})])
    store.batch([PutOp(("users", "ana"), "diet", None)])


def _answers(memory: ChronoMem) -> dict[str, Any]:
    """What the reads answer, in a form two memories compare by."""
    queries = (
        "ThinkPad interface", "Noor", "pin", "dinner table friday", "peanuts", "vegan",
        "Ana lives", "mould",
    )  # fmt: skip
    later = datetime.now(timezone.utc) + timedelta(days=1)

    def ids(found: list[Any]) -> list[tuple[str, str]]:
        return [(f.id, f.content) for f in found]

    return {
        "export": list(memory.export_facts()),
        "stats": {k: v for k, v in memory.stats().items() if k != "path"},
        "recall": {q: ids(memory.recall(q)) for q in queries},
        "history": {q: ids(memory.recall(q, active_only=False)) for q in queries},
        "as_of": {q: ids(memory.recall(q, as_of=LONG_AGO + timedelta(days=500))) for q in queries},
        "later": {q: ids(memory.recall(q, as_of=later)) for q in queries},
        "timeline": {e: ids(memory.timeline(e)) for e in ("ThinkPad T14", "Noor", "Sari", "Ana")},
    }


def test_a_memory_with_tombstones_round_trips_through_export_and_import(
    databases: Databases, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = databases.new("source")
    with ChronoMem(source, owner=OWNER) as memory:
        _fill(memory)
        before = _answers(memory)
    tombstones = [r for r in before["export"] if r["purged_at"] is not None]
    assert {r["kind"] for r in tombstones} == {"fact", "episode"}
    assert len(tombstones) == 9  # 3 facts, 2 LangGraph values, 1 + 2 + 1 episodes
    backup = tmp_path / "backup.jsonl"
    assert main(["export", str(backup), "--db", str(source), "--owner", OWNER]) == 0
    target = databases.new("target")
    code = main(["import", str(backup), "--db", str(target), "--owner", OWNER, "--json"])
    assert code == 0, capsys.readouterr().err
    counted = json.loads(capsys.readouterr().out)
    assert counted["facts"] + counted["episodes"] == len(before["export"])
    with ChronoMem(target, owner=OWNER) as restored:
        assert _answers(restored) == before
        # Restored as tombstones: nothing of them is indexed, so a purge of the copy finds
        # nothing more to remove, and a second import changes nothing.
        assert restored.import_facts(before["export"]) == 0


def test_a_tombstone_record_is_checked_by_its_own_rules(databases: Databases) -> None:
    with ChronoMem(databases.new("source"), owner=OWNER) as memory:
        memory.purge(memory.remember("Noor's bank pin is 9911"))
        [record] = list(memory.export_facts())
    with ChronoMem(databases.new("target"), owner=OWNER) as target:
        bad = [
            ({**record, "content": "the pin came back"}, "content"),
            ({**record, "invalidated_at": None}, "invalidated_at"),
            ({**record, "superseded_by": record["id"]}, "superseded_by"),
            ({**record, "superseded_by": "f" * 32}, "superseded_by"),
            ({**record, "purge_reason": 7}, "purge_reason"),
        ]
        for wrong, field in bad:
            with pytest.raises(InvalidFactError, match=field):
                target.import_facts([wrong])
        assert target.stats()["facts"] == 0  # each refusal wrote nothing
        assert target.import_facts([record]) == 1
        assert [r["purged_at"] for r in target.export_facts()] == [record["purged_at"]]
