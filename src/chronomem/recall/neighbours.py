"""The turns beside a found turn: an answer split across turns still ranks.

In a conversation the words of a question and the turn that answers it are often apart. Ana:
"I started a new hobby." Ben: "Which one?" Ana: "Pottery, every Tuesday." "What new hobby did
Ana start?" finds the first turn; the third answers. The words find the turn that says them
(and the one after it, which indexes its previous turns' words); its neighbours in the
same conversation (up to NEIGHBOUR_REACH turns either side, by the episodes' order) share its
score at NEIGHBOUR_SHARE, summed over the found turns beside them, so a turn between two found
turns ranks above one beside a single one. Only the first NEIGHBOUR_SOURCES of the ranking
lend: a neighbour of the tenth turn found is already noise.

A turn that asks ("How long have you been painting?") lends the next turn, when another
speaker says it, REPLY_SHARE instead: a question's words are the asking turn's, its answer is
the reply's ("Seven years now."), and the reply indexes the asking turn's words only at half
weight, so it ranked just below the turn that asked.

Measured on the LoCoMo development set (scripts/eval_locomo.py, bench/locomo.md), episodes with
the static model: R@1 0.503 -> 0.513, R@10 0.847 -> 0.864, R@5 unchanged; a share of 0.2 or
of the first 30 turns lowered R@10 again. The reply's share then took R@1 0.517 -> 0.524 and
MRR@10 0.637 -> 0.644 (with MiniLM, R@1 0.529 -> 0.537, R@5 0.801 -> 0.804); 0.3 cost
open-domain R@10 0.022, 0.5 cost R@1 0.05, and lending the reply after it too lowered R@1.
Facts carry no conversation order and lend nothing.

One statement by the episodes' ``(owner, session, seq)`` index and the view's own filter, so a
neighbour the view hides (another kind, a forgotten turn, another time) is never lent a score,
nor is a purged turn's tombstone (which keeps its place in the session, and nothing said).
"""

from __future__ import annotations

from collections.abc import Collection

from chronomem.engine.dialect import Conn
from chronomem.recall.entity_graph import Meta, Ranking
from chronomem.recall.view import View

__all__ = [
    "NEIGHBOUR_REACH",
    "NEIGHBOUR_SHARE",
    "NEIGHBOUR_SOURCES",
    "REPLY_SHARE",
    "with_neighbours",
]

NEIGHBOUR_SHARE = 0.1
"""What a found turn lends each turn beside it, as a share of its own score (the default of
``LexicalParams.neighbours``)."""
NEIGHBOUR_REACH = 2
"""How many turns either side borrow: two reaches the same speaker's previous and next turn."""
NEIGHBOUR_SOURCES = 10
"""How many of the ranking's first turns lend."""
REPLY_SHARE = 0.2
"""What a turn that asks (a ``?`` in it) lends the next turn, another speaker's (the default of
``LexicalParams.replies``)."""


def with_neighbours(
    conn: Conn,
    view: View,
    ranking: Ranking,
    meta: Meta,
    related: Collection[int] | None = None,
    share: float = NEIGHBOUR_SHARE,
    reply_share: float = REPLY_SHARE,
) -> tuple[Ranking, Ranking]:
    """``ranking`` with each of its first turns' neighbours scored up by ``share`` (the reply
    to a turn that asks, by ``reply_share``; those not found yet joining it), best first, and
    the neighbours by what they were lent (the ``neighbour`` rank a result explains itself
    with); ``meta`` learns the newcomers' (trust, confidence).

    Only a turn in ``related`` lends (when given): one found by a name alone (the speaker a
    question names) says nothing of its neighbours, and lent to them, every turn of that
    speaker's would outrank an answer found by its meaning."""
    if "episode" not in view.kinds or not ranking or share <= 0:
        return ranking, []
    first = ranking[:NEIGHBOUR_SOURCES]
    lenders = {r: s for r, s in first if related is None or r in related}
    if not lenders:
        return ranking, []
    where, params = view.sql()
    among = ",".join("?" * len(lenders))
    # The lenders by their key, then each one's neighbours by the (owner, session, seq) index
    # (partial: only with its own ``kind = 'episode'``), never an index over every item. The
    # owner comes from the view's ``f.owner = ?`` alone: the lenders are the owner's already,
    # and ``f.owner = c.owner`` beside it would let SQLite walk all of the owner's turns for c.
    # Whether f replies to a question is decided here: the lender's text (up to 64 KB) stays in
    # the database.
    rows = conn.execute(
        f"""SELECT c.rowid, f.rowid, f.trust, f.confidence,
                   f.seq = c.seq + 1 AND c.content LIKE ?, c.speaker, f.speaker
            FROM chronomem_facts c CROSS JOIN chronomem_facts f
            WHERE c.rowid IN ({among}) AND c.kind = 'episode' AND f.kind = 'episode'
              AND f.session = c.session
              AND f.seq BETWEEN c.seq - ? AND c.seq + ? AND f.rowid <> c.rowid
              AND f.purged_at IS NULL AND {where}""",
        ["%?%", *lenders, NEIGHBOUR_REACH, NEIGHBOUR_REACH, *params],
    ).fetchall()
    scores = dict(ranking)
    lent: dict[int, float] = {}
    for lender, rowid, trust, confidence, after_a_question, asker, speaker in rows:
        its_share = reply_share if after_a_question and speaker != asker else share
        lent[rowid] = lent.get(rowid, 0.0) + its_share * lenders[lender]
        meta.setdefault(rowid, (float(trust), float(confidence)))
    for rowid, borrowed in lent.items():
        scores[rowid] = scores.get(rowid, 0.0) + borrowed
    return _best_first(scores), _best_first(lent)


def _best_first(scores: dict[int, float]) -> Ranking:
    return sorted(scores.items(), key=lambda pair: (-pair[1], -pair[0]))
