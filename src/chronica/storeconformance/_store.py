"""The base store contract: what every :class:`chronica.store.Store` must do."""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any, ClassVar

import pytest

from chronica._errors import ChronicumNotFoundError, DuplicateActumError
from chronica._ids import new_actum_id
from chronica._model import ActorKind, ActumKind, Chronicum
from chronica.store import Store

from ._base import (
    MUTATIONS,
    ContractBase,
    OwnerView,
    ids,
    make_actum,
    run_together,
    strip_at,
    subsets,
    with_id,
)

__all__ = ["StoreContract"]


class StoreContract(ContractBase):
    """The base contract every :class:`chronica.store.Store` must meet."""

    CONCURRENT_WRITERS: ClassVar[int] = 40
    ACTA_PER_WRITER: ClassVar[int] = 25

    def test_create_returns_the_chronicum_bound_to_its_owner(self, store: Store) -> None:
        created = store.create("c-create", owner_id="alice")
        assert isinstance(created, Chronicum)
        assert (created.id, created.owner_id) == ("c-create", "alice")
        assert created.created_at.tzinfo is not None
        assert store.get("c-create", owner_id="alice") == created

    def test_create_of_an_existing_chronicum_returns_the_first(self, mine: OwnerView) -> None:
        first = mine.create("c-twice")
        assert mine.create("c-twice") == first

    def test_racing_creates_by_one_owner_leave_one_chronicum(self, mine: OwnerView) -> None:
        results = run_together(self.CONCURRENT_WRITERS, lambda i: mine.create("c-race"))
        assert len({(c.id, c.owner_id, c.created_at) for c in results}) == 1
        assert mine.get("c-race") == results[0]

    def test_each_owner_has_a_namespace_of_their_own(self, store: Store) -> None:
        alice, bob = OwnerView(store, "alice"), OwnerView(store, "bob")
        hers, his = alice.create("lunch-monday"), bob.create("lunch-monday")
        assert (hers.owner_id, his.owner_id) == ("alice", "bob")
        said = alice.record(make_actum("lunch-monday", "Sushi at noon?"))
        assert bob.acta("lunch-monday") == []
        replied = bob.record(make_actum("lunch-monday", "Tacos at one."))
        assert alice.acta("lunch-monday") == [said]
        assert bob.acta("lunch-monday") == [replied]
        assert (alice.get("lunch-monday"), bob.get("lunch-monday")) == (hers, his)

    def test_racing_creates_by_many_owners_give_each_their_own(self, store: Store) -> None:
        owners = [f"owner-{i}" for i in range(self.CONCURRENT_WRITERS)]
        results = run_together(len(owners), lambda i: store.create("c-race", owner_id=owners[i]))
        assert [c.owner_id for c in results] == owners
        for owner, created in zip(owners, results, strict=True):
            assert store.get("c-race", owner_id=owner) == created

    def test_another_owners_chronicum_is_exactly_a_missing_one(self, store: Store) -> None:
        alice, mallory = OwnerView(store, "alice"), OwnerView(store, "mallory")
        alice.create("diary")
        said = alice.record(make_actum("diary", "private"))
        for chronicum_id in ("diary", "c-missing"):
            with pytest.raises(ChronicumNotFoundError):
                mallory.get(chronicum_id)
            with pytest.raises(ChronicumNotFoundError):
                mallory.acta(chronicum_id)
            with pytest.raises(ChronicumNotFoundError):
                mallory.record(make_actum(chronicum_id, "let me in"))
        assert alice.acta("diary") == [said]

    def test_an_actum_id_is_stored_once_in_the_whole_store(self, store: Store) -> None:
        alice, bob = OwnerView(store, "alice"), OwnerView(store, "bob")
        alice.create("a")
        bob.create("b")
        first = alice.record(make_actum("a", "first"))
        for view, chronicum_id in ((alice, "a"), (bob, "b")):
            with pytest.raises(DuplicateActumError):
                view.record(with_id(make_actum(chronicum_id, "forged"), first.id))
        assert alice.acta("a") == [first]
        assert bob.acta("b") == []

    def test_get_of_a_missing_chronicum_is_not_found(self, mine: OwnerView) -> None:
        with pytest.raises(ChronicumNotFoundError):
            mine.get("c-missing")

    def test_record_into_a_missing_chronicum_is_not_found(self, mine: OwnerView) -> None:
        with pytest.raises(ChronicumNotFoundError):
            mine.record(make_actum("c-missing"))
        with pytest.raises(ChronicumNotFoundError):
            mine.get("c-missing")

    def test_acta_of_a_missing_chronicum_is_not_found(self, mine: OwnerView) -> None:
        with pytest.raises(ChronicumNotFoundError):
            mine.acta("c-missing")

    def test_new_chronicum_has_no_acta(self, mine: OwnerView) -> None:
        assert mine.acta(self.new_chronicum(mine)) == []

    def test_record_stamps_a_timezone_aware_at_and_keeps_every_field(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        sent = make_actum(
            cid,
            "call search",
            kind=ActumKind.TOOL_REQUEST,
            metadata={"tool": "search", "call_id": "c1", "args": {"q": "Kemang", "n": 4}},
        )
        before = datetime.now().astimezone()
        stored = mine.record(sent)
        assert stored.at is not None
        assert stored.at.tzinfo is not None
        assert stored.at.utcoffset() is not None
        assert abs((stored.at - before).total_seconds()) < 60
        assert strip_at(stored) == strip_at(sent)
        assert mine.acta(cid) == [stored]

    def test_a_recorded_actum_cannot_change_under_its_readers(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        sent: dict[str, Any] = {"tool": "search", "args": {"q": "Kemang", "seats": [4]}}
        expected = {"tool": "search", "args": {"q": "Kemang", "seats": [4]}}
        stored = mine.record(make_actum(cid, metadata=sent))
        sent["args"]["seats"].append(6)  # the caller's own objects stay theirs
        sent["tool"] = "changed"
        for held in (stored, mine.acta(cid)[0]):
            for mutate in MUTATIONS:
                with contextlib.suppress(TypeError):  # frozen metadata refuses: also fine
                    mutate(held.metadata)
        assert stored.metadata == expected
        assert mine.acta(cid)[0].metadata == expected

    def test_text_round_trips_exactly(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        texts = [
            "",
            " ",
            "Kemang 🍜",
            "ئاوازی عەرەبی",
            "e\u0301 vs é",
            "line\nbreak\ttab",
            "💡" * 500,
        ]
        for text in texts:
            mine.record(make_actum(cid, text, kind=ActumKind.TOOL_RESPONSE))
        assert [actum.content for actum in mine.acta(cid)] == texts

    def test_insertion_order_holds_across_a_thousand_acta(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        sent = [mine.record(make_actum(cid, f"actum {i}")) for i in range(1000)]
        assert ids(mine.acta(cid)) == ids(sent)
        assert ids(mine.acta(cid, last_n=10)) == ids(sent[-10:])

    def test_order_is_recording_order_not_id_order(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        later_id, earlier_id = new_actum_id(), new_actum_id()
        first = mine.record(with_id(make_actum(cid, "first"), earlier_id))
        second = mine.record(with_id(make_actum(cid, "second"), later_id))
        assert ids(mine.acta(cid)) == [first.id, second.id]

    def test_chronica_are_isolated(self, mine: OwnerView) -> None:
        a, b = self.new_chronicum(mine, "a"), self.new_chronicum(mine, "b")
        in_a = [mine.record(make_actum(a, f"a{i}")) for i in range(3)]
        in_b = [mine.record(make_actum(b, f"b{i}")) for i in range(2)]
        assert ids(mine.acta(a)) == ids(in_a)
        assert ids(mine.acta(b)) == ids(in_b)

    def test_concurrent_appends_keep_every_writers_order(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        per_writer = self.ACTA_PER_WRITER

        def write(writer: int) -> list[str]:
            return [
                mine.record(make_actum(cid, f"{writer}:{i}", actor=f"w{writer}")).id
                for i in range(per_writer)
            ]

        written = run_together(self.CONCURRENT_WRITERS, write)
        stored = mine.acta(cid)
        assert len(stored) == self.CONCURRENT_WRITERS * per_writer
        assert len(set(ids(stored))) == len(stored)
        for writer, written_ids in enumerate(written):
            theirs = [a.id for a in stored if a.actor == f"w{writer}"]
            assert theirs == written_ids, f"writer {writer}'s acta came back out of order"

    def test_last_n_zero_or_negative_means_no_limit(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        sent = [mine.record(make_actum(cid, str(i))) for i in range(5)]
        assert ids(mine.acta(cid, last_n=0)) == ids(sent)
        assert ids(mine.acta(cid, last_n=-3)) == ids(sent)
        assert ids(mine.acta(cid, last_n=99)) == ids(sent)

    def test_filters_run_before_the_limit_in_every_combination(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        kinds, actors = list(ActumKind), list(ActorKind)
        sent = [
            mine.record(
                make_actum(cid, f"n{i}", kind=kinds[i % 4], actor_kind=actors[(i // 4) % 3])
            )
            for i in range(36)
        ]
        for kind_filter in subsets(kinds):
            for actor_filter in subsets(actors):
                passing = [
                    a
                    for a in sent
                    if (not kind_filter or a.kind in kind_filter)
                    and (not actor_filter or a.actor_kind in actor_filter)
                ]
                for last_n in (0, 1, 2, 5, 100):
                    expected = passing[-last_n:] if last_n else passing
                    got = mine.acta(
                        cid,
                        last_n=last_n,
                        actum_kinds=kind_filter or None,
                        actor_kinds=actor_filter or None,
                    )
                    assert ids(got) == ids(expected), (kind_filter, actor_filter, last_n)

    def test_empty_filters_pass_every_kind(self, mine: OwnerView) -> None:
        cid = self.new_chronicum(mine)
        sent = [mine.record(make_actum(cid, "x", kind=kind)) for kind in ActumKind]
        assert ids(mine.acta(cid, actum_kinds=[], actor_kinds=[])) == ids(sent)
