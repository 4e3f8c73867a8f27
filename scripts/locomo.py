"""LoCoMo for recall: load conversations, store them through the public API, score rankings.

LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0) is read from a path and never copied into this
repository. A question's answer is marked by evidence turns (``"D1:3"`` = session 1, turn 3);
a hit at k is any evidence turn among the first k results (turn-level recall, as in the
retrieval issue). Category 5 (adversarial, no evidence) is left out. Malformed evidence
(``"D8:6; D9:17"``, ``"D:11:26"``, ids of turns that do not exist) is split on ``;`` and spaces
and ids not in the conversation are dropped; questions left without evidence are not counted.
"""

from __future__ import annotations

import json
import re
import sqlite3
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from chronomem import ChronoMem

__all__ = [
    "DEFAULT_PATH",
    "Conversation",
    "Question",
    "Scores",
    "Turn",
    "fts5_ranker",
    "load",
    "remember_episodes",
    "remember_facts",
    "score",
]

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PATH = REPO.parent / "shared" / "data" / "locomo-dev" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
K = (1, 5, 10)


@dataclass(frozen=True)
class Turn:
    """One dialog turn: its id (``D1:3``), speaker, text (with any image caption) and date."""

    id: str
    speaker: str
    text: str
    session: str
    at: datetime


@dataclass(frozen=True)
class Question:
    """A question, its category and the ids of the turns that hold its answer."""

    text: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo conversation: its turns in order and its answerable questions."""

    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def _session_time(text: str) -> datetime:
    # "1:56 pm on 8 May, 2023"
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def _turns(conv: dict[str, Any]) -> list[Turn]:
    turns: list[Turn] = []
    n = 1
    while f"session_{n}" in conv:
        at = _session_time(conv[f"session_{n}_date_time"])
        for t in conv[f"session_{n}"]:
            text = t["text"]
            if t.get("blip_caption"):
                text = f"{text} [image: {t['blip_caption']}]"
            turns.append(Turn(t["dia_id"], t["speaker"], text, f"session_{n}", at))
        n += 1
    return turns


def _evidence(raw: Iterable[str], known: set[str]) -> frozenset[str]:
    ids = {part for e in raw for part in re.split(r"[;\s]+", e) if part}
    return frozenset(ids & known)


def load(path: Path | str = DEFAULT_PATH, *, limit: int | None = None) -> list[Conversation]:
    """The conversations in ``path`` (the first ``limit`` of them, if given)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out: list[Conversation] = []
    for item in data[:limit]:
        turns = _turns(item["conversation"])
        known = {t.id for t in turns}
        questions = []
        for qa in item["qa"]:
            evidence = _evidence(qa.get("evidence", []), known)
            if qa.get("category") in CATEGORIES and evidence:
                questions.append(Question(qa["question"], qa["category"], evidence))
        out.append(Conversation(item["sample_id"], tuple(turns), tuple(questions)))
    return out


def remember_episodes(mem: ChronoMem, conv: Conversation) -> dict[str, str]:
    """Store every turn as an episode; returns episode id -> turn id."""
    return {
        mem.remember_episode(t.text, speaker=t.speaker, session=t.session, at=t.at): t.id
        for t in conv.turns
    }


def remember_facts(mem: ChronoMem, conv: Conversation) -> dict[str, str]:
    """Store every turn as a fact ``"Speaker: text"`` (the issue's baseline); id -> turn id."""
    return {
        str(mem.remember(f"{t.speaker}: {t.text}", category="dialog", valid_from=t.at)): t.id
        for t in conv.turns
    }


Ranker = Callable[[str], Sequence[str]]  # question -> turn ids, best first


@dataclass
class Scores:
    """Recall at 1/5/10 and MRR@10, overall and per category, plus recall latency."""

    hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(K, 0))
    reciprocal: float = 0.0
    count: int = 0
    by_category: dict[int, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    latencies: list[float] = field(default_factory=list)

    def add(self, question: Question, ranked: Sequence[str], seconds: float) -> None:
        """Score one ranking."""
        self.count += 1
        self.latencies.append(seconds)
        first = next((i for i, t in enumerate(ranked[:10]) if t in question.evidence), None)
        for k in K:
            self.hits[k] += first is not None and first < k
        if first is not None:
            self.reciprocal += 1.0 / (first + 1)
        self.by_category[question.category][0] += 1
        self.by_category[question.category][1] += first is not None

    def summary(self) -> dict[str, float]:
        """R@1, R@5, R@10 and MRR@10, rounded to three places."""
        n = max(self.count, 1)
        out = {f"R@{k}": round(self.hits[k] / n, 3) for k in K}
        out["MRR@10"] = round(self.reciprocal / n, 3)
        return out

    def per_category(self) -> dict[str, float]:
        """R@10 per question category."""
        return {
            CATEGORIES[c]: round(hit / total, 3)
            for c, (total, hit) in sorted(self.by_category.items())
        }

    def latency_ms(self) -> dict[str, float]:
        """p50 and p95 recall latency in milliseconds."""
        ms = sorted(x * 1000 for x in self.latencies) or [0.0]
        return {
            "p50": round(statistics.median(ms), 2),
            "p95": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 2),
        }


def score(conversations: Sequence[Conversation], build: Callable[[Conversation], Ranker]) -> Scores:
    """Score a ranker built per conversation on every question of every conversation."""
    scores = Scores()
    for conv in conversations:
        rank = build(conv)
        for q in conv.questions:
            start = time.perf_counter()
            ranked = rank(q.text)
            scores.add(q, ranked, time.perf_counter() - start)
    return scores


def fts5_ranker(conv: Conversation) -> Ranker:
    """Plain SQLite FTS5 BM25 (unicode61) over ``"Speaker: text"``, every query word OR-ed."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, text, tokenize='unicode61')")
    db.executemany(
        "INSERT INTO t VALUES (?, ?)", [(t.id, f"{t.speaker}: {t.text}") for t in conv.turns]
    )

    def rank(question: str) -> list[str]:
        words = re.findall(r"\w+", question)
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = db.execute(
            "SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", (match,)
        ).fetchall()
        return [r[0] for r in rows]

    return rank
