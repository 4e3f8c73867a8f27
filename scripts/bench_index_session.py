"""How much indexing a chronica session costs as it grows, and what capture adds to a turn.

    .venv/bin/python scripts/bench_index_session.py [--sizes 1000,10000,50000]

For each size N: a SQLite session of N messages is indexed once, then one message is added
and ``index_session`` timed (median of 5 rounds), and ``index_session`` with nothing new.
Then ``ChronicaSession.add_items`` of one message is timed without and with ``memory=`` (the
added cost per append, median of 200). Prints one line per measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from chronica import ActorKind, Actum, ActumKind, Chronicarius
from chronica.integrations.openai_agents import ChronicaSession
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem

OWNER, SID = "ardian", "long-session"


def _message(i: int) -> Actum:
    text = f"turn {i}: the dinner plans for Friday, item {i * 7}"
    return Actum(chronicum_id=SID, kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                 actor=OWNER, content=text)  # fmt: skip


def index_after_one(folder: Path, n: int) -> tuple[float, float]:
    """Median seconds of index_session after one new turn, and with nothing new."""
    with SQLiteStore(folder / f"c{n}.db") as store, ChronoMem(folder / f"m{n}.db") as mem:
        c = Chronicarius(store)
        for start in range(0, n, 1000):
            c.record_acta(OWNER, [_message(i) for i in range(start, min(n, start + 1000))])
        mem.index_session(c, SID, owner=OWNER)
        one, none = [], []
        for k in range(5):
            c.record_actum(OWNER, _message(n + k))
            t = time.perf_counter()
            assert mem.index_session(c, SID, owner=OWNER) == 1
            one.append(time.perf_counter() - t)
            t = time.perf_counter()
            assert mem.index_session(c, SID, owner=OWNER) == 0
            none.append(time.perf_counter() - t)
    return statistics.median(one), statistics.median(none)


def append_cost(folder: Path, *, with_memory: bool, turns: int = 200) -> float:
    """Median seconds of one add_items of one message."""
    tag = "with" if with_memory else "without"
    with SQLiteStore(folder / f"a-{tag}.db") as store, ChronoMem(folder / f"am-{tag}.db") as mem:
        session = ChronicaSession(SID, owner=OWNER, store=store,
                                  memory=mem if with_memory else None)  # fmt: skip

        async def run() -> list[float]:
            times = []
            for i in range(turns):
                item: Any = {"role": "user", "content": f"turn {i} of the dinner talk"}
                t = time.perf_counter()
                await session.add_items([item])
                times.append(time.perf_counter() - t)
            return times

        return statistics.median(asyncio.run(run()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in sizes:
            one, none = index_after_one(folder, n)
            print(f"index_session at {n:>6} turns: {one * 1000:6.2f} ms after one new turn, "
                  f"{none * 1000:6.2f} ms with nothing new")  # fmt: skip
        bare = append_cost(folder, with_memory=False)
        captured = append_cost(folder, with_memory=True)
        added = (captured - bare) * 1000
        print(f"add_items of one message: {bare * 1000:.2f} ms without memory, "
              f"{captured * 1000:.2f} ms with memory= (+{added:.2f} ms)")  # fmt: skip


if __name__ == "__main__":
    main()
