"""One BLAS thread for recall's vector arithmetic.

Recall's products are small (a question against a few thousand vectors, at most a few lists
of a million), and OpenBLAS, numpy's default, splits them across every core: its threads then
spin waiting on each other, which on a busy machine costs more than the product. Measured on
this project's two-core machine under load, a 32,000 x 64 product took 1.34 ms on the default
threads and 0.15 ms on one; a whole recall, 20.6 ms against 3.4 ms (the MCP server's profile,
scripts/profile_mcp_recall.py). So the semantic channel and the encoder run their products
inside :func:`single_blas_thread`, which costs 8 microseconds.

The limit is the process's while it lasts (BLAS has one setting): numpy work in another
thread at that moment runs on one thread too, and is otherwise left as the user set it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

__all__ = ["single_blas_thread"]


@lru_cache(maxsize=1)
def _controller() -> Any:
    # Made once, after numpy is loaded: it finds the BLAS libraries the process has.
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def single_blas_thread() -> Iterator[None]:
    """BLAS on one thread for the block, then as it was."""
    with _controller().limit(limits=1, user_api="blas"):
        yield
