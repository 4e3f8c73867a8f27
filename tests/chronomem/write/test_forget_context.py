"""A forgotten turn's words leave its neighbours' context (issue 20 item 9), on both engines.

An episode is indexed with the words of the two turns before it (see
:mod:`chronomem.recall.lexindex`), so forgetting a turn that held a secret used to leave the
secret findable through the next two turns. Forgetting takes the words out of their context,
for the turns already written and for any written after.
"""

from __future__ import annotations

from tests.chronomem.backends import MemoryTarget


def test_forgetting_a_turn_takes_its_words_out_of_the_next_turns(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open() as mem:
        mem.remember_episode("The weather is fine today", speaker="Ann", session="s")
        secret = mem.remember_episode("My locker code is quuxolite", speaker="Ann", session="s")
        mem.remember_episode("Noted, anything else", speaker="Bot", session="s")
        mem.remember_episode("No, thanks a lot", speaker="Ann", session="s")
        found = mem.recall("quuxolite")
        assert found[0].id == secret
        # The turn and the two after it, by their words (the one before, lent by the turn).
        assert len([f for f in found if "bm25" in f.ranks]) == 3
        mem.forget(secret, reason="a secret")
        assert mem.recall("quuxolite") == []
        mem.remember_episode("Bye now", speaker="Bot", session="s")
        assert mem.recall("quuxolite") == []
        assert mem.recall("quuxolite", active_only=False) == []
        assert mem.get(secret).content == "My locker code is quuxolite"  # soft: it stays
        # Everything else still recalls, and through its neighbours' context as before.
        assert {h.content for h in mem.recall("anything else")} >= {"Noted, anything else"}
