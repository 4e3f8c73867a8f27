"""The chronica demo plays the dinner scenario and says what happened."""

from __future__ import annotations

from chronica.demo import run
from chronica.stores.inmemory import InMemoryStore


def test_demo_tells_the_story() -> None:
    lines: list[str] = []
    store = InMemoryStore()
    run(store, out=lines.append)
    text = "\n".join(lines)
    assert "Retried reply stored once: True" in text
    assert "Another owner asking for the session is refused" in text
    assert len(store.acta("dinner-friday", owner_id="ardian")) == 10
