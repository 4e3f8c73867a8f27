"""Fixtures of the inspector's tests: one sample database, one server and one browser per
module and engine. Every test that reads the sample runs on a SQLite file and on a
PostgreSQL database of the session's throwaway server; the PostgreSQL cases never skip."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from selenium import webdriver
from selenium.webdriver.common.selenium_manager import SeleniumManager

from tests.pgserver import dsn_url, with_dbname

from .browser import find_browser, open_browser, serve_in_thread
from .sample import OWNER, Db, fill

ENGINES = ["sqlite", "postgres"]


def new_database(pg_dsn: str) -> str:
    """A fresh, empty database on the test server, as a ``postgresql://`` URL."""
    name = f"ui_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return with_dbname(dsn_url(pg_dsn), name)


def drop_database(pg_dsn: str, url: str) -> None:
    """Drop a database :func:`new_database` made (its connections too)."""
    name = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module", params=ENGINES)
def sample_db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Db]:
    if request.param == "sqlite":
        db = tmp_path_factory.mktemp("ui") / "memory.db"
        fill(db)
        yield db
        return
    pg_dsn: str = request.getfixturevalue("pg_dsn")
    url = new_database(pg_dsn)
    fill(url)
    yield url
    drop_database(pg_dsn, url)


@pytest.fixture(scope="module")
def base_url(sample_db: Db) -> Iterator[str]:
    with serve_in_thread(sample_db, OWNER) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    if find_browser() is None:
        message = "chromium and chromedriver not found (apt-get install chromium chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must run the browser tests, never skip them
        pytest.skip(message)
    with pytest.MonkeyPatch.context() as patch:
        # Selenium Manager downloads drivers and browsers and sends usage statistics: the
        # suite makes no network call, so any run of it fails the test that caused it.
        patch.setattr(SeleniumManager, "binary_paths", _never)
        with open_browser() as chrome:
            yield chrome


def _never(*args: object, **kwargs: object) -> dict[str, str]:
    raise AssertionError("Selenium Manager ran: the driver's path must be given (no download)")
