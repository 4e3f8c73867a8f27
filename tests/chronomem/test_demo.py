"""The main job: ``chronomem demo`` plays session, memory and MCP on one file and exits 0."""

from __future__ import annotations

import contextlib
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from chronica import Chronicarius
from chronica.demo import SESSION
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, demo
from chronomem.cli import main

KEY_LINES = [
    # 1. the chronica session: windows, the retried reply, the stranger
    "chronica: one session ('dinner-friday') shared by a human and three agents",
    "Concierge's window: last 4 messages and tool results, no thoughts (4 acta)",
    "Retried reply stored once: True",
    "Another owner asking for the session is refused",
    # 2. the memory: supersede, budgeted recall, the past, the timeline, a contradiction
    "+ Ardian's dinner party size is 6 people   (valid from Wednesday)",
    "token_budget=40",
    "packing stops at the budget",
    "• Ardian's dinner party size is 4 people",
    "dinner party: 3 facts, oldest first (times UTC)",
    "└─ superseded by",
    "reports that it contradicts 1 active fact",
    "contradictions(): ",
    "(allergies meets allergic):\n     • Sari is allergic to peanuts",
    "remember() stores nothing and returns the fact above (FactId.duplicate_of)",
    "index_session('dinner-friday'): 5 messages indexed, then 0 on a second call",
    "• booking: Booked Kinara, Friday 7pm, table for four (#K-2291).",
    # 3. the same file through the MCP server and the SDK's client
    "tools: chronomem_remember, ",
    "chronomem_recall(query='dinner party size and booking', token_budget=60)",
    "idempotency_key='concierge-note-1'), sent twice",
    "booking    Booked Kinara, Friday 7pm, table for four (#K-2291).\n"
    "     concierge  Noted for next time: six people, Sari is allergic to peanuts.\n"
    "   a bad call",
    "a bad call is a readable tool error",
    "recalls through stdio: p50",
]


def test_demo_shows_the_whole_product(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    demo._claim(tmp_path / "chronomem-demo.db")
    demo._create(tmp_path / "chronomem-demo.db")  # left over from an earlier run: replaced
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for line in KEY_LINES:
        assert line in out, line
    # The session and the memory share the one file in the working directory.
    assert "chronomem-demo.db" in out
    _assert_the_file_holds_what_the_demo_says(tmp_path / "chronomem-demo.db")
    assert (tmp_path / "chronomem-demo.db").stat().st_size > 0
    assert stat.S_IMODE((tmp_path / "chronomem-demo.db").stat().st_mode) == 0o600


def _assert_the_file_holds_what_the_demo_says(path: Path) -> None:
    """The printout is the demo's own account; the file is the evidence."""
    with SQLiteStore(path, read_only=True) as store:
        acta = Chronicarius(store).get_acta(demo.OWNER, SESSION)
    keys = [a.content for a in acta if a.actor == "concierge"]
    assert keys.count("Noted for next time: six people, Sari is allergic to peanuts.") == 1
    booked = [a.content for a in acta if a.actor == "booking" and a.kind == "message"]
    assert booked == ["Booked Kinara, Friday 7pm, table for four (#K-2291)."], "retry kept once"
    with ChronoMem(path, owner=demo.OWNER) as memory:
        party = {f.content: f for f in memory.timeline("dinner party")}
        four = party["Ardian's dinner party size is 4 people"]
        six = party["Ardian's dinner party size is 6 people"]
        assert four.superseded_by == six.id
        assert six.superseded_by is None
        [conflict] = memory.contradictions()
        assert {memory.get(i).content for i in conflict.fact_ids} == {
            "Kinara booking time is 19:00 on Friday",
            "Kinara booking time is 20:00 on Friday",
        }
        allergy = [r for r in memory.export_facts() if "allergic" in r["content"].lower()]
        assert [r["content"] for r in allergy if r["kind"] == "fact"] == [
            "Sari is allergic to peanuts"
        ], "written twice, stored once"
        said = [r for r in memory.export_facts() if r["kind"] == "episode"]
        assert len(said) == len({a.id for a in acta if a.kind == "message"}) - 1  # not the note
        assert {r["session"] for r in said} == {SESSION}
    with ChronoMem(path, owner="mallory") as stranger:
        assert stranger.stats()["facts"] == 0  # the demo wrote only as its owner


def _user_memory(path: Path) -> None:
    with ChronoMem(path, owner="ardian") as memory:
        memory.remember("Ardian's locker code is 4711")


def _other_app(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        conn.execute("INSERT INTO invoices (total) VALUES (12.5)")
        conn.commit()


@pytest.mark.parametrize(
    "make",
    [
        _user_memory,
        _other_app,
        lambda path: path.write_text("my diary\n"),
        lambda path: path.write_bytes(b""),
    ],
    ids=["a user's memory", "another app's SQLite file", "a text file", "an empty file"],
)
def test_demo_replaces_only_its_own_file(
    make: Callable[[Path], None], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "precious.db"
    make(path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert main(["demo", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path} exists and was not made by chronomem demo; refusing to replace it" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # byte for byte


def test_demo_refuses_a_folder_and_stray_sidecars(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "folder.db").mkdir()
    assert main(["demo", "--db", str(tmp_path / "folder.db")]) == 2
    (tmp_path / "gone.db-wal").write_bytes(b"someone's log")
    assert main(["demo", "--db", str(tmp_path / "gone.db")]) == 2
    assert "refusing to guess whose" in capsys.readouterr().err
    assert (tmp_path / "gone.db-wal").read_bytes() == b"someone's log"
    assert not (tmp_path / "gone.db").exists()
