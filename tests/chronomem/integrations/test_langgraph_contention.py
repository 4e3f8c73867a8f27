"""Several processes putting one key of a ``ChronoMemStore`` at once (issue 39 item 9).

On PostgreSQL 3 processes putting one key gave 16 of 120 ``FactNotActiveError`` (another
process superseded the value between the put's read and its write, three times running),
4 processes 44 of 160. A put must never fail: the last write wins, as in LangGraph's own
stores, and the key's history keeps every value put.

Run as a script (``python -m tests.chronomem.integrations.test_langgraph_contention <db>
<child> <puts>``) it is one child's puts; it prints how many raised.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chronomem.integrations.langgraph import ChronoMemStore
from tests.chronomem.backends import MemoryTarget

ROOT = Path(__file__).resolve().parents[3]
NAMESPACE = ("users", "ardian")
KEY = "profile"
PUTS = 40


@pytest.mark.parametrize("processes", [4])
def test_puts_of_one_key_from_several_processes_never_fail(
    memory_target: MemoryTarget, processes: int
) -> None:
    args = json.dumps(memory_target.args())
    module = "tests.chronomem.integrations.test_langgraph_contention"
    pipe = subprocess.PIPE
    children = [
        subprocess.Popen(
            [sys.executable, "-m", module, args, str(child), str(PUTS)],
            cwd=ROOT,
            stdout=pipe,
            stderr=pipe,
            text=True,
        )
        for child in range(processes)
    ]
    outcomes = [child.communicate(timeout=300) for child in children]
    for child, (out, err) in zip(children, outcomes, strict=True):
        assert child.returncode == 0, err
        assert json.loads(out) == {"failed": []}
    store = ChronoMemStore(memory_target.open())
    history = store.history(NAMESPACE, KEY)
    put = {f"child {c} put {i}" for c in range(processes) for i in range(PUTS)}
    assert sorted(i.value["said"] for i in history) == sorted(put)  # each value once
    current = store.get(NAMESPACE, KEY)
    assert current is not None
    # The last write wins: the current value is the one put last.
    assert current.value == max(history, key=lambda i: i.updated_at).value


def main(args: list[str]) -> None:
    target = MemoryTarget.from_args(json.loads(args[0]))
    child, puts = int(args[1]), int(args[2])
    store = ChronoMemStore(target.open())
    failed = []
    for i in range(puts):
        try:
            store.put(NAMESPACE, KEY, {"said": f"child {child} put {i}"})
        except Exception as e:  # every failure is counted, whatever it is
            failed.append(f"{type(e).__name__}: {e}")
    print(json.dumps({"failed": failed}))


if __name__ == "__main__":
    main(sys.argv[1:])
