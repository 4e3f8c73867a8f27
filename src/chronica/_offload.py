"""Blocking calls run off the event loop on chronica's own worker threads: :func:`offload`.

Every async entry point of chronica (``AsyncChronicarius`` and the OpenAI Agents SDK and
ADK session adapters) runs its store call in a worker thread, so a slow disk or network
never stalls the event loop. asyncio's ``to_thread`` and default executor do that through a
``concurrent.futures.Future`` chained to an asyncio future by callbacks, a work item, a
condition variable and the executor's thread bookkeeping. For an agent framework's session,
whose reads are a few dozen microseconds of SQLite, that hand-off is the largest part of a
call; matrix 7a times it beside this pool's, in alternation, on every run.

The pool is the least that keeps the guarantees: a job is handed over on one
``queue.SimpleQueue`` (a C queue, one futex wake), and the answer is set on the caller's own
asyncio future by ``loop.call_soon_threadsafe``. It grows a thread only when no thread is
idle, up to the same bound as the default executor, and runs each call in a copy of the
caller's context, as ``asyncio.to_thread`` does (so tracing spans and other context
variables follow the call). Threads are daemons that wait on the queue: none is left running
at exit unless a call is, and every write the adapters make is awaited to its end even when
its caller is cancelled (see ``chronica.integrations.openai_agents``), so nothing
acknowledged is cut short. After ``os.fork`` the child starts a fresh pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["offload"]

_T = TypeVar("_T")
_MAX_THREADS = min(32, (os.cpu_count() or 1) + 4)  # ThreadPoolExecutor's default bound
_Job = tuple[
    asyncio.AbstractEventLoop,
    "asyncio.Future[Any]",
    contextvars.Context,
    Callable[..., Any],
    tuple[Any, ...],
]


class _Pool:
    """Worker threads that take jobs from one queue; a thread is started only when none idles."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0  # threads waiting on the queue that no submitted job has claimed yet

    def submit(self, job: _Job) -> None:
        with self._lock:
            if self._idle:
                self._idle -= 1  # this job is that thread's: a second job will not count on it
            elif self._threads < _MAX_THREADS:
                threading.Thread(target=self._work, name="chronica-offload", daemon=True).start()
                self._threads += 1  # counted once started: a thread that failed to is not one
            # else every thread is busy and at the bound: the job waits its turn in the queue
        self._jobs.put(job)

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            _run(jobs.get(), self._rest)  # its own frame: an idle thread holds nothing of it

    def _rest(self) -> None:
        """Count this thread idle: its call is done, only the answer is left to hand over.

        Counted before the answer, not after: the caller, answered, may submit its next call
        before this thread is back at the queue, and would otherwise start a thread for it.
        A loop of sequential calls grew the pool to three threads taking turns, each call
        waking a thread colder than the last.
        """
        with self._lock:
            self._idle += 1


def _run(job: _Job, rest: Callable[[], None]) -> None:
    loop, future, context, call, args = job
    try:
        result = context.run(call, *args)
    except BaseException as error:  # delivered to the caller, whatever it is
        rest()
        _answer(loop, _fail, future, error)
    else:
        rest()
        _answer(loop, _succeed, future, result)


def _answer(
    loop: asyncio.AbstractEventLoop,
    settle: Callable[[asyncio.Future[Any], Any], None],
    future: asyncio.Future[Any],
    value: Any,
) -> None:
    # RuntimeError: the loop was closed while the call ran, and nobody is left to tell.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(settle, future, value)


def _succeed(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():  # the caller may have cancelled it
        future.set_result(result)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


_pool = _Pool()


def _fresh_pool() -> None:
    global _pool
    _pool = _Pool()  # the parent's threads do not exist in a forked child


os.register_at_fork(after_in_child=_fresh_pool)


def offload(call: Callable[..., _T], *args: Any) -> asyncio.Future[_T]:
    """Run ``call(*args)`` on a worker thread; a future of the running loop for its result.

    Must be called from a coroutine (it needs the running loop). Cancelling the future
    does not stop the call: it runs to its end in the worker, as with ``to_thread``.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()
    _pool.submit((loop, future, contextvars.copy_context(), call, args))
    return future
