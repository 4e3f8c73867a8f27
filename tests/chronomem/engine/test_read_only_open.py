"""A memory opens for reading where it may only be read (issue 20 item 11).

A PostgreSQL role with only CONNECT, USAGE and SELECT could not recall: every open ran
``CREATE SCHEMA IF NOT EXISTS``. An open now reads the schema's version with a plain SELECT
first and changes nothing when it is current. A SQLite file its user may only read (a
read-only mount: no WAL file can be made beside it) failed recall, stats and export; it is
now opened ``mode=ro`` (``immutable=1`` where even that cannot read it) and never migrated.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from chronomem import ChronoMem, DatabaseError
from tests.chronomem.backends import MemoryTarget, dsn_url


def test_a_select_only_postgres_role_recalls(pg_dsn: str, pg_schema: str) -> None:
    target = MemoryTarget("postgres", dsn_url(pg_dsn), pg_schema)
    with target.open() as mem:
        fid = mem.remember("Noor works at Acme", entities=["Noor"])
    role = f"reader_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT CONNECT ON DATABASE {admin.info.dbname} TO {role}")
        admin.execute(f'GRANT USAGE ON SCHEMA "{pg_schema}" TO {role}')
        admin.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{pg_schema}" TO {role}')
    try:
        as_reader = dsn_url(psycopg.conninfo.make_conninfo(pg_dsn, user=role))
        with ChronoMem(as_reader, schema=pg_schema) as reader:
            assert [f.id for f in reader.recall("Noor Acme")] == [fid]
            assert reader.get(fid).content == "Noor works at Acme"
            with pytest.raises(DatabaseError, match="permission denied"):
                reader.remember("a reader cannot write")
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{pg_schema}" FROM {role}')
            admin.execute(f'REVOKE ALL ON SCHEMA "{pg_schema}" FROM {role}')
            admin.execute(f"REVOKE ALL ON DATABASE {admin.info.dbname} FROM {role}")
            admin.execute(f"DROP ROLE {role}")


_READER = """
import json, sys
from chronomem import ChronoMem, DatabaseError
with ChronoMem(sys.argv[1]) as mem:
    out = {"recall": [f.content for f in mem.recall("Noor Acme")],
           "facts": mem.stats()["facts"], "export": len(list(mem.export_facts()))}
    try:
        mem.remember("a reader cannot write")
    except DatabaseError as e:
        out["write"] = str(e)
print(json.dumps(out))
"""


_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
_NEEDED = ("chronica", "chronomem", "snowballstemmer", "numpy", "threadpoolctl")
"""The packages the reader imports: what a copy for ``nobody`` holds."""


def _run_as_nobody(argv: list[str]) -> subprocess.CompletedProcess[str]:
    prefix = _NOBODY if os.geteuid() == 0 else []
    return subprocess.run(
        [*prefix, *argv], capture_output=True, text=True, cwd="/", timeout=120, check=False
    )


@pytest.fixture(scope="module")
def reader_python() -> Iterator[list[str]]:
    """How ``nobody`` runs a Python that imports chronomem (issue 39 item 16).

    The clone's own venv, when ``nobody`` can read it. A clone under a private folder (a
    0700 home, ``mktemp -d``) it cannot: then the packages the reader needs are copied to a
    folder anyone may read and run by the venv's base interpreter. If even that interpreter
    is out of reach, the test skips saying so: where the clone lives is no failure."""
    if _run_as_nobody([sys.executable, "-c", "import chronomem"]).returncode == 0:
        yield [sys.executable, "-c"]
        return
    base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    with tempfile.TemporaryDirectory(prefix="chronomem-ro-py-", dir="/tmp") as top:
        os.chmod(top, 0o755)
        for name in _NEEDED:
            origin = Path(importlib.import_module(name).__file__ or "")
            if origin.name != "__init__.py":  # a module of one file (threadpoolctl)
                shutil.copy(origin, Path(top) / origin.name)
                continue
            folder = origin.parent
            shutil.copytree(folder, Path(top) / name)
            libs = folder.with_name(f"{name}.libs")  # numpy's wheel keeps its libraries here
            if libs.is_dir():
                shutil.copytree(libs, Path(top) / libs.name)
        for path in Path(top).rglob("*"):
            path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
        argv = [base, "-S", "-c", f"import sys; sys.path.insert(0, {top!r}); exec(sys.argv.pop(1))"]
        probe = _run_as_nobody([*argv, "import chronomem"])
        if probe.returncode != 0:
            pytest.skip(
                f"nobody can read neither this clone's venv nor {base} with a copy of the "
                f"packages: {probe.stderr.strip().splitlines()[-1:]}"
            )
        yield argv


def _as_nobody(python: list[str], path: Path) -> dict[str, Any]:
    """Run the reader as an unprivileged user (root reads any file, so root cannot test this)."""
    done = _run_as_nobody([*python, _READER, str(path)])
    assert done.returncode == 0, done.stderr
    # A file opened for reading only records no uses of what recall returned, and says
    # nothing of it (a PostgreSQL role's rights show only when it writes: a warning, once).
    assert "recording" not in done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("folder_mode", [0o555, 0o777])
def test_a_sqlite_file_it_may_only_read_is_read(folder_mode: int, reader_python: list[str]) -> None:
    # Not under tmp_path: pytest's base folder is private to its user, so nobody can reach it.
    with tempfile.TemporaryDirectory(prefix="chronomem-ro-") as top:
        os.chmod(top, 0o755)
        folder = Path(top) / "shelf"
        folder.mkdir()
        db = folder / "memory.db"
        with ChronoMem(str(db)) as mem:
            mem.remember("Noor works at Acme", entities=["Noor"])
        before = db.read_bytes()
        db.chmod(0o444)
        folder.chmod(folder_mode)  # 0o555: as on a read-only mount, no WAL file can be made
        try:
            out = _as_nobody(reader_python, db)
        finally:
            folder.chmod(0o755)
        assert out["recall"] == ["Noor works at Acme"]
        assert (out["facts"], out["export"]) == (1, 1)
        assert "write" in out  # refused, as a clear error
        assert db.read_bytes() == before
