"""The tools' output schemas: the same contract, in the form clients check quickly (_app._lean)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import validators  # type: ignore[import-untyped]  # no types; what the SDK client checks with

from chronomem.server._app import build_server
from chronomem.server._config import ServerConfig

FACT = {
    "id": "0" * 32,
    "content": "Ana lives in Oslo",
    "category": None,
    "trust_score": 0.8,
    "valid_from": "2026-01-01T00:00:00+00:00",
    "valid_until": None,
    "superseded_by": None,
    "score": 0.5,
    "tokens": 5,
}


def _schemas(tmp_path: Path) -> dict[str, Any]:
    """What tools/list publishes (and a client validates every result against)."""
    server = build_server(ServerConfig(db=tmp_path / "m.db", owner="ana"))
    tools = anyio.run(server.list_tools)
    return {t.name: t.output_schema for t in tools}


def _walk(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [n for item in node for n in _walk(item)]
    if not isinstance(node, dict):
        return []
    return [node, *(n for v in node.values() for n in _walk(v))]


def test_no_schema_makes_a_client_try_plain_types_one_by_one(tmp_path: Path) -> None:
    schemas = _schemas(tmp_path)
    assert len(schemas) == 10
    for name, schema in schemas.items():
        assert schema is not None, name
        for node in _walk(schema):
            assert "$ref" not in node, name
            choices = node.get("anyOf", [])
            assert not (choices and all(set(c) == {"type"} for c in choices)), name


@pytest.mark.parametrize(
    ("change", "valid"),
    [
        ({}, True),
        ({"category": "home", "valid_until": "2026-02-01T00:00:00+00:00"}, True),
        ({"category": 3}, False),
        ({"valid_until": 1.5}, False),
        ({"superseded_by": ["x"]}, False),
    ],
)
def test_recall_schema_keeps_the_contract(
    tmp_path: Path, change: dict[str, Any], valid: bool
) -> None:
    schema = _schemas(tmp_path)["chronomem_recall"]
    checker = validators.validator_for(schema)(schema)
    result = {"facts": [FACT | change], "episodes": [], "total_tokens": 5}
    assert checker.is_valid(result) is valid
    assert not checker.is_valid({"facts": [FACT], "episodes": []})  # required kept
