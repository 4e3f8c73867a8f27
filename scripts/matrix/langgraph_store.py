"""Matrix: LangGraph's long-term memory stores, ``ChronoMemStore`` beside LangGraph's own.

Every store holds the same items: ``size`` memories of ``size / 20`` users, each under
``("users", <user>, "memories")`` with a sentence (``text``), its ``kind`` and a ``rank``.
They are filled untimed through each store's ``batch`` of ``PutOp`` (``ChronoMemStore``'s
``batch`` is one chronomem transaction per call), then every operation runs on every store in
turn, in an order shuffled per call (seeded), so that drift on the machine hits all of them
alike and no store always follows the same one (a call right after a PostgreSQL round trip
pays for it: with the order only rotated, the store listed first always followed
``PostgresStore`` and its get took 0.07 ms against 0.04 ms for the same store listed second):

- **put**: one new item, its own ``put`` (its own commit);
- **get**: one existing item by key;
- **search (text query)**: ``search(<the item's namespace>, query=<a question about it>)``:
  only ``ChronoMemStore`` answers it; LangGraph's stores without an embedding index ignore the
  query and return the namespace's items unranked, so theirs is recorded as *cannot answer*;
- **search (filter)**: ``search(<namespace>, filter={"rank": r})``, which all of them answer;
- **list_namespaces**: ``list_namespaces(prefix=("users",))`` (LangGraph's default limit, 100).

The stores: ``ChronoMemStore`` on a SQLite file (WAL, chronomem's default ``synchronous=NORMAL``,
and at ``FULL`` like ``SqliteStore``'s rollback journal), on PostgreSQL (up to
:data:`PG_OURS_MAX` items: filled through its ``batch``, which takes minutes beyond that);
LangGraph's ``InMemoryStore`` (not persistent: the floor) and its persistent ``SqliteStore``
(``langgraph-checkpoint-sqlite``) and ``PostgresStore`` (``langgraph-checkpoint-postgres``), on
a throwaway PostgreSQL server with its default durability. A filled ``ChronoMemStore`` file is
cached (keyed by size, seed and the write path's source), as the other matrices cache theirs.

Each size is measured in several runs; a row keeps the median p50 with the lowest and highest,
each run's load record, and each ratio is taken run by run (the runs interleave the stores).

Run on its own: ``python -m scripts.matrix.langgraph_store [--quick]`` prints the tables.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from tests.pgserver import throwaway_server

import chronomem
from chronomem import ChronoMem

from . import quiet
from .data import synthetic_facts
from .langgraph_tables import OPS, render
from .optional import bench_module
from .stats import percentiles
from .vocab import PERSON_ATTRIBUTES, PROJECT_ATTRIBUTES
from .worker import write_path_digest

__all__ = ["PG_OURS_MAX", "render", "run"]

_OWNER = "bench"
_PER_USER = 20  # memories per user: the namespaces grow with the items
_RANKS = 5
_CHUNK = 1_000  # PutOps per fill batch
PG_OURS_MAX = 10_000
"""The largest size ``ChronoMemStore`` on PostgreSQL is filled and measured at."""
_COUNTS = {"put": 100, "get": 200, "search_query": 50, "search_filter": 50, "list": 30}
_QUICK_COUNTS = {"put": 10, "get": 20, "search_query": 8, "search_filter": 8, "list": 8}
_WARM = 3  # untimed calls of each operation before the first run


@dataclass
class _Subject:
    """One store under test and its timings in the current run (seconds)."""

    name: str
    store: Any
    answers_query: bool
    samples: dict[str, list[float]] = field(default_factory=dict)
    runs: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    hits: list[int] = field(default_factory=list)


def _users(size: int) -> int:
    return max(1, size // _PER_USER)


def _namespace(i: int, size: int) -> tuple[str, ...]:
    return ("users", f"u{i % _users(size):05d}", "memories")


def _fill_ops(size: int, seed: int) -> Iterator[Any]:
    put_op = bench_module("langgraph.store.base").PutOp
    for i, fact in enumerate(synthetic_facts(size, seed=seed)):
        value = {"text": fact.content, "kind": fact.category, "rank": (i // _users(size)) % _RANKS}
        yield put_op(_namespace(i, size), f"m{i:07d}", value)


def _fill(store: Any, size: int, seed: int) -> None:
    ops = _fill_ops(size, seed)
    while chunk := list(islice(ops, _CHUNK)):
        store.batch(chunk)


def _questions(size: int, count: int, seed: int) -> list[tuple[int, str]]:
    """(item, a question about it) for ``count`` items spread over the size."""
    attrs = {a.name: a for a in PERSON_ATTRIBUTES + PROJECT_ATTRIBUTES}
    facts = list(synthetic_facts(size, seed=seed))
    step = max(1, size // count)
    picked = [(i * step + 7) % size for i in range(count)]
    return [(i, attrs[facts[i].category].exact.format(e=facts[i].entity)) for i in picked]


def _fill_key(size: int, seed: int) -> str:
    """Names a filled file by what decides its bytes: size, seed, chronomem's write path and
    the store's mapping of items onto facts."""
    digest = hashlib.sha256(write_path_digest().encode())
    for module in sorted((Path(chronomem.__file__).parent / "integrations").glob("*langgraph*")):
        digest.update(module.read_bytes())
    return f"langgraph-{size}-{seed}-{digest.hexdigest()[:12]}.db"


def _ours_file(
    size: int, seed: int, where: Path, cache: str | None, log: Any
) -> tuple[Path, dict[str, Any]]:
    """A ``ChronoMemStore`` file of ``size`` items, copied from the cache when it holds one,
    and how long its fill took (``fill_s``, ``None`` if not recorded) and whether it was cached."""
    file = where / f"ours-{size}.db"
    template = Path(cache) / _fill_key(size, seed) if cache else None
    if template is not None and template.exists():
        shutil.copyfile(template, file)
        record = template.with_suffix(".json")
        fill_s = json.loads(record.read_text()) if record.exists() else None
        return file, {"fill_s": fill_s, "cached": True}
    store_cls = bench_module("chronomem.integrations.langgraph").ChronoMemStore
    started = time.perf_counter()
    with ChronoMem(file, owner=_OWNER) as mem:
        _fill(store_cls(mem), size, seed)
    took = time.perf_counter() - started
    log(f"langgraph: ChronoMemStore filled with {size:,} items in {took:.0f}s")
    if template is not None:  # closed, so the WAL is checkpointed into the file
        template.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, template)
        template.with_suffix(".json").write_text(json.dumps(took))
    return file, {"fill_s": took, "cached": False}


def _open_all(
    size: int, seed: int, dsn: str, where: Path, cfg: dict[str, Any], stack: Any, log: Any
) -> list[_Subject]:
    """Every store, filled with the same ``size`` items (untimed; ours's fill in ``cfg``)."""
    lg_store = bench_module("chronomem.integrations.langgraph").ChronoMemStore
    in_memory = bench_module("langgraph.store.memory").InMemoryStore
    sqlite_store = bench_module("langgraph.store.sqlite").SqliteStore
    postgres_store = bench_module("langgraph.store.postgres").PostgresStore
    conninfo = bench_module("psycopg.conninfo")
    subjects = []
    filled, cfg["fills"][str(size)] = _ours_file(size, seed, where, cfg["cache"], log)
    for sync in ("NORMAL", "FULL"):
        file = where / f"ours-{size}-{sync}.db"
        shutil.copyfile(filled, file)
        mem = stack.enter_context(ChronoMem(file, owner=_OWNER, synchronous=sync))
        subjects.append(_Subject(f"ChronoMemStore (SQLite {sync})", lg_store(mem), True))
    if size <= PG_OURS_MAX:
        url = _url(conninfo, dsn)
        mem = stack.enter_context(ChronoMem(url, owner=_OWNER, schema=f"lg_{size}"))
        ours_pg = lg_store(mem)
        _fill(ours_pg, size, seed)
        subjects.append(_Subject("ChronoMemStore (PostgreSQL)", ours_pg, True))
    memory = in_memory()
    _fill(memory, size, seed)
    subjects.append(_Subject("InMemoryStore", memory, False))
    conn = sqlite3.connect(where / f"lg-{size}.db", check_same_thread=False, isolation_level=None)
    stack.callback(conn.close)
    lite = sqlite_store(conn)
    lite.setup()
    _fill(lite, size, seed)
    subjects.append(_Subject("SqliteStore", lite, False))
    database = f"lg_{size}"
    with bench_module("psycopg").connect(dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
    pg = stack.enter_context(postgres_store.from_conn_string(_with_db(conninfo, dsn, database)))
    pg.setup()
    _fill(pg, size, seed)
    subjects.append(_Subject("PostgresStore", pg, False))
    return subjects


def _with_db(conninfo: Any, dsn: str, database: str) -> str:
    return str(conninfo.make_conninfo(dsn, dbname=database))


def _url(conninfo: Any, dsn: str) -> str:
    import urllib.parse

    params = {k: str(v) for k, v in conninfo.conninfo_to_dict(dsn).items()}
    return "postgresql://?" + urllib.parse.urlencode(params)


def _calls(size: int, run: int, counts: dict[str, int], seed: int) -> dict[str, list[Any]]:
    """Each operation's calls in this run, the same for every store: (op, call(store))."""
    asks = _questions(size, counts["search_query"], seed + run)
    gets = [(j * 7919 + run * 131) % size for j in range(counts["get"])]

    def put(j: int) -> Callable[[Any], object]:
        text = f"Note {run}.{j}: user prefers aisle seats and oat milk in the morning."
        ns = _namespace(j, size)
        return lambda s: s.put(ns, f"new-{run}-{j}", {"text": text, "kind": "note", "rank": 0})

    def get(i: int) -> Callable[[Any], object]:
        return lambda s: s.get(_namespace(i, size), f"m{i:07d}")

    def search_filter(j: int) -> Callable[[Any], object]:
        ns, rank = _namespace(j * 31 + run, size), j % _RANKS
        return lambda s: s.search(ns, filter={"rank": rank}, limit=10)

    def listing(_: int) -> Callable[[Any], object]:
        return lambda s: s.list_namespaces(prefix=("users",))

    return {
        "put": [put(j) for j in range(counts["put"])],
        "get": [get(i) for i in gets],
        "search_query": [(i, q) for i, q in asks],
        "search_filter": [search_filter(j) for j in range(counts["search_filter"])],
        "list": [listing(j) for j in range(counts["list"])],
    }


def _timed(subject: _Subject, op: str, call: Callable[[Any], object]) -> object:
    started = time.perf_counter()
    out = call(subject.store)
    subject.samples.setdefault(op, []).append(time.perf_counter() - started)
    return out


def _run_once(
    subjects: list[_Subject], calls: dict[str, list[Any]], size: int, order: random.Random
) -> None:
    """One run: every call of every operation on every store, in an order shuffled per call."""
    for subject in subjects:
        subject.samples = {}
    for op, _ in OPS:
        for call in calls[op]:
            for subject in order.sample(subjects, len(subjects)):
                if op != "search_query":
                    _timed(subject, op, call)
                elif subject.answers_query:
                    item, question = call
                    found = _timed(subject, op, _asking(size, item, question))
                    key = f"m{item:07d}"
                    subject.hits.append(any(r.key == key for r in found))  # type: ignore[attr-defined]  # search returns SearchItems
    for subject in subjects:
        for op, samples in subject.samples.items():
            stats = {k: 1000 * v for k, v in percentiles(samples).items()}
            subject.runs.setdefault(op, []).append(stats)


def _asking(size: int, item: int, question: str) -> Callable[[Any], object]:
    ns = _namespace(item, size)
    return lambda s: s.search(ns, query=question, limit=10)


def _warm(subjects: list[_Subject], calls: dict[str, list[Any]], size: int) -> None:
    for op, _ in OPS:
        for call in calls[op][:_WARM]:
            for subject in subjects:
                if op != "search_query":
                    call(subject.store)
                elif subject.answers_query:
                    _asking(size, *call)(subject.store)


def _rows(subjects: list[_Subject], size: int, loads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for subject in subjects:
        for op, _ in OPS:
            row: dict[str, Any] = {"store": subject.name, "items": size, "op": op, "load": loads}
            runs = subject.runs.get(op)
            if not runs:  # a text query it cannot answer
                rows.append(row | {"answers": False})
                continue
            p50s = [r["p50"] for r in runs]
            row |= {"answers": True, "runs_p50": p50s, **quiet.spread(p50s)}
            row["p95"] = statistics.median(r["p95"] for r in runs)
            if op == "search_query":
                row["hit_rate"] = sum(subject.hits) / len(subject.hits)
            rows.append(row)
    return rows


def _size(size: int, dsn: str, cfg: dict[str, Any], where: Path, log: Any) -> list[dict[str, Any]]:
    with contextlib.ExitStack() as stack:
        subjects = _open_all(size, cfg["seed"], dsn, where, cfg, stack, log)
        _check(subjects, size)
        _warm(subjects, _calls(size, -1, cfg["counts"], cfg["seed"]), size)
        loads = []
        for run in range(cfg["runs"]):
            before, waited = quiet.settle()  # bounded; a run measured under load is marked
            calls = _calls(size, run, cfg["counts"], cfg["seed"])
            _run_once(subjects, calls, size, random.Random(cfg["seed"] + run))
            loads.append(quiet.checkpoint(before, waited))
        log(f"langgraph: {size:,} items, {len(subjects)} stores, {cfg['runs']} runs measured")
        return _rows(subjects, size, loads)


def _check(subjects: list[_Subject], size: int) -> None:
    """Every store holds what was put: a wrong fill must stop the run, not be measured."""
    probe = size // 2
    for subject in subjects:
        item = subject.store.get(_namespace(probe, size), f"m{probe:07d}")
        spaces = subject.store.list_namespaces(prefix=("users",), limit=size)
        if (
            item is None
            or set(item.value) != {"text", "kind", "rank"}
            or len(spaces) != _users(size)
        ):
            raise SystemExit(f"langgraph: {subject.name} does not hold the {size:,} items put")


def run(
    quick: bool,
    *,
    sizes: list[int] | None = None,
    seed: int = 20260601,
    cache_dir: str | None = None,
    runs: int | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Every store at each size (1,000 and 100,000 items; 50 and 300 when ``quick``)."""
    sizes = sizes or ([50, 300] if quick else [1_000, 100_000])
    cfg = {"seed": seed, "cache": cache_dir, "runs": runs or (2 if quick else 3),
           "counts": _QUICK_COUNTS if quick else _COUNTS, "fills": {}}  # fmt: skip
    rows: list[dict[str, Any]] = []
    with (
        throwaway_server(prefix="chronomem-langgraph-") as dsn,
        tempfile.TemporaryDirectory(prefix="chronomem-bench-") as tmp,
    ):
        for size in sizes:
            rows += _size(size, dsn, cfg, Path(tmp), log)
    return {"sizes": sizes, "rows": rows, "runs": cfg["runs"], "pg_ours_max": PG_OURS_MAX,
            "fills": cfg["fills"]}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and print it."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="50 and 300 items")
    parser.add_argument("--sizes", help="comma-separated sizes, e.g. 1000,100000")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else None
    quiet.patient(not args.quick)
    print(render(run(args.quick, sizes=sizes)))


if __name__ == "__main__":
    main()
