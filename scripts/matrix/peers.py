"""Matrix 5a: the official MCP reference memory server and ``chronomem serve``, same client.

Both servers run as real subprocesses behind the MCP Python SDK's stdio client. The workload is
the same facts for both: each fact is an observation on an entity (``create_entities`` /
``add_observations``) or a ``chronomem_remember``. An update is a new fact that replaces an old
one: ``chronomem_supersede`` for chronomem; for the reference server, whose only tools are
add/delete, an agent adds the new observation (deleting the old one would erase history).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from chronomem import estimate_tokens

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

    def params(self, tmp: Path) -> StdioServerParameters: ...
    async def ingest(self, s: ClientSession, fact: PeerFact) -> None: ...
    async def update(self, s: ClientSession, old: PeerFact, new: PeerFact) -> None: ...
    async def search(self, s: ClientSession, query: str) -> str: ...
    def disk_bytes(self, tmp: Path) -> int: ...


class ReferenceMemoryServer:
    """``@modelcontextprotocol/server-memory``: a JSONL knowledge graph rewritten on every call."""

    name = "MCP reference memory server"

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
        await self.ingest(s, new)

    async def search(self, s: ClientSession, query: str) -> str:
        return _text(await s.call_tool("search_nodes", {"query": query}))

    def disk_bytes(self, tmp: Path) -> int:
        path = tmp / "memory.jsonl"
        return path.stat().st_size if path.exists() else 0


class ChronoMemServer:
    """``chronomem serve`` (the console script, stdio) on a temporary database file."""

    name = "chronomem serve"

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

    def disk_bytes(self, tmp: Path) -> int:
        return sum(p.stat().st_size for p in tmp.glob("chronomem.db*") if p.is_file())


async def _timed(
    call: Callable[[_T], Awaitable[_R]], items: Sequence[_T]
) -> tuple[list[float], list[_R]]:
    """Await ``call(item)`` for each item in turn; wall time of each call and its result."""
    times: list[float] = []
    outs: list[_R] = []
    for item in items:
        started = time.perf_counter()
        outs.append(await call(item))
        times.append(time.perf_counter() - started)
    return times, outs


def _share(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / max(1, len(values))


def _ms(samples: list[float]) -> dict[str, float]:
    return {k: 1000 * v for k, v in percentiles(samples).items()}


async def _measure(driver: Driver, count: int, seed: int, tmp: Path) -> dict[str, Any]:
    facts, updates = workload(count, seed=seed)
    rng = random.Random(seed + 2)
    probes = rng.sample(facts, min(100, len(facts)))
    questions = [
        next(a for a in PERSON_ATTRIBUTES if a.name == f.category).exact.format(e=f.entity)
        for f in probes
    ]
    with open(tmp / "server.log", "w") as errlog:
        started = time.perf_counter()
        async with (
            stdio_client(driver.params(tmp), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            start_s = time.perf_counter() - started
            ingest, _ = await _timed(lambda f: driver.ingest(session, f), facts)
            by_name, texts = await _timed(lambda f: driver.search(session, f.entity), probes)
            found_name = _share(f.content in t for f, t in zip(probes, texts, strict=True))
            by_q, texts = await _timed(lambda q: driver.search(session, q), questions)
            found_q = _share(f.content in t for f, t in zip(probes, texts, strict=True))
            upd, _ = await _timed(lambda u: driver.update(session, *u), updates)
            _, after = await _timed(lambda u: driver.search(session, u[1].entity), updates)
    stale = _share(o.content in t for (o, _), t in zip(updates, after, strict=True))
    fresh = _share(n.content in t for (_, n), t in zip(updates, after, strict=True))
    return {
        "server": driver.name,
        "facts": len(facts),
        "start_s": start_s,
        "ingest_ms": _ms(ingest),
        "search_name_ms": _ms(by_name),
        "search_question_ms": _ms(by_q),
        "update_ms": _ms(upd),
        "found_by_name": found_name,
        "found_by_question": found_q,
        "stale_after_update": stale,
        "current_after_update": fresh,
        "disk_mb": driver.disk_bytes(tmp) / 1e6,
        "answer_tokens": sum(estimate_tokens(t) for t in after) / max(1, len(after)),
    }


def run_peers(sizes: list[int], *, seed: int, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Both servers at every size, each on a fresh temporary store."""
    rows = []
    for count in sizes:
        for make in (ReferenceMemoryServer, ChronoMemServer):
            driver: Driver = make()
            log(f"peers: {driver.name} with {count:,} facts over MCP stdio")
            with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp:
                try:
                    rows.append(anyio.run(_measure, driver, count, seed, Path(tmp)))
                except Exception:
                    server_log = Path(tmp) / "server.log"
                    if server_log.exists():  # the server's own words, before the directory goes
                        print(server_log.read_text()[-4000:], file=sys.stderr)
                    raise
    return rows
