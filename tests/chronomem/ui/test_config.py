"""``chronomem ui``'s flags: loopback by default, the MCP server's token rules elsewhere, and
a database that must already exist (the inspector reads, it never creates)."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

import pytest

from chronomem.cli import main as cli_main
from chronomem.ui import UiConfig, UiConfigError
from chronomem.ui._config import DEFAULT_UI_PORT, add_ui_arguments, config_from_args

STRONG = "Zq8-rT3vYp0LmN4xWb7Kc2Jd9Hs6Fg1Qa5Ue"


def _config(argv: list[str], environ: dict[str, str] | None = None) -> UiConfig:
    parser = argparse.ArgumentParser()
    add_ui_arguments(parser)
    return config_from_args(parser.parse_args(argv), environ or {})


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    path.write_bytes(b"")
    return path


def test_loopback_by_default_with_a_token_made_at_start(db: Path) -> None:
    config = _config(["--db", str(db)])
    assert (config.host, config.port) == ("127.0.0.1", DEFAULT_UI_PORT)
    assert config.token is not None
    assert len(config.token) >= 32
    assert config.token_generated
    assert _config(["--db", str(db)]).token != config.token  # kept nowhere: a new one per run
    given = _config(["--db", str(db)], {"CHRONOMEM_TOKEN": "mine"})
    assert (given.token, given.token_generated) == ("mine", False)  # weak is fine on loopback
    open_door = _config(["--db", str(db), "--no-token"])
    assert open_door.token is None


@pytest.mark.parametrize(
    ("argv", "environ", "complaint"),
    [
        (["--http", "0.0.0.0:8766", "--no-token"], {}, "refusing --no-token"),
        (["--http", "192.168.1.5:8766", "--no-token"], {}, "refusing --no-token"),
        (["--no-token"], {"CHRONOMEM_TOKEN": "Zq8-rT3vYp0LmN4xWb7Kc2Jd9Hs6Fg1Qa5Ue"}, "contradict"),
    ],
)
def test_no_token_is_for_loopback_only(
    db: Path, argv: list[str], environ: dict[str, str], complaint: str
) -> None:
    with pytest.raises(UiConfigError, match=complaint):
        _config(["--db", str(db), *argv], environ)


@pytest.mark.parametrize(
    ("token", "complaint"),
    [(None, "without a token"), ("short", "characters"), ("ab" * 20, "different characters")],
)
def test_a_network_bind_needs_a_strong_token(db: Path, token: str | None, complaint: str) -> None:
    environ = {"CHRONOMEM_TOKEN": token} if token else {}
    with pytest.raises(UiConfigError, match=complaint):
        _config(["--db", str(db), "--http", "0.0.0.0:8766"], environ)
    config = _config(["--db", str(db), "--http", "0.0.0.0:8766"], {"CHRONOMEM_TOKEN": STRONG})
    assert config.token == STRONG


def test_the_host_header_allow_list(db: Path) -> None:
    config = _config(["--db", str(db), "--http", "0.0.0.0:1", "--allow-host", "Box.lan"],
                     {"CHRONOMEM_TOKEN": STRONG})  # fmt: skip
    names = config.allowed_host_names()
    assert names == {"127.0.0.1", "localhost", "::1", "box.lan"}


def test_a_missing_file_is_refused_and_not_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere" / "m.db"
    assert cli_main(["ui", "--db", str(missing)]) == 2
    assert "not found" in capsys.readouterr().err
    assert not missing.parent.exists()


def test_bad_address_is_a_usage_error(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["ui", "--db", str(db), "--http", "127.0.0.1:99999"]) == 2
    assert "port" in capsys.readouterr().err


def test_help_names_the_command_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main(["ui", "--help"])
    out = capsys.readouterr().out
    assert "read-only web inspector" in out
    assert "example:" in out


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_a_postgresql_dsn_is_taken_as_given(how: str) -> None:
    dsn = "postgresql://me@db.lan/agents"
    argv, environ = (["--db", dsn], {}) if how == "flag" else ([], {"CHRONOMEM_DB": dsn})
    assert _config(argv, environ).db == dsn


@pytest.mark.parametrize("owner", ["", "   "])
def test_an_empty_owner_is_refused_not_read_as_the_default(
    db: Path, owner: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as usage:
        cli_main(["ui", "--db", str(db), "--owner", owner])
    assert usage.value.code == 2
    assert "argument --owner: invalid owner: must not be empty" in capsys.readouterr().err
    with pytest.raises(UiConfigError, match="CHRONOMEM_OWNER"):
        _config(["--db", str(db)], {"CHRONOMEM_OWNER": owner})
    monkeypatch.setenv("CHRONOMEM_OWNER", owner)
    assert cli_main(["ui", "--db", str(db)]) == 2
    assert "chronomem ui: CHRONOMEM_OWNER: invalid owner" in capsys.readouterr().err


SECRET = "Sw0rdfish-9"
"""A PostgreSQL password that must never reach the screen."""


@pytest.mark.parametrize("password", [SECRET, f"{SECRET}%zz"])
def test_a_database_that_cannot_be_opened_never_shows_the_password(
    password: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert cli_main(["ui", "--db", f"postgresql://ann:{password}@127.0.0.1:{port}/agents"]) == 1
    err = capsys.readouterr().err
    assert "postgresql://" in err
    assert SECRET not in err


def test_a_file_that_is_not_a_database_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notdb.txt"
    notes.write_text("shopping: eggs, milk\n" * 100)
    before = notes.read_bytes()
    assert cli_main(["ui", "--db", str(notes), "--no-token"]) == 1
    err = capsys.readouterr().err
    assert str(notes) in err
    assert "not a database" in err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1
    assert notes.read_bytes() == before
