"""How the server is configured: flags, environment, tokens and transport security."""

from __future__ import annotations

import secrets
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from chronomem import server
from chronomem.server import _http
from tests.chronomem.mcp_client import free_port, http_server, server_env
from tests.chronomem.mcp_client import server_args as _args

STRONG = secrets.token_urlsafe(32)


def test_non_loopback_http_without_token_is_refused(tmp_path: Path) -> None:
    env = {"CHRONOMEM_DB": str(tmp_path / "m.db")}
    with pytest.raises(server.ServerConfigError, match="CHRONOMEM_TOKEN"):
        server.config_from_args(_args("--http", "0.0.0.0:8765"), env)
    with pytest.raises(server.ServerConfigError, match="CHRONOMEM_TOKEN"):
        server.config_from_args(_args("--http", "[2001:db8::1]:8765"), env)
    config = server.config_from_args(
        _args("--http", "0.0.0.0:8765"), {**env, "CHRONOMEM_TOKEN": STRONG}
    )
    assert config.http == ("0.0.0.0", 8765)
    assert config.token == STRONG
    local = server.config_from_args(_args("--http", "localhost:9000"), env)
    assert local.http == ("localhost", 9000)
    assert local.token is not None  # made at start: loopback is not private either
    assert local.token_generated
    assert server.config_from_args(_args("--http", "9001"), env).http == ("127.0.0.1", 9001)

    done = subprocess.run(
        [sys.executable, "-m", "chronomem.server", "--http", "0.0.0.0:8765"],
        env=server_env(tmp_path / "m.db", "tester"),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "CHRONOMEM_TOKEN" in done.stderr
    with pytest.raises(server.ServerConfigError, match="HOST:PORT"):
        server.config_from_args(_args("--http", "localhost:http"), env)


def test_database_path_expands_home_and_creates_parents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    config = server.config_from_args(_args(), {"CHRONOMEM_DB": "~/deep/er/memory.db"})
    assert config.db == tmp_path / "deep" / "er" / "memory.db"
    assert config.db.parent.is_dir()
    assert stat.S_IMODE((tmp_path / "deep").stat().st_mode) == 0o700  # a memory is private
    assert stat.S_IMODE(config.db.parent.stat().st_mode) == 0o700
    default = server.config_from_args(_args("--owner", "zoe"), {})
    assert default.db == tmp_path / ".chronomem" / "memory.db"
    assert stat.S_IMODE(default.db.parent.stat().st_mode) == 0o700
    assert default.owner == "zoe"
    flag = server.config_from_args(_args("--db", str(tmp_path / "f.db")), {"CHRONOMEM_DB": "x"})
    assert flag.db == tmp_path / "f.db"
    assert server.config_from_args(_args(), {"CHRONOMEM_OWNER": "ann"}).owner == "ann"


def test_rebinding_protection_stays_on_for_every_bind() -> None:
    wildcard = _http._transport_security("0.0.0.0", ["mybox.lan"])
    assert wildcard.enable_dns_rebinding_protection
    assert "mybox.lan:*" in wildcard.allowed_hosts
    assert not any(h.startswith("0.0.0.0") for h in wildcard.allowed_hosts)
    assert "http://mybox.lan:*" in wildcard.allowed_origins
    named = _http._transport_security("10.0.0.7", [])
    assert "10.0.0.7:*" in named.allowed_hosts
    assert "localhost:*" in named.allowed_hosts
    ipv6 = _http._transport_security("::1", [])
    assert "[::1]:*" in ipv6.allowed_hosts


@pytest.mark.parametrize(
    ("token", "why"),
    [
        ("1", "is 1 characters; at least 32"),
        ("s3cret", "is 6 characters"),
        ("correct horse battery staple", "is 28 characters"),
        ("a" * 64, "only 1 different characters"),
        ("12" * 20, "only 2 different characters"),
    ],
)
def test_a_guessable_token_is_refused_for_a_network_bind(token: str, why: str) -> None:
    env = {"CHRONOMEM_TOKEN": token}
    for host in ("0.0.0.0", "10.0.0.7", "[2001:db8::1]"):
        with pytest.raises(server.ServerConfigError, match="could be guessed") as refused:
            server.config_from_args(_args("--http", f"{host}:8765"), env)
        assert why in str(refused.value)
        assert "secrets.token_urlsafe(32)" in str(refused.value)
    # On loopback a token is optional, so a weak one is the user's own business.
    assert server.config_from_args(_args("--http", "127.0.0.1:8765"), env).token == token
    hex_token = secrets.token_hex(16)  # 32 hex digits: the shortest kind we accept
    assert (
        server.config_from_args(
            _args("--http", "0.0.0.0:8765"), {"CHRONOMEM_TOKEN": hex_token}
        ).token
        == hex_token
    )


def test_a_weak_token_stops_the_server_with_the_reason(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chronomem.server", "--http", "0.0.0.0:8765"],
        env={**server_env(tmp_path / "m.db", "tester"), "CHRONOMEM_TOKEN": "1"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "CHRONOMEM_TOKEN is 1 characters; at least 32 are needed" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "m.db").exists()


def test_the_token_check_takes_no_shortcut() -> None:
    check = _http._BearerToken(STRONG)

    async def go() -> None:
        assert await check.verify_token(STRONG) is not None
        for guess in ("", STRONG[:-1], STRONG + "x", STRONG.upper(), "\ud800"):
            assert await check.verify_token(guess) is None

    anyio.run(go)


def test_session_limits_have_safe_defaults_and_refuse_nonsense() -> None:
    config = server.config_from_args(_args(), {})
    assert config.max_sessions == 100
    assert config.session_idle == 900
    tuned = server.config_from_args(_args("--max-sessions", "5", "--session-idle", "30"), {})
    assert (tuned.max_sessions, tuned.session_idle) == (5, 30.0)
    for bad in (("--max-sessions", "0"), ("--session-idle", "nan"), ("--session-idle", "-1")):
        with pytest.raises(SystemExit):
            _args(*bad)


SECRET = "Sw0rdfish-9"
"""A PostgreSQL password that must never reach the screen."""


@pytest.mark.parametrize("owner", ["", "   "])
def test_an_empty_owner_is_refused_not_read_as_the_default(
    owner: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new" / "m.db"
    with pytest.raises(SystemExit) as usage:
        server.main(["--db", str(db), "--owner", owner])
    assert usage.value.code == 2
    assert "--owner" in capsys.readouterr().err
    with pytest.raises(server.ServerConfigError, match="CHRONOMEM_OWNER"):
        server.config_from_args(_args("--db", str(db)), {"CHRONOMEM_OWNER": owner})
    monkeypatch.setenv("CHRONOMEM_OWNER", owner)
    assert server.main(["--db", str(db)], prog="chronomem serve") == 2
    assert "must not be empty" in capsys.readouterr().err
    assert not db.parent.exists()  # refused before anything was made


def _unreachable(password: str) -> str:
    return f"postgresql://ann:{password}@127.0.0.1:{free_port()}/agents"


@pytest.mark.parametrize(
    "dsn",
    [
        _unreachable(SECRET),  # the server is down: the name alone would show it
        _unreachable(f"{SECRET}%zz"),  # a bare "%": the driver quotes the password itself
        f"postgresql://ann@127.0.0.1:{free_port()}/agents?password={SECRET}",
    ],
    ids=["server-down", "bare-percent", "query-parameter"],
)
def test_cannot_use_never_prints_the_password(
    dsn: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHRONOMEM_DB", dsn)
    assert server.main([], prog="chronomem serve") == 1
    err = capsys.readouterr().err
    assert "chronomem serve: cannot use postgresql://" in err
    assert SECRET not in err


def test_the_http_start_up_line_never_prints_the_password(
    pg_database: Callable[[], str], tmp_path: Path
) -> None:
    # The test server trusts local connections, so the password is ignored and the server
    # starts: its start-up line names the database, without the password.
    dsn = f"{pg_database()}&password={SECRET}"
    with http_server(tmp_path, extra_env={"CHRONOMEM_DB": dsn}):
        pass
    log = (tmp_path / "http.log").read_text()
    assert "db postgresql://" in log
    assert SECRET not in log
