"""Short fact ids (chronomem/_doors/ids.py): the end of an id every door shows, unique among
the owner's facts and staying so as facts are written, and every short form (an end, bare or
as ``timeline`` prints it, or a unique prefix) resolved alike by the command line, the MCP
server and the inspector."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from chronomem import ChronoMem, FactNotFoundError
from chronomem._doors.ids import AmbiguousIdError, resolve, short_ids
from chronomem._doors.settings import Target
from chronomem.cli import main
from chronomem.engine import names
from chronomem.ui import UiConfig, build_app

from .backends import Databases, MemoryTarget
from .mcp_client import call, call_error, connect, run, shown_id, text_of

# Ids of one owner: A and B share their first eleven digits (written moments apart) and their
# last four; A and D share their last eight. C ends as another owner's fact does.
A = "01234567aaaa000000000000" + "1111cafe"
B = "01234567aaab000000000001" + "2222cafe"
D = "01234567aaac00000000000f" + "1111cafe"
C = "fedcba98" + "1" * 16 + "3333cafe"
OTHER = "fedcba98" + "0" * 16 + "3333cafe"


def _record(template: dict[str, Any], fid: str, content: str) -> dict[str, Any]:
    return template | {"id": fid, "content": content}


@pytest.fixture
def mems(memory_target: MemoryTarget) -> tuple[ChronoMem, ChronoMem]:
    """Two owners on one database; the first holds A, B, C and D, the second OTHER."""
    ana = memory_target.open(owner="ana")
    bo = memory_target.open(owner="bo")
    ana.remember("template fact", dedup=False)
    template = next(iter(ana.export_facts()))
    ana.import_facts([_record(template, f, f"fact {f}") for f in (A, B, C, D)])
    bo.import_facts([_record(template, OTHER, "bo's fact")])
    return ana, bo


def test_short_ids_are_the_shortest_unique_end_among_the_owners_facts(
    mems: tuple[ChronoMem, ChronoMem],
) -> None:
    ana, bo = mems
    shown = short_ids(ana, [A, B, C, D, "f1"])
    # A and D end alike for eight digits: nine tell them apart. C ends as bo's fact does,
    # which does not count; an id not of 32 hex stays whole.
    assert shown == {A: A[-9:], B: B[-8:], C: C[-8:], D: D[-9:], "f1": "f1"}
    assert short_ids(bo, [OTHER]) == {OTHER: OTHER[-8:]}
    assert ana.unique_suffixes([A, B], shortest=12) == {A: A[-12:], B: B[-12:]}
    assert ana.unique_suffixes([B], shortest=2) == {B: B[-8:]}  # eight at the least


def test_the_digits_grow_with_the_owners_memory(
    mems: tuple[ChronoMem, ChronoMem], monkeypatch: pytest.MonkeyPatch
) -> None:
    ana, _ = mems
    for facts, digits in ((65_535, 8), (65_536, 9), (1_048_576, 10), (2_000_000, 10)):
        monkeypatch.setattr(names, "fact_count", lambda conn, owner, n=facts: n)
        assert ana.unique_suffixes([B]) == {B: B[-digits:]}, facts


def test_resolve_takes_every_short_form(mems: tuple[ChronoMem, ChronoMem]) -> None:
    ana, bo = mems
    for given in (A, A[-9:], "…" + A[-9:], "..." + A[-9:], A[:12], A[:12] + "…", A.upper()[:12]):
        assert resolve(ana, given) == A, given
    assert resolve(ana, B[-8:]) == B
    assert resolve(ana, "…" + C[-8:]) == C  # bo's fact with the same end is not ana's
    assert resolve(bo, OTHER[-8:]) == OTHER
    assert resolve(ana, "f1") == "f1"  # too short for a short id: the library judges the id
    for ambiguous in (A[:8], A[-8:], "…" + A[-8:], "01234567aaa…"):
        with pytest.raises(AmbiguousIdError, match="names more than one fact id"):
            resolve(ana, ambiguous)
    # A prefix marked as one is no end, and an end marked as one is no prefix.
    with pytest.raises(FactNotFoundError):
        resolve(ana, A[-9:] + "…")
    with pytest.raises(FactNotFoundError):
        resolve(ana, "…" + A[:12])
    with pytest.raises(FactNotFoundError):
        resolve(ana, "deadbeef")
    with pytest.raises(FactNotFoundError):
        resolve(bo, A[-9:])  # ana's fact is unknown to bo


def test_short_ids_stay_valid_under_rapid_writes(databases: Databases) -> None:
    """Facts written in a tight loop, each short id taken as a door shows it right after the
    write; after every later write and a supersede of every third fact, each still names its
    fact. The shortest unique prefixes taken alike go stale: that is what this replaced."""
    db: Target = databases.new("rapid")
    shown: dict[str, str] = {}
    prefixes: dict[str, str] = {}
    with ChronoMem(db, owner="ana") as mem:
        for i in range(300):
            fid = str(mem.remember(f"Sensor {i} reads {i * 7} degrees", dedup=False))
            shown[fid] = short_ids(mem, [fid])[fid]
            prefixes[fid] = mem.unique_prefixes([fid])[fid]
        ids = list(shown)
        for fid in ids[::3]:
            mem.supersede(resolve(mem, "…" + shown[fid]), f"{fid} was read again")
        mem.remember("One more sensor reads 1 degree", dedup=False)
        for fid, short in shown.items():
            assert resolve(mem, short) == fid
            assert resolve(mem, "…" + short) == fid
        stale = 0
        for fid, prefix in prefixes.items():
            try:
                stale += resolve(mem, prefix + "…") != fid
            except AmbiguousIdError:
                stale += 1
        assert stale > 10, stale  # ids written moments apart share their start (63 of 300 here)


def short_ids_of(db: Target, fid: str) -> str:
    with ChronoMem(db, owner="ana") as mem:
        return short_ids(mem, [fid])[fid]


def test_every_door_takes_the_short_forms(
    databases: Databases, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db: Target = databases.new("doors")
    monkeypatch.setenv("CHRONOMEM_DB", str(db))
    monkeypatch.setenv("CHRONOMEM_OWNER", "ana")
    assert main(["remember", "Ana's dog is called Rex", "--entity", "Ana"]) == 0
    assert main(["remember", "Ana's cat is called Tom", "--entity", "Ana"]) == 0
    assert main(["remember", "Ana's fish is called Bubbles", "--entity", "Ana"]) == 0
    capsys.readouterr()
    with ChronoMem(db, owner="ana") as mem:
        dog, cat, fish = (f.id for f in mem.timeline("Ana"))
        short = short_ids(mem, [dog, cat, fish])
        prefix = {fid: mem.unique_prefixes([fid], shortest=12)[fid] for fid in (dog, cat, fish)}

    # The command line: timeline prints each end as it takes it back.
    assert main(["timeline", "Ana"]) == 0
    printed = capsys.readouterr().out
    assert all(f"…{short[f]}  " in printed for f in (dog, cat, fish)), printed
    assert main(["forget", f"…{short[dog]}", "--reason", "typo"]) == 0
    assert capsys.readouterr().out == f"forgot {dog}\n"
    assert main(["supersede", prefix[cat], "Ana's cat is called Tim"]) == 0
    assert capsys.readouterr().out.startswith(f"superseded {cat} with ")
    assert main(["forget", dog[:8]]) == 2  # three facts start so: nothing is done
    assert "names more than one fact id" in capsys.readouterr().err

    # The inspector.
    config = UiConfig(db=db, owner="ana", host="127.0.0.1", port=8766, token=None)
    with TestClient(build_app(config), base_url="http://127.0.0.1:8766") as client:
        for given in (fish, short[fish], f"…{short[fish]}", prefix[fish]):
            answer = client.get("/api/fact", params={"id": given})
            assert answer.status_code == 200, answer.text
            assert (answer.json()["id"], answer.json()["short_id"]) == (fish, short[fish])
        assert client.get("/api/fact", params={"id": "deadbeef"}).status_code == 404
        assert client.get("/api/fact", params={"id": dog[:8]}).status_code == 400
        timeline = client.get("/api/timeline", params={"entity": "Ana"}).json()
        assert {f["id"]: f["short_id"] for f in timeline["facts"]}[fish] == short[fish]

    # The MCP server: the recall's lines show ends, which its tools take back.
    async def go() -> None:
        async with connect(db, owner="ana", errlog=databases.folder / "server.log") as s:
            message = await call_error(s, "chronomem_forget", fact_id=dog[:8])
            assert "AmbiguousIdError" in message
            message = await call_error(s, "chronomem_supersede", old_id="deadbeef", content="x")
            assert "FactNotFoundError" in message
            new = await call(s, "chronomem_supersede", old_id=f"…{short[fish]}", content="Blub")
            assert new["superseded"] == fish  # programs get the whole id back
            said = await s.call_tool("chronomem_recall", {"query": "Blub", "limit": 3})
            line_id = shown_id(text_of(said), "Blub")
            assert line_id == short_ids_of(db, new["id"])
            done = await call(s, "chronomem_forget", fact_id=line_id)
            assert done["id"] == new["id"]

    run(go)
