"""The interface every memory under test is driven through, and chronomem's adapter to it.

Inputs differ by design: :class:`ChronoMemSystem` is called as an agent would call it (each
fact with its category and entities, updates as ``supersede``, as-of questions with
``as_of``), which the baselines cannot take; :class:`ChronoMemSentencesSystem` gets only the
sentences, like the baselines, so the two rows separate what structure buys from retrieval.

A system ingests :class:`~.data.Event` s and answers a question with the sentences it would put
in the prompt, best first, within a token budget. Every system counts tokens with the same
counter (chronomem's ``estimate_tokens``) so "tokens per answer" compares like with like.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from chronomem import ChronoMem, estimate_tokens

from .data import Event

__all__ = ["ChronoMemSentencesSystem", "ChronoMemSystem", "MemorySystem", "TokenCounter", "pack"]

TokenCounter = Callable[[str], int]


class MemorySystem(Protocol):
    """What the graded evaluation needs from a memory."""

    name: str

    def ingest(self, event: Event) -> None:
        """Store the event's fact (superseding ``event.replaces`` if the system can)."""

    def recall(self, query: str, *, budget: int, k: int, as_of: datetime | None) -> list[str]:
        """Up to ``k`` sentences, best first, whose tokens fit in ``budget``."""

    def close(self) -> None:
        """Release files and memory."""


def pack(
    ranked: list[str], *, budget: int, k: int, count: TokenCounter = estimate_tokens
) -> list[str]:
    """Take sentences in rank order while they fit; stop at the first one that does not."""
    packed: list[str] = []
    used = 0
    for text in ranked[:k]:
        cost = count(text)
        if used + cost > budget:
            break
        packed.append(text)
        used += cost
    return packed


class ChronoMemSystem:
    """chronomem through its public Python API: remember, supersede, recall."""

    name = "chronomem"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.mem = ChronoMem(path, owner="bench")
        self._ids: dict[str, str] = {}

    def ingest(self, event: Event) -> None:
        fact = event.fact
        entities = list(fact.entities)
        if event.replaces is None:
            new_id = self.mem.remember(
                fact.content,
                category=fact.category,
                entities=entities,
                valid_from=fact.valid_from,
                source=fact.source,
            )
        else:
            new_id = self.mem.supersede(
                self._ids[event.replaces.content],
                fact.content,
                category=fact.category,
                entities=entities,
                valid_from=fact.valid_from,
                source=fact.source,
            )
        self._ids[fact.content] = new_id

    def recall(self, query: str, *, budget: int, k: int, as_of: datetime | None) -> list[str]:
        facts = self.mem.recall(query, token_budget=budget, limit=k, as_of=as_of)
        return [f.content for f in facts]

    def contradiction_pairs(self) -> set[frozenset[str]]:
        """Every pair of sentences chronomem reports as contradicting each other."""
        by_id = {v: c for c, v in self._ids.items()}
        pairs: set[frozenset[str]] = set()
        for found in self.mem.contradictions():
            texts = [by_id[i] for i in found.fact_ids if i in by_id]
            pairs.update(frozenset({a, b}) for a in texts for b in texts if a != b)
        return pairs

    def close(self) -> None:
        self.mem.close()


class ChronoMemSentencesSystem:
    """chronomem given exactly what the baselines get: each sentence alone.

    No category, entities, validity time or source; an update is one more ``remember`` (never
    ``supersede``), and questions are asked without ``as_of``. Beside :class:`ChronoMemSystem`
    it shows how much of chronomem's lead comes from the structure an agent passes it, and how
    much from retrieval on the same input as the baselines.
    """

    name = "chronomem, sentences only"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.mem = ChronoMem(path, owner="bench")

    def ingest(self, event: Event) -> None:
        self.mem.remember(event.fact.content)

    def recall(self, query: str, *, budget: int, k: int, as_of: datetime | None) -> list[str]:
        del as_of  # the baselines cannot ask "as of" either
        return [f.content for f in self.mem.recall(query, token_budget=budget, limit=k)]

    def close(self) -> None:
        self.mem.close()
