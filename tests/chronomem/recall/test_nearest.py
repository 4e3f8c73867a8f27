"""Meaning brings its own candidates: the owner's nearest items join every recall, whatever
their words, on both engines (issue 38)."""

from __future__ import annotations

import random

import pytest

from chronomem import DatabaseError, InvalidArgumentError
from chronomem.recall.semantic.spaces import space_named
from chronomem.recall.semantic.transformer import encoder_available
from tests.chronomem.backends import MemoryTarget

FILLER = [
    "How was your day?",
    "Pretty good, I went shopping.",
    "Did you watch the game last night?",
    "Yes, it was great fun.",
    "I need to call my mom later.",
    "The weather is nice today.",
    "I had pasta for lunch.",
    "Work was busy this week.",
    "Let's meet on Saturday.",
    "Sure, sounds good to me.",
]
CELLO = "Ana practises the cello every evening"


def test_a_question_sharing_no_word_finds_its_turn(memory_target: MemoryTarget) -> None:
    # 240 turns of everyday filler, then the one that answers: no content word in common.
    rng = random.Random(7)
    with memory_target.open() as mem:
        for _ in range(240):
            mem.remember_episode(
                rng.choice(FILLER), speaker=rng.choice(["Ana", "Ben"]), session="s"
            )
        mem.remember_episode(CELLO, speaker="Ben", session="s")
        found = mem.recall("Does Ana play a musical instrument?", limit=3)
        assert found, "meaning brings the turn the words cannot"
        assert found[0].content == CELLO
        assert set(found[0].ranks) == {"semantic"}


def test_one_hop_from_a_named_entity_reaches_its_neighbours(memory_target: MemoryTarget) -> None:
    rng = random.Random(3)
    with memory_target.open() as mem:
        manager = mem.remember("The Kestrel team is managed by Omar Haddad")
        office = mem.remember("Omar Haddad is based in the Nairobi office")
        with mem.batch():
            for i in range(300):
                topic = rng.choice(["cooking", "sports", "music", "travel"])
                city = rng.choice(["Paris", "Lima", "Oslo"])
                mem.remember(f"Unrelated fact number {i} about {topic} and {city}", dedup=False)
        found = [f.id for f in mem.recall("Kestrel team manager city", limit=3)]
        assert office in found, "the neighbour's fact, with no word of the question"
        assert manager in found
        named = mem.recall("Kestrel team", limit=3)
        assert [f.id for f in named[:2]] == [manager, office], "the named fact, then one hop"
        assert "graph" in named[1].ranks


def test_the_fields_an_agent_gives_count_as_words(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        car = mem.remember("Ardian drives a silver Toyota Avanza", category="car")
        sport = mem.remember("Ardian plays twice a week", metadata={"sport": "badminton"})
        for saying in ("Ardian lives in Kemang", "Ardian likes spicy food", "Ardian has a cat"):
            mem.remember(saying)
        assert mem.recall("What car does Ardian have?")[0].id == car
        assert mem.recall("Does Ardian play badminton?")[0].id == sport
        # The relevance floor: the other facts share only the name, so none pads the answer.
        assert [f.id for f in mem.recall("What car does Ardian have?", relevant_only=True)] == [car]


def test_relevant_only_is_checked(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem, pytest.raises(InvalidArgumentError, match="relevant_only"):
        mem.recall("anything", relevant_only="yes")  # type: ignore[arg-type]  # on purpose


def test_the_copy_catches_up_with_writes_and_erasures(memory_target: MemoryTarget) -> None:
    with memory_target.open() as reader, memory_target.open() as writer:
        first = writer.remember("Bob had a lil car accident on Monday")
        assert reader.recall("any vehicle accidents?")[0].id == first
        # Another memory (another process, as far as this one knows) writes and erases.
        second = writer.remember("My bicycle crashed into a parked van")
        found = [f.id for f in reader.recall("any vehicle accidents?", limit=5)]
        assert second in found, "the copy read the vector written after it was made"
        writer.purge(second)
        writer.purge(first)
        assert reader.recall("any vehicle accidents?") == [], "an erased vector is never found"
        index = reader._meaning.index
        space = space_named("static")
        with reader._db.read() as conn:
            question = space.unit("any vehicle accidents?")
            assert question is not None
            assert index.search(conn, reader.owner, space, question, 10) == []


def test_another_owners_vectors_are_never_searched(memory_target: MemoryTarget) -> None:
    with memory_target.open(owner="ann") as ann, memory_target.open(owner="bob") as bob:
        ann.remember("Ann's locker code is in the blue notebook")
        assert bob.recall("where is the locker code written?") == []


def test_an_encoder_that_is_not_the_files_is_refused(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember("Something to embed")
        assert mem.encoder == "static"
    with pytest.raises(DatabaseError, match="reindex --encoder minilm-l6"):
        memory_target.open(encoder="minilm-l6")
    with pytest.raises(InvalidArgumentError, match="encoder"):
        memory_target.open(encoder="word2vec")


@pytest.mark.skipif(not encoder_available(), reason="the encoder extra is not installed")
def test_reindex_moves_every_vector_to_the_encoder_and_resumes(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open() as mem:
        with mem.batch():
            for i in range(300):
                mem.remember(f"Filler fact {i} about the weekly market")
        target = mem.remember("Bob had a lil car accident on Monday")
        seen: list[tuple[int, int]] = []

        def killed(done: int, total: int) -> None:
            seen.append((done, total))
            raise KeyboardInterrupt  # as a ^C between two batches

        with pytest.raises(KeyboardInterrupt):
            mem.reindex("minilm-l6", progress=killed)
        assert mem.encoder == "static", "nothing switched before the last batch"
        assert seen == [(256, 301)]
        progress: list[tuple[int, int]] = []
        assert mem.reindex("minilm-l6", progress=lambda d, t: progress.append((d, t))) == 301
        assert progress[0][0] > 256, "the second run went on from the first"
        assert mem.encoder == "minilm-l6"
        assert mem.recall("any vehicle accidents?")[0].id == target
    with memory_target.open() as again:  # the file says which encoder made its vectors
        assert again.encoder == "minilm-l6"
        assert again.recall("any vehicle accidents?")[0].id == target
