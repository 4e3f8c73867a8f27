"""``chronomem ui``'s flags: loopback by default, the MCP server's token rules elsewhere, and
a database that must already exist (the inspector reads, it never creates)."""

from __future__ import annotations

import argparse
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


def test_loopback_by_default_with_no_token(db: Path) -> None:
    config = _config(["--db", str(db)])
    assert (config.host, config.port, config.token) == ("127.0.0.1", DEFAULT_UI_PORT, None)


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
