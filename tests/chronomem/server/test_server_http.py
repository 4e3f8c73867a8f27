"""The server over streamable HTTP: auth, host checks, and serving many clients at once."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from chronomem import ChronoMem
from chronomem._doors.http import REQUEST_READ_SECONDS, TimedH11Protocol
from chronomem.server import main as server_main
from chronomem.ui import main as ui_main
from tests.chronomem.mcp_client import call, free_port, http_server, run, server_env


def test_loopback_http_round_trip_with_bearer_token_and_host_checks(tmp_path: Path) -> None:
    token = "correct horse battery staple"
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream"}

    async def go(url: str) -> None:
        async with httpx2.AsyncClient() as raw:
            assert (await raw.post(url, json=ping, headers=headers)).status_code == 401
            wrong = {**headers, "Authorization": "Bearer guess"}
            assert (await raw.post(url, json=ping, headers=wrong)).status_code == 401
            rebound = {**headers, "Authorization": f"Bearer {token}", "Host": "evil.example"}
            assert (await raw.post(url, json=ping, headers=rebound)).status_code == 421
            foreign = {**headers, "Authorization": f"Bearer {token}"}
            foreign["Origin"] = "http://evil.example"
            assert (await raw.post(url, json=ping, headers=foreign)).status_code == 403
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        async with (
            client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            fact = await call(s, "chronomem_remember", content="Ardian prefers quiet tables")
            found = await call(s, "chronomem_recall", query="quiet tables")
            assert [f["id"] for f in found["facts"]] == [fact["id"]]

    with http_server(tmp_path, token=token) as url:
        run(lambda: go(url))


@contextlib.contextmanager
def _write_lock(db: Path) -> Iterator[Callable[[], None]]:
    """Hold the file's write lock from a connection of our own, as another process would;
    yields the function that lets it go."""
    other = sqlite3.connect(db, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield other.rollback
    finally:
        other.close()


@contextlib.asynccontextmanager
async def _session(url: str) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as s,
    ):
        await s.initialize()
        yield s


def test_a_write_waiting_for_the_lock_stalls_no_one_else(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        async with _session(url) as writer, _session(url) as reader:
            known = await call(reader, "chronomem_remember", content="Ardian prefers quiet tables")
            stored: list[dict[str, Any]] = []

            async def remember() -> None:
                stored.append(await call(writer, "chronomem_remember", content="Sari likes tea"))

            with _write_lock(tmp_path / "m.db") as release, anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(remember)
                    await anyio.sleep(0.5)
                    assert not stored, "the write should be waiting for the lock"
                    # The loop is free: other sessions, and the writer's own, are answered.
                    with anyio.fail_after(1.0):
                        tools = {t.name for t in (await reader.list_tools()).tools}
                        assert "chronomem_recall" in tools
                        found = await call(reader, "chronomem_recall", query="quiet tables")
                        assert [f["id"] for f in found["facts"]] == [known["id"]]
                        await call(reader, "chronomem_timeline", entity="Ardian")
                        await writer.list_tools()
                    assert not stored, "the lock is still held"
                    release()  # the waiting write now goes through
            assert stored[0]["id"]

    with http_server(tmp_path) as url:
        run(lambda: go(url))


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "abandoned", "version": "0"},
    },
}


async def _initialize_many(url: str, n: int) -> list[int]:
    """Open ``n`` sessions and walk away from each; the HTTP status of every attempt."""
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(timeout=30) as raw:
        return [
            (await raw.post(url, json=INITIALIZE, headers=headers)).status_code for _ in range(n)
        ]


def test_abandoned_sessions_are_bounded(tmp_path: Path) -> None:
    # 300 clients initialize and walk away: 20 sessions are held, the rest are refused with
    # 503 instead of each one growing the process.
    async def go(url: str) -> None:
        codes = await _initialize_many(url, 300)
        assert codes.count(200) == 20
        assert codes.count(503) == 280

    args = ("--max-sessions", "20", "--session-idle", "600")
    with http_server(tmp_path, args=args) as url:
        run(lambda: go(url))


def test_idle_sessions_are_closed(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        assert await _initialize_many(url, 6) == [200] * 5 + [503]
        await anyio.sleep(5)  # every session idles past --session-idle
        assert await _initialize_many(url, 4) == [200] * 4
        async with _session(url) as s:  # a real client takes the last place and is served
            await call(s, "chronomem_remember", content="Ardian prefers quiet tables")

    args = ("--max-sessions", "5", "--session-idle", "2")
    with http_server(tmp_path, args=args) as url:
        run(lambda: go(url))


class _Quick(TimedH11Protocol):
    read_timeout = 0.5


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    """Read the whole body, answer its length, and (for /stream) keep streaming a while."""
    if scope["type"] != "http":
        return
    size, more = 0, True
    while more:
        message = await receive()
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    if scope["path"] == "/stream":  # a response that outlives the read deadline
        for _ in range(4):
            await send({"type": "http.response.body", "body": b"tick ", "more_body": True})
            await anyio.sleep(0.4)
    await send({"type": "http.response.body", "body": str(size).encode()})


@contextlib.contextmanager
def _timed_server() -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    settings = uvicorn.Config(_echo, log_level="error", http=_Quick, lifespan="off")
    running = uvicorn.Server(settings)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not running.started:
            assert time.monotonic() < deadline, "did not start"
            assert thread.is_alive(), "stopped"
            time.sleep(0.01)
        yield port
    finally:
        running.should_exit = True
        thread.join(10)
        sock.close()


def _closed_within(conn: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``conn`` (EOF or reset) within ``seconds``."""
    conn.settimeout(seconds)
    try:
        while conn.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_a_request_that_never_finishes_arriving_is_closed() -> None:
    with _timed_server() as port:
        silent = socket.create_connection(("127.0.0.1", port))
        headers = socket.create_connection(("127.0.0.1", port))
        headers.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never the blank line
        body = socket.create_connection(("127.0.0.1", port))
        body.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"a" * 10)
        for conn in (silent, headers, body):
            with conn:
                assert _closed_within(conn, 5)
        # A client that keeps trickling is closed too: the deadline is the request's, not a
        # pause's.
        with socket.create_connection(("127.0.0.1", port)) as drip:
            started = time.monotonic()
            with contextlib.suppress(OSError):
                for char in b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200:
                    drip.sendall(bytes([char]))
                    time.sleep(0.05)
            assert _closed_within(drip, 5)
            assert time.monotonic() - started < 5
        # A whole request is answered, and a long response is never cut by the deadline; a
        # kept-alive connection gets a fresh deadline for its next request.
        with httpx2.Client(base_url=f"http://127.0.0.1:{port}") as client:
            assert client.post("/", content=b"x" * 5000).text == "5000"
            assert client.get("/stream").text == "tick " * 4 + "0"
            time.sleep(0.3)
            assert client.post("/", content=b"y" * 7).text == "7"


def test_both_http_doors_serve_with_the_request_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used: list[type] = []

    def capture(self: uvicorn.Server, *args: Any, **kwargs: Any) -> None:
        used.append(self.config.http)  # type: ignore[arg-type]  # a protocol class here

    monkeypatch.setattr(uvicorn.Server, "run", capture)
    db = tmp_path / "m.db"
    ChronoMem(db).close()
    token = "Zq8-rT3vYp0LmN4xWb7Kc2Jd9Hs6Fg1Qa5Ue"
    monkeypatch.setenv("CHRONOMEM_TOKEN", token)
    port = str(free_port())
    assert server_main(["--db", str(db), "--http", f"127.0.0.1:{port}"]) == 0
    assert ui_main(["--db", str(db), "--http", f"127.0.0.1:{port}"]) == 0
    assert used == [TimedH11Protocol, TimedH11Protocol]
    assert REQUEST_READ_SECONDS <= 60


@contextlib.contextmanager
def _door(argv: list[str], env: dict[str, str], needle: str) -> Iterator[tuple[int, str]]:
    """A door (``chronomem serve --http`` or ``chronomem ui``) on a free loopback port, as a
    subprocess; yields its port and the first stderr line holding ``needle``."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "chronomem.cli", *argv, "--http", f"127.0.0.1:{port}"],
        env={**env, "PATH": "/usr/bin:/bin"},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 30
        line = ""
        while needle not in line:
            assert time.monotonic() < deadline, "the door printed nothing useful"
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "the door exited"
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the door never listened"
                time.sleep(0.1)
        yield port, line
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()


def test_loopback_http_wants_a_token_made_at_start(tmp_path: Path) -> None:
    # Another account on the machine cannot read the 0600 file, but it can reach 127.0.0.1:
    # without a token it would recall the memory through the port.
    db = tmp_path / "m.db"
    with ChronoMem(db, owner="ardian") as mem:
        mem.remember("Ardian's door code is 4412")
    env = server_env(db, "ardian")
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
    accept = {"Accept": "application/json, text/event-stream"}
    with _door(["serve"], env, "Authorization: Bearer") as (port, line):
        token = line.split("Authorization: Bearer ", 1)[1].split("'", 1)[0]
        assert len(token) >= 32
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx2.post(url, json=ping, headers=accept).status_code == 401
        bearer = {**accept, "Authorization": f"Bearer {token}"}
        assert httpx2.post(url, json=ping, headers=bearer).status_code == 200
    with _door(["ui", "--db", str(db)], env, "?token=") as (port, line):
        token = line.split("?token=", 1)[1].split()[0]
        info = f"http://127.0.0.1:{port}/api/info"
        assert httpx2.get(info).status_code == 401
        assert httpx2.get(info, headers={"Authorization": f"Bearer {token}"}).status_code == 200
    # Open on loopback only when asked, and said so at start.
    with _door(["serve", "--no-token"], env, "serving MCP") as (port, line):
        assert "no token: open to every local account" in line
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx2.post(url, json=ping, headers=accept).status_code == 200
    with _door(["ui", "--db", str(db), "--no-token"], env, "chronomem ui:") as (port, line):
        assert "?token=" not in line
        assert httpx2.get(f"http://127.0.0.1:{port}/api/info").status_code == 200


@pytest.mark.parametrize(
    ("argv", "environ", "complaint"),
    [
        (["--http", "0.0.0.0:8765", "--no-token"], {}, "refusing --no-token"),
        (["--http", "127.0.0.1:8765", "--no-token"], {"CHRONOMEM_TOKEN": "x" * 40}, "contradict"),
        (["--no-token"], {}, "--no-token is for HTTP"),
    ],
)
def test_no_token_is_for_loopback_http_only(
    argv: list[str], environ: dict[str, str], complaint: str, tmp_path: Path
) -> None:
    from chronomem.server import ServerConfigError, config_from_args
    from tests.chronomem.mcp_client import server_args

    with pytest.raises(ServerConfigError, match=complaint):
        config_from_args(server_args(*argv), {"CHRONOMEM_DB": str(tmp_path / "m.db"), **environ})
