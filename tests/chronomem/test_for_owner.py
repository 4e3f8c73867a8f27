"""ChronoMem.for_owner: one file, many owners, each seeing only their own memories."""

from __future__ import annotations

import pytest

from chronomem import FactNotFoundError, InvalidArgumentError
from tests.chronomem.backends import MemoryTarget


def test_a_view_shares_the_file_and_keeps_owners_apart(memory_target: MemoryTarget) -> None:
    with memory_target.open(owner="ardian") as mem:
        mine = mem.remember("Ardian's phone is a Pixel 9", category="phone")
        mina = mem.for_owner("mina")
        theirs = mina.remember("Mina's phone is an iPhone 16", category="phone")
        assert (mina.owner, mem.owner) == ("mina", "ardian")
        assert (mina.path, mina.weights) == (mem.path, mem.weights)
        assert [f["id"] for f in mem.recall("phone")] == [mine]
        assert [f["id"] for f in mina.recall("phone")] == [theirs]
        with pytest.raises(FactNotFoundError):
            mina.get(mine)


@pytest.mark.parametrize("owner", ["", "   ", "a\x00b", "x" * 201, 7])
def test_a_bad_owner_is_refused(memory_target: MemoryTarget, owner: object) -> None:
    with memory_target.open() as mem, pytest.raises(InvalidArgumentError, match="owner"):
        mem.for_owner(owner)  # type: ignore[arg-type]  # the bad type is the point
