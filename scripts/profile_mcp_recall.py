"""Where a ``chronomem_recall`` round trip over MCP stdio goes, beside a trivial tool's.

``python scripts/profile_mcp_recall.py [--facts 10000] [--calls 300] [--variants ...]`` fills
a file with ``--facts`` facts (matrix 6's synthetic facts), then one client calls, in turn,
a trivial ``echo`` on the same SDK (:mod:`scripts.matrix.trivial_server`) and ``chronomem_recall``
(``limit=10``, matrix 6's questions) on server variants that each take one piece of ours out
(:func:`serve_variant`, run as ``python scripts/profile_mcp_recall.py --serve VARIANT``):

- ``shipped``: ``chronomem serve`` as it is;
- ``blas-default``: BLAS on as many threads as there are cores, as before
  :mod:`chronomem._doors.blas` (``OPENBLAS_NUM_THREADS`` and the like set to the core count);
- ``no-links``: recall without its resource links;
- ``no-schema``: no output schema, so neither side validates the structured content;
- ``sdk-stdio``: the SDK's own stdio instead of ours (:mod:`chronomem.server._stdio`);
- ``on-loop``: the recall run on the event loop, not in a worker thread (blocking: a
  measurement, never a way to serve).

Alternating in one run, the machine's load hits every variant alike; the figure per variant
is its p50 over the trivial tool's. Then the same result's parts are timed in this process:
the library's recall, the short ids, building the result, the server's check of the
structured content (pydantic), its JSON, the client's reading of it and its check against the
output schema (jsonschema, as the SDK's client does it), and the stdio screen of one line.
Figures go to stdout as JSON; nothing is written under bench/.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from itertools import islice
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a file: the scripts package is the checkout's
    sys.path.insert(0, str(REPO))

from scripts.matrix.data import scaling_queries, synthetic_facts  # noqa: E402
from scripts.matrix.stats import percentiles  # noqa: E402

VARIANTS = ("shipped", "blas-default", "no-links", "no-schema", "sdk-stdio", "on-loop")
OWNER = "bench"
SEED = 7


def serve_variant(variant: str) -> None:
    """Serve ``chronomem serve``'s server with one piece of ours taken out (see above)."""
    from tests.chronomem.mcp_client import server_args

    from chronomem._doors.blas import BLAS_THREAD_VARIABLES, one_blas_thread
    from chronomem.server import _app, _output, _state, _tools, config_from_args
    from chronomem.server._stdio import serve_stdio

    if variant == "blas-default":
        for name in BLAS_THREAD_VARIABLES:
            os.environ[name] = str(os.cpu_count() or 1)
    one_blas_thread()  # as the server's main does (a value set above is kept)

    if variant == "no-links":
        shipped = _output.result

        def without_links(*args: Any, **options: Any) -> Any:
            return shipped(*args, **{**options, "links": False})

        setattr(_tools, "result", without_links)  # the name chronomem_recall calls  # noqa: B010
    if variant == "on-loop":

        async def on_loop(self: _state.State, work: Callable[[_state.State], Any]) -> Any:
            return work(self)

        _state.State.read = on_loop  # type: ignore[method-assign]
    server = _app.build_server(config_from_args(server_args(), os.environ))
    if variant == "no-schema":
        for tool in server._tool_manager.list_tools():
            tool.fn_metadata.output_schema = None
    if variant == "sdk-stdio":
        server.run("stdio")
    else:
        anyio.run(serve_stdio, server)


def _fill(path: Path, count: int) -> None:
    from chronomem import ChronoMem

    facts = synthetic_facts(count, seed=SEED)
    with ChronoMem(path, owner=OWNER) as mem:
        while batch := list(islice(facts, 5_000)):
            with mem.batch():
                for f in batch:
                    mem.remember(f.content, category=f.category, entities=list(f.entities))


def _ms(samples: list[float]) -> dict[str, float]:
    return {k: round(v * 1000, 3) for k, v in percentiles(samples).items()}


async def _round_trips(
    db: Path, queries: list[str], calls: int, variants: list[str]
) -> dict[str, Any]:
    env = {"CHRONOMEM_DB": str(db), "CHRONOMEM_OWNER": OWNER}
    servers = {
        "trivial": StdioServerParameters(
            command=sys.executable, args=["-m", "scripts.matrix.trivial_server"], cwd=str(REPO)
        ),
        **{
            v: StdioServerParameters(
                command=sys.executable,
                args=[str(Path(__file__).resolve()), "--serve", v],
                env={**env, "PYTHONPATH": str(REPO)},
                cwd=str(REPO),
            )
            for v in variants
        },
    }
    samples: dict[str, list[float]] = {name: [] for name in servers}
    sizes: dict[str, int] = {}
    with (db.parent / "servers.log").open("w") as errlog:
        async with AsyncExitStack() as stack:
            sessions = {}
            for name, params in servers.items():
                read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                sessions[name] = await stack.enter_async_context(ClientSession(read, write))
                await sessions[name].initialize()
                await sessions[name].list_tools()  # the client validates against listed schemas
            for i in range(-20, calls):  # untimed rounds warm every side
                for name, session in sessions.items():
                    if name == "trivial":
                        tool, args = "echo", {"text": "ping"}
                    else:
                        tool, args = "chronomem_recall", {"query": queries[i % len(queries)]}
                    started = time.perf_counter()
                    result = await session.call_tool(tool, args)
                    took = time.perf_counter() - started
                    assert not result.is_error, result
                    if i >= 0:
                        samples[name].append(took)
                    sizes[name] = len(result.model_dump_json(by_alias=True, exclude_none=True))
    trivial = percentiles(samples["trivial"])["p50"]
    return {
        name: {
            **_ms(s),
            "vs_trivial": round(percentiles(s)["p50"] / trivial, 2),
            "result_bytes": sizes[name],
        }
        for name, s in samples.items()
    }


def _timed(work: Callable[[], Any], rounds: int) -> dict[str, float]:
    for _ in range(10):
        work()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        samples.append(time.perf_counter() - started)
    return _ms(samples)


def _parts(db: Path, queries: list[str], rounds: int) -> dict[str, Any]:
    """The pieces of one recall's path, each timed alone on the same data."""
    from jsonschema.validators import validator_for  # type: ignore[import-untyped]
    from mcp.types import CallToolResult, JSONRPCResponse
    from tests.chronomem.mcp_client import server_args

    from chronomem import ChronoMem
    from chronomem._doors.ids import short_ids
    from chronomem.server import _app, _stdio, _tools, config_from_args
    from chronomem.server._output import recall_out, result

    server = _app.build_server(config_from_args(server_args("--db", str(db)), {}))
    [tool] = [t for t in server._tool_manager.list_tools() if t.name == "chronomem_recall"]
    schema = tool.fn_metadata.output_schema
    assert schema is not None
    check = validator_for(schema)(schema)
    query = queries[0]
    line = json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
         "params": {"name": "chronomem_recall", "arguments": {"query": query}}}
    )  # fmt: skip
    with ChronoMem(db, owner=OWNER) as mem:
        found = mem.recall(query, limit=10)
        ids = [i.id for i in found]
        made = result(recall_out(found), None, found, ids=short_ids(mem, ids), links=True)
        reply = JSONRPCResponse(jsonrpc="2.0", id=7, result=made.model_dump(by_alias=True))
        wire = reply.model_dump_json(by_alias=True, exclude_none=True)
        structured = made.structured_content
        parts = {
            "library recall": _timed(lambda: mem.recall(query, limit=10), rounds),
            "short ids": _timed(lambda: short_ids(mem, ids), rounds),
            "result built": _timed(
                lambda: result(recall_out(found), None, found, ids={}, links=True), rounds
            ),
            "server checks structured content": _timed(
                lambda: tool.fn_metadata.convert_result(made), rounds
            ),
            "result as JSON-RPC JSON": _timed(
                lambda: JSONRPCResponse(
                    jsonrpc="2.0", id=7, result=made.model_dump(by_alias=True)
                ).model_dump_json(by_alias=True, exclude_none=True),
                rounds,
            ),
            "client reads the result": _timed(
                lambda: CallToolResult.model_validate(json.loads(wire)["result"]), rounds
            ),
            "client checks it against the schema": _timed(
                lambda: list(check.iter_errors(structured)), rounds
            ),
            "stdio screen of the request line": _timed(lambda: _stdio._refusal(line), rounds),
        }
    del _tools
    return {"facts_recalled": len(found), "wire_bytes": len(wire), "parts_ms_p50": {
        k: v["p50"] for k, v in parts.items()}}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument(
        "--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS), metavar="VARIANT"
    )
    parser.add_argument("--serve", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    from chronomem._doors.blas import one_blas_thread

    one_blas_thread()  # the parts below are timed as the server runs them
    if args.serve:
        serve_variant(args.serve)
        return
    queries = scaling_queries(200, seed=SEED, population=args.facts)
    with tempfile.TemporaryDirectory(prefix="chronomem-mcp-profile-") as tmp:
        db = Path(tmp) / "facts.db"
        _fill(db, args.facts)
        out: dict[str, Any] = {"facts": args.facts, "calls": args.calls, "cores": os.cpu_count()}
        out["load_before"] = os.getloadavg()[0]
        out["round_trip_ms"] = anyio.run(_round_trips, db, queries, args.calls, args.variants)
        out["in_process"] = _parts(db, queries, 300)
        out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
