"""``chronomem_forget`` asks the user first when the client can ask (MCP elicitation).

Driven over stdio by the SDK's own clients, in both of the protocol's ways of asking: the
``initialize`` handshake of 2025-11-25 (``ClientSession``; the server sends
``elicitation/create`` in the middle of the call) and the per-request envelope of 2026-07-28
(``Client``; the server returns ``InputRequiredResult`` and the client calls again with the
answer). On both engines: a client that accepts has the fact forgotten; one that declines,
cancels or answers "no" leaves the database exactly as it was; one without the capability is
asked nothing and the fact is forgotten as before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext
from mcp.types import CallToolResult, ElicitRequestFormParams, ElicitRequestParams, ElicitResult

from tests.chronomem.backends import Databases, Target
from tests.chronomem.mcp_client import call, connect, fingerprint, run, server_params, text_of

Era = Literal["2025-11-25", "2026-07-28"]
ERAS: tuple[Era, ...] = ("2025-11-25", "2026-07-28")

Answer = Callable[[ClientRequestContext, ElicitRequestParams], Awaitable[ElicitResult]]
CallTool = Callable[[str, dict[str, Any]], Awaitable[CallToolResult]]


@pytest.fixture
def db(databases: Databases) -> Target:
    return databases.new("m")


class User:
    """A person behind the client: answers every question the same way, and counts them."""

    def __init__(self, action: Literal["accept", "decline", "cancel"], **content: Any) -> None:
        self.action = action
        self.content = content or None
        self.asked: list[ElicitRequestParams] = []

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult:
        self.asked.append(params)
        return ElicitResult(action=self.action, content=self.content)


@asynccontextmanager
async def client(db: Target, log: Path, era: Era, user: User | None) -> AsyncIterator[CallTool]:
    """``call_tool`` of a client of ``era`` whose user (``None``: no capability) is ``user``."""
    if era == "2025-11-25":
        async with connect(db, errlog=log, elicitation_callback=user) as session:
            assert session.protocol_version == era
            yield session.call_tool
        return
    async with Client(
        server_params(db), mode=era, elicitation_callback=user
    ) as modern:  # its server's stderr goes to the test's own
        assert modern.session.protocol_version == era
        yield modern.call_tool


async def _remember(call_tool: CallTool, content: str) -> str:
    stored = await call_tool("chronomem_remember", {"content": content})
    assert not stored.is_error, text_of(stored)
    assert stored.structured_content is not None
    return str(stored.structured_content["id"])


async def _recalled(call_tool: CallTool, query: str) -> list[str]:
    found = await call_tool("chronomem_recall", {"query": query})
    assert found.structured_content is not None
    return [f["content"] for f in found.structured_content["facts"]]


@pytest.mark.parametrize("era", ERAS)
def test_a_user_who_accepts_has_the_fact_forgotten(db: Target, tmp_path: Path, era: Era) -> None:
    user = User("accept", forget=True)

    async def go() -> None:
        async with client(db, tmp_path / "server.log", era, user) as call_tool:
            fid = await _remember(call_tool, "Ardian's locker code is 4471")
            assert await _recalled(call_tool, "locker code") == ["Ardian's locker code is 4471"]
            done = await call_tool("chronomem_forget", {"fact_id": fid[-8:], "reason": "asked"})
            assert not done.is_error, text_of(done)
            assert done.structured_content == {"id": fid, "forgotten": True}
            assert await _recalled(call_tool, "locker code") == []
        [question] = user.asked
        assert isinstance(question, ElicitRequestFormParams)
        assert question.message == f"Forget this memory? [{fid[-8:]}] Ardian's locker code is 4471"
        assert question.requested_schema["properties"]["forget"]["type"] == "boolean"

    run(go)


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("user", "said"),
    [
        (User("decline"), "declined"),
        (User("cancel"), "cancelled the question"),
        (User("accept", forget=False), "answered not to forget it"),
    ],
    ids=["declines", "cancels", "answers-no"],
)
def test_a_user_who_does_not_confirm_leaves_everything_as_it_was(
    db: Target, tmp_path: Path, era: Era, user: User, said: str
) -> None:
    user.asked.clear()  # the parameter's User is shared by both eras

    async def go() -> None:
        async with client(db, tmp_path / "server.log", era, user) as call_tool:
            fid = await _remember(call_tool, "Ardian's locker code is 4471")
            before = fingerprint(db)
            kept = await call_tool("chronomem_forget", {"fact_id": fid, "reason": "asked"})
            assert not kept.is_error, text_of(kept)
            note = f"not forgotten: the user {said}; nothing was changed"
            assert kept.structured_content == {"id": fid, "forgotten": False, "note": note}
            assert fingerprint(db) == before
            assert await _recalled(call_tool, "locker code") == ["Ardian's locker code is 4471"]
        assert len(user.asked) == 1

    run(go)


@pytest.mark.parametrize("era", ERAS)
def test_a_client_that_cannot_ask_forgets_as_before(db: Target, tmp_path: Path, era: Era) -> None:
    async def go() -> None:
        # Were the server to ask, this client would answer with an error and the call fail.
        async with client(db, tmp_path / "server.log", era, None) as call_tool:
            fid = await _remember(call_tool, "Ardian's locker code is 4471")
            done = await call_tool("chronomem_forget", {"fact_id": fid})
            assert not done.is_error, text_of(done)
            assert done.structured_content == {"id": fid, "forgotten": True}
            assert await _recalled(call_tool, "locker code") == []

    run(go)


def test_nothing_is_asked_about_what_cannot_be_forgotten(db: Target, tmp_path: Path) -> None:
    user = User("accept", forget=True)

    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log", elicitation_callback=user) as s:
            unknown = await s.call_tool("chronomem_forget", {"fact_id": "0" * 32})
            assert unknown.is_error
            assert "UnknownIdError" in text_of(unknown)
            bad = await s.call_tool("chronomem_forget", {"fact_id": "a\x00b"})
            assert bad.is_error
            assert "fact_id" in text_of(bad)
            old = await call(s, "chronomem_remember", content="Ardian uses Wi-Fi")
            await call(s, "chronomem_supersede", old_id=old["id"], content="Ardian uses Ethernet")
            stale = await s.call_tool("chronomem_forget", {"fact_id": old["id"]})
            assert stale.is_error
            assert "superseded" in text_of(stale)
            assert user.asked == []
            # The same client is asked about an active fact: the checks above were not luck.
            new = await call(s, "chronomem_remember", content="Ardian drinks tea")
            await call(s, "chronomem_forget", fact_id=new["id"])
            assert len(user.asked) == 1

    run(go)


def test_the_model_cannot_answer_for_the_user(db: Target, tmp_path: Path) -> None:
    async def go() -> None:
        async with connect(db, errlog=tmp_path / "server.log") as s:
            [forget] = [t for t in (await s.list_tools()).tools if t.name == "chronomem_forget"]
            assert set(forget.input_schema["properties"]) == {"fact_id", "reason"}
            fid = (await call(s, "chronomem_remember", content="Ardian drinks tea"))["id"]
            sneaky = await s.call_tool(
                "chronomem_forget", {"fact_id": fid, "confirmed": {"action": "decline"}}
            )
            # An argument the schema does not name is ignored, not obeyed.
            assert sneaky.structured_content == {"id": fid, "forgotten": True}

    run(go)
