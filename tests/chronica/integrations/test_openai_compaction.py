"""The SDK's ``OpenAIResponsesCompactionSession`` over ``ChronicaSession``, beside the SDK's own.

A compaction wraps a session, asks ``responses.compact`` for a shorter history, then rewrites
the session with it. Here the client is a stub that answers in the shape the API records (a
``CompactedResponse`` of the user messages and one ``compaction`` item, built as the OpenAI
client builds what it receives); the agent loop is the SDK's ``Runner`` with the scripted model
of :mod:`tests.chronica.integrations.agents_script`. Every scenario runs on a
``ChronicaSession`` and on a ``SQLiteSession`` subclass (which, like any session but the SDK's
native ones, is compacted by a whole-history rewrite), and the two must agree on what the
compaction was sent, what the session holds after, and what the model is shown next. What
chronica adds is checked on its own: nothing is deleted, and the rewrite is one write.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, ModelResponse, RunConfig, Runner
from agents.memory import OpenAIResponsesCompactionSession, Session, SQLiteSession
from openai.types.responses.compacted_response import CompactedResponse

from chronica import Chronicarius, Store, StoreError
from chronica.integrations.openai_agents import ChronicaSession
from chronica.stores.inmemory import InMemoryStore
from chronica.stores.postgres import PostgresStore
from chronica.stores.sqlite import SQLiteStore
from tests.chronica.integrations.agents_script import ScriptedModel, get_weather

OWNER, SID = "ardian", "dinner-friday"
SCRIPT = [
    "Hi, I'm Ardian and I want a quiet dinner on Friday.",
    "What's the weather in Paris?",
    "Book the Kinara for four at 7pm.",
]


class _StubResponses:
    """``client.responses`` with ``compact`` answering as the API does: every user message
    it was given (in input mode), then one opaque ``compaction`` item."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def compact(self, **kwargs: Any) -> CompactedResponse:
        self.calls.append(copy.deepcopy(kwargs))
        n = len(self.calls)
        given = kwargs.get("input") or []
        users = [item for item in given if item.get("role") == "user"]
        digest = hashlib.sha256(json.dumps(kwargs, sort_keys=True).encode()).hexdigest()
        recorded: dict[str, Any] = {
            "id": f"resp_cmp_{n}",
            "created_at": 1_765_000_000 + n,
            "object": "response.compaction",
            "output": [
                {
                    "id": f"msg_c{n}_{i}",
                    "type": "message",
                    "role": "user",
                    "status": "completed",
                    "content": [{"type": "input_text", "text": _text(item)}],
                }
                for i, item in enumerate(users)
            ]
            + [{"id": f"cmp_{n}", "type": "compaction", "encrypted_content": f"gAAAAB{digest}"}],
            "usage": {
                "input_tokens": 120,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": 40,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 160,
            },
        }
        # As the OpenAI client builds a response it receives: without validation, so the user
        # messages' input_text parts come through as the API sends them.
        return CompactedResponse.construct(**recorded)


class _StubClient:
    def __init__(self) -> None:
        self.responses = _StubResponses()


def _text(item: dict[str, Any]) -> str:
    content = item["content"]
    return content if isinstance(content, str) else content[0]["text"]


class _Answering(ScriptedModel):
    """The scripted model, giving each answer a response ID as the Responses API does (the
    Runner only compacts after a response that has one)."""

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        response = await super().get_response(*args, **kwargs)
        response.response_id = f"resp_{len(self.seen)}"
        return response


class _OtherSQLiteSession(SQLiteSession):
    """The SDK's SQLite store as any session other than its own native ones: compaction
    rewrites its whole history, as it does ChronicaSession's."""


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        yield InMemoryStore()
    elif request.param == "sqlite":
        with SQLiteStore(tmp_path / "chronica.db") as sqlite:
            yield sqlite
    else:
        dsn, schema = request.getfixturevalue("pg_dsn"), request.getfixturevalue("pg_schema")
        with PostgresStore(dsn, schema=schema) as postgres:
            yield postgres


def _run(coroutine: typing.Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


async def _converse(session: Session, script: list[str]) -> list[list[Any]]:
    model = _Answering()
    agent = Agent(name="concierge", instructions="Help Ardian.", model=model, tools=[get_weather])
    for line in script:
        await Runner.run(agent, line, session=session, run_config=RunConfig(tracing_disabled=True))
    return model.seen


def _wrapped(session: Session, **options: Any) -> tuple[OpenAIResponsesCompactionSession, Any]:
    client = _StubClient()
    compacting = OpenAIResponsesCompactionSession(
        session.session_id,
        session,
        client=client,  # type: ignore[arg-type]  # the stub has what compaction calls
        **options,
    )
    return compacting, client.responses


def _never(context: dict[str, Any]) -> bool:
    return False


def _pair(
    store: Store, tmp_path: Path, **options: Any
) -> tuple[
    tuple[OpenAIResponsesCompactionSession, Any], tuple[OpenAIResponsesCompactionSession, Any]
]:
    ours = ChronicaSession(SID, owner=OWNER, store=store)
    theirs = _OtherSQLiteSession(SID, str(tmp_path / "agents.db"))
    return _wrapped(ours, **options), _wrapped(theirs, **options)


def test_a_manual_compaction_rewrites_the_session_as_it_does_the_sdks_own(
    store: Store, tmp_path: Path
) -> None:
    (ours, our_api), (theirs, their_api) = _pair(
        store, tmp_path, compaction_mode="input", should_trigger_compaction=_never
    )
    assert _run(_converse(ours, SCRIPT)) == _run(_converse(theirs, SCRIPT))
    before = _run(ours.get_items())
    assert before == _run(theirs.get_items())
    _run(ours.run_compaction({"force": True}))
    _run(theirs.run_compaction({"force": True}))

    assert our_api.calls == their_api.calls  # the same history was sent to be compacted
    assert our_api.calls[0]["input"] == before
    compacted = _run(ours.get_items())
    assert compacted == _run(theirs.get_items())
    # What the SDK keeps from responses.compact: the user messages, then the compaction item.
    assert [item["role"] for item in compacted[:-1]] == ["user"] * len(SCRIPT)
    assert compacted[-1]["type"] == "compaction"
    assert compacted[-1]["encrypted_content"].startswith("gAAAAB")
    # Readable after, by a new session object (another process), and the loop goes on alike.
    assert _run(ChronicaSession(SID, owner=OWNER, store=store).get_items()) == compacted
    later = ["And the weather in Jakarta?"]
    assert _run(_converse(ours, later)) == _run(_converse(theirs, later))
    assert _run(ours.get_items()) == _run(theirs.get_items())


def test_the_runners_automatic_compaction_agrees_with_the_sdks_own(
    store: Store, tmp_path: Path
) -> None:
    # Compact after every model response with a response ID (the SDK's default waits for ten
    # candidate items); the Runner calls it, matched against the latest model exchange.
    (ours, our_api), (theirs, their_api) = _pair(
        store, tmp_path, should_trigger_compaction=lambda context: True
    )
    assert _run(_converse(ours, SCRIPT)) == _run(_converse(theirs, SCRIPT))
    assert our_api.calls  # the Runner compacted
    assert our_api.calls == their_api.calls
    assert _run(ours.get_items()) == _run(theirs.get_items())


def test_compaction_deletes_nothing_from_the_record(store: Store) -> None:
    session = ChronicaSession(SID, owner=OWNER, store=store)
    compacting, _ = _wrapped(session, compaction_mode="input", should_trigger_compaction=_never)
    _run(_converse(compacting, SCRIPT))
    c = Chronicarius(store)
    recorded = c.get_acta(OWNER, SID)
    shown = _run(session.get_items())
    _run(compacting.run_compaction({"force": True}))

    after = c.get_acta(OWNER, SID)
    compacted = _run(session.get_items())
    assert after[: len(recorded)] == recorded  # every actum before is still there, unchanged
    marker, *rewritten = after[len(recorded) :]
    assert marker.metadata["openai_agents"]["clear"] is True  # a clear marker, then the rewrite
    assert len(rewritten) == len(compacted) < len(shown)
    assert [a.content for a in rewritten[:-1]] == SCRIPT
    assert rewritten[-1].metadata["openai_agents"]["type"] == "compaction"


def test_the_rewrite_is_one_write(tmp_path: Path) -> None:
    # The clear marker and the compacted items go in one transaction: a failing write leaves
    # the session as it was, never empty between the clear and the rewrite.
    class FailingOnce(SQLiteStore):
        fail = False

        def record_many(self, *args: Any, **kwargs: Any) -> Any:
            if self.fail:
                self.fail = False
                raise StoreError("the disk is full")
            return super().record_many(*args, **kwargs)

    store = FailingOnce(tmp_path / "chronica.db")
    with store:
        session = ChronicaSession(SID, owner=OWNER, store=store)
        compacting, api = _wrapped(
            session, compaction_mode="input", should_trigger_compaction=_never
        )
        _run(_converse(compacting, SCRIPT))
        shown = _run(session.get_items())
        recorded = len(Chronicarius(store).get_acta(OWNER, SID))
        store.fail = True
        with pytest.raises(StoreError, match="disk is full"):
            _run(compacting.run_compaction({"force": True}))
        assert _run(session.get_items()) == shown
        assert len(Chronicarius(store).get_acta(OWNER, SID)) == recorded
        _run(compacting.run_compaction({"force": True}))  # and a second try goes through
        assert _run(session.get_items())[-1]["type"] == "compaction"
        assert len(api.calls) == 2
