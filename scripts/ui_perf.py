"""Measure how fast the inspector opens its pages on a big database; writes docs/ui/perf.md.

The database: the inspector's sample data, plus one session of 100,000 acta and 1,000,000
facts (the benchmark's synthetic corpus, filled 10,000 per transaction as
scripts/bench_chronomem.py fills its databases). On SQLite (the default) building the file
takes a few minutes and it is kept for the next run; with ``--engine postgres`` the script
starts a throwaway PostgreSQL server (tests/pgserver.py), builds the same data in it and
measures the same pages. Each engine has its own section of docs/ui/perf.md; a run rewrites
its own and keeps the other's.

Each page is opened in a real headless Chromium (a full load, not an in-page hop) until it
has drawn its data, five times; the table gives the median and the worst, with the median
time of the JSON request the page makes. The goal is under 300 ms for every page.

    python scripts/ui_perf.py                      # 1,000,000 facts, 100,000 acta
    python scripts/ui_perf.py --engine postgres --facts 100000
    python scripts/ui_perf.py --facts 20000 --acta 5000 --out /tmp/perf.md   # a quick look
"""

from __future__ import annotations

import argparse
import platform
import re
import sqlite3
import statistics
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from selenium import webdriver  # noqa: E402
from tests.chronomem.ui.browser import open_browser, serve_in_thread  # noqa: E402
from tests.chronomem.ui.sample import OWNER, Db, fill, session_store  # noqa: E402
from tests.pgserver import dsn_url, throwaway_server, with_dbname  # noqa: E402

from chronica import ActorKind, Actum, ActumKind, Chronicarius  # noqa: E402 -- after sys.path
from chronomem import ChronoMem  # noqa: E402
from scripts.bench_chronomem import Corpus, bulk_ingest  # noqa: E402

GOAL_MS = 300.0
BIG_SESSION = "support-marathon"
RUNS = 5


def build(db: Db, facts: int, acta: int) -> None:
    """The sample data, a session of ``acta`` acta and ``facts`` synthetic facts."""
    fill(db)
    kinds = [ActumKind.MESSAGE, ActumKind.MESSAGE, ActumKind.THOUGHT, ActumKind.TOOL_REQUEST]
    with session_store(db) as store:
        c = Chronicarius(store)
        for start in range(0, acta, 5000):
            c.record_acta(OWNER, [
                Actum(chronicum_id=BIG_SESSION, kind=kinds[i % 4],
                      actor_kind=ActorKind.HUMAN if i % 5 == 0 else ActorKind.AGENT,
                      actor=f"agent-{i % 5}", content=f"turn {i}: " + "lorem ipsum " * (i % 20))
                for i in range(start, min(acta, start + 5000))
            ])  # fmt: skip
    with ChronoMem(db, owner=OWNER) as mem:
        bulk_ingest(mem, Corpus(), facts)


PAGES = [
    ("sessions list", "#/sessions", "sessions"),
    (f"session of 100,000 acta (newest {200})", f"#/session?id={BIG_SESSION}",
     f"acta?session={BIG_SESSION}&limit=200"),
    ("same session, messages of agents, last 50", f"#/session?id={BIG_SESSION}&kinds=message"
     "&actor_kinds=agent&last_n=50",
     f"acta?session={BIG_SESSION}&kinds=message&actor_kinds=agent&last_n=50&limit=200"),
    ("memory: recall with a 200-token budget", "#/memory?q=Project+Dana+Smith+meeting&budget=200",
     "recall?q=Project+Dana+Smith+meeting&budget=200"),
    ("memory: as_of and known_at",
     "#/memory?q=where+does+Ardian+live&as_of=2026-02-01&known_at=2026-12-01",
     "recall?q=where+does+Ardian+live&as_of=2026-02-01&known_at=2026-12-01"),
    ("timeline of an entity", "#/timeline?entity=Ardian", "timeline?entity=Ardian&limit=200"),
    ("contradictions", "#/contradictions", "contradictions?limit=50"),
]  # fmt: skip


def _api_ms(base: str, path: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        with urllib.request.urlopen(f"{base}/api/{path}", timeout=900) as response:
            response.read()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _open_ms(browser: webdriver.Chrome, url: str) -> float:
    """One full load of ``url``: navigation start to the page's ``ready`` mark."""
    browser.get("about:blank")
    browser.get(url)
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        # Short calls in a loop: one long-waiting script would outlast the driver's timeout.
        ms = browser.execute_script(
            "const m = performance.getEntriesByName('ready');"
            "return m.length ? m[m.length - 1].startTime : null;"
        )
        if ms is not None:
            return float(ms)
        time.sleep(0.005)
    raise TimeoutError(f"{url} did not draw its data in 900 s")


_BUSIEST = """SELECT e.name FROM {s}chronomem_entities e
               JOIN {s}chronomem_fact_entities fe ON fe.entity_id = e.id
               GROUP BY e.id ORDER BY count(*) DESC LIMIT 1"""


def busiest_entity(db: Db) -> str:
    """The entity with the most facts: the heaviest timeline the database can draw."""
    if isinstance(db, str):
        import psycopg

        with psycopg.connect(db) as pg:
            row = pg.execute(_BUSIEST.format(s="chronomem.")).fetchone()
    else:
        with sqlite3.connect(db) as conn:
            row = conn.execute(_BUSIEST.format(s="")).fetchone()
    assert row is not None, "no entity: the database was not built"
    return str(row[0])


NOTES = {
    "contradictions": "`ChronoMem.contradictions()` itself takes this long on this file: its "
    "query reads every fact-entity link, as `chronomem_fact_entities` has no index by fact. "
    "The inspector runs it on a memory of its own, one scan at a time shared by whoever asked "
    "meanwhile, so the other pages stay fast while it runs.",
}
"""Why a page missed its goal, printed under the table when it did."""

SLOW_MS = 5000.0
"""A page slower than this on its warm-up load is measured once more, not five times."""


def measure(db: Db) -> list[tuple[str, float, float, float, int]]:
    """Per page: (name, median open ms, worst open ms, median JSON request ms, runs)."""
    name = busiest_entity(db)
    busy = urllib.parse.quote(name)
    heavy = (f"timeline of the busiest entity ({name})", f"#/timeline?entity={busy}",
             f"timeline?entity={busy}&limit=200")  # fmt: skip
    rows = []
    with serve_in_thread(db, OWNER) as base, open_browser() as browser:
        for title, fragment, api in [*PAGES, heavy]:
            warm = _open_ms(browser, f"{base}/{fragment}")  # warms the page cache; dropped
            runs = 1 if warm > SLOW_MS else RUNS
            opened = [_open_ms(browser, f"{base}/{fragment}") for _ in range(runs)]
            median = statistics.median(opened)
            rows.append((title, median, max(opened), _api_ms(base, api, runs), runs))
            print(f"{title}: {median:.0f} ms", flush=True)
    return rows


WHERE = {
    "sqlite": "in one SQLite file",
    "postgres": "in one PostgreSQL database (a throwaway local server, reached over its Unix "
    "socket; fsync off while it was filled, which changes no read)",
}
TITLE = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


def report(
    rows: list[tuple[str, float, float, float, int]], facts: int, acta: int, engine: str
) -> str:
    """The engine's section of docs/ui/perf.md."""
    flag = "" if engine == "sqlite" else f" --engine {engine} --facts {facts}"
    lines = [
        f"## {TITLE[engine]}",
        "",
        f"Generated by `python scripts/ui_perf.py{flag}` on {platform.machine()}, "
        f"Python {platform.python_version()}: {facts:,} facts and a session of {acta:,} acta "
        f"{WHERE[engine]}. Open = from navigation start to the page drawing its data in "
        f"headless Chromium (median and worst of {RUNS} full loads, after one warm-up); "
        f"JSON = the page's request alone. Goal: open under {GOAL_MS:.0f} ms.",
        "",
        "| page | open median (ms) | open worst (ms) | JSON median (ms) | goal |",
        "|---|---:|---:|---:|---|",
    ]
    for title, median, worst, api, runs in rows:
        met = "met" if worst < GOAL_MS else "**missed**"
        once = f" ({runs} run)" if runs == 1 else ""
        lines.append(f"| {title}{once} | {median:.0f} | {worst:.0f} | {api:.1f} | {met} |")
    missed = [t for t, _, worst, _, _ in rows if worst >= GOAL_MS]
    notes = [f"- {t}: {NOTES[t]}" for t in missed if t in NOTES]
    if notes:
        lines += ["", "Misses:", "", *notes]
    return "\n".join(lines) + "\n"


def _marker(engine: str, end: bool = False) -> str:
    return f"<!-- {'/' if end else ''}{engine} (written by scripts/ui_perf.py) -->"


def write_section(out: Path, engine: str, section: str) -> None:
    """Put ``section`` in ``out`` as this engine's part, keeping the other engines' parts."""
    parts = {}
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    for name in TITLE:
        found = re.search(re.escape(_marker(name)) + r"\n(.*?)" + re.escape(_marker(name, True)),
                          old, re.S)  # fmt: skip
        if found:
            parts[name] = found.group(1)
    parts[engine] = section
    body = ["# Inspector page open times", ""]
    for name in TITLE:
        if name in parts:
            body += [_marker(name), parts[name].rstrip("\n"), _marker(name, True), ""]
    out.write_text("\n".join(body), encoding="utf-8")


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new database on a throwaway server, as a ``postgresql://`` URL."""
    import psycopg

    # fsync off: a throwaway server that is filled fast; reads are what is measured.
    with throwaway_server({"fsync": "off", "synchronous_commit": "off"}) as dsn:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE DATABASE ui_perf")
        yield with_dbname(dsn_url(dsn), "ui_perf")


def settle(url: str) -> None:
    """What autovacuum would have done to a database this size long before anyone looked:
    planner statistics and a visibility map (index-only scans then skip the table)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def _built(db: Db, facts: int, acta: int) -> None:
    start = time.perf_counter()
    print(f"building {db} ...", flush=True)
    build(db, facts, acta)
    print(f"built in {time.perf_counter() - start:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--acta", type=int, default=100_000)
    parser.add_argument("--db", type=Path, help="kept between runs (default: in /tmp by size)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ui" / "perf.md")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--engine", choices=sorted(TITLE), default="sqlite")
    args = parser.parse_args()
    if args.engine == "postgres":
        with postgres_database() as url:
            _built(url, args.facts, args.acta)
            settle(url)
            if args.build_only:
                return
            rows = measure(url)
    else:
        db = args.db or Path(f"/tmp/chronomem-ui-perf-{args.facts}-{args.acta}.db")
        if not db.exists():
            _built(db, args.facts, args.acta)
        if args.build_only:
            return
        rows = measure(db)
    write_section(args.out, args.engine, report(rows, args.facts, args.acta, args.engine))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
