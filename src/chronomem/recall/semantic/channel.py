"""The semantic ranking of a recall's candidates: each item's vector against the question's."""

from __future__ import annotations

from collections.abc import Iterable

from chronomem.engine.dialect import Conn
from chronomem.recall.semantic.model import load_model
from chronomem.recall.semantic.vectors import read_vectors
from chronomem.text.lexicon import query_terms

__all__ = ["MIN_SIMILARITY", "meaning_terms", "rank_by_meaning"]

# Below this cosine a static model's nearest items are noise, not meaning: on the LoCoMo
# development set the best turn for a question scores 0.60 to 0.77 (10th to 90th percentile).
MIN_SIMILARITY = 0.35


def rank_by_meaning(
    conn: Conn, question: str, candidates: Iterable[int], depth: int
) -> list[tuple[int, float]]:
    """``candidates`` that have a vector, by cosine with ``question``, best first, at most
    ``depth``, none below MIN_SIMILARITY; empty when the channel is off."""
    model = load_model()
    wanted = sorted(set(candidates))
    if model is None or not wanted:
        return []
    vector = model.unit(question)
    if vector is None:
        return []
    items, vectors = read_vectors(conn, wanted)
    scores = model.similarities(vector, vectors).tolist()
    ranked = sorted(zip(items, scores, strict=True), key=lambda pair: (-pair[1], -pair[0]))
    return [(rowid, float(s)) for rowid, s in ranked[:depth] if s >= MIN_SIMILARITY]


def meaning_terms(question: str, count: int) -> list[str]:
    """Index terms for what ``question`` means: the vocabulary's ``count`` words nearest to it
    ("car incident" -> accident, vehicle; "beverage" -> drink), stop words dropped, as the
    lexical index spells them. Empty when the channel is off."""
    model = load_model()
    vector = model.unit(question) if model is not None else None
    if model is None or vector is None:
        return []
    return query_terms(" ".join(model.related_words(vector, count)))
