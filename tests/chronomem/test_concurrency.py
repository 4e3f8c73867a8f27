"""Several threads and several processes on one file: nothing lost, never "database is locked"."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

from chronomem import ChronoMem

PER_WORKER = 40


def _worker(path: str, worker: int) -> None:
    # Each worker remembers facts and supersedes every other one, interleaving with the others.
    with ChronoMem(path) as mem:
        for i in range(PER_WORKER):
            fid = mem.remember(f"Worker{worker} counter C{worker}-{i} is {i}")
            if i % 2:
                mem.supersede(fid, f"Worker{worker} counter C{worker}-{i} is {i + 1}")


def _check(path: Path, workers: int) -> None:
    with ChronoMem(path) as mem:
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


def test_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "multi.db"
    ChronoMem(path).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_worker, args=(str(path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    _check(path, 3)


def test_threads_share_one_memory(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    errors: list[BaseException] = []

    def run(worker: int) -> None:
        try:
            _worker(str(path), worker)
        except BaseException as exc:  # collected: a thread's exception would otherwise vanish
            errors.append(exc)

    ChronoMem(path).close()
    threads = [threading.Thread(target=run, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _check(path, 4)


def test_one_instance_used_from_many_threads(tmp_path: Path) -> None:
    errors: list[BaseException] = []
    with ChronoMem(tmp_path / "one.db") as mem:

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
