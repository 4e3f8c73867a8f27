"""What the MCP tools return: typed output schemas, and compact text for the model.

Kept apart from the tools (:mod:`._tools`) so the server module reads as tools and transport;
these records are the tools' published contract.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

from mcp.types import CallToolResult, ContentBlock, ResourceLink, TextContent

# pydantic reads stdlib TypedDicts only from Python 3.12; the SDK depends on typing_extensions.
from typing_extensions import NotRequired, TypedDict

from chronica import Actum
from chronomem import Episode, Fact

__all__ = [
    "ActaOut",
    "ActumOut",
    "ContradictionOut",
    "ContradictionsOut",
    "EpisodeOut",
    "FactOut",
    "ForgetOut",
    "IndexedOut",
    "RecallOut",
    "RecalledEpisode",
    "RecalledFact",
    "RememberOut",
    "SupersedeOut",
    "TimelineOut",
    "actum_out",
    "compact",
    "episode_line",
    "fact_line",
    "fact_out",
    "item_uri",
    "recall_out",
    "recalled",
    "recalled_episode",
    "result",
]


class RecalledFact(TypedDict):
    """A fact as recall returns it: what a model needs to use it and act on it.

    Kept to nine fields on purpose: MCP clients validate every result against the output
    schema, and for ten facts each extra field costs them measurable time per call.
    """

    id: str
    content: str
    category: str | None
    trust_score: float
    valid_from: str
    valid_until: str | None
    superseded_by: str | None
    score: float
    tokens: int


class RecalledEpisode(TypedDict):
    """A turn of a conversation as recall returns it: what was said, by whom, where, when."""

    id: str
    content: str
    speaker: str
    session: str
    at: str
    score: float
    tokens: int


class FactOut(RecalledFact):
    """A fact with its whole record, as the timeline shows it (times are ISO-8601 UTC)."""

    entities: list[str]
    confidence: float
    source: str | None
    system_time: str
    forgotten: bool


class RememberOut(TypedDict):
    """The stored fact's id, and the active facts it contradicts (never silent); ``note``
    says "already known" when an active fact said the same and nothing was stored."""

    id: str
    contradicts: list[str]
    note: NotRequired[str]


class EpisodeOut(TypedDict):
    """The recorded episode's id and its session."""

    id: str
    session: str


class IndexedOut(TypedDict):
    """How many of the session's messages became episodes in this call."""

    chronicum_id: str
    added: int


class SupersedeOut(TypedDict):
    """The successor's id, the fact it replaced, and any contradictions it raises."""

    id: str
    superseded: str
    contradicts: list[str]


class ForgetOut(TypedDict):
    """The fact's id and whether it was forgotten; ``note`` says why not (the user, asked
    through the client, declined)."""

    id: str
    forgotten: bool
    note: NotRequired[str]


class RecallOut(TypedDict):
    """Facts and episodes, each best first, and the tokens they cost together (the text
    block lists both in one ranking)."""

    facts: list[RecalledFact]
    episodes: list[RecalledEpisode]
    total_tokens: int


class TimelineOut(TypedDict):
    """Every fact about an entity, oldest first, active and historical."""

    entity: str
    facts: list[FactOut]


class ContradictionOut(TypedDict):
    """Active facts that disagree about one entity."""

    entity: str
    category: str | None
    fact_ids: list[str]
    reason: str


class ContradictionsOut(TypedDict):
    """Every unresolved contradiction."""

    contradictions: list[ContradictionOut]


class ActumOut(TypedDict):
    """One recorded actum of a session."""

    id: str
    chronicum_id: str
    kind: str
    actor_kind: str
    actor: str
    content: str
    metadata: dict[str, Any]
    at: str | None


class ActaOut(TypedDict):
    """A context window: acta oldest first; ``note`` says when older acta were left out."""

    acta: list[ActumOut]
    note: NotRequired[str]


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def recalled(fact: Fact) -> RecalledFact:
    return RecalledFact(
        id=fact.id,
        content=fact.content,
        category=fact.category,
        trust_score=fact.trust_score,
        valid_from=fact.valid_from.isoformat(),
        valid_until=_iso(fact.valid_until),
        superseded_by=fact.superseded_by,
        score=fact.score,
        tokens=fact.tokens,
    )


def recalled_episode(episode: Episode) -> RecalledEpisode:
    return RecalledEpisode(
        id=episode.id,
        content=episode.content,
        speaker=episode.speaker,
        session=episode.session,
        at=episode.at.isoformat(),
        score=episode.score,
        tokens=episode.tokens,
    )


def recall_out(items: Sequence[Fact | Episode]) -> RecallOut:
    """Split a recall's ranking into its facts and its episodes, each keeping its order."""
    return RecallOut(
        facts=[recalled(i) for i in items if isinstance(i, Fact)],
        episodes=[recalled_episode(i) for i in items if isinstance(i, Episode)],
        total_tokens=sum(i.tokens for i in items),
    )


def fact_out(fact: Fact) -> FactOut:
    return FactOut(
        **recalled(fact),
        entities=list(fact.entities),
        confidence=fact.confidence,
        source=fact.source,
        system_time=fact.system_time.isoformat(),
        forgotten=fact.forgotten,
    )


def fact_line(fact: Fact, *, dated: bool = False, ids: Mapping[str, str] | None = None) -> str:
    """One fact as a model reads it: the id to act on and the claim, then only what should
    change what the model does with it: that it no longer holds (until, superseded by,
    forgotten) or is doubtful (trust below 0.5). A timeline is about time, so ``dated``
    adds when the fact began to hold. ``ids`` maps ids to the short ids shown instead
    (see :mod:`chronomem._doors.ids`). Category, confidence, scores and token counts are in
    the structured content, for programs."""
    short = ids or {}
    notes = [f"from {fact.valid_from.date().isoformat()}"] if dated else []
    if fact.valid_until is not None:
        notes.append(f"until {fact.valid_until.date().isoformat()}")
    if fact.superseded_by:
        notes.append(f"superseded by {short.get(fact.superseded_by, fact.superseded_by)}")
    if fact.forgotten:
        notes.append("forgotten")
    if fact.trust_score < LOW_TRUST:
        notes.append(f"trust {fact.trust_score:.1f}")
    tail = f" ({'; '.join(notes)})" if notes else ""
    return f"[{short.get(fact.id, fact.id)}] {fact.content}{tail}"


LOW_TRUST = 0.5
"""Below this a fact's trust is shown to the model: weigh it before acting on it."""


def episode_line(episode: Episode) -> str:
    """One turn as a model reads it: who said what, and on which day. The id and session are
    in the structured content (no tool takes an episode's id)."""
    return f"{episode.speaker} ({episode.at.date().isoformat()}): {episode.content}"


def result(
    structured: Mapping[str, Any],
    head: str | None,
    items: Sequence[Fact | Episode],
    *,
    dated: bool = False,
    ids: Mapping[str, str] | None = None,
    links: bool = False,
) -> CallToolResult:
    """Structured output for programs, and compact lines (not indented JSON, no bullets) for
    the model: recall exists to save context tokens, so its text spends none on syntax or on
    fields that change no decision. ``head`` (if any) is the first line; ``ids`` maps fact
    ids to the short ids the lines show. ``links`` adds a resource link per item after the
    text (``chronomem://fact/{id}``, its whole record), for a client to open or attach."""
    lines = [
        fact_line(i, dated=dated, ids=ids) if isinstance(i, Fact) else episode_line(i)
        for i in items
    ]
    text = "\n".join([head, *lines] if head else lines)
    content: list[ContentBlock] = [TextContent(text=text)]
    if links:
        content += [_link(i, ids or {}) for i in items]
    return CallToolResult(content=content, structured_content=dict(structured))


def item_uri(item_id: str) -> str:
    """The resource a fact or an episode is read at (see :mod:`._resources`)."""
    return f"chronomem://fact/{quote(item_id, safe='')}"


def _link(item: Fact | Episode, ids: Mapping[str, str]) -> ResourceLink:
    """Only what a link needs: the URI, and as its name the id the line shows (a fact's
    short id) or the episode's session and place in it. A client may show each link to the
    model, so every field more costs tokens in every recall."""
    name = ids.get(item.id, item.id) if isinstance(item, Fact) else f"{item.session} #{item.seq}"
    return ResourceLink(uri=item_uri(item.id), name=name, mime_type="application/json")


def compact(structured: Mapping[str, Any], text: str | None = None) -> CallToolResult:
    """A small result: its structured content, and for the model ``text`` or else the same
    record as JSON without the SDK's indentation (a third of the tokens of a short record)."""
    if text is None:
        text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"), default=str)
    return CallToolResult(content=[TextContent(text=text)], structured_content=dict(structured))


def actum_out(actum: Actum) -> ActumOut:
    return ActumOut(
        id=actum.id,
        chronicum_id=actum.chronicum_id,
        kind=actum.kind.value,
        actor_kind=actum.actor_kind.value,
        actor=actum.actor,
        content=actum.content,
        metadata=dict(actum.metadata),
        at=_iso(actum.at),
    )
