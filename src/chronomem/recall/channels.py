"""Every channel's ranking for one recall: the lexical pool, the entity and graph channels and
the semantic channel, each reading through the view (who, which kinds, which time), each
bounded by an index, so a recall costs the same however much the owner remembers.

:mod:`.fusion` turns these rankings into one.
"""

from __future__ import annotations

from collections.abc import Mapping

from chronomem.engine.dialect import Conn
from chronomem.recall.entity_graph import (
    CHANNEL_DEPTH,
    HOP_MEANING_DEPTH,
    Meta,
    Ranking,
    hop_facts,
    named_and_hops,
    resolve,
    specific,
)
from chronomem.recall.lexical import LexicalParams
from chronomem.recall.lexical_pool import at_its_time, lexical_ranks
from chronomem.recall.query import Asked
from chronomem.recall.semantic.channel import meaning_terms, rank_by_meaning
from chronomem.recall.view import View

__all__ = ["MEANING_DEPTH", "MEANING_WORDS", "channel_ranks"]

MEANING_WORDS = 12
MEANING_DEPTH = 50


def channel_ranks(
    conn: Conn,
    query: str,
    view: View,
    params: LexicalParams,
    weights: Mapping[str, float],
) -> tuple[dict[str, Ranking], Meta, float]:
    """Each channel's ranked rowids, (trust, confidence) of every candidate, and how much of
    the question the lexical channel saw (see lexical_pool._sight)."""
    asked = Asked.read(conn, view.owner, query)
    view = at_its_time(conn, view)
    if "fact" not in view.kinds:
        lexical, _, meta, sight = lexical_ranks(conn, asked, view, params)
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
    lexical, jaccard, lexical_meta, sight = lexical_ranks(
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
    asked: Asked,
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
