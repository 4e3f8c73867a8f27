"""The three README plots, drawn with matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .data import TIERS
from .optional import bench_module
from .tables import SYSTEM_ORDER

__all__ = ["draw_all"]


def _pyplot() -> Any:
    matplotlib = bench_module("matplotlib")
    matplotlib.use("Agg")
    return bench_module("matplotlib.pyplot")


def _recall_latency(plt: Any, rows: list[dict[str, Any]], out: Path, machine: str) -> None:
    rows = [r for r in rows if "abandoned" not in r]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = [r["size"] + r["serial"] for r in rows]
    for key, style in (("p50", "o-"), ("p95", "s--"), ("p99", "^:")):
        ax.plot(xs, [r["recall_ms"][key] for r in rows], style, label=f"recall {key}")
    ax.plot(xs, [r["ingest_ms"]["p50"] for r in rows], "x-", label="remember p50")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("facts in the database")
    ax.set_ylabel("latency (ms)")
    ax.set_title(f"chronomem latency vs database size\n{machine}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "recall_latency.png", dpi=110)
    plt.close(fig)


def _quality(plt: Any, systems: dict[str, Any], out: Path) -> None:
    names = [n for n in SYSTEM_ORDER if n in systems]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    width = 0.8 / max(1, len(names))
    for ax, key, label in ((axes[0], "hit1", "hit@1"), (axes[1], "recall", "recall@5")):
        for i, name in enumerate(names):
            values = [systems[name]["tiers"][t][key] or 0.0 for t in TIERS]
            ax.bar([x + i * width for x in range(len(TIERS))], values, width, label=name)
        ax.set_xticks([x + width * (len(names) - 1) / 2 for x in range(len(TIERS))])
        ax.set_xticklabels(TIERS, rotation=35, ha="right")
        ax.set_title(label)
        ax.set_ylim(0, 1.05)
        ax.grid(True, axis="y", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(names))
    fig.suptitle("Graded evaluation: quality per tier (same corpus, same questions)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(out / "quality_per_tier.png", dpi=110)
    plt.close(fig)


def _peer_latency(plt: Any, rows: list[dict[str, Any]], out: Path, machine: str) -> None:
    ops = (("ingest_ms", "ingest"), ("search_name_ms", "search by name"), ("update_ms", "update"))
    groups = [(r["server"], r["facts"]) for r in rows]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(groups)
    for i, (r, (server, facts)) in enumerate(zip(rows, groups, strict=True)):
        xs = [x + i * width for x in range(len(ops))]
        ax.bar(xs, [r[key]["p50"] for key, _ in ops], width, label=f"{server}, {facts:,} facts")
    ax.set_xticks([x + width * (len(groups) - 1) / 2 for x in range(len(ops))])
    ax.set_xticklabels([label for _, label in ops])
    ax.set_yscale("log")
    ax.set_ylabel("p50 per MCP call (ms, log)")
    ax.set_title(f"MCP stdio: reference memory server vs chronomem serve\n{machine}", fontsize=10)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "peer_latency.png", dpi=110)
    plt.close(fig)


def draw_all(results: dict[str, Any], out: Path) -> list[Path]:
    """Draw every plot whose matrix is present; return the files written."""
    plt = _pyplot()
    machine = f"{results['meta']['machine']['CPU']}, {results['meta']['machine']['cores']} cores"
    written = []
    if results.get("hardware"):
        _recall_latency(plt, results["hardware"]["rows"], out, machine)
        written.append(out / "recall_latency.png")
    if results.get("graded"):
        _quality(plt, results["graded"]["systems"], out)
        written.append(out / "quality_per_tier.png")
    if results.get("peers"):
        _peer_latency(plt, results["peers"]["rows"], out, machine)
        written.append(out / "peer_latency.png")
    return written
