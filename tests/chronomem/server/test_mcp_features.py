"""Annotations, resources, completion and prompts, through the SDK's client over stdio.

Both engines: a read-only tool must leave the database as it was (the SQLite file and its
write-ahead log byte for byte; every PostgreSQL table row for row), and another owner's fact,
timeline and session are exactly unknown ones, in every list and completion too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.types import (
    EmbeddedResource,
    PaginatedRequestParams,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    TextContent,
    TextResourceContents,
)

from chronomem.server._hints import HINTS
from chronomem.server._resources import LIST_PAGE
from tests.chronomem.backends import Databases, Target
from tests.chronomem.mcp_client import call, connect, fingerprint, run, shown_id

READ_ONLY = {
    "chronomem_recall": {"query": "ThinkPad network"},
    "chronomem_timeline": {"entity": "ThinkPad T14"},
    "chronomem_contradictions": {},
    "chronica_get_acta": {"chronicum_id": "s1"},
}
"""Every read-only tool, with arguments that make it read something."""


@pytest.fixture
def db(databases: Databases) -> Target:
    return databases.new("m")


async def _seed(s: ClientSession) -> str:
    wifi = await call(
        s, "chronomem_remember", content="ThinkPad T14 network is Wi-Fi", entities=["ThinkPad T14"]
    )
    eth = await call(
        s,
        "chronomem_supersede",
        old_id=wifi["id"],
        content="ThinkPad T14 network is Ethernet",
        entities=["ThinkPad T14"],
    )
    await call(
        s, "chronica_record_actum", chronicum_id="s1", kind="message", actor_kind="human",
        actor="ana", content="hello",
    )  # fmt: skip
    return str(eth["id"])


def test_annotations_tell_the_truth_and_read_only_tools_write_nothing(
    db: Target, tmp_path: Path
) -> None:
    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            listed = {t.name: t.annotations for t in (await s.list_tools()).tools}
            assert set(listed) == set(HINTS)
            for name, hints in listed.items():
                assert hints is not None, name
                assert hints.title, name
                assert hints.open_world_hint is False, name  # the server's own database only
                assert hints.read_only_hint is (name in READ_ONLY), name
                if hints.read_only_hint:
                    assert hints.destructive_hint is False, name
            assert listed["chronomem_forget"].destructive_hint is True  # type: ignore[union-attr]
            assert listed["chronomem_supersede"].destructive_hint is True  # type: ignore[union-attr]
            assert listed["chronomem_remember_episode"].idempotent_hint is False  # type: ignore[union-attr]
            await _seed(s)
            before = fingerprint(db)
            for _ in range(3):
                for tool, arguments in READ_ONLY.items():
                    await call(s, tool, **arguments)
                await s.list_resources()
            after = fingerprint(db)
            assert after == before
            # The fingerprint sees a write: the same check after one fails.
            await call(s, "chronomem_remember", content="Mina drinks tea")
            assert fingerprint(db) != after

    run(go)


def test_resources_are_listed_readable_and_owner_scoped(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, owner="ana", errlog=tmp_path / "ana.log") as s:
            eth = await _seed(s)
            templates = {
                t.uri_template for t in (await s.list_resource_templates()).resource_templates
            }
            assert templates == {
                "chronomem://fact/{id}",
                "chronomem://timeline/{entity}",
                "chronica://session/{id}{?before}",
            }
            uris = {str(r.uri) for r in (await s.list_resources()).resources}
            assert uris == {"chronomem://timeline/ThinkPad%20T14", "chronica://session/s1"}

            fact = json.loads(_text((await s.read_resource(f"chronomem://fact/{eth}")).contents))
            assert fact["content"] == "ThinkPad T14 network is Ethernet"
            assert fact["entities"] == ["ThinkPad T14"]
            history = _text((await s.read_resource("chronomem://timeline/thinkpad%20t14")).contents)
            lines = history.splitlines()
            assert lines[0] == "2 facts about 'thinkpad t14', oldest first:"
            assert "Wi-Fi (from " in lines[1]
            short = shown_id(history, "ThinkPad T14 network is Ethernet")
            assert eth.endswith(short)
            assert len(short) < len(eth)
            assert f"superseded by {short})" in lines[1]
            assert lines[2].startswith(f"[{short}] ThinkPad T14 network is Ethernet (from ")
            by_short = _text((await s.read_resource(f"chronomem://fact/{short}")).contents)
            assert by_short == _text((await s.read_resource(f"chronomem://fact/{eth}")).contents)
            session = _text((await s.read_resource("chronica://session/s1")).contents)
            assert session == "[1] ana (message): hello"

            async def typed(uri: str, name: str, value: str) -> list[str]:
                ref = ResourceTemplateReference(uri=uri)
                return (await s.complete(ref, {"name": name, "value": value})).completion.values

            assert await typed("chronomem://timeline/{entity}", "entity", "thin") == [
                "ThinkPad T14"
            ]
            assert await typed("chronomem://timeline/{entity}", "entity", "x") == []
            assert eth in await typed("chronomem://fact/{id}", "id", eth[:6])
            assert await typed("chronomem://fact/{id}", "id", eth) == [eth]
            assert await typed("chronica://session/{id}{?before}", "id", "s") == ["s1"]
            prompt = PromptReference(name="what-do-you-know-about")
            offered = await s.complete(prompt, {"name": "entity", "value": "Think"})
            assert offered.completion.values == ["ThinkPad T14"]

        async with connect(db, owner="ben", errlog=tmp_path / "ben.log") as s:
            assert (await s.list_resources()).resources == []
            for uri in (f"chronomem://fact/{eth}", "chronica://session/s1"):
                with pytest.raises(MCPError, match=r"NotFound|Unknown|not found"):
                    await s.read_resource(uri)
            empty = _text((await s.read_resource("chronomem://timeline/ThinkPad%20T14")).contents)
            assert empty.startswith("0 facts about")
            ref = ResourceTemplateReference(uri="chronomem://fact/{id}")
            assert (await s.complete(ref, {"name": "id", "value": eth[:6]})).completion.values == []
            ref = ResourceTemplateReference(uri="chronomem://timeline/{entity}")
            assert (await s.complete(ref, {"name": "entity", "value": ""})).completion.values == []

    run(go)


def test_recall_links_each_item_to_its_resource(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            await _seed(s)
            said = {"content": "My ThinkPad T14 drops the network", "speaker": "ana"}
            episode = await s.call_tool("chronomem_remember_episode", {**said, "session": "desk"})
            assert not episode.is_error
            found = await s.call_tool("chronomem_recall", {"query": "ThinkPad network"})
            assert found.structured_content is not None
            facts = found.structured_content["facts"]
            episodes = found.structured_content["episodes"]
            assert facts
            assert episodes
            text, *links = found.content
            assert isinstance(text, TextContent)
            assert all(isinstance(link, ResourceLink) for link in links)
            # One link per item, in the text's order (facts and episodes in one ranking).
            by_id = {
                link.uri.removeprefix("chronomem://fact/"): link
                for link in links
                if isinstance(link, ResourceLink)
            }
            assert len(by_id) == len(links) == len(facts) + len(episodes)
            for fact in facts:
                link = by_id[fact["id"]]
                assert fact["id"].endswith(link.name)
                assert shown_id(text.text, fact["content"]) == link.name
            for episode in episodes:
                assert by_id[episode["id"]].name == f"{episode['session']} #1"
            for item_id, link in by_id.items():
                assert link.mime_type == "application/json"
                record = json.loads(_text((await s.read_resource(link.uri)).contents))
                assert record["id"] == item_id
            nothing = await s.call_tool("chronomem_recall", {"query": "zebra xylophone"})
            assert [c.type for c in nothing.content] == ["text"]

    run(go)


def test_resources_list_pages_and_transcripts_page(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            for i in range(LIST_PAGE + 5):
                await call(s, "chronomem_remember", content=f"x{i}", entities=[f"E{i:04d}"])
            for i in range(205):
                await call(
                    s, "chronica_record_actum", chronicum_id="long", kind="message",
                    actor_kind="agent", actor="bot", content=f"turn {i}",
                )  # fmt: skip
            first = await s.list_resources()
            assert len(first.resources) == LIST_PAGE
            assert first.next_cursor is not None
            second = await s.list_resources(params=_page(first.next_cursor))
            uris = [str(r.uri) for r in [*first.resources, *second.resources]]
            assert len(set(uris)) == LIST_PAGE + 6  # every entity once, and the session
            assert uris[-1] == "chronica://session/long"
            assert second.next_cursor is None
            with pytest.raises(MCPError, match="cursor"):
                await s.list_resources(params=_page("nonsense"))

            newest = _text((await s.read_resource("chronica://session/long")).contents)
            lines = newest.splitlines()
            assert lines[0] == "(older acta: chronica://session/long?before=6)"
            assert lines[1] == "[6] bot (message): turn 5"
            assert lines[-1] == "[205] bot (message): turn 204"
            older = _text((await s.read_resource("chronica://session/long?before=6")).contents)
            assert older.splitlines()[0] == "[1] bot (message): turn 0"
            assert len(older.splitlines()) == 5

    run(go)


def test_prompts_hand_the_work_to_the_clients_model(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            eth = await _seed(s)
            prompts = {p.name: p for p in (await s.list_prompts()).prompts}
            assert set(prompts) == {"remember-this-conversation", "what-do-you-know-about"}
            asked = await s.get_prompt("remember-this-conversation", {"conversation": "A: hi"})
            [message] = asked.messages
            assert isinstance(message.content, TextContent)
            text = message.content.text
            # Recall first so nothing is stored twice; then remember or supersede.
            assert text.index("chronomem_recall") < text.index("chronomem_supersede")
            assert "chronomem_remember" in text
            assert text.endswith("The conversation:\n\nA: hi")
            known = await s.get_prompt("what-do-you-know-about", {"entity": "ThinkPad T14"})
            ask, attached = known.messages
            assert isinstance(ask.content, TextContent)
            assert "currently believed" in ask.content.text
            assert isinstance(attached.content, EmbeddedResource)
            resource = attached.content.resource
            assert isinstance(resource, TextResourceContents)
            assert str(resource.uri) == "chronomem://timeline/ThinkPad%20T14"
            assert eth.endswith(shown_id(resource.text, "ThinkPad T14 network is Ethernet"))
            # Prompts call nothing: no model, no key, nothing written.
            assert (await call(s, "chronomem_recall", query="ThinkPad"))["facts"]

    run(go)


def _page(cursor: str) -> PaginatedRequestParams:
    return PaginatedRequestParams(cursor=cursor)


def _text(contents: list[Any]) -> str:
    [content] = contents
    assert isinstance(content, TextResourceContents)
    return content.text
