"""One owner rule for both packages (chronica.owners): what one stores, the other stores."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chronica import ChronicaError, Chronicarius, ChronicumNotFoundError
from chronica.owners import MAX_OWNER_BYTES
from chronica.stores.inmemory import InMemoryStore
from chronomem import ChronoMem, ChronoMemError


def _chronica_accepts(owner: str) -> bool:
    try:
        Chronicarius(InMemoryStore()).get_chronicum(owner, "s1")
    except ChronicumNotFoundError:
        return True  # the owner passed; there is no such session
    except ChronicaError:
        return False
    raise AssertionError("an empty store holds no session")


def _chronomem_accepts(owner: str, path: Path) -> bool:
    try:
        ChronoMem(path, owner=owner).close()
    except ChronoMemError:
        return False
    return True


@pytest.mark.parametrize(
    ("owner", "accepted"),
    [
        ("ardian", True),
        ("a" * MAX_OWNER_BYTES, True),
        ("a" * 230, False),  # chronica took 256 characters, chronomem 200 bytes
        ("é" * 100, True),
        ("é" * 150, False),  # 300 bytes
        ("   ", False),
        ("a\x00b", False),
        ("a\ud800", False),
    ],
)
def test_both_packages_take_the_same_owners(owner: str, accepted: bool, tmp_path: Path) -> None:
    assert _chronica_accepts(owner) is accepted
    assert _chronomem_accepts(owner, tmp_path / "m.db") is accepted


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=260))
def test_no_owner_is_taken_by_one_and_refused_by_the_other(owner: str) -> None:
    # Checked without a file: ChronoMem's owner check runs before it opens one.
    try:
        ChronoMem(":memory:", owner=owner).close()
        by_chronomem = True
    except ChronoMemError:
        by_chronomem = False
    assert _chronica_accepts(owner) is by_chronomem
