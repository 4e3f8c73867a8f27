"""Every channel's ranking for one recall: the lexical pool, the entity and graph channels and
the semantic channel, each reading through the view (who, which kinds, which time), each
bounded by an index, so a recall costs the same however much the owner remembers.

:mod:`.fusion` turns these rankings into one.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from chronomem.engine.dialect import Conn
from chronomem.recall.entity_graph import (
    CHANNEL_DEPTH,
    HOP_GAIN,
    HOP_MEANING_DEPTH,
    Meta,
    Ranking,
    hop_facts,
    named_and_hops,
    resolve,
    specific,
)
from chronomem.recall.lexical import LexicalParams
from chronomem.recall.lexical_pool import at_its_time, is_name, lexical_ranks, name_terms
from chronomem.recall.neighbours import with_neighbours
from chronomem.recall.query import Asked
from chronomem.recall.semantic.model import cosines as cosines_of
from chronomem.recall.semantic.nearest import NearestIndex
from chronomem.recall.semantic.spaces import VectorSpace
from chronomem.recall.semantic.vectors import read_vectors
from chronomem.recall.view import View
from chronomem.text.entities import entity_key

# minilm-l6-q8 is MiniLM's int8 graph: its vectors are the fp32 model's at a cosine of 0.994 on
# average, 0.965 at worst (on a LoCoMo conversation, bench/encoder.md), so it takes minilm-l6's
# constants; with the unknown space's defaults instead, LoCoMo facts R@10 0.779 -> 0.775.

__all__ = [
    "MEANING_WEIGHT",
    "NEAREST_DEPTH",
    "RELATED_COSINE",
    "Meaning",
    "Ranked",
    "channel_ranks",
]

SILENT_HOP_SHARE = 0.5
"""What a hop is worth to a fact that shares no word or meaning with the question."""

NEAREST_DEPTH = 50
"""How many of the owner's nearest items the meaning channel brings (before the view)."""

NEAREST_COSINE: Mapping[str, float] = {"static": 0.25, "minilm-l6": 0.2, "minilm-l6-q8": 0.2}
"""Per vector space, the cosine below which a nearest item is noise, not meaning, and brings
no candidate (static: on the LoCoMo development set the best turn for a question scores 0.60 to
0.77, 10th to 90th percentile; a question about nothing stored stays unanswered)."""

CHANCE_COSINE: Mapping[str, float] = {"static": 0.4, "minilm-l6": 0.1, "minilm-l6-q8": 0.1}
"""Per vector space, the cosine of a question with an unrelated item, about (the median of
random pairs on the LoCoMo development set: static 0.53, MiniLM 0.09): only what is nearer
than chance counts as meaning."""

_BELOW_CHANCE_SHARE = 0.05

MEANING_WEIGHT: Mapping[str, float] = {"static": 1.0, "minilm-l6": 0.7, "minilm-l6-q8": 0.7}
"""Per vector space, what a cosine of 1.0 is worth beside the best lexical score (1.0): the
words and the meaning are one ranking, ``bm25 / best bm25 + weight * cosine`` (measured on the
LoCoMo development set, see docs/semantic.md: RRF of the two ranks lowered R@1 by 0.05 or more
at every weight, since a rank of meaning outvotes close lexical scores; the sum does not)."""


@dataclass(frozen=True)
class Meaning:
    """What a recall searches by meaning with: the memory's vector space and its index."""

    space: VectorSpace | None
    index: NearestIndex


@dataclass
class Ranked:
    """Every channel's ranking for one recall, and the candidates' (trust, confidence)."""

    channels: dict[str, Ranking]
    meta: Meta
    text: Ranking
    """The words and the meaning as one ranking (see MEANING_WEIGHT): what RRF fuses with the
    entity, graph and Jaccard channels."""
    related: frozenset[int] | None = None
    """The candidates with evidence beyond a shared name (a word of the question, a meaning
    near it, a link from what it names); ``None``: every candidate (the question is names or
    a date alone). What ``recall(relevant_only=True)`` keeps."""
    hop_share: float = 1.0
    """The graph channel's share of its weight: below 1 for a question of names alone, whose
    neighbourhood follows the named entity's own facts rather than outranking them."""


def channel_ranks(
    conn: Conn,
    query: str,
    view: View,
    params: LexicalParams,
    weights: Mapping[str, float],
    meaning: Meaning,
) -> Ranked:
    """Each channel's ranked rowids and the words-and-meaning ranking, through the view."""
    asked = Asked.read(conn, view.owner, query)
    view = at_its_time(conn, view)
    if "fact" not in view.kinds:
        question, nearest = _nearest(conn, asked, view, weights, meaning, ())
        lexical, _, meta, words = lexical_ranks(conn, asked, view, params, [r for r, _ in nearest])
        semantic = _visible(conn, view.owner, meaning, question, nearest, meta, lexical)
        channels = {"bm25": lexical[:CHANNEL_DEPTH], "semantic": semantic}
        related = _related(words, semantic, [], meaning)
        text = _text(lexical, semantic, weights, meaning, words)
        text, channels["neighbour"] = with_neighbours(
            conn, view, text, meta, related, params.neighbours, params.replies
        )
        return Ranked(channels, meta, text, related)
    meta = {}
    facts = asked.items("fact")
    resolved, name_words = resolve(conn, view.owner, query)
    question, nearest = _nearest(conn, asked, view, weights, meaning, name_words)
    named = specific(conn, facts, resolved)
    entity, neighbours = named_and_hops(conn, named, view, meta)
    # Facts naming a query entity are the entity channel's; graph ranks only the hop beyond.
    direct = {rowid for rowid, _ in entity}
    hops = hop_facts(conn, facts, neighbours, view, meta)
    lexical, jaccard, lexical_meta, words = lexical_ranks(
        conn,
        asked,
        view,
        params,
        [*direct, *meta, *(r for r, _ in nearest)],
        with_jaccard=weights.get("jaccard", 0.0) > 0,
        names=name_words,
    )
    meta.update(lexical_meta)
    semantic = _visible(conn, view.owner, meaning, question, nearest, lexical_meta, lexical)
    # A hop is sure evidence for a fact that also speaks to the question's other words or
    # meaning (the project Alice runs *runs on* a database; her city's other residents do not),
    # and a weaker one for the rest of the neighbourhood ("Kestrel team manager city" reaches
    # the manager's office, which shares no word with it). A question of names alone ("Kestrel
    # team") asks for the neighbourhood itself.
    speaks = {rowid for rowid, _ in lexical}  # any of its words, however common
    speaks.update(rowid for rowid, _ in semantic[:HOP_MEANING_DEPTH])
    names = name_terms(asked, name_words, capitalised=False)
    only_names = not [t for t in asked.terms if not is_name(t, names)]
    graph = sorted(
        (
            (rowid, s if only_names or rowid in speaks else s * SILENT_HOP_SHARE)
            for rowid, s in hops
            if rowid not in direct
        ),
        key=lambda pair: (-pair[1], -pair[0]),
    )
    channels = {
        "bm25": lexical[:CHANNEL_DEPTH],
        "jaccard": jaccard,
        "entity": entity,
        "graph": graph,
        "semantic": semantic,
    }
    share = 1.0 / HOP_GAIN if only_names else 1.0
    related = None if only_names else _related(words, semantic, graph, meaning)
    text = _text(lexical, semantic, weights, meaning, words)
    text, channels["neighbour"] = with_neighbours(
        conn, view, text, meta, related, params.neighbours, params.replies
    )
    return Ranked(channels, meta, text, related, share)


RELATED_COSINE: Mapping[str, float] = {"static": 0.7, "minilm-l6": 0.45, "minilm-l6-q8": 0.45}
"""Per vector space, the cosine above which an item relates to a question by meaning alone
(for ``relevant_only``). On the LoCoMo development set a random turn's cosine with a question
is above 0.65 one time in ten with the static model (an evidence turn's, above 0.72), so its
floor sits above that; MiniLM's random pairs stay below 0.3."""


def _related(
    words: frozenset[int] | None, semantic: Ranking, graph: Ranking, meaning: Meaning
) -> frozenset[int] | None:
    if words is None:
        return None
    floor = RELATED_COSINE.get(meaning.space.name, 1.0) if meaning.space else 1.0
    near = {rowid for rowid, cosine in semantic if cosine >= floor}
    return words | near | {rowid for rowid, _ in graph}


def without_names(text: str, speakers: Collection[str], names: Collection[str]) -> str:
    """``text`` without the speakers and entities it names: what it asks about them. The
    words channel and the entity channel match the names; left in, a name weighs on a
    sentence's vector as much as what is asked (every fact about Kavya is near "What is the
    budget of the project Kavya works on?"). Measured on the LoCoMo development set with the
    encoder: R@10 0.849 -> 0.861 (docs/semantic.md). A question of names alone keeps them."""
    known = {w for key in speakers for w in key.split()}
    known |= {k for k in (entity_key(n) for n in names) if k}
    kept = [w for w in text.split() if entity_key(_bare(w)) not in known]
    return " ".join(kept) if kept else text


def _bare(word: str) -> str:
    word = word.strip('.,;:!?"()[]')
    return word[:-2] if word.lower().endswith(("'s", "\u2019s")) else word


def _nearest(
    conn: Conn,
    asked: Asked,
    view: View,
    weights: Mapping[str, float],
    meaning: Meaning,
    names: Collection[str],
) -> tuple[Any, Ranking]:
    """The question's unit vector (its meaning beyond the names it says, see
    :func:`without_names`) and the owner's NEAREST_DEPTH items nearest it that the view lets
    through; ``(None, [])`` when the channel is off."""
    space = meaning.space
    if space is None or weights.get("semantic", 0.0) <= 0:
        return None, []
    question = space.unit(without_names(asked.text, asked.q.speakers, names))
    if question is None:
        return None, []
    floor = NEAREST_COSINE.get(space.name, 0.0)
    found = meaning.index.search(conn, view.owner, space, question, NEAREST_DEPTH)
    nearest = [(rowid, c) for rowid, c in found if c >= floor]
    if not nearest:
        return question, []
    # The index holds every state of the owner's items: the view decides which count (the
    # pool takes found items as already seen through it).
    seen = conn.dialect.visible(conn, [rowid for rowid, _ in nearest], view.sql())
    return question, [(rowid, c) for rowid, c in nearest if rowid in seen]


def _visible(
    conn: Conn,
    owner: str,
    meaning: Meaning,
    question: Any,
    nearest: Ranking,
    pooled: Meta,
    lexical: Ranking,
) -> Ranking:
    """The semantic ranking: the nearest items the view let into the pool, and the lexical
    channel's best items too (each scored by its own stored vector: from the process's copy,
    which the search just caught up, or else from the table), by cosine."""
    if question is None or meaning.space is None:
        return []
    cosines = {rowid: c for rowid, c in nearest if rowid in pooled}
    missing = [rowid for rowid, _ in lexical[:CHANNEL_DEPTH] if rowid not in cosines]
    if missing:
        cosines.update(meaning.index.cosines(owner, meaning.space, question, missing))
        missing = [rowid for rowid in missing if rowid not in cosines]
    if missing:
        items, blobs = read_vectors(conn, missing)
        fitting = [(i, b) for i, b in zip(items, blobs, strict=True) if len(b) == len(question)]
        scores = cosines_of(question, [b for _, b in fitting]).tolist()
        cosines.update(zip((i for i, _ in fitting), scores, strict=True))
    ranked = sorted(cosines.items(), key=lambda pair: (-pair[1], -pair[0]))
    # The nearest are cut at CHANNEL_DEPTH, the words' best never: cut, a person's facts the
    # words found by the name alone would lose their cosine to other people's nearer ones,
    # and with it the only thing that tells them apart (see _text).
    best = {rowid for rowid, _ in lexical[:CHANNEL_DEPTH]}
    return [pair for i, pair in enumerate(ranked) if i < CHANNEL_DEPTH or pair[0] in best]


def _text(
    lexical: Ranking,
    semantic: Ranking,
    weights: Mapping[str, float],
    meaning: Meaning,
    worded: frozenset[int] | None = None,
) -> Ranking:
    """The words and the meaning as one ranking: each candidate's lexical score over the
    best one's, plus MEANING_WEIGHT times its cosine above chance, each part scaled by its
    channel's weight. Beside a word of the question, a cosine below chance counts nothing;
    for a candidate found by a name alone (not in ``worded``) it counts whole, so meaning
    orders a person's facts ("Which beverage should I bring Tess for breakfast?": her tea
    above her beagle). Measured: the graded paraphrase tier's hit@1 0.375 -> 0.825, LoCoMo
    development episodes R@10 0.864 -> 0.866, facts unchanged (bench/results.md, 3;
    bench/locomo.md)."""
    words = weights.get("bm25", 0.0)
    space = meaning.space
    sense = weights.get("semantic", 0.0) * (MEANING_WEIGHT.get(space.name, 0.3) if space else 0.0)
    scores: dict[int, float] = {}
    best = lexical[0][1] if lexical else 0.0
    if words > 0 and best > 0:
        # Every scored item of the pool (bounded by the index's walks), not only the first
        # CHANNEL_DEPTH: a caller asking for more (a store's search under a narrow prefix)
        # gets the words' whole ranking.
        for rowid, score in lexical:
            scores[rowid] = words * score / best
    if sense > 0:
        chance = CHANCE_COSINE.get(space.name, 0.0) if space else 0.0
        # Where the words found nothing, meaning alone orders the nearest, near chance or not
        # (a small share below it); beside the words, only what is nearer than chance counts.
        share = _BELOW_CHANCE_SHARE if not scores else 0.0
        for rowid, cosine in semantic:
            if worded is not None and rowid in scores and rowid not in worded:
                # Found by a name alone: the words cannot tell the person's facts apart
                # (their scores differ by length), so meaning does, below chance too.
                above = cosine - chance
            else:
                above = max(cosine - chance, 0.0) + share * max(cosine, 0.0)
            scores[rowid] = scores.get(rowid, 0.0) + sense * above
    ranked = sorted(scores.items(), key=lambda pair: (-pair[1], -pair[0]))
    return [pair for pair in ranked if pair[1] > 0]
