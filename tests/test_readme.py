"""Every Python snippet in README.md runs, so the docs cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chronica.stores.inmemory import InMemoryStore

README = Path(__file__).resolve().parent.parent / "README.md"
SNIPPETS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)


def test_the_readme_has_snippets() -> None:
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[f"snippet-{i}" for i in range(len(SNIPPETS))])
def test_snippet_runs(
    snippet: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.chdir(tmp_path)  # snippets may create database files in the working directory
    if "postgresql://" in snippet:
        # A database of its own, as the README tells users to give it in CHRONOMEM_DB.
        monkeypatch.setenv("CHRONOMEM_DB", request.getfixturevalue("pg_database")())
    # The "write your own store" snippet names a hypothetical MyStore; stand one in.
    namespace: dict[str, object] = {"__name__": "readme", "MyStore": InMemoryStore}
    exec(compile(snippet, str(README), "exec"), namespace)


def test_generated_figures_match_the_committed_benchmark_files() -> None:
    # Every figure between <!-- generated: NAME --> markers comes from a file under bench/.
    from scripts.readme_tables import DOCUMENTS, render

    assert "<!-- generated: locomo -->" in README.read_text(encoding="utf-8")
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        assert render(text) == text, f"{document.name} is stale: run scripts/readme_tables.py"
