"""chronica's worker threads (chronica._offload): what ``asyncio.to_thread`` guarantees, kept."""

from __future__ import annotations

import asyncio
import contextvars
import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from chronica import _offload
from chronica._offload import offload

_request = contextvars.ContextVar("_request", default="none")


def test_the_call_runs_on_another_thread_and_its_result_comes_back() -> None:
    async def main() -> tuple[int, int]:
        return threading.get_ident(), await offload(threading.get_ident)

    loop_thread, worker = asyncio.run(main())
    assert worker != loop_thread


def test_an_exception_reaches_the_caller_as_raised() -> None:
    def fail(message: str) -> None:
        raise KeyError(message)

    async def main() -> None:
        await offload(fail, "gone")

    with pytest.raises(KeyError, match="gone"):
        asyncio.run(main())


def test_the_callers_context_variables_follow_the_call() -> None:
    async def main() -> str:
        _request.set("req-7")
        return await offload(_request.get)

    assert asyncio.run(main()) == "req-7"


def test_calls_that_wait_on_each_other_all_run_at_once() -> None:
    """As many calls as the pool's bound, each waiting for all the others: only a pool that
    starts a thread whenever none is idle finishes them (one that queued would hang)."""
    parties = _offload._MAX_THREADS
    barrier = threading.Barrier(parties, timeout=10)

    async def main() -> list[int]:
        return await asyncio.gather(*(offload(barrier.wait) for _ in range(parties)))

    assert sorted(asyncio.run(main())) == list(range(parties))


def test_sequential_calls_reuse_an_idle_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls that never let go of the GIL, each submitted the moment the last is answered:
    the worker that answered is counted idle by then (counted after its answer, a fresh
    pool grew to a second thread at the second call)."""
    monkeypatch.setattr(_offload, "_pool", _offload._Pool())  # not the threads of other tests

    async def main() -> None:
        for _ in range(2000):
            await offload(int)
        assert _offload._pool._threads == 1

    asyncio.run(main())


@pytest.fixture
def thread_errors() -> Iterator[list[BaseException]]:
    """What worker threads raise unhandled (threading.excepthook), during the test."""
    seen: list[BaseException] = []
    before = threading.excepthook
    threading.excepthook = lambda args: seen.append(args.exc_value)  # type: ignore[arg-type]
    try:
        yield seen
    finally:
        threading.excepthook = before


def test_a_cancelled_caller_leaves_the_call_to_finish_quietly(
    thread_errors: list[BaseException],
) -> None:
    done = threading.Event()

    def slow() -> str:
        time.sleep(0.05)
        done.set()
        return "finished"

    async def main() -> None:
        task = asyncio.ensure_future(offload(slow))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert done.wait(5)
        await asyncio.sleep(0.01)  # the answer arrives at a cancelled future: ignored

    asyncio.run(main())
    assert thread_errors == []


def test_a_loop_closed_before_the_answer_costs_the_worker_nothing(
    thread_errors: list[BaseException],
) -> None:
    release, done = threading.Event(), threading.Event()

    def held() -> None:
        release.wait(5)

    async def main() -> None:
        unanswered = offload(held)
        await asyncio.sleep(0.01)
        assert not unanswered.done()

    asyncio.run(main())  # closes the loop while the call still runs
    idle = _offload._pool._idle
    release.set()
    deadline = time.monotonic() + 5
    while _offload._pool._idle == idle and time.monotonic() < deadline:
        time.sleep(0.001)
    assert _offload._pool._idle == idle + 1, "the worker never came back from its answer"
    # The same thread, once idle again, must still serve new calls.
    asyncio.run(_run(done.set))
    assert done.is_set()
    assert thread_errors == []


async def _run(call: Callable[[], object]) -> None:
    await offload(call)


def _in_child(answers: multiprocessing.SimpleQueue[int]) -> None:
    async def main() -> int:
        return await offload(lambda: 41) + 1

    answers.put(asyncio.run(main()))


def test_a_forked_child_gets_a_pool_of_its_own() -> None:
    asyncio.run(_run(lambda: None))  # the parent's pool has a thread, which the child lacks
    context = multiprocessing.get_context("fork")
    answers: multiprocessing.SimpleQueue[int] = context.SimpleQueue()
    child = context.Process(target=_in_child, args=(answers,))
    child.start()
    child.join(20)
    assert child.exitcode == 0
    assert answers.get() == 42
