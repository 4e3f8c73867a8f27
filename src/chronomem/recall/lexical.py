"""The lexical channel: BM25 over chronomem's own terms, plus the priors of conversation.

Scoring (all parameters measured on real conversations, see ``scripts/eval_locomo.py``):

* BM25F over three columns (the item, the turn before it at 1/2, the one before at 1/4), with
  ``k1 = 0.5`` and ``b = 0.1``: turns are short, so a repeated word or a long turn says little.
* Speaker: a query that names a speaker ("When did Caroline...") boosts that speaker's turns,
  and the name is not also matched as a word (in a conversation it is in half the turns).
* Time: a "when" question prefers turns that carry time words ("yesterday", "last week").
* Date: a query naming a date, month or year prefers items said (or valid from) in that span
  or up to two weeks after it (people tell of last week's news), or mentioning a day of it
  ("yesterday", resolved when the turn was written: see text/mentions.py). The newest such
  items join the pool by time, through an index, and are scored even when no word matches.

The priors are added in units of the query's mean IDF, so they weigh the same whether the
memory holds five hundred items or a million. Candidates come from a bounded pool (built in
:mod:`.lexical_pool`), so the cost of a query does not grow with the number of items.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from chronomem.recall.lexindex import FIELD_WEIGHTS
from chronomem.recall.neighbours import NEIGHBOUR_SHARE, REPLY_SHARE
from chronomem.text.entities import entity_key
from chronomem.text.lexicon import TIME_TERMS, query_terms
from chronomem.text.lexicon import term as word_term
from chronomem.text.timespan import DAY_US, named_span

__all__ = ["LexicalParams", "LexicalQuery", "PoolRow", "parse_query", "score_pool", "speaker_keys"]

_TIME = re.compile(" (?:" + "|".join(map(re.escape, sorted(TIME_TERMS))) + ") ")
_WHEN_OPENERS = ("when ", "how long ", "what time ", "what year ", "what date ", "what month ")


@dataclass(frozen=True)
class LexicalParams:
    """The lexical channel's knobs; the defaults are the measured ones."""

    k1: float = 0.5
    b: float = 0.1
    context: tuple[float, float] = (FIELD_WEIGHTS[1], FIELD_WEIGHTS[2])
    speaker: float = 3.0
    time_words: float = 1.0
    date: float = 2.0
    date_after_days: int = 14
    date_before_days: int = 1
    neighbours: float = NEIGHBOUR_SHARE
    """What a found turn lends each turn beside it (:mod:`chronomem.recall.neighbours`)."""
    replies: float = REPLY_SHARE
    """What a turn that asks lends another speaker's next turn, in place of ``neighbours``."""


@dataclass(frozen=True)
class LexicalQuery:
    """What a query asks for: its terms, the speakers it names and the time it points at."""

    terms: tuple[str, ...]
    speakers: frozenset[str]
    asks_when: bool
    span: tuple[int, int] | None


class PoolRow(NamedTuple):
    """One candidate as the pool query returns it: its stored terms per column, each padded
    with a space at both ends so that a term is counted by ``str.count(" term ")`` (in C). A
    tuple, not a dataclass: a recall builds one per pooled row (about 150), and a frozen
    dataclass's ``__init__`` took twice as long."""

    rowid: int
    speaker: str | None
    moment: int
    fields: tuple[str, str, str]
    sizes: tuple[int, int, int]

    @classmethod
    def of(cls, rowid: int, speaker: str | None, moment: int, *columns: str) -> PoolRow:
        """A row from the stored columns (terms joined by single spaces)."""
        body, ctx1, ctx2 = columns
        padded = (f" {body} ", f" {ctx1} ", f" {ctx2} ")
        # tuple.__new__: the NamedTuple's own __new__ is a Python call of its own.
        return _new_row(cls, (rowid, speaker, moment, padded,
                              (_size(body), _size(ctx1), _size(ctx2))))  # fmt: skip


_new_row = tuple.__new__


def _size(column: str) -> int:
    return column.count(" ") + 1 if column else 0


def _ngrams(words: Sequence[str], longest: int = 3) -> list[str]:
    return [
        " ".join(words[i : i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)
    ]


def speaker_keys(text: str) -> list[str]:
    """The keys a query could name a speaker by: its words' entity keys, and runs of up to
    three of them ("Melanie", "Caroline Smith"), at most 64."""
    words = [k for k in (entity_key(w) for w in text.split()) if k]
    return list(dict.fromkeys(_ngrams(words)))[:64]


def parse_query(text: str, speakers: frozenset[str]) -> LexicalQuery:
    """Split a query into terms and its time cues, given the ``speakers`` it names (those of
    :func:`speaker_keys` the owner's episodes have as speakers)."""
    named = {word_term(w) for key in speakers for w in key.split()}
    # The date's numbers (its year, its day) are left out as a speaker's name is: a turn
    # rarely says them, and the date prior and the items found by time (see the dialects'
    # pool) stand for them. Its month stays a word: "in June" is said, and is worth finding.
    span, date_words = named_span(text)
    named |= {t for t in query_terms(date_words) if t.isdigit()}
    terms = tuple(t for t in query_terms(text) if t not in named)
    lowered = " " + text.lower().lstrip()
    asks_when = any(lowered.startswith(" " + o) or f" {o}" in lowered for o in _WHEN_OPENERS)
    return LexicalQuery(terms, speakers, asks_when, span)


def _idf(df: int, n: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _term_counts(
    needles: Sequence[tuple[str, str]], row: PoolRow, w1: float, w2: float
) -> dict[str, float]:
    """The weighted count of each query term (``(term, " term ")``) the row holds, in any
    column. A fact has no context columns, so they are searched only when they hold terms
    (the same counts, for a third of the searches: this runs for every pooled row); a term
    is looked for once in the row's whole text before it is counted column by column (six
    times in ten a pooled row lacks a given term: one search instead of three)."""
    body, ctx1, ctx2 = row.fields
    counts: dict[str, float] = {}
    if row.sizes[1] or row.sizes[2]:
        whole = body + ctx1 + ctx2  # padded columns: a term never spans two
        for term, needle in needles:
            if needle in whole:
                n0, n1, n2 = body.count(needle), ctx1.count(needle), ctx2.count(needle)
                counts[term] = n0 + w1 * n1 + w2 * n2
    else:
        for term, needle in needles:
            if n := body.count(needle):
                counts[term] = float(n)
    return counts


def _date_prior(q: LexicalQuery, moment: int, p: LexicalParams) -> float:
    if q.span is None:
        return 0.0
    start, end = q.span
    if moment < start:
        days, window = (start - moment) / DAY_US, p.date_before_days
    else:
        days, window = max(0.0, (moment - end) / DAY_US), p.date_after_days
    return max(0.0, 1.0 - days / (window + 1))


def score_pool(
    q: LexicalQuery,
    rows: Sequence[PoolRow],
    dfs: dict[str, int],
    corpus: tuple[int, float],
    p: LexicalParams,
) -> list[tuple[int, float]]:
    """Candidates that match at least one query term, or fall in the span the query names
    (its words may all miss: "What was Jolene doing in June 2023?"), best first, with their
    scores."""
    n, total_length = corpus
    n = max(n, 1)
    avgdl = max(total_length / n, 1.0)
    idf = {t: _idf(dfs.get(t, 0), n) for t in q.terms}
    scale = sum(idf.values()) / (3.0 * len(idf)) if idf else 1.0
    needles = [(t, f" {t} ") for t in q.terms]
    w1, w2 = p.context
    dated = p.date > 0.0 and q.span is not None  # else every date prior is 0
    k1, b, k1_plus_1 = p.k1, p.b, p.k1 + 1.0
    scored: list[tuple[int, float]] = []
    # One pass, the names hoisted out of it: this runs for every pooled row (about 150 a
    # recall), and is the largest share of a recall's time in Python.
    for row in rows:
        counts = _term_counts(needles, row, w1, w2)
        date = _date_prior(q, row.moment, p) if dated else 0.0
        if not counts and date <= 0.0:
            continue
        n0, n1, n2 = row.sizes
        norm = k1 * (1.0 - b + b * (n0 + w1 * n1 + w2 * n2) / avgdl)
        base = 0.0
        for t, f in counts.items():
            base += idf[t] * f * k1_plus_1 / (f + norm)
        prior = 0.0
        if row.speaker is not None and row.speaker in q.speakers:
            prior += p.speaker
        if q.asks_when and _TIME.search(row.fields[0]):
            prior += p.time_words
        prior += p.date * date
        scored.append((row.rowid, base + scale * prior))
    scored.sort(key=lambda s: (-s[1], -s[0]))
    return scored
