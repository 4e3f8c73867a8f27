"""Matrix 6's tables and its goals checked against what was measured (formatting only).

Goals are judged on the interval of several runs (:func:`.quiet.judge`): met only when every
run meets the goal, *within noise* when the runs straddle it. Shared by ``bench/results.md``
(:mod:`.report`) and the docs (``scripts/readme_tables.py``), so both say the same thing from
the same ``results.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .durability import SETTINGS, SURVIVES
from .fmt import ms as _ms
from .fmt import table as _table
from .quiet import judge

__all__ = ["Verdict", "cost_tables", "cost_verdicts", "floor_lines", "verdict_lines"]

_KINDS = ("facts", "episodes")


@dataclass(frozen=True)
class Verdict:
    """One goal beside its measurement: met, missed, or (``noise``) neither, because the runs'
    interval straddles the goal."""

    what: str
    goal: str
    measured: str
    met: bool
    shortfall: str  # how far off, when missed ("" when met)
    noise: bool = False  # the runs disagree: some meet the goal, some do not


def _verdict(what: str, goal: str, measured: str, judged: str, shortfall: str) -> Verdict:
    met, noise = judged == "met", judged == "within noise"
    return Verdict(what, goal, measured, met, "" if met else shortfall, noise)


def _one(value: float) -> dict[str, float]:
    return {"median": value, "low": value, "high": value, "runs": 1.0}


def _normalised(row: dict[str, Any]) -> dict[str, Any]:
    """A row in today's shape; a row of an older run (one run, NORMAL only) says just that."""
    if "writes_per_s" in row:
        return row
    return row | {
        "recall_p50_ms": {k: _one(row["recall_ms"][k]["p50"]) for k in _KINDS},
        "writes_per_s": {
            "remember_episode": {"NORMAL": _one(row["remember_episode_per_s"])},
            "remember": {"NORMAL": _one(row["remember_per_s"])},
        },
    }


def _rate(value: float) -> str:
    return f"{value:,.0f}"


def _spread(s: dict[str, float], fmt: Callable[[float], str], unit: str = "") -> str:
    """The median, and when there were several runs, the lowest and highest."""
    head = fmt(s["median"]) + unit
    if s["runs"] < 2:
        return head
    return f"{head} ({fmt(s['low'])} to {fmt(s['high'])}, {s['runs']:.0f} runs)"


def _loaded(row: dict[str, Any]) -> bool:
    loads = row.get("load", [])
    return any(x.get("under_load") for x in (loads if isinstance(loads, list) else [loads]))


def cost_tables(section: dict[str, Any]) -> list[str]:
    """Recall and serial writes per size and kind, at each durability setting, then MCP."""
    header = [
        "items stored",
        "kind",
        "recall p50 (ms; median of runs, lowest to highest) / p95",
        *(f"serial writes/s, `synchronous={s}` ({SURVIVES[s]})" for s in SETTINGS),
        "bulk fill (not timed as writes)",
    ]
    body = []
    for r in map(_normalised, section["rows"]):
        for kind in _KINDS:
            fill = r["fill"][kind]
            call = "remember_episode" if kind == "episodes" else "remember"
            rates = r["writes_per_s"][call]
            body.append(
                [
                    f"{r['size']:,}" + (" (under load)" if _loaded(r) else ""),
                    kind,
                    f"{_spread(r['recall_p50_ms'][kind], _ms)} / "
                    f"{_ms(r['recall_ms'][kind]['p95'])}",
                    *(
                        _spread(rates[s], _rate) + f" (`{call}`)" if s in rates else "not measured"
                        for s in SETTINGS
                    ),
                    f"{fill['fill_s']:.1f} s" + (" (cached)" if fill["cached"] else ""),
                ]
            )
    out = _table(header, body)
    uses = _use_table(section["rows"])
    if uses:
        out += ["", *uses]
    mcp = section.get("mcp")
    if mcp:
        trivial = mcp["trivial"]["p50"]
        header = [f"over MCP stdio, {mcp['size']:,} items", "p50 / p95 (ms)", "p50 vs trivial"]
        body = [["trivial `echo` tool, same SDK", _pair(mcp["trivial"]), "1.00x"]]
        body += [
            [f"`chronomem_recall` on {kind}", _pair(mcp[kind]), _mcp_ratio(mcp, kind, trivial)]
            for kind in _KINDS
        ]
        checks = mcp.get("schema_check_ms")  # runs before this was measured have none
        if checks:
            header.append("of it, the client's schema check p50 (ms)")
            for row, name in zip(body, ["trivial", *_KINDS], strict=True):
                row.append(_ms(checks[name]["p50"]))
        out += ["", *_table(header, body)]
    floors = floor_lines(section)
    return [*out, "", *floors] if floors else out


def _use_table(rows: list[dict[str, Any]]) -> list[str]:
    """Recall's p50 recording use (the default) beside ``track_use=False`` in the same runs,
    when measured (issue 41 item 2); none for a run from before."""
    measured = [r for r in rows if "recall_untracked_p50_ms" in r]
    if not measured:
        return []
    header = [
        "items stored",
        "kind",
        "recall p50, `track_use=False` (ms)",
        "recall p50, recording use (ms)",
        "recording / not, p50 (median of runs, lowest to highest)",
    ]
    body = [
        [
            f"{r['size']:,}",
            kind,
            _spread(r["recall_untracked_p50_ms"][kind], _ms),
            _spread(r["recall_p50_ms"][kind], _ms),
            _spread(r["recall_use_ratio_p50"][kind], lambda x: f"{x:.2f}", "x"),
        ]
        for r in measured
        for kind in _KINDS
    ]
    return _table(header, body)


_PART_NAMES = {
    "context": "the previous turns read",
    "row": "the episode's row, time points, vector and speaker",
    "postings": "its FTS5 row",
    "df": "the owner's document frequencies (journaled)",
    "corpus": "the corpus counter",
    "commit": "BEGIN and COMMIT",
}
_LEFT_OUT = {"df": "the document-frequency journal", "postings": "the FTS5 row"}


def floor_lines(section: dict[str, Any]) -> list[str]:
    """The floor under a serial ``remember_episode`` (:mod:`._episode_floor`), per size and
    setting, then, for a missed goal, what stops it, only where the arithmetic settles it
    (:func:`_floor_verdict`). Runs before it was measured show nothing."""
    goals = section["goals"]["remember_episode_per_s"]
    out: list[str] = []
    for r in map(_normalised, section["rows"]):
        for setting, f in sorted(r.get("floor", {}).items()):  # as results.json keeps them
            sql = f["p50_ms"]
            parts = ", ".join(  # in the order a call runs them (a JSON round trip sorts keys)
                f"{name} {f['parts_p50_ms'][p]:.3f}"
                for p, name in _PART_NAMES.items()
                if p in f["parts_p50_ms"]
            )
            saved = "; without ".join(
                f"{_LEFT_OUT[p]} it takes {sql['median'] - w['p50_ms']:.3f} ms and "
                f"{f['pages'] - w['pages']:.1f} pages less"
                for p, w in f["without"].items()
            )
            checkpoints = f["checkpoint_per_call_ms"]
            out.append(
                f"- The floor under a serial `remember_episode` on {r['size']:,} episodes, "
                f"`synchronous={setting}`: one call's SQL alone, recorded and replayed raw, "
                f"takes {_spread(sql, _ms3, ' ms')} p50 ({parts} ms) and writes "
                f"{f['pages']:.1f} WAL pages a commit; without {saved}. "
                + (
                    f"COMMIT costs {1000 * per_page:.1f} µs a WAL page. "
                    if (per_page := f.get("commit_per_page_ms")) is not None
                    else ""
                )
                + (
                    f"The writer's own checkpoints (its backstop; the others run on a thread of "
                    f"their own) add {checkpoints:.3f} ms a call. "
                    if checkpoints is not None
                    else "No checkpoint fell in the writer's commits in the replay. "
                )
                + f"Our Python takes {f['ours_alone_ms']:.3f} ms p50 a call on its own and "
                f"{f['ours_ms']:.3f} ms as it runs between the statements. A whole call takes "
                f"{f['call_here_ms']:.3f} ms p50 right after the replay, "
                f"{f['call_p50_ms']:.3f} ms in the serial writes above."
            )
            rate = r["writes_per_s"]["remember_episode"].get(setting)
            goal = goals[setting] if isinstance(goals, dict) else goals
            if rate is not None and rate["median"] < goal:
                out += _floor_verdict(f"`synchronous={setting}`", r["size"], goal, f)
    return out


def _floor_verdict(setting: str, size: int, goal: float, f: dict[str, Any]) -> list[str]:
    """What stops a missed goal, from the floor's parts: the SQL and its checkpoints alone
    over the goal's time a call (its fastest run, so in every run); else with our Python on
    its own; else the SQL's mean, which a rate is made of, with our Python on its own; else
    with our Python as it runs between the statements (its slowest run); else none of them:
    the miss is in what a whole call adds and in its slower calls."""
    budget = 1000 / goal
    sql, checkpoints = f["p50_ms"], f["checkpoint_per_call_ms"] or 0.0
    least = sql["low"] + checkpoints
    most = sql["high"] + checkpoints
    head = f"- {setting} on {size:,} episodes misses {goal:,.0f}/s ({budget:.3f} ms a call)"
    if least > budget:
        return [
            f"- Why {setting} cannot reach {goal:,.0f}/s on {size:,} episodes: that allows "
            f"{budget:.3f} ms a call, and the SQL the design needs and its checkpoints already "
            f"take {least:.3f} ms or more in every run, with nothing of ours around them."
        ]
    if least + f["ours_alone_ms"] > budget:
        return [
            f"- Why {setting} cannot reach {goal:,.0f}/s on {size:,} episodes with this "
            f"Python: that allows {budget:.3f} ms a call, the SQL and its checkpoints take "
            f"{least:.3f} ms or more and leave {budget - least:.3f} ms, and our Python needs "
            f"{f['ours_alone_ms']:.3f} ms on its own ({f['ours_ms']:.3f} ms as it runs between "
            "the statements). Less SQL (fewer pages a commit) or less Python would have to come "
            "first."
        ]
    mean = f.get("mean_ms")  # runs from before it was kept have none
    if mean is not None and mean + f["ours_alone_ms"] > budget:
        return [
            f"- Why {setting} cannot reach {goal:,.0f}/s on {size:,} episodes with this "
            f"Python: a rate counts the slow calls too, so it is set by the mean call, and the "
            f"SQL alone, replayed, takes {mean:.3f} ms a call on average (its checkpoints and "
            f"slow syncs included; the median of the runs' means). That leaves "
            f"{max(budget - mean, 0.0):.3f} ms of the {budget:.3f}, and our Python needs "
            f"{f['ours_alone_ms']:.3f} ms on its own."
        ]
    if most + f["ours_ms"] > budget:
        return [
            f"{head} not for the SQL and its checkpoints, at most {most:.3f} ms, nor for our "
            f"Python on its own, {f['ours_alone_ms']:.3f} ms, but for our Python as it runs "
            f"between the statements, {f['ours_ms']:.3f} ms."
        ]
    return [
        f"{head} though the SQL, its checkpoints and our Python take at most "
        f"{most + f['ours_ms']:.3f} ms together: the miss is in what a whole call adds to "
        f"them ({f['call_p50_ms']:.3f} ms p50 in the serial writes) and in the calls slower "
        f"than the p50 (mean {f['call_mean_ms']:.3f} ms)."
    ]


def _ms3(value: float) -> str:
    return f"{value:.3f}"


def _mcp_ratio(mcp: dict[str, Any], kind: str, trivial: float) -> str:
    ratio = f"{mcp[kind]['p50'] / trivial:.2f}x"
    blocks = mcp.get("ratio_p50", {}).get(kind)
    if not blocks:
        return ratio
    low, high, n = blocks["low"], blocks["high"], blocks["runs"]
    return f"{ratio} ({low:.2f}x to {high:.2f}x over {n:.0f} stretches)"


def _pair(d: dict[str, float]) -> str:
    return f"{_ms(d['p50'])} / {_ms(d['p95'])}"


def cost_verdicts(section: dict[str, Any]) -> list[Verdict]:
    """Every goal of issue 9's cost section, judged on the interval of this run's repeats."""
    goals = section["goals"]
    rows = [_normalised(r) for r in section["rows"]]
    out = []
    for r in rows:
        limit = goals["recall_p50_ms"].get(str(r["size"]))
        if limit is None:  # quick runs measure other sizes; their goals are not defined
            continue
        for kind in _KINDS:
            s = r["recall_p50_ms"][kind]
            out.append(
                _verdict(
                    f"recall p50, {r['size']:,} {kind}",
                    f"<= {limit:g} ms",
                    _spread(s, _ms, " ms"),
                    judge(s["low"], s["high"], at_most=limit),
                    f"{s['median'] / limit:.1f}x the goal",
                )
            )
    floors = goals["remember_episode_per_s"]  # one per setting (a single figure before)
    for r in rows:
        rates = r["writes_per_s"]["remember_episode"]
        for setting, s in ((k, rates[k]) for k in SETTINGS if k in rates):
            floor = floors[setting] if isinstance(floors, dict) else floors
            out.append(
                _verdict(
                    f"serial `remember_episode` at `synchronous={setting}` ({SURVIVES[setting]}), "
                    f"on {r['size']:,} episodes",
                    f">= {floor:,.0f}/s",
                    _spread(s, _rate, "/s"),
                    judge(s["low"], s["high"], at_least=floor),
                    f"{s['median'] / floor:.0%} of the goal",
                )
            )
    mcp = section.get("mcp")
    if mcp and mcp["size"] == goals["mcp_size"]:
        cap = goals["mcp_recall_vs_trivial"]
        in_process = {r["size"]: r["recall_p50_ms"] for r in rows}.get(mcp["size"], {})
        for kind in _KINDS:
            ratio = mcp[kind]["p50"] / mcp["trivial"]["p50"]
            s = mcp.get("ratio_p50", {}).get(kind) or _one(ratio)
            floor = ""
            if kind in in_process:  # the reason a miss has: recall's own time, no MCP in it
                alone = in_process[kind]["median"]
                floor = (
                    f"; `ChronoMem.recall` alone, in process, takes {_ms(alone)} ms, "
                    f"{alone / mcp['trivial']['p50']:.1f}x the trivial tool's whole round trip"
                )
            check = mcp.get("schema_check_ms", {}).get(kind)
            if check:  # the SDK's, not ours: it checks every result and cannot be told not to
                floor += (
                    f"; the SDK's client checks each result against the tool's output schema "
                    f"in {_ms(check['p50'])} ms p50, with no way to skip it "
                    "([python-sdk#2626](https://github.com/modelcontextprotocol/python-sdk/issues/2626))"
                )
            out.append(
                _verdict(
                    f"MCP `chronomem_recall` p50 vs a trivial tool, {mcp['size']:,} {kind}",
                    f"<= {cap:g}x",
                    f"{_mcp_ratio(mcp, kind, mcp['trivial']['p50'])} "
                    f"({_ms(mcp[kind]['p50'])} vs {_ms(mcp['trivial']['p50'])} ms)",
                    judge(s["low"], s["high"], at_most=cap),
                    f"{ratio / cap:.1f}x the goal{floor}",
                )
            )
    return out


def _state(v: Verdict) -> str:
    return "met" if v.met else "within noise" if v.noise else "**missed**"


def verdict_lines(verdicts: list[Verdict]) -> list[str]:
    """The goals as a table, then where this run misses them (computed, never assumed).

    A goal whose runs straddle it is *within noise*: neither met nor missed."""
    rows = [[v.what, v.goal, v.measured, _state(v)] for v in verdicts]
    out = _table(["goal", "target", "measured", ""], rows)
    missed = [v for v in verdicts if not v.met and not v.noise]
    noisy = [v for v in verdicts if v.noise]
    met = len(verdicts) - len(missed) - len(noisy)
    summary = f"Met {met} of {len(verdicts)} goals in this run."
    if noisy:
        summary += (
            f" {len(noisy)} within run-to-run noise (some runs meet the goal, some do not: "
            "not counted as met)."
        )
    out += ["", summary]
    if missed:
        out += ["", "**Where we miss.**", ""]
        out += [f"- {v.what}: {v.measured}, goal {v.goal} ({v.shortfall})." for v in missed]
    return out
