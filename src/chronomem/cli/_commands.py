"""What each ``chronomem`` command does; :mod:`chronomem.cli` parses and dispatches.

A command takes the parsed arguments and returns its exit code: 0 ok, 1 not found or nothing
to show, 2 usage. It raises the library's errors (and :class:`Usage` / :class:`NotFound` for
its own checks); :func:`chronomem.cli.main` turns them into a message and an exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, BinaryIO

from chronomem import ChronoMem
from chronomem._doors.ids import resolve
from chronomem._doors.settings import (
    Target,
    open_session_store,
    resolve_db,
    resolve_owner,
    shown,
)
from chronomem._doors.text import count, recall_summary
from chronomem._iso8601 import parse_time

from . import _output as show

__all__ = [
    "EXIT_EMPTY",
    "EXIT_OK",
    "EXIT_USAGE",
    "NotFound",
    "Usage",
    "cmd_contradictions",
    "cmd_demo",
    "cmd_export",
    "cmd_forget",
    "cmd_import",
    "cmd_recall",
    "cmd_remember",
    "cmd_remember_episode",
    "cmd_serve",
    "cmd_stats",
    "cmd_supersede",
    "cmd_timeline",
]

EXIT_OK, EXIT_EMPTY, EXIT_USAGE = 0, 1, 2


class Usage(Exception):
    """A value the user typed cannot be used (exit code 2)."""


class NotFound(Exception):
    """What the user asked about does not exist (exit code 1)."""


def _db_path(args: argparse.Namespace) -> Target:
    """The memory file (or PostgreSQL DSN); a command that only reads (or changes an existing
    fact) must find a file there, and creates neither the file nor its folder."""
    path = resolve_db(args.db, os.environ, create=args.creates)
    if args.creates:
        return path
    if not _holds_memory(path):
        raise NotFound(
            f"{shown(path)}: not found (no memory there yet; 'chronomem remember' makes one)"
        )
    return path


def _holds_memory(path: Target) -> bool:
    """Whether ``path`` holds a memory, checked without creating or changing anything."""
    if isinstance(path, str):  # a PostgreSQL DSN: asked without creating the memory
        from chronomem.engine.postgres.db import memory_exists

        exists = memory_exists(path)
    else:  # a file that holds no memory (empty, or chronica's only) is left as it is
        from chronomem.engine.sqlite.db import memory_exists as file_holds_memory

        exists = path.exists() and file_holds_memory(str(path))
    return exists


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
    # 0600 as the database is: an export holds the whole memory. An existing file keeps its
    # mode (the user chose it); a new one is never readable by others, whatever the umask.
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "wb") as out:
        yield out


def _when(text: str | None) -> datetime | None:
    """An ISO-8601 time from the command line (naive means UTC); a bad one is a usage error."""
    if text is None:
        return None
    try:
        return parse_time(text)
    except ValueError as e:
        raise Usage(str(e)) from None


# --------------------------------------------------------------------------- commands


def cmd_remember(args: argparse.Namespace) -> int:
    options = _fact_options(args)  # a bad flag is refused before the file is opened
    with _memory(args) as memory:
        fid = memory.remember(args.content, **options)
    if args.json:
        known = {"duplicate_of": fid.duplicate_of} if fid.duplicate_of else {}
        show.dump_json({"id": str(fid), "contradicts": list(fid.contradicts), **known})
    elif fid.duplicate_of:
        print(f"already known as {fid} (nothing stored)")
    else:
        print(f"remembered {fid}")
        for other in fid.contradicts:
            print(f"  contradicts {other} (see: chronomem contradictions)")
    return EXIT_OK


def cmd_remember_episode(args: argparse.Namespace) -> int:
    at = _when(args.at)
    with _memory(args) as memory:
        eid = memory.remember_episode(
            args.content, speaker=args.speaker, session=args.session, at=at
        )
    if args.json:
        show.dump_json({"id": eid, "session": args.session})
    else:
        print(f"remembered episode {eid} in {args.session!r}")
    return EXIT_OK


def cmd_supersede(args: argparse.Namespace) -> int:
    options = _fact_options(args)
    with _memory(args) as memory:
        old = resolve(memory, args.old_id)  # a short id, as timeline shows it, or a prefix
        fid = memory.supersede(old, args.content, **options)
    if args.json:
        show.dump_json({"id": str(fid), "superseded": old})
    else:
        print(f"superseded {old} with {fid}")
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
        fid = resolve(memory, args.fact_id)
        memory.forget(fid, reason=args.reason)
    if args.json:
        show.dump_json({"id": fid, "forgotten": True})
    else:
        print(f"forgot {fid}")
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
            kinds=(args.kind,) if args.kind else None,
        )
    if args.json:
        show.dump_json([item.to_dict() for item in found])
    elif found:
        show.show_recalled(found)
        print(f"\n{recall_summary(found)}")
    else:
        print("nothing recalled", file=sys.stderr)
    return EXIT_OK if found else EXIT_EMPTY


def cmd_timeline(args: argparse.Namespace) -> int:
    from chronomem._doors.ids import short_ids

    with _memory(args) as memory:
        facts = memory.timeline(args.entity)
        named = [f.id for f in facts] + [f.superseded_by for f in facts if f.superseded_by]
        short = short_ids(memory, named) if facts and not args.json else {}
    if args.json:
        show.dump_json([f.to_dict() for f in facts])
    elif facts:
        show.show_timeline(args.entity, facts, short=short)
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
    # 0 either way: the check ran. A clean memory is not a failure (``set -e`` scripts);
    # a script asks ``--json`` for whether there are any.
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        stats: dict[str, object] = dict(memory.stats())
    with contextlib.closing(open_session_store(_db_path(args), read_only=True)) as store:
        counted = store.counts(owner_id=_owner(args))  # an index probe per session, no acta read
        stats["sessions"] = counted.chronica
        stats["acta"] = counted.acta
    if args.json:
        show.dump_json(stats)
    else:
        show.print_table(["what", "value"], sorted(stats.items()))
    return EXIT_OK


def cmd_reindex(args: argparse.Namespace) -> int:
    """Re-embed every item of the file with another encoder (resumable: run it again)."""
    with _memory(args) as memory:
        bar: list[tuple[show.Progress, list[int]]] = []  # the bar, and how far it was drawn

        def progress(done: int, total: int) -> None:
            if not bar:
                bar.append((show.Progress("embedding", total), [0]))
            drawn, shown_done = bar[0]
            drawn.advance(done - shown_done[0])
            shown_done[0] = done

        stored = memory.reindex(args.encoder, progress=progress)
        if bar:
            bar[0][0].finish()
    if args.json:
        show.dump_json({"encoder": args.encoder, "vectors": stored})
    else:
        print(f"{count(stored, 'vector')} from the {args.encoder} encoder")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from ._transfer import export_lines

    records = -2  # header and trailer are not records
    path = resolve_db(args.db, os.environ, create=False)
    owner = _owner(args)
    with contextlib.ExitStack() as stack:
        # A file holding only sessions (chronica's record, no memory yet) exports its
        # sessions: the memory is not created to say it holds no facts (issue 39 item 12).
        memory = stack.enter_context(_memory(args)) if _holds_memory(path) else None
        if memory is None and not (isinstance(path, str) or path.exists()):
            raise NotFound(f"{shown(path)}: not found (no memory or sessions there)")
        store = stack.enter_context(contextlib.closing(open_session_store(path, read_only=True)))
        if memory is None and not store.counts(owner_id=owner).chronica:
            raise NotFound(f"{shown(path)}: not found (no memory or sessions there)")
        out = stack.enter_context(_output(args.file))
        for line in export_lines(memory, store, owner):
            out.write(line)
            records += 1
    print(f"exported {records} records", file=sys.stderr)
    return EXIT_OK if records else EXIT_EMPTY


def cmd_import(args: argparse.Namespace) -> int:
    from ._transfer import read_export, restore

    with sys.stdin.buffer if args.file == "-" else open(args.file, "rb") as source:
        loaded = read_export(
            source, _owner(args), allow_truncated=args.allow_truncated, label=f"reading {args.file}"
        )
    if loaded.warning:
        print(f"chronomem import: warning: {loaded.warning}", file=sys.stderr)
    facts = episodes = acta = 0
    if loaded.count:  # nothing to write: no file to create either
        with (
            _memory(args) as memory,
            contextlib.closing(open_session_store(_db_path(args))) as store,
        ):
            facts, episodes, acta = restore(loaded, memory, store)
    result = {
        "facts": facts,
        "episodes": episodes,
        "sessions": len(loaded.chronica),
        "acta": acta,
    }
    if args.json:
        show.dump_json(result)
    else:
        sessions = count(len(loaded.chronica), "session")
        items = f"{count(facts, 'new fact')}, {count(episodes, 'new episode')}"
        print(f"imported {items}, {sessions} ({acta} acta)")
    return EXIT_OK if loaded.count else EXIT_EMPTY


def cmd_demo(args: argparse.Namespace) -> int:
    from chronomem.demo import main as demo_main

    return demo_main(["--db", args.db] if args.db else [])


def cmd_serve(argv: Sequence[str]) -> int:
    from chronomem.server import main as serve_main

    return serve_main(argv, prog="chronomem serve")
