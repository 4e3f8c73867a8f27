"""What PostgreSQL gives that one SQLite file cannot: many writers at once, on row locks.

* ``supersede`` raced from many processes on their own connections: exactly one wins, the
  others get :class:`FactNotActiveError`, and the chain stays linear.
* A writer killed with SIGKILL in the middle of its transactions, twenty times: every fact it
  was told about is there, and no supersede is half done.
* Sixteen processes (remembering, superseding, recalling) on one database for a minute: no
  error, no fact lost or stored twice, every chain linear, no recall returning an ended fact.

These run on the session's throwaway server (tests/conftest.py) and never skip.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from chronomem import ChronoMem, Fact, FactNotActiveError
from tests.chronomem.backends import MemoryTarget, dsn_url

SOAK_SECONDS = float(os.environ.get("CHRONOMEM_SOAK_SECONDS", "60"))
"""How long the sixteen processes run (the issue asks for 60 s; set lower for a quick look)."""

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def pg_target(pg_dsn: str, pg_schema: str) -> MemoryTarget:
    target = MemoryTarget("postgres", dsn_url(pg_dsn), pg_schema)
    target.open().close()  # the tables exist before the racers arrive
    return target


def _fact(mem: ChronoMem, fact_id: str) -> Fact:
    item = mem.get(fact_id)
    assert isinstance(item, Fact)
    return item


def _chain(mem: ChronoMem, root: str) -> list[Fact]:
    """The supersede chain from ``root``, oldest first; asserts it never forks or loops."""
    chain = [_fact(mem, root)]
    while (nxt := chain[-1].superseded_by) is not None:
        assert nxt not in {f.id for f in chain}, "a supersede chain loops"
        chain.append(_fact(mem, nxt))
    assert all(f.invalidated_at is not None for f in chain[:-1])
    assert chain[-1].invalidated_at is None, "the head of a chain must be active"
    return chain


def _assert_linear(mem: ChronoMem, subject: str) -> list[Fact]:
    """Every fact about ``subject`` forms one chain: one root, one active head."""
    facts = mem.timeline(subject)
    successors = [f.superseded_by for f in facts if f.superseded_by is not None]
    assert len(successors) == len(set(successors)), "two facts superseded by one: a fork"
    roots = [f for f in facts if f.id not in set(successors)]
    assert len(roots) == 1, f"{subject}: {len(roots)} chains, expected one"
    chain = _chain(mem, roots[0].id)
    assert len(chain) == len(facts)
    return chain


# -- supersede races ----------------------------------------------------------------------------


def _race(target: MemoryTarget, old: str, round_: int, racer: int, start: float, out: Any) -> None:
    with target.open() as mem:
        time.sleep(max(0.0, start - time.time()))
        try:
            # racer + 1: "is 0" is the old text, and a supersede to the same text is refused.
            new = mem.supersede(old, f"Ledger balance is {racer + 1}", entities=[f"L{round_}"])
            out.put((racer, new))
        except FactNotActiveError:
            out.put((racer, None))


def test_supersede_raced_by_many_processes_has_one_winner(pg_target: MemoryTarget) -> None:
    racers = 8
    ctx = multiprocessing.get_context("spawn")
    for round_ in range(3):
        with pg_target.open() as mem:
            old = mem.remember("Ledger balance is 0", entities=[f"L{round_}"])
        out = ctx.Queue()
        start = time.time() + 3.0  # every racer connected and waiting by then
        procs = [
            ctx.Process(target=_race, args=(pg_target, old, round_, r, start, out))
            for r in range(racers)
        ]
        for p in procs:
            p.start()
        results = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=60)
            assert p.exitcode == 0
        winners = [(r, fid) for r, fid in results if fid is not None]
        assert len(winners) == 1, f"round {round_}: winners {winners}"
        with pg_target.open() as mem:
            ended = _fact(mem, old)
            assert ended.superseded_by == winners[0][1]
            chain = _chain(mem, old)
            assert [f.id for f in chain] == [old, winners[0][1]]


# -- SIGKILL mid-transaction --------------------------------------------------------------------

_WRITER = """
import sys
from chronomem import ChronoMem
path, schema, round_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
with ChronoMem(path, schema=schema) as mem:
    head = mem.remember("Counter is 0", entities=[f"K{round_}"])
    print("fact", head, flush=True)
    n = 0
    while True:
        n += 1
        print("fact", mem.remember(f"Note N{round_}-{n} about the weather"), flush=True)
        head = mem.supersede(head, f"Counter is {n}", entities=[f"K{round_}"])
        print("head", head, flush=True)
"""


def test_writer_killed_mid_transaction_loses_nothing_acknowledged(
    pg_target: MemoryTarget,
) -> None:
    rng = random.Random(7)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    for round_ in range(20):
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, pg_target.path, str(pg_target.schema), str(round_)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline()  # connected and writing
        assert first.startswith("fact "), first
        time.sleep(rng.uniform(0.05, 0.4))
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=60)
        lines = [first, *rest.splitlines()]
        # A line cut short by the kill is not an acknowledgement: ids are 32 hex digits.
        whole = [line.split() for line in lines if len(line.split()) == 2]
        acknowledged = [fid for _, fid in whole if len(fid) == 32]
        heads = [fid for what, fid in whole if what == "head" and len(fid) == 32]
        with pg_target.open() as mem:
            for fid in acknowledged:
                assert mem.get(fid).id == fid
            chain = _assert_linear(mem, f"K{round_}")
            # The last acknowledged head is in the chain; at most one later supersede
            # committed without its acknowledgement reaching us.
            if heads:
                ids = [f.id for f in chain]
                assert heads[-1] in ids
                assert len(ids) - 1 - ids.index(heads[-1]) <= 1


# -- sixteen processes for a minute -------------------------------------------------------------


def _soak(target: MemoryTarget, role: str, worker: int, until: float, out: Any) -> None:
    report: dict[str, Any] = {"role": role, "worker": worker, "acked": [], "lost": 0, "errors": []}
    rng = random.Random(worker)
    try:
        with target.open() as mem:
            n = 0
            while time.time() < until:
                n += 1
                if role == "remember":
                    content = f"Writer W{worker} stored item I{worker}x{n} today"
                    report["acked"].append((content, mem.remember(content)))
                elif role == "supersede":
                    chain = rng.randrange(4)  # four shared chains, raced by four workers
                    heads = [f for f in mem.timeline(f"S{chain}") if f.invalidated_at is None]
                    try:
                        mem.supersede(
                            heads[0].id, f"Shared value is {worker}-{n}", entities=[f"S{chain}"]
                        )
                    except FactNotActiveError:
                        report["lost"] += 1  # another worker moved the head first: correct
                else:
                    for item in mem.recall(f"shared value S{rng.randrange(4)} item today"):
                        if item.invalidated_at is not None:
                            report["errors"].append(f"recall returned ended {item.id}")
    except Exception as e:  # reported, not raised: the parent asserts there were none
        report["errors"].append(repr(e))
    out.put(report)


@pytest.mark.alone  # sixteen busy processes on CI's two cores: nothing else runs beside it
def test_sixteen_processes_for_a_minute(pg_target: MemoryTarget) -> None:
    with pg_target.open() as mem:
        for chain in range(4):
            # One text per chain: the same text four times would be one fact (dedup).
            mem.remember(f"Shared value of S{chain} is at start", entities=[f"S{chain}"])
    roles = ["remember"] * 8 + ["supersede"] * 4 + ["recall"] * 4
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    until = time.time() + 5.0 + SOAK_SECONDS
    procs = [
        ctx.Process(target=_soak, args=(pg_target, role, w, until, out))
        for w, role in enumerate(roles)
    ]
    for p in procs:
        p.start()
    reports = [out.get(timeout=SOAK_SECONDS + 180) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert [e for r in reports for e in r["errors"]] == []
    acked = [pair for r in reports for pair in r["acked"]]
    assert len(acked) > 100, "the writers barely wrote: the soak proved nothing"
    with pg_target.open() as mem:
        exported = [r for r in mem.export_facts() if r["content"].startswith("Writer ")]
        assert sorted((r["content"], r["id"]) for r in exported) == sorted(acked)
        for chain in range(4):
            _assert_linear(mem, f"S{chain}")
        supersedes = sum(len(mem.timeline(f"S{c}")) - 1 for c in range(4))
    assert supersedes > 10, "the superseders barely ran"
