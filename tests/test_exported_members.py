"""The public names of chronica and chronomem, pinned (as httpx's tests/test_exported_members.py).

A name added to or dropped from a public module's ``__all__`` is a change of the public
contract (SPEC.md): it must show in this file's diff, on purpose. Each pinned module's
``__all__`` must be exactly the list here, every name in it must be importable from it, and
the list must be in the order ruff keeps (RUF022: SCREAMING_CASE, then CamelCase, then the
rest, each alphabetical), so a reader finds a name where it should be. The packages that only
group modules (``chronica.stores``, ``chronica.integrations``, ``chronomem.integrations``)
export nothing themselves; their public modules are pinned one by one.
"""

from __future__ import annotations

import importlib
from inspect import ismodule

import pytest

EXPORTS: dict[str, list[str]] = {
    "chronica": [
        "MAX_CONTENT_BYTES",
        "MAX_ID_CHARS",
        "MAX_METADATA_BYTES",
        "MAX_METADATA_DEPTH",
        "ActaPage",
        "ActorKind",
        "Actum",
        "ActumEntry",
        "ActumKind",
        "AsyncChronicarius",
        "BatchStore",
        "BrowsableStore",
        "ChronicaCounts",
        "ChronicaError",
        "ChronicaTypeError",
        "Chronicarius",
        "Chronicum",
        "ChronicumNotFoundError",
        "ChronicumSummary",
        "CorruptDatabaseError",
        "DuplicateActumError",
        "EmptyOwnerIDError",
        "ErasableStore",
        "EraseUnsupportedError",
        "FrozenDict",
        "IdempotencyUnsupportedError",
        "IdempotentStore",
        "InvalidActumError",
        "InvalidArgumentError",
        "RestorableStore",
        "RestoreBatch",
        "RestoreUnsupportedError",
        "Store",
        "StoreError",
        "TailStore",
    ],
    "chronica.owners": [
        "MAX_OWNER_BYTES",
        "owner_problem",
    ],
    "chronica.store": [
        "BatchStore",
        "BrowsableStore",
        "ErasableStore",
        "IdempotentStore",
        "RestorableStore",
        "Store",
        "TailStore",
    ],
    "chronica.storeconformance": [
        "OWNER",
        "BatchStoreContract",
        "BrowsableStoreContract",
        "ErasableStoreContract",
        "IdempotentStoreContract",
        "OwnerView",
        "RestorableStoreContract",
        "StoreContract",
        "TailStoreContract",
        "make_actum",
        "run_together",
    ],
    "chronica.stores.inmemory": [
        "InMemoryStore",
    ],
    "chronica.stores.postgres": [
        "PostgresStore",
    ],
    "chronica.stores.sqlite": [
        "WAL_AUTOCHECKPOINT_PAGES",
        "SQLiteStore",
        "configure",
        "create_private",
        "empty_log",
        "enable_wal",
        "integrity_problems",
        "restore_batch",
    ],
    "chronica.integrations.adk": [
        "ChronicaSessionService",
        "UnmappableEventError",
        "app_owner_for",
        "owner_for",
    ],
    "chronica.integrations.memory": [
        "Retraction",
        "SessionMemory",
        "capture",
        "retraction_of",
    ],
    "chronica.integrations.openai_agents": [
        "ChronicaSession",
        "UnmappableItemError",
    ],
    "chronica.demo": [
        "run",
    ],
    "chronomem": [
        "AsyncChronoMem",
        "ChronoMem",
        "ChronoMemError",
        "Contradiction",
        "DatabaseError",
        "Episode",
        "EpisodeNotFoundError",
        "Fact",
        "FactId",
        "FactNotActiveError",
        "FactNotFoundError",
        "Indexed",
        "InvalidArgumentError",
        "InvalidFactError",
        "Keyed",
        "KeyedFacts",
        "Purged",
        "RecordNotFoundError",
        "Skipped",
        "Turn",
        "UnknownIdError",
        "estimate_tokens",
    ],
    "chronomem.server": [
        "DEFAULT_DB",
        "MCP_EXTRA",
        "ServerConfig",
        "ServerConfigError",
        "add_server_arguments",
        "build_server",
        "config_from_args",
        "main",
        "serve",
    ],
    "chronomem.integrations.adk": [
        "ChronoMemMemoryService",
    ],
    "chronomem.integrations.langgraph": [
        "ChronoMemStore",
    ],
    "chronomem.cli": [
        "build_parser",
        "main",
    ],
    "chronomem.ui": [
        "Sources",
        "UiConfig",
        "UiConfigError",
        "build_app",
        "main",
        "serve",
    ],
    "chronomem.demo": [
        "DEFAULT_DB",
        "DemoFileError",
        "main",
        "run",
    ],
}
"""Each public module, and its ``__all__`` as shipped."""

GROUPS = ("chronica.stores", "chronica.integrations", "chronomem.integrations")
"""Packages of modules, with no names of their own."""


def ruff_order(name: str) -> tuple[int, str]:
    """RUF022's isort-style key: constants first, then classes, then everything else."""
    if name.isupper():
        return 0, name
    return (1 if name[0].isupper() else 2), name


@pytest.mark.parametrize("module", sorted(EXPORTS))
def test_the_exports_are_pinned(module: str) -> None:
    assert importlib.import_module(module).__all__ == EXPORTS[module]


@pytest.mark.parametrize("module", sorted(EXPORTS))
def test_every_export_is_importable_and_the_list_is_sorted(module: str) -> None:
    imported = importlib.import_module(module)
    missing = [name for name in imported.__all__ if not hasattr(imported, name)]
    assert missing == []
    assert imported.__all__ == sorted(imported.__all__, key=ruff_order)
    assert len(set(imported.__all__)) == len(imported.__all__)


@pytest.mark.parametrize("group", GROUPS)
def test_a_group_of_modules_exports_no_names_itself(group: str) -> None:
    imported = importlib.import_module(group)
    assert getattr(imported, "__all__", []) == []
    names = vars(imported).items()
    own = [name for name, value in names if not name.startswith("_") and not ismodule(value)]
    assert own == []  # only its submodules, once imported


def test_the_order_is_ruffs() -> None:
    # The key itself, so the sortedness check above can fail: plain sorted() would give
    # ["MAX_ID_CHARS", "Store", "run"] too, but not for "ActaPage" before "MAX_ID_CHARS".
    assert sorted(["run", "Store", "ActaPage", "MAX_ID_CHARS"], key=ruff_order) == [
        "MAX_ID_CHARS",
        "ActaPage",
        "Store",
        "run",
    ]
