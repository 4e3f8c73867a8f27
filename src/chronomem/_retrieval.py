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
from collections.abc import Mapping
from dataclasses import dataclass

from ._entities import query_keys
from ._errors import InvalidFactError
from ._tokens import query_words, terms

__all__ = ["CHANNELS", "DEFAULT_WEIGHTS", "Candidate", "View", "check_weights", "fuse"]

Meta = dict[int, tuple[float, float]]
CHANNELS = ("bm25", "jaccard", "entity", "graph")
DEFAULT_WEIGHTS: Mapping[str, float] = {"bm25": 1.0, "jaccard": 0.7, "entity": 1.0, "graph": 0.4}
RRF_K = 60
CHANNEL_DEPTH = 200
RARE_DF = 400
COMMON_DEPTH = 100
MAX_QUERY_WORDS = 12
MAX_QUERY_ENTITIES = 12
PER_ENTITY = 100
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


def _lexical(conn: sqlite3.Connection, query: str, view: View) -> tuple[list[int], list[int], Meta]:
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
    recent = [r for r in newest if r[0] not in seen]
    recent.sort(key=lambda r: (r[4], -r[0]))
    pool = rows + recent
    meta = {r[0]: (r[2], r[3]) for r in pool}
    qset = set(terms(query))
    overlap = []
    for rowid, fact_terms, _, _, _ in pool:
        fset = set(fact_terms.split())
        overlap.append((-len(qset & fset) / len(qset | fset), -rowid, rowid))
    overlap.sort()
    bm25 = [r[0] for r in pool[:CHANNEL_DEPTH]]
    return bm25, [o[2] for o in overlap[:CHANNEL_DEPTH]], meta


def resolve(conn: sqlite3.Connection, owner: str, query: str) -> list[int]:
    """Entity ids the query names: exact key, or word prefix ("thinkpad" -> "thinkpad t14")."""
    ids: list[int] = []
    for key in query_keys(query):
        # [key, key + "!") holds the key itself and every key extending it by a word.
        rows = conn.execute(
            """SELECT id FROM chronomem_entities WHERE owner = ? AND key >= ? AND key < ?
               ORDER BY length(key) LIMIT 4""",
            (owner, key, key + "!"),
        ).fetchall()
        ids.extend(r[0] for r in rows if r[0] not in ids)
    return ids[:MAX_QUERY_ENTITIES]


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
) -> list[int]:
    scores: dict[int, float] = defaultdict(float)
    for entity_id, weight in weighted.items():
        for rowid, trust, confidence in _facts_of(conn, entity_id, view, depth):
            scores[rowid] += weight
            meta[rowid] = (trust, confidence)
    ranked = sorted(scores, key=lambda r: (-scores[r], -r))
    return ranked[:CHANNEL_DEPTH]


def _neighbours(conn: sqlite3.Connection, entity_ids: list[int]) -> dict[int, float]:
    if not entity_ids:
        return {}
    marks = ",".join("?" * len(entity_ids))
    rows = conn.execute(
        f"""SELECT dst, sum(weight) AS w FROM chronomem_entity_links
            WHERE src IN ({marks}) AND dst NOT IN ({marks})
            GROUP BY dst ORDER BY w DESC, dst LIMIT ?""",
        (*entity_ids, *entity_ids, NEIGHBOURS),
    ).fetchall()
    return {r[0]: float(r[1]) for r in rows}


def channel_ranks(
    conn: sqlite3.Connection, query: str, view: View
) -> tuple[dict[str, list[int]], Meta]:
    """Each channel's ranked rowids, and (trust, confidence) of every candidate."""
    bm25, jaccard, meta = _lexical(conn, query, view)
    entity_ids = resolve(conn, view.owner, query)
    entity = _by_entities(conn, dict.fromkeys(entity_ids, 1.0), view, PER_ENTITY, meta)
    graph = _by_entities(conn, _neighbours(conn, entity_ids), view, PER_NEIGHBOUR, meta)
    return {"bm25": bm25, "jaccard": jaccard, "entity": entity, "graph": graph}, meta


def fuse(
    conn: sqlite3.Connection, query: str, view: View, weights: Mapping[str, float]
) -> list[Candidate]:
    """Candidates best first by weighted RRF; zero-weight-only ones dropped."""
    ranked, meta = channel_ranks(conn, query, view)
    found: dict[int, Candidate] = {}
    for channel, rowids in ranked.items():
        w = weights[channel]
        for rank, rowid in enumerate(rowids, start=1):
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
