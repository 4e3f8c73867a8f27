"""``chronomem ui``: a local, read-only web inspector of one memory.

Four pages over the same database the agents write, a SQLite file or a PostgreSQL DSN:
**Sessions** (chronica, drawn as a conversation with one lane per actor, following new acta
live), **Memory** (``recall`` explained: kind, score, per-channel ranks, tokens, what a budget
packs, ``as_of`` and ``known_at``), **Timeline** (an entity's facts as validity bars) and
**Contradictions**.

It imports the core and nothing in the core imports it. Loopback by default, with a token
(``CHRONOMEM_TOKEN``, or one made at start: the printed URL carries it); any other address
follows the MCP HTTP transport's rules (see :mod:`chronomem.ui._guard`).

    chronomem ui --db ~/.chronomem/memory.db            # http://127.0.0.1:8766/?token=...
    chronomem ui --db postgresql://me@db.lan/agents      # the same pages on PostgreSQL
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from chronomem import ChronoMemError
from chronomem._doors.settings import without_password

from ._app import Sources, build_app
from ._config import UiConfig, UiConfigError, add_ui_arguments, config_from_args

__all__ = ["Sources", "UiConfig", "UiConfigError", "build_app", "main", "serve"]


def _url(config: UiConfig) -> str:
    host = f"[{config.host}]" if ":" in config.host else config.host
    if host in ("0.0.0.0", "[::]"):
        host = "127.0.0.1"
    suffix = f"?token={config.token}" if config.token else ""
    return f"http://{host}:{config.port}/{suffix}"


def serve(config: UiConfig, *, prog: str = "chronomem ui") -> int:
    """Serve the inspector until interrupted; 1 if the database cannot be opened."""
    import uvicorn

    from chronomem._doors.http import uvicorn_config

    try:
        # Opened here, not in the app's lifespan: a server that is down or a DSN that is
        # wrong is one readable line, not a startup traceback.
        sources = Sources.open(config.db, config.owner)
    except ChronoMemError as e:
        # A driver's message may quote the DSN, password and all.
        print(f"{prog}: {without_password(str(e), config.db)}", file=sys.stderr)
        return 1
    print(
        f"chronomem ui: {_url(config)} (read-only; db {sources.db}; owner {config.owner})",
        file=sys.stderr,
        flush=True,
    )
    if sources.note:
        print(f"chronomem ui: {sources.note}", file=sys.stderr, flush=True)
    try:
        settings = uvicorn_config(
            build_app(config, sources=sources),
            host=config.host,
            port=config.port,
            log_level="warning",
            # The Guard checks Host itself; uvicorn must not rewrite it from proxy headers.
            proxy_headers=False,
            server_header=False,
        )
        uvicorn.Server(settings).run()
    finally:
        sources.close()
    return 0


def main(argv: Sequence[str] | None = None, *, prog: str = "chronomem ui") -> int:
    """Run ``chronomem ui``; returns the exit code (2 for a refused configuration)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Serve a local, read-only web inspector of sessions, memory, timelines "
        "and contradictions.",
        epilog="example:\n  chronomem ui --db ~/.chronomem/memory.db --http 127.0.0.1:8766\n"
        "  chronomem ui --db postgresql://me@db.lan/agents",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_ui_arguments(parser)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        config = config_from_args(args, os.environ)
    except UiConfigError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    return serve(config, prog=prog)
