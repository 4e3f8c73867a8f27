"""A real headless Chromium for the inspector's tests and screenshots, and a live server.

Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them). Without them the
browser tests skip on a developer's machine and fail in CI (``CI=true``), so a missing
browser can never turn CI green by accident.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from chronomem.ui import Sources, UiConfig, build_app

__all__ = ["OFFLINE", "find_browser", "open_browser", "serve_in_thread", "wait_ready"]

OFFLINE = {"SE_AVOID_STATS": "true", "SE_OFFLINE": "true"}
"""Selenium Manager's switches: send no statistics, fetch nothing. It never runs here (the
driver's path is given), and if it ever did, it would stay off the network."""

_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def find_browser() -> tuple[str, str] | None:
    """Paths of chromium and chromedriver, or ``None`` when either is missing."""
    chromium = os.environ.get("CHRONOMEM_CHROMIUM") or shutil.which("chromium")
    driver = os.environ.get("CHRONOMEM_CHROMEDRIVER") or shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


@contextmanager
def open_browser(width: int = 1280, height: int = 900) -> Iterator[webdriver.Chrome]:
    """A fresh headless Chromium (its own profile), quit on exit."""
    found = find_browser()
    if found is None:
        raise RuntimeError("chromium and chromedriver are needed: apt-get install chromium "
                           "chromium-driver")  # fmt: skip
    chromium, driver = found
    if not Path(driver).is_file():
        raise RuntimeError(f"chromedriver {driver!r} is not a file: nothing is downloaded")
    os.environ.update(OFFLINE)
    with tempfile.TemporaryDirectory(prefix="chronomem-ui-chrome-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in _FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument(f"--window-size={width},{height}")
        # An explicit driver path: Selenium Manager never runs, so nothing is downloaded.
        browser = webdriver.Chrome(options=options, service=Service(executable_path=driver))
        try:
            yield browser
        finally:
            browser.quit()


@contextmanager
def serve_in_thread(
    db: Path | str, owner: str, *, token: str | None = None, host: str = "127.0.0.1"
) -> Iterator[str]:
    """Serve the inspector over ``db`` (a file or a DSN) on a free port; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    config = UiConfig(db=db, owner=owner, host=host, port=port, token=token)
    sources = Sources.open(db, owner)
    server = uvicorn.Server(uvicorn.Config(build_app(config, sources=sources), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the inspector did not start")
            time.sleep(0.01)
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        sources.close()


def wait_ready(browser: webdriver.Chrome, url: str, *, timeout: float = 10.0) -> None:
    """Open ``url`` and wait until the page has rendered its data (``data-state=ready``)."""
    browser.get("about:blank")
    browser.get(url)
    WebDriverWait(browser, timeout, poll_frequency=0.01).until(
        lambda b: b.find_element(By.ID, "main").get_attribute("data-state") == "ready"
    )
