"""``ChronoMem.index_session`` on both engines: it reads only what is new, never stops on a
message it cannot store as said, and honours the OpenAI Agents adapter's retractions."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from chronica import ActorKind, Actum, ActumKind, Chronicarius, Store
from chronica.integrations.openai_agents import ChronicaSession
from chronomem import ChronoMem, Episode, Indexed
from tests.chronomem.backends import MemoryTarget

OWNER, SID = "ardian", "dinner-friday"


class CountingStore:
    """A chronica store that counts the acta it hands out (every other call passes through)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.read = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def acta(self, chronicum_id: str, **options: Any) -> list[Actum]:
        found: list[Actum] = self._store.acta(chronicum_id, **options)
        self.read += len(found)
        return found


def message(text: str, actor: str = OWNER) -> Actum:
    kind = ActorKind.HUMAN if actor == OWNER else ActorKind.AGENT
    return Actum(chronicum_id=SID, kind=ActumKind.MESSAGE, actor_kind=kind, actor=actor,
                 content=text)  # fmt: skip


def say(c: Chronicarius, text: str, actor: str = OWNER) -> Actum:
    return c.record_actum(OWNER, message(text, actor))


def contents(found: Sequence[object]) -> list[str]:
    return [f.content for f in found if isinstance(f, Episode)]


def test_an_index_after_one_new_turn_reads_only_that_turn(memory_target: MemoryTarget) -> None:
    with memory_target.session_store() as inner, memory_target.open(owner=OWNER) as mem:
        store = CountingStore(inner)
        c = Chronicarius(store)
        c.record_acta(OWNER, [message(f"turn {i} about the dinner") for i in range(300)])
        assert mem.index_session(c, SID) == 300
        say(c, "and a birthday cake, please")
        store.read = 0
        assert mem.index_session(c, SID) == 1
        assert store.read <= 4  # the tail, back to the last indexed actum: not 301
        store.read = 0
        assert mem.index_session(c, SID) == 0
        assert store.read <= 4


def test_a_message_of_64_kib_of_blanks_never_stops_the_session(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.session_store() as store, memory_target.open(owner=OWNER) as mem:
        c = Chronicarius(store)
        padded = say(c, " " * 70_000 + "the padded words come last")
        first = mem.index_session(c, SID)
        assert isinstance(first, Indexed)
        assert (first.added, first.trimmed, first.skipped) == (1, (padded.id,), ())
        say(c, "Kinara at seven is booked")
        assert mem.index_session(c, SID) == 1
        assert contents(mem.recall("padded words", kinds=("episode",), limit=1)) == [
            "the padded words come last"
        ]
        assert "Kinara" in contents(mem.recall("Kinara booked", kinds=("episode",), limit=1))[0]


def active(mem: ChronoMem) -> list[str]:
    """The contents of the memory's episodes that are not forgotten, oldest first."""
    return [r["content"] for r in mem.export_facts() if not r["forgotten"]]


def _run(session: ChronicaSession, *calls: Any) -> None:
    async def go() -> None:
        for call in calls:
            await call(session)

    asyncio.run(go())


def test_popped_and_cleared_items_are_never_recalled(memory_target: MemoryTarget) -> None:
    with memory_target.session_store() as store, memory_target.open(owner=OWNER) as mem:
        c = Chronicarius(store)
        session = ChronicaSession(SID, owner=OWNER, store=store)
        secret = {"role": "user", "content": "My card number is 4111 1111 1111 1111"}
        kept = {"role": "user", "content": "A table for four on Friday"}
        # Popped before it was ever indexed: never stored.
        _run(session, lambda s: s.add_items([kept, secret]), lambda s: s.pop_item())
        done = mem.index_session(c, SID)
        assert (done.added, done.forgotten) == (1, 0)
        assert contents(mem.recall("card number", kinds=("episode",))) == []
        assert active(mem) == [kept["content"]]
        # Indexed, then popped: forgotten when the retraction is indexed.
        _run(session, lambda s: s.add_items([secret]))
        assert mem.index_session(c, SID) == 1
        _run(session, lambda s: s.pop_item())
        assert mem.index_session(c, SID).forgotten == 1
        assert "4111" not in " ".join(contents(mem.recall("card number 4111", kinds=("episode",))))
        # A clear takes back everything before it, indexed or not.
        _run(session, lambda s: s.add_items([secret]), lambda s: s.clear_session())
        cleared = mem.index_session(c, SID)
        assert (cleared.added, cleared.forgotten) == (0, 1)
        assert contents(mem.recall("table card number 4111", kinds=("episode",))) == []
        assert active(mem) == []
        _run(session, lambda s: s.add_items([{"role": "user", "content": "Window seat"}]))
        assert mem.index_session(c, SID) == 1
        # Markers are bookkeeping, never episodes.
        episodes = [r for r in mem.export_facts() if r["kind"] == "episode"]
        assert all("retracted" not in r["content"] for r in episodes)
        assert [r["content"] for r in episodes if not r["forgotten"]] == ["Window seat"]
