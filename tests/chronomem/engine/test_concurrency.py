"""Several threads and several processes on one database: nothing lost, never "database is
locked" (on a SQLite file and on PostgreSQL)."""

from __future__ import annotations

import multiprocessing
import threading

from tests.chronomem.backends import MemoryTarget

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


def test_threads_share_one_database(memory_target: MemoryTarget) -> None:
    errors: list[BaseException] = []

    def run(worker: int) -> None:
        try:
            _worker(memory_target.args(), worker)
        except BaseException as exc:  # collected: a thread's exception would otherwise vanish
            errors.append(exc)

    memory_target.open().close()
    threads = [threading.Thread(target=run, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _check(memory_target, 4)


def test_one_instance_used_from_many_threads(memory_target: MemoryTarget) -> None:
    errors: list[BaseException] = []
    with memory_target.open() as mem:

        def run(worker: int) -> None:
            try:
                for i in range(25):
                    fid = mem.remember(f"Thread{worker} item T{worker}-{i} is ready")
                    mem.recall(f"Thread{worker} item")
                    if i % 5 == 0:
                        mem.forget(fid)
            except BaseException as exc:  # collected: see above
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        stats = mem.stats()
        assert stats["facts"] == 100
        assert stats["forgotten"] == 20
