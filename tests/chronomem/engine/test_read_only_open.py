"""A memory opens for reading where it may only be read (issue 20 item 11).

A PostgreSQL role with only CONNECT, USAGE and SELECT could not recall: every open ran
``CREATE SCHEMA IF NOT EXISTS``. An open now reads the schema's version with a plain SELECT
first and changes nothing when it is current. A SQLite file its user may only read (a
read-only mount: no WAL file can be made beside it) failed recall, stats and export; it is
now opened ``mode=ro`` (``immutable=1`` where even that cannot read it) and never migrated.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
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


def _as_nobody(path: Path) -> dict[str, Any]:
    """Run the reader as an unprivileged user (root reads any file, so root cannot test this)."""
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    argv = [*(prefix if os.geteuid() == 0 else []), sys.executable, "-c", _READER, str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd="/", timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("folder_mode", [0o555, 0o777])
def test_a_sqlite_file_it_may_only_read_is_read(folder_mode: int) -> None:
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
            out = _as_nobody(db)
        finally:
            folder.chmod(0o755)
        assert out["recall"] == ["Noor works at Acme"]
        assert (out["facts"], out["export"]) == (1, 1)
        assert "write" in out  # refused, as a clear error
        assert db.read_bytes() == before
