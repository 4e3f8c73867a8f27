"""Regenerate the inspector's screenshots in docs/ui/ (shown in the README).

A fresh sample file (tests/chronomem/ui/sample.py, without its hostile entries), the
inspector serving it, and headless Chromium photographing each page at 1280 pixels wide,
as tall as the page.

    python scripts/ui_screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from selenium.webdriver.common.by import By  # noqa: E402 -- after the sys.path set-up
from tests.chronomem.ui.browser import open_browser, serve_in_thread, wait_ready  # noqa: E402
from tests.chronomem.ui.sample import OWNER, SESSION, fill  # noqa: E402

OUT = ROOT / "docs" / "ui"
WIDTH = 1280
PAGES = [
    ("sessions", "#/sessions", None),
    ("session", f"#/session?id={SESSION}", ".actum.tool_request summary"),
    ("memory", "#/memory?q=Ardian+Kemang+table&budget=40&limit=8", None),
    ("memory-as-of", "#/memory?q=where+does+Ardian+live&kinds=fact&as_of=2026-02-01", None),
    ("timeline", "#/timeline?entity=Ardian", None),
    ("contradictions", "#/contradictions", None),
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "memory.db"
        fill(db, hostile=False)
        with serve_in_thread(db, OWNER) as base, open_browser(WIDTH, 800) as browser:
            for name, fragment, click in PAGES:
                browser.set_window_size(WIDTH, 800)
                wait_ready(browser, f"{base}/{fragment}")
                if click:
                    element = browser.find_element(By.CSS_SELECTOR, click)
                    browser.execute_script("arguments[0].click()", element)
                height = browser.execute_script("return document.documentElement.scrollHeight")
                browser.set_window_size(WIDTH, min(int(height) + 200, 2600))  # + the window frame
                browser.execute_script("window.scrollTo(0, 0)")
                path = OUT / f"{name}.png"
                browser.save_screenshot(str(path))
                print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
