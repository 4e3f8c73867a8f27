"""ChronoMem.for_owner: one file, many owners, each seeing only their own memories."""

from __future__ import annotations

from pathlib import Path

import pytest

from chronomem import ChronoMem, FactNotFoundError, InvalidFactError


def test_a_view_shares_the_file_and_keeps_owners_apart(tmp_path: Path) -> None:
    with ChronoMem(tmp_path / "m.db", owner="ardian") as mem:
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
def test_a_bad_owner_is_refused(tmp_path: Path, owner: object) -> None:
    with ChronoMem(tmp_path / "m.db") as mem, pytest.raises(InvalidFactError, match="owner"):
        mem.for_owner(owner)  # type: ignore[arg-type]  # the bad type is the point
