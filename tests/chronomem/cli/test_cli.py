"""The ``chronomem`` command line, called through ``main(argv)`` with captured output."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import socket
import stat
import subprocess
import sys
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    Chronicarius,
    Chronicum,
    ChronicumNotFoundError,
)
from chronomem import ChronoMem, DatabaseError
from chronomem._doors.settings import open_session_store
from chronomem._iso8601 import parse_time
from chronomem.cli import build_parser, main
from chronomem.cli._output import Progress
from chronomem.recall.semantic.transformer import encoder_available
from chronomem.write.facts import SystemClock
from tests.chronomem.backends import Databases, Target, is_untouched
from tests.chronomem.mcp_client import server_env

THINKPAD = "ThinkPad T14 primary interface is Wi-Fi"


@pytest.fixture
def db(databases: Databases, monkeypatch: pytest.MonkeyPatch) -> Target:
    """The memory every command uses (``CHRONOMEM_DB``): a file, or a PostgreSQL database."""
    target = databases.new("cli")
    monkeypatch.setenv("CHRONOMEM_DB", str(target))
    monkeypatch.setenv("CHRONOMEM_OWNER", "ardian")
    return target


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_version_names_the_installed_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"chronomem {version('chronomem')}\n"


def test_every_command_has_help_with_an_example() -> None:
    parser = build_parser()
    assert "example:" in parser.format_help()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    choices: dict[str, Any] = subparsers.choices  # type: ignore[assignment]  # argparse internals
    expected = {"serve", "remember", "recall", "supersede", "forget", "timeline"}
    expected |= {"contradictions", "stats", "export", "import", "demo", "remember-episode", "ui"}
    expected |= {"hook", "purge", "erase", "prune", "reindex"}
    assert set(choices) == expected
    for name, sub in choices.items():
        assert "example:" in sub.format_help(), name
        assert f"chronomem {name}" in sub.format_help(), name


def test_remember_recall_supersede_forget(db: Target, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "remember", THINKPAD, "--category", "net")
    assert code == 0
    assert out.startswith("remembered ")
    wifi = out.split()[1]
    found = run_json(capsys, "recall", "ThinkPad network interface")
    assert [f["id"] for f in found] == [wifi]

    code, out, _ = run(capsys, "recall", "ThinkPad network interface", "--budget", "100")
    assert code == 0
    assert THINKPAD in out
    assert "1 fact, " in out

    eth = run_json(
        capsys, "supersede", wifi, "ThinkPad T14 primary interface switched to Ethernet"
    )["id"]
    now = run_json(capsys, "recall", "ThinkPad interface")
    assert [f["id"] for f in now] == [eth]
    every = run_json(capsys, "recall", "ThinkPad interface", "--all")
    assert {f["id"] for f in every} == {wifi, eth}

    code, out, _ = run(capsys, "forget", eth, "--reason", "test")
    assert (code, out.strip()) == (0, f"forgot {eth}")
    code, out, err = run(capsys, "recall", "ThinkPad interface")
    assert (code, out) == (1, "")
    assert "nothing recalled" in err


def test_not_found_is_1_and_usage_is_2(db: Target, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "forget", "no-such-id")
    assert code == 1
    assert "not found" in err
    assert run(capsys, "supersede", "no-such-id", "x is y")[0] == 1
    code, _, err = run(capsys, "recall", "x", "--as-of", "yesterday")
    assert code == 2
    assert "ISO-8601" in err
    assert run(capsys, "remember", "x", "--trust", "7")[0] == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["recall"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["frobnicate"])
    assert exit_info.value.code == 2
    fid = run_json(capsys, "remember", "Ardian likes Kinara")["id"]
    assert run(capsys, "forget", fid)[0] == 0
    assert run(capsys, "forget", fid)[0] == 1  # already forgotten: not active any more


def test_prune_unused_for(
    db: Target, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``prune --unused-for``: what no recall returned for that long goes; every call is its
    own process's memory, so each recall's use is written when the command closes it."""
    used = run_json(capsys, "remember", THINKPAD, "--category", "net")["id"]
    idle = run_json(capsys, "remember", "Ardian likes Kinara")["id"]
    assert run(capsys, "prune")[0] == 2  # neither age: usage, nothing pruned
    assert run(capsys, "prune", "--unused-for", "0d")[0] == 2
    assert run_json(capsys, "prune", "--unused-for", "365d")["facts"] == 0
    start = SystemClock().now()
    ticks = itertools.count()

    def later(days: int) -> None:
        at = start + days * 86_400_000_000
        monkeypatch.setattr(SystemClock, "now", lambda self: at + next(ticks))

    later(200)
    assert [f["id"] for f in run_json(capsys, "recall", "ThinkPad network interface")] == [used]
    later(400)
    code, out, _ = run(capsys, "prune", "--unused-for", "365d", "--episodes-older-than", "90d")
    assert code == 0
    assert out.startswith("pruned episodes older than 90d and items not recalled for 365d")
    assert run_json(capsys, "prune", "--unused-for", "365d")["facts"] == 0
    with ChronoMem(db, owner="ardian") as mem:
        assert mem.get(idle).purged_at is not None
        assert mem.get(used).purged_at is None


def test_timeline_draws_intervals_and_lineage(
    db: Target, capsys: pytest.CaptureFixture[str]
) -> None:
    wifi = run_json(capsys, "remember", THINKPAD, "--entity", "ThinkPad T14")["id"]
    eth = run_json(
        capsys,
        "supersede",
        wifi,
        "ThinkPad T14 primary interface switched to Ethernet",
        "--entity",
        "ThinkPad T14",
        "--valid-from",
        "2030-01-01T09:00:00Z",
    )["id"]
    code, out, _ = run(capsys, "timeline", "ThinkPad T14")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "ThinkPad T14: 2 facts, oldest first (times UTC)"
    assert lines[1].startswith(f"┌ …{wifi[-8:]}")
    assert "→ 2030-01-01 09:00:00" in lines[1]
    assert lines[1].endswith("superseded")
    assert f"superseded by …{eth[-8:]}" in out
    assert lines[-2].startswith(f"└ …{eth[-8:]}  2030-01-01 09:00:00 → now")
    assert lines[-2].endswith("active")
    assert [f["id"] for f in run_json(capsys, "timeline", "ThinkPad T14")] == [wifi, eth]
    assert run(capsys, "timeline", "Nobody")[0] == 1


def test_contradictions_and_stats(db: Target, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "contradictions")[0] == 1  # no memory there: nothing was checked
    run_json(capsys, "remember", "Ardian prefers quiet tables")
    # A clean memory is a check that ran: 0, so `set -e` scripts go on.
    assert run(capsys, "contradictions") == (0, "", "no contradictions\n")
    assert run(capsys, "contradictions", "--json") == (0, "[]\n", "")
    first = run_json(capsys, "remember", "Kinara booking time is 7pm", "--category", "booking")
    code, out, _ = run(capsys, "remember", "Kinara booking time is 8pm", "--category", "booking")
    assert f"contradicts {first['id']}" in out
    code, out, _ = run(capsys, "contradictions")
    assert code == 0
    assert "Kinara" in out
    assert first["id"] in out
    # The attribute in the facts' own words, not the index's stems ("book time").
    assert "'booking time'" in out
    assert "book time" not in out
    found = run_json(capsys, "contradictions")
    assert len(found) == 1
    assert "'booking time'" in found[0]["reason"]
    stats = run_json(capsys, "stats")
    assert stats["facts"] == stats["active"] == 3
    assert stats["sessions"] == 0
    code, out, _ = run(capsys, "stats")
    assert code == 0
    assert "active" in out


def _session(db: Target) -> None:
    with open_session_store(db) as store:
        _record_session(Chronicarius(store))


def _record_session(c: Chronicarius) -> None:
    for i, (kind, actor_kind, actor) in enumerate(
        [
            (ActumKind.MESSAGE, ActorKind.HUMAN, "ardian"),
            (ActumKind.TOOL_REQUEST, ActorKind.AGENT, "search"),
            (ActumKind.MESSAGE, ActorKind.AGENT, "booking"),
        ]
    ):
        actum = Actum(
            chronicum_id="dinner",
            kind=kind,
            actor_kind=actor_kind,
            actor=actor,
            content=f"turn {i}",
            metadata={"n": i},
        )
        c.record_actum("ardian", actum)
    c.record_actum("mallory", Actum(
        chronicum_id="other", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
        actor="mallory", content="not exported with ardian's data",
    ))  # fmt: skip


@pytest.mark.parametrize("other_engine", [False, True], ids=["same engine", "other engine"])
def test_export_import_round_trip_is_lossless(
    other_engine: bool,
    db: Target,
    databases: Databases,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    wifi = run_json(capsys, "remember", THINKPAD, "--category", "net", "--source", "chat")["id"]
    run_json(capsys, "supersede", wifi, "ThinkPad T14 primary interface switched to Ethernet")
    gone = run_json(capsys, "remember", "Ardian dislikes loud bars")["id"]
    run(capsys, "forget", gone, "--reason", "wrong")
    run_json(capsys, "remember", "Sari is allergic to peanuts", "--entity", "Sari")
    said = ("Booked Kinara for 7pm", "--speaker", "booking", "--session", "dinner")
    run_json(capsys, "remember-episode", *said)
    _session(db)

    dump = tmp_path / "backup.jsonl"
    code, _, err = run(capsys, "export", str(dump))
    assert code == 0
    assert "exported 9 records" in err  # 4 facts, 1 episode, 1 session, 3 acta
    engines = {"sqlite": "postgres", "postgres": "sqlite"}
    copy = databases.new("copy", engines[databases.engine] if other_engine else None)
    code, out, err = run(capsys, "import", str(dump), "--db", str(copy))
    assert code == 0
    # Each kind counted apart: the episode is no fifth fact.
    assert out.strip() == "imported 4 new facts, 1 new episode, 1 session (3 acta)"
    assert "\r" not in err  # no progress bar when stderr is not a terminal

    for question in ("ThinkPad interface", "peanuts", "loud bars"):
        for extra in ((), ("--all",)):
            original = run(capsys, "recall", question, "--json", *extra)
            restored = run(capsys, "recall", question, "--json", "--db", str(copy), *extra)
            assert restored == original
    with ChronoMem(db, owner="ardian") as a, ChronoMem(copy, owner="ardian") as b:
        assert list(a.export_facts()) == list(b.export_facts())
    with open_session_store(copy) as copied, open_session_store(db) as kept:
        assert copied.acta("dinner", owner_id="ardian") == kept.acta("dinner", owner_id="ardian")
    code, again, _ = run(capsys, "export", "--db", str(copy))
    assert again.splitlines() == dump.read_text().splitlines()
    again_counts = run_json(capsys, "import", str(dump), "--db", str(copy))
    assert (again_counts["facts"], again_counts["episodes"]) == (0, 0)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal() -> None:
    tty = _Terminal()
    bar = Progress("importing", 10, stream=tty)
    for _ in bar.track(range(10)):
        pass
    bar.finish()
    assert "\rimporting [" in tty.getvalue()
    assert "100.0%" in tty.getvalue()
    assert tty.getvalue().endswith("\n")
    bar.note("writing 10 facts")
    assert tty.getvalue().endswith("writing 10 facts\n")
    piped = io.StringIO()
    quiet = Progress("importing", 10, stream=piped)
    quiet.advance(10)
    quiet.note("writing 10 facts")
    quiet.finish()
    assert piped.getvalue() == ""


def test_serve_starts_the_mcp_server(databases: Databases, tmp_path: Path) -> None:
    db = databases.new("m")
    refused = subprocess.run(
        [sys.executable, "-m", "chronomem.cli", "serve", "--http", "10.0.0.1:8765"],
        env=server_env(db, "ardian"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2
    assert "CHRONOMEM_TOKEN" in refused.stderr

    async def go() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "chronomem.cli", "serve"],
            env=server_env(db, "ardian"),
        )
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [t.name for t in (await session.list_tools()).tools]

    with (tmp_path / "serve.log").open("w") as log:
        assert "chronomem_recall" in anyio.run(go)


def test_python_dash_m_chronomem_and_a_foreign_file(tmp_path: Path) -> None:
    foreign = tmp_path / "notes.db"
    foreign.write_bytes(b"my diary\n")
    done = subprocess.run(
        [sys.executable, "-m", "chronomem", "recall", "x", "--db", str(foreign)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "not a SQLite database" in done.stderr
    assert foreign.read_bytes() == b"my diary\n"


def test_the_core_imports_neither_way_in() -> None:
    # The doors import the core; the core must never import them (or the floor they share),
    # so a library user pays for none and the ways in can grow without touching the core.
    # (tests/chronomem/test_import_rules.py reads the same rule from the code.)
    probe = (
        "import sys, chronomem, chronica\n"
        "DOORS = ('chronomem.cli', 'chronomem.server', 'chronomem.ui', 'chronomem._doors')\n"
        "import chronomem._memory, chronomem.recall.fusion, chronomem.write.importing\n"
        "loaded = [m for m in sys.modules if m.startswith(DOORS)]\n"
        "print(loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-29T18:00:00Z", datetime(2026, 11, 29, 18, tzinfo=timezone.utc)),
        ("2026-11-29T18:00:00z", datetime(2026, 11, 29, 18, tzinfo=timezone.utc)),
        ("2026-11-29T18:00:00", datetime(2026, 11, 29, 18, tzinfo=timezone.utc)),
        ("2026-11-29", datetime(2026, 11, 29, tzinfo=timezone.utc)),
        ("2026-11-29T20:00:00+02:00", datetime(2026, 11, 29, 18, tzinfo=timezone.utc)),
        ("2026-11-29T18:00:00.250000Z", datetime(2026, 11, 29, 18, 0, 0, 250000, timezone.utc)),
    ],
)
def test_one_time_parser_reads_z_and_offsets_as_utc(text: str, expected: datetime) -> None:
    # Spelt out rather than left to fromisoformat, which reads "Z" only from Python 3.11.
    parsed = parse_time(text)
    assert parsed == expected
    assert parsed.tzinfo is timezone.utc


@pytest.mark.parametrize("text", ["yesterday", "", "2026-13-01", "9999-12-31T23:00:00-14:00"])
def test_time_parser_refuses_what_it_cannot_hold(text: str) -> None:
    with pytest.raises(ValueError, match=r"ISO-8601|outside the years"):
        parse_time(text)


def test_a_time_outside_utc_range_is_a_usage_error(
    db: Target, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "remember", "x is y", "--valid-from", "9999-12-31T23:00:00-14:00")
    assert code == 2
    assert "outside the years" in err
    assert is_untouched(db)


def test_recall_shows_episodes_beside_facts(db: Target, capsys: pytest.CaptureFixture[str]) -> None:
    with ChronoMem(db, owner="ardian") as memory:
        said = memory.remember_episode(
            "I went to the support group yesterday.", speaker="Caroline", session="chat 1"
        )
        memory.remember("Caroline goes to a support group on Mondays", category="habit")
    code, out, _ = run(capsys, "recall", "When did Caroline go to the support group?")
    assert code == 0
    assert "episode" in out
    assert "Caroline" in out
    assert "1 fact, 1 episode, " in out
    found = run_json(capsys, "recall", "support group")
    assert {item["kind"] for item in found} == {"fact", "episode"}
    assert said in {item["id"] for item in found}
    only = run_json(capsys, "recall", "support group", "--kind", "episode")
    assert [item["id"] for item in only] == [said]


def test_remember_episode_records_a_turn(db: Target, capsys: pytest.CaptureFixture[str]) -> None:
    recorded = run_json(
        capsys, "remember-episode", "We booked Kinara for 7pm", "--speaker", "booking",
        "--session", "dinner", "--at", "2026-03-06T10:00:00Z",
    )  # fmt: skip
    assert recorded["session"] == "dinner"
    [hit] = run_json(capsys, "recall", "Kinara booking", "--kind", "episode")
    assert (hit["id"], hit["speaker"], hit["at"]) == (
        recorded["id"], "booking", "2026-03-06T10:00:00+00:00",
    )  # fmt: skip
    with pytest.raises(SystemExit) as exit_info:
        main(["remember-episode", "x", "--speaker", "a"])
    assert exit_info.value.code == 2
    assert "--session" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["recall", "anything"],
        ["timeline", "Ardian"],
        ["contradictions"],
        ["stats"],
        ["export"],
        ["forget", "some-id"],
        ["supersede", "some-id", "x is y"],
    ],
)
def test_reading_a_missing_memory_creates_nothing(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "new" / "dir" / "a.db"
    code, out, err = run(capsys, *argv, "--db", str(missing), "--owner", "ardian")
    assert code == 1
    assert out == ""
    assert f"{missing}: not found" in err
    assert list(tmp_path.iterdir()) == []


def test_reading_a_database_without_a_memory_creates_nothing_there(
    databases: Databases, capsys: pytest.CaptureFixture[str]
) -> None:
    # A PostgreSQL database exists before any memory does: a command that only reads must
    # not create chronomem's schema to say there is nothing there.
    empty = databases.new("empty", engine="postgres")
    for argv in (["recall", "x"], ["stats"], ["timeline", "Ardian"], ["forget", "some-id"]):
        code, out, err = run(capsys, *argv, "--db", str(empty), "--owner", "ardian")
        assert (code, out) == (1, "")
        assert "not found (no memory there yet" in err
    assert is_untouched(empty)


def test_reading_a_file_without_a_memory_leaves_its_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # SQLite: an empty file, and a database holding only chronica's sessions, hold no memory;
    # a command that only reads says so and writes nothing into them (issue 20 item 12).
    empty = tmp_path / "empty.db"
    empty.touch()
    sessions = tmp_path / "sessions.db"
    with contextlib.closing(open_session_store(sessions)) as store:
        _record_session(Chronicarius(store))
    before = {p: p.read_bytes() for p in (empty, sessions)}
    for path in before:
        for argv in (["recall", "x"], ["stats"], ["timeline", "Ardian"]):
            code, out, err = run(capsys, *argv, "--db", str(path), "--owner", "ardian")
            assert (code, out) == (1, ""), argv
            assert "not found (no memory there yet" in err
    code, out, err = run(capsys, "export", "--db", str(empty), "--owner", "ardian")
    assert (code, out) == (1, "")
    assert "not found (no memory or sessions there)" in err
    # The sessions alone are exported (issue 39 item 12), and still nothing is written.
    code, out, _ = run(capsys, "export", "--db", str(sessions), "--owner", "ardian")
    assert code == 0
    assert '"chronicum"' in out
    assert {p: p.read_bytes() for p in before} == before
    # (Reading a WAL database leaves its -wal and -shm beside it; no other file appears.)
    made = {p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))}
    assert made == {"empty.db", "sessions.db"}


def test_the_first_write_creates_private_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # SQLite only: files and folders.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CHRONOMEM_DB", raising=False)
    assert run(capsys, "stats")[0] == 1
    assert not (tmp_path / ".chronomem").exists()
    assert run(capsys, "remember", "Ardian prefers quiet tables")[0] == 0
    home = tmp_path / ".chronomem"
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert (home / "memory.db").is_file()
    deep = tmp_path / "a" / "b" / "m.db"
    assert run(capsys, "remember", "Sari likes tea", "--db", str(deep))[0] == 0
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "a" / "b").stat().st_mode) == 0o700
    assert run(capsys, "stats")[0] == 0


def test_an_import_the_write_refuses_stores_neither_facts_nor_sessions(
    db: Target, databases: Databases, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Facts and sessions of one export are one transaction: an actum ID that another owner's
    # session already holds in the target file (found only by the write) undoes the facts too.
    run_json(capsys, "remember", "Sari is allergic to peanuts")
    _session(db)
    dump = tmp_path / "backup.jsonl"
    assert run(capsys, "export", str(dump))[0] == 0
    target = databases.new("target")
    with open_session_store(db) as source:
        taken = source.acta("dinner", owner_id="ardian")
    with open_session_store(target) as store:
        when = taken[0].at
        assert when is not None
        held = [Chronicum(id="dinner", owner_id="mallory", created_at=when)]
        Chronicarius(store).restore("mallory", held, taken[:1])
    code, _, err = run(capsys, "import", str(dump), "--db", str(target))
    assert code == 2
    # One transaction in a file; on PostgreSQL the sessions (their own schema and pool) are
    # restored first, and their failure stops the import before any fact is written.
    said = "nothing was imported" if databases.engine == "sqlite" else "the import stopped"
    assert said in err
    with ChronoMem(target, owner="ardian") as copy:
        assert copy.stats()["facts"] == 0
    with open_session_store(target) as store, pytest.raises(ChronicumNotFoundError):
        store.acta("dinner", owner_id="ardian")


@pytest.mark.parametrize("owner", ["", "   "])
def test_an_empty_owner_is_refused_before_anything_is_made(
    owner: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # ChronoMem(owner="") is refused; the command line once read it as the default owner.
    db = tmp_path / "new" / "m.db"
    with pytest.raises(SystemExit) as usage:
        main(["remember", "x", "--db", str(db), "--owner", owner])
    assert usage.value.code == 2
    assert "argument --owner: invalid owner: must not be empty" in capsys.readouterr().err
    monkeypatch.setenv("CHRONOMEM_OWNER", owner)
    for argv in (["remember", "x"], ["recall", "x"], ["stats"]):
        code, _, err = run(capsys, *argv, "--db", str(db))
        assert code == 2
        assert f"chronomem {argv[0]}: CHRONOMEM_OWNER: invalid owner: must not be empty" in err
    assert not db.parent.exists()
    monkeypatch.delenv("CHRONOMEM_OWNER")
    code, _, err = run(capsys, "remember", "x", "--db", str(db))  # unset: the default owner
    assert code == 0, err


SECRET = "Sw0rdfish-9"
"""A PostgreSQL password that must never reach the screen."""


def _unreachable(password: str) -> str:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"postgresql://ann:{password}@127.0.0.1:{port}/agents"


@pytest.mark.parametrize("password", [SECRET, f"{SECRET}%zz", f"{SECRET} x"])
def test_a_postgresql_password_never_reaches_the_screen(
    password: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # libpq quotes a DSN part it cannot read ('invalid percent-encoded token: "..."'): with a
    # bare "%" or a space, that part is the password itself.
    dsn = _unreachable(password)
    with pytest.raises(DatabaseError) as refused:
        ChronoMem(dsn)
    shown = "".join(traceback.format_exception(refused.value))
    assert "cannot open postgresql://" in shown
    assert SECRET not in shown  # nor in the driver's error it was raised from
    for argv in (["remember", "x"], ["recall", "x"], ["stats"]):
        code, out, err = run(capsys, *argv, "--db", dsn)
        assert code == 1
        assert "postgresql://" in err
        assert SECRET not in out + err


def _chronica_tables(db: Target) -> list[str]:
    """chronica's tables in ``db``: in the file, or in the PostgreSQL database's schemas."""
    if isinstance(db, str):
        import psycopg

        with psycopg.connect(db) as conn:
            rows = conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'chronica'"
            ).fetchall()
    else:
        with sqlite3_readonly(db) as conn:
            rows = conn.execute(
                "SELECT name FROM sqlite_master WHERE name LIKE 'chronica%'"
            ).fetchall()
    return sorted(r[0] for r in rows)


def sqlite3_readonly(path: Path) -> Any:
    import contextlib
    import sqlite3

    return contextlib.closing(sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True))


def _digest(db: Target) -> str:
    import hashlib

    if isinstance(db, str):
        return ",".join(_chronica_tables(db))
    return hashlib.sha256(db.read_bytes()).hexdigest()


def test_stats_and_export_change_nothing_and_the_export_is_private(
    db: Target, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A memory-only database (no session written yet): reading it must not add chronica's
    # tables, and the export, which holds the whole memory, is not for other accounts.
    with ChronoMem(db, owner="ardian") as mem:
        mem.remember("Ardian's locker code is 4412")
    before = _digest(db)
    assert _chronica_tables(db) == []
    stats = run_json(capsys, "stats")
    assert (stats["facts"], stats["sessions"], stats["acta"]) == (1, 0, 0)
    target = tmp_path / "out.jsonl"
    old = os.umask(0o022)  # the common mask, under which open() made the file 0644
    try:
        code, _, err = run(capsys, "export", str(target))
    finally:
        os.umask(old)
    assert code == 0, err
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert _chronica_tables(db) == []
    assert _digest(db) == before


@pytest.mark.skipif(not encoder_available(), reason="the encoder extra is not installed")
def test_reindex_moves_the_file_to_another_encoder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "m.db")
    assert main(["remember", "Bob had a lil car accident on Monday", "--db", db]) == 0
    capsys.readouterr()
    assert main(["reindex", "--encoder", "minilm-l6", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "encoder": "minilm-l6",
        "vectors": 1,
    }
    with ChronoMem(db) as mem:
        assert mem.encoder == "minilm-l6"
    with pytest.raises(SystemExit) as refused:
        main(["reindex", "--encoder", "word2vec", "--db", db])
    assert refused.value.code == 2
