"""Fixtures of the inspector's tests: one sample file, one server and one browser per module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver

from .browser import find_browser, open_browser, serve_in_thread
from .sample import OWNER, fill


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("ui") / "memory.db"
    fill(db)
    return db


@pytest.fixture(scope="module")
def base_url(sample_db: Path) -> Iterator[str]:
    with serve_in_thread(sample_db, OWNER) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    if find_browser() is None:
        message = "chromium and chromedriver not found (apt-get install chromium chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must run the browser tests, never skip them
        pytest.skip(message)
    with open_browser() as chrome:
        yield chrome
