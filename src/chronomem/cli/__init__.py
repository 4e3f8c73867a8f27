"""The ``chronomem`` command line: a thin layer over :class:`chronomem.ChronoMem` and chronica.

Every data command takes ``--db`` (env ``CHRONOMEM_DB``, default ``~/.chronomem/memory.db``),
``--owner`` (env ``CHRONOMEM_OWNER``, default ``default``, the owner ``ChronoMem(path)`` uses)
and ``--json``. Output is a table for people by default and JSON for scripts with ``--json``.

Exit codes: 0 ok, 1 not found or nothing to show, 2 usage (bad flags or bad values).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from chronica import ChronicaError
from chronomem import (
    ChronoMem,
    ChronoMemError,
    FactNotActiveError,
    FactNotFoundError,
    InvalidFactError,
)

from . import _output as show
from ._config import DEFAULT_DB, DEFAULT_OWNER, resolve_db, resolve_owner
from ._time import parse_time
from ._transfer import ExportFormatError

__all__ = ["main"]

EXIT_OK, EXIT_EMPTY, EXIT_USAGE = 0, 1, 2


class _Usage(Exception):
    """A value the user typed cannot be used (exit code 2)."""


class _NotFound(Exception):
    """What the user asked about does not exist (exit code 1)."""


def _db_path(args: argparse.Namespace) -> Path:
    """The memory file; a command that only reads (or changes an existing fact) must find it
    there, and creates neither the file nor its folder."""
    path = resolve_db(args.db, os.environ, create=args.creates)
    if not args.creates and not path.exists():
        raise _NotFound(f"{path}: not found (no memory there yet; 'chronomem remember' makes one)")
    return path


def _owner(args: argparse.Namespace) -> str:
    return resolve_owner(args.owner, os.environ)


@contextlib.contextmanager
def _memory(args: argparse.Namespace) -> Iterator[ChronoMem]:
    with ChronoMem(_db_path(args), owner=_owner(args)) as memory:
        yield memory


@contextlib.contextmanager
def _output(name: str) -> Iterator[BinaryIO]:
    # Bytes: an export is UTF-8 with "\n" line ends on every platform and console.
    if name == "-":
        yield sys.stdout.buffer
        return
    with open(name, "wb") as out:
        yield out


def _when(text: str | None) -> datetime | None:
    """An ISO-8601 time from the command line (naive means UTC); a bad one is a usage error."""
    if text is None:
        return None
    try:
        return parse_time(text)
    except ValueError as e:
        raise _Usage(str(e)) from None


# --------------------------------------------------------------------------- commands


def cmd_remember(args: argparse.Namespace) -> int:
    options = _fact_options(args)  # a bad flag is refused before the file is opened
    with _memory(args) as memory:
        fid = memory.remember(args.content, **options)
    if args.json:
        show.dump_json({"id": str(fid), "contradicts": list(fid.contradicts)})
    else:
        print(f"remembered {fid}")
        for other in fid.contradicts:
            print(f"  contradicts {other} (see: chronomem contradictions)")
    return EXIT_OK


def cmd_supersede(args: argparse.Namespace) -> int:
    options = _fact_options(args)
    with _memory(args) as memory:
        fid = memory.supersede(args.old_id, args.content, **options)
    if args.json:
        show.dump_json({"id": str(fid), "superseded": args.old_id})
    else:
        print(f"superseded {args.old_id} with {fid}")
    return EXIT_OK


def _fact_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "category": args.category,
        "entities": args.entity or None,
        "trust": args.trust,
        "confidence": args.confidence,
        "valid_from": _when(args.valid_from),
        "source": args.source,
    }


def cmd_forget(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        memory.forget(args.fact_id, reason=args.reason)
    if args.json:
        show.dump_json({"id": args.fact_id, "forgotten": True})
    else:
        print(f"forgot {args.fact_id}")
    return EXIT_OK


def cmd_recall(args: argparse.Namespace) -> int:
    as_of, known_at = _when(args.as_of), _when(args.known_at)
    with _memory(args) as memory:
        found = memory.recall(
            args.query,
            token_budget=args.budget,
            limit=args.limit,
            active_only=not args.all,
            as_of=as_of,
            known_at=known_at,
            category=args.category,
        )
    if args.json:
        show.dump_json([item.to_dict() for item in found])
    elif found:
        show.show_recalled(found)
        print(f"\n{show.recall_summary(found)}")
    else:
        print("nothing recalled", file=sys.stderr)
    return EXIT_OK if found else EXIT_EMPTY


def cmd_timeline(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        facts = memory.timeline(args.entity)
    if args.json:
        show.dump_json([f.to_dict() for f in facts])
    elif facts:
        show.show_timeline(args.entity, facts)
    else:
        print(f"nothing known about {args.entity!r}", file=sys.stderr)
    return EXIT_OK if facts else EXIT_EMPTY


def cmd_contradictions(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        found = memory.contradictions()
    if args.json:
        show.dump_json([c.to_dict() for c in found])
    elif found:
        show.show_contradictions(found)
    else:
        print("no contradictions", file=sys.stderr)
    return EXIT_OK if found else EXIT_EMPTY


def cmd_stats(args: argparse.Namespace) -> int:
    from chronica.stores.sqlite import SQLiteStore

    with _memory(args) as memory:
        stats: dict[str, object] = dict(memory.stats())
    with contextlib.closing(SQLiteStore(_db_path(args))) as store:
        mine = [c for c in store.chronica() if c.owner_id == _owner(args)]
        stats["sessions"] = len(mine)
        stats["acta"] = sum(len(store.acta(c.id, owner_id=c.owner_id)) for c in mine)
    if args.json:
        show.dump_json(stats)
    else:
        show.print_table(["what", "value"], sorted(stats.items()))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from chronica.stores.sqlite import SQLiteStore

    from ._transfer import export_lines

    records = -2  # header and trailer are not records
    with (
        _memory(args) as memory,
        contextlib.closing(SQLiteStore(_db_path(args))) as store,
        _output(args.file) as out,
    ):
        for line in export_lines(memory, store, _owner(args)):
            out.write(line)
            records += 1
    print(f"exported {records} records", file=sys.stderr)
    return EXIT_OK if records else EXIT_EMPTY


def cmd_import(args: argparse.Namespace) -> int:
    from chronica.stores.sqlite import SQLiteStore

    from ._transfer import read_export, restore

    with sys.stdin.buffer if args.file == "-" else open(args.file, "rb") as source:
        loaded = read_export(
            source, _owner(args), allow_truncated=args.allow_truncated, label=f"reading {args.file}"
        )
    if loaded.warning:
        print(f"chronomem import: warning: {loaded.warning}", file=sys.stderr)
    facts = acta = 0
    if loaded.count:  # nothing to write: no file to create either
        with _memory(args) as memory, contextlib.closing(SQLiteStore(_db_path(args))) as store:
            facts, acta = restore(loaded, memory, store)
    result = {"facts": facts, "sessions": len(loaded.chronica), "acta": acta}
    if args.json:
        show.dump_json(result)
    else:
        sessions = show.count(len(loaded.chronica), "session")
        print(f"imported {show.count(facts, 'new fact')}, {sessions} ({acta} acta)")
    return EXIT_OK if loaded.count else EXIT_EMPTY


def cmd_demo(args: argparse.Namespace) -> int:
    from chronomem.demo import main as demo_main

    return demo_main(["--db", args.db] if args.db else [])


def cmd_serve(argv: Sequence[str]) -> int:
    from chronomem.server import main as serve_main

    return serve_main(argv, prog="chronomem serve")


# --------------------------------------------------------------------------- parser

_Handler = Callable[[argparse.Namespace], int]


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", help=f"SQLite file (env CHRONOMEM_DB, default {DEFAULT_DB})")
    common.add_argument(
        "--owner", help=f"whose memory (env CHRONOMEM_OWNER, default {DEFAULT_OWNER!r})"
    )
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
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser(
        "serve",
        help="run the MCP server (stdio; --http HOST:PORT for streamable HTTP)",
        epilog="example:\n  chronomem serve --db ~/.chronomem/memory.db",
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 not found/empty, 2 usage)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        # The server owns its flags; importing it (and the MCP SDK) only here keeps every
        # other command quick to start.
        return cmd_serve(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except BrokenPipeError:
        # The reader (``| head``) left; say nothing more and do not fail loudly.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  # interpreter flushes it at exit
        return EXIT_OK
    except (_Usage, InvalidFactError, ExportFormatError) as e:
        print(f"chronomem {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (_NotFound, FactNotFoundError, FactNotActiveError) as e:
        print(f"chronomem {args.command}: {e}", file=sys.stderr)
        return EXIT_EMPTY
    except (ChronoMemError, ChronicaError, OSError) as e:
        print(f"chronomem {args.command}: {e}", file=sys.stderr)
        return EXIT_EMPTY
