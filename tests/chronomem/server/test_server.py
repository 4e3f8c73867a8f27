"""The MCP server, driven by the SDK's own client over real stdio subprocesses."""

from __future__ import annotations

import inspect
import json
import random
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession

from chronomem import ChronoMem, ChronoMemError, cli, server
from chronomem._doors.settings import resolve_owner
from chronomem.cli._transfer import ExportFormatError
from tests.chronomem.backends import Databases, Target, rows
from tests.chronomem.mcp_client import (
    call,
    call_error,
    connect,
    raw_stdio,
    run,
    server_env,
    shown_id,
    text_of,
)
from tests.chronomem.mcp_client import server_args as _args

EXPECTED_TOOLS = {
    "chronomem_remember",
    "chronomem_remember_episode",
    "chronomem_index_session",
    "chronomem_recall",
    "chronomem_supersede",
    "chronomem_forget",
    "chronomem_timeline",
    "chronomem_contradictions",
    "chronica_record_actum",
    "chronica_get_acta",
}


@pytest.fixture
def db(databases: Databases) -> Target:
    """The server's database (``CHRONOMEM_DB``): a file, or a fresh PostgreSQL database."""
    return databases.new("m")


async def check_tool_list(s: ClientSession) -> None:
    """Every tool is listed, typed, documented for a model, and takes no owner."""
    tools = {t.name: t for t in (await s.list_tools()).tools}
    assert set(tools) == EXPECTED_TOOLS
    for tool in tools.values():
        assert tool.description
        assert "use" in tool.description.lower()
        assert tool.output_schema is not None
        # Inlined records: clients validate every result, and resolving $ref doubled that.
        assert "$ref" not in json.dumps(tool.output_schema)
        # The owner is configuration, never something a model could forge.
        assert "owner" not in json.dumps(tool.input_schema)
    recall = tools["chronomem_recall"].input_schema["properties"]
    assert {"query", "token_budget", "limit", "as_of", "known_at", "category"} <= set(recall)
    assert "active_only" in recall
    assert "idempotency_key" in tools["chronica_record_actum"].input_schema["properties"]
    acta = tools["chronica_get_acta"].input_schema["properties"]
    assert {"last_n", "kinds", "actor_kinds"} <= set(acta)


def test_memory_tools_remember_revise_and_recall(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            await check_tool_list(s)
            wifi = await call(
                s,
                "chronomem_remember",
                content="ThinkPad T14 primary interface is Wi-Fi",
                category="net",
                entities=["ThinkPad T14"],
            )
            assert wifi["contradicts"] == []
            before = datetime.now(timezone.utc)
            eth = await call(
                s,
                "chronomem_supersede",
                old_id=wifi["id"],
                content="ThinkPad T14 primary interface switched to Ethernet",
                category="net",
                entities=["ThinkPad T14"],
            )
            assert eth["superseded"] == wifi["id"]
            now = await call(s, "chronomem_recall", query="ThinkPad network interface")
            assert [f["id"] for f in now["facts"]] == [eth["id"]]
            assert now["total_tokens"] == now["facts"][0]["tokens"] > 0
            past = await call(
                s,
                "chronomem_recall",
                query="ThinkPad network interface",
                as_of=(before - timedelta(milliseconds=1)).isoformat(),
            )
            assert [f["id"] for f in past["facts"]] == [wifi["id"]]
            known = await call(
                s, "chronomem_recall", query="ThinkPad interface", known_at=before.isoformat()
            )
            assert [f["id"] for f in known["facts"]] == [wifi["id"]]
            every = await call(
                s, "chronomem_recall", query="ThinkPad interface", active_only=False, limit=5
            )
            assert {f["id"] for f in every["facts"]} == {wifi["id"], eth["id"]}
            compact = text_of(await s.call_tool("chronomem_recall", {"query": "ThinkPad"}))
            # Lean: the id to act on and the claim; category, dates, trust and scores only in
            # the structured content while they change no decision.
            # The id is the end of it, unique among the owner's facts (wifi's shares its start).
            short = shown_id(compact, "ThinkPad T14 primary interface switched to Ethernet")
            assert eth["id"].endswith(short)
            assert 8 <= len(short) < len(eth["id"])
            assert compact == f"[{short}] ThinkPad T14 primary interface switched to Ethernet"
            tight = await call(s, "chronomem_recall", query="ThinkPad interface", token_budget=1)
            assert tight["facts"] == []
            other = await call(s, "chronomem_recall", query="ThinkPad", category="food")
            assert other["facts"] == []

            history = await call(s, "chronomem_timeline", entity="ThinkPad T14")
            assert [f["id"] for f in history["facts"]] == [wifi["id"], eth["id"]]
            assert history["facts"][0]["superseded_by"] == eth["id"]
            assert history["facts"][0]["valid_until"] is not None

            gone = await call(s, "chronomem_forget", fact_id=short, reason="test")
            assert gone == {"id": eth["id"], "forgotten": True}
            after = await call(s, "chronomem_recall", query="ThinkPad interface")
            assert after["facts"] == []

    run(go)


def test_the_recall_tool_counts_as_use(db: Target, tmp_path: Path) -> None:
    """What ``chronomem_recall`` returned is recorded as used (written when the server
    closes its memory at the end of the session); what it left out is not."""

    async def go() -> str:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            home = await call(s, "chronomem_remember", content="Ardian lives in Kemang")
            await call(s, "chronomem_remember", content="Carla likes durian pancakes")
            found = await call(s, "chronomem_recall", query="where does Ardian live", limit=1)
            assert [f["id"] for f in found["facts"]] == [home["id"]]
            return str(home["id"])

    home = anyio.run(go)
    with ChronoMem(db, owner="tester") as mem:
        used = rows(mem, """SELECT f.id FROM chronomem_used u
                            JOIN chronomem_facts f ON f.rowid = u.item""")  # fmt: skip
    assert used == [(home,)]  # the fact recall left out has no use


def test_chronica_tools_and_contradictions(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, owner="ardian", errlog=tmp_path / "server.log") as s:
            ask = await call(
                s,
                "chronica_record_actum",
                chronicum_id="dinner",
                kind="message",
                actor_kind="human",
                actor="ardian",
                content="A quiet table for four, please.",
            )
            await call(
                s,
                "chronica_record_actum",
                chronicum_id="dinner",
                kind="thought",
                actor_kind="agent",
                actor="concierge",
                content="Search first.",
            )
            await call(
                s,
                "chronica_record_actum",
                chronicum_id="dinner",
                kind="tool_request",
                actor_kind="agent",
                actor="search",
                metadata={"tool": "places.search"},
            )
            reply = {
                "chronicum_id": "dinner",
                "kind": "message",
                "actor_kind": "agent",
                "actor": "booking",
                "idempotency_key": "reply-1",
            }
            first = await call(s, "chronica_record_actum", **reply, content="Booked Kinara.")
            retry = await call(s, "chronica_record_actum", **reply, content="Kinara is booked.")
            assert retry == first

            everything = (await call(s, "chronica_get_acta", chronicum_id="dinner"))["acta"]
            assert [a["actor"] for a in everything] == ["ardian", "concierge", "search", "booking"]
            assert everything[0]["id"] == ask["id"]
            assert everything[2]["metadata"] == {"tool": "places.search"}
            window = await call(
                s,
                "chronica_get_acta",
                chronicum_id="dinner",
                last_n=1,
                kinds=["message"],
                actor_kinds=["human", "agent"],
            )
            assert [a["content"] for a in window["acta"]] == ["Booked Kinara."]

            # The memory on the same file finds a contradiction in what it was told.
            first = await call(
                s,
                "chronomem_remember",
                content="Kinara booking time is 7pm",
                category="booking",
                entities=["Kinara"],
            )
            second = await call(
                s,
                "chronomem_remember",
                content="Kinara booking time is 8pm",
                category="booking",
                entities=["Kinara"],
            )
            assert second["contradicts"] == [first["id"]]
            found = (await call(s, "chronomem_contradictions"))["contradictions"]
            assert len(found) == 1
            assert set(found[0]["fact_ids"]) == {first["id"], second["id"]}
            assert found[0]["reason"]

    run(go)


HOSTILE_QUERIES = ['"; DROP TABLE chronomem_facts; --', "NEAR(a b) OR *", 'col:"x" AND ^', "*"]


def test_error_paths_are_readable_and_the_server_keeps_serving(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            fact = await call(s, "chronomem_remember", content="Ardian prefers quiet tables")
            for query in HOSTILE_QUERIES:
                await call(s, "chronomem_recall", query=query)
            assert "NUL" in await call_error(s, "chronomem_recall", query="a\x00b")
            assert "NUL" in await call_error(s, "chronomem_remember", content="a\x00b")
            huge = "x" * 1_000_000
            assert "the limit is" in await call_error(s, "chronomem_recall", query=huge)
            await call_error(s, "chronomem_remember", content=huge + " y" * 10)

            assert "not found" in (await call_error(s, "chronomem_forget", fact_id="nope")).lower()
            missing = await call_error(s, "chronomem_supersede", old_id="nope", content="x is y")
            assert "not found" in missing.lower()
            assert "InvalidFactError" in await call_error(s, "chronomem_remember", content="  ")
            await call_error(s, "chronomem_remember", content="x", trust=7)
            assert "limit" in await call_error(s, "chronomem_recall", query="x", limit="many")
            assert "limit" in await call_error(s, "chronomem_recall", query="x", limit=2**63)
            assert "token_budget" in await call_error(
                s, "chronomem_recall", query="x", token_budget=-1
            )
            assert "query" in await call_error(s, "chronomem_recall")
            await call_error(s, "chronomem_recall", query="x", as_of="not a date")
            await call_error(s, "no_such_tool")

            await call(s, "chronomem_forget", fact_id=fact["id"])
            again = await call_error(s, "chronomem_forget", fact_id=fact["id"])
            assert "FactNotActiveError" in again

            enum = await call_error(s, "chronica_get_acta", chronicum_id="dinner", kinds=["gossip"])
            assert "message" in enum
            assert "not found" in await call_error(s, "chronica_get_acta", chronicum_id="nope")
            overflow = await call_error(s, "chronica_get_acta", chronicum_id="x", last_n=2**63)
            assert "last_n" in overflow
            empty = await call_error(
                s,
                "chronica_record_actum",
                chronicum_id="s",
                kind="message",
                actor_kind="human",
                actor="me",
                content="",
            )
            assert "content" in empty

            # Still serving, and nothing outside the database was touched.
            ok = await call(s, "chronomem_remember", content="Ardian likes Kinara")
            assert ok["id"]
        names = {p.name for p in tmp_path.iterdir()}
        assert {n for n in names if not n.startswith("m.db")} == {"server.log"}

    run(go)


FTS5_PIECES = ['"', "*", "^", "NEAR(", ")", "(", " OR ", " AND ", " NOT ", ":", "-", "+", "'"]


def _hostile_text(rng: random.Random) -> str:
    pieces = [*FTS5_PIECES, "Kinara", "ß", "😀", "\u202e", "\t", "\n", " ", "%", "_", "\\"]
    code = rng.randrange(1, 0x2FFFF)
    pieces.append("x" if 0xD800 <= code <= 0xDFFF else chr(code))  # the SDK cannot send these
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))


def test_random_hostile_text_never_breaks_the_server(db: Target, tmp_path: Path) -> None:
    rng = random.Random(20261129)

    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            await call(s, "chronomem_remember", content="Kinara is quiet", entities=["Kinara"])
            for _ in range(60):
                text = _hostile_text(rng)
                for tool, args in (
                    ("chronomem_recall", {"query": text}),
                    ("chronomem_timeline", {"entity": text}),
                    ("chronica_get_acta", {"chronicum_id": text}),
                ):
                    result = await s.call_tool(tool, args)
                    if result.is_error:
                        assert text_of(result).strip(), tool  # a readable message
            found = await call(s, "chronomem_recall", query="quiet")
            assert [f["content"] for f in found["facts"]] == ["Kinara is quiet"]

    run(go)


def _nested(depth: int) -> dict[str, object]:
    inner: dict[str, object] = {}
    for _ in range(depth):
        inner = {"a": inner}
    return inner


def test_every_request_is_answered_even_one_the_sdk_cannot_read(tmp_path: Path) -> None:
    # The SDK client refuses to send such text, so speak raw JSON-RPC as a careless client
    # would. The SDK's parser rejects a lone surrogate escape and JSON nested about 200 deep;
    # each such request still gets an error reply naming why, and the server serves on.
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw"}}
    messages: list[dict[str, object] | bytes] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    actum = {"chronicum_id": "s", "kind": "message", "actor_kind": "human", "actor": "me"}
    for i, (tool, args) in enumerate(
        [
            ("chronomem_remember", {"content": "\ud800 x"}),
            ("chronomem_recall", {"query": "a \udfff"}),
            ("chronica_record_actum", {**actum, "content": "hi", "metadata": _nested(300)}),
            ("chronomem_remember", {"content": "still serving"}),
        ],
        start=2,
    ):
        params = {"name": tool, "arguments": args}
        # json.dumps writes a surrogate as the escape \ud800, as such a client sends it.
        line = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params})
        messages.append(line.encode())
    # 5,000 deep: beyond json.dumps too, so written by hand (the id comes after the nesting).
    deep = '{"name": "chronica_record_actum", "arguments": ' + '{"a": ' * 5000 + "1" + "}" * 5000
    messages.append(
        f'{{"jsonrpc": "2.0", "method": "tools/call", "params": {deep}}}, "id": 7}}'.encode()
    )
    messages.append(b"this is not JSON at all")
    messages.append(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "\\ud800"}')
    replies, log = raw_stdio(tmp_path / "m.db", messages, answers={1, 2, 3, 4, 5, 7, None})
    for hostile in (2, 3, 4, 7):
        error = replies[hostile]["error"]
        assert "the server cannot read this request" in error["message"]
    assert "lone surrogates" in replies[2]["error"]["message"]
    assert "recursion limit" in replies[4]["error"]["message"]
    assert replies[None]["error"]["code"] == -32700  # the line that is not JSON
    assert replies[5]["result"]["isError"] is False
    assert "ignored an unreadable notification" in log  # logged, as it has no id to answer
    assert "answered an unreadable request" in log


def test_a_request_with_an_unusable_id_or_version_is_answered_not_ignored(
    tmp_path: Path,
) -> None:
    # The SDK reads a request whose id is not an integer or a string as a notification and
    # never answers it; a request of another JSON-RPC version was answered with id null.
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw"}}
    bad_ids: list[object] = [{"a": 1}, [1], 1.5, None, True, False]
    messages: list[dict[str, object] | bytes] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": bad, "method": "ping"} for bad in bad_ids),
        {"jsonrpc": "1.0", "id": 7},
        {"jsonrpc": "1.0", "id": "eight", "method": "ping"},
        {"jsonrpc": "2.0", "id": 9, "method": "ping"},
    ]
    every: list[dict[str, Any]] = []
    replies, log = raw_stdio(
        tmp_path / "m.db",
        messages,
        answers={1, 7, "eight", 9},
        every=every,
        at_least=10,
    )
    assert len(every) == 10  # one answer per request line, none per notification
    nameless = [r for r in every if r["id"] is None]
    assert len(nameless) == len(bad_ids)
    for reply in nameless:
        assert reply["error"]["code"] == -32600
        assert "id must be an integer or a string" in reply["error"]["message"]
    for answered in (7, "eight"):
        assert replies[answered]["error"]["code"] == -32600
        assert 'jsonrpc must be "2.0"' in replies[answered]["error"]["message"]
    assert replies[9]["result"] == {}  # and it serves on
    assert "answered an invalid request" in log


def test_text_is_checked_by_the_library_rules_in_process(db: Target) -> None:
    # An in-process client hands Python strings straight to the tools (no JSON on the way),
    # so a lone surrogate or a NUL reaches them: the library's one check refuses it readably.
    config = server.config_from_args(_args("--db", str(db), "--owner", "t"), {})

    async def go() -> None:
        async with Client(server.build_server(config)) as c:
            for tool, args, needle in (
                ("chronomem_remember", {"content": "\ud800 x"}, "invalid content"),
                ("chronomem_remember", {"content": "ok", "entities": ["a\x00b"]}, "NUL"),
                ("chronomem_recall", {"query": "a \udfff"}, "lone surrogate"),
                ("chronomem_forget", {"fact_id": "\ud800"}, "lone surrogate"),
                ("chronomem_supersede", {"old_id": "a\x00", "content": "x is y"}, "NUL"),
                ("chronomem_timeline", {"entity": "x\x00"}, "NUL"),
            ):
                result = await c.call_tool(tool, args)
                assert result.is_error, tool
                assert needle in text_of(result), (tool, text_of(result))

    run(go)


def test_owners_never_see_each_other(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with (
            connect(db, owner="alice", errlog=tmp_path / "alice.log") as alice,
            connect(db, owner="bob", errlog=tmp_path / "bob.log") as bob,
        ):
            secret = await call(alice, "chronomem_remember", content="Alice's locker code is 4711")
            await call(
                alice,
                "chronica_record_actum",
                chronicum_id="alice-session",
                kind="message",
                actor_kind="human",
                actor="alice",
                content="private",
            )
            found = await call(bob, "chronomem_recall", query="locker code")
            assert found["facts"] == []
            assert (
                "not found"
                in (await call_error(bob, "chronomem_forget", fact_id=secret["id"])).lower()
            )
            assert "not found" in await call_error(
                bob, "chronica_get_acta", chronicum_id="alice-session"
            )

    run(go)


def test_two_servers_on_one_database_lose_nothing(db: Target, tmp_path: Path) -> None:
    per_client = 25

    async def writer(name: str) -> None:
        async with connect(db, owner="team", errlog=tmp_path / f"{name}.log") as s:
            for i in range(per_client):
                await call(s, "chronomem_remember", content=f"{name} note {i} about Kemang")
                await call(
                    s,
                    "chronica_record_actum",
                    chronicum_id="shared",
                    kind="message",
                    actor_kind="agent",
                    actor=name,
                    content=f"{name} says {i}",
                )

    async def go() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer, "one")
            tg.start_soon(writer, "two")
        async with connect(db, owner="team", errlog=tmp_path / "reader.log") as s:
            acta = (await call(s, "chronica_get_acta", chronicum_id="shared"))["acta"]
            facts = await call(
                s, "chronomem_recall", query="note about Kemang", limit=10 * per_client
            )
        assert len(acta) == 2 * per_client
        for name in ("one", "two"):  # each writer's acta stay in its own order
            mine = [a["content"] for a in acta if a["actor"] == name]
            assert mine == [f"{name} says {i}" for i in range(per_client)]
        assert len(facts["facts"]) == 2 * per_client

    run(go)


def test_a_foreign_file_is_refused_untouched(tmp_path: Path) -> None:
    foreign = tmp_path / "notes.db"
    foreign.write_bytes(b"my diary, not a database\n")
    done = subprocess.run(
        [sys.executable, "-m", "chronomem.server", "--db", str(foreign)],
        env=server_env(tmp_path / "unused.db", "tester"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "not a SQLite database" in done.stderr
    assert "Traceback" not in done.stderr
    assert foreign.read_bytes() == b"my diary, not a database\n"


def test_recall_returns_episodes_with_who_said_them(db: Target) -> None:
    with ChronoMem(db, owner="t") as memory:
        said = memory.remember_episode(
            "I went to the support group yesterday.", speaker="Caroline", session="chat 1"
        )
    config = server.config_from_args(_args("--db", str(db), "--owner", "t"), {})

    async def go() -> None:
        async with Client(server.build_server(config)) as c:
            result = await c.call_tool("chronomem_recall", {"query": "support group"})
            assert not result.is_error
            out = result.structured_content
            assert out is not None
            assert out["facts"] == []
            assert [e["id"] for e in out["episodes"]] == [said]
            assert out["episodes"][0]["speaker"] == "Caroline"
            assert out["total_tokens"] == out["episodes"][0]["tokens"]
            assert "\nCaroline (" in "\n" + text_of(result)
            assert "): I went to the support group" in text_of(result)

    run(go)


def test_one_default_owner_for_python_the_cli_and_the_server(
    db: Target,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Written from Python with no owner named; read by the command line and by the server,
    # neither configured with an owner: all three mean the same owner.
    with ChronoMem(db) as memory:
        fid = memory.remember("Ardian prefers quiet tables")
    monkeypatch.delenv("CHRONOMEM_OWNER", raising=False)
    assert cli.main(["recall", "quiet tables", "--db", str(db), "--json"]) == 0
    assert [f["id"] for f in json.loads(capsys.readouterr().out)] == [fid]

    async def go() -> None:
        async with connect(db, owner=None, errlog=tmp_path / "server.log") as s:
            found = await call(s, "chronomem_recall", query="quiet tables")
            assert [f["id"] for f in found["facts"]] == [fid]
            await call(s, "chronomem_remember", content="Sari is allergic to peanuts")

    run(go)
    with ChronoMem(db) as memory:  # and what the server wrote is Python's too
        assert [f.content for f in memory.recall("peanuts")] == ["Sari is allergic to peanuts"]
    assert resolve_owner(None, {}) == inspect.signature(ChronoMem).parameters["owner"].default


def test_server_errors_are_chronomem_errors() -> None:
    assert issubclass(server.ServerConfigError, ChronoMemError)
    assert issubclass(ExportFormatError, ChronoMemError)


@pytest.mark.parametrize(
    "entry",
    [
        "from chronomem.cli import main; sys.exit(main(['serve']))",
        "import runpy; runpy.run_module('chronomem.server', run_name='__main__')",
    ],
    ids=["chronomem serve", "python -m chronomem.server"],
)
def test_serve_without_the_mcp_extra_says_what_to_install(entry: str, tmp_path: Path) -> None:
    # sys.modules[name] = None makes importing it fail exactly as if it were not installed.
    code = f"import sys; sys.modules['mcp'] = None; {entry}"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=server_env(tmp_path / "m.db", "tester"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "pip install 'chronomem[mcp]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_episodes_are_recorded_indexed_and_recalled_over_stdio(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            recorded = await s.call_tool(
                "chronomem_remember_episode",
                {"content": "We booked Kinara for Friday at 7pm.", "speaker": "booking",
                 "session": "dinner", "at": "2026-03-06T10:00:00Z"},
            )  # fmt: skip
            assert not recorded.is_error, text_of(recorded)
            said = recorded.structured_content
            assert said is not None
            assert said["session"] == "dinner"
            await call(s, "chronomem_remember", content="Kinara is a restaurant in Kemang")
            await call(
                s, "chronica_record_actum", chronicum_id="plans", kind="message",
                actor_kind="human", actor="ardian", content="Book the Kinara table for six",
            )  # fmt: skip
            indexed = await call(s, "chronomem_index_session", chronicum_id="plans")
            assert indexed["added"] == 1
            again = await call(s, "chronomem_index_session", chronicum_id="plans")
            assert again["added"] == 0
            # A question of names alone (Kinara, and the speaker "booking"): the relevance
            # floor, the tool's default, keeps what the names find.
            both = await call(s, "chronomem_recall", query="Kinara booking")
            assert len(both["facts"]) == 1
            assert len(both["episodes"]) == 2
            only = await call(s, "chronomem_recall", query="Kinara booking", kinds=["episode"])
            assert only["facts"] == []
            assert {e["session"] for e in only["episodes"]} == {"dinner", "plans"}
            assert said["id"] in [e["id"] for e in only["episodes"]]
            bad = await s.call_tool("chronomem_recall", {"query": "x", "kinds": ["memo"]})
            assert bad.is_error

    run(go)
