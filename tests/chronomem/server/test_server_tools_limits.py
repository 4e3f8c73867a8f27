"""What a tool takes and how much it gives back: a time given as a number means seconds, one
unit whatever its size; ``chronica_get_acta`` answers a window, never a whole long session.
Both engines, through the SDK's in-process client (the tools as a model calls them)."""

from __future__ import annotations

import contextlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from chronica import ActorKind, Actum, ActumKind, Chronicarius
from chronomem import server
from chronomem._doors.settings import open_session_store
from chronomem.server._acta import DEFAULT_LAST_N, MAX_ACTA, MAX_REPLY_CHARS
from tests.chronomem.backends import Databases, Target
from tests.chronomem.mcp_client import run, text_of
from tests.chronomem.mcp_client import server_args as _args


@pytest.fixture
def db(databases: Databases) -> Target:
    return databases.new("m")


def _client(db: Target) -> Client:
    config = server.config_from_args(_args("--db", str(db), "--owner", "t"), {})
    return Client(server.build_server(config))


async def _ok(c: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await c.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    structured: dict[str, Any] = result.structured_content
    return structured


async def _refused(c: Client, tool: str, **arguments: Any) -> str:
    result = await c.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return text_of(result)


def test_a_numeric_time_is_seconds_whatever_its_size(db: Target) -> None:
    async def go() -> None:
        async with _client(db) as c:
            for given in (1_700_000_000, "1700000000", 1_700_000_000.0):
                fid = (await _ok(c, "chronomem_remember", content="Ardian lives in Tirana",
                                 valid_from=given))["id"]  # fmt: skip
                [fact] = (await _ok(c, "chronomem_timeline", entity="Ardian"))["facts"][-1:]
                assert fact["id"] == fid
                assert fact["valid_from"].startswith("2023-11-14T22:13:20")
            # Year 10000 in seconds was read as milliseconds and stored as 1978-01-11.
            for beyond in (253_402_300_800, 1_700_000_000_000, -62_135_596_801, "1e20"):
                why = await _refused(c, "chronomem_remember", content="x is y", valid_from=beyond)
                assert "outside the years 1 to 9999" in why
                assert "never milliseconds" in why
            assert await _refused(c, "chronomem_remember", content="x is y", valid_from=True)
            last = await _ok(c, "chronomem_remember", content="Sari drinks tea",
                             valid_from="2024-05-01T10:00:00Z")  # fmt: skip
            assert last["id"]
            found = await _ok(c, "chronomem_recall", query="Ardian Tirana", as_of=1_800_000_000)
            assert found["facts"]
            assert "outside the years" in await _refused(
                c, "chronomem_recall", query="tea", known_at=253_402_300_800
            )
            assert "outside the years" in await _refused(
                c, "chronomem_remember_episode", content="hi", speaker="me", session="s",
                at=10**15,
            )  # fmt: skip

    run(go)


def _record(db: Target, contents: list[str]) -> None:
    store = open_session_store(db)
    with contextlib.closing(store):
        acta = [
            Actum(chronicum_id="long", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                  actor="me", content=text)
            for text in contents
        ]  # fmt: skip
        Chronicarius(store).record_acta("t", acta)


def test_get_acta_answers_a_window_never_the_whole_session(db: Target) -> None:
    _record(db, [f"turn {i}" for i in range(MAX_ACTA + 5)])

    async def go() -> None:
        async with _client(db) as c:
            default = await _ok(c, "chronica_get_acta", chronicum_id="long")
            assert [a["content"] for a in default["acta"]] == [
                f"turn {i}" for i in range(MAX_ACTA + 5 - DEFAULT_LAST_N, MAX_ACTA + 5)
            ]
            assert "note" not in default  # what was asked, whole
            some = await _ok(c, "chronica_get_acta", chronicum_id="long", last_n=7)
            assert len(some["acta"]) == 7
            assert "note" not in some
            for asked in (0, MAX_ACTA + 1, 10**6):
                capped = await _ok(c, "chronica_get_acta", chronicum_id="long", last_n=asked)
                assert len(capped["acta"]) == MAX_ACTA
                assert capped["acta"][-1]["content"] == f"turn {MAX_ACTA + 4}"  # the newest
                assert capped["note"].startswith(f"truncated: the {MAX_ACTA} most recent")
            exact = await _ok(c, "chronica_get_acta", chronicum_id="long", last_n=MAX_ACTA)
            assert len(exact["acta"]) == MAX_ACTA
            assert "note" not in exact

    run(go)


def test_get_acta_caps_the_reply_size_and_says_so(db: Target) -> None:
    big = MAX_REPLY_CHARS * 2 // 5  # three fit in no reply; two do
    _record(db, ["small", *(f"{i}" + "x" * big for i in range(3))])

    async def go() -> None:
        async with _client(db) as c:
            reply = await _ok(c, "chronica_get_acta", chronicum_id="long", last_n=0)
            assert [a["content"][0] for a in reply["acta"]] == ["1", "2"]
            assert "2 more older acta" in reply["note"]
            assert f"about {MAX_REPLY_CHARS:,} characters" in reply["note"]

    run(go)


def test_the_schema_says_how_a_time_and_the_window_are_read(tmp_path: Path) -> None:
    from chronomem.server._tools import chronica_get_acta

    assert "default 50" in (chronica_get_acta.__doc__ or "")

    async def go() -> None:
        async with _client(tmp_path / "m.db") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            valid_from = tools["chronomem_remember"].input_schema["properties"]["valid_from"]
            assert "seconds since 1970-01-01 UTC" in str(valid_from)
            last_n = tools["chronica_get_acta"].input_schema["properties"]["last_n"]
            assert last_n["default"] == DEFAULT_LAST_N

    run(go)
    assert datetime.fromtimestamp(1_700_000_000, timezone.utc).year == 2023
