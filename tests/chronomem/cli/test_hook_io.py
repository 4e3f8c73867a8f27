"""``chronomem hook`` as Claude Code runs it, a new process per event: the reply is ASCII
JSON whatever stdout encodes, a closed or broken stdout is never an error, and a read
creates no file (the log is made at its first line, private)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from chronomem import ChronoMem

FACT = "le déploiement de tidepool passe par le cluster bleu ☂, jamais le vert"
PROMPT = {"hook_event_name": "UserPromptSubmit", "cwd": "/w/tidepool", "session_id": "s1",
          "prompt": "Par quel cluster passe le déploiement de tidepool ?"}  # fmt: skip


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHRONOMEM_", "PYTHONIO"))}
    env.update(HOME=str(home), **extra)
    return env


@pytest.fixture
def db(tmp_path: Path) -> Path:
    with ChronoMem(tmp_path / "m.db", owner="default") as mem:
        mem.remember(FACT, category="ops")
    return tmp_path / "m.db"


ENCODINGS = {
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "cp1252": {"PYTHONIOENCODING": "cp1252"},
    "C locale": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
}


@pytest.mark.parametrize("extra", ENCODINGS.values(), ids=ENCODINGS.keys())
def test_the_reply_is_ascii_json_whatever_stdout_encodes(
    tmp_path: Path, db: Path, extra: dict[str, str]
) -> None:
    log = tmp_path / "hook.log"
    done = subprocess.run(
        [sys.executable, "-m", "chronomem", "hook", "--db", str(db), "--log", str(log)],
        input=json.dumps(PROMPT, ensure_ascii=False).encode("utf-8"),
        capture_output=True, env=clean_env(tmp_path, **extra), timeout=120, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b"")
    text = done.stdout.decode("ascii")  # ASCII: any encoding carries it
    assert FACT in json.loads(text)["hookSpecificOutput"]["additionalContext"]
    assert not log.exists()


def test_a_closed_or_broken_stdout_still_exits_0_quietly(tmp_path: Path, db: Path) -> None:
    log = tmp_path / "hook.log"
    hook = [sys.executable, "-m", "chronomem", "hook", "--db", str(db), "--log", str(log)]
    closed = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *hook], input=json.dumps(PROMPT).encode(),
        capture_output=True, env=clean_env(tmp_path), timeout=120, check=False,
    )  # fmt: skip
    assert (closed.returncode, closed.stderr) == (0, b"")
    assert "could not be written to stdout" in log.read_text()
    # A reader gone before the reply: the pipe is broken when the hook writes.
    status = tmp_path / "status"
    script = '"$@" 2> "$STATUS.err" | head -c 0; echo ${PIPESTATUS[0]} > "$STATUS"'
    broken = subprocess.run(
        ["bash", "-c", script, "bash", *hook], input=json.dumps(PROMPT).encode(),
        env=clean_env(tmp_path, STATUS=str(status)), timeout=120, check=False,
    )  # fmt: skip
    assert broken.returncode == 0
    assert status.read_text().strip() == "0"
    assert Path(f"{status}.err").read_text() == ""


def test_a_read_creates_no_file_and_the_log_is_made_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    start = {"hook_event_name": "SessionStart", "cwd": "/w/tidepool", "source": "startup"}
    for payload in (PROMPT, start, {"hook_event_name": "Notification"}):
        done = subprocess.run(
            [sys.executable, "-m", "chronomem", "hook"], input=json.dumps(payload),
            capture_output=True, text=True, env=clean_env(home), timeout=120, check=False,
        )  # fmt: skip
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert list(home.iterdir()) == []  # neither ~/.chronomem nor its hook.log
    done = subprocess.run(
        [sys.executable, "-m", "chronomem", "hook"], input="{not json",
        capture_output=True, text=True, env=clean_env(home), timeout=120, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    folder, log = home / ".chronomem", home / ".chronomem" / "hook.log"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert "chronomem hook failed" in log.read_text()
    assert [p.name for p in folder.iterdir()] == ["hook.log"]
