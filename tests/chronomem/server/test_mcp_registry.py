"""``server.json``, what the MCP registry publishes, says what the package really does.

Checked by hand against the registry's published schema (server.schema.json of
modelcontextprotocol/registry, 2025-12-11): its required fields, patterns, lengths and the keys
a package may have. The schema is not copied here (its licence was not verifiable), so these
are the rules this file relies on, not the whole schema. Beyond the schema: the versions are
the project's, the package runs the console script with the arguments given, and the
environment variables named are the ones the server reads.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomllib is Python 3.11's; the same parser was tomli before
    import pytest

    tomllib = pytest.importorskip("tomli")

from chronomem._doors.settings import DEFAULT_OWNER
from chronomem.server import DEFAULT_DB, config_from_args
from tests.chronomem.mcp_client import server_args

REPO = Path(__file__).resolve().parents[3]
SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
PACKAGE_KEYS = {
    "registryType", "registryBaseUrl", "identifier", "version", "fileSha256", "runtimeHint",
    "transport", "runtimeArguments", "packageArguments", "environmentVariables",
}  # fmt: skip
"""The keys the schema allows in a package (``additionalProperties: false``)."""
INPUT_FORMATS = {"string", "number", "boolean", "filepath"}


def _server() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((REPO / "server.json").read_text(encoding="utf-8"))
    return loaded


def _project() -> dict[str, Any]:
    with (REPO / "pyproject.toml").open("rb") as f:
        project: dict[str, Any] = tomllib.load(f)["project"]
    return project


def test_server_json_has_what_the_registry_schema_requires() -> None:
    server = _server()
    assert server["$schema"] == SCHEMA
    assert {"name", "description", "version"} <= set(server)
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", server["name"])
    assert 3 <= len(server["name"]) <= 200
    assert 1 <= len(server["description"]) <= 100
    assert len(server["version"]) <= 255
    [package] = server["packages"]
    assert set(package) <= PACKAGE_KEYS
    assert {"registryType", "identifier", "version", "transport"} <= set(package)
    assert package["version"] not in ("", "latest")
    assert not re.search(r"[\^~<>=*x]|\.x\b", package["version"]), "a range, not a version"
    assert package["transport"] == {"type": "stdio"}
    for argument in package["packageArguments"]:
        assert argument["type"] in ("positional", "named")
        assert "value" in argument or "valueHint" in argument
    for variable in package["environmentVariables"]:
        assert isinstance(variable["name"], str)
        assert variable.get("format", "string") in INPUT_FORMATS
        assert isinstance(variable.get("isRequired", False), bool)
        assert isinstance(variable.get("default", ""), str)


def test_server_json_describes_this_package() -> None:
    server, project = _server(), _project()
    [package] = server["packages"]
    assert server["version"] == package["version"] == project["version"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == project["name"]
    # uvx IDENTIFIER ARGS...: the console script of that name, with these arguments.
    assert package["runtimeHint"] == "uvx"
    assert project["scripts"][package["identifier"]] == "chronomem.cli:main"
    assert [a["value"] for a in package["packageArguments"]] == ["serve"]


def test_the_environment_it_names_is_what_the_server_reads(tmp_path: Path) -> None:
    [package] = _server()["packages"]
    variables = {v["name"]: v for v in package["environmentVariables"]}
    assert set(variables) == {"CHRONOMEM_DB", "CHRONOMEM_OWNER"}
    given = {"CHRONOMEM_DB": str(tmp_path / "m.db"), "CHRONOMEM_OWNER": "ardian"}
    config = config_from_args(server_args(), given)
    assert (config.db, config.owner) == (tmp_path / "m.db", "ardian")
    # The defaults it shows are the server's own.
    assert variables["CHRONOMEM_DB"]["default"] == DEFAULT_DB
    assert variables["CHRONOMEM_OWNER"]["default"] == DEFAULT_OWNER
