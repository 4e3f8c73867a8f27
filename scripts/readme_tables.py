"""The documentation's figures, rendered from the committed benchmark files (never typed by hand).

Each block of a page (README.md, or any page under docs/) between ``<!-- generated: NAME -->``
and ``<!-- /generated -->`` is the output of one renderer here, fed by a file under ``bench/``
that a benchmark script wrote. ``tests/test_docs.py`` fails when a block differs from what its
file says.

    python scripts/readme_tables.py          # rewrite the blocks in README.md and docs/
    python scripts/readme_tables.py --check  # exit 1 if any block is stale
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a file: make `scripts.matrix` importable
    sys.path.insert(0, str(REPO))

from scripts.matrix.adapter_tables import (  # noqa: E402  # after the sys.path fix above
    SPEEDUP_GOAL,
    adapter_summary,
    adapter_verdicts,
)
from scripts.matrix.cost_tables import (  # noqa: E402  # as above
    cost_tables,
    cost_verdicts,
    verdict_lines,
)
from scripts.matrix.fmt import ms, table  # noqa: E402  # as above
from scripts.matrix.langgraph_tables import render as langgraph_render  # noqa: E402  # as above
from scripts.matrix.session_tables import session_losses  # noqa: E402  # as above
from scripts.matrix.tables import key_table, losses, peer_losses  # noqa: E402  # as above

README = REPO / "README.md"
DOCUMENTS = (README, *sorted((REPO / "docs").rglob("*.md")))
"""Every page that may hold generated blocks: the README and the manual under docs/."""
RESULTS = "results.json"
_MATRICES = (
    "hardware",
    "environment",
    "graded",
    "peers",
    "sessions",
    "cost",
    "adapters_openai",
    "adapters_adk",
    "engines",
)
BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- /generated -->)", re.S)
# Renderers link the reports as seen from the repository's root (`](bench/results.md)`); a
# page elsewhere gets the same links made relative to its own folder.
_BENCH_LINK = re.compile(r"\]\(bench/")


def _load(name: str) -> Any:
    return json.loads((REPO / "bench" / name).read_text(encoding="utf-8"))


def _row(name: str, values: Mapping[str, float], columns: list[str]) -> str:
    return f"| {name} | " + " | ".join(f"{values[c]:.3f}" for c in columns) + " |"


# The retrieval issue's goals on the development set (issue 38, "Meaning brings its own
# candidates"): a measure, where it is read in a bench/locomo*.json report, and its floor for
# the default install (the static table) and for the stronger encoder (MiniLM-L6, the extra).
LOCOMO_GOALS: tuple[tuple[str, tuple[str, str, str], float, float], ...] = (
    ("episodes R@10", ("headline", "chronomem episodes", "R@10"), 0.87, 0.89),
    ("episodes R@5", ("headline", "chronomem episodes", "R@5"), 0.81, 0.83),
    ("episodes R@1", ("headline", "chronomem episodes", "R@1"), 0.54, 0.56),
    ("facts R@10", ("headline", "chronomem facts", "R@10"), 0.77, 0.80),
    ("open-domain R@10", ("per_category_r10", "chronomem episodes", "open-domain"), 0.52, 0.60),
    ("multi-hop R@10", ("per_category_r10", "chronomem episodes", "multi-hop"), 0.80, 0.85),
)
LOCOMO_ENGINES_GAP = 0.005
"""The largest difference allowed between SQLite's and PostgreSQL's LoCoMo figures."""


def locomo() -> str:
    """The retrieval table: LoCoMo development set, both paths beside plain FTS5."""
    r = _load("locomo.json")
    head = r["headline"]
    columns = list(next(iter(head.values())))
    cats = r["per_category_r10"]
    cat_names = list(next(iter(cats.values())))
    weakest = min(cats["chronomem episodes"].items(), key=lambda kv: kv[1])
    latency = r["latency_ms"]["episodes recall"]
    lines = [
        f"LoCoMo development set ({r['conversations']} real conversations, {r['turns']:,} "
        f"turns, {r['questions']} questions; a hit is an evidence turn in the top k; "
        "[bench/locomo.md](bench/locomo.md), `python scripts/eval_locomo.py`):",
        "",
        "| ranking | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
        *(_row(name, values, columns) for name, values in head.items()),
        "",
        "| R@10 by question type | " + " | ".join(cat_names) + " |",
        "|---" * (len(cat_names) + 1) + "|",
        *(_row(name, values, cat_names) for name, values in cats.items()),
        "",
        f"Episodes recall in {latency['p50']:.2f} ms p50 ({latency['p95']:.2f} ms p95) per "
        f"question on a conversation's file. Where chronomem still loses: {weakest[0]} "
        f"questions (R@10 {weakest[1]:.3f}).",
        "",
    ]
    return "\n".join(lines)


def _verdict(value: float, floor: float) -> str:
    return f"{value:.3f}, {'met' if value >= floor else '**missed**'}"


def locomo_goals() -> str:
    """The retrieval issue's goals on the development set, each against the committed report
    of the default install and of the MiniLM-L6 extra, and the two engines' largest gap."""
    static, minilm = _load("locomo.json"), _load("locomo_minilm_l6.json")
    gap = _largest_gap(static, _load("locomo_postgres.json"))
    lines = [
        "| development set | goal, default install | static table (default) "
        "| goal, stronger encoder | MiniLM-L6 (`chronomem[encoder]`) |",
        "|---|---:|---:|---:|---:|",
    ]
    met = 0
    for name, (section, row, column), default, stronger in LOCOMO_GOALS:
        ours, theirs = static[section][row][column], minilm[section][row][column]
        met += (ours >= default) + (theirs >= stronger)
        lines.append(
            f"| {name} | >= {default:.2f} | {_verdict(ours, default)} "
            f"| >= {stronger:.2f} | {_verdict(theirs, stronger)} |"
        )
    verdict = "met" if gap <= LOCOMO_ENGINES_GAP else "**missed**"
    return "\n".join(
        [
            *lines,
            "",
            f"Met {met} of {2 * len(LOCOMO_GOALS)}. PostgreSQL against SQLite, the largest "
            f"difference in any figure of the report: {gap:.3f} (goal <= "
            f"{LOCOMO_ENGINES_GAP}: {verdict}).",
            "",
        ]
    )


def _results() -> dict[str, Any]:
    results: dict[str, Any] = _load(RESULTS)
    return results


def perf_machine() -> str:
    """Where and when the matrix ran, and how busy the machine was."""
    r = _results()
    meta, m = r["meta"], r["meta"]["machine"]
    loads = [r[k]["load_before"] for k in _MATRICES if k in r and "load_before" in r[k]]
    codes = sorted({r[k]["code"] for k in _MATRICES if k in r and "code" in r[k]})
    runs = (  # `--only` re-measures some matrices and keeps the others' results
        f"in one {meta['mode']} run of `scripts/benchmark_matrix.py` started {meta['started']}"
        if len(codes) == 1
        else f"in {meta['mode']} runs of `scripts/benchmark_matrix.py` (`--only` re-measures "
        f"some matrices and keeps the rest), the last started {meta['started']}"
    )
    return (
        f"Measured on {m['CPU']} ({m['cores']} cores, {m['RAM']}), {m['OS'].split('-')[0]}, "
        f"Python {m['Python']}, SQLite {m['SQLite']}, {runs} (commit "
        f"{' / '.join(codes)}). The 1-minute load average was {min(loads):.1f} to "
        f"{max(loads):.1f} as the matrices started: other work shared the machine, so "
        "absolute times are pessimistic, while ratios were measured side by side within a run. "
        "The full report, with every table and its method: [bench/results.md](bench/results.md).\n"
    )


def perf_sessions() -> str:
    """chronica against SQLiteSession at the largest session size, both durability settings."""
    rows = _results()["sessions"]["rows"]
    biggest = max(r["items"] for r in rows)
    sdk = {
        r["synchronous"]: r for r in rows if r["items"] == biggest and "SQLiteSession" in r["store"]
    }
    body = []
    for r in sorted(
        (r for r in rows if r["items"] == biggest), key=lambda r: (r["synchronous"], r["store"])
    ):
        base = sdk[r["synchronous"]]
        body.append(
            [
                r["store"],
                r["synchronous"],
                ms(r["append_ms"]["p50"]),
                ms(r["window_ms"]["p50"]),
                f"{r['append_ms']['p50'] / base['append_ms']['p50']:.2f}x",
                f"{r['window_ms']['p50'] / base['window_ms']['p50']:.2f}x",
            ]
        )
    header = [
        f"session of {biggest:,} items",
        "synchronous",
        "append p50 (ms)",
        "last-20 read p50 (ms)",
        "append vs SQLiteSession",
        "read vs SQLiteSession",
    ]
    summary, *lost = session_losses(rows)
    at_biggest = [line for line in lost if f", {biggest:,} items, " in line]
    lines = [*table(header, body), "", f"**Where chronica loses.** {summary}"]
    if at_biggest:
        lines += ["", f"At {biggest:,} items ([bench/results.md](bench/results.md) lists all):"]
        lines += ["", *at_biggest]
    return "\n".join([*lines, ""])


def perf_adapters() -> str:
    """Each framework adapter against the framework's own stores, and issue 11's goal."""
    r = _results()
    lines = [
        *adapter_summary(r),
        f"The goal (issue 23): at least {SPEEDUP_GOAL:g}x each framework store's speed at the "
        "same `synchronous` setting, on every operation and at every session length measured "
        "(the worst of them counts), 1.3x on `ChronicaSession`'s turns and reads, with the "
        "adapter's last-20 read flat:",
        "",
        *verdict_lines(adapter_verdicts(r)),
        "",
    ]
    return "\n".join(lines)


def perf_langgraph() -> str:
    """ChronoMemStore beside LangGraph's own stores (matrix 9), from bench/results.json."""
    section = _results().get("langgraph")
    if not section:
        return "Not measured in the committed run (matrix 9 is newer than it).\n"
    return langgraph_render(section).split("\n", 2)[2]  # the report's own heading dropped


def perf_memory() -> str:
    """Recall and write cost by size: matrix 1 (facts) and matrix 6 (facts beside episodes)."""
    r = _results()
    hardware = key_table({"hardware": r["hardware"]})
    cost = r["cost"]
    lines = [*hardware, *cost_tables(cost), "", *verdict_lines(cost_verdicts(cost)), ""]
    return "\n".join(lines)


def perf_matrix() -> str:
    """The graded evaluation against the baselines, and the peer MCP server, with the losses."""
    r = _results()
    graded, peers = r["graded"], r["peers"]
    biggest = max(row["facts"] for row in peers["rows"])
    peer_lost = [line for line in peer_losses(peers["rows"]) if line.startswith(f"- {biggest:,} ")]
    lines = [
        f"Graded evaluation: {graded['questions']} questions in eight tiers over "
        f"{graded['facts']:,} facts, the same for every system:",
        "",
        *key_table({"graded": graded}),
        "Over MCP stdio, against the reference `@modelcontextprotocol/server-memory` "
        f"{peers['memory_server_version']}:",
        "",
        *key_table({"peers": peers}),
        "",
        "Where chronomem loses to a baseline:",
        "",
        *(losses(graded["systems"]) or ["- nowhere in the graded evaluation."]),
        "",
        f"Where `chronomem serve` loses to the reference server at {biggest:,} facts:",
        "",
        *(peer_lost or [f"- nowhere at {biggest:,} facts."]),
        "",
    ]
    return "\n".join(lines)


def _largest_gap(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """The largest difference between two LoCoMo reports over every table of figures."""
    gaps = [0.0]
    for section in ("headline", "per_category_r10", "episode_ablation", "fact_channels"):
        for row, values in a[section].items():
            gaps += [abs(v - b[section][row][k]) for k, v in values.items()]
    return max(gaps)


def engines() -> str:
    """chronomem on PostgreSQL beside SQLite: the same recall, and what each engine costs."""
    from scripts.matrix import engines as matrix  # imports psycopg (the postgres extra)

    on_sqlite, on_postgres = _load("locomo.json"), _load("locomo_postgres.json")
    columns = list(on_sqlite["headline"]["chronomem episodes"])
    paths = ("chronomem episodes", "chronomem facts")
    rows = [
        _row(f"{path}, {engine}", report["headline"][path], columns)
        for path in paths
        for engine, report in (("SQLite", on_sqlite), ("PostgreSQL", on_postgres))
    ]
    r = _results()["engines"]
    biggest = r["rows"][-1]
    slower = biggest["recall_ms"]["postgres"]["p50"] / biggest["recall_ms"]["sqlite"]["p50"]
    most = max(r["writers"])
    concurrent = next(row for row in r["rows"] if "concurrent_per_s" in row)["concurrent_per_s"]
    writes = concurrent[str(most)]
    faster = writes["postgres"] / writes["sqlite FULL"]
    lines = [
        "The LoCoMo development set on each engine (`scripts/eval_locomo.py`, with `--db` for "
        "PostgreSQL):",
        "",
        "| ranking | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
        *rows,
        "",
        f"The largest difference anywhere in the two reports (headline, categories, every "
        f"ablation): {_largest_gap(on_sqlite, on_postgres):.3f}.",
        "",
        matrix.render(r),
        "",
        f"- Recall p50 at {biggest['size']:,} facts within 3x of SQLite's: "
        f"{'met' if slower <= 3 else 'missed'} ({slower:.2f}x).",
        f"- Write throughput of {most} concurrent processes above SQLite's at equal "
        f"durability (FULL): {'met' if faster > 1 else 'missed'} ({faster:.2f}x).",
        "",
    ]
    return "\n".join(lines)


def scaling_measured() -> str:
    """docs/scaling.md's figures: cost by size and by writer count, and where RAM runs out."""
    from scripts.matrix import engines as matrix  # imports psycopg (the postgres extra)

    r = _results()
    e, m = r["engines"], r["meta"]["machine"]
    small, big = e["rows"][0], e["rows"][-1]
    growth = {
        engine: big["recall_ms"][engine]["p50"] / small["recall_ms"][engine]["p50"]
        for engine in ("sqlite", "postgres")
    }
    writes = next(row for row in e["rows"] if "concurrent_per_s" in row)["concurrent_per_s"]
    scale = (
        {n: w["postgres"] / writes["1"]["postgres"] for n, w in writes.items()}
        if "1" in (writes)
        else {}
    )
    ram_gib = float(m["RAM"].split()[0])
    per_fact = big["bytes"]["postgres"] / big["size"]
    fits = ram_gib * 2**30 / per_fact
    lines = [
        f"Measured on {m['CPU']} ({m['cores']} cores, {m['RAM']}), PostgreSQL on the same "
        f"machine over a Unix socket, load average {e['load_before']:.1f} as it started:",
        "",
        matrix.render(e),
        "",
        f"- From {small['size']:,} to {big['size']:,} facts ({big['size'] // small['size']}x), "
        f"recall p50 grew {growth['sqlite']:.2f}x on SQLite and {growth['postgres']:.2f}x on "
        "PostgreSQL.",
    ]
    if scale:
        lines.append(
            "- PostgreSQL write throughput by writer processes, relative to one: "
            + ", ".join(f"{n}: {v:.2f}x" for n, v in scale.items())
            + "."
        )
    lines += [
        f"- At {per_fact:,.0f} bytes per fact, this machine's {m['RAM']} holds the whole "
        f"PostgreSQL memory of about {fits / 1e6:,.0f} million facts; beyond that, recall "
        "reads from disk.",
        "",
    ]
    return "\n".join(lines)


# The semantic channel's recall goals by memory size (the retrieval issue of this round).
SEMANTIC_RECALL_GOALS = {10_000: 15.0, 1_000_000: 25.0}


def semantic() -> str:
    """What the semantic channel costs: bench/semantic.json (scripts/bench_semantic.py)."""
    r = _load("semantic.json")
    lines = [
        f"Measured by `python scripts/bench_semantic.py` ([bench/semantic.md](bench/semantic.md)): "
        f"the code before the channel (`{r['baseline']}`), today's with the channel off, and "
        "today's as installed, side by side in one run, interleaved query by query:",
        "",
        "| items | side | recall p50 ms | recall p95 ms | serial episodes/s, FULL | bulk /s |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    verdicts = []
    for row in r["rows"]:
        for side in ("baseline", "channel off", "channel on"):
            m = row[side]
            bulk = "n/a" if m["bulk_per_s"] is None else f"{m['bulk_per_s']:,.0f}"
            lines.append(
                f"| {row['size']:,} | {side} | {m['recall_p50_ms']:.2f} | "
                f"{m['recall_p95_ms']:.2f} | {m['serial_episodes_per_s']:,.0f} | {bulk} |"
            )
        on, off, base = row["channel on"], row["channel off"], row["baseline"]
        limit = SEMANTIC_RECALL_GOALS.get(row["size"])
        recall_goal = (
            f" (goal <= {limit:.0f} ms: {'met' if on['recall_p50_ms'] <= limit else 'missed'})"
            if limit is not None
            else ""
        )
        slower = off["recall_p50_ms"] / base["recall_p50_ms"]
        busy = max(row["load_before"], row["load_after"])
        verdicts.append(
            f"- {row['size']:,} items: recall p50 with the channel {on['recall_p50_ms']:.2f} ms"
            f"{recall_goal}; without it {slower:.2f}x the code before it (goal <= 1.00: "
            f"{'met' if slower <= 1.0 else 'missed'}); serial episodes "
            f"{on['serial_episodes_per_s']:,.0f}/s (goal >= 100: "
            f"{'met' if on['serial_episodes_per_s'] >= 100 else 'missed'}); bulk "
            f"{on['bulk_per_s']:,.0f}/s (goal >= 300: "
            f"{'met' if on['bulk_per_s'] >= 300 else 'missed'})"
            + (f"; measured under load (up to {busy:.1f} on 2 cores)." if busy > 1.0 else ".")
        )
    return "\n".join([*lines, "", *verdicts, ""])


def vectors() -> str:
    """The nearest-neighbour candidates: bench/vectors.json (scripts/bench_vectors.py)."""
    r = _load("vectors.json")
    lines = [
        "Measured by `python scripts/bench_vectors.py` ([bench/vectors.md](bench/vectors.md)), "
        "256-dimension signed-byte vectors, 50 neighbours:",
        "",
        "| items | exact search ms | lists search ms (chosen past 50,000) "
        "| exact neighbours the lists find | lists made s | copy MB | usearch HNSW search ms "
        "| usearch build s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:
        u, e = row["usearch"] or {}, row["exact"]
        search = f"{u['search_ms']:.3f}" if u else "not measured"
        build = f"{u['build_s']:.1f}" if u else "not measured"
        lists = [e.get("lists_ms"), e.get("lists_found"), e.get("lists_build_s")]
        shown = ["exact below 50,000" if v is None else f"{v}" for v in lists]
        lines.append(
            f"| {row['size']:,} | {e['search_ms']:.3f} | {' | '.join(shown)} | "
            f"{e['memory_mb']:.1f} | {search} | {build} |"
        )
    if r.get("locomo_lists"):
        f = r["locomo_lists"]
        lines += [
            "",
            f"On the LoCoMo development set with lists forced onto every conversation "
            f"({f['setting']}), episodes R@1/R@5/R@10 {f['forced']} against {f['exact']} exact.",
        ]
    installed = r["installed_mb"]
    lines += [
        "",
        "Installed: "
        + "; ".join(
            f"{name} {'not installed' if mb is None else f'{mb:.1f} MB'}"
            for name, mb in installed.items()
        )
        + ".",
    ]
    if r["encoder"]:
        e = r["encoder"]
        lines.append(
            f"The MiniLM encoder embeds one question in {e['question_ms']:.1f} ms and "
            f"{e['batch_item_ms']:.2f} ms an item in a batch of 256."
        )
    busy = max(r["load_before"], r["load_after"])
    if busy > 1.0:
        lines.append(f"Measured under load (up to {busy:.1f} on 2 cores).")
    return "\n".join([*lines, ""])


def encoder() -> str:
    """The MiniLM encoder's runtimes: bench/encoder.json (scripts/bench_encoder.py)."""
    r = _load("encoder.json")
    lines = [
        "Measured by `python scripts/bench_encoder.py` ([bench/encoder.md](bench/encoder.md)), "
        f"every runtime in one process, interleaved: {r['questions']} development-set questions "
        f"one at a time, and batches of {r['batch_size']} of its turns:",
        "",
        "| runtime | question p50 ms | question p95 ms | batch of 64, ms an item |",
        "|---|---:|---:|---:|",
    ]
    for row in r["rows"]:
        lines.append(
            f"| {row['side']} | {row['question_p50_ms']:.2f} | {row['question_p95_ms']:.2f} "
            f"| {row['batch_item_ms']:.2f} |"
        )
    fp32, q8 = (
        r["agreement"]["onnxruntime fp32, 1 thread"],
        r["agreement"]["onnxruntime int8, 1 thread"],
    )
    builds = r["builds"]
    sizes = r["installed_mb"]
    lines += [
        "",
        f"On {fp32['texts']} real turns the fp32 graph stored the bytes numpy's pass does for "
        f"{fp32['stored_bytes_equal']}; the int8 graph's vectors had a cosine to them of "
        f"{q8['cosine_mean']:.3f} on average (lowest {q8['cosine_min']:.3f}), "
        f"{q8['stored_bytes_equal']} stored alike. The graphs are built in "
        f"{builds['fp32']['build_s']:.1f} s (fp32, {builds['fp32']['file_mb']:.0f} MB) and "
        f"{builds['q8']['build_s']:.1f} s (int8, {builds['q8']['file_mb']:.0f} MB) on first use, "
        f"and read back, checked, in {builds['fp32']['read_s']:.2f} and "
        f"{builds['q8']['read_s']:.2f} s.",
        "",
        "A process holds "
        + ", ".join(
            f"{m['after_mb'] - m['before_mb']} MB more with {name}"
            for name, m in r["resident_mb"].items()
        )
        + " (loaded, after a batch of 64).",
        "",
        f"The extra installs {sum(v for v in sizes.values() if v):.1f} MB: "
        + ", ".join(f"{k} {v:.1f}" for k, v in sizes.items() if v is not None)
        + ".",
    ]
    busy = max(r["load"])
    if busy > 1.0:
        lines.append(f"Measured under load (up to {busy:.1f} on 2 cores).")
    return "\n".join([*lines, ""])


def hook() -> str:
    """How long the Claude Code hook takes on a prompt: bench/hook.json (scripts/bench_hook.py)."""
    r = _load("hook.json")
    busy = max(r["load_before"], r["load_after"])
    return (
        f"`UserPromptSubmit` answered end to end (a new process per prompt, process start "
        f"included) on a memory of {r['episodes']:,} episodes, {r['runs']} runs: "
        f"p50 {r['p50_ms']:.0f} ms, p95 {r['p95_ms']:.0f} ms; 1-minute load "
        f"{r['load_before']:.1f} before and {r['load_after']:.1f} after"
        + (f" (measured under load, up to {busy:.1f} on 2 cores)." if busy > 1.0 else ".")
        + "\n"
    )


RENDERERS: dict[str, Callable[[], str]] = {
    "encoder": encoder,
    "hook": hook,
    "locomo": locomo,
    "semantic": semantic,
    "vectors": vectors,
    "perf_machine": perf_machine,
    "perf_sessions": perf_sessions,
    "perf_adapters": perf_adapters,
    "perf_langgraph": perf_langgraph,
    "perf_memory": perf_memory,
    "perf_matrix": perf_matrix,
    "engines": engines,
    "scaling_measured": scaling_measured,
    "locomo_goals": locomo_goals,
}


def render(text: str, document: Path = README) -> str:
    """``text`` (the content of ``document``) with every generated block replaced by its
    renderer's output, its links to bench/ relative to ``document``'s folder."""
    bench = Path(os.path.relpath(REPO / "bench", document.parent)).as_posix()

    def fill(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in RENDERERS:
            raise SystemExit(f"{document.name}: block {name!r} has no renderer in {__file__}")
        body = _BENCH_LINK.sub(f"]({bench}/", RENDERERS[name]())
        return m.group(1) + body + m.group(4)

    return BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    """Rewrite the generated blocks of README.md and docs/, or with --check report whether
    any is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a block is stale")
    args = parser.parse_args(argv)
    stale = []
    for document in DOCUMENTS:
        current = document.read_text(encoding="utf-8")
        fresh = render(current, document)
        if fresh == current:
            continue
        stale.append(document.relative_to(REPO).as_posix())
        if not args.check:
            document.write_text(fresh, encoding="utf-8")
    if args.check and stale:
        print(f"stale generated blocks in {', '.join(stale)}: run scripts/readme_tables.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
