"""Time-ordered, globally unique actum IDs (UUIDv7, RFC 9562).

The standard library gains ``uuid.uuid7`` only in Python 3.14, so we build the same layout
here: 48 bits of Unix milliseconds, a 12-bit counter that keeps IDs minted in the same
millisecond by this process increasing, and 62 random bits that keep processes apart.
IDs are minted on every append, so this formats the hex directly instead of going through
``uuid.UUID``.

The random bits come from the OS (``os.urandom``), never from :mod:`random`: agent and ML
code calls ``random.seed(1234)`` at start-up, and two processes seeded alike would then mint
the same IDs in the same millisecond. The system call costs under a microsecond, noise next
to an append.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["new_actum_id", "new_actum_ids"]

_lock = threading.Lock()
_last_ms = 0
_counter = 0
_COUNTER_MAX = 0xFFF
_RANDOM_MASK = (1 << 62) - 1


def new_actum_id() -> str:
    """Return a new UUIDv7 string, strictly increasing within this process."""
    return new_actum_ids(1)[0]


def new_actum_ids(count: int) -> list[str]:
    """Return ``count`` new UUIDv7 strings, increasing, for a batch: one system call, one
    clock reading and one turn of the lock for all of them."""
    global _last_ms, _counter
    entropy = os.urandom(10 * count)  # per ID: the counter start and the 62-bit tail
    tails = [int.from_bytes(entropy[i : i + 10], "big") for i in range(0, 10 * count, 10)]
    stamps = []
    with _lock:
        now_ms = time.time_ns() // 1_000_000
        for bits in tails:
            if now_ms > _last_ms:
                # Start each millisecond at a random point in the lower half of the counter,
                # so the counter leaks little and still has room for 2,048+ IDs.
                _last_ms, _counter = now_ms, (bits >> 64) & 0x7FF
            elif _counter < _COUNTER_MAX:
                _counter += 1
            else:  # 4,096 IDs in one millisecond: borrow the next millisecond.
                _last_ms, _counter = _last_ms + 1, 0
            stamps.append((_last_ms, _counter))
    # Formatted by parts: the millisecond's 12 hex digits are shared by a batch, and the
    # version, counter, variant and random bits are laid out in their own groups.
    ids = []
    last_ms, head = -1, ""
    for bits, (ms, counter) in zip(tails, stamps, strict=True):
        if ms != last_ms:
            last_ms, stamp = ms, f"{ms:012x}"
            head = f"{stamp[:8]}-{stamp[8:]}-7"
        tail = f"{(0b10 << 62) | (bits & _RANDOM_MASK):016x}"
        ids.append(f"{head}{counter:03x}-{tail[:4]}-{tail[4:]}")
    return ids
