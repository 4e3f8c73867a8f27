"""The lexical channel's candidates: one bounded pool from the index, scored by BM25 with the
priors of conversation (:mod:`.lexical`), with the Jaccard ranking and the items holding a
word of the question.

Scoring every posting of a very common word would make recall linear in the number of items,
so terms are split by the owner's document frequency (see :func:`lexical_ranks`); both the
pool's queries carry the view's filter, so a bound never hides a visible item behind an
invisible one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from chronomem.engine.dialect import Conn
from chronomem.engine.items import few_in_category, newest_valid
from chronomem.recall.entity_graph import CHANNEL_DEPTH, Meta, Ranking
from chronomem.recall.lexical import LexicalParams, PoolRow, score_pool
from chronomem.recall.query import Asked, speaker_key
from chronomem.recall.view import View
from chronomem.text.entities import extract_entities
from chronomem.text.lexicon import query_terms
from chronomem.text.tokens import terms as jaccard_terms

__all__ = [
    "COMMON_DEPTH",
    "RARE_DF",
    "at_its_time",
    "is_name",
    "lexical_ranks",
    "name_terms",
    "worded",
]

RARE_DF = 100
COMMON_DEPTH = 100


def lexical_ranks(
    conn: Conn,
    asked: Asked,
    view: View,
    params: LexicalParams,
    found: Sequence[int] = (),
    *,
    with_jaccard: bool = True,
    names: Collection[str] = (),
) -> tuple[Ranking, Ranking, Meta, frozenset[int] | None]:
    """The lexical ranking (both kinds, every pooled item holding a word of the question: the
    channel keeps its first CHANNEL_DEPTH), the Jaccard ranking (facts) and the items that
    hold a word of the question beyond its names (see :func:`worded`), from one bounded pool.

    Scoring every posting of a very common word would make recall linear in the number of
    items, so terms are split by the owner's document frequency: every item holding a rare
    term (at most RARE_DF each) joins the pool, a common term brings only the COMMON_DEPTH
    most recent items holding it. The items the other channels ``found`` (already filtered
    by the view) join too, so a fact about the entity a query names is scored on the query's
    words even when every word is common. Every candidate is then scored on all query terms
    by lexical.score_pool: the index only finds, it never ranks, so the ranking is the same
    on every engine. Both queries carry the view's filter, so the bound never hides a
    visible item behind an invisible one.
    """
    terms, dfs = asked.terms, asked.dfs
    if not terms and asked.q.span is None:
        return [], [], {}, None
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
        pool.append(PoolRow.of(rowid, speaker_key(speaker) if speaker else None, valid_from,
                               body, ctx1, ctx2))  # fmt: skip
    lexical = score_pool(asked.q, pool, dfs, asked.lengths(), params)
    words = worded(asked, pool, lexical, names)
    if not with_jaccard:
        return lexical, [], meta, words
    qset = set(jaccard_terms(asked.text))
    overlap = []
    for r in rows:
        if r.kind == "fact":
            fset = set(r.terms.split())
            overlap.append((r.rowid, len(qset & fset) / max(len(qset | fset), 1)))
    overlap.sort(key=lambda o: (-o[1], -o[0]))
    jaccard = [o for o in overlap if o[1] > 0][:CHANNEL_DEPTH]
    return lexical, jaccard, meta, words


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


def name_terms(asked: Asked, known: Collection[str], *, capitalised: bool = True) -> set[str]:
    """The index terms of the names a question says: the entities the memory knows that it
    names, the speakers it names and, with ``capitalised``, whatever reads as a name (a
    capitalised word: a month too)."""
    spoken = [*(extract_entities(asked.text) if capitalised else ()), *known, *asked.q.speakers]
    return set(query_terms(" ".join(spoken)))


def is_name(term: str, names: set[str]) -> bool:
    """Whether ``term`` is a name's, or two names joined ("kinarabook" for "Kinara booking",
    asked for as a split compound's joined form)."""
    if term in names:
        return True
    return any(term.startswith(n) and term[len(n) :] in names for n in names)


def worded(
    asked: Asked, pool: Sequence[PoolRow], lexical: Ranking, known: Collection[str]
) -> frozenset[int] | None:
    """The lexical channel's best items (CHANNEL_DEPTH) that hold, in their text or context,
    a word of the question beyond its names: evidence that they relate to what is asked, not
    only to whom. A question naming a date counts every item it found (by its words or by
    the date); ``None`` when the question's words are all names ("When was Jon in Paris?"):
    then every match counts.
    """
    if asked.q.span is not None:
        return frozenset(rowid for rowid, _ in lexical[:CHANNEL_DEPTH])
    # Names: what reads as one (capitalised), and the words of the entities the memory knows
    # that the question names (a question typed in lower case names them too).
    names = name_terms(asked, known)
    wanted = [f" {t} " for t in asked.terms if not is_name(t, names)]
    if not wanted:
        return None
    rows = {row.rowid: row for row in pool}
    found = set()
    for rowid, _ in lexical[:CHANNEL_DEPTH]:
        text = "".join(rows[rowid].fields)
        if any(t in text for t in wanted):
            found.add(rowid)
    return frozenset(found)
