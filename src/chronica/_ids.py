"""Time-ordered, globally unique actum IDs (UUIDv7, RFC 9562).

The standard library gains ``uuid.uuid7`` only in Python 3.14, so we build the same layout
here: 48 bits of Unix milliseconds, a 12-bit counter that keeps IDs minted in the same
millisecond by this process increasing, and 62 random bits that keep processes apart.
"""

from __future__ import annotations

import os
import threading
import time
import uuid

__all__ = ["new_actum_id"]

_lock = threading.Lock()
_last_ms = 0
_counter = 0
_COUNTER_MAX = 0xFFF


def new_actum_id() -> str:
    """Return a new UUIDv7 string, strictly increasing within this process."""
    global _last_ms, _counter
    with _lock:
        now_ms = time.time_ns() // 1_000_000
        if now_ms > _last_ms:
            _last_ms, _counter = now_ms, int.from_bytes(os.urandom(2), "big") & 0x3FF
        elif _counter < _COUNTER_MAX:
            _counter += 1
        else:  # 4,096 IDs in one millisecond: borrow the next millisecond.
            _last_ms, _counter = _last_ms + 1, 0
        ms, counter = _last_ms, _counter
    rand = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = (ms << 80) | (0x7 << 76) | (counter << 64) | (0b10 << 62) | rand
    return str(uuid.UUID(int=value))
