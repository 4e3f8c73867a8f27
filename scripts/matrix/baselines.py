"""The two baselines chronomem is compared with: a flat memory and a vector store.

Both are the honest simple versions people actually ship: neither knows about time, so an
update is one more appended sentence, and neither can answer "as of" a date.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .data import Event
from .optional import bench_module
from .systems import pack

__all__ = ["FlatMemory", "VectorStore"]


class FlatMemory:
    """Append every fact to a list; answer with the most recent facts that fit the budget."""

    name = "flat memory"

    def __init__(self) -> None:
        self._facts: list[str] = []

    def ingest(self, event: Event) -> None:
        self._facts.append(event.fact.content)

    def recall(self, query: str, *, budget: int, k: int, as_of: datetime | None) -> list[str]:
        del query, as_of  # a flat memory has no retrieval and no notion of time
        return pack(self._facts[::-1][:k], budget=budget, k=k)

    def close(self) -> None:
        self._facts.clear()


class VectorStore:
    """Cosine similarity over all-MiniLM-L6-v2 embeddings, exhaustive (exact) search.

    Embeddings are computed in batches once everything is ingested (what a vector database's
    bulk load does); queries are embedded one at a time, so recall latency includes the model.
    """

    name = "vector store"

    def __init__(self, model: Any) -> None:
        self._np = bench_module("numpy")
        self._model = model
        self._facts: list[str] = []
        self._matrix: Any = None

    def _embed(self, texts: list[str]) -> Any:
        return self._model.encode(
            texts,
            batch_size=64,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    def ingest(self, event: Event) -> None:
        self._facts.append(event.fact.content)
        self._matrix = None

    def build(self) -> None:
        """Embed everything ingested so far (called once, before the questions)."""
        self._matrix = self._embed(self._facts)

    def recall(self, query: str, *, budget: int, k: int, as_of: datetime | None) -> list[str]:
        del as_of  # embeddings carry no validity time
        if self._matrix is None:
            self.build()
        scores = self._matrix @ self._embed([query])[0]
        top = self._np.argsort(-scores, kind="stable")[:k]
        return pack([self._facts[int(i)] for i in top], budget=budget, k=k)

    def close(self) -> None:
        self._facts.clear()
        self._matrix = None
