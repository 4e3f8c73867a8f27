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
* ``semantic``: the pooled candidates by meaning (:mod:`.semantic`); where the question's words
  found nothing they could rank, the items holding the words nearest its meaning join first.

Episodes are ranked by the lexical channel alone: they carry no entities and no claims.
RRF(d) = sum_c w_c / (k + rank_c(d)) * (0.8 + 0.4 * trust) * confidence, with k = 60; the
graph channel's w_c is scaled by its surest hop (see HOP_GAIN) and the semantic channel's by
what the words saw (see SEMANTIC_SIGHTED).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from chronomem._errors import InvalidArgumentError
from chronomem.engine.dialect import Conn
from chronomem.recall.channels import channel_ranks
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
# The semantic channel's share of its weight when the lexical channel saw any word of the question
# beyond its names (see lexical_pool._sight): a small share, enough to reorder items the words rank
# close together (RRF's gap between ranks r and r + 1 is about 1 / (60 + r)^2), too little to
# overturn what they rank far apart. Measured on the LoCoMo development set, where a static model's
# ranking alone (R@10 0.51) is far weaker than the words' (0.83): 0, 0.01 and 0.03 measure alike
# (within 0.003 on every metric); a share of 1.0, or one growing with the words left unseen, lowered
# R@1 (0.52 -> 0.45 at 1.0).
SEMANTIC_SIGHTED = 0.03


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


@dataclass
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
) -> list[Candidate]:
    """Candidates best first by weighted RRF; zero-weight-only ones dropped."""
    ranked, meta, sight = channel_ranks(conn, query, view, params, weights)
    found: dict[int, Candidate] = {}
    for channel, ranking in ranked.items():
        w = weights.get(channel, 0.0)  # a channel a caller's weights leave out is off
        # Meaning decides where the words cannot (none of the question's words, names aside,
        # is in a top item: the words then rank an entity's facts by length alone), and the
        # words decide elsewhere; the other keeps a small share (see SEMANTIC_SIGHTED).
        if channel == "semantic":
            w *= 1.0 if sight == 0.0 else SEMANTIC_SIGHTED
        elif channel == "bm25" and sight == 0.0 and ranked.get("semantic"):
            w *= SEMANTIC_SIGHTED
        elif channel == "graph" and ranking:
            w *= HOP_GAIN * min(1.0, ranking[0][1])  # as sure as its surest hop
        for rowid, rank in _competition_ranks(ranking):
            cand = found.get(rowid)
            if cand is None:
                trust, confidence = meta[rowid]
                cand = found[rowid] = Candidate(rowid, trust, confidence, {})
            cand.ranks[channel] = rank
            cand.score += w / (RRF_K + rank)
    for cand in found.values():
        cand.score *= (0.8 + 0.4 * cand.trust) * cand.confidence
    kept = [c for c in found.values() if c.score > 0]
    kept.sort(key=lambda c: (-c.score, -c.rowid))
    return kept
