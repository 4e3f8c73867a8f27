"""Several threads and several processes on one database: nothing lost, never "database is
locked" (on a SQLite file and on PostgreSQL)."""

from __future__ import annotations

import multiprocessing
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from chronomem.engine.dialect import distinct_terms
from chronomem.integrations._langgraph_records import entities_of
from tests.chronomem.backends import MemoryTarget, document_frequencies, rows

PER_WORKER = 40


def _worker(args: list[str], worker: int) -> None:
    # Each worker remembers facts and supersedes every other one, interleaving with the others.
    with MemoryTarget.from_args(args).open() as mem:
        for i in range(PER_WORKER):
            fid = mem.remember(f"Worker{worker} counter C{worker}-{i} is {i}")
            if i % 2:
                mem.supersede(fid, f"Worker{worker} counter C{worker}-{i} is {i + 1}")


def _check(target: MemoryTarget, workers: int) -> None:
    with target.open() as mem:
        stats = mem.stats()
        assert stats["facts"] == workers * (PER_WORKER + PER_WORKER // 2)
        assert stats["superseded"] == workers * (PER_WORKER // 2)
        assert stats["active"] == workers * PER_WORKER
        for w in range(workers):
            history = mem.timeline(f"C{w}-1")
            assert [f.content for f in history] == [
                f"Worker{w} counter C{w}-1 is 1",
                f"Worker{w} counter C{w}-1 is 2",
            ]
        assert mem.contradictions() == []


def test_processes_share_one_database(memory_target: MemoryTarget) -> None:
    memory_target.open().close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(memory_target.args(), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    _check(memory_target, 3)


def _in_threads(
    tasks: Sequence[tuple[Callable[..., None], tuple[Any, ...]]], errors: list[BaseException]
) -> None:
    """Run each ``(task, args)`` in a thread of its own and wait for them all; a task's
    exception goes to ``errors`` (in its thread it would vanish), where the others can see it."""

    def run(task: Callable[..., None], args: tuple[Any, ...]) -> None:
        try:
            task(*args)
        except BaseException as exc:  # collected: see above
            errors.append(exc)

    threads = [threading.Thread(target=run, args=task) for task in tasks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_threads_share_one_database(memory_target: MemoryTarget) -> None:
    errors: list[BaseException] = []
    memory_target.open().close()
    _in_threads([(_worker, (memory_target.args(), w)) for w in range(4)], errors)
    assert errors == []
    _check(memory_target, 4)


def test_one_instance_used_from_many_threads(memory_target: MemoryTarget) -> None:
    errors: list[BaseException] = []
    with memory_target.open() as mem:

        def run(worker: int) -> None:
            for i in range(25):
                fid = mem.remember(f"Thread{worker} item T{worker}-{i} is ready")
                mem.recall(f"Thread{worker} item")
                if i % 5 == 0:
                    mem.forget(fid)

        _in_threads([(run, (w,)) for w in range(4)], errors)
        assert errors == []
        stats = mem.stats()
        assert stats["facts"] == 100
        assert stats["forgotten"] == 20


_SPACE = ("users", "ana", "memories")
_WORDS = [
    "oat",
    "milk",
    "aisle",
    "seats",
    "lyon",
    "renault",
    "badminton",
    "friday",
    "capybara",
    "quentin",
    "tea",
]


def _lex_frequencies(mem: Any) -> dict[tuple[str, str], int]:
    """Each owner's document frequency per term as the live index rows say it should be."""
    dfs: Counter[tuple[str, str]] = Counter()
    for owner, body, ctx1, ctx2 in rows(
        mem, "SELECT f.owner, l.body, l.ctx1, l.ctx2 FROM chronomem_lex l "
             "JOIN chronomem_facts f ON f.rowid = l.rowid"
    ):  # fmt: skip
        dfs.update((owner, t) for t in distinct_terms([body, ctx1, ctx2]))
    return dict(dfs)


def test_erasures_race_writes_without_deadlock(memory_target: MemoryTarget) -> None:
    """Agents append turns, remember facts and put keyed values while items are purged
    and forgotten and sessions purged, on one memory: every call succeeds (on PostgreSQL,
    each transaction takes the session's lock, then the term counters in term order, then
    the corpus counters; taken in another order, an append deadlocked with purge_session
    dozens of times in 20 s, a forget with a purge in the same session, the server's
    remember function with a purge, and a keyed put with a purge), and the counters end as
    the live index rows say."""
    errors: list[BaseException] = []
    ids: list[str] = []
    begun: set[str] = set()
    lock = threading.Lock()
    rounds = 60
    with memory_target.open() as mem:

        def append(worker: int) -> None:
            for i in range(rounds):
                text = " ".join(_WORDS[(i + k + worker) % len(_WORDS)] for k in range(6))
                session = f"s{worker}-{i // 20}" if i % 2 else f"shared-{i % 3}"
                said = mem.remember_episode(f"{text} {i}", speaker="Ana", session=session)
                with lock:
                    begun.add(session)
                    if not session.startswith("s0-"):  # those go by purge_session
                        ids.append(said)

        def keyed_put(key: str, text: str, *, later: bool) -> str:
            entities = entities_of(_SPACE, key, text)
            put = mem.keyed.put(_SPACE, key, {"text": text}, content=text, category="notes",
                                entities=entities, index_later=later)  # fmt: skip
            assert put is not None
            return put.fact_id

        def remember(worker: int) -> None:
            for i in range(rounds):
                text = " ".join(_WORDS[(i * 5 + k + worker) % len(_WORDS)] for k in range(5))
                fact = mem.remember(f"Fact {worker}-{i}: {text}", dedup=False)
                for key in (f"k{i % 7}", f"once-{worker}-{i}"):  # put again, and once
                    put = keyed_put(key, text, later=bool(i % 2))
                with lock:
                    ids.append(fact)
                    if i % 3 == 0:  # a value put once is the key's current one: erasable
                        ids.append(put)

        def erase(worker: int) -> None:
            rnd = random.Random(worker)
            for _ in range(rounds // 2):
                with lock:
                    victim = ids.pop(rnd.randrange(len(ids))) if len(ids) > 4 else None
                if victim is None:
                    time.sleep(0.002)
                    continue
                (mem.purge if rnd.random() < 0.5 else mem.forget)(victim)

        def purge_sessions(worker: int) -> None:
            for j in range(rounds // 20 - 1):
                while f"s{worker}-{j + 1}" not in begun:  # then this session is whole
                    if errors:
                        return  # an append failed: its session never begins
                    time.sleep(0.002)
                mem.purge_session(f"s{worker}-{j}")

        tasks = [append, append, remember, erase, erase, purge_sessions]
        workers = [0, 1, 0, 0, 1, 0]
        _in_threads([(task, (w,)) for task, w in zip(tasks, workers, strict=True)], errors)
        assert errors == []
        assert document_frequencies(mem) == _lex_frequencies(mem)
