"""Every Python snippet in README.md runs, so the docs cannot drift from the code."""

from __future__ import annotations

import re
import urllib.parse
import uuid
from pathlib import Path

import pytest

from chronica.stores.inmemory import InMemoryStore

README = Path(__file__).resolve().parent.parent / "README.md"
SNIPPETS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)


def test_the_readme_has_snippets() -> None:
    assert len(SNIPPETS) >= 2


def _fresh_database(request: pytest.FixtureRequest) -> str:
    """A URL of a new, empty database on the test server (dropped afterwards), for a snippet
    that reads its DSN from ``CHRONOMEM_DB`` as the README tells users to."""
    import psycopg
    import psycopg.conninfo

    dsn: str = request.getfixturevalue("pg_dsn")
    name = f"readme_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    request.addfinalizer(drop)
    params = {k: str(v) for k, v in psycopg.conninfo.conninfo_to_dict(dsn).items()}
    return "postgresql://?" + urllib.parse.urlencode({**params, "dbname": name})


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[f"snippet-{i}" for i in range(len(SNIPPETS))])
def test_snippet_runs(
    snippet: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.chdir(tmp_path)  # snippets may create database files in the working directory
    if "postgresql://" in snippet:
        monkeypatch.setenv("CHRONOMEM_DB", _fresh_database(request))
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
