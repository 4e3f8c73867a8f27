"""Paging through chronica and acta, for stores that are :class:`chronica.BrowsableStore`.

The window a page is cut from is :meth:`chronica.Store.acta`'s for the same filters and
``last_n``, so most tests page through a window and compare what they gathered with what
``acta`` answers: the two readers of one chronicum must never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from chronica._errors import ChronicumNotFoundError
from chronica._model import ActaPage, ActorKind, Actum, ActumKind
from chronica.store import BrowsableStore

from ._base import OWNER, ContractBase, OwnerView, ids, make_actum

__all__ = ["BrowsableStoreContract"]


def _mixed(view: OwnerView, chronicum_id: str, n: int) -> list[Actum]:
    """``n`` acta of every kind and actor kind, in a fixed rotation."""
    kinds, actors = list(ActumKind), list(ActorKind)
    return [
        view.record(
            make_actum(
                chronicum_id,
                f"actum {i}",
                kind=kinds[i % len(kinds)],
                actor_kind=actors[i % len(actors)],
            )
        )
        for i in range(n)
    ]


@dataclass(frozen=True)
class _Window:
    """The arguments that choose a window, as :meth:`chronica.Store.acta` takes them."""

    actum_kinds: Sequence[ActumKind] | None = None
    actor_kinds: Sequence[ActorKind] | None = None
    last_n: int = 0

    def acta(self, view: OwnerView, chronicum_id: str) -> list[Actum]:
        return view.acta(
            chronicum_id,
            actum_kinds=self.actum_kinds,
            actor_kinds=self.actor_kinds,
            last_n=self.last_n,
        )

    def page(
        self,
        store: BrowsableStore,
        chronicum_id: str,
        *,
        limit: int,
        before: int | None = None,
        after: int | None = None,
    ) -> ActaPage:
        return store.acta_page(
            chronicum_id,
            owner_id=OWNER,
            limit=limit,
            before=before,
            after=after,
            actum_kinds=self.actum_kinds,
            actor_kinds=self.actor_kinds,
            last_n=self.last_n,
        )


_WHOLE = _Window()


def _scroll_back(
    store: BrowsableStore, chronicum_id: str, limit: int, window: _Window = _WHOLE
) -> list[Actum]:
    """Every actum of a window, gathered a page at a time from the newest backwards."""
    gathered: list[Actum] = []
    before = None
    while True:
        page = window.page(store, chronicum_id, limit=limit, before=before)
        gathered[:0] = [entry.actum for entry in page.entries]
        if not page.more_before:
            return gathered
        before = page.entries[0].position


def _follow(
    store: BrowsableStore, chronicum_id: str, limit: int, window: _Window = _WHOLE
) -> list[Actum]:
    """Every actum of a window, gathered a page at a time from the oldest forwards."""
    gathered: list[Actum] = []
    after = 0
    while True:
        page = window.page(store, chronicum_id, limit=limit, after=after)
        gathered.extend(entry.actum for entry in page.entries)
        if not page.more_after:
            return gathered
        after = page.entries[-1].position


class BrowsableStoreContract(ContractBase):
    """Browsing: see :class:`chronica.BrowsableStore`."""

    def test_store_is_a_browsable_store(self, store: BrowsableStore) -> None:
        assert isinstance(store, BrowsableStore)

    def test_chronica_come_newest_first_a_page_at_a_time(
        self, store: BrowsableStore, mine: OwnerView
    ) -> None:
        made = [mine.create(f"c{i}") for i in range(5)]
        OwnerView(store, "someone-else").create("c9")
        page = store.chronica_page(owner_id=OWNER, offset=1, limit=3)
        assert [s.chronicum for s in page] == made[3:0:-1]
        everything = store.chronica_page(owner_id=OWNER, limit=100)
        assert [s.chronicum for s in everything] == made[::-1]
        assert store.chronica_page(owner_id=OWNER, offset=5, limit=3) == []
        assert store.chronica_page(owner_id="nobody", limit=3) == []

    def test_a_summary_counts_acta_and_knows_the_last_time(
        self, store: BrowsableStore, mine: OwnerView
    ) -> None:
        mine.create("empty")
        mine.create("busy")
        written = _mixed(mine, "busy", 7)
        busy, empty = store.chronica_page(owner_id=OWNER, limit=10)
        assert (busy.chronicum.id, busy.acta, busy.last_at) == ("busy", 7, written[-1].at)
        assert (empty.chronicum.id, empty.acta, empty.last_at) == ("empty", 0, None)

    def test_the_newest_page_and_scrolling_back_match_acta(
        self, store: BrowsableStore, mine: OwnerView
    ) -> None:
        chronicum_id = self.new_chronicum(mine)
        written = _mixed(mine, chronicum_id, 23)
        page = _WHOLE.page(store, chronicum_id, limit=5)
        assert [entry.actum for entry in page.entries] == written[-5:]
        assert [entry.position for entry in page.entries] == [19, 20, 21, 22, 23]
        assert (page.total, page.first_position, page.more_before, page.more_after) == (
            23, 0, True, False)  # fmt: skip
        assert _scroll_back(store, chronicum_id, 5) == written == mine.acta(chronicum_id)

    def test_following_a_chronicum_sees_what_is_added(
        self, store: BrowsableStore, mine: OwnerView
    ) -> None:
        chronicum_id = self.new_chronicum(mine)
        first = _mixed(mine, chronicum_id, 4)
        page = _WHOLE.page(store, chronicum_id, limit=10, after=0)
        assert [entry.actum for entry in page.entries] == first
        assert not page.more_after
        later = mine.record(make_actum(chronicum_id, "later"))
        page = _WHOLE.page(store, chronicum_id, limit=10, after=page.entries[-1].position)
        assert [entry.actum for entry in page.entries] == [later]
        assert _follow(store, chronicum_id, 2) == [*first, later]

    @pytest.mark.parametrize(
        ("actum_kinds", "actor_kinds", "last_n"),
        [
            ([ActumKind.MESSAGE], None, 0),
            (None, [ActorKind.HUMAN, ActorKind.AGENT], 0),
            ([ActumKind.THOUGHT, ActumKind.TOOL_REQUEST], [ActorKind.AGENT], 0),
            (None, None, 7),
            ([ActumKind.MESSAGE], None, 3),
            ([ActumKind.MESSAGE], None, 500),
        ],
    )
    def test_a_window_is_what_acta_answers_for_the_same_arguments(
        self,
        store: BrowsableStore,
        mine: OwnerView,
        actum_kinds: Sequence[ActumKind] | None,
        actor_kinds: Sequence[ActorKind] | None,
        last_n: int,
    ) -> None:
        chronicum_id = self.new_chronicum(mine)
        _mixed(mine, chronicum_id, 37)
        window = _Window(actum_kinds, actor_kinds, last_n)
        expected = window.acta(mine, chronicum_id)
        assert _scroll_back(store, chronicum_id, 4, window) == expected
        assert _follow(store, chronicum_id, 4, window) == expected
        page = window.page(store, chronicum_id, limit=2)
        assert page.total == len(expected)
        assert [entry.actum for entry in page.entries] == expected[-2:]

    def test_a_last_n_window_says_where_it_starts(
        self, store: BrowsableStore, mine: OwnerView
    ) -> None:
        chronicum_id = self.new_chronicum(mine)
        _mixed(mine, chronicum_id, 10)
        page = _Window(last_n=4).page(store, chronicum_id, limit=100)
        assert page.first_position == 7
        assert [entry.position for entry in page.entries] == [7, 8, 9, 10]
        assert _Window(last_n=40).page(store, chronicum_id, limit=100).first_position == 0

    def test_a_preview_cuts_content_and_says_so(
        self, store: BrowsableStore, mine: OwnerView
    ) -> None:
        chronicum_id = self.new_chronicum(mine)
        long = mine.record(make_actum(chronicum_id, "é" * 50))
        short = mine.record(make_actum(chronicum_id, "brief"))
        cut, whole = store.acta_page(
            chronicum_id, owner_id=OWNER, limit=10, preview_chars=10
        ).entries
        assert (cut.actum.content, cut.content_length, cut.truncated) == ("é" * 10, 50, True)
        assert cut.actum.id == long.id
        assert (whole.actum, whole.content_length, whole.truncated) == (short, 5, False)
        found = store.find_actum(long.id, owner_id=OWNER)
        assert found is not None
        assert (found.actum, found.position, found.truncated) == (long, 1, False)

    def test_an_actum_is_found_only_by_its_owner(
        self, store: BrowsableStore, mine: OwnerView
    ) -> None:
        mine.create("shared-name")
        actum = mine.record(make_actum("shared-name", "mine"))
        theirs = OwnerView(store, "alice")
        theirs.create("shared-name")
        assert store.find_actum(actum.id, owner_id="alice") is None
        assert store.find_actum("no-such-actum", owner_id=OWNER) is None
        with pytest.raises(ChronicumNotFoundError):
            store.acta_page("missing", owner_id=OWNER, limit=5)
        with pytest.raises(ChronicumNotFoundError):
            store.acta_page("shared-name", owner_id="bob", limit=5)
        assert store.acta_page("shared-name", owner_id="alice", limit=5).entries == ()

    def test_counts_are_the_owners(self, store: BrowsableStore, mine: OwnerView) -> None:
        for name, n in (("a", 3), ("b", 0), ("c", 5)):
            mine.create(name)
            _mixed(mine, name, n)
        theirs = OwnerView(store, "alice")
        theirs.create("a")
        theirs.record(make_actum("a"))
        counted = store.counts(owner_id=OWNER)
        assert (counted.chronica, counted.acta) == (3, 8)
        assert store.counts(owner_id="alice").acta == 1
        assert store.counts(owner_id="nobody").chronica == 0
        assert ids(mine.acta("c")) == ids(_scroll_back(store, "c", 2))
