"""The recall channels and their fusion by weighted Reciprocal Rank Fusion.

Each channel pulls a bounded candidate set from an index (never a scan of all items), with the
view's owner/kind/category/temporal filter inside its own SQL, so a limit never hides a
visible item behind an invisible one:

* ``bm25``: chronomem's BM25 over its own stemmed terms, with the priors of conversation
  (speaker, session, time words, dates; see _lexical.py). It ranks facts and episodes.
* ``jaccard``: token-set overlap between the query and the facts in the lexical pool, which
  rewards facts covering the query's words rather than repeating rare ones.
* ``entity``: facts linked to an entity the query names, weighted by how specific the entity
  is: a name in a large share of the facts (a speaker's, in a conversation) says little.
* ``graph``: facts linked to entities one hop from the query's in the co-occurrence graph,
  scored by how surely the named entity leads there (multi-hop: "Alice" -> "Project Falcon"
  -> its database), among the facts that also speak to the question's other words or meaning.
  These two live in :mod:`.entities`.
* ``semantic``: the pooled candidates by meaning (:mod:`.semantic`); where the question's words
  found nothing they could rank, the items holding the words nearest its meaning join first.

Episodes are ranked by the lexical channel alone: they carry no entities and no claims.
RRF(d) = sum_c w_c / (k + rank_c(d)) * (0.8 + 0.4 * trust) * confidence, with k = 60; the
graph channel's w_c is scaled by its surest hop (see HOP_GAIN) and the semantic channel's by
what the words saw (see SEMANTIC_SIGHTED).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from chronomem._errors import InvalidArgumentError
from chronomem.engine.dialect import Conn
from chronomem.engine.items import few_in_category, newest_valid
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
from chronomem.recall.lexical import (
    LexicalParams,
    LexicalQuery,
    PoolRow,
    parse_query,
    score_pool,
    speaker_keys,
)
from chronomem.recall.semantic.channel import meaning_terms, rank_by_meaning
from chronomem.recall.view import View
from chronomem.text.entities import entity_key, extract_entities
from chronomem.text.lexicon import query_terms
from chronomem.text.tokens import terms as jaccard_terms

__all__ = ["CHANNELS", "CHANNEL_DEPTH", "DEFAULT_WEIGHTS", "Candidate", "check_weights", "fuse"]

CHANNELS = ("bm25", "jaccard", "entity", "graph", "semantic")
# Measured on LoCoMo (real conversations) and the graded set together (scripts/eval_locomo.py,
# tests/chronomem/test_graded.py): Jaccard at any weight >= 0.1 lowered LoCoMo's R@1 by 0.05
# or more and the graded set no longer needs it, so it is off unless a caller asks for it.
DEFAULT_WEIGHTS: Mapping[str, float] = {
    "bm25": 1.0,
    "jaccard": 0.0,
    "entity": 1.0,
    "graph": 1.0,
    "semantic": 1.0,
}
RRF_K = 60
# The semantic channel's share of its weight when the lexical channel saw any word of the
# question beyond its names (see _sight): a small share, enough to reorder items the words rank
# close together (RRF's gap between ranks r and r + 1 is about 1 / (60 + r)^2), too little to
# overturn what they rank far apart. Measured on the LoCoMo development set, where a static
# model's ranking alone (R@10 0.51) is far weaker than the words' (0.83): 0, 0.01 and 0.03
# measure alike (within 0.003 on every metric); a share of 1.0, or one growing with the words
# left unseen, lowered R@1 (0.52 -> 0.45 at 1.0).
SEMANTIC_SIGHTED = 0.03
SIGHT_DEPTH = 3
MEANING_WORDS = 12
MEANING_DEPTH = 50

RARE_DF = 100
COMMON_DEPTH = 100
MAX_QUERY_WORDS = 12


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


@lru_cache(maxsize=4096)
def _speaker_key(speaker: str) -> str:
    return entity_key(speaker)


@dataclass(frozen=True)
class _Asked:
    """A query as the channels read it, with the owner's statistics its scoring needs (one
    read of the counters per recall, shared by the lexical and entity channels)."""

    text: str
    q: LexicalQuery
    terms: list[str]
    dfs: dict[str, int]
    corpus: dict[str, tuple[int, float]]

    @classmethod
    def read(cls, conn: Conn, owner: str, text: str) -> _Asked:
        # The statistics of every term the query might keep are read with its speakers, in
        # one go; a name is then dropped from the terms (see _lexical.parse_query).
        wanted = query_terms(text)[: 2 * MAX_QUERY_WORDS]
        named, dfs, corpus = conn.dialect.query_statistics(conn, owner, speaker_keys(text), wanted)
        q = parse_query(text, named)
        terms = list(q.terms[:MAX_QUERY_WORDS])
        missing = [t for t in terms if t not in wanted]
        if missing:  # more than MAX_QUERY_WORDS of the first terms were a speaker's name
            dfs |= conn.dialect.query_statistics(conn, owner, [], missing)[1]
        return cls(text, q, terms, dfs, corpus)

    def items(self, *kinds: str) -> int:
        """How many items of ``kinds`` (all by default) the owner has indexed."""
        return sum(n for kind, (n, _) in self.corpus.items() if not kinds or kind in kinds)

    def lengths(self) -> tuple[int, float]:
        """All items and their total weighted length, for BM25."""
        return self.items(), sum(length for _, length in self.corpus.values())


def _lexical(
    conn: Conn,
    asked: _Asked,
    view: View,
    params: LexicalParams,
    found: Sequence[int] = (),
    *,
    with_jaccard: bool = True,
    names: Collection[str] = (),
) -> tuple[Ranking, Ranking, Meta, float]:
    """The lexical ranking (both kinds, every pooled item holding a word of the question: the
    channel keeps its first CHANNEL_DEPTH), the Jaccard ranking (facts) and the lexical sight
    (see _sight) from one bounded pool.

    Scoring every posting of a very common word would make recall linear in the number of
    items, so terms are split by the owner's document frequency: every item holding a rare
    term (at most RARE_DF each) joins the pool, a common term brings only the COMMON_DEPTH
    most recent items holding it. The items the other channels ``found`` (already filtered
    by the view) join too, so a fact about the entity a query names is scored on the query's
    words even when every word is common. Every candidate is then scored on all query terms
    by _lexical.score_pool: the index only finds, it never ranks, so the ranking is the same
    on every engine. Both queries carry the view's filter, so the bound never hides a
    visible item behind an invisible one.
    """
    terms, dfs = asked.terms, asked.dfs
    if not terms and asked.q.span is None:
        return [], [], {}, 0.0
    rare = [t for t in terms if 0 < dfs.get(t, 0) <= RARE_DF]
    common = [t for t in terms if dfs.get(t, 0) > RARE_DF]
    if (few := _few_visible(conn, view)) is not None:
        # Every item the view lets through is a candidate: no posting needs walking (a
        # common word's walk would otherwise pass every other category's items).
        found, rare, common = [*few, *found], [], []
    rows = conn.dialect.pool(
        conn, view.owner, (rare, common), found, view.sql(), COMMON_DEPTH, asked.q.span,
        view.ceiling,
    )  # fmt: skip
    meta: Meta = {}
    pool = []
    # Unpacked by name (as fast as by position): a pool holds hundreds of rows per recall.
    for rowid, speaker, valid_from, trust, confidence, _, _, body, ctx1, ctx2 in rows:
        meta[rowid] = (trust, confidence)
        pool.append(PoolRow.of(rowid, _speaker_key(speaker) if speaker else None, valid_from,
                               body, ctx1, ctx2))  # fmt: skip
    lexical = score_pool(asked.q, pool, dfs, asked.lengths(), params)
    sight = _sight(asked, pool, lexical, names)
    if not with_jaccard:
        return lexical, [], meta, sight
    qset = set(jaccard_terms(asked.text))
    overlap = []
    for r in rows:
        if r.kind == "fact":
            fset = set(r.terms.split())
            overlap.append((r.rowid, len(qset & fset) / max(len(qset | fset), 1)))
    overlap.sort(key=lambda o: (-o[1], -o[0]))
    jaccard = [o for o in overlap if o[1] > 0][:CHANNEL_DEPTH]
    return lexical, jaccard, meta, sight


def at_its_time(conn: Conn, view: View) -> View:
    """``view``, at a past valid time (``as_of``) or as believed at a past moment
    (``known_at``), with the ``ceiling`` its walks of common words start from: the newest of
    the items most recently in the time index by the earlier of the two.

    Walked from the newest item of all, a common word's postings pass every item written
    since, none of them visible, so such a recall grew with everything remembered after its
    time (as_of: 27 ms at 80,000 episodes against 3.7 ms at 10,000, the default view taking
    2 ms at both; known_at alone: 35 ms against 6.8 ms). An item believed by ``known_at``
    was recorded by then, and the time index holds it at the time it was said or became
    valid, which for what is recorded as it happens is when it was recorded: the items most
    recently in the index by then are the last ones recorded before it."""
    times = [t for t in (view.as_of, view.known_at) if t is not None]
    if not times:
        return view
    newest = newest_valid(conn, view.sql(), view.owner, min(times), 2 * COMMON_DEPTH)
    return dataclasses.replace(view, ceiling=newest)


def _few_visible(conn: Conn, view: View) -> list[int] | None:
    """Every item a view of one small category lets through (at most COMMON_DEPTH), or
    ``None``. A filter that narrow would make the bounded walk of a common word's postings
    pass every other item on its way (recall growing with the owner's data); the category's
    index names its items in as many probes. Only the view of now, as believed now: the
    index holds the facts active now."""
    if view.category is None or not view.active_only:
        return None
    if view.as_of is not None or view.known_at is not None:
        return None
    return few_in_category(conn, view.sql(), view.category, COMMON_DEPTH)


def _sight(
    asked: _Asked, pool: Sequence[PoolRow], lexical: Ranking, known: Collection[str]
) -> float:
    """How much of what the question asks the lexical channel saw: the largest share of the
    question's words, names left out, that one of its SIGHT_DEPTH best items (or its context)
    holds.

    1.0 when a top item holds every such word (or the question's words are all names, which
    the lexical and entity channels match), 0.0 when none holds any, or nothing was found:
    then the words cannot tell the candidates apart ("Who pays Noor's salary?" against
    Noor's six facts), and the semantic channel, which can, is given its full weight (see
    fuse).
    """
    if not lexical:
        return 0.0
    # Names: what reads as one (capitalised), and the words of the entities the memory knows
    # that the question names (a question typed in lower case names them too).
    names = set(query_terms(" ".join([*extract_entities(asked.text), *known])))
    wanted = [f" {t} " for t in asked.terms if t not in names]
    if not wanted:  # only names ("When was Jon in Paris?"): the words are the question
        return 1.0
    # An item's context (the turns before it) counts: a question's words often sit there.
    # Only the top items are read, so only theirs are joined (a pool holds hundreds).
    rows = {row.rowid: row for row in pool}
    best = 0
    for rowid, _ in lexical[:SIGHT_DEPTH]:
        text = "".join(rows[rowid].fields)
        best = max(best, sum(1 for t in wanted if t in text))
    return best / len(wanted)


def channel_ranks(
    conn: Conn,
    query: str,
    view: View,
    params: LexicalParams,
    weights: Mapping[str, float] = DEFAULT_WEIGHTS,
) -> tuple[dict[str, Ranking], Meta, float]:
    """Each channel's ranked rowids, (trust, confidence) of every candidate, and how much of
    the question the lexical channel saw (see _sight)."""
    asked = _Asked.read(conn, view.owner, query)
    view = at_its_time(conn, view)
    if "fact" not in view.kinds:
        lexical, _, meta, sight = _lexical(conn, asked, view, params)
        bm25 = lexical[:CHANNEL_DEPTH]
        semantic = _semantic(conn, asked, view, meta, weights, sight)
        return {"bm25": bm25, "semantic": semantic}, meta, sight
    meta = {}
    facts = asked.items("fact")
    resolved, name_words = resolve(conn, view.owner, query)
    named = specific(conn, facts, resolved)
    entity, neighbours = named_and_hops(conn, named, view, meta)
    # Facts naming a query entity are the entity channel's; graph ranks only the hop beyond.
    direct = {rowid for rowid, _ in entity}
    hops = hop_facts(conn, facts, neighbours, view, meta)
    lexical, jaccard, lexical_meta, sight = _lexical(
        conn,
        asked,
        view,
        params,
        [*direct, *meta],
        with_jaccard=weights.get("jaccard", 0.0) > 0,
        names=name_words,
    )
    meta.update(lexical_meta)
    semantic = _semantic(conn, asked, view, meta, weights, sight)
    # A hop is evidence only for a fact that also speaks to the question's other words or
    # meaning: the project Alice runs *runs on* a database; her city's other residents do not.
    bm25 = lexical[:CHANNEL_DEPTH]
    speaks = {rowid for rowid, _ in lexical}  # any of its words, however common
    speaks.update(rowid for rowid, _ in semantic[:HOP_MEANING_DEPTH])
    graph = [(rowid, s) for rowid, s in hops if rowid not in direct and rowid in speaks]
    return (
        {
            "bm25": bm25,
            "jaccard": jaccard,
            "entity": entity,
            "graph": graph,
            "semantic": semantic,
        },
        meta,
        sight,
    )


def _semantic(
    conn: Conn,
    asked: _Asked,
    view: View,
    pooled: Meta,
    weights: Mapping[str, float],
    sight: float,
) -> Ranking:
    """The pooled candidates ranked by meaning (none when the channel is weighted 0).

    When the question's words found nothing they could rank (``sight`` 0), the items holding
    the words nearest to what it means join the pool first (each such word's MEANING_DEPTH
    newest, through the view, from the same index), so that an item sharing no word with the
    question can still be found: recall stays silent only when nothing relates.
    """
    if weights.get("semantic", 0.0) <= 0:
        return []
    if sight == 0.0:
        terms = meaning_terms(asked.text, MEANING_WORDS)
        rows = conn.dialect.pool(
            conn, view.owner, ([], terms), (), view.sql(), MEANING_DEPTH, None, view.ceiling
        )
        for row in rows:
            pooled.setdefault(row.rowid, (row.trust, row.confidence))
    return rank_by_meaning(conn, asked.text, pooled, CHANNEL_DEPTH)


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
