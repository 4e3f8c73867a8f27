"""``chronomem serve --http`` end to end where the other HTTP tests do not go: a PostgreSQL
memory, a name let in with ``--allow-host``, and a bind off loopback with a token.

Each test starts the real server process and speaks to it over real TCP, with the SDK's own
client for MCP and a plain HTTP client for what a client should be refused.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from chronomem import ChronoMem
from tests.chronomem.mcp_client import call, free_port, run, server_env

HELLO = {  # what a client sends first; answered 200 only if the request was let in
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@contextlib.contextmanager
def _serving(
    log: Path, db: str, host: str, port: int, args: Sequence[str], token: str | None = None
) -> Iterator[None]:
    env = {**server_env(db, "ardian"), "PATH": "/usr/bin:/bin"}
    if token is not None:
        env["CHRONOMEM_TOKEN"] = token
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "chronomem.server", "--http", f"{host}:{port}", *args],
            env=env,
            stderr=out,
        )
        try:
            deadline = time.monotonic() + 30
            reach = "127.0.0.1" if host == "0.0.0.0" else host
            while True:
                try:
                    socket.create_connection((reach, port), timeout=1).close()
                    break
                except OSError:
                    assert proc.poll() is None, log.read_text()
                    assert time.monotonic() < deadline, "server did not start"
                    time.sleep(0.1)
            yield
        finally:
            proc.terminate()
            proc.wait(timeout=10)


async def _remember_and_recall(url: str, token: str | None = None) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = httpx2.AsyncClient(headers=headers)
    async with (
        client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as s,
    ):
        await s.initialize()
        fact = await call(s, "chronomem_remember", content="Ardian prefers quiet tables")
        found = await call(s, "chronomem_recall", query="quiet tables")
        assert [f["id"] for f in found["facts"]] == [fact["id"]]
        return str(fact["id"])


@pytest.mark.postgres
def test_http_on_postgresql(tmp_path: Path, pg_database: object) -> None:
    url = pg_database()  # type: ignore[operator]  # the fixture is a factory
    port = free_port()
    with _serving(tmp_path / "http.log", url, "127.0.0.1", port, ["--no-token"]):
        fact = anyio.run(_remember_and_recall, f"http://127.0.0.1:{port}/mcp")
    # The fact is in PostgreSQL, the served owner's: not only in what the server answered.
    with ChronoMem(url, owner="ardian") as mem:
        assert mem.get(fact).content == "Ardian prefers quiet tables"
    with ChronoMem(url) as mem:
        assert mem.stats()["facts"] == 0
    assert "serving MCP over streamable HTTP" in (tmp_path / "http.log").read_text()


def test_allow_host_lets_in_that_name_and_no_other(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def go() -> None:
        async with httpx2.AsyncClient() as raw:
            named = {**ACCEPT, "Host": f"memory.box.lan:{port}"}
            assert (await raw.post(url, json=HELLO, headers=named)).status_code == 200
            origin = {**named, "Origin": f"http://memory.box.lan:{port}"}
            assert (await raw.post(url, json=HELLO, headers=origin)).status_code == 200
            other = {**ACCEPT, "Host": f"evil.example:{port}"}
            assert (await raw.post(url, json=HELLO, headers=other)).status_code == 421
            foreign = {**named, "Origin": "http://evil.example"}
            assert (await raw.post(url, json=HELLO, headers=foreign)).status_code == 403

    args = ["--no-token", "--allow-host", "memory.box.lan"]
    with _serving(tmp_path / "http.log", str(tmp_path / "m.db"), "127.0.0.1", port, args):
        run(go)


def _off_loopback_address() -> str:
    """This machine's address on its default route, or the wildcard when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.255", 9))  # no packet is sent: this only picks a route
            address: str = probe.getsockname()[0]
        except OSError:
            return "0.0.0.0"
    return "0.0.0.0" if address.startswith("127.") else address


def test_a_network_bind_with_a_token_end_to_end(tmp_path: Path) -> None:
    host, port, token = _off_loopback_address(), free_port(), secrets.token_urlsafe(32)
    reach = "127.0.0.1" if host == "0.0.0.0" else host
    url = f"http://{reach}:{port}/mcp"

    async def refused() -> None:
        async with httpx2.AsyncClient() as raw:
            assert (await raw.post(url, json=HELLO, headers=ACCEPT)).status_code == 401
            near = token[:-1] + ("y" if token.endswith("x") else "x")  # one character off
            guess = {**ACCEPT, "Authorization": f"Bearer {near}"}
            assert (await raw.post(url, json=HELLO, headers=guess)).status_code == 401

    with _serving(tmp_path / "http.log", str(tmp_path / "m.db"), host, port, [], token=token):
        run(refused)
        fact = anyio.run(_remember_and_recall, url, token)
    with ChronoMem(tmp_path / "m.db", owner="ardian") as mem:
        assert mem.get(fact).content == "Ardian prefers quiet tables"
    started = (tmp_path / "http.log").read_text()
    assert "bearer token required" in started
    assert token not in started  # a token given by the environment is never printed
