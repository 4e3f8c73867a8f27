"""The inspector's routes: one HTML page, its static files, and read-only JSON endpoints.

Endpoints are plain functions, which Starlette runs in worker threads: every library call
blocks on the database, and the event loop must stay free for the next poll of a live session.
Every endpoint answers a page, never a whole table, so a 100,000-acta session or a
1,000,000-fact memory costs what one screen costs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from chronica import ActorKind, ActumKind
from chronomem import ChronoMemError, DatabaseError
from chronomem._iso8601 import parse_time

from ._config import UiConfig
from ._guard import Guard
from ._sessions import Window
from ._sources import Sources
from ._views import contradictions_view, fact_view, recall_view, timeline_view

__all__ = ["STATIC", "Sources", "build_app"]

STATIC = Path(__file__).parent / "static"
_PAGE = 200
"""Items per page: a screenful or a few, never the whole table."""
_MAX_PAGE = 1000


class BadRequest(Exception):
    """A query parameter cannot be used; answered with 400 and this message."""


def _int(request: Request, name: str, default: int, *, low: int = 0, high: int = 2**62) -> int:
    text = request.query_params.get(name, "")
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, got {text!r}") from None
    if not low <= value <= high:
        raise BadRequest(f"{name} must be between {low} and {high}, got {value}")
    return value


def _opt_int(request: Request, name: str, *, low: int = 0) -> int | None:
    return _int(request, name, -1, low=low) if request.query_params.get(name) else None


def _time(request: Request, name: str) -> datetime | None:
    text = request.query_params.get(name, "").strip()
    if not text:
        return None
    try:
        return parse_time(text)
    except ValueError as e:
        raise BadRequest(f"{name}: {e}") from None


def _choices(request: Request, name: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    picked = tuple(v for v in request.query_params.get(name, "").split(",") if v)
    unknown = [v for v in picked if v not in allowed]
    if unknown:
        raise BadRequest(f"{name}: unknown {unknown!r}; choose from {allowed!r}")
    return tuple(sorted(set(picked)))


def _text(request: Request, name: str) -> str:
    value = request.query_params.get(name, "")
    if not value.strip():
        raise BadRequest(f"{name} is required")
    return value


Endpoint = Callable[[Request, Sources], dict[str, Any]]


def _json(endpoint: Endpoint) -> Callable[[Request], Response]:
    """Wrap a view: sources from the app, bad input as 400, a missing session as 404, a
    database that cannot be read (a PostgreSQL server gone) as 503."""

    def handle(request: Request) -> Response:
        try:
            return JSONResponse(endpoint(request, request.app.state.sources))
        except DatabaseError as e:
            return JSONResponse({"error": str(e)}, status_code=503)
        except (BadRequest, ChronoMemError) as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        except LookupError as e:
            return JSONResponse({"error": str(e.args[0])}, status_code=404)

    handle.__name__ = endpoint.__name__
    return handle


def info(request: Request, src: Sources) -> dict[str, Any]:
    """Whose memory and which database, for the header (and why the memory pages are empty,
    when the database holds no memory yet)."""
    return {"owner": src.owner, "db": src.db, "note": src.note}


def sessions(request: Request, src: Sources) -> dict[str, Any]:
    """A page of the owner's sessions, newest first."""
    offset = _int(request, "offset", 0)
    limit = _int(request, "limit", _PAGE, low=1, high=_MAX_PAGE)
    found, more = src.sessions.sessions(src.owner, offset=offset, limit=limit)
    return {"sessions": found, "offset": offset, "more": more}


def acta(request: Request, src: Sources) -> dict[str, Any]:
    """A page of one session's window (``get_acta``'s filters), before or after a cursor."""
    session = _text(request, "session")
    window = Window(
        kinds=_choices(request, "kinds", tuple(k.value for k in ActumKind)),
        actor_kinds=_choices(request, "actor_kinds", tuple(k.value for k in ActorKind)),
        last_n=_int(request, "last_n", 0),
    )
    if not src.sessions.exists(src.owner, session):
        raise LookupError(f"no session {session!r} for owner {src.owner!r}")
    page = src.sessions.page(
        src.owner,
        session,
        window,
        limit=_int(request, "limit", _PAGE, low=1, high=_MAX_PAGE),
        before=_opt_int(request, "before"),
        after=_opt_int(request, "after"),
    )
    return {
        "session": session,
        "acta": page.acta,
        "total": page.total,
        "first_seq": page.first_seq,
        "more_before": page.more_before,
        "more_after": page.more_after,
    }


def actum(request: Request, src: Sources) -> dict[str, Any]:
    """One actum's whole content (pages carry a preview of long ones)."""
    session, actum_id = _text(request, "session"), _text(request, "id")
    content = src.sessions.content(src.owner, session, actum_id)
    if content is None:
        raise LookupError(f"no actum {actum_id!r} in session {session!r}")
    return {"id": actum_id, "content": content}


def recall(request: Request, src: Sources) -> dict[str, Any]:
    """``recall`` as an agent would call it, explained: ranks, tokens, what the budget packs."""
    return recall_view(
        src.memory,
        _text(request, "q"),
        limit=_int(request, "limit", 20, low=1, high=200),
        budget=_opt_int(request, "budget"),
        as_of=_time(request, "as_of"),
        known_at=_time(request, "known_at"),
        kinds=_choices(request, "kinds", ("episode", "fact")),
        include_superseded=request.query_params.get("all") == "1",
    )


def timeline(request: Request, src: Sources) -> dict[str, Any]:
    """A page of an entity's facts, oldest first."""
    return timeline_view(
        src.memory,
        _text(request, "entity"),
        offset=_int(request, "offset", 0),
        limit=_int(request, "limit", _PAGE, low=1, high=_MAX_PAGE),
    )


def contradictions(request: Request, src: Sources) -> dict[str, Any]:
    """A page of open conflicts, each with its facts."""
    return contradictions_view(
        src.memory,
        src.conflicts(),
        offset=_int(request, "offset", 0),
        limit=_int(request, "limit", 50, low=1, high=_MAX_PAGE),
    )


def fact(request: Request, src: Sources) -> dict[str, Any]:
    """One fact by its whole id or a short one (its end, as every door shows it, or a unique
    prefix): what ``chronomem forget`` and the MCP tools take, the inspector takes too."""
    return fact_view(src.memory, _text(request, "id"))


def _index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


def build_app(config: UiConfig, *, sources: Sources | None = None) -> Guard:
    """The inspector as an ASGI app. It opens ``config.db`` when it starts, unless ``sources``
    are given (a test sharing one open memory), which the caller then owns and closes."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        opened = sources or Sources.open(config.db, config.owner)
        app.state.sources = opened
        try:
            yield
        finally:
            if sources is None:
                opened.close()

    endpoints: list[Endpoint] = [
        info, sessions, acta, actum, recall, timeline, contradictions, fact,
    ]  # fmt: skip
    routes = [
        Route("/", _index, methods=["GET"]),
        *(Route(f"/api/{e.__name__}", _json(e), methods=["GET"]) for e in endpoints),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return Guard(app, hosts=config.allowed_host_names(), token=config.token)
