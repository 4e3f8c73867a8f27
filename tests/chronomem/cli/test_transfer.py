"""``chronomem export`` / ``import``: complete or refused, checked line by line, never half."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chronica import ActorKind, Actum, ActumKind, Chronicarius
from chronomem import ChronoMem
from chronomem._doors.settings import open_session_store
from chronomem.cli import main
from chronomem.cli._format import written_lines
from tests.chronomem.backends import Databases, Target, is_untouched

OWNER = "ardian"
WHEN = "2026-11-29T18:00:00+00:00"


@pytest.fixture
def source(databases: Databases, tmp_path: Path) -> Path:
    """A memory with facts and two sessions, exported to ``backup.jsonl``."""
    db = databases.new("source")
    with ChronoMem(db, owner=OWNER) as memory:
        old = memory.remember("ThinkPad T14 primary interface is Wi-Fi", category="net")
        memory.supersede(old, "ThinkPad T14 primary interface switched to Ethernet")
        memory.remember("Sari is allergic to peanuts")
    with open_session_store(db) as store:
        c = Chronicarius(store)
        for session in ("dinner", "lunch"):
            for i in range(3):
                c.record_actum(OWNER, _actum(session, f"turn {i}"))
    assert main(["export", str(tmp_path / "backup.jsonl"), "--db", str(db), "--owner", OWNER]) == 0
    return tmp_path / "backup.jsonl"


def _actum(session: str, content: str) -> Actum:
    return Actum(
        chronicum_id=session,
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN,
        actor=OWNER,
        content=content,
    )


def _import(
    capsys: pytest.CaptureFixture[str], path: Path, db: Target, *flags: str
) -> tuple[int, str]:
    code = main(["import", str(path), "--db", str(db), "--owner", OWNER, *flags])
    return code, capsys.readouterr().err


def test_the_export_ends_with_counts_and_a_digest(source: Path) -> None:
    lines = [json.loads(line) for line in source.read_text().splitlines()]
    assert lines[0] == {"export": {"format": "chronomem", "version": 2, "owner": OWNER}}
    end = lines[-1]["end"]
    assert (end["facts"], end["chronica"], end["acta"]) == (3, 2, 6)
    assert len(end["sha256"]) == 64


@pytest.mark.parametrize("keep", [1, 4, 7, 10], ids=lambda n: f"first {n} lines")
def test_a_truncated_export_is_refused_unless_allowed(
    keep: int,
    source: Path,
    databases: Databases,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(source.read_bytes().splitlines(keepends=True)[:keep]))
    target = databases.new("target")
    code, err = _import(capsys, cut, target)
    assert code == 2
    assert "may be cut short" in err
    assert "--allow-truncated" in err
    assert is_untouched(target)  # refused before anything was written

    code, err = _import(capsys, cut, target, "--allow-truncated")
    assert "warning: the file ends without its end line" in err
    assert code == (0 if keep > 1 else 1)


def test_an_altered_export_is_refused(
    source: Path, databases: Databases, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = databases.new("t")
    altered = tmp_path / "altered.jsonl"
    altered.write_text(source.read_text().replace("peanuts", "walnuts"))
    code, err = _import(capsys, altered, target)
    assert code == 2
    assert "does not match its end line (sha256 differ)" in err
    dropped = tmp_path / "dropped.jsonl"
    lines = source.read_text().splitlines(keepends=True)
    dropped.write_text("".join(lines[:2] + lines[3:]))
    code, err = _import(capsys, dropped, target)
    assert "(facts, sha256 differ)" in err
    trailing = tmp_path / "trailing.jsonl"
    trailing.write_text(source.read_text() + lines[1])
    code, err = _import(capsys, trailing, target)
    assert code == 2
    assert f"line {len(lines) + 1}: a record after the end of the export" in err
    assert is_untouched(target)


def _file(path: Path, records: list[tuple[str, Any]]) -> Path:
    """An export with a valid end line around ``records``, written as export writes."""
    path.write_bytes(b"".join(written_lines(OWNER, iter(records))))
    return path


def _session_records(**actum_changes: Any) -> Iterator[tuple[str, Any]]:
    yield "chronicum", {"id": "dinner", "owner_id": OWNER, "created_at": WHEN}
    actum = {
        "id": "0190f1c2-0000-7000-8000-000000000001",
        "chronicum_id": "dinner",
        "kind": "message",
        "actor_kind": "human",
        "actor": OWNER,
        "content": "hello",
        "metadata": {},
        "at": WHEN,
    }
    yield "actum", {**actum, **actum_changes}


BAD_LINES = {
    "an actum that is a list": ("actum", [], "'actum' must hold an object, not list"),
    "a fact that is a string": ("fact", "x", "'fact' must hold an object, not str"),
    "an unknown kind": ("surprise", 1, "unknown record kind 'surprise'"),
    "a fact without content": ("fact", {"id": "x"}, "invalid"),
}


@pytest.mark.parametrize("case", BAD_LINES, ids=list(BAD_LINES))
def test_a_malformed_line_is_named_by_number(
    case: str, databases: Databases, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kind, record, message = BAD_LINES[case]
    target = databases.new("t")
    code, err = _import(capsys, _file(tmp_path / "bad.jsonl", [(kind, record)]), target)
    assert code == 2
    assert f"line 2: {message}" in err
    assert "Traceback" not in err
    assert is_untouched(target)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ('{"export": {"format": "chronomem", "version": "1"}}', "must be a whole number"),
        ('{"export": {"format": "chronomem", "version": 99}}', "newer than this chronomem"),
        ('{"export": {"format": "other", "version": 2}}', "not a chronomem export"),
        ('{"export": []}', "'export' must hold an object"),
        ("[1, 2]", "expected one object with one key"),
        ('{"fact": {}}', "does not start with an export header"),
        ("not json", "not JSON"),
    ],
)
def test_a_bad_header_is_a_clear_error(
    header: str,
    message: str,
    databases: Databases,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(header + "\n")
    target = databases.new("t")
    code, err = _import(capsys, bad, target)
    assert code == 2
    assert "chronomem import: line 1: " in err
    assert message in err
    assert "Traceback" not in err
    assert is_untouched(target)


def test_empty_missing_and_binary_files(
    databases: Databases, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = databases.new("t")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code, err = _import(capsys, empty, target)
    assert code == 2
    assert "no export header" in err
    assert _import(capsys, tmp_path / "missing.jsonl", target)[0] == 1
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage\n")
    code, err = _import(capsys, binary, target)
    assert (code, "line 1: not UTF-8 text" in err) == (2, True)
    nothing = _file(tmp_path / "nothing.jsonl", [])
    assert _import(capsys, nothing, target)[0] == 1  # a valid, empty export
    assert is_untouched(target)


SESSION_PROBLEMS: dict[str, tuple[dict[str, Any], str]] = {
    "NUL content": ({"content": "a\x00b"}, "NUL"),
    "3 MB content": ({"content": "x" * 3_000_000}, "content"),
    "a 5,000-character actor": ({"actor": "a" * 5000}, "actor"),
    "an id that is a number": ({"id": 5}, "id"),
    "an unknown kind": ({"kind": "gossip"}, "gossip"),
    "a string for metadata": ({"metadata": "x"}, "metadata"),
}


@pytest.mark.parametrize("case", SESSION_PROBLEMS, ids=list(SESSION_PROBLEMS))
def test_a_bad_session_record_writes_nothing_at_all(
    case: str, databases: Databases, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Facts come first in the file; a bad actum after them must stop the import before a
    # single fact is written (all or nothing), with the same rules as a live write.
    target = databases.new("t")
    with ChronoMem(target, owner=OWNER) as memory:
        memory.remember("Ardian prefers quiet tables")
        before = list(memory.export_facts())
    fact = {**before[0], "id": "0190f1c2-0000-7000-8000-0000000000ff", "content": "new fact"}
    changes, needle = SESSION_PROBLEMS[case]
    bad = _file(tmp_path / "bad.jsonl", [("fact", fact), *_session_records(**changes)])
    code, err = _import(capsys, bad, target)
    assert code == 2, err
    assert "line 4: " in err
    assert needle in err
    with ChronoMem(target, owner=OWNER) as memory:
        assert list(memory.export_facts()) == before
    with open_session_store(target) as store:
        assert store.chronica() == []


@pytest.mark.parametrize("engine", ["sqlite", "postgres"], ids=lambda e: f"into {e}")
def test_a_good_file_restores_every_part(
    engine: str, source: Path, databases: Databases, capsys: pytest.CaptureFixture[str]
) -> None:
    target = databases.new("t", engine)
    code, _ = _import(capsys, source, target)
    assert code == 0
    with open_session_store(target) as store:
        assert [c.id for c in store.chronica()] == ["dinner", "lunch"]
        assert [a.content for a in store.acta("lunch", owner_id=OWNER)] == [
            "turn 0",
            "turn 1",
            "turn 2",
        ]
    again = main(["import", str(source), "--db", str(target), "--owner", OWNER, "--json"])
    assert again == 0
    assert json.loads(capsys.readouterr().out) == {
        "facts": 0,
        "episodes": 0,
        "sessions": 2,
        "acta": 0,
    }


def test_export_and_stats_read_sessions_a_page_at_a_time(
    databases: Databases,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from chronomem.cli import _transfer

    db = databases.new("paged")
    with ChronoMem(db, owner=OWNER) as memory:  # export and stats need a memory there
        memory.remember("Sari is allergic to peanuts")
    with open_session_store(db) as store:
        c = Chronicarius(store)
        for session in ("first", "second", "third"):
            for i in range(5):
                c.record_actum(OWNER, _actum(session, f"{session} {i}"))
        c.record_actum("someone-else", _actum("first", "not ardian's"))
    whole, paged = tmp_path / "whole.jsonl", tmp_path / "paged.jsonl"
    assert main(["export", str(whole), "--db", str(db), "--owner", OWNER]) == 0
    monkeypatch.setattr(_transfer, "_PAGE", 2)  # sessions and acta both span several pages
    assert main(["export", str(paged), "--db", str(db), "--owner", OWNER]) == 0
    records = [json.loads(line) for line in paged.read_text().splitlines()]
    assert [r["chronicum"]["id"] for r in records if "chronicum" in r] == [
        "first", "second", "third"]  # fmt: skip
    contents = [r["actum"]["content"] for r in records if "actum" in r]
    assert contents == [f"{s} {i}" for s in ("first", "second", "third") for i in range(5)]
    assert paged.read_text() == whole.read_text()
    capsys.readouterr()
    assert main(["stats", "--db", str(db), "--owner", OWNER, "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["sessions"], stats["acta"]) == (3, 15)


def test_import_with_sessions_takes_only_a_checked_batch(tmp_path: Path) -> None:
    from chronomem import InvalidArgumentError

    with ChronoMem(tmp_path / "m.db") as mem:
        with pytest.raises(InvalidArgumentError, match="sessions"):
            mem.import_with_sessions([], object())  # type: ignore[arg-type]  # the wrong type on purpose
        assert mem.stats()["facts"] == 0


def test_a_database_of_sessions_only_exports_them_and_creates_no_memory(
    databases: Databases, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 39 item 12: "not found" (exit 1) for a file holding only chronica's sessions.
    db = databases.new("sessions")
    with open_session_store(db) as store:
        Chronicarius(store).record_actum(OWNER, _actum("dinner", "the table is booked for 8"))
    backup = tmp_path / "sessions.jsonl"
    assert main(["export", str(backup), "--db", str(db), "--owner", OWNER]) == 0
    lines = [json.loads(line) for line in backup.read_text().splitlines()]
    assert [next(iter(line)) for line in lines] == ["export", "chronicum", "actum", "end"]
    assert lines[2]["actum"]["content"] == "the table is booked for 8"
    assert not _holds_memory(db)  # an export reads: it made no memory to say it holds none
    target = databases.new("restored")
    code, _ = _import(capsys, backup, target)
    assert code == 0
    with open_session_store(target) as store:
        assert [a.content for a in store.acta("dinner", owner_id=OWNER)] == [
            "the table is booked for 8"
        ]
    nowhere = databases.new("nowhere")
    assert main(["export", str(tmp_path / "x.jsonl"), "--db", str(nowhere)]) == 1
    assert "not found" in capsys.readouterr().err


def _holds_memory(db: Target) -> bool:
    if isinstance(db, Path):
        from chronomem.engine.sqlite.db import memory_exists as file_holds_memory

        return file_holds_memory(str(db))
    from chronomem.engine.postgres.db import memory_exists

    return memory_exists(db)
