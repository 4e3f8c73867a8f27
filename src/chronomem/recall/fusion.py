"""The fusion of recall's channels by weighted Reciprocal Rank Fusion.

The channels' rankings come from :mod:`.channels`. Each channel pulls a bounded candidate set
from an index (never a scan of all items), with the view's owner/kind/category/temporal filter
inside its own SQL, so a limit never hides a visible item behind an invisible one:

* ``bm25``: chronomem's BM25 over its own stemmed terms, with the priors of conversation
  (speaker, session, time words, dates; see :mod:`.lexical`, :mod:`.lexical_pool`). It ranks
  facts and episodes.
* ``jaccard``: token-set overlap between the query and the facts in the lexical pool, which
  rewards facts covering the query's words rather than repeating rare ones.
* ``entity``: facts linked to an entity the query names, weighted by how specific the entity
  is: a name in a large share of the facts (a speaker's, in a conversation) says little.
* ``graph``: facts linked to entities one hop from the query's in the co-occurrence graph,
  scored by how surely the named entity leads there (multi-hop: "Alice" -> "Project Falcon"
  -> its database), among the facts that also speak to the question's other words or meaning.
  These two live in :mod:`.entity_graph`.
* ``semantic``: the owner's items nearest the question by meaning (:mod:`.semantic`), found
  whatever their words, with the lexical channel's best ranked by their vectors too.

Episodes are ranked by the lexical channel alone: they carry no entities and no claims.
The words and the meaning are one ranking before fusion (see ``channels.MEANING_WEIGHT``): their
ranks fused by RRF let a rank of meaning outvote close lexical scores.
RRF(d) = sum_c w_c / (k + rank_c(d)) * (0.8 + 0.4 * trust) * confidence, with k = 60, over that
ranking and the entity, graph and Jaccard channels; the graph channel's w_c is scaled by its
surest hop (see HOP_GAIN).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from chronomem._errors import InvalidArgumentError
from chronomem.engine.dialect import Conn
from chronomem.recall.channels import Meaning, channel_ranks
from chronomem.recall.entity_graph import CHANNEL_DEPTH, HOP_GAIN, Ranking
from chronomem.recall.lexical import LexicalParams
from chronomem.recall.view import View

__all__ = ["CHANNELS", "CHANNEL_DEPTH", "DEFAULT_WEIGHTS", "Candidate", "check_weights", "fuse"]

CHANNELS = ("bm25", "jaccard", "entity", "graph", "semantic")
# Measured on LoCoMo (real conversations) and the graded set together (scripts/eval_locomo.py,
# tests/chronomem/recall/test_graded.py): Jaccard at any weight >= 0.1 lowered LoCoMo's R@1 by 0.05
# or more and the graded set no longer needs it, so it is off unless a caller asks for it.
DEFAULT_WEIGHTS: Mapping[str, float] = {
    "bm25": 1.0,
    "jaccard": 0.0,
    "entity": 1.0,
    "graph": 1.0,
    "semantic": 1.0,
}
RRF_K = 60


def check_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """Defaults overridden by ``weights``; unknown channels or bad numbers are refused."""
    merged = dict(DEFAULT_WEIGHTS)
    if weights is None:
        return merged
    if not isinstance(weights, Mapping):
        raise InvalidArgumentError("weights", "must be a mapping of channel name to number")
    for name, value in weights.items():
        if name not in CHANNELS:
            raise InvalidArgumentError("weights", f"unknown channel {name!r}; use {CHANNELS}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidArgumentError("weights", f"{name} must be a number")
        try:
            number = float(value)  # an int too large for a float raises OverflowError
        except OverflowError:
            number = math.inf
        if math.isnan(number) or number < 0 or math.isinf(number):
            raise InvalidArgumentError("weights", f"{name} must be finite and >= 0")
        merged[name] = number
    return merged


@dataclass(slots=True)
class Candidate:
    """An item found by at least one channel, with its per-channel ranks."""

    rowid: int
    trust: float
    confidence: float
    ranks: dict[str, int]
    score: float = 0.0


def _competition_ranks(ranking: Ranking) -> Iterator[tuple[int, int]]:
    """1-based ranks where equal scores share a rank ("1224"): a channel that cannot tell two
    facts apart must not pretend to, or its arbitrary order would outvote the others."""
    rank, previous = 0, None
    for position, (rowid, channel_score) in enumerate(ranking, start=1):
        if channel_score != previous:
            rank, previous = position, channel_score
        yield rowid, rank


def fuse(
    conn: Conn,
    query: str,
    view: View,
    weights: Mapping[str, float],
    params: LexicalParams,
    meaning: Meaning,
    *,
    relevant_only: bool = False,
) -> list[Candidate]:
    """Candidates best first by weighted RRF of the words-and-meaning ranking and the entity,
    graph and Jaccard channels; each keeps its rank in every channel that found it (``bm25``
    and ``semantic`` apart) to explain it. Zero-weight-only ones are dropped."""
    ranked = channel_ranks(conn, query, view, params, weights, meaning)
    meta = ranked.meta
    text_weight = 1.0 if weights.get("bm25", 0.0) > 0 or weights.get("semantic", 0.0) > 0 else 0.0
    fused: list[tuple[float, Ranking]] = [(text_weight, ranked.text)]
    for channel in ("entity", "graph", "jaccard"):
        ranking = ranked.channels.get(channel, [])
        w = weights.get(channel, 0.0)  # a channel a caller's weights leave out is off
        if channel == "graph" and ranking:
            w *= HOP_GAIN * min(1.0, ranking[0][1]) * ranked.hop_share  # its surest hop
        fused.append((w, ranking))
    # Scores first, a float per rowid; a Candidate only for what is kept (a pool holds about
    # 150 items a recall, and an object each cost more than their arithmetic).
    scores: dict[int, float] = {}
    for w, ranking in fused:
        if w <= 0:
            continue  # adds nothing: a candidate it alone found is dropped below
        for rowid, rank in _competition_ranks(ranking):
            scores[rowid] = scores.get(rowid, 0.0) + w / (RRF_K + rank)
    related = ranked.related if relevant_only else None
    kept = []
    for rowid, score in scores.items():
        trust, confidence = meta[rowid]
        score *= (0.8 + 0.4 * trust) * confidence
        if score > 0 and (related is None or rowid in related):
            kept.append(Candidate(rowid, trust, confidence, {}, score))
    kept.sort(key=lambda c: (-c.score, -c.rowid))
    by_rowid = {c.rowid: c for c in kept}
    for channel, ranking in ranked.channels.items():
        for rowid, rank in _competition_ranks(ranking):
            if (cand := by_rowid.get(rowid)) is not None:
                cand.ranks[channel] = rank
    return kept
