"""The MCP tools: the fact memory and the shared session record, as typed functions.

Each tool's docstring and signature become the schema a model reads. The owner is server
configuration held in the lifespan state, never a tool argument: a model must not be able to
read another owner's memory by naming them. Every tool turns a bad argument, an unknown id or
unusable text into a tool error with a readable message, and the server keeps serving.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import AcceptedElicitation, Context, ElicitationResult, Resolve
from mcp.types import CallToolResult
from pydantic import Field

from chronica import ActorKind, Actum, ActumKind
from chronomem import ChronoMem, Episode, Fact, FactId
from chronomem._checks import check_text
from chronomem._doors.ids import resolve, short_ids
from chronomem._doors.text import count

from ._acta import DEFAULT_LAST_N, fetch_size, window
from ._confirm import ForgetConfirmation, confirm_forget
from ._errors import readable_errors
from ._output import (
    ActaOut,
    ActumOut,
    ContradictionOut,
    ContradictionsOut,
    EpisodeOut,
    ForgetOut,
    IndexedOut,
    RecallOut,
    RememberOut,
    SupersedeOut,
    TimelineOut,
    actum_out,
    compact,
    fact_out,
    recall_out,
    result,
)
from ._state import State
from ._time_arguments import Time

__all__ = ["MAX_COUNT", "TOOLS", "State"]

MAX_COUNT = 1_000_000_000
"""Largest limit, budget or last_n a tool accepts, so no number overflows SQLite's integers."""


# Text is checked once, where the library checks it (NUL, lone surrogates, sizes): the
# server adds no rules of its own, so a tool refuses exactly what a Python caller is refused.
# Errors become tool errors by one rule (_errors.readable_errors).


def _state(ctx: Context[State, Any]) -> State:
    return ctx.request_context.lifespan_context


_Item = TypeVar("_Item", Fact, Fact | Episode)


def _with_ids(memory: ChronoMem, items: Sequence[_Item]) -> tuple[Sequence[_Item], dict[str, str]]:
    """``items`` and the short ids their lines show, found in the same worker thread hop."""
    ids = [i.id for i in items if isinstance(i, Fact)]
    ids += [i.superseded_by for i in items if isinstance(i, Fact) and i.superseded_by]
    return items, short_ids(memory, ids)


# --------------------------------------------------------------------------- tools
# Every library call goes through State.write or State.read, which run it in a worker thread:
# a write waiting for another process's lock must not stall the loop (see _state).


async def chronomem_remember(
    ctx: Context[State, Any],
    content: str,
    category: str | None = None,
    entities: list[str] | None = None,
    trust: float = 0.8,
    confidence: float = 1.0,
    valid_from: Time | None = None,
    source: str | None = None,
) -> Annotated[CallToolResult, RememberOut]:
    """Store a new durable fact about the user, a project or the world.

    Use it when you learn something worth knowing in a later conversation (a preference,
    a decision, a setting). If it replaces something already known, call
    chronomem_supersede instead, so the old belief is closed rather than contradicted.
    The result lists active facts the new one contradicts: resolve them with supersede.
    Content an active fact of the same category already says (ignoring case, spacing and
    surrounding punctuation) is not stored twice: the note says "already known" and the id
    is that fact's.
    """
    with readable_errors():
        fid = await _state(ctx).write(
            lambda s: s.memory.remember(
                content,
                category=category,
                entities=entities,
                trust=trust,
                confidence=confidence,
                valid_from=valid_from,
                source=source,
            )
        )
    if fid.duplicate_of is not None:
        return compact(
            RememberOut(id=str(fid), contradicts=[], note=f"already known as {fid}; nothing stored")
        )
    return compact(RememberOut(id=str(fid), contradicts=list(fid.contradicts)))


async def chronomem_recall(
    ctx: Context[State, Any],
    query: str,
    token_budget: Annotated[int, Field(ge=0, le=MAX_COUNT)] | None = None,
    limit: Annotated[int, Field(ge=1, le=MAX_COUNT)] | None = 10,
    as_of: Time | None = None,
    known_at: Time | None = None,
    category: str | None = None,
    active_only: bool = True,
    kinds: list[Literal["fact", "episode"]] | None = None,
    relevant_only: bool = True,
) -> Annotated[CallToolResult, RecallOut]:
    """Find what is known that is relevant to a question, best first.

    Use it before answering anything that may depend on earlier conversations. It returns
    facts (what was decided to be true) and episodes (what was said, by whom, in which
    conversation); kinds=["episode"] or ["fact"] keeps one kind. Set token_budget to cap how
    much context they may take (packing stops at the exact budget). as_of asks what was true
    at a past moment (ISO-8601); known_at asks what was believed at a past moment.
    active_only=False also returns superseded facts. relevant_only (default true) returns only
    items with evidence beyond a shared name, so fewer rather than padding; false fills the
    limit with the nearest by meaning.
    """
    with readable_errors():
        found, ids = await _state(ctx).read(
            lambda s: _with_ids(
                s.memory,
                s.memory.recall(
                    query,
                    token_budget=token_budget,
                    limit=limit,
                    as_of=as_of,
                    known_at=known_at,
                    category=category,
                    active_only=active_only,
                    kinds=kinds,
                    relevant_only=relevant_only,
                ),
            )
        )
    # No head line: the lines are the answer ("nothing recalled" when there are none).
    return result(
        recall_out(found), None if found else "nothing recalled", found, ids=ids, links=True
    )


async def chronomem_remember_episode(
    ctx: Context[State, Any],
    content: str,
    speaker: str,
    session: str,
    at: Time | None = None,
) -> Annotated[CallToolResult, EpisodeOut]:
    """Record one turn of a conversation: what was said, by whom, in which session.

    Use it to keep what the user or an agent said, word for word, so that it can be
    recalled later with chronomem_recall. Turns of a session are kept in the order they are
    recorded; at (ISO-8601, default now) is when it was said.
    """
    with readable_errors():
        eid = await _state(ctx).write(
            lambda s: s.memory.remember_episode(content, speaker=speaker, session=session, at=at)
        )
    return compact(EpisodeOut(id=eid, session=session))


async def chronomem_index_session(
    ctx: Context[State, Any], chronicum_id: str
) -> Annotated[CallToolResult, IndexedOut]:
    """Make a shared session (a chronicum) recallable: its messages become episodes.

    Use it after messages were recorded with chronica_record_actum, so chronomem_recall can
    find them. Only messages not indexed yet are added; calling it again is harmless.
    """
    with readable_errors():
        added = await _state(ctx).write(
            lambda s: s.memory.index_session(s.chronicarius, chronicum_id)
        )
    return compact(IndexedOut(chronicum_id=chronicum_id, added=added))


async def chronomem_supersede(
    ctx: Context[State, Any],
    old_id: str,
    content: str,
    category: str | None = None,
    entities: list[str] | None = None,
    trust: float = 0.8,
    confidence: float = 1.0,
    valid_from: Time | None = None,
    source: str | None = None,
) -> Annotated[CallToolResult, SupersedeOut]:
    """Replace a fact that changed: the old one stops being valid, the new one starts.

    Use it when the user corrects something or the world changed (a new address, a
    switched setting). Both happen in one transaction and the history is kept, so
    chronomem_timeline can show what was believed before. old_id may be the whole id or the
    short one recall shows.
    """
    with readable_errors():
        check_text("old_id", old_id)  # ids are looked up, not validated, by the library

        def supersede(s: State) -> tuple[str, FactId]:
            old = resolve(s.memory, old_id)
            return old, s.memory.supersede(
                old,
                content,
                category=category,
                entities=entities,
                trust=trust,
                confidence=confidence,
                valid_from=valid_from,
                source=source,
            )

        old, fid = await _state(ctx).write(supersede)
    return compact(SupersedeOut(id=str(fid), superseded=old, contradicts=list(fid.contradicts)))


async def chronomem_forget(
    ctx: Context[State, Any],
    fact_id: str,
    reason: str | None = None,
    *,
    confirmed: Annotated[ElicitationResult[ForgetConfirmation], Resolve(confirm_forget)],
) -> Annotated[CallToolResult, ForgetOut]:
    """Stop using a fact that was wrong or that the user asked you to forget.

    It is a soft delete: recall no longer returns it, but its lineage stays for audit.
    If the fact merely changed, use chronomem_supersede instead. fact_id may be the whole
    id or the short one recall shows. When the client can ask the user, the user confirms
    first; if they decline, nothing is forgotten and note says so.
    """
    # `confirmed` is never the model's: the SDK fills it from confirm_forget (see _confirm),
    # which asks the user when the client can ask and consents without asking when not.
    if not (isinstance(confirmed, AcceptedElicitation) and confirmed.data.forget):
        with readable_errors():
            whole = await _state(ctx).read(lambda s: resolve(s.memory, fact_id))
        note = f"not forgotten: the user {_refusal(confirmed)}; nothing was changed"
        return compact(ForgetOut(id=whole, forgotten=False, note=note))

    def forget(s: State) -> str:
        fid = resolve(s.memory, fact_id)
        s.memory.forget(fid, reason=reason)
        return fid

    with readable_errors():
        check_text("fact_id", fact_id)  # ids are looked up, not validated, by the library
        forgotten = await _state(ctx).write(forget)
    return compact(ForgetOut(id=forgotten, forgotten=True))


def _refusal(outcome: ElicitationResult[ForgetConfirmation]) -> str:
    if isinstance(outcome, AcceptedElicitation):
        return "answered not to forget it"
    return "declined" if outcome.action == "decline" else "cancelled the question"


async def chronomem_timeline(
    ctx: Context[State, Any], entity: str
) -> Annotated[CallToolResult, TimelineOut]:
    """Show how beliefs about one entity evolved: every fact, oldest first.

    Use it when asked what changed, since when something is true, or why an answer
    differs from an earlier one. Superseded facts carry valid_until and superseded_by.
    """
    with readable_errors():
        facts, ids = await _state(ctx).read(
            lambda s: _with_ids(s.memory, s.memory.timeline(entity))
        )
    head = f"{count(len(facts), 'fact')} about {entity!r}, oldest first:"
    out = TimelineOut(entity=entity, facts=[fact_out(f) for f in facts])
    return result(out, head, facts, dated=True, ids=ids)


async def chronomem_contradictions(
    ctx: Context[State, Any],
) -> Annotated[CallToolResult, ContradictionsOut]:
    """List active facts that disagree with each other and still need resolving.

    Use it to tidy the memory: for each contradiction, ask the user or supersede the
    stale fact with chronomem_supersede.
    """
    with readable_errors():
        found = await _state(ctx).read(lambda s: s.memory.contradictions())
    return compact(
        ContradictionsOut(
            contradictions=[
                ContradictionOut(
                    entity=c.entity, category=c.category, fact_ids=list(c.fact_ids), reason=c.reason
                )
                for c in found
            ]
        )
    )


async def chronica_record_actum(
    ctx: Context[State, Any],
    chronicum_id: str,
    kind: ActumKind,
    actor_kind: ActorKind,
    actor: str,
    content: str = "",
    metadata: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> Annotated[CallToolResult, ActumOut]:
    """Append one thing that happened to a shared session (a chronicum).

    Use it to record a message, a thought, a tool request or a tool response so the
    human and the other agents see the same history. The session is created on first
    write. When retrying after a timeout, pass the same idempotency_key: the first
    stored actum is returned and the retry is not stored twice.
    """
    with readable_errors():
        actum = Actum(
            chronicum_id=chronicum_id,
            kind=kind,
            actor_kind=actor_kind,
            actor=actor,
            content=content,
            metadata=metadata or {},
        )
        stored = await _state(ctx).write(
            lambda s: s.chronicarius.record_actum(s.owner, actum, idempotency_key=idempotency_key)
        )
    return compact(actum_out(stored))


async def chronica_get_acta(
    ctx: Context[State, Any],
    chronicum_id: str,
    last_n: Annotated[int, Field(ge=0, le=MAX_COUNT)] = DEFAULT_LAST_N,
    kinds: list[ActumKind] | None = None,
    actor_kinds: list[ActorKind] | None = None,
) -> Annotated[CallToolResult, ActaOut]:
    """Read a shared session back as a context window, oldest first.

    Use it to catch up on what the human and other agents said and did. kinds and
    actor_kinds choose which acta count (omit for all); last_n then keeps the most
    recent ones (default 50; 0 = as many as one reply holds). A reply holds at most 1,000
    acta and about 2 MB; when the window is larger, the newest are kept and note says so.
    """
    with readable_errors():
        acta = await _state(ctx).read(
            lambda s: s.chronicarius.get_acta(
                s.owner,
                chronicum_id,
                last_n=fetch_size(last_n),
                actum_kinds=kinds,
                actor_kinds=actor_kinds,
            )
        )
    kept, note = window(acta, last_n)
    out = ActaOut(acta=[actum_out(a) for a in kept])
    if note is not None:
        out["note"] = note
    return compact(out)


TOOLS = (
    chronomem_remember,
    chronomem_remember_episode,
    chronomem_recall,
    chronomem_supersede,
    chronomem_forget,
    chronomem_timeline,
    chronomem_contradictions,
    chronica_record_actum,
    chronica_get_acta,
    chronomem_index_session,
)
