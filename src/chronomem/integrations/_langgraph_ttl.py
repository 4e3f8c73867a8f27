"""Time to live in the LangGraph store: LangGraph's ``TTLConfig`` checked, and its sweeper.

LangGraph's semantics (``langgraph.store.base``; its SQLite and PostgreSQL stores): a put's
``ttl`` is minutes from the put (``BaseStore.put`` fills in the config's ``default_ttl`` when
none is given; ``ttl=None`` keeps the item until it is deleted); a get or a search with
``refresh_ttl`` (by default the config's ``refresh_on_read``, itself ``True`` by default)
starts the time to live of what it returns again from the read; ``sweep_ttl`` deletes what
expired; ``start_ttl_sweeper`` runs it every ``sweep_interval_minutes`` (default 5) on a daemon
thread. Beyond LangGraph's own stores, which return an expired item until the sweep unless
``omit_expired`` is set, ``ChronoMemStore`` never returns nor lists one, and its sweep erases
(a purge of every value the item held), where theirs deletes a row.
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import threading
from collections.abc import Callable

from langgraph.store.base import TTLConfig

__all__ = ["Sweeper", "check_ttl", "check_ttl_config"]

log = logging.getLogger(__name__)

_KEYS = {"default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired"}
_DEFAULT_INTERVAL = 5.0


def check_ttl(ttl: object, name: str = "ttl") -> None:
    """A time to live is ``None`` or a positive, finite number of minutes."""
    if ttl is None:
        return
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not math.isfinite(ttl):
        raise ValueError(f"{name} must be None or a positive number of minutes, not {ttl!r}")
    if ttl <= 0:
        raise ValueError(f"{name} must be a positive number of minutes, not {ttl!r}")


def check_ttl_config(config: object) -> TTLConfig | None:
    """LangGraph's ``TTLConfig``, each field of the type LangGraph documents, or a clear
    ``ValueError`` before the store is made."""
    if config is None:
        return None
    if not isinstance(config, dict):
        raise ValueError(f"ttl must be a TTLConfig (a dict), not {type(config).__name__}")
    unknown = set(config) - _KEYS
    if unknown:
        raise ValueError(f"ttl: unknown TTLConfig fields {sorted(unknown)}")
    check_ttl(config.get("default_ttl"), "default_ttl")
    check_ttl(config.get("sweep_interval_minutes"), "sweep_interval_minutes")
    for flag in ("refresh_on_read", "omit_expired"):
        if flag in config and not isinstance(config[flag], bool):
            raise ValueError(f"ttl: {flag} must be a bool")
    return TTLConfig(**config)  # type: ignore[typeddict-item]  # its keys checked above


class Sweeper:
    """The daemon thread that calls ``sweep`` every interval, as LangGraph's stores run one."""

    def __init__(self, sweep: Callable[[], int], config: TTLConfig | None) -> None:
        self._sweep, self._config = sweep, config
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self, minutes: float | None) -> concurrent.futures.Future[None]:
        """Start sweeping (nothing without a config; the running thread if started)."""
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        if not self._config:
            future.set_result(None)
            return future
        future.add_done_callback(lambda f: self._stop.set() if f.cancelled() else None)
        if self._thread is not None and self._thread.is_alive():
            return future
        check_ttl(minutes, "sweep_interval_minutes")
        interval = float(minutes or self._config.get("sweep_interval_minutes") or _DEFAULT_INTERVAL)
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(interval * 60):
                try:
                    swept = self._sweep()
                except Exception:  # a failed round is logged; the next one tries again
                    log.exception("ChronoMemStore: a TTL sweep failed")
                    continue
                if swept:
                    log.info("ChronoMemStore: swept %d expired items", swept)
            if not future.done():
                future.set_result(None)

        self._thread = threading.Thread(target=loop, daemon=True, name="chronomem-ttl-sweeper")
        self._thread.start()
        return future

    def stop(self, timeout: float | None) -> bool:
        """Stop the thread; whether it ended within ``timeout`` seconds."""
        if self._thread is None or not self._thread.is_alive():
            return True
        self._stop.set()
        self._thread.join(timeout)
        stopped = not self._thread.is_alive()
        if stopped:
            self._thread = None
        return stopped
