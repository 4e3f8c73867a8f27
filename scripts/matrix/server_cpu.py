"""The CPU a local PostgreSQL server spends, read from ``/proc``: what a write costs beyond
the client that sends it.

A serial ``remember`` on PostgreSQL is the client's CPU (chronomem and the driver, which
``time.thread_time`` counts), the server's CPU (parsing, planning and running its statements,
and writing the commit's WAL) and the waits between. The server's part runs in other
processes, so the client cannot count it; on the machine it runs on, their ``schedstat``
can: the nanoseconds each process has run, kept by the scheduler (``stat``'s clock ticks,
10 ms each, where ``schedstat`` is missing). Only a server on this machine, on Linux, can be
read; elsewhere :meth:`ServerCpu.of` returns None and the report says nothing of it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ServerCpu", "process_cpu_ns"]

_PROC = Path("/proc")


def process_cpu_ns(pid: int, proc: Path = _PROC) -> int | None:
    """The CPU process ``pid`` has run so far, in nanoseconds; None once it is gone."""
    try:
        return int((proc / str(pid) / "schedstat").read_text().split()[0])
    except FileNotFoundError:
        if not (proc / str(pid)).exists():
            return None
    except (ProcessLookupError, ValueError, IndexError):
        return None
    try:  # a kernel without schedstat: user and system time, in clock ticks
        fields = (proc / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    ticks = int(fields[11]) + int(fields[12])
    return ticks * 1_000_000_000 // os.sysconf("SC_CLK_TCK")


class ServerCpu:
    """The server processes of one PostgreSQL server: its backends and background workers,
    as ``pg_stat_activity`` lists them when :meth:`of` is called (so open the client's
    connections first). :meth:`ns` is their CPU so far; the difference of two readings is
    what the server spent between them, a process that exited counting up to its last one.
    """

    def __init__(self, pids: list[int], proc: Path = _PROC) -> None:
        self._pids = pids
        self._proc = proc
        self._last: dict[int, int] = {}

    @classmethod
    def of(cls, dsn: str, proc: Path = _PROC) -> ServerCpu | None:
        """The server ``dsn`` connects to, if its processes can be read here; else None."""
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            pids = [int(pid) for (pid,) in conn.execute("SELECT pid FROM pg_stat_activity")]
            own = conn.info.backend_pid  # this connection's backend, gone once it closes
        pids = [pid for pid in pids if pid != own]
        if not pids or any(process_cpu_ns(pid, proc) is None for pid in pids):
            return None  # another machine's server, or no /proc: nothing to read
        return cls(pids, proc)

    def ns(self) -> int:
        """The server's CPU so far, in nanoseconds, over the processes read at the start."""
        for pid in self._pids:
            now = process_cpu_ns(pid, self._proc)
            if now is not None:
                self._last[pid] = now
        return sum(self._last.values())
