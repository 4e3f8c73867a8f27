"""``chronomem hook``: Claude Code's hook protocol, with payloads and transcripts written to
Claude Code's documented format (JSON on stdin; JSON Lines transcripts of ``user``,
``assistant``, ``summary`` and ``system`` lines, with sidechains and tool blocks)."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from chronica import Chronicarius
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, estimate_tokens
from chronomem.cli._hook import build_parser, run_event
from chronomem.cli._hook_settings import EVENTS, install, uninstall

SESSION = "8f2c1a9e-5d2b-4c1e-9a7f-1b2c3d4e5f60"


def user(uuid: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "parentUuid": None, "isSidechain": False,
            "sessionId": SESSION, "timestamp": "2026-05-01T10:00:00.000Z",
            "cwd": "/w/tidepool", "userType": "external",
            "message": {"role": "user", "content": content}, **extra}  # fmt: skip


def assistant(uuid: str, blocks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"type": "assistant", "uuid": uuid, "parentUuid": None, "isSidechain": False,
            "sessionId": SESSION, "timestamp": "2026-05-01T10:00:05.000Z",
            "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": blocks,
                        "stop_reason": "end_turn"}, **extra}  # fmt: skip


FIRST = [
    user("u1", "Deploys of tidepool go through the blue cluster, never green."),
    assistant("a1", [
        {"type": "thinking", "thinking": "the user states a deployment rule"},
        {"type": "text", "text": "Noted: tidepool deploys to the blue cluster."},
        {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
    ]),
    user("u2", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "README.md"}]),
    user("s1", "a sub-agent's own prompt", isSidechain=True),
    {"type": "summary", "summary": "Deployment rules", "leafUuid": "a1"},
    {"type": "system", "subtype": "stop_hook_summary", "uuid": "x1", "hookCount": 1},
]  # fmt: skip
SAID_FIRST = [
    "Deploys of tidepool go through the blue cluster, never green.",
    "Noted: tidepool deploys to the blue cluster.",
]


def write(path: Path, lines: list[Any], *, mode: str = "w", partial: str = "") -> None:
    with path.open(mode, encoding="utf-8") as f:
        for line in lines:
            f.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
        f.write(partial)


def hook(db: Path | str, payload: Any, *flags: str) -> dict[str, Any] | None:
    args = build_parser().parse_args(["--db", str(db), "--owner", "ardian", *flags])
    out = io.StringIO()
    stdin = io.StringIO(payload if isinstance(payload, str) else json.dumps(payload))
    assert run_event(args, stdin, out) == 0
    return json.loads(out.getvalue()) if out.getvalue() else None


def stop(transcript: Path, event: str = "Stop") -> dict[str, Any]:
    return {"session_id": SESSION, "transcript_path": str(transcript),
            "cwd": "/w/tidepool", "permission_mode": "default",
            "hook_event_name": event, "stop_hook_active": False}  # fmt: skip


def said(db: Path) -> tuple[list[str], list[str]]:
    """The session's acta contents, and the memory's episodes, oldest first."""
    with SQLiteStore(db) as store, ChronoMem(db, owner="ardian") as mem:
        acta = [a.content for a in Chronicarius(store).get_acta("ardian", SESSION)]
        episodes = [r["content"] for r in mem.export_facts() if r["kind"] == "episode"]
    return acta, episodes


def test_capture_records_each_said_line_once(tmp_path: Path) -> None:
    db, transcript = tmp_path / "memory.db", tmp_path / f"{SESSION}.jsonl"
    write(transcript, [*FIRST, "{not json", '"a string"'], partial='{"type": "user", "uu')
    assert hook(db, stop(transcript)) is None  # capture prints nothing
    assert said(db) == (SAID_FIRST, SAID_FIRST)
    for event in ("Stop", "PreCompact", "SessionEnd"):  # fired again: nothing twice
        hook(db, stop(transcript, event))
    assert said(db) == (SAID_FIRST, SAID_FIRST)
    # The transcript grows: the half-written line is finished, and more is said.
    write(transcript, ['id": "u3"}'], mode="a")  # now a whole line, but no message: skipped
    write(transcript, [user("u4", [{"type": "text", "text": "Also: staging is orange."}]),
                       assistant("a4", [{"type": "text", "text": "Staging: orange."}])],
          mode="a")  # fmt: skip
    hook(db, stop(transcript, "PreCompact"))
    more = [*SAID_FIRST, "Also: staging is orange.", "Staging: orange."]
    assert said(db) == (more, more)


def test_a_transcript_replaced_by_a_shorter_one_is_read_again(tmp_path: Path) -> None:
    db, transcript = tmp_path / "memory.db", tmp_path / "t.jsonl"
    write(transcript, FIRST)
    hook(db, stop(transcript))
    write(transcript, [FIRST[0], user("u9", "Rotate the keys on Friday.")])  # shorter, rewritten
    hook(db, stop(transcript))
    assert said(db)[0] == [*SAID_FIRST, "Rotate the keys on Friday."]
    # Same size, other bytes: the old position is not trusted either.
    line = user("u8", "x" * (transcript.stat().st_size - 400))
    write(transcript, [line])
    hook(db, stop(transcript))
    assert said(db)[0][-1] == line["message"]["content"]


def test_hooks_at_once_record_each_line_once(tmp_path: Path) -> None:
    db, transcript = tmp_path / "memory.db", tmp_path / "t.jsonl"
    lines = [user(f"u{i}", f"message {i} about the tidepool release") for i in range(40)]
    write(transcript, lines)
    hook(db, stop(transcript))  # creates the tables before the race
    write(transcript, [user(f"v{i}", f"later message {i}") for i in range(40)], mode="a")
    threads = [threading.Thread(target=hook, args=(db, stop(transcript))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    acta, episodes = said(db)
    assert len(acta) == len(set(acta)) == 80
    assert sorted(episodes) == sorted(acta)


def test_a_prompt_gets_recalled_context_within_its_budget(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with ChronoMem(db, owner="ardian") as mem:
        blue = mem.remember("tidepool deploys go through the blue cluster", category="ops")
        for i in range(200):
            mem.remember(f"tidepool service {i} listens on port {8000 + i}", category="ops")
    prompt = {"session_id": SESSION, "hook_event_name": "UserPromptSubmit", "cwd": "/w/tidepool",
              "prompt": "Which cluster do tidepool deploys go to?"}  # fmt: skip
    reply = hook(db, prompt)
    assert reply is not None
    out = reply["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    assert "blue cluster" in out["additionalContext"]
    assert estimate_tokens(out["additionalContext"]) <= 400
    with contextlib.closing(sqlite3.connect(db)) as conn:  # the context counts as use
        used = conn.execute(
            "SELECT f.id FROM chronomem_used u JOIN chronomem_facts f ON f.rowid = u.item"
        ).fetchall()
    assert (blue,) in used
    small = hook(db, prompt, "--budget", "60")
    assert small is not None
    assert estimate_tokens(small["hookSpecificOutput"]["additionalContext"]) <= 60
    assert hook(db, {**prompt, "prompt": "   "}) is None
    assert hook(tmp_path / "none.db", prompt) is None
    assert not (tmp_path / "none.db").exists()  # a read creates nothing


def test_a_session_starts_with_the_projects_memory(tmp_path: Path) -> None:
    db, transcript = tmp_path / "memory.db", tmp_path / "t.jsonl"
    write(transcript, FIRST)
    hook(db, stop(transcript))
    with ChronoMem(db, owner="ardian") as mem:
        mem.remember("tidepool's staging database is read-only on Fridays", category="ops")
        mem.remember("Ardian drinks his coffee black", category="food")
    start = {"session_id": "new", "hook_event_name": "SessionStart", "source": "startup",
             "cwd": "/w/tidepool", "transcript_path": str(transcript)}  # fmt: skip
    reply = hook(db, start, "--start-budget", "200")
    assert reply is not None
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert reply["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "read-only on Fridays" in context
    assert "blue cluster" in context
    assert "coffee" not in context
    assert estimate_tokens(context) <= 200


NOT_A_SESSION = '{"hook_event_name": "Stop", "session_id": "", "transcript_path": "/none"}'


@pytest.mark.parametrize("stdin", ["{not json", "[]", NOT_A_SESSION])
def test_errors_exit_0_print_nothing_and_are_logged(tmp_path: Path, stdin: str) -> None:
    log = tmp_path / "hook.log"
    folder_as_db = tmp_path / "a-folder"
    folder_as_db.mkdir()
    for db in (tmp_path / "m.db", folder_as_db):
        done = subprocess.run(
            [sys.executable, "-m", "chronomem", "hook", "--db", str(db), "--log", str(log)],
            input=stdin, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert (done.returncode, done.stdout) == (0, "")
    broken = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "deploy?"})
    done = subprocess.run(
        [sys.executable, "-m", "chronomem", "hook", "--db", str(folder_as_db), "--log", str(log)],
        input=broken, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "")
    assert "chronomem hook failed" in log.read_text()
    assert "--log LOG" in subprocess.run(
        [sys.executable, "-m", "chronomem", "hook", "--help"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip


def test_install_merges_ours_and_uninstall_takes_exactly_ours_out(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs: dict[str, Any] = {
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "date"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}],
        },
    }
    settings.write_text(json.dumps(theirs))
    install(settings, f"{sys.executable} -m chronomem hook --db /m.db --installed")
    again = f"{sys.executable} -m chronomem hook --db /m.db --owner ardian --installed"
    install(settings, again)  # again: replaced, not doubled
    merged = json.loads(settings.read_text())
    assert {k: merged[k] for k in ("model", "permissions")} == {
        "model": "opus", "permissions": {"allow": ["Bash(ls:*)"]}}  # fmt: skip
    assert set(EVENTS) <= set(merged["hooks"])
    ours = [h["command"] for groups in merged["hooks"].values() for g in groups
            for h in g["hooks"] if "chronomem hook" in h["command"]]  # fmt: skip
    assert len(ours) == len(EVENTS)
    assert all("--owner ardian" in c for c in ours)
    assert merged["hooks"]["UserPromptSubmit"][0] == theirs["hooks"]["UserPromptSubmit"][0]
    assert json.loads((settings.parent / "settings.json.chronomem-backup").read_text())
    assert uninstall(settings) == len(EVENTS)
    assert json.loads(settings.read_text()) == theirs
    assert uninstall(settings) == 0


def test_install_leaves_a_settings_file_it_cannot_read_alone(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    settings = tmp_path / ".claude" / "settings.json"
    settings.write_text("{ // a comment is not JSON")
    done = subprocess.run(
        [sys.executable, "-m", "chronomem", "hook", "install", "--claude-code", "--project"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "not JSON" in done.stderr
    assert settings.read_text() == "{ // a comment is not JSON"
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "chronomem", "hook", "install", "--claude-code", "--project",
         "--db", "m.db"], cwd=fresh, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    written = json.loads((fresh / ".claude" / "settings.json").read_text())
    command = written["hooks"]["Stop"][0]["hooks"][0]["command"]
    # The committed file names the project's folder, never this machine's path to it.
    assert '--db "$CLAUDE_PROJECT_DIR"/m.db' in command
