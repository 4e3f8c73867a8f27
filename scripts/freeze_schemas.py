"""Freeze every shipped schema version of chronomem and chronica, on both engines, as SQL.

Migration tests used to build their "old" database with today's code (``_V1``,
``_MIGRATIONS[1]``), so an edit to a shipped migration changed the old side and the new side
alike and still passed. The fixtures this writes come from the code of the commit that last
wrote each version: its ``src/`` is extracted with ``git archive`` (no worktree, nothing in
the working tree touched), a child Python imports it ahead of the installed package, opens a
fresh memory or store through that version's public API and writes a few rows, and the result
is dumped (SQLite: ``iterdump``; PostgreSQL: ``pg_dump --inserts`` of one schema on a
throwaway server). Each file's header names its source commit; ``MANIFEST.json`` pins each
file's SHA-256, so a fixture cannot be "fixed" to match an edited migration without a test
failing (tests/chronica/test_frozen_schemas.py and
tests/chronomem/engine/test_frozen_schemas.py).

    .venv/bin/python scripts/freeze_schemas.py            # writes tests/fixtures/schemas/

Only versions that shipped are frozen; a new version is added to ``SOURCES`` once a commit
has shipped it (never regenerate an existing fixture: it is the evidence).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "schemas"
SCHEMA = "frozen_fixture"  # the PostgreSQL schema a fixture is dumped from; tests rename it

# (package, engine, version, the last commit whose code wrote that version).
SOURCES: tuple[tuple[str, str, int, str], ...] = (
    ("chronomem", "sqlite", 1, "d39d47b9588db96ce1f14d671c3d849dfb44e66c"),
    ("chronomem", "sqlite", 2, "be004dd7e6fb1a0f99fde4b38a6feb7c3871b004"),
    ("chronomem", "sqlite", 3, "f7063721cf18f84f29a7eece23602c1c9e9e229f"),
    ("chronomem", "sqlite", 4, "c3d31a2829499d7ed4ff7bef0a90fa9eee528aab"),
    ("chronomem", "sqlite", 5, "337299b1c6531cf86ee8c380e29a52406979f23a"),
    # The last version-6 commit whose code imports (1df1d78 to d696cfe committed
    # AsyncChronoMem.purge ahead of ChronoMem.purge).
    ("chronomem", "sqlite", 6, "f9db934cbc1908bd433d187f7e671cd84ed286ed"),
    # Version 7 shipped as the content-key step (issue 18); today that step is the 8th.
    ("chronomem", "sqlite", 7, "fa600932c43cebcc1013ec2ec40b854160cfea6d"),
    ("chronomem", "sqlite", 8, "59763c993f5b10c555b9948bacdc288e0d057c78"),
    ("chronomem", "sqlite", 9, "08ad2bf489b4fdb2e8b6c5d86d0495ba20326048"),
    ("chronomem", "sqlite", 10, "976b01ae9d998f382e745e760ac015bca9f32248"),
    ("chronomem", "sqlite", 11, "780c5464de0fb4750008fd1699f5e221e2c1bb9b"),
    ("chronomem", "sqlite", 12, "74a8a641caa7b3a7dc943d235a4ec024d54e381d"),
    ("chronomem", "sqlite", 13, "7a9762ae1f7ddc0b580d9eb806c6ebac79fd4fcb"),
    ("chronomem", "sqlite", 14, "6dc1e32bf4438ffa1e8e41e0f48b8107522a2a19"),
    ("chronomem", "sqlite", 15, "ecc4283458d072c4f8500b601dd69008b0de0555"),
    ("chronomem", "sqlite", 16, "9da289ec36b56d35f5eb70c7109c359633968f46"),
    ("chronomem", "sqlite", 17, "0f1d197e42b14c95f95d4e653a75043952daea11"),
    ("chronomem", "postgres", 1, "f7063721cf18f84f29a7eece23602c1c9e9e229f"),
    ("chronomem", "postgres", 2, "c3d31a2829499d7ed4ff7bef0a90fa9eee528aab"),
    ("chronomem", "postgres", 3, "337299b1c6531cf86ee8c380e29a52406979f23a"),
    ("chronomem", "postgres", 4, "f9db934cbc1908bd433d187f7e671cd84ed286ed"),
    # Version 5 shipped as the content-key step (issue 18); today that step is the 6th.
    ("chronomem", "postgres", 5, "fa600932c43cebcc1013ec2ec40b854160cfea6d"),
    ("chronomem", "postgres", 6, "59763c993f5b10c555b9948bacdc288e0d057c78"),
    ("chronomem", "postgres", 7, "976b01ae9d998f382e745e760ac015bca9f32248"),
    ("chronomem", "postgres", 8, "780c5464de0fb4750008fd1699f5e221e2c1bb9b"),
    ("chronomem", "postgres", 9, "0cc872b78d8d94fdb017b2de9f1a172da855efd2"),
    ("chronomem", "postgres", 10, "7a9762ae1f7ddc0b580d9eb806c6ebac79fd4fcb"),
    ("chronomem", "postgres", 11, "6dc1e32bf4438ffa1e8e41e0f48b8107522a2a19"),
    ("chronomem", "postgres", 12, "ecc4283458d072c4f8500b601dd69008b0de0555"),
    ("chronomem", "postgres", 13, "9da289ec36b56d35f5eb70c7109c359633968f46"),
    ("chronomem", "postgres", 14, "e0858b3169094b2b65ff5cf81578c933a63ff966"),
    # The remember function locking in the order a purge does.
    ("chronomem", "postgres", 15, "38f85e419b6715097287c2596e1eb371d558ee2a"),
    ("chronica", "sqlite", 1, "4a7738d98fd2e9e19a58e70d9212c3c2bc328cb7"),
    ("chronica", "sqlite", 2, "f93cda7da764eab98f8f93f0f99888258d2d73ae"),
    # The lean acta layout (issue 40): positions are rowids.
    ("chronica", "sqlite", 3, "d4f45943012b666e03abb921cb8f698757a64692"),
    ("chronica", "postgres", 1, "4a7738d98fd2e9e19a58e70d9212c3c2bc328cb7"),
    ("chronica", "postgres", 2, "f93cda7da764eab98f8f93f0f99888258d2d73ae"),
)

# What every frozen memory holds, written through the old code's public API; the tests read
# the same constants back after migrating.
FACTS = {
    "home": "Ardian lives in Kemang",
    "booking": "The Kinara booking is at 7pm for four people",
    "laptop": "Bea's laptop is a ThinkPad-T14",
}
MOVED = "Ardian lives in Menteng"  # supersedes FACTS["home"]
FORGET_REASON = "the dinner was cancelled"  # FACTS["booking"] is forgotten with it
EPISODES = (  # session "dinner", from version 2 of chronomem's SQLite schema on
    ("Bea", "Where should we eat tonight?"),
    ("Ardian", "Kinara, they do a very good rendang"),
)
OTHER_OWNER, OTHER_FACT = "bea", "Bea lives in Bandung"
# chronica: (owner, chronicum, content, idempotency key) in recording order.
ACTA = (
    ("ardian", "dinner", "Where should we eat tonight?", None),
    ("ardian", "dinner", "Kinara at seven", "turn-2"),
    ("bea", "trip", "Train to Bandung at nine", None),
)


def _write_chronomem(target: str, *, postgres: bool) -> None:
    from chronomem import ChronoMem

    # The versions before PostgreSQL had no ``schema`` argument at all.
    where: dict[str, Any] = {"schema": SCHEMA} if postgres else {}
    with ChronoMem(target, **where) as mem:
        home = mem.remember(FACTS["home"], category="home", entities=["Ardian", "Kemang"])
        booking = mem.remember(FACTS["booking"])
        mem.remember(FACTS["laptop"], entities=["Bea", "ThinkPad-T14"])
        mem.supersede(home, MOVED, category="home", entities=["Ardian", "Menteng"])
        mem.forget(booking, FORGET_REASON)
        if hasattr(mem, "remember_episode"):
            for speaker, text in EPISODES:
                mem.remember_episode(text, speaker=speaker, session="dinner")
    with ChronoMem(target, owner=OTHER_OWNER, **where) as other:
        other.remember(OTHER_FACT)


def _write_chronica(target: str, *, postgres: bool) -> None:
    from chronica import ActorKind, Actum, ActumKind, Chronicarius

    store: Any
    if postgres:
        from chronica.stores.postgres import PostgresStore

        store = PostgresStore(target, schema=SCHEMA)
    else:
        from chronica.stores.sqlite import SQLiteStore

        store = SQLiteStore(target)
    with store:
        c = Chronicarius(store)
        for owner, cid, content, key in ACTA:
            actum = Actum(
                chronicum_id=cid,
                kind=ActumKind.MESSAGE,
                actor_kind=ActorKind.HUMAN,
                actor=owner,
                content=content,
            )
            c.record_actum(owner, actum, idempotency_key=key)


def child(package: str, engine: str, target: str, tree: str) -> None:
    """Runs inside the old code (``tree`` first on ``PYTHONPATH``): write the rows."""
    module = __import__(package)
    if not str(Path(module.__file__ or "").resolve()).startswith(str(Path(tree).resolve())):
        raise SystemExit(f"{package} was imported from {module.__file__}, not from {tree}")
    write = _write_chronomem if package == "chronomem" else _write_chronica
    write(target, postgres=engine == "postgres")


def _extract(commit: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "src"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _run_child(package: str, engine: str, target: str, src: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run(
        [sys.executable, __file__, "--child", package, engine, target, str(src)],
        cwd=src.parent,
        env=env,
        check=True,
    )


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return f"X'{value.hex().upper()}'"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def _sqlite_dump(path: Path) -> str:
    """The file as SQL that rebuilds it exactly, rowids included.

    Not ``iterdump``: it writes an FTS5 table by inserting into the table itself (rowids
    lost, external-content tables broken). Here a virtual table is created by its own DDL and
    its shadow tables, which that creates, are emptied and refilled row for row.
    """
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        objects = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL"
            " AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid"
        ).fetchall()
        virtual = [name for _, name, sql in objects if sql.startswith("CREATE VIRTUAL")]
        lines = ["BEGIN;"]
        shadows = set()
        for kind, name, sql in objects:
            shadow = any(name.startswith(v + "_") for v in virtual)
            if shadow:
                shadows.add(name)
                lines.append(f'DELETE FROM "{name}";')
            else:
                lines.append(sql + ";")
            if kind != "table" or sql.startswith("CREATE VIRTUAL"):
                continue
            info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
            columns = [row[1] for row in info]
            keys = [row for row in info if row[5]]
            alias = len(keys) == 1 and keys[0][2].upper() == "INTEGER"  # the rowid, named
            rowid = "WITHOUT ROWID" not in sql.upper() and not alias
            names = (["rowid"] if rowid else []) + columns
            listed = ", ".join(f'"{c}"' for c in names)
            order = "rowid" if rowid else "1"
            for row in conn.execute(f'SELECT {listed} FROM "{name}" ORDER BY {order}'):
                values = ", ".join(_literal(v) for v in row)
                lines.append(f'INSERT INTO "{name}" ({listed}) VALUES ({values});')
        lines.append("COMMIT;")
        return "\n".join(lines) + "\n"
    finally:
        conn.close()


def _pg_dump(dsn: str) -> str:
    from tests.pgserver import find_bindir

    out = subprocess.run(
        [str(find_bindir() / "pg_dump"), "--schema", SCHEMA, "--inserts", "--no-owner",
         "--no-privileges", "--no-comments", "--no-tablespaces", dsn],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    # psql meta-commands (\restrict in newer pg_dump) are not SQL; settings are per session.
    lines = [line for line in out.splitlines() if not line.startswith("\\")]
    return "\n".join(lines) + "\n"


def fixture_name(package: str, engine: str, version: int) -> str:
    """The file one frozen version lives in, under tests/fixtures/schemas/."""
    return f"{package}-{engine}-v{version}.sql"


def body(text: str) -> str:
    """A fixture without its header: what a test executes."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("--"))


def _freeze(package: str, engine: str, version: int, commit: str, dsn: str | None) -> str:
    with tempfile.TemporaryDirectory(prefix="freeze-") as tmp:
        src = _extract(commit, Path(tmp))
        if engine == "sqlite":
            path = Path(tmp) / "frozen.db"
            _run_child(package, engine, str(path), src)
            dump = _sqlite_dump(path)
        else:
            assert dsn is not None
            import psycopg

            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
            _run_child(package, engine, dsn, src)
            dump = _pg_dump(dsn)
    header = (
        f"-- {package} {engine} schema version {version}, frozen by scripts/freeze_schemas.py\n"
        f"-- source commit: {commit}\n"
        "-- Never edit or regenerate: tests/test_frozen_schemas.py migrates it with today's code.\n"
    )
    return header + dump


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs=4, metavar=("PACKAGE", "ENGINE", "TARGET", "TREE"))
    parser.add_argument("--only", help="freeze only files whose name contains this")
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, str(ROOT))
    from tests.pgserver import dsn_url, throwaway_server

    OUT.mkdir(parents=True, exist_ok=True)
    manifest_path = OUT / "MANIFEST.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    with throwaway_server({"fsync": "off"}, prefix="freeze-pg-") as server:
        dsn = dsn_url(server)  # chronomem tells PostgreSQL from SQLite by the URL's scheme
        for package, engine, version, commit in SOURCES:
            name = fixture_name(package, engine, version)
            if args.only and args.only not in name:
                continue
            text = _freeze(package, engine, version, commit, dsn)
            (OUT / name).write_text(text)
            manifest[name] = {
                "commit": commit,
                "sha256": hashlib.sha256(text.encode()).hexdigest(),
            }
            print(f"{name}: {len(text):,} bytes from {commit[:10]}")
    manifest_path.write_text(json.dumps(dict(sorted(manifest.items())), indent=2) + "\n")


if __name__ == "__main__":
    main()
