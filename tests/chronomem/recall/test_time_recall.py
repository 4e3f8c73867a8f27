"""Recall by time: a question naming a day, month or year reaches what was said then (or what
mentions it), even when no other word matches; the record shows what a turn's words mean; an
older memory gets its mentions on open; the cost stays flat; a question without a date is
answered as before. Both engines."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import date, datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest

from chronomem import ChronoMem, Episode
from chronomem.engine.postgres import schema as pg_schema
from chronomem.engine.sqlite import schema as sqlite_schema
from chronomem.engine.sqlite.dialect import SQLiteConnection
from chronomem.recall import channels, lexical, lexical_pool
from chronomem.write.upgrade import upgrade_data
from tests.chronomem.backends import MemoryTarget, count, rows


def at(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=timezone.utc)


JOLENE_JUNE = "I finally finished my yoga teacher training!"
CAROLINE = "Yesterday I went to an LGBTQ support group, it was so powerful."


def _conversation(mem: ChronoMem) -> None:
    mem.remember_episode("Hey Jolene, how are you?", speaker="Deborah", session="s1",
                         at=at(2023, 5, 2, 10))  # fmt: skip
    mem.remember_episode("I adopted a snake named Susie.", speaker="Jolene", session="s1",
                         at=at(2023, 5, 2, 10, 1))  # fmt: skip
    mem.remember_episode("That's wonderful! How was your week?", speaker="Deborah",
                         session="s2", at=at(2023, 6, 14, 18))  # fmt: skip
    mem.remember_episode(JOLENE_JUNE, speaker="Jolene", session="s2", at=at(2023, 6, 14, 18, 1))
    mem.remember_episode("We went camping by the lake.", speaker="Jolene", session="s3",
                         at=at(2023, 8, 20, 9))  # fmt: skip
    mem.remember_episode(CAROLINE, speaker="Caroline", session="s4", at=at(2023, 5, 8, 13, 56))


def test_a_question_naming_only_a_month_reaches_what_was_said_then(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open() as mem:
        _conversation(mem)
        found = [r.content for r in mem.recall("What was Jolene doing in June 2023?", limit=3)]
        assert JOLENE_JUNE in found
        # Only the June turns relate: no word of the question is in any turn (what its
        # meaning is near pads the rest unless the relevance floor is asked for).
        related = mem.recall("What was Jolene doing in June 2023?", limit=3, relevant_only=True)
        assert JOLENE_JUNE in [r.content for r in related]
        assert {r.content for r in related} <= {JOLENE_JUNE, "That's wonderful! How was your week?"}
        episodes = mem.recall("What was Jolene doing in June 2023?", kinds=("episode",))
        assert episodes[0].ranks.get("bm25") == 1 or episodes[1].ranks["bm25"] == 1
        [hers] = [e for e in episodes if e.ranks.get("bm25") == 1]
        assert hers.content == JOLENE_JUNE  # the lexical channel's speaker prior picks hers


def test_a_turn_saying_yesterday_is_found_by_the_day_it_means(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open() as mem:
        _conversation(mem)
        [hit] = mem.recall("What happened on 7 May 2023?", limit=1)
        assert hit.content == CAROLINE  # said on 8 May
        # Nothing was said then: the words and the date find nothing, and what the question's
        # meaning is near ("what happened") is no evidence (the relevance floor).
        assert mem.recall("What happened on 7 May 2024?", relevant_only=True) == []


def test_facts_are_found_by_their_valid_time(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        mem.remember("Noor started at Acme", valid_from=at(2022, 3, 1))
        mem.remember("Noor moved to Lisbon", valid_from=at(2023, 9, 1))
        found = mem.recall("What changed in March 2022?", kinds=("fact",))
        assert [r.content for r in found] == ["Noor started at Acme"]


def test_the_record_shows_the_times_a_turn_mentions(memory_target: MemoryTarget) -> None:
    with memory_target.open() as mem:
        eid = mem.remember_episode("Two weeks ago I ran a race, and last Friday another.",
                                   speaker="Jo", session="s", at=at(2023, 5, 12, 9))  # fmt: skip
        plain = mem.remember_episode("No dates here.", speaker="Jo", session="s")
        episode = mem.get(eid)
        assert isinstance(episode, Episode)  # its typed fields are attributes
        assert episode.mentions == (
            {"text": "Two weeks ago", "start": date(2023, 4, 24), "end": date(2023, 4, 30)},
            {"text": "last Friday", "start": date(2023, 5, 5), "end": date(2023, 5, 5)},
        )
        assert episode.to_dict()["mentions"] == [
            {"text": "Two weeks ago", "start": "2023-04-24", "end": "2023-04-30"},
            {"text": "last Friday", "start": "2023-05-05", "end": "2023-05-05"},
        ]
        assert mem.get(plain)["mentions"] == []
        [hit] = mem.recall("What did Jo do on 5 May 2023?", limit=1)
        assert hit.id == eid
        assert hit["mentions"] == episode["mentions"]
        # An export carries them; an import resolves them again from the text and its time.
        [record, _] = list(mem.export_facts())
        assert record["mentions"][1] == {"text": "last Friday", "start": "2023-05-05",
                                         "end": "2023-05-05"}  # fmt: skip
    with memory_target.sibling("copy").open() as copy:
        assert copy.import_facts([record]) == 1
        assert copy.get(eid)["mentions"] == episode["mentions"]


def _old_sqlite(path: str, episodes: Sequence[tuple[str, str, int, str]]) -> None:
    """A SQLite memory as the version before mentions left it, holding ``episodes``."""
    conn = sqlite3.connect(path, factory=SQLiteConnection)
    with conn:
        conn.execute("CREATE TABLE chronomem_schema (version INTEGER NOT NULL)")
        for step in sqlite_schema._MIGRATIONS[:6]:
            step(conn, upgrade_data)
        conn.execute("INSERT INTO chronomem_schema (version) VALUES (6)")
        conn.executemany(_OLD_EPISODE, episodes)
    conn.close()


def _old_postgres(target: MemoryTarget, episodes: Sequence[tuple[str, str, int, str]]) -> None:
    """A PostgreSQL memory as the version before mentions left it, holding ``episodes``."""
    with psycopg.connect(target.path, autocommit=True) as pg:
        pg.execute(f'CREATE SCHEMA "{target.schema}"')
        pg.execute(f'SET search_path TO "{target.schema}"')
        pg.execute("CREATE TABLE chronomem_schema (version integer NOT NULL)")
        for step in pg_schema._MIGRATIONS[:4]:
            for statement in step.split(";\n"):
                if statement.strip():
                    pg.execute(statement)
        pg.execute("INSERT INTO chronomem_schema (version) VALUES (4)")
        for episode in episodes:
            pg.execute(_OLD_EPISODE.replace("?", "%s"), episode)


_OLD_EPISODE = """INSERT INTO chronomem_facts (id, owner, content, trust, confidence, entities,
    terms, system_time, valid_from, kind, speaker, session, seq)
    VALUES (?, 'default', ?, 0.8, 1.0, '[]', '', 0, ?, 'episode', 'Jo', ?, 1)"""


def test_an_older_memory_gets_its_mentions_on_open(memory_target: MemoryTarget) -> None:
    said = int((at(2023, 5, 8) - at(1970, 1, 1)) / timedelta(microseconds=1))
    episodes = [("e1", "Yesterday we met.", said, "s1"), ("e2", "Nothing to date.", said, "s2")]
    if memory_target.schema is None:
        _old_sqlite(memory_target.path, episodes)
    else:
        _old_postgres(memory_target, episodes)
    with memory_target.open() as mem:
        assert mem.get("e1")["mentions"] == [
            {"text": "Yesterday", "start": "2023-05-07", "end": "2023-05-07"},
        ]
        assert mem.get("e2")["mentions"] == []
        day = said - 86_400 * 1_000_000  # e1 at the day it mentions, both at their own time
        indexed = rows(mem, "SELECT owner, at FROM chronomem_mentions ORDER BY at")
        assert indexed == [("default", day), ("default", said), ("default", said)]


def _pooled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many candidates each recall's lexical channel scores, recorded."""
    sizes: list[int] = []
    score = lexical.score_pool

    def counting(q: Any, pool: Any, *rest: Any) -> Any:
        sizes.append(len(pool))
        return score(q, pool, *rest)

    monkeypatch.setattr(lexical_pool, "score_pool", counting)
    return sizes


def test_a_date_only_question_stays_bounded_on_a_large_memory(
    memory_target: MemoryTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = _pooled(monkeypatch)
    with memory_target.open() as mem:
        with mem.batch():
            for i in range(600):
                day = at(2023, 6, 1) + timedelta(hours=i)  # 25 days of June, yesterday each
                mem.remember_episode(f"Yesterday I did chore number {i}.", speaker="Ann",
                                     session=f"s{i // 20}", at=day)  # fmt: skip
        assert count(mem, "chronomem_facts") == 600
        found = mem.recall("What did Ann do in June 2023?", limit=5)
        assert len(found) == 5
        assert all(f["at"].startswith("2023-06-") for f in found)
    # The newest of those said in June and of those mentioning a day of it, no more.
    assert sizes
    assert max(sizes) <= 2 * lexical_pool.COMMON_DEPTH


def test_a_question_without_a_date_is_answered_as_before(
    memory_target: MemoryTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    spans: list[object] = []
    with memory_target.open() as mem:
        _conversation(mem)
        original = lexical_pool.lexical_ranks

        def spying(conn: Any, asked: Any, *rest: Any, **options: Any) -> Any:
            spans.append(asked.q.span)
            return original(conn, asked, *rest, **options)

        monkeypatch.setattr(channels, "lexical_ranks", spying)
        before = [(r.id, r.score, r.ranks) for r in mem.recall("Where did Jolene go camping?")]
        _empty_time_index(mem)  # a dateless question cannot tell
        after = [(r.id, r.score, r.ranks) for r in mem.recall("Where did Jolene go camping?")]
        assert before
        assert before == after
        assert spans == [None, None]  # the pool is never asked for a span


def _empty_time_index(mem: ChronoMem) -> None:
    with mem._db.write() as conn:
        conn.execute("DELETE FROM chronomem_mentions")
