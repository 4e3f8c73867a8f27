"""The processes chronomem runs itself (``serve``, ``hook``) ask BLAS for one thread.

Each case runs in a fresh interpreter, since the setting only counts before numpy loads: the
front door is entered, numpy loaded, and OpenBLAS asked (through threadpoolctl, the encoder
extra's) how many threads it runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from chronomem._doors.blas import BLAS_THREAD_VARIABLES, one_blas_thread

DOORS = {
    "serve": "from chronomem.server import main\nassert main(['--http', 'nowhere']) == 2",
    "hook": "from chronomem.cli._hook import main\ntry:\n    main(['--help'])\n"
    "except SystemExit:\n    pass",
    "library": "import chronomem",
}
PROBE = """
import json, os
{door}
import numpy
from threadpoolctl import threadpool_info
blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
print(json.dumps({{"env": os.environ.get("OPENBLAS_NUM_THREADS"), "threads": blas}}))
"""


def _probe(door: str, **env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(door=DOORS[door])],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


@pytest.mark.parametrize("door", ["serve", "hook"])
def test_the_server_and_the_hook_run_blas_on_one_thread(door: str) -> None:
    assert _probe(door) == {"env": "1", "threads": [1]}


def test_a_library_user_and_a_user_who_chose_keep_their_threads() -> None:
    cores = os.cpu_count() or 1
    if cores > 1:  # on one core there is nothing to tell apart
        assert _probe("library") == {"env": None, "threads": [cores]}
    assert _probe("serve", OPENBLAS_NUM_THREADS="2") == {"env": "2", "threads": [2]}


def test_too_late_once_numpy_is_loaded() -> None:
    import numpy  # noqa: F401  # loaded: BLAS has read its setting already

    environ: dict[str, str] = {}
    assert one_blas_thread(environ) is False
    assert environ == {}
