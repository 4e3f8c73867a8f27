"""An answer split across turns still ranks: a found turn lends its neighbours in the same
conversation a share of its score (issue 38, item 5), on both engines."""

from __future__ import annotations

import dataclasses
import random
import time

from chronomem import ChronoMem
from chronomem.recall import neighbours
from chronomem.recall.entity_graph import Meta
from chronomem.recall.view import View
from tests.chronomem.backends import MemoryTarget
from tests.chronomem.recall.test_nearest import FILLER

ASKED = "What new hobby did Ana start?"
ANSWER = "Pottery, every Tuesday at the studio."
WORDS = "Is that the new hobby you started?"


def _conversation(mem: ChronoMem, *, answer_session: str = "s") -> None:
    rng = random.Random(11)
    for _ in range(120):
        mem.remember_episode(rng.choice(FILLER), speaker=rng.choice(["Ana", "Ben"]), session="s")
    # The answer first, the question's words after it: an episode's words include its
    # previous turns', never its next ones'.
    mem.remember_episode(ANSWER, speaker="Ana", session=answer_session)
    mem.remember_episode(WORDS, speaker="Ben", session="s")
    mem.remember_episode("Yes, since last month.", speaker="Ana", session="s")
    for _ in range(40):
        mem.remember_episode(rng.choice(FILLER), speaker=rng.choice(["Ana", "Ben"]), session="s")


def _rank_of_answer(mem: ChronoMem) -> int | None:
    found = [e.content for e in mem.recall(ASKED, limit=10, kinds=("episode",))]
    return found.index(ANSWER) if ANSWER in found else None


def test_the_turn_before_the_words_ranks(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        _conversation(mem)
        lent = _rank_of_answer(mem)
        assert lent is not None, "lent by the turns that say the question's words"
        assert lent < 5
        [answer] = [e for e in mem.recall(ASKED, limit=5) if e.content == ANSWER]
        assert set(answer.ranks) == {"neighbour"}, "it shares no word with the question"
        mem._lexical = dataclasses.replace(mem._lexical, neighbours=0.0)
        unlent = _rank_of_answer(mem)
        assert unlent is None or unlent > lent


def test_another_conversation_lends_nothing(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        _conversation(mem, answer_session="another")
        assert _rank_of_answer(mem) is None


def _lent(mem: ChronoMem, lender: str, view: View) -> dict[str, float]:
    """What the turn ``lender`` alone, found with score 1.0, lends, by content."""
    with mem._db.read() as conn:
        [(rowid,)] = conn.execute(
            "SELECT rowid FROM chronomem_facts WHERE content = ?", (lender,)
        ).fetchall()
        meta: Meta = {}
        _, lent = neighbours.with_neighbours(conn, view, [(rowid, 1.0)], meta)
        assert set(meta) == {r for r, _ in lent}, "every newcomer's trust and confidence"
        contents = dict(
            conn.execute(
                "SELECT rowid, content FROM chronomem_facts WHERE kind = 'episode'"
            ).fetchall()
        )
    return {contents[r]: score for r, score in lent}


def test_reach_order_and_view(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        turns = [f"turn {i}" for i in range(7)]
        ids = [
            mem.remember_episode(text, speaker="Ana" if i % 2 else "Ben", session="s")
            for i, text in enumerate(turns)
        ]
        mem.remember_episode("elsewhere", speaker="Ana", session="other")
        mem.remember("a fact is no turn")
        view = View(owner=mem.owner, now=time.time_ns())
        share = neighbours.NEIGHBOUR_SHARE
        reach = neighbours.NEIGHBOUR_REACH
        lent = _lent(mem, "turn 3", view)
        assert lent == {turns[3 + d]: share for d in range(-reach, reach + 1) if d}
        mem.forget(ids[4], reason="said by mistake")
        assert "turn 4" not in _lent(mem, "turn 3", view), "the view hides it"
        facts_only = View(owner=mem.owner, now=time.time_ns(), kinds=("fact",))
        assert _lent(mem, "turn 3", facts_only) == {}
        assert _lent(mem, "turn 3", View(owner="someone else", now=time.time_ns())) == {}


def test_a_purged_turn_is_lent_nothing(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        ids = [mem.remember_episode(f"turn {i}", speaker="Ana", session="s") for i in range(3)]
        mem.purge(ids[2], reason="asked to")
        lent = _lent(mem, "turn 1", View(owner=mem.owner, now=time.time_ns()))
        assert lent == {"turn 0": neighbours.NEIGHBOUR_SHARE}, "not the tombstone"


def test_a_turn_that_asks_lends_its_reply_more(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        said = [
            ("Ben", "I finally framed the painting."),
            ("Ben", "How long have you been painting?"),
            ("Ana", "Seven years now."),
            ("Ana", "Mostly landscapes."),
        ]
        for speaker, text in said:
            mem.remember_episode(text, speaker=speaker, session="s")
        mem.remember_episode("What did you eat?", speaker="Ana", session="t")
        mem.remember_episode("Did you like it?", speaker="Ana", session="t")
        view = View(owner=mem.owner, now=time.time_ns())
        share, reply = neighbours.NEIGHBOUR_SHARE, neighbours.REPLY_SHARE
        assert reply > share
        assert _lent(mem, "How long have you been painting?", view) == {
            "I finally framed the painting.": share,
            "Seven years now.": reply,
            "Mostly landscapes.": share,
        }
        assert _lent(mem, "I finally framed the painting.", view)["Seven years now."] == share
        assert _lent(mem, "What did you eat?", view) == {"Did you like it?": share}, (
            "the same speaker's next turn is no reply"
        )
