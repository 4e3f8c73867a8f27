"""The engines matrix reads a local PostgreSQL server's CPU from /proc, so the report can put
the server's part of a ``remember`` beside the client's: these readings must be real."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest
from scripts.matrix.server_cpu import ServerCpu, process_cpu_ns

from tests.pgserver import dsn_url

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def test_a_process_cpu_grows_by_the_work_it_does() -> None:
    before = process_cpu_ns(os.getpid())
    assert before is not None
    total = sum(i * i for i in range(2_000_000))  # tens of milliseconds of CPU
    after = process_cpu_ns(os.getpid())
    assert total
    assert after is not None
    assert after - before >= 5_000_000


def test_a_process_that_is_gone_has_no_reading(tmp_path: Path) -> None:
    assert process_cpu_ns(2**22 + 12345) is None  # above the kernel's largest pid
    fake = tmp_path / "77"
    fake.mkdir()
    (fake / "stat").write_text("77 (post gres) S 1 " + "0 " * 9 + "250 150 0 0")
    assert process_cpu_ns(77, tmp_path) == 400 * 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def test_the_servers_cpu_counts_the_work_a_query_makes_it_do(pg_dsn: str) -> None:
    url = dsn_url(pg_dsn)
    with psycopg.connect(url, autocommit=True) as conn:  # open before the server is read
        server = ServerCpu.of(url)
        assert server is not None, "a server on this machine can be read"
        before = server.ns()
        conn.execute("SELECT count(*) FROM generate_series(1, 3000000)").fetchone()
        spent = server.ns() - before
    assert spent >= 20_000_000, f"a 3-million-row count cost the server {spent} ns"
    assert server.ns() >= before + spent  # its connection closed: counted to its last reading


def test_a_server_elsewhere_is_not_read(pg_dsn: str, tmp_path: Path) -> None:
    assert ServerCpu.of(dsn_url(pg_dsn), proc=tmp_path) is None  # no such processes there
