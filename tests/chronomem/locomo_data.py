"""The LoCoMo development set, for the tests that measure recall on real speech.

The data is read from beside the repository (``../shared/data/locomo-dev``, CC BY-NC 4.0, never
copied here). Without it a test that needs it is skipped on a developer's machine, so that
``make test`` passes on any clone, and fails in CI (``CI`` set), where the data is always laid
beside the clone: CI never skips real speech silently.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from scripts import locomo
from scripts.locomo import Conversation

__all__ = ["development_conversation"]


def development_conversation(sample_id: str, path: Path | None = None) -> Conversation:
    """The development conversation ``sample_id`` (from ``path``, by default where the set is
    laid beside the clone); skips the calling test without the set, or fails it in CI."""
    where = locomo.DEFAULT_PATH if path is None else path
    if not where.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{where} is missing: CI must measure recall on real speech")
        pytest.skip(f"LoCoMo development set not found at {where}")
    [conversation] = [c for c in locomo.load(where) if c.sample_id == sample_id]
    return conversation
