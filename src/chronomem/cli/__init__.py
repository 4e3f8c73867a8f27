"""The ``chronomem`` command line: a thin layer over :class:`chronomem.ChronoMem` and chronica.

Every data command takes ``--db`` (env ``CHRONOMEM_DB``, default ``~/.chronomem/memory.db``),
``--owner`` (env ``CHRONOMEM_OWNER``, default ``default``, the owner ``ChronoMem(path)`` uses)
and ``--json``. Output is a table for people by default and JSON for scripts with ``--json``.

Exit codes: 0 ok, 1 not found or nothing to show, 2 usage (bad flags or bad values).
``contradictions`` exits 0 when it finds none (the check ran); ``recall`` and ``timeline``
exit 1 when they find nothing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Callable, Sequence

from chronica import ChronicaError
from chronomem import (
    ChronoMemError,
    FactNotActiveError,
    InvalidArgumentError,
    RecordNotFoundError,
)
from chronomem._doors.arguments import add_target_arguments
from chronomem._doors.ids import AmbiguousIdError
from chronomem._doors.settings import SettingsError, resolve_db, resolve_owner, without_password
from chronomem.recall.semantic.spaces import SPACE_NAMES

from ._commands import (
    EXIT_EMPTY,
    EXIT_OK,
    EXIT_USAGE,
    NotFound,
    Usage,
    cmd_contradictions,
    cmd_demo,
    cmd_export,
    cmd_forget,
    cmd_import,
    cmd_recall,
    cmd_reindex,
    cmd_remember,
    cmd_remember_episode,
    cmd_serve,
    cmd_stats,
    cmd_supersede,
    cmd_timeline,
)
from ._erase import cmd_erase, cmd_prune, cmd_purge
from ._transfer import ExportFormatError

__all__ = ["build_parser", "main"]

# --------------------------------------------------------------------------- parser

_Handler = Callable[[argparse.Namespace], int]


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    add_target_arguments(common)
    common.add_argument("--json", action="store_true", help="print JSON for scripts")
    return common


def _add(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    handler: _Handler,
    summary: str,
    example: str,
    *,
    data: bool = True,
    creates: bool = False,
) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        name,
        help=summary,
        description=summary,
        epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_common()] if data else [],
    )
    parser.set_defaults(handler=handler, creates=creates)
    return parser


def _fact_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("content", help="the fact, in one sentence")
    parser.add_argument("--category", help="a label such as 'net' or 'food'")
    parser.add_argument("--entity", action="append", help="who/what it is about (repeatable)")
    parser.add_argument("--trust", type=float, default=0.8, help="source trust 0-1 (0.8)")
    parser.add_argument("--confidence", type=float, default=1.0, help="confidence 0-1 (1.0)")
    parser.add_argument("--valid-from", help="when it became true (ISO-8601; default now)")
    parser.add_argument("--source", help="where it came from")


def build_parser() -> argparse.ArgumentParser:
    """The whole command line (exposed for tests and documentation)."""
    parser = argparse.ArgumentParser(
        prog="chronomem",
        description="Bi-temporal long-term memory for AI agents, on one SQLite file.",
        epilog="example:\n  chronomem remember 'Ardian prefers quiet tables' --category food\n"
        "  chronomem recall 'where should Ardian eat?' --budget 200",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"chronomem {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser(
        "serve",
        help="run the MCP server (stdio; --http HOST:PORT for streamable HTTP)",
        epilog="example:\n  chronomem serve --db ~/.chronomem/memory.db",
    )
    sub.add_parser(
        "ui",
        help="serve a local, read-only web inspector (sessions, memory, timeline, conflicts)",
        epilog="example:\n  chronomem ui --db ~/.chronomem/memory.db --http 127.0.0.1:8766",
    )
    sub.add_parser(
        "hook",
        help="answer Claude Code's hooks (context per prompt, transcript capture); "
        "'hook install --claude-code' sets them up",
        epilog="example:\n  chronomem hook install --claude-code --user",
    )
    p = _add(
        sub,
        "remember",
        cmd_remember,
        "store a new fact",
        ("chronomem remember 'ThinkPad T14 primary interface is Wi-Fi' --category net"),
        creates=True,
    )
    _fact_flags(p)
    p = _add(
        sub,
        "supersede",
        cmd_supersede,
        "replace a fact that changed (history is kept)",
        ("chronomem supersede 6a95af22... 'ThinkPad T14 primary interface switched to Ethernet'"),
    )
    p.add_argument("old_id", help="id of the fact that is no longer true")
    _fact_flags(p)
    p = _add(
        sub,
        "forget",
        cmd_forget,
        "soft-delete a fact (lineage is kept)",
        ("chronomem forget 6a95af22... --reason 'typo'"),
    )
    p.add_argument("fact_id")
    p.add_argument("--reason")
    p = _add(
        sub,
        "recall",
        cmd_recall,
        "find relevant facts, best first",
        ("chronomem recall 'ThinkPad network interface' --budget 150 --as-of 2026-01-01"),
    )
    p.add_argument("query")
    p.add_argument("--budget", type=int, help="stop packing at this many tokens")
    p.add_argument("--limit", type=int, default=10, help="at most this many facts (10)")
    p.add_argument("--as-of", help="what was true at this time (ISO-8601)")
    p.add_argument("--known-at", help="what was believed at this time (ISO-8601)")
    p.add_argument("--category", help="only facts with this category")
    p.add_argument("--all", action="store_true", help="include superseded facts")
    p.add_argument(
        "--kind", choices=("fact", "episode"), help="only facts or only episodes (default both)"
    )
    p = _add(
        sub,
        "remember-episode",
        cmd_remember_episode,
        "record one turn of a conversation (what was said, by whom, in which session)",
        "chronomem remember-episode 'Booked Kinara for 7pm' --speaker booking --session dinner",
        creates=True,
    )
    p.add_argument("content", help="what was said")
    p.add_argument("--speaker", required=True, help="who said it")
    p.add_argument("--session", required=True, help="the conversation it belongs to")
    p.add_argument("--at", help="when it was said (ISO-8601; default now)")
    p = _add(
        sub,
        "timeline",
        cmd_timeline,
        "draw how beliefs about an entity changed",
        ("chronomem timeline 'ThinkPad T14'"),
    )
    p.add_argument("entity")
    _add(
        sub,
        "contradictions",
        cmd_contradictions,
        "list active facts that disagree",
        ("chronomem contradictions --json"),
    )
    _add(sub, "stats", cmd_stats, "count facts, entities and sessions", "chronomem stats")
    p = _add(
        sub,
        "reindex",
        cmd_reindex,
        "re-embed every item with another encoder (killed, run it again: it resumes)",
        "chronomem reindex --encoder minilm-l6",
    )
    p.add_argument(
        "--encoder",
        required=True,
        choices=SPACE_NAMES,
        help="static (shipped), minilm-l6 or minilm-l6-q8 (its int8 graph; both the encoder extra)",
    )
    p = _add(
        sub,
        "export",
        cmd_export,
        "write facts and sessions as JSON Lines",
        ("chronomem export backup.jsonl"),
    )
    p.add_argument("file", nargs="?", default="-", help="output file (default stdout)")
    p = _add(
        sub,
        "import",
        cmd_import,
        "restore an export exactly (times, lineage)",
        ("chronomem import backup.jsonl --db ~/new.db"),
        creates=True,
    )
    p.add_argument("file", help="JSON Lines file written by export ('-' for stdin)")
    p.add_argument(
        "--allow-truncated",
        action="store_true",
        help="import a file whose end line is missing or does not match (it may be cut short)",
    )
    p = _add(
        sub,
        "purge",
        cmd_purge,
        "erase a fact or an episode for real (a content-free tombstone stays)",
        "chronomem purge 6a95af22... --reason 'asked to be deleted'",
    )
    p.add_argument("item_id", help="id of the fact or episode")
    p.add_argument("--reason", help="why, kept on the tombstone")
    p = _add(
        sub,
        "erase",
        cmd_erase,
        "erase everything of one owner: facts, episodes and chronica sessions",
        "chronomem erase --owner ardian --yes",
    )
    p.add_argument("--yes", action="store_true", help="yes, delete it all for good")
    p = _add(
        sub,
        "prune",
        cmd_prune,
        "erase episodes older than an age, or items recall has not returned for one (retention)",
        "chronomem prune --episodes-older-than 90d\n  chronomem prune --unused-for 365d",
    )
    p.add_argument(
        "--episodes-older-than", metavar="AGE", help="episodes said before: 90d, 12h or 2w"
    )
    p.add_argument(
        "--unused-for", metavar="AGE",
        help="facts and episodes no recall has returned for this long (never recalled: since "
        "written): 365d, 12h or 52w",
    )  # fmt: skip
    p = _add(
        sub,
        "demo",
        cmd_demo,
        "the whole product in one run (./chronomem-demo.db)",
        "chronomem demo",
        data=False,
    )
    p.add_argument(
        "--db", help="a new file, or one an earlier demo made (default ./chronomem-demo.db)"
    )
    return parser


def _version() -> str:
    """The installed distribution's version (what ``pip`` and a bug report name)."""
    try:
        return importlib.metadata.version("chronomem")
    except importlib.metadata.PackageNotFoundError:  # run from a tree that was never installed
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 not found/empty, 2 usage)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        # The server owns its flags; importing it (and the MCP SDK) only here keeps every
        # other command quick to start.
        return cmd_serve(argv[1:])
    if argv[:1] == ["ui"]:
        # Like serve: the inspector owns its flags and imports its web stack only when run.
        from chronomem.ui import main as ui_main

        return ui_main(argv[1:], prog="chronomem ui")
    if argv[:1] == ["hook"]:
        # The hook owns its flags and its exit code: an event always exits 0.
        from ._hook import main as hook_main

        return hook_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        # Refused before anything is opened or created (CHRONOMEM_OWNER= names no one; a
        # postgresql:// database on an install without the driver).
        if "owner" in args:
            resolve_owner(args.owner, os.environ)
        if "db" in args:
            resolve_db(args.db, os.environ)
    except SettingsError as e:
        print(f"chronomem {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except BrokenPipeError:
        # The reader (``| head``) left; say nothing more and do not fail loudly.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  # interpreter flushes it at exit
        return EXIT_OK
    except (Usage, InvalidArgumentError, ExportFormatError, AmbiguousIdError) as e:
        _say(args, e)
        return EXIT_USAGE
    except (NotFound, RecordNotFoundError, FactNotActiveError) as e:
        _say(args, e)
        return EXIT_EMPTY
    except (ChronoMemError, ChronicaError, OSError) as e:
        _say(args, e)
        return EXIT_EMPTY


def _say(args: argparse.Namespace, error: BaseException) -> None:
    """Print why ``args.command`` failed; a library's message may quote the database's DSN,
    so its password is blanked whatever wrote it."""
    db = resolve_db(getattr(args, "db", None), os.environ)
    print(f"chronomem {args.command}: {without_password(str(error), db)}", file=sys.stderr)
