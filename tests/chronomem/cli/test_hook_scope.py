"""Captured turns belong to their project (the cwd's git root, or a configured name): a
prompt in one project is never handed another project's conversation unless sharing is
opted in; captured episodes are dated when they were said."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from chronica import Chronicarius
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, Episode
from chronomem.cli import _hook_events
from tests.chronomem.backends import Databases, Target

from .test_hook import SESSION, assistant, hook, user, write

SECRET = "the staging password for alpha is hunter2-orchid"


@pytest.fixture
def projects(tmp_path: Path) -> tuple[Path, Path]:
    alpha, beta = tmp_path / "src" / "alpha", tmp_path / "work" / "beta"
    for root in (alpha, beta):
        (root / ".git").mkdir(parents=True)
        (root / "lib").mkdir()
    return alpha, beta


def captured(db: Target, transcript: Path, cwd: Path, *flags: str) -> None:
    reply = assistant("a1", [{"type": "text", "text": "Noted, hunter2-orchid."}])
    write(transcript, [user("u1", f"Remember: {SECRET}."), reply])
    stop = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(cwd),
            "hook_event_name": "Stop"}  # fmt: skip
    assert hook(db, stop, *flags) is None


def context(db: Target, cwd: Path, event: str, *flags: str) -> str:
    payload: dict[str, Any] = {"session_id": "other", "hook_event_name": event, "cwd": str(cwd),
                               "prompt": "what is the staging password for alpha?",
                               "source": "startup"}  # fmt: skip
    reply = hook(db, payload, *flags)
    return "" if reply is None else str(reply["hookSpecificOutput"]["additionalContext"])


def test_a_project_never_gets_another_projects_conversation(
    tmp_path: Path, projects: tuple[Path, Path], databases: Databases
) -> None:
    alpha, beta = projects
    db = databases.new("memory")
    captured(db, tmp_path / "t.jsonl", alpha / "lib")  # said in a subfolder of alpha
    with ChronoMem(db, owner="ardian") as mem:  # remembered outside the hook: the owner's
        mem.remember("ardian's staging password policy: rotate monthly", category="ops")
    for event in ("UserPromptSubmit", "SessionStart"):
        assert "hunter2" in context(db, alpha, event)
        assert "hunter2" not in context(db, beta, event)
        assert "hunter2" not in context(db, beta / "lib", event)
    assert "hunter2" in context(db, alpha / "lib", "UserPromptSubmit")
    assert "rotate monthly" in context(db, beta, "UserPromptSubmit")
    # Sharing is opted in, by flag or environment.
    assert "hunter2" in context(db, beta, "UserPromptSubmit", "--all-projects")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CHRONOMEM_HOOK_ALL_PROJECTS", "1")
        assert "hunter2" in context(db, beta, "UserPromptSubmit")


def test_a_configured_project_name_scopes_across_folders(
    tmp_path: Path, projects: tuple[Path, Path]
) -> None:
    alpha, beta = projects
    db = tmp_path / "memory.db"
    captured(db, tmp_path / "t.jsonl", alpha, "--project-name", "tidepool")
    assert "hunter2" not in context(db, alpha, "UserPromptSubmit")  # not alpha's: tidepool's
    assert "hunter2" in context(db, beta, "UserPromptSubmit", "--project-name", "tidepool")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CHRONOMEM_HOOK_PROJECT", "tidepool")
        assert "hunter2" in context(db, beta, "UserPromptSubmit")
    with ChronoMem(db, owner="ardian") as mem:
        episode = mem.recall("hunter2 orchid", kinds=("episode",))[0]
    assert episode.metadata == {"claude_code": {"project": "tidepool", "scoped": True}}


def test_captured_turns_are_dated_when_they_were_said(tmp_path: Path, databases: Databases) -> None:
    db, transcript = databases.new("memory"), tmp_path / "t.jsonl"
    old = user("u1", "We chose the blue cluster for tidepool.", timestamp="2024-01-05T09:30:00Z")
    odd = user("u2", "And staging is orange.", timestamp="yesterday-ish")
    write(transcript, [old, odd])
    stop = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": "/w/tidepool",
            "hook_event_name": "Stop"}  # fmt: skip
    hook(db, stop)
    with ChronoMem(db, owner="ardian") as mem:
        episodes = [e for e in mem.recall("blue cluster orange staging") if isinstance(e, Episode)]
        at = {e.content: e.at for e in episodes}
        assert at[old["message"]["content"]] == datetime(2024, 1, 5, 9, 30, tzinfo=timezone.utc)
        assert datetime.now(timezone.utc) - at[odd["message"]["content"]] < timedelta(minutes=5)
        pruned = mem.prune(episodes_older_than=timedelta(days=365))  # retention sees the date
    assert pruned
    with ChronoMem(db, owner="ardian") as mem:
        left = [e.content for e in mem.recall("blue cluster orange staging")]
    assert left == [odd["message"]["content"]]


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2026-05-01T10:00:05.123Z", datetime(2026, 5, 1, 10, 0, 5, 123000, tzinfo=timezone.utc)),
        ("2026-05-01T12:00:00+02:00", datetime(2026, 5, 1, 10, tzinfo=timezone.utc)),
        ("2026-05-01T10:00:00", datetime(2026, 5, 1, 10, tzinfo=timezone.utc)),
        ("0001-01-01T00:00:00+01:00", None),
        ("", None),
        (1714557600, None),
    ],
)
def test_said_at_reads_transcript_timestamps(stamp: object, expected: datetime | None) -> None:
    assert _hook_events.said_at(stamp) == expected


def test_a_capture_killed_before_indexing_is_indexed_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recording and indexing are two transactions: the acta a call recorded and could not
    index are indexed by the next call, dated and scoped as said."""
    db, transcript = tmp_path / "memory.db", tmp_path / "t.jsonl"
    write(transcript, [user("u1", "tidepool ships on Tuesdays", timestamp="2025-03-04T08:00:00Z")])
    stop = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(tmp_path),
            "hook_event_name": "Stop"}  # fmt: skip
    real = _hook_events._index

    def killed(memory: ChronoMem, acta: Any, project: str) -> None:
        if acta:
            raise KeyboardInterrupt  # as a SIGKILL would stop it: after the acta were recorded

    monkeypatch.setattr(_hook_events, "_index", killed)
    with pytest.raises(KeyboardInterrupt):
        hook(db, stop)
    monkeypatch.setattr(_hook_events, "_index", real)
    with SQLiteStore(db) as store:
        assert len(Chronicarius(store).get_acta("ardian", SESSION)) == 1
    with ChronoMem(db, owner="ardian") as mem:
        assert mem.recall("tidepool Tuesdays") == []
    write(transcript, [user("u2", "and tidepool freezes in December")], mode="a")
    hook(db, stop)
    with ChronoMem(db, owner="ardian") as mem:
        found = {e.content: e for e in mem.recall("tidepool Tuesdays December")}
    assert set(found) == {"tidepool ships on Tuesdays", "and tidepool freezes in December"}
    first = found["tidepool ships on Tuesdays"]
    assert isinstance(first, Episode)
    assert first.at == datetime(2025, 3, 4, 8, tzinfo=timezone.utc)
    assert first.metadata == {"claude_code": {"project": str(tmp_path.resolve()), "scoped": True}}
