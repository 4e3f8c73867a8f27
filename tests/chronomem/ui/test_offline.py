"""The browser tests make no network call: Selenium is given the driver's path, so Selenium
Manager (which downloads drivers and sends usage statistics) never runs, and its switches say
offline, no statistics, should anything start it. Checked without a browser."""

from __future__ import annotations

import os
import sys
from typing import Any, ClassVar

import pytest
from selenium import webdriver
from selenium.webdriver.common.driver_finder import DriverFinder
from selenium.webdriver.common.selenium_manager import SeleniumManager

from . import browser


class _FakeChrome:
    """Stands for ``webdriver.Chrome``: records how it was asked to start."""

    made: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, **kwargs: Any) -> None:
        _FakeChrome.made.append(kwargs)

    def quit(self) -> None:
        pass


def test_selenium_is_pinned_and_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: object, **kwargs: object) -> dict[str, str]:
        raise AssertionError("Selenium Manager ran")

    monkeypatch.setattr(SeleniumManager, "binary_paths", never)
    for name in browser.OFFLINE:
        monkeypatch.delenv(name, raising=False)
    driver = sys.executable  # any real file stands for chromedriver here
    monkeypatch.setattr(browser, "find_browser", lambda: ("/usr/bin/chromium", driver))
    monkeypatch.setattr(webdriver, "Chrome", _FakeChrome)
    with browser.open_browser():
        assert {k: os.environ.get(k) for k in browser.OFFLINE} == browser.OFFLINE
    [made] = _FakeChrome.made[-1:]
    service, options = made["service"], made["options"]
    assert service.path == driver
    # What webdriver.Chrome does with them: the given path, Selenium Manager never asked.
    assert DriverFinder(service, options).get_driver_path() == driver


def test_a_driver_path_that_is_no_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser, "find_browser", lambda: ("/usr/bin/chromium", "/nonexistent"))
    with pytest.raises(RuntimeError, match="nothing is downloaded"), browser.open_browser():
        pass
