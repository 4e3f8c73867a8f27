"""A memory opens for reading where it may only be read (issue 20 item 11).

A PostgreSQL role with only CONNECT, USAGE and SELECT could not recall: every open ran
``CREATE SCHEMA IF NOT EXISTS``. An open now reads the schema's version with a plain SELECT
first and changes nothing when it is current.
"""

from __future__ import annotations

import uuid

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
