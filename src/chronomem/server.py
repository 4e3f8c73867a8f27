"""The chronomem MCP server: the fact memory and the shared session record, as tools.

Run it with ``python -m chronomem.server`` (or ``chronomem serve``). It speaks stdio by
default, which is what Cursor, Claude Desktop and most agents expect, and streamable HTTP
with ``--http HOST:PORT``. The database is one SQLite file shared by the memory and the
session record (``--db`` / ``CHRONOMEM_DB``, default ``~/.chronomem/memory.db``); it is
opened in the SDK's lifespan and closed on shutdown.

The owner is server configuration (``--owner`` / ``CHRONOMEM_OWNER``, default the OS user),
never a tool argument: a model must not be able to read another owner's memory by naming
them. Every tool turns a bad argument, an unknown id or unusable text into a tool error
with a readable message, and the server keeps serving.
"""

from __future__ import annotations

import argparse
import hmac
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult
from pydantic import Field

# pydantic reads stdlib TypedDicts only from Python 3.12; the SDK depends on typing_extensions.
from chronica import ActorKind, Actum, ActumKind, ChronicaError, Chronicarius
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, ChronoMemError

from ._cli_config import (
    DEFAULT_DB,
    ServerConfig,
    ServerConfigError,
    add_server_arguments,
    config_from_args,
)
from ._cli_output import count
from ._server_output import (
    ActaOut,
    ActumOut,
    ContradictionOut,
    ContradictionsOut,
    ForgetOut,
    RecallOut,
    RememberOut,
    SupersedeOut,
    TimelineOut,
    actum_out,
    fact_out,
    recalled,
    result,
)

__all__ = [
    "DEFAULT_DB",
    "ServerConfig",
    "ServerConfigError",
    "add_server_arguments",
    "build_server",
    "config_from_args",
    "main",
    "serve",
]

MAX_QUERY_CHARS = 10_000
"""Longest recall query accepted: far above any real question, far below a DoS."""

MAX_COUNT = 1_000_000_000
"""Largest limit, budget or last_n a tool accepts, so no number overflows SQLite's integers."""


@dataclass(frozen=True)
class _State:
    """What the lifespan opens: one memory and one session record on the same file."""

    memory: ChronoMem
    chronicarius: Chronicarius
    owner: str


# --------------------------------------------------------------------------- errors


def _check_text(**fields: str | list[str] | None) -> None:
    """Refuse text SQLite and JSON cannot carry faithfully, before the library sees it.

    Each keyword names an argument; a list (such as ``entities``) is checked item by item.
    """
    for field, value in fields.items():
        for text in [value] if isinstance(value, str) else value or ():
            if "\x00" in text:
                raise ToolError(f"{field} contains a NUL character; send plain text")
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                message = f"{field} contains a lone surrogate (not valid Unicode text)"
                raise ToolError(message) from None


@contextmanager
def _readable_errors() -> Iterator[None]:
    """Turn the libraries' errors into tool errors a model can read and act on.

    Anything else is a bug: the SDK reports it as a generic failure, logs the traceback,
    and keeps serving.
    """
    try:
        yield
    except (ChronoMemError, ChronicaError, ValueError, LookupError, TypeError, OverflowError) as e:
        raise ToolError(f"{type(e).__name__}: {e}") from e


def _state(ctx: Context[_State, Any]) -> _State:
    return ctx.request_context.lifespan_context


# --------------------------------------------------------------------------- tools
# The tools are coroutines that call SQLite directly on the event loop: every call is a
# sub-millisecond local query, one connection stays on one thread, and the SDK's
# worker-thread hop for sync tools would cost more than the query itself.


async def chronomem_remember(
    ctx: Context[_State, Any],
    content: str,
    category: str | None = None,
    entities: list[str] | None = None,
    trust: float = 0.8,
    confidence: float = 1.0,
    valid_from: datetime | None = None,
    source: str | None = None,
) -> RememberOut:
    """Store a new durable fact about the user, a project or the world.

    Use it when you learn something worth knowing in a later conversation (a preference,
    a decision, a setting). If it replaces something already known, call
    chronomem_supersede instead, so the old belief is closed rather than contradicted.
    The result lists active facts the new one contradicts: resolve them with supersede.
    """
    _check_text(content=content, category=category, source=source, entities=entities)
    with _readable_errors():
        fid = _state(ctx).memory.remember(
            content,
            category=category,
            entities=entities,
            trust=trust,
            confidence=confidence,
            valid_from=valid_from,
            source=source,
        )
    return RememberOut(id=str(fid), contradicts=list(fid.contradicts))


async def chronomem_recall(
    ctx: Context[_State, Any],
    query: str,
    token_budget: Annotated[int, Field(ge=0, le=MAX_COUNT)] | None = None,
    limit: Annotated[int, Field(ge=1, le=MAX_COUNT)] | None = 10,
    as_of: datetime | None = None,
    known_at: datetime | None = None,
    category: str | None = None,
    active_only: bool = True,
) -> Annotated[CallToolResult, RecallOut]:
    """Find what is known that is relevant to a question, best first.

    Use it before answering anything that may depend on earlier conversations. Set
    token_budget to cap how much context the facts may take (packing stops at the exact
    budget). as_of asks what was true at a past moment (ISO-8601); known_at asks what
    was believed at a past moment. active_only=False also returns superseded facts.
    """
    _check_text(query=query, category=category)
    if len(query) > MAX_QUERY_CHARS:
        raise ToolError(
            f"query is longer than {MAX_QUERY_CHARS} characters; ask a shorter question"
        )
    with _readable_errors():
        facts = _state(ctx).memory.recall(
            query,
            token_budget=token_budget,
            limit=limit,
            as_of=as_of,
            known_at=known_at,
            category=category,
            active_only=active_only,
        )
    total = sum(f.tokens for f in facts)
    head = (
        f"{count(len(facts), 'fact')} ({total} tokens), best first:"
        if facts
        else "nothing recalled"
    )
    return result(RecallOut(facts=[recalled(f) for f in facts], total_tokens=total), head, facts)


async def chronomem_supersede(
    ctx: Context[_State, Any],
    old_id: str,
    content: str,
    category: str | None = None,
    entities: list[str] | None = None,
    trust: float = 0.8,
    confidence: float = 1.0,
    valid_from: datetime | None = None,
    source: str | None = None,
) -> SupersedeOut:
    """Replace a fact that changed: the old one stops being valid, the new one starts.

    Use it when the user corrects something or the world changed (a new address, a
    switched setting). Both happen in one transaction and the history is kept, so
    chronomem_timeline can show what was believed before.
    """
    _check_text(old_id=old_id, content=content, category=category, source=source, entities=entities)
    with _readable_errors():
        fid = _state(ctx).memory.supersede(
            old_id,
            content,
            category=category,
            entities=entities,
            trust=trust,
            confidence=confidence,
            valid_from=valid_from,
            source=source,
        )
    return SupersedeOut(id=str(fid), superseded=old_id, contradicts=list(fid.contradicts))


async def chronomem_forget(
    ctx: Context[_State, Any], fact_id: str, reason: str | None = None
) -> ForgetOut:
    """Stop using a fact that was wrong or that the user asked you to forget.

    It is a soft delete: recall no longer returns it, but its lineage stays for audit.
    If the fact merely changed, use chronomem_supersede instead.
    """
    _check_text(fact_id=fact_id, reason=reason)
    with _readable_errors():
        _state(ctx).memory.forget(fact_id, reason=reason)
    return ForgetOut(id=fact_id, forgotten=True)


async def chronomem_timeline(
    ctx: Context[_State, Any], entity: str
) -> Annotated[CallToolResult, TimelineOut]:
    """Show how beliefs about one entity evolved: every fact, oldest first.

    Use it when asked what changed, since when something is true, or why an answer
    differs from an earlier one. Superseded facts carry valid_until and superseded_by.
    """
    _check_text(entity=entity)
    with _readable_errors():
        facts = _state(ctx).memory.timeline(entity)
    head = f"{count(len(facts), 'fact')} about {entity!r}, oldest first:"
    return result(TimelineOut(entity=entity, facts=[fact_out(f) for f in facts]), head, facts)


async def chronomem_contradictions(ctx: Context[_State, Any]) -> ContradictionsOut:
    """List active facts that disagree with each other and still need resolving.

    Use it to tidy the memory: for each contradiction, ask the user or supersede the
    stale fact with chronomem_supersede.
    """
    with _readable_errors():
        found = _state(ctx).memory.contradictions()
    return ContradictionsOut(
        contradictions=[
            ContradictionOut(
                entity=c.entity, category=c.category, fact_ids=list(c.fact_ids), reason=c.reason
            )
            for c in found
        ]
    )


async def chronica_record_actum(
    ctx: Context[_State, Any],
    chronicum_id: str,
    kind: ActumKind,
    actor_kind: ActorKind,
    actor: str,
    content: str = "",
    metadata: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> ActumOut:
    """Append one thing that happened to a shared session (a chronicum).

    Use it to record a message, a thought, a tool request or a tool response so the
    human and the other agents see the same history. The session is created on first
    write. When retrying after a timeout, pass the same idempotency_key: the first
    stored actum is returned and the retry is not stored twice.
    """
    _check_text(
        chronicum_id=chronicum_id, actor=actor, content=content, idempotency_key=idempotency_key
    )
    state = _state(ctx)
    actum = Actum(
        chronicum_id=chronicum_id,
        kind=kind,
        actor_kind=actor_kind,
        actor=actor,
        content=content,
        metadata=metadata or {},
    )
    with _readable_errors():
        stored = state.chronicarius.record_actum(
            state.owner, actum, idempotency_key=idempotency_key
        )
    return actum_out(stored)


async def chronica_get_acta(
    ctx: Context[_State, Any],
    chronicum_id: str,
    last_n: Annotated[int, Field(le=MAX_COUNT)] = 0,
    kinds: list[ActumKind] | None = None,
    actor_kinds: list[ActorKind] | None = None,
) -> ActaOut:
    """Read a shared session back as a context window, oldest first.

    Use it to catch up on what the human and other agents said and did. kinds and
    actor_kinds choose which acta count (omit for all); last_n then keeps the most
    recent ones (0 = all).
    """
    _check_text(chronicum_id=chronicum_id)
    state = _state(ctx)
    with _readable_errors():
        acta = state.chronicarius.get_acta(
            state.owner, chronicum_id, last_n=last_n, actum_kinds=kinds, actor_kinds=actor_kinds
        )
    return ActaOut(acta=[actum_out(a) for a in acta])


_TOOLS = (
    chronomem_remember,
    chronomem_recall,
    chronomem_supersede,
    chronomem_forget,
    chronomem_timeline,
    chronomem_contradictions,
    chronica_record_actum,
    chronica_get_acta,
)


# --------------------------------------------------------------------------- server


class _BearerToken:
    """Accepts exactly one shared secret, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(errors="replace"), self._token):
            return AccessToken(token=token, client_id="chronomem", scopes=[])
        return None


def _lifespan(config: ServerConfig) -> Any:
    @asynccontextmanager
    async def lifespan(_: MCPServer[_State]) -> AsyncIterator[_State]:
        memory = ChronoMem(config.db, owner=config.owner)
        try:
            store = SQLiteStore(config.db)
        except BaseException:
            memory.close()
            raise
        try:
            yield _State(memory=memory, chronicarius=Chronicarius(store), owner=config.owner)
        finally:
            store.close()
            memory.close()

    return lifespan


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def build_server(config: ServerConfig) -> MCPServer[_State]:
    """Create the MCP server for ``config`` (the database opens when it starts)."""
    auth: dict[str, Any] = {}
    if config.http is not None and config.token is not None:
        host, port = config.http
        auth = {
            "token_verifier": _BearerToken(config.token),
            "auth": AuthSettings(
                issuer_url=f"http://{_url_host(host)}:{port}",  # type: ignore[arg-type]  # pydantic parses the str
                resource_server_url=None,
            ),
        }
    server: MCPServer[_State] = MCPServer(
        "chronomem",
        instructions=(
            "Long-term memory for this user. Call chronomem_recall before answering anything "
            "that may depend on what was said before; chronomem_remember what is worth keeping; "
            "chronomem_supersede what changed. chronica_* tools share a session with other agents."
        ),
        lifespan=_lifespan(config),
        log_level=config.log_level,
        tools=[_tool(fn) for fn in _TOOLS],
        **auth,
    )
    return server


def _tool(fn: Callable[..., Any]) -> Tool:
    """Register ``fn`` with an output schema clients can check quickly.

    Every MCP client validates each result against the tool's output schema; pydantic's
    schemas point at ``$defs`` for nested records, and resolving those references slows that
    check (a ten-fact recall at 10,000 facts, A/B on a busy 2-core box: p50 12.2 ms per call
    with references, 10.8 ms inlined).
    """
    tool = Tool.from_function(fn, structured_output=True)
    schema = tool.fn_metadata.output_schema
    if schema is not None:  # the SDK reads this field live
        tool.fn_metadata.output_schema = _inline_refs(schema, schema.get("$defs", {}))
    return tool


def _inline_refs(node: Any, defs: Mapping[str, Any]) -> Any:
    """``node`` with every local ``$ref`` replaced by its definition (our records never nest
    themselves, so this terminates) and ``$defs`` dropped."""
    if isinstance(node, list):
        return [_inline_refs(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return {**_inline_refs(defs[ref.removeprefix("#/$defs/")], defs), **siblings}
    return {k: _inline_refs(v, defs) for k, v in node.items() if k != "$defs"}


def _transport_security(host: str, extra: Sequence[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection stays on: only Host/Origin values we expect are let in."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in ("0.0.0.0", "::") and _url_host(host) not in names:
        names.append(_url_host(host))
    names.extend(extra)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names] + list(names),
        allowed_origins=[f"{scheme}://{n}:*" for n in names for scheme in ("http", "https")],
    )


def serve(config: ServerConfig) -> None:
    """Run the server until the client disconnects (stdio) or it is interrupted (HTTP)."""
    server = build_server(config)
    if config.http is None:
        server.run("stdio")
        return
    host, port = config.http
    auth = "bearer token required" if config.token else "no token (loopback only)"
    print(
        f"chronomem: serving MCP over streamable HTTP at http://{_url_host(host)}:{port}/mcp "
        f"({auth}; db {config.db}; owner {config.owner})",
        file=sys.stderr,
        flush=True,
    )
    if host in ("0.0.0.0", "::") and not config.allowed_hosts:
        print(
            "chronomem: DNS-rebinding protection accepts only loopback Host headers; "
            "add the names clients use with --allow-host NAME",
            file=sys.stderr,
            flush=True,
        )
    server.run(
        "streamable-http",
        host=host,
        port=port,
        transport_security=_transport_security(host, config.allowed_hosts),
    )


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m chronomem.server") -> int:
    """Entry point of ``python -m chronomem.server`` and ``chronomem serve``; returns exit code."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="chronomem MCP server (stdio by default).",
        epilog=f"example: CHRONOMEM_DB=~/.chronomem/memory.db {prog}",
    )
    add_server_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config = config_from_args(args, os.environ)
    except (ServerConfigError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        _check_database(config)
    except (ChronoMemError, ChronicaError) as e:
        print(f"{prog}: cannot use {config.db}: {e}", file=sys.stderr)
        return 1
    serve(config)
    return 0


def _check_database(config: ServerConfig) -> None:
    """Open and close the file once, so a foreign or too-new file is a clear message at
    start rather than a traceback from inside the SDK's lifespan."""
    ChronoMem(config.db, owner=config.owner).close()
    SQLiteStore(config.db).close()


if __name__ == "__main__":
    sys.exit(main())
