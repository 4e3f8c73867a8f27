"""The main job: the whole product in one run, on one SQLite file (``chronomem demo``).

1. chronica: a human and three agents book a dinner in one shared session; each agent reads
   its own filtered context window; a retried reply is stored once; a stranger is refused.
2. chronomem: the fact memory learns about the party and revises what it knows (supersede,
   recall under a token budget, an ``as_of`` question about the past, a timeline, a
   contradiction found).
3. MCP: the same file answered through ``python -m chronomem.server`` by the official SDK's
   client, as Cursor or Claude Desktop would ask it.

Everything lands in ``./chronomem-demo.db`` (recreated each run; a file the demo did not
make is never replaced) so you can poke at it
afterwards with ``chronomem recall ... --db chronomem-demo.db --owner ardian``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from chronica import Chronicarius
from chronica import demo as chronica_demo
from chronica.stores.sqlite import SQLiteStore
from chronomem import ChronoMem, ChronoMemError, Episode, Fact

from ._doors.text import count, timeline_lines

__all__ = ["DEFAULT_DB", "DemoFileError", "main", "run"]

DEFAULT_DB = "chronomem-demo.db"
OWNER = chronica_demo.OWNER

Out = Callable[[str], None]


def _heading(out: Out, number: int, title: str, why: str) -> None:
    out("")
    out(f"━━ {number}. {title} " + "━" * max(3, 66 - len(title)))
    out(f"   {why}")


def _facts(out: Out, found: Sequence[Fact | Episode]) -> None:
    for f in found:
        about = f.category if isinstance(f, Fact) else f.speaker
        out(f"     • {f.content}   [{about}, {f.tokens} tokens]")


class DemoFileError(ChronoMemError):
    """The demo was pointed at a file it did not make; the file is left untouched."""


_MARK = "chronomem_demo_marker"
"""A table only the demo creates: how a later run knows the file is its own to replace."""

_SIDECARS = ("-wal", "-shm")


def _made_by_demo(path: Path) -> bool:
    # immutable=1: read the file as it is, with no lock, no journal and no -wal/-shm beside
    # it, so even looking leaves a stranger's file exactly as it was.
    uri = path.resolve().as_uri() + "?immutable=1"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
            return conn.execute(query, (_MARK,)).fetchone() is not None
    except sqlite3.Error:  # not SQLite at all, or unreadable: not ours either way
        return False


def _claim(path: Path) -> None:
    """Make way for a fresh demo at ``path``: nothing there, or a file an earlier demo made.

    Anything else (a user's memory, another program's database, a text file) is refused
    before a byte of it changes: the demo is run casually, and ``--db`` is easy to mistype.
    """
    sidecars = [Path(f"{path}{suffix}") for suffix in _SIDECARS]
    if not os.path.lexists(path):
        if any(os.path.lexists(s) for s in sidecars):
            raise DemoFileError(
                f"{path} does not exist but {path}-wal or -shm does; refusing to guess whose "
                "they are (remove them, or choose another --db)"
            )
        return
    if path.is_symlink() or not path.is_file() or not _made_by_demo(path):
        raise DemoFileError(
            f"{path} exists and was not made by chronomem demo; refusing to replace it "
            "(choose another --db, or remove the file yourself)"
        )
    for each in (path, *sidecars):
        with contextlib.suppress(FileNotFoundError):
            each.unlink()


def _create(path: Path) -> None:
    """Create the demo's file and mark it as the demo's, before anything else is written."""
    # The memory creates the file private to the user (0600) with its tables, so the file is
    # recognisably a chronomem one and ours to mark.
    ChronoMem(path, owner=OWNER).close()
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute(f"CREATE TABLE {_MARK} (made_by TEXT NOT NULL)")
        conn.execute(f"INSERT INTO {_MARK} VALUES ('chronomem demo')")


def _session(path: Path, out: Out) -> None:
    _heading(
        out,
        1,
        "chronica: one session, a human and three agents",
        "Everyone appends to one record; each agent reads back only the window it needs.",
    )
    with contextlib.closing(SQLiteStore(path)) as store:
        chronica_demo.run(store, lambda text: _indented(out, text))


def _indented(out: Out, text: str) -> None:
    for line in text.split("\n"):
        out("   " + line if line.strip() else "")


def _remember(memory: ChronoMem, out: Out, content: str, **options: Any) -> str:
    out(f"     + {content}")
    return memory.remember(content, **options)


def _learn(memory: ChronoMem, now: datetime, out: Out) -> dict[str, str]:
    monday, wednesday = now - timedelta(days=4), now - timedelta(days=2)
    out("   The agents write down what is worth keeping beyond this session:")
    party = _remember(
        memory,
        out,
        "Ardian's dinner party size is 4 people",
        category="party",
        entities=["dinner party"],
        valid_from=monday,
    )
    _remember(
        memory,
        out,
        "Ardian prefers quiet restaurants in Kemang",
        category="preference",
        entities=["Ardian", "Kemang"],
    )
    _remember(memory, out, "Sari is allergic to peanuts", category="diet", entities=["Sari"])
    booked = _remember(
        memory,
        out,
        "Kinara booking time is 19:00 on Friday",
        category="booking",
        entities=["Kinara", "dinner party"],
    )
    out("")
    out("   On Wednesday Ardian says two more friends are coming. That is a change, not a")
    out("   contradiction, so the agent supersedes the old fact (the history is kept):")
    bigger = memory.supersede(
        party,
        "Ardian's dinner party size is 6 people",
        category="party",
        entities=["dinner party"],
        valid_from=wednesday,
    )
    out("     - Ardian's dinner party size is 4 people   (valid until Wednesday)")
    out("     + Ardian's dinner party size is 6 people   (valid from Wednesday)")
    return {"party": party, "bigger": bigger, "booked": booked}


def _question(memory: ChronoMem, now: datetime, out: Out) -> None:
    out("")
    question = "how many people are coming to the dinner party, and where?"
    budget = 40
    facts = memory.recall(question, token_budget=budget)
    out(f"   recall({question!r}, token_budget={budget}):")
    _facts(out, facts)
    used = sum(f.tokens for f in facts)
    packed = f"{count(len(facts), 'fact')}, {used} of {budget} tokens"
    out(f"     → {packed}: packing stops at the budget.")
    out("")
    tuesday = now - timedelta(days=3)
    past = memory.recall("dinner party size", as_of=tuesday, limit=1)
    out("   And what was true on Tuesday?  recall('dinner party size', as_of=Tuesday):")
    _facts(out, past)


def _contradiction(memory: ChronoMem, out: Out) -> None:
    out("")
    out("   A different agent later writes a booking time that disagrees with the first:")
    late = memory.remember(
        "Kinara booking time is 20:00 on Friday",
        category="booking",
        entities=["Kinara", "dinner party"],
    )
    out("     + Kinara booking time is 20:00 on Friday")
    out(
        f"     remember() reports that it contradicts {len(late.contradicts)} active fact "
        "instead of silently keeping both."
    )
    for found in memory.contradictions():
        out(f"   contradictions(): {found.reason}")
    out("   (an agent would now ask Ardian, then supersede the wrong one)")


def _memory(path: Path, out: Out) -> None:
    _heading(
        out,
        2,
        "chronomem: the fact memory learns about the party",
        "Facts are bi-temporal: when they were true, and when we learned them.",
    )
    now = datetime.now(timezone.utc)
    with ChronoMem(path, owner=OWNER) as memory:
        _learn(memory, now, out)
        _question(memory, now, out)
        out("")
        out("   timeline('dinner party'): every belief about it, oldest first")
        for line in timeline_lines("dinner party", memory.timeline("dinner party")):
            out("     " + line)
        _contradiction(memory, out)
        _other_words(memory, out)
        _episodes(path, memory, out)


def _other_words(memory: ChronoMem, out: Out) -> None:
    out("")
    question = "does anyone have food allergies?"
    found = memory.recall(question, limit=1)
    out(f"   In other words: recall({question!r}, limit=1) (allergies meets allergic):")
    _facts(out, found)
    again = memory.remember("sari is allergic to peanuts.", category="diet")
    out("   An agent writes it again, in other case and punctuation:")
    known = "the fact above" if again.duplicate_of == found[0].id else again.duplicate_of
    out(f"     remember() stores nothing and returns {known} (FactId.duplicate_of)")


def _episodes(path: Path, memory: ChronoMem, out: Out) -> None:
    out("")
    out("   What was said is memory too: part 1's session becomes recallable episodes.")
    with contextlib.closing(SQLiteStore(path)) as store:
        sessions = Chronicarius(store)
        added = memory.index_session(sessions, chronica_demo.SESSION)
        again = memory.index_session(sessions, chronica_demo.SESSION)
    out(f"   index_session({chronica_demo.SESSION!r}): {count(added, 'message')} indexed, "
        f"then {again} on a second call")  # fmt: skip
    question = "Which restaurant did the booking agent book, and when?"
    out(f"   recall({question!r}, kinds=('episode',), limit=2):")
    for said in memory.recall(question, kinds=("episode",), limit=2):
        out(f"     • {said['speaker']}: {said.content}")


async def _ask_over_mcp(path: Path, out: Out) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    env = {"CHRONOMEM_DB": str(path), "CHRONOMEM_OWNER": OWNER}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=sys.executable, args=["-m", "chronomem.server"], env=env)
    with open(os.devnull, "w") as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = (await session.list_tools()).tools
            out(f"   tools: {', '.join(t.name for t in tools)}")
            await _mcp_calls(session, out)


def _kwargs(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in args.items())


async def _mcp_calls(session: Any, out: Out) -> None:
    args = {"query": "dinner party size and booking", "token_budget": 60}
    result = await session.call_tool("chronomem_recall", args)
    out(f"   chronomem_recall({_kwargs(args)}):")
    for fact in result.structured_content["facts"]:
        out(f"     • {fact['content']}")
    note = {
        "chronicum_id": chronica_demo.SESSION,
        "kind": "message",
        "actor_kind": "agent",
        "actor": "concierge",
        "content": "Noted for next time: six people, Sari is allergic to peanuts.",
        "idempotency_key": "concierge-note-1",
    }
    await session.call_tool("chronica_record_actum", note)
    await session.call_tool("chronica_record_actum", note)  # a retry: stored once
    out("   chronica_record_actum(... idempotency_key='concierge-note-1'), sent twice")
    window = {"chronicum_id": chronica_demo.SESSION, "last_n": 2, "kinds": ["message"]}
    result = await session.call_tool("chronica_get_acta", window)
    out(f"   chronica_get_acta({_kwargs(window)}):")
    for actum in result.structured_content["acta"]:
        out(f"     {actum['actor']:<10} {actum['content']}")
    bad = await session.call_tool("chronomem_forget", {"fact_id": "no-such-fact"})
    out(f"   a bad call is a readable tool error: {bad.content[0].text}")
    timings = []
    for _ in range(50):
        start = time.perf_counter()
        await session.call_tool("chronomem_recall", {"query": "quiet restaurant Kemang"})
        timings.append(time.perf_counter() - start)
    p50 = statistics.median(timings) * 1000
    out(f"   50 recalls through stdio: p50 {p50:.2f} ms per call (client to server and back)")


def _mcp(path: Path, out: Out) -> None:
    _heading(
        out,
        3,
        "MCP: the same memory, asked by an MCP client",
        "The official SDK's client spawns `python -m chronomem.server` on the same file.",
    )
    import anyio

    anyio.run(_ask_over_mcp, path, out)


def run(path: str | os.PathLike[str] = DEFAULT_DB, out: Out = print) -> None:
    """Play all three parts on a fresh database at ``path``.

    ``path`` must not exist or be a file an earlier demo made; otherwise
    :class:`DemoFileError` is raised and nothing is touched.
    """
    db = Path(path)
    _claim(db)
    _create(db)
    out(f"chronomem demo: one SQLite file ({db}) holds the session record and the memory.")
    _session(db, out)
    _memory(db, out)
    _mcp(db, out)
    out("")
    out(f"Done. Explore it: chronomem timeline 'dinner party' --db {db} --owner {OWNER}")


def main(argv: Sequence[str] | None = None) -> int:
    """``chronomem demo`` / ``python -m chronomem.demo``; returns the exit code."""
    parser = argparse.ArgumentParser(prog="chronomem demo", description=__doc__)
    parser.add_argument(
        "--db", default=DEFAULT_DB, help=f"a new file, or one an earlier demo made ({DEFAULT_DB})"
    )
    args = parser.parse_args(argv)
    try:
        run(args.db)
    except DemoFileError as e:
        print(f"chronomem demo: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
