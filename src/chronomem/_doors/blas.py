"""One BLAS thread in the processes chronomem runs itself: the MCP server and Claude Code's hook.

Recall's products are small (a question against the first 64 dimensions of every stored
vector, and against the static model's word table), and OpenBLAS splits even those over every
core, its threads spinning while they wait for each other. Beside other work that loses badly:
on 2 busy cores (load 6.4), a recall at 10,000 facts took 20.6 ms on the default threads and
3.4 ms on one (scripts/profile_mcp_recall.py). The server already runs recalls side by side in
threads of its own (``_state.MAX_READ_THREADS``), so one BLAS thread each loses nothing.

The libraries read these variables once, when numpy first loads them; chronomem imports numpy
only at the first recall, so a front door sets them at its start. A value the user set is kept.
A program that imports chronomem as a library chooses for itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping

__all__ = ["BLAS_THREAD_VARIABLES", "one_blas_thread"]

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""What OpenBLAS, OpenMP builds and MKL read for their thread count."""


def one_blas_thread(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Ask for one BLAS thread unless the user chose; False if numpy was loaded already (the
    setting would change nothing)."""
    if "numpy" in sys.modules:
        return False
    for name in BLAS_THREAD_VARIABLES:
        environ.setdefault(name, "1")
    return True
