"""Random interleavings of writes and reads across owners: no leak, no reordering.

Hypothesis drives a model-based state machine: a plain-Python model predicts what every
call must return, and the real Chronicarius (on each store subclassed at the bottom) must agree.
Owners share a few chronicum names on purpose: each owner's chronicum of a name is their own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    Chronicarius,
    ChronicumNotFoundError,
    Store,
)
from chronica.stores.inmemory import InMemoryStore

owners = st.sampled_from(["ardian", "bea", "chen"])
chronica_ids = st.sampled_from(["dinner", "trip", "gift"])
kinds = st.sampled_from(list(ActumKind))
actor_kinds = st.sampled_from(list(ActorKind))
keys = st.one_of(st.none(), st.sampled_from(["k1", "k2", "k3"]))
kind_filters = st.one_of(st.none(), st.sets(kinds, max_size=4).map(sorted))
actor_filters = st.one_of(st.none(), st.sets(actor_kinds, max_size=3).map(sorted))


Key = tuple[str, str]  # (owner, chronicum ID): the key of a chronicum


@dataclasses.dataclass
class _Model:
    created: set[Key] = dataclasses.field(default_factory=set)
    acta: dict[Key, list[Actum]] = dataclasses.field(default_factory=dict)
    keyed: dict[tuple[str, str, str], Actum] = dataclasses.field(default_factory=dict)


class ChronicaMachine(RuleBasedStateMachine):
    """Subclassed once per store below, each naming its ``make_store``."""

    make_store: Callable[[], Store]

    def __init__(self) -> None:
        super().__init__()
        self.chronicarius = Chronicarius(type(self).make_store())
        self.model = _Model()

    @rule(owner=owners, cid=chronica_ids, kind=kinds, actor_kind=actor_kinds, key=keys)
    def record(
        self, owner: str, cid: str, kind: ActumKind, actor_kind: ActorKind, key: str | None
    ) -> None:
        actum = Actum(
            chronicum_id=cid, kind=kind, actor_kind=actor_kind, actor=owner, content=f"by {owner}"
        )
        stored = self.chronicarius.record_actum(owner, actum, idempotency_key=key)
        self.model.created.add((owner, cid))
        if key is not None and (owner, cid, key) in self.model.keyed:
            assert stored == self.model.keyed[(owner, cid, key)]
            return
        self.model.acta.setdefault((owner, cid), []).append(stored)
        if key is not None:
            self.model.keyed[(owner, cid, key)] = stored

    @rule(
        owner=owners,
        cid=chronica_ids,
        last_n=st.integers(-2, 6),
        kind_filter=kind_filters,
        actor_filter=actor_filters,
    )
    def read(
        self,
        owner: str,
        cid: str,
        last_n: int,
        kind_filter: list[ActumKind] | None,
        actor_filter: list[ActorKind] | None,
    ) -> None:
        if (owner, cid) not in self.model.created:
            try:
                self.chronicarius.get_acta(owner, cid)
            except ChronicumNotFoundError:
                return
            raise AssertionError(f"{owner} read a chronicum they never wrote to: {cid}")
        passing = [
            a
            for a in self.model.acta.get((owner, cid), [])
            if (not kind_filter or a.kind in kind_filter)
            and (not actor_filter or a.actor_kind in actor_filter)
        ]
        expected = passing[-last_n:] if last_n > 0 else passing
        got = self.chronicarius.get_acta(
            owner, cid, last_n=last_n, actum_kinds=kind_filter, actor_kinds=actor_filter
        )
        assert [a.id for a in got] == [a.id for a in expected]

    @invariant()
    def every_chronicum_answers_only_its_owner(self) -> None:
        for owner in ("ardian", "bea", "chen"):
            for cid in ("dinner", "trip", "gift"):
                if (owner, cid) in self.model.created:
                    assert self.chronicarius.get_chronicum(owner, cid).owner_id == owner
                    continue
                try:
                    self.chronicarius.get_chronicum(owner, cid)
                except ChronicumNotFoundError:
                    continue
                raise AssertionError(f"{owner} saw a chronicum {cid} they never made")


_SETTINGS = settings(max_examples=60, stateful_step_count=30, deadline=None)


class InMemoryInterleavings(ChronicaMachine):
    make_store = staticmethod(InMemoryStore)


TestInMemoryInterleavings = _SETTINGS(InMemoryInterleavings).TestCase
