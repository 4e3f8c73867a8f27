"""The four recall channels and their fusion by weighted Reciprocal Rank Fusion.

Each channel pulls a bounded candidate set from an index (never a scan of all facts), with the
temporal/owner/category filter inside its own SQL, so a limit never hides a valid fact behind
an invalid one:

* ``bm25``: FTS5 (porter stemming) over the quoted content words of the query, OR-ed.
* ``jaccard``: token-set overlap between the query and the FTS5 candidates (a wider pool than
  bm25's), which rewards facts covering the query's words rather than repeating rare ones.
* ``entity``: facts linked to an entity the query names (exact key or word prefix).
* ``graph``: facts linked to entities one hop from the query's in the co-occurrence graph,
  scored by the link weights (multi-hop: "Alice" -> "Project Falcon" -> its database).

RRF(d) = sum_c w_c / (k + rank_c(d)) * (0.8 + 0.4 * trust) * confidence, with k = 60.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ._entities import query_keys
from ._errors import InvalidFactError
from ._tokens import query_words, terms

__all__ = ["CHANNELS", "DEFAULT_WEIGHTS", "Candidate", "View", "check_weights", "fuse"]

Meta = dict[int, tuple[float, float]]
Ranking = list[tuple[int, float]]  # (rowid, channel score), best first
CHANNELS = ("bm25", "jaccard", "entity", "graph")
# Chosen by tests/chronomem/graded_data.py tune() on the development split (seed 1): the
# plateau of perfect dev recall@3; graph below 1 so one-hop facts rank after direct ones.
DEFAULT_WEIGHTS: Mapping[str, float] = {"bm25": 1.0, "jaccard": 1.0, "entity": 1.0, "graph": 0.6}
RRF_K = 60
CHANNEL_DEPTH = 100
RARE_DF = 400
COMMON_DEPTH = 60
MAX_QUERY_WORDS = 12
MAX_QUERY_ENTITIES = 12
PER_ENTITY = 60
NEIGHBOURS = 8
PER_NEIGHBOUR = 25


def check_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """Defaults overridden by ``weights``; unknown channels or bad numbers are refused."""
    merged = dict(DEFAULT_WEIGHTS)
    if weights is None:
        return merged
    if not isinstance(weights, Mapping):
        raise InvalidFactError("weights", "must be a mapping of channel name to number")
    for name, value in weights.items():
        if name not in CHANNELS:
            raise InvalidFactError("weights", f"unknown channel {name!r}; use {CHANNELS}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidFactError("weights", f"{name} must be a number")
        if math.isnan(value) or value < 0 or math.isinf(value):
            raise InvalidFactError("weights", f"{name} must be finite and >= 0")
        merged[name] = float(value)
    return merged


@dataclass(frozen=True)
class View:
    """Which facts are visible: owner, category and the bi-temporal coordinates."""

    owner: str
    category: str | None = None
    active_only: bool = True
    as_of: int | None = None
    known_at: int | None = None

    def sql(self) -> tuple[str, list[object]]:
        """A WHERE fragment over alias ``f`` and its parameters."""
        clauses: list[str] = ["f.owner = ?"]
        params: list[object] = [self.owner]
        if self.category is not None:
            clauses.append("f.category = ?")
            params.append(self.category)
        s, t = self.known_at, self.as_of
        if s is None and t is None:
            clauses.append("f.invalidated_at IS NULL" if self.active_only else "f.forgotten = 0")
            return " AND ".join(clauses), params
        if s is None:
            clauses.append("f.forgotten = 0")
            open_end, open_params = "f.valid_until IS NULL", list[object]()
        else:
            # Believed at S: recorded by S and not retracted by S; a supersede recorded after S
            # had not yet closed the validity interval, so it counts as open.
            clauses.append("f.system_time <= ? AND NOT (f.forgotten = 1 AND f.invalidated_at <= ?)")
            params += [s, s]
            open_end, open_params = "(f.valid_until IS NULL OR f.invalidated_at > ?)", [s]
        if t is None:
            clauses.append(open_end)
            params += open_params
        else:
            clauses.append(f"f.valid_from <= ? AND ({open_end} OR f.valid_until > ?)")
            params += [t, *open_params, t]
        return " AND ".join(clauses), params


@dataclass
class Candidate:
    """A fact found by at least one channel, with its per-channel ranks."""

    rowid: int
    trust: float
    confidence: float
    ranks: dict[str, int]
    score: float = 0.0


def _quoted(word: str) -> str:
    # Every token is quoted (inner quotes doubled), so user text is always data, never syntax.
    return '"' + word.replace('"', '""') + '"'


def _split_by_frequency(conn: sqlite3.Connection, words: list[str]) -> tuple[list[str], list[str]]:
    """Rare and common query words; a word's document count is probed only up to RARE_DF + 1."""
    rare: list[str] = []
    common: list[str] = []
    for word in words:
        (df,) = conn.execute(
            "SELECT count(*) FROM (SELECT rowid FROM chronomem_fts WHERE chronomem_fts MATCH ?"
            " LIMIT ?)",
            (_quoted(word), RARE_DF + 1),
        ).fetchone()
        if df:
            (rare if df <= RARE_DF else common).append(word)
    return rare, common


def _fts_rows(
    conn: sqlite3.Connection, words: list[str], view: View, order: str, depth: int
) -> list[tuple[int, str, float, float, float]]:
    if not words:
        return []
    where, params = view.sql()
    return conn.execute(
        f"""SELECT f.rowid, f.terms, f.trust, f.confidence, bm25(chronomem_fts)
            FROM chronomem_fts JOIN chronomem_facts f ON f.rowid = chronomem_fts.rowid
            WHERE chronomem_fts MATCH ? AND {where} ORDER BY {order} LIMIT ?""",
        (" OR ".join(_quoted(w) for w in words), *params, depth),
    ).fetchall()


def _lexical(conn: sqlite3.Connection, query: str, view: View) -> tuple[Ranking, Ranking, Meta]:
    """bm25 and Jaccard rankings from bounded FTS5 candidate sets.

    Scoring every posting of a very common word would make recall linear in the number of
    facts, so words are split by document frequency: rare words (at most RARE_DF facts) are
    ranked by FTS5's bm25 over all their postings; common words contribute only their most
    recent COMMON_DEPTH matching facts (FTS5 walks postings in rowid order and stops). Both
    queries carry the temporal filter, so the bound never hides a valid fact behind an
    invalid one.
    """
    words = list(dict.fromkeys(query_words(query)))[:MAX_QUERY_WORDS]
    rare, common = _split_by_frequency(conn, words)
    rows = _fts_rows(conn, rare, view, "bm25(chronomem_fts), f.rowid DESC", CHANNEL_DEPTH)
    seen = {r[0] for r in rows}
    newest = _fts_rows(conn, common, view, "chronomem_fts.rowid DESC", COMMON_DEPTH)
    pool = rows + [r for r in newest if r[0] not in seen]
    meta = {r[0]: (r[2], r[3]) for r in pool}
    # A rare-word match also earns the common words it contains, at their (lower bound) idf, as
    # FTS5's bm25 would for a document of average length: rare + common beats rare alone.
    (n_docs,) = conn.execute("SELECT coalesce(max(rowid), 1) FROM chronomem_facts").fetchone()
    idf = math.log(max((n_docs - RARE_DF + 0.5) / (RARE_DF + 1.5), 1.000001))
    common_stems = {t for w in common for t in terms(w)}
    scored = [
        (r[0], -r[4] + (idf * len(common_stems & set(r[1].split())) if r[0] in seen else 0.0))
        for r in pool
    ]
    scored.sort(key=lambda x: (-x[1], -x[0]))
    qset = set(terms(query))
    overlap = []
    for rowid, fact_terms, _, _, _ in pool:
        fset = set(fact_terms.split())
        overlap.append((rowid, len(qset & fset) / len(qset | fset)))
    overlap.sort(key=lambda o: (-o[1], -o[0]))
    return scored[:CHANNEL_DEPTH], overlap[:CHANNEL_DEPTH], meta


def resolve(conn: sqlite3.Connection, owner: str, query: str) -> dict[int, float]:
    """Entity ids the query names, weighted by how surely it names them.

    Exact keys count at their query weight; a named entity with no exact match (``ThinkPad``)
    expands to keys extending it by words (``thinkpad t14``) at half weight; words an exact
    match already covers are not looked up again.
    """
    found: dict[int, float] = {}
    covered: set[str] = set()
    for key, weight in query_keys(query):
        if set(key.split()) <= covered:
            continue
        # [key, key + "!") holds the key itself and every key extending it by a word.
        rows = conn.execute(
            """SELECT id, key FROM chronomem_entities WHERE owner = ? AND key >= ? AND key < ?
               ORDER BY length(key) LIMIT 4""",
            (owner, key, key + "!"),
        ).fetchall()
        if rows and rows[0][1] == key:
            found[rows[0][0]] = max(found.get(rows[0][0], 0.0), weight)
            covered.update(key.split())
            continue
        if weight < 1.0:
            continue  # a plain word ("project") names an entity exactly or not at all
        for entity_id, _ in rows:
            found[entity_id] = max(found.get(entity_id, 0.0), weight / 2)
        if len(found) >= MAX_QUERY_ENTITIES:
            break
    return found


def _facts_of(
    conn: sqlite3.Connection, entity_id: int, view: View, depth: int
) -> list[tuple[int, float, float]]:
    where, params = view.sql()
    return conn.execute(
        f"""SELECT f.rowid, f.trust, f.confidence FROM chronomem_fact_entities fe
            JOIN chronomem_facts f ON f.rowid = fe.fact_rowid
            WHERE fe.entity_id = ? AND {where} ORDER BY fe.fact_rowid DESC LIMIT ?""",
        (entity_id, *params, depth),
    ).fetchall()


def _by_entities(
    conn: sqlite3.Connection, weighted: Mapping[int, float], view: View, depth: int, meta: Meta
) -> Ranking:
    scores: dict[int, float] = defaultdict(float)
    for entity_id, weight in weighted.items():
        for rowid, trust, confidence in _facts_of(conn, entity_id, view, depth):
            scores[rowid] += weight
            meta[rowid] = (trust, confidence)
    ranked = sorted(scores, key=lambda r: (-scores[r], -r))
    return [(r, scores[r]) for r in ranked[:CHANNEL_DEPTH]]


def _neighbours(conn: sqlite3.Connection, named: Mapping[int, float]) -> dict[int, float]:
    """Entities one hop from the query's, weighted by link weight times the query weight."""
    if not named:
        return {}
    ids = list(named)
    marks = ",".join("?" * len(ids))
    # Per source, its strongest links by index: a hub entity with thousands of neighbours
    # costs no more than one with five.
    per_source = " UNION ALL ".join(
        f"""SELECT * FROM (SELECT src, dst, weight FROM chronomem_entity_links
            WHERE src = ? AND dst NOT IN ({marks}) ORDER BY weight DESC LIMIT {NEIGHBOURS})"""
        for _ in ids
    )
    rows = conn.execute(per_source, [x for src in ids for x in (src, *ids)]).fetchall()
    hops: dict[int, float] = defaultdict(float)
    for src, dst, weight in rows:
        hops[dst] += weight * named[src]
    best = sorted(hops, key=lambda e: (-hops[e], e))[:NEIGHBOURS]
    return {e: hops[e] for e in best}


def channel_ranks(
    conn: sqlite3.Connection, query: str, view: View
) -> tuple[dict[str, Ranking], Meta]:
    """Each channel's ranked rowids, and (trust, confidence) of every candidate."""
    bm25, jaccard, meta = _lexical(conn, query, view)
    named = resolve(conn, view.owner, query)
    entity = _by_entities(conn, named, view, PER_ENTITY, meta)
    # Facts naming a query entity are the entity channel's; graph ranks only the hop beyond.
    direct = {rowid for rowid, _ in entity}
    hops = _by_entities(conn, _neighbours(conn, named), view, PER_NEIGHBOUR, meta)
    graph = [(rowid, s) for rowid, s in hops if rowid not in direct]
    return {"bm25": bm25, "jaccard": jaccard, "entity": entity, "graph": graph}, meta


def _competition_ranks(ranking: Ranking) -> Iterator[tuple[int, int]]:
    """1-based ranks where equal scores share a rank ("1224"): a channel that cannot tell two
    facts apart must not pretend to, or its arbitrary order would outvote the others."""
    rank, previous = 0, None
    for position, (rowid, channel_score) in enumerate(ranking, start=1):
        if channel_score != previous:
            rank, previous = position, channel_score
        yield rowid, rank


def fuse(
    conn: sqlite3.Connection, query: str, view: View, weights: Mapping[str, float]
) -> list[Candidate]:
    """Candidates best first by weighted RRF; zero-weight-only ones dropped."""
    ranked, meta = channel_ranks(conn, query, view)
    found: dict[int, Candidate] = {}
    for channel, ranking in ranked.items():
        w = weights[channel]
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
