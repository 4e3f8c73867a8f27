"""Matrix 5a: the official MCP reference memory server and ``chronomem serve``, same client.

Both servers run as real subprocesses behind the MCP Python SDK's stdio client, started side
by side, warmed up alike, and driven in alternation (each call to one, then the same call to
the other, which goes first alternating), so a busy neighbour hits both. The workload is the
same facts for both: each fact is an observation on an entity (``create_entities`` /
``add_observations``) or a ``chronomem_remember``. An update replaces a fact the way each
server's user would: ``chronomem_supersede`` for chronomem; for the reference server,
``delete_observations`` of the old text, then ``add_observations`` of the new.

What remains different, and is reported beside the table: the reference server's update is two
calls (not atomic, and the caller must still hold the old observation's exact text), and the
replaced observation is gone, where chronomem keeps it as history that ``as_of`` can still
answer from.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from chronomem import estimate_tokens

from .quiet import guarded
from .stats import percentiles
from .vocab import FIRST_NAMES, PERSON_ATTRIBUTES, SURNAMES

__all__ = ["MEMORY_SERVER_VERSION", "memory_server_entry", "run_peers", "setup_command"]

_T = TypeVar("_T")
_R = TypeVar("_R")
MEMORY_SERVER_VERSION = "2026.8.31"
_PACKAGE = "@modelcontextprotocol/server-memory"
NODE_DIR = Path(os.environ.get("CHRONOMEM_BENCH_NODE_DIR", "~/.cache/chronomem-bench")).expanduser()


def memory_server_entry() -> Path:
    """The reference server's entry point inside the npm cache directory."""
    return NODE_DIR / "node_modules" / _PACKAGE / "dist" / "index.js"


def setup_command() -> list[str]:
    """The one networked step, run by ``--setup`` before any measurement."""
    return [
        "npm",
        "install",
        "--prefix",
        str(NODE_DIR),
        "--no-audit",
        "--no-fund",
        f"{_PACKAGE}@{MEMORY_SERVER_VERSION}",
    ]


@dataclass(frozen=True)
class PeerFact:
    entity: str
    category: str
    content: str


def workload(count: int, *, seed: int) -> tuple[list[PeerFact], list[tuple[PeerFact, PeerFact]]]:
    """``count`` facts (six per person) and 50 updates that replace one of them each."""
    rng = random.Random(seed)
    facts: list[PeerFact] = []
    for i in range(-(-count // len(PERSON_ATTRIBUTES))):
        entity = f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)} {i:05d}"
        for attr in PERSON_ATTRIBUTES:
            text = attr.statement.format(e=entity, v=rng.choice(attr.values))
            facts.append(PeerFact(entity, attr.name, text))
    facts = facts[:count]
    updates = []
    for old in rng.sample(facts, min(50, len(facts))):
        attr = next(a for a in PERSON_ATTRIBUTES if a.name == old.category)
        value = rng.choice(
            [v for v in attr.values if attr.statement.format(e=old.entity, v=v) != old.content]
        )
        updates.append(
            (old, PeerFact(old.entity, old.category, attr.statement.format(e=old.entity, v=value)))
        )
    return facts, updates


def _text(result: Any) -> str:
    if result.is_error:
        raise SystemExit(f"peer tool call failed: {result.content}")
    # What a model would read: the text blocks (both servers also put their JSON there).
    return "\n".join(getattr(block, "text", "") for block in result.content)


class Driver(Protocol):
    name: str
    update_calls: int

    def params(self, tmp: Path) -> StdioServerParameters: ...
    async def ingest(self, s: ClientSession, fact: PeerFact) -> None: ...
    async def update(self, s: ClientSession, old: PeerFact, new: PeerFact) -> None: ...
    async def search(self, s: ClientSession, query: str) -> str: ...
    def hits(self, answer: str) -> int: ...
    def disk_bytes(self, tmp: Path) -> int: ...


class ReferenceMemoryServer:
    """``@modelcontextprotocol/server-memory``: a JSONL knowledge graph rewritten on every call."""

    name = "MCP reference memory server"
    update_calls = 2  # delete_observations, then add_observations

    def __init__(self) -> None:
        self._known: set[str] = set()

    def params(self, tmp: Path) -> StdioServerParameters:
        entry = memory_server_entry()
        if not entry.exists():
            raise SystemExit(
                f"{_PACKAGE} is not installed: run `python scripts/benchmark_matrix.py --setup`"
            )
        return StdioServerParameters(
            command="node", args=[str(entry)], env={"MEMORY_FILE_PATH": str(tmp / "memory.jsonl")}
        )

    async def ingest(self, s: ClientSession, fact: PeerFact) -> None:
        if fact.entity in self._known:
            args = {"observations": [{"entityName": fact.entity, "contents": [fact.content]}]}
            _text(await s.call_tool("add_observations", args))
            return
        self._known.add(fact.entity)
        entity = {"name": fact.entity, "entityType": "person", "observations": [fact.content]}
        _text(await s.call_tool("create_entities", {"entities": [entity]}))

    async def update(self, s: ClientSession, old: PeerFact, new: PeerFact) -> None:
        # What a user of this server does: delete the old observation (by its exact text,
        # which the caller must still have), then add the new one. Two calls, not atomic.
        gone = {"deletions": [{"entityName": old.entity, "observations": [old.content]}]}
        _text(await s.call_tool("delete_observations", gone))
        await self.ingest(s, new)

    async def search(self, s: ClientSession, query: str) -> str:
        return _text(await s.call_tool("search_nodes", {"query": query}))

    def hits(self, answer: str) -> int:
        # Each observation is one hit (a fact); entities and relations carry them.
        graph = json.loads(answer)
        return sum(len(e.get("observations", [])) for e in graph.get("entities", []))

    def disk_bytes(self, tmp: Path) -> int:
        path = tmp / "memory.jsonl"
        return path.stat().st_size if path.exists() else 0


class ChronoMemServer:
    """``chronomem serve`` (the console script, stdio) on a temporary database file."""

    name = "chronomem serve"
    update_calls = 1  # chronomem_supersede

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}

    def params(self, tmp: Path) -> StdioServerParameters:
        env = {"CHRONOMEM_DB": str(tmp / "chronomem.db"), "CHRONOMEM_OWNER": "bench"}
        script = Path(sys.executable).with_name("chronomem")
        if not script.exists():
            raise SystemExit(f"{script} is missing: install the package (pip install -e .)")
        return StdioServerParameters(command=str(script), args=["serve"], env=env)

    async def ingest(self, s: ClientSession, fact: PeerFact) -> None:
        args = {"content": fact.content, "category": fact.category, "entities": [fact.entity]}
        result = await s.call_tool("chronomem_remember", args)
        _text(result)
        self._ids[fact.content] = str((result.structured_content or {})["id"])

    async def update(self, s: ClientSession, old: PeerFact, new: PeerFact) -> None:
        args = {
            "old_id": self._ids[old.content],
            "content": new.content,
            "category": new.category,
            "entities": [new.entity],
        }
        result = await s.call_tool("chronomem_supersede", args)
        _text(result)
        self._ids[new.content] = str((result.structured_content or {})["id"])

    async def search(self, s: ClientSession, query: str) -> str:
        return _text(await s.call_tool("chronomem_recall", {"query": query, "limit": 10}))

    def hits(self, answer: str) -> int:
        # One line per fact or episode; "nothing recalled" is none.
        return 0 if answer == "nothing recalled" else len(answer.splitlines())

    def disk_bytes(self, tmp: Path) -> int:
        return sum(p.stat().st_size for p in tmp.glob("chronomem.db*") if p.is_file())


def _share(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / max(1, len(values))


def _ms(samples: list[float]) -> dict[str, float]:
    return {k: 1000 * v for k, v in percentiles(samples).items()}


_WARM = 20  # untimed calls of each kind to each server before anything is timed


def _questions(probes: list[PeerFact]) -> list[str]:
    return [
        next(a for a in PERSON_ATTRIBUTES if a.name == f.category).exact.format(e=f.entity)
        for f in probes
    ]


async def _alternating(
    pairs: list[tuple[Driver, ClientSession]],
    call: Callable[[Driver, ClientSession, _T], Awaitable[_R]],
    items: Sequence[_T],
) -> dict[str, tuple[list[float], list[_R]]]:
    """Each item to every server in turn (the first server alternating), so both see the
    machine at the same moments: per server, the wall time of each call and its result."""
    out: dict[str, tuple[list[float], list[_R]]] = {d.name: ([], []) for d, _ in pairs}
    for i, item in enumerate(items):
        for driver, session in pairs[i % 2 :] + pairs[: i % 2]:
            started = time.perf_counter()
            result = await call(driver, session, item)
            out[driver.name][0].append(time.perf_counter() - started)
            out[driver.name][1].append(result)
    return out


async def _warm(pairs: list[tuple[Driver, ClientSession]]) -> None:
    """Both servers answer ``_WARM`` writes and searches of their own before the clock runs
    (the JIT of Node, Python's imports and SQLite's page cache alike)."""
    warm = [
        PeerFact(f"Warm Up {i:03d}", "city", f"Warm Up {i:03d} lives in Oslo.")
        for i in range(_WARM)
    ]
    await _alternating(pairs, lambda d, s, f: d.ingest(s, f), warm)
    await _alternating(pairs, lambda d, s, f: d.search(s, f.entity), warm)


async def _measure(
    drivers: list[Driver], count: int, seed: int, tmps: dict[str, Path]
) -> list[dict[str, Any]]:
    facts, updates = workload(count, seed=seed)
    probes = random.Random(seed + 2).sample(facts, min(100, len(facts)))
    questions = _questions(probes)
    rows: dict[str, dict[str, Any]] = {
        d.name: {"server": d.name, "facts": len(facts)} for d in drivers
    }
    async with AsyncExitStack() as stack:
        pairs = []
        for driver in drivers:
            log_path = tmps[driver.name] / "server.log"
            errlog = stack.enter_context(open(log_path, "w"))  # noqa: SIM115  # the stack closes it
            started = time.perf_counter()
            read, write = await stack.enter_async_context(
                stdio_client(driver.params(tmps[driver.name]), errlog=errlog)
            )
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            rows[driver.name]["start_s"] = time.perf_counter() - started
            pairs.append((driver, session))
        await _warm(pairs)
        ingest = await _alternating(pairs, lambda d, s, f: d.ingest(s, f), facts)
        by_name = await _alternating(pairs, lambda d, s, f: d.search(s, f.entity), probes)
        by_q = await _alternating(pairs, lambda d, s, q: d.search(s, q), questions)
        upd = await _alternating(pairs, lambda d, s, u: d.update(s, *u), updates)
        after = await _alternating(pairs, lambda d, s, u: d.search(s, u[1].entity), updates)
    for driver in drivers:
        name = driver.name
        answers = after[name][1]
        rows[name] |= {
            "ingest_ms": _ms(ingest[name][0]),
            "search_name_ms": _ms(by_name[name][0]),
            "search_question_ms": _ms(by_q[name][0]),
            "update_ms": _ms(upd[name][0]),
            "update_calls": driver.update_calls,
            "found_by_name": _share(
                f.content in t for f, t in zip(probes, by_name[name][1], strict=True)
            ),
            "found_by_question": _share(
                f.content in t for f, t in zip(probes, by_q[name][1], strict=True)
            ),
            "stale_after_update": _share(
                o.content in t for (o, _), t in zip(updates, answers, strict=True)
            ),
            "current_after_update": _share(
                n.content in t for (_, n), t in zip(updates, answers, strict=True)
            ),
            "disk_mb": driver.disk_bytes(tmps[name]) / 1e6,
            "answer_tokens": sum(estimate_tokens(t) for t in answers) / max(1, len(answers)),
            # The servers return different numbers of hits (the reference an entity's
            # observations, chronomem its ten best): the cost of the same hit, side by side.
            "tokens_per_hit": sum(estimate_tokens(t) for t in answers)
            / max(1, sum(driver.hits(t) for t in answers)),
        }
    return list(rows.values())


def run_peers(sizes: list[int], *, seed: int, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Both servers at every size, side by side, each on a fresh temporary store."""
    rows: list[dict[str, Any]] = []
    for count in sizes:
        log(f"peers: both servers with {count:,} facts over MCP stdio, interleaved")
        with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp:

            def measure(count: int = count, tmp: str = tmp) -> list[dict[str, Any]]:
                drivers: list[Driver] = [ReferenceMemoryServer(), ChronoMemServer()]
                tmps = {d.name: Path(tempfile.mkdtemp(dir=tmp)) for d in drivers}
                try:
                    return anyio.run(_measure, drivers, count, seed, tmps)
                except Exception:
                    for folder in tmps.values():  # the servers' own words, before they go
                        if (folder / "server.log").exists():
                            print((folder / "server.log").read_text()[-4000:], file=sys.stderr)
                    raise

            pair, load = guarded(f"peers {count:,}", measure, log)
            rows += [r | {"load": load} for r in pair]
    return rows
