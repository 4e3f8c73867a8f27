"""Every install line a reader copies works before the first release is published.

``chronomem`` is not on PyPI until its first release, so ``pip install chronomem`` and
``uvx chronomem serve`` answer "No matching distribution" today. A page may name them only
beside a line that works now (a clone, a wheel ``make release`` built, ``uvx --from``), in a
paragraph that marks them as what they become after the first release. The lines that work
now are run by tests/test_docs.py (``pip install`` resolved for real, ``uvx --from`` served);
this test finds every published form on every page, in prose and in blocks alike.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = (REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")))
MARK = "after the first release"

PUBLISHED = re.compile(
    r"(?:pip install|pipx install|pipx run|uvx|uv tool install|uv add)\s+['\"]?chronomem\b"
)
"""A command that installs or runs the package by its registry name."""


def _paragraphs(page: Path) -> list[tuple[int, str]]:
    text = page.read_text(encoding="utf-8")
    found, line = [], 1
    for part in re.split(r"\n\s*\n", text):
        found.append((line, part))
        line += part.count("\n") + 2
    return found


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(REPO).as_posix() for p in PAGES])
def test_the_published_form_is_marked_as_after_the_first_release(page: Path) -> None:
    unmarked = [
        f"{page.name}:{line}: {m.group(0)!r}"
        for line, paragraph in _paragraphs(page)
        for m in PUBLISHED.finditer(paragraph)
        if MARK not in " ".join(paragraph.split()).lower()
    ]
    assert not unmarked, "a published install line with no working one beside it:\n" + "\n".join(
        unmarked
    )


def test_the_readme_installs_from_a_clone_first() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    install = readme.index("### Install")
    assert readme.index("pip install /path/to/chronomem", install) < readme.index(
        "pip install chronomem", install
    )


def test_server_json_is_the_published_package_the_docs_mark() -> None:
    # The registry's entry runs the PyPI package: it is published with the release, and
    # docs/mcp.md says so beside the form that works from a clone.
    [package] = json.loads((REPO / "server.json").read_text(encoding="utf-8"))["packages"]
    assert (package["registryType"], package["identifier"]) == ("pypi", "chronomem")
    mcp = " ".join((REPO / "docs" / "mcp.md").read_text(encoding="utf-8").split())
    at = mcp.index("`server.json`")
    assert MARK in mcp[at : at + 400]
    assert "uvx --from /path/to/chronomem chronomem serve" in mcp[at : at + 400]
