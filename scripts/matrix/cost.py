"""Matrix 6: what recall and writes cost at 10k and 1M stored items, facts and episodes.

For each size a fresh worker process (``python -m scripts.matrix.cost '<json spec>'``) opens
two files side by side, one of facts and one of episodes (conversation turns from
:mod:`.talk`), and times ``recall(limit=10)`` on them in alternation, so the machine's drift
hits both alike; then serial ``remember_episode`` calls and, in a pass of their own,
``remember`` calls, each its own transaction, alternating between two connections on each
file: one at ``synchronous=NORMAL`` (an acknowledged write survives a killed process) and one
at ``FULL`` (it survives power loss), each connection's setting read back from SQLite, never
assumed. Large files are built in big transactions (``ChronoMem.batch`` and
``remember_episodes``; not timed) and cached by a hash of the write path, as matrix 1's are.

Every copy is a new file, flushed to disk (``fsync``) before anything is timed. A fresh
830 MB copy stays dirty page cache for up to 30 s, and the first checkpoint of that file (its
first ``fsync`` of the database, at either setting) paid for writing back what was still
unwritten: 134-239 ms in one call against 8-24 ms for a later checkpoint, while the
writeback in flight slowed every other call. Which setting caught more of it was timing:
each NORMAL copy was a new file, but each FULL copy overwrote the previous run's, which ext4
writes back as soon as it is closed (a file truncated to empty and rewritten). Measured at
1,000,000 episodes with the FULL file overwritten so, the NORMAL file's first checkpoint
took 214 ms and the FULL file's 16 ms: the NORMAL slower than FULL of earlier runs (845-929/s
against 874-1,024/s). One 500-call pass with the copies flushed first ran at 1,853/s NORMAL
and 1,289/s FULL, against 1,228/s and 924/s without (a rate is calls over their summed time,
so the checkpoints count in it).

After the serial writes, the floor under a ``remember_episode`` (:mod:`._episode_floor`):
the statements of a few hundred more calls recorded and replayed raw on the episode files,
each part and the WAL pages of each commit measured, so the report can say whether the
goal is out of reach for the SQL the design needs, or for our Python around it.

Figures at this scale move between runs on a shared machine (recall p50 at 10,000 facts was
1.48 ms in one run and 2.90 ms in another), so every size runs several times in fresh
processes, each on a quiet machine if one comes (:mod:`.quiet`); a row reports the median of
the runs with the lowest and highest, and a goal is met only when every run meets it.

Over MCP stdio at one size, ``chronomem serve`` answers ``chronomem_recall`` in alternation
with a trivial ``echo`` tool on the same SDK (:mod:`.trivial_server`), both driven by one
client in one run: the ratio is what recall costs beyond the SDK's own per-call overhead; its
spread is the ratio in each of four consecutive stretches of the run.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from chronomem import ChronoMem
from chronomem import Turn as Said
from chronomem.recall.semantic import lists

from ._episode_floor import floor as episode_floor
from ._episode_floor import over_runs as floor_over_runs
from .data import scaling_queries, synthetic_facts
from .durability import SETTINGS, chronomem_setting
from .hardware import REPO
from .quiet import guarded, spread
from .stats import percentiles
from .talk import Turn, conversation_queries, turns
from .worker import write_path_digest

__all__ = ["GOALS", "run_cost"]

GOALS: dict[str, Any] = {
    "recall_p50_ms": {"10000": 1.5, "1000000": 5.0},  # issue 9, section 5
    # issue 23: serial remember_episode at 1,000,000, each setting with its own floor
    "remember_episode_per_s": {"NORMAL": 2_000.0, "FULL": 1_000.0},
    "mcp_recall_vs_trivial": 1.5,  # issue 22, item 5
    "mcp_size": 10_000,
}
_OWNER = "bench"
_WARM_WRITES = 10
"""Untimed writes at each setting before the timed ones: the first write of a process loads
what writing needs (hundreds of milliseconds once)."""
_FLOOR_CALLS = 300
"""Calls replayed for the floor under ``remember_episode``: a third each with every part,
without the document-frequency journal, without the FTS5 row; about a second in all."""
_FLOOR_WHOLE = 100
"""Whole calls timed after the replay, in its conditions (the episode files alone)."""
_BATCH = 20_000
KINDS = ("facts", "episodes")
_QS = ("p50", "p95", "p99", "mean")
_BLOCKS = 4  # stretches of the MCP run whose ratios give its spread


def _fill_key(kind: str, size: int, seed: int) -> str:
    """Names a filled file by what decides its bytes: kind, size, seed and the write path."""
    return f"cost-{kind}-{size}-{seed}-{write_path_digest()}.db"


def _insert_facts(mem: ChronoMem, size: int, seed: int) -> None:
    facts = synthetic_facts(size, seed=seed)
    while batch := list(islice(facts, _BATCH)):
        with mem.batch():  # one transaction per batch, for speed
            for f in batch:
                mem.remember(f.content, category=f.category, entities=list(f.entities))


def _insert_episodes(mem: ChronoMem, size: int, seed: int) -> None:
    said = turns(size, seed=seed)
    while batch := list(islice(said, _BATCH)):
        mem.remember_episodes(
            [Said(t.content, speaker=t.speaker, session=t.session, at=t.at) for t in batch]
        )


def _filled(kind: str, spec: dict[str, Any], path: Path) -> dict[str, Any]:
    """Fill ``path`` with ``size`` items of ``kind``, copying a cached fill when one matches."""
    size, seed, cache = spec["size"], spec["seed"], spec.get("cache_dir")
    template = Path(cache) / _fill_key(kind, size, seed) if cache else None
    if template is not None and template.exists():
        shutil.copyfile(template, path)
        return {"fill_s": json.loads(template.with_suffix(".json").read_text()), "cached": True}
    started = time.perf_counter()
    with ChronoMem(path, owner=_OWNER) as mem:
        (_insert_facts if kind == "facts" else _insert_episodes)(mem, size, seed)
    fill_s = time.perf_counter() - started
    if template is not None:  # closed, so the WAL is checkpointed into the file
        template.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, template)
        template.with_suffix(".json").write_text(json.dumps(fill_s))
    return {"fill_s": fill_s, "cached": False}


def _settled(path: Path) -> None:
    """Flush a copy to disk, so its writeback never lands in a timed call (see above)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _episode_queries(size: int, count: int, seed: int) -> list[str]:
    pool = list(turns(min(size, 20_000), seed=seed))
    return conversation_queries(random.Random(seed + 3).sample(pool, count), seed=seed)


def _recall(
    mems: dict[str, ChronoMem], untracked: dict[str, ChronoMem], spec: dict[str, Any]
) -> dict[str, dict[str, list[float]]]:
    """Recall on the facts file and the episodes file in alternation, ``limit=10``: each
    query on the memory that records use (the default, ``mems``) and on one with
    ``track_use=False`` (``untracked``, on a copy of the same bytes), in alternating order,
    so the two differ by what recording use costs recall (issue 41 item 2)."""
    size, count, seed = spec["size"], spec["queries"], spec["seed"]
    asks = {
        "facts": (scaling_queries(count, seed=seed, population=size), None),
        "episodes": (_episode_queries(size, count, seed), ("episode",)),
    }
    samples: dict[str, dict[str, list[float]]] = {
        side: {k: [] for k in KINDS} for side in ("recall", "recall_untracked")
    }
    sides = (("recall", mems), ("recall_untracked", untracked))
    for i in range(-5, count):  # five untimed rounds warm the page cache and statements
        for kind in KINDS:
            queries, kinds = asks[kind]
            for side, by in sides if i % 2 == 0 else sides[::-1]:
                started = time.perf_counter()
                by[kind].recall(queries[i % len(queries)], limit=10, kinds=kinds)
                if i >= 0:
                    samples[side][kind].append(time.perf_counter() - started)
    return samples


def _serial(mems: dict[str, dict[str, ChronoMem]], spec: dict[str, Any]) -> dict[str, Any]:
    """``serial`` new episodes, then as many new facts, each its own transaction, timed one
    by one, at each durability setting: every setting writes the same items to its own copy
    of the filled file, call by call in turn (the first setting alternating), so drift hits
    both alike and so does the index's periodic work (an FTS5 segment merge every few
    commits, which on one shared file fell on the same setting's turn every time).

    Each kind has its own pass. Interleaved with a ``remember`` on the 930 MB facts file, a
    ``remember_episode`` took 10-20% longer at its p50 (measured at 1,000,000 episodes: 0.69
    against 0.62 ms at NORMAL, 1.12 against 0.99 ms at FULL), a cost of the other file's
    work in the CPU's caches that no serial writer of one memory pays."""
    size, serial, seed = spec["size"], spec["serial"], spec["seed"]
    total = size + serial + _WARM_WRITES
    new: dict[str, list[Any]] = {
        "episodes": list(islice(turns(total, seed=seed), size, None)),
        "facts": list(islice(synthetic_facts(total, seed=seed), size, None)),
    }
    out: dict[str, Any] = {
        call: {s: [] for s in SETTINGS} for call in ("remember_episode", "remember")
    }
    for kind, call in (("episodes", "remember_episode"), ("facts", "remember")):
        for i, item in enumerate(new[kind]):
            for setting in SETTINGS if i % 2 == 0 else SETTINGS[::-1]:
                mem = mems[kind][setting]
                started = time.perf_counter()
                if kind == "episodes":
                    t: Turn = item
                    mem.remember_episode(t.content, speaker=t.speaker, session=t.session, at=t.at)
                else:
                    mem.remember(item.content, category=item.category, entities=list(item.entities))
                took = time.perf_counter() - started
                if i >= _WARM_WRITES:  # the first writes load what writing needs: untimed
                    out[call][setting].append(took)
    return out


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    """One size, in this process: fill (or copy) both files, then time recall and writes.

    Recall is timed in its steady state: past LISTS_FROM items the lists are made in the
    first search (``lists.BACKGROUND`` off) rather than beside the timed ones, which would
    otherwise read every row until the lists are in (a process's first seconds, not what a
    recall costs; docs/retrieval.md, "Vector index")."""
    lists.BACKGROUND = False
    folder = Path(spec["dir"])
    fills: dict[str, dict[str, Any]] = {}
    paths: dict[str, Path] = {}
    for kind in KINDS:
        paths[kind] = folder / f"{kind}-{spec['size']}.db"
        fills[kind] = _filled(kind, spec, paths[kind])
        if spec.get("keep"):  # an untouched copy for the MCP run, before the serial writes
            shutil.copyfile(paths[kind], folder / f"mcp-{kind}.db")
    for kind in KINDS:  # each setting writes to its own copy (see _serial)
        shutil.copyfile(paths[kind], paths[kind].with_name(f"{kind}-FULL.db"))
        _settled(paths[kind])
        _settled(paths[kind].with_name(f"{kind}-FULL.db"))
    mems = {
        k: {
            s: ChronoMem(p if s == "NORMAL" else p.with_name(f"{k}-FULL.db"), owner=_OWNER,
                         synchronous=s)
            for s in SETTINGS
        }
        for k, p in paths.items()
    }  # fmt: skip
    try:
        read_back = {
            f"{k} {s}": chronomem_setting(m) for k, by in mems.items() for s, m in by.items()
        }
        if any(got != name.split()[1] for name, got in read_back.items()):
            raise SystemExit(f"cost: a connection runs at another setting than asked: {read_back}")
        # The untracked side reads the FULL copy (the same bytes) before its serial writes.
        with contextlib.ExitStack() as opened:
            untracked = {
                k: opened.enter_context(
                    ChronoMem(p.with_name(f"{k}-FULL.db"), owner=_OWNER, track_use=False)
                )
                for k, p in paths.items()
            }
            recall = _recall({k: by["NORMAL"] for k, by in mems.items()}, untracked, spec)
        serial = _serial(mems, spec)
        size, seed, calls = spec["size"], spec["seed"], spec.get("floor", _FLOOR_CALLS)
        written = size + spec["serial"] + _WARM_WRITES  # each episode file holds as many
        said = list(islice(turns(written + calls + _FLOOR_WHOLE, seed=seed), written, None))
        floor = episode_floor(mems["episodes"], said, whole=_FLOOR_WHOLE)
    finally:
        for by in mems.values():
            for mem in by.values():
                mem.close()
    return {"size": spec["size"], "fill": fills, **recall, **serial, "floor": floor}


def _spawn(spec: dict[str, Any]) -> dict[str, Any]:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "scripts.matrix.cost", json.dumps(spec)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"cost worker failed with exit code {done.returncode}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _ms(samples: list[float]) -> dict[str, float]:
    return {k: 1000 * v for k, v in percentiles(samples).items()}


def _run_summary(raw: dict[str, Any]) -> dict[str, Any]:
    """One worker run: recall percentiles per kind, serial write rates per call and setting."""
    untracked = raw.get("recall_untracked")  # runs before issue 41 measured one side only
    return {
        "recall_ms": {k: _ms(raw["recall"][k]) for k in KINDS},
        **({"recall_untracked_ms": {k: _ms(untracked[k]) for k in KINDS}} if untracked else {}),
        "writes_per_s": {
            call: {s: len(raw[call][s]) / sum(raw[call][s]) for s in SETTINGS}
            for call in ("remember_episode", "remember")
        },
        "remember_episode_ms": {s: _ms(raw["remember_episode"][s]) for s in SETTINGS},
        "floor": raw["floor"],
    }


def _row(runs: list[dict[str, Any]], loads: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs of one size: each run's figures, and the median of each with its spread."""
    summaries = [_run_summary(raw) for raw in runs]
    first = runs[0]
    return {
        "size": first["size"],
        "fill": first["fill"],
        "runs": summaries,
        "recall_ms": {  # each percentile's median over the runs
            k: {q: statistics.median(s["recall_ms"][k][q] for s in summaries) for q in _QS}
            for k in KINDS
        },
        "recall_p50_ms": {k: spread([s["recall_ms"][k]["p50"] for s in summaries]) for k in KINDS},
        **_untracked(summaries),
        "writes_per_s": {
            call: {s: spread([r["writes_per_s"][call][s] for r in summaries]) for s in SETTINGS}
            for call in ("remember_episode", "remember")
        },
        "floor": floor_over_runs(summaries),
        "serial": sum(len(first["remember"][s]) for s in SETTINGS),
        "queries": len(first["recall"]["facts"]),
        "load": loads,
    }


def _untracked(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Recall p50 with ``track_use=False`` over the runs, and each run's ratio of the
    recording side's p50 to it (what recording use costs recall), when measured."""
    if not all("recall_untracked_ms" in s for s in summaries):
        return {}
    return {
        "recall_untracked_p50_ms": {
            k: spread([s["recall_untracked_ms"][k]["p50"] for s in summaries]) for k in KINDS
        },
        "recall_use_ratio_p50": {
            k: spread(
                [s["recall_ms"][k]["p50"] / s["recall_untracked_ms"][k]["p50"] for s in summaries]
            )
            for k in KINDS
        },
    }


def _call(name: str, queries: dict[str, list[str]], i: int) -> tuple[str, dict[str, Any]]:
    """The ``i``-th call to server ``name``: its tool and arguments."""
    if name == "trivial":
        return "echo", {"text": "ping"}
    return "chronomem_recall", {"query": queries[name][i % len(queries[name])], "limit": 10}


async def _mcp(folder: Path, queries: dict[str, list[str]], calls: int) -> dict[str, Any]:
    """``chronomem_recall`` on each file and a trivial ``echo``, alternating, one client."""
    script = Path(sys.executable).with_name("chronomem")
    servers = {
        kind: StdioServerParameters(
            command=str(script),
            args=["serve"],
            env={"CHRONOMEM_DB": str(folder / f"mcp-{kind}.db"), "CHRONOMEM_OWNER": _OWNER},
        )
        for kind in KINDS
    }
    servers["trivial"] = StdioServerParameters(
        command=sys.executable, args=["-m", "scripts.matrix.trivial_server"], cwd=str(REPO)
    )
    samples: dict[str, list[float]] = {name: [] for name in servers}
    checks: dict[str, list[float]] = {name: [] for name in servers}
    with open(folder / "servers.log", "w") as errlog:
        async with AsyncExitStack() as stack:
            sessions = {}
            for name, params in servers.items():
                read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                sessions[name] = await stack.enter_async_context(ClientSession(read, write))
                await sessions[name].initialize()
                _time_schema_checks(sessions[name], checks[name])
            for i in range(-10, calls):  # ten untimed rounds warm both sides
                for name, session in sessions.items():
                    tool, args = _call(name, queries, i)
                    started = time.perf_counter()
                    result = await session.call_tool(tool, args)
                    if result.is_error:  # the SDK checks only a result that is no error
                        raise SystemExit(f"cost: {tool} failed over MCP: {result.content}")
                    if i >= 0:
                        samples[name].append(time.perf_counter() - started)
                    else:
                        checks[name].pop()  # a warm-up call's check is not a sample either
    out: dict[str, Any] = {name: _ms(s) for name, s in samples.items()} | {"calls": calls}
    out["schema_check_ms"] = {name: _ms(c) for name, c in checks.items()}
    out["ratio_p50"] = {kind: spread(_block_ratios(samples, kind)) for kind in KINDS}
    return out


def _time_schema_checks(session: ClientSession, into: list[float]) -> None:
    """Time, inside each call, the SDK client's own check of the structured result against
    the tool's output schema (``ClientSession.validate_tool_result``, run on every result and
    with no switch to skip it: modelcontextprotocol/python-sdk#2626), so the report can say
    how much of a call is the client's and not the server's."""
    check = session.validate_tool_result

    async def timed(name: str, result: Any) -> None:
        started = time.perf_counter()
        try:
            await check(name, result)
        finally:
            into.append(time.perf_counter() - started)

    session.validate_tool_result = timed  # type: ignore[method-assign]


def _block_ratios(samples: dict[str, list[float]], kind: str) -> list[float]:
    """The p50 ratio of ``kind`` to the trivial tool in each of ``_BLOCKS`` consecutive
    stretches of the alternating calls: how much the ratio moves within one run."""
    n = len(samples["trivial"]) // _BLOCKS
    return [
        percentiles(samples[kind][b * n : (b + 1) * n])["p50"]
        / percentiles(samples["trivial"][b * n : (b + 1) * n])["p50"]
        for b in range(_BLOCKS)
    ]


def run_cost(
    sizes: list[int],
    *,
    serial: int,
    queries: int,
    mcp_size: int,
    seed: int,
    cache_dir: str | None,
    log: Callable[[str], None],
    runs: int = 3,
) -> dict[str, Any]:
    """Every size ``runs`` times, each in its own worker process on a quiet machine if one
    comes (:func:`.quiet.guarded`), then the MCP comparison at ``mcp_size``."""
    rows: list[dict[str, Any]] = []
    mcp: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp:
        for size in sizes:
            spec: dict[str, Any] = {"size": size, "serial": serial, "queries": queries}
            spec |= {"seed": seed, "cache_dir": cache_dir, "dir": tmp, "keep": size == mcp_size}
            raws, loads = [], []
            for run in range(1, runs + 1):
                log(f"cost: {size:,} facts beside {size:,} episodes, run {run} of {runs}")
                raw, load = guarded(f"cost {size:,} run {run}", partial(_spawn, spec), log)
                raws.append(raw)
                loads.append(load)
                for pattern in (f"*-{size}.db*", "*-FULL.db*"):  # every copy a new file
                    for stale in Path(tmp).glob(pattern):
                        stale.unlink()
            rows.append(_row(raws, loads))
        if mcp_size in sizes:
            log(f"cost: chronomem_recall vs a trivial tool over MCP stdio at {mcp_size:,}")
            asks = {
                "facts": scaling_queries(queries, seed=seed, population=mcp_size),
                "episodes": _episode_queries(mcp_size, queries, seed),
            }
            mcp, load = guarded(
                "cost MCP", lambda: anyio.run(_mcp, Path(tmp), asks, 2 * queries), log
            )
            mcp |= {"size": mcp_size, "load": load}
    return {"goals": GOALS, "rows": rows, "mcp": mcp}


def _main() -> None:
    print(json.dumps(measure(json.loads(sys.argv[1]))))


if __name__ == "__main__":
    _main()
