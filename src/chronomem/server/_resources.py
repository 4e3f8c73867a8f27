"""Resources: a fact, an entity's timeline and a session's transcript, addressable by URI.

``chronomem://fact/{id}``, ``chronomem://timeline/{entity}`` and
``chronica://session/{id}`` read what the tools read, scoped to the server's owner like them:
another owner's fact or session is exactly an unknown one. ``resources/list`` pages through
the owner's entities (their timelines) and sessions; ``completion/complete`` offers fact ids,
entity names and session ids for the templates' arguments (and the prompts'), a few at a
time, each through an index (:meth:`chronomem.ChronoMem.entity_names`, ``fact_ids``).

A transcript is paged, newest last: one read holds at most :data:`TRANSCRIPT_PAGE` acta,
with each actum's content cut at :data:`PREVIEW_CHARS`, and its first line names the URI of
the page before (``?before=POSITION``).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    ListResourcesResult,
    PaginatedRequestParams,
    PromptReference,
    Resource,
)

from chronica import ChronicaError
from chronomem import ChronoMem, ChronoMemError, Fact
from chronomem._doors.ids import resolve, short_ids
from chronomem._doors.text import count

from ._output import fact_line, fact_out, recalled_episode
from ._state import State

__all__ = [
    "COMPLETIONS",
    "LIST_PAGE",
    "PREVIEW_CHARS",
    "TRANSCRIPT_PAGE",
    "add_resources",
    "timeline_uri",
]

TRANSCRIPT_PAGE = 200
"""The most acta one read of a transcript holds: a conversation's recent turns."""

PREVIEW_CHARS = 2000
"""The most characters of one actum a transcript shows (``chronica_get_acta`` has it whole)."""

LIST_PAGE = 100
"""Resources per page of ``resources/list``."""

COMPLETIONS = 20
"""Values one completion offers at most (the protocol allows 100)."""

# Ids and names are looked up, never used as paths: the SDK's path checks (no "..", no
# leading "/") would refuse an entity such as "../notes" that the tools accept.
_AS_DATA = ResourceSecurity(exempt_params={"id", "entity"})


def _state(ctx: Context[State, Any]) -> State:
    return ctx.request_context.lifespan_context


def _not_found(uri: str, error: Exception) -> ResourceNotFoundError:
    return ResourceNotFoundError(f"{uri}: {type(error).__name__}: {error}")


async def read_fact(id: str, ctx: Context[State, Any]) -> str:
    """One fact or episode, its whole record as JSON (any state: a superseded fact too)."""
    try:
        item = await _state(ctx).read(lambda s: s.memory.get(resolve(s.memory, id)))
    except (ChronoMemError, ValueError) as e:
        raise _not_found(f"chronomem://fact/{id}", e) from e
    record: dict[str, Any] = dict(
        fact_out(item) if isinstance(item, Fact) else recalled_episode(item)
    )
    for ranked in ("score", "tokens"):  # what a recall gave it; read by id, nothing ranks it
        del record[ranked]
    return json.dumps(record, ensure_ascii=False)


async def read_timeline(entity: str, ctx: Context[State, Any]) -> str:
    """Every fact about an entity, oldest first, one compact line each, dated."""
    try:
        facts, ids = await _state(ctx).read(lambda s: _timeline(s.memory, entity))
    except (ChronoMemError, ValueError) as e:
        raise _not_found(f"chronomem://timeline/{entity}", e) from e
    head = f"{count(len(facts), 'fact')} about {entity!r}, oldest first:"
    return "\n".join([head, *(fact_line(f, dated=True, ids=ids) for f in facts)])


def _timeline(memory: ChronoMem, entity: str) -> tuple[list[Fact], dict[str, str]]:
    """An entity's facts and the short ids their lines show (:mod:`chronomem._doors.ids`)."""
    facts = memory.timeline(entity)
    ids = [f.id for f in facts] + [f.superseded_by for f in facts if f.superseded_by]
    return facts, short_ids(memory, ids)


async def read_session(id: str, ctx: Context[State, Any], before: int | None = None) -> str:
    """A session's transcript in order: ``[position] actor (kind): content``, newest last."""
    state = _state(ctx)
    try:
        page = await state.read(
            lambda s: s.store.acta_page(
                id,
                owner_id=s.owner,
                limit=TRANSCRIPT_PAGE,
                before=before,
                preview_chars=PREVIEW_CHARS,
            )
        )
    except (ChronicaError, ValueError) as e:
        raise _not_found(f"chronica://session/{id}", e) from e
    lines = []
    if page.more_before and page.entries:
        older = page.entries[0].position
        lines.append(f"(older acta: chronica://session/{id}?before={older})")
    for entry in page.entries:
        a = entry.actum
        cut = " [cut]" if entry.truncated else ""
        lines.append(f"[{entry.position}] {a.actor} ({a.kind.value}): {a.content}{cut}")
    return "\n".join(lines) if lines else "(no acta yet)"


def add_resources(server: MCPServer[State]) -> None:
    """Register the three templates, the owner's resource list and completion."""
    server.resource(
        "chronomem://fact/{id}",
        name="fact",
        title="A fact",
        description=(
            "A fact or an episode by id (or a fact's short id, as recall shows it): its whole"
            " record (JSON), whatever its state."
        ),
        mime_type="application/json",
        security=_AS_DATA,
    )(read_fact)
    server.resource(
        "chronomem://timeline/{entity}",
        name="timeline",
        title="An entity's timeline",
        description="Every fact about an entity (any spelling), oldest first, with its dates.",
        mime_type="text/plain",
        security=_AS_DATA,
    )(read_timeline)
    server.resource(
        "chronica://session/{id}{?before}",
        name="session",
        title="A session's transcript",
        description=(
            f"A shared session's acta in order, the newest {TRANSCRIPT_PAGE} (each cut at "
            f"{PREVIEW_CHARS} characters); ?before=POSITION reads the page before."
        ),
        mime_type="text/plain",
        security=_AS_DATA,
    )(read_session)
    # Both handlers need the lifespan state, which the SDK's decorators do not pass; the
    # low-level server's own registration does (as the SDK's completion decorator uses it).
    lowlevel = server._lowlevel_server
    lowlevel.add_request_handler("resources/list", PaginatedRequestParams, _list_resources)
    lowlevel.add_request_handler("completion/complete", CompleteRequestParams, _complete)


async def _list_resources(ctx: Any, params: PaginatedRequestParams) -> ListResourcesResult:
    """The owner's entities (as timelines), then sessions; the cursor says where a page ends:
    ``e:<entity>`` after an entity, ``s:<offset>`` among the sessions."""
    state: State = ctx.lifespan_context
    cursor = params.cursor or "e:"
    kind, _, at = cursor.partition(":")
    if kind not in ("e", "s") or (kind == "s" and not at.isdigit()):
        raise MCPError(code=INVALID_PARAMS, message=f"not a cursor of this server: {cursor!r}")
    resources: list[Resource] = []
    if kind == "e":
        names = await state.read(lambda s: s.memory.entity_names(after=at, limit=LIST_PAGE))
        resources = [_timeline_resource(n) for n in names]
        if len(names) == LIST_PAGE:
            return ListResourcesResult(resources=resources, next_cursor=f"e:{names[-1]}")
        at = "0"
    offset = int(at)
    want = LIST_PAGE - len(resources)
    sessions = await state.read(
        lambda s: s.store.chronica_page(owner_id=s.owner, offset=offset, limit=want + 1)
    )
    resources += [_session_resource(x.chronicum.id, x.acta) for x in sessions[:want]]
    more = f"s:{offset + want}" if len(sessions) > want else None
    return ListResourcesResult(resources=resources, next_cursor=more)


def timeline_uri(entity: str) -> str:
    """The URI of an entity's timeline."""
    return f"chronomem://timeline/{_quote(entity)}"


def _timeline_resource(entity: str) -> Resource:
    return Resource(
        uri=timeline_uri(entity),
        name=f"timeline: {entity}",
        mime_type="text/plain",
    )


def _session_resource(chronicum_id: str, acta: int) -> Resource:
    return Resource(
        uri=f"chronica://session/{_quote(chronicum_id)}",
        name=f"session: {chronicum_id} ({count(acta, 'actum')})",
        mime_type="text/plain",
    )


def _quote(value: str) -> str:
    """A name as one URI segment (RFC 3986 unreserved characters kept)."""
    return quote(value, safe="")


async def _complete(ctx: Any, params: CompleteRequestParams) -> CompleteResult:
    """Fact ids, entity names or session ids that start with what was typed."""
    state: State = ctx.lifespan_context
    ref, arg = params.ref, params.argument
    target = ref.name if isinstance(ref, PromptReference) else ref.uri
    typed = arg.value
    values: list[str] = []
    try:
        if arg.name == "entity":
            values = await state.read(lambda s: s.memory.entity_names(typed, limit=COMPLETIONS))
        elif arg.name == "id" and target.startswith("chronomem://fact/"):
            values = await state.read(lambda s: s.memory.fact_ids(typed, limit=COMPLETIONS))
        elif arg.name == "id" and target.startswith("chronica://session/"):
            values = await state.read(lambda s: _session_ids(s, typed))
    except (ChronoMemError, ValueError):
        values = []  # text no name can start with (a NUL, a lone surrogate): no completion
    return CompleteResult(completion=Completion(values=values, has_more=len(values) >= COMPLETIONS))


_SESSIONS_SCANNED = 500
"""Session ids are matched among the owner's newest this many (chronica has no prefix index)."""


def _session_ids(state: State, typed: str) -> list[str]:
    recent = state.store.chronica_page(owner_id=state.owner, limit=_SESSIONS_SCANNED)
    found = [x.chronicum.id for x in recent if x.chronicum.id.startswith(typed)]
    return found[:COMPLETIONS]
