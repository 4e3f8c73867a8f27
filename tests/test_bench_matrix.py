"""The benchmark matrix's own logic: verdicts and losses come from the data, never a constant."""

from __future__ import annotations

from typing import Any

from scripts.matrix.adapter_tables import adapter_verdicts
from scripts.matrix.cost_tables import cost_verdicts, verdict_lines
from scripts.matrix.session_tables import session_losses, session_table
from scripts.matrix.talk import conversation_queries, turns


def _session(store: str, sync: str, append: float, window: float) -> dict[str, Any]:
    return {
        "store": store,
        "synchronous": sync,
        "items": 100,
        "append_ms": {"p50": append, "p95": append * 2},
        "window_ms": {"p50": window, "p95": window * 2},
    }


SDK = "OpenAI Agents SDK SQLiteSession"
OURS = "chronica SQLiteStore (Chronicarius)"


def test_sessions_are_compared_at_the_same_durability_only() -> None:
    # chronica at NORMAL beats the SDK at FULL, but loses to the SDK at NORMAL: a loss.
    rows = [
        _session(SDK, "FULL", 1.0, 0.3),
        _session(SDK, "NORMAL", 0.1, 0.3),
        _session(OURS, "FULL", 0.5, 0.1),
        _session(OURS, "NORMAL", 0.2, 0.1),
    ]
    summary, *lost = session_losses(rows)
    assert "slower in 2 and as fast or faster in 6 of 8 comparisons" in summary
    assert lost == [
        f"- {OURS}, synchronous=NORMAL, 100 items, append p50: 0.20 ms vs SQLiteSession "
        "0.10 ms (2.00x).",
        f"- {OURS}, synchronous=NORMAL, 100 items, append p95: 0.40 ms vs SQLiteSession "
        "0.20 ms (2.00x).",
    ]
    table = "\n".join(session_table(rows))
    assert f"| {OURS} | NORMAL | 100 | 0.20 / 0.40 | 0.10 / 0.20 | 2.00x | 0.33x |" in table


def test_no_loss_still_says_what_was_compared() -> None:
    rows = [_session(SDK, "FULL", 1.0, 0.3), _session(OURS, "FULL", 0.5, 0.1)]
    assert session_losses(rows) == [
        "chronica is slower in 0 and as fast or faster in 4 of 4 comparisons (append and "
        "last-20 read, p50 and p95, against SQLiteSession at the same size and `synchronous` "
        "setting)."
    ]


def _cost(size: int, facts_p50: float, episode_rate: float, mcp_ratio: float) -> dict[str, Any]:
    recall = {"p50": facts_p50, "p95": facts_p50 * 2}
    return {
        "goals": {
            "recall_p50_ms": {"10000": 1.5, "1000000": 5.0},
            "remember_episode_per_s": 2000.0,
            "mcp_recall_vs_trivial": 2.0,
            "mcp_size": 10_000,
        },
        "rows": [
            {
                "size": size,
                "fill": {k: {"fill_s": 1.0, "cached": False} for k in ("facts", "episodes")},
                "recall_ms": {"facts": recall, "episodes": {"p50": 1.0, "p95": 2.0}},
                "remember_episode_per_s": episode_rate,
                "remember_per_s": 1500.0,
            }
        ],
        "mcp": {
            "size": size,
            "trivial": {"p50": 2.0, "p95": 3.0},
            "facts": {"p50": 2.0 * mcp_ratio, "p95": 9.0},
            "episodes": {"p50": 3.0, "p95": 4.0},
        },
    }


def test_cost_verdicts_name_every_miss_from_the_measurements() -> None:
    verdicts = cost_verdicts(_cost(10_000, facts_p50=3.0, episode_rate=1500.0, mcp_ratio=3.0))
    missed = {v.what for v in verdicts if not v.met}
    assert missed == {
        "recall p50, 10,000 facts",
        "serial durable `remember_episode`, on 10,000 episodes",
        "MCP `chronomem_recall` p50 vs a trivial tool, 10,000 facts",
    }
    text = "\n".join(verdict_lines(verdicts))
    assert "Met 2 of 5 goals in this run." in text
    assert "- recall p50, 10,000 facts: 3.00 ms, goal <= 1.5 ms (2.0x the goal)." in text


def test_sizes_without_a_goal_are_not_judged() -> None:
    verdicts = cost_verdicts(_cost(1_000, facts_p50=9.0, episode_rate=2500.0, mcp_ratio=9.0))
    assert [(v.what, v.met) for v in verdicts] == [
        ("serial durable `remember_episode`, on 1,000 episodes", True)
    ]
    assert verdict_lines(verdicts)[-1] == "Met 1 of 1 goals in this run."


def test_conversations_are_seeded_and_questions_use_the_turns_words() -> None:
    first, again = list(turns(60, seed=3)), list(turns(60, seed=3))
    assert first == again
    assert len({t.content for t in first}) > 40  # varied, not one sentence repeated
    assert all(t.speaker in t.session for t in first)
    questions = conversation_queries(first[:10], seed=4)
    assert all(t.speaker in q for t, q in zip(first[:10], questions, strict=True))


def _adk_row(service: str, sync: str, events: int, p50: float) -> dict[str, Any]:
    timing = {"p50": p50, "p95": p50 * 2}
    return {
        "service": service,
        "synchronous": sync,
        "events": events,
        "setting": sync,
    } | dict.fromkeys(("append_ms", "window_ms", "all_ms"), timing)


def test_adapter_goal_takes_the_worst_size_at_the_same_durability() -> None:
    ours, db = "ChronicaSessionService (chronica)", "DatabaseSessionService (ADK, SQLAlchemy)"
    rows = [
        _adk_row(ours, "FULL", 100, 1.0),
        _adk_row(ours, "FULL", 10_000, 2.0),  # its last-20 read doubles: not flat
        _adk_row(db, "FULL", 100, 4.0),  # 4x at 100 events
        _adk_row(db, "FULL", 10_000, 5.0),  # 2.5x at 10,000: the one that counts
        _adk_row(ours, "NORMAL", 100, 1.0),
        _adk_row(ours, "NORMAL", 10_000, 1.0),
        _adk_row(db, "NORMAL", 100, 3.0),
        _adk_row(db, "NORMAL", 10_000, 3.5),
    ]
    verdicts = adapter_verdicts({"adapters_adk": {"sizes": [100, 10_000], "rows": rows}})
    assert len(verdicts) == 2 * 3 + 2
    full_append = verdicts[0]
    assert full_append.what == (
        "ChronicaSessionService vs DatabaseSessionService, FULL, `append_event`"
    )
    assert (full_append.measured, full_append.met) == ("2.50x, worst at 10,000 events", False)
    assert [v.met for v in verdicts[3:6]] == [True, True, True]  # NORMAL: 3x and 3.5x
    flat = {v.what.split(", ")[1]: v.met for v in verdicts[6:]}
    assert flat == {"FULL": False, "NORMAL": True}
    assert "Met 4 of 8 goals in this run." in verdict_lines(verdicts)
