"""Chronicarius's rules, proven against a spy store that logs every call."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from chronica import (
    MAX_CONTENT_BYTES,
    ActorKind,
    Actum,
    ActumKind,
    ChronicaError,
    Chronicarius,
    ChronicaTypeError,
    ChronicumNotFoundError,
    EmptyOwnerIDError,
    IdempotencyUnsupportedError,
    InvalidActumError,
    InvalidArgumentError,
)
from chronica.storeconformance import run_together

from .spy import PlainStore, SpyStore

UUID7 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def message(content: str = "A quiet table for four, please.", **changes: Any) -> Actum:
    actum = Actum(
        chronicum_id="dinner",
        kind=ActumKind.MESSAGE,
        actor_kind=ActorKind.HUMAN,
        actor="ardian",
        content=content,
    )
    return dataclasses.replace(actum, **changes)


@pytest.fixture
def spy() -> SpyStore:
    return SpyStore()


@pytest.fixture
def chronicarius(spy: SpyStore) -> Chronicarius:
    return Chronicarius(spy)


def test_first_write_creates_the_chronicum_bound_to_the_owner(chronicarius: Chronicarius) -> None:
    stored = chronicarius.record_actum("ardian", message())
    chronicum = chronicarius.get_chronicum("ardian", "dinner")
    assert chronicum.owner_id == "ardian"
    assert chronicarius.get_acta("ardian", "dinner") == [stored]


def test_chronica_assigns_a_time_ordered_id_replacing_the_callers(
    chronicarius: Chronicarius,
) -> None:
    first = chronicarius.record_actum("ardian", message(id="forged", at=None))
    second = chronicarius.record_actum("ardian", message(id="forged"))
    assert first.id != "forged"
    assert second.id != "forged"
    assert UUID7.match(first.id)
    assert UUID7.match(second.id)
    assert first.id < second.id


def test_the_store_stamps_at_and_a_callers_at_is_ignored(chronicarius: Chronicarius) -> None:
    from datetime import datetime, timezone

    long_ago = datetime(2001, 1, 1, tzinfo=timezone.utc)
    stored = chronicarius.record_actum("ardian", message(at=long_ago))
    assert stored.at is not None
    assert stored.at.year > 2001


def test_kind_strings_are_normalised_to_enums(chronicarius: Chronicarius) -> None:
    stored = chronicarius.record_actum(
        "ardian",
        message(kind="thought", actor_kind="agent"),
    )
    assert stored.kind is ActumKind.THOUGHT
    assert stored.actor_kind is ActorKind.AGENT


@pytest.mark.parametrize("kind", [ActumKind.TOOL_REQUEST, ActumKind.TOOL_RESPONSE])
def test_tool_acta_may_be_empty(chronicarius: Chronicarius, kind: ActumKind) -> None:
    stored = chronicarius.record_actum("ardian", message("", kind=kind))
    assert stored.content == ""


def test_foreign_owner_gets_exactly_what_a_missing_chronicum_gets(
    chronicarius: Chronicarius, spy: SpyStore
) -> None:
    chronicarius.record_actum("ardian", message())
    outcomes = []
    for chronicum_id in ("dinner", "no-such-chronicum"):
        spy.calls.clear()
        errors = []
        for read in (chronicarius.get_acta, chronicarius.get_chronicum):
            with pytest.raises(ChronicumNotFoundError) as info:
                read("mallory", chronicum_id)
            errors.append((type(info.value), str(info.value).replace(chronicum_id, "<id>")))
        outcomes.append((errors, list(spy.calls)))  # the same store calls, too
        assert spy.writes == []
    assert outcomes[0] == outcomes[1]
    assert len(chronicarius.get_acta("ardian", "dinner")) == 1


def test_chronicum_ids_are_scoped_by_owner(chronicarius: Chronicarius) -> None:
    alices = chronicarius.record_actum("alice", message("Sushi?", chronicum_id="lunch-monday"))
    # Bob's first write to the same name creates his own chronicum: nothing tells him that
    # Alice has one, and nothing he writes reaches hers.
    bobs = chronicarius.record_actum(
        "bob", message("Tacos.", chronicum_id="lunch-monday"), idempotency_key="k"
    )
    assert chronicarius.get_acta("alice", "lunch-monday") == [alices]
    assert chronicarius.get_acta("bob", "lunch-monday") == [bobs]
    assert chronicarius.get_chronicum("alice", "lunch-monday").owner_id == "alice"
    assert chronicarius.get_chronicum("bob", "lunch-monday").owner_id == "bob"
    again = chronicarius.record_actum(
        "alice", message("Sushi!", chronicum_id="lunch-monday"), idempotency_key="k"
    )
    assert again.id != bobs.id  # keys are the owner's too


def test_a_taken_name_and_a_free_one_look_the_same_to_a_newcomer(
    chronicarius: Chronicarius, spy: SpyStore
) -> None:
    chronicarius.record_actum("alice", message(chronicum_id="lunch-monday"))
    seen = []
    for chronicum_id in ("lunch-monday", "never-used"):
        spy.calls.clear()
        stored = chronicarius.record_actum("bob", message(chronicum_id=chronicum_id))
        window = chronicarius.get_acta("bob", chronicum_id)
        seen.append((list(spy.calls), window == [stored]))
    assert seen[0] == seen[1]


def test_a_foreign_owners_write_to_a_missing_chronicum_claims_it(
    chronicarius: Chronicarius,
) -> None:
    chronicarius.record_actum("mallory", message(chronicum_id="new"))
    with pytest.raises(ChronicumNotFoundError):
        chronicarius.get_acta("ardian", "new")


def _race_two_owners(chronicarius: Chronicarius, cid: str) -> list[Actum]:
    def write(i: int) -> Actum:
        return chronicarius.record_actum(("alice", "bob")[i % 2], message(chronicum_id=cid))

    return run_together(8, write)


def test_racing_first_writes_give_each_owner_one_chronicum_of_their_own() -> None:
    for attempt in range(20):
        chronicarius = Chronicarius(SpyStore())
        cid = f"race-{attempt}"
        assert len(_race_two_owners(chronicarius, cid)) == 8
        for owner in ("alice", "bob"):
            assert chronicarius.get_chronicum(owner, cid).owner_id == owner
            assert len(chronicarius.get_acta(owner, cid)) == 4


def test_an_idempotent_retry_returns_the_first_actum(chronicarius: Chronicarius) -> None:
    first = chronicarius.record_actum("ardian", message("Booked for 7pm."), idempotency_key="t3")
    retry = chronicarius.record_actum("ardian", message("I have booked 7pm."), idempotency_key="t3")
    assert retry == first
    assert chronicarius.get_acta("ardian", "dinner") == [first]


def test_a_key_for_a_plain_store_fails_before_the_chronicum_is_created() -> None:
    plain = PlainStore()
    chronicarius = Chronicarius(plain)
    with pytest.raises(IdempotencyUnsupportedError):
        chronicarius.record_actum("ardian", message(), idempotency_key="k")
    assert plain.calls == []
    chronicarius.record_actum("ardian", message())  # a plain store still works without keys
    assert plain.calls[-1] == "record"


def test_get_acta_filters_before_the_limit(chronicarius: Chronicarius) -> None:
    human = chronicarius.record_actum("ardian", message("find a table"))
    chronicarius.record_actum(
        "ardian", message("plan", kind=ActumKind.THOUGHT, actor_kind=ActorKind.AGENT)
    )
    reply = chronicarius.record_actum(
        "ardian", message("found three", actor_kind=ActorKind.AGENT, actor="search")
    )
    chronicarius.record_actum(
        "ardian", message("check", kind=ActumKind.THOUGHT, actor_kind=ActorKind.AGENT)
    )
    window = chronicarius.get_acta(
        "ardian",
        "dinner",
        last_n=2,
        actum_kinds=["message"],
        actor_kinds=[ActorKind.HUMAN, "agent"],
    )
    assert window == [human, reply]


# --- bad input: a clear error naming the field, and nothing reaches the store ------------

BAD_ACTA: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"content": ""}, InvalidActumError, "content"),
    ({"content": "   \n\t"}, InvalidActumError, "content"),
    ({"kind": ActumKind.THOUGHT, "content": ""}, InvalidActumError, "content"),
    ({"content": 42}, ChronicaTypeError, "content"),
    ({"content": None}, ChronicaTypeError, "content"),
    ({"content": b"bytes"}, ChronicaTypeError, "content"),
    ({"content": "nul\x00byte"}, InvalidActumError, "content"),
    ({"content": "lone \ud800 surrogate"}, InvalidActumError, "content"),
    ({"content": "x" * (MAX_CONTENT_BYTES + 1)}, InvalidActumError, "content"),
    ({"content": "é" * (MAX_CONTENT_BYTES // 2 + 1)}, InvalidActumError, "content"),
    ({"kind": "shout"}, InvalidActumError, "kind"),
    ({"kind": 1}, ChronicaTypeError, "kind"),
    ({"kind": "MESSAGE"}, InvalidActumError, "kind"),
    ({"actor_kind": "robot"}, InvalidActumError, "actor_kind"),
    ({"actor_kind": None}, ChronicaTypeError, "actor_kind"),
    ({"actor": ""}, InvalidActumError, "actor"),
    ({"actor": " "}, InvalidActumError, "actor"),
    ({"actor": 7}, ChronicaTypeError, "actor"),
    ({"actor": "a" * 257}, InvalidActumError, "actor"),
    ({"chronicum_id": ""}, InvalidActumError, "chronicum_id"),
    ({"chronicum_id": "\t"}, InvalidActumError, "chronicum_id"),
    ({"chronicum_id": None}, ChronicaTypeError, "chronicum_id"),
    ({"chronicum_id": "a\x00b"}, InvalidActumError, "chronicum_id"),
    ({"metadata": {"when": object()}}, InvalidActumError, "metadata"),
    ({"metadata": {"nan": float("nan")}}, InvalidActumError, "metadata"),
    ({"metadata": {1: "int key"}}, InvalidActumError, "metadata"),
    ({"metadata": {"k": "nul\x00"}}, InvalidActumError, "metadata"),
    ({"metadata": {"k": "\udfff"}}, InvalidActumError, "metadata"),
    ({"metadata": {"big": "x" * 70_000}}, InvalidActumError, "metadata"),
    ({"metadata": ["not", "a", "mapping"]}, ChronicaTypeError, "metadata"),
]


@pytest.mark.parametrize(("changes", "error", "field"), BAD_ACTA)
def test_an_invalid_actum_never_reaches_the_store(
    chronicarius: Chronicarius,
    spy: SpyStore,
    changes: dict[str, Any],
    error: type[Exception],
    field: str,
) -> None:
    with pytest.raises(error) as info:
        chronicarius.record_actum("ardian", message(**changes))
    assert isinstance(info.value, ChronicaError)
    assert field in str(info.value)
    assert getattr(info.value, "field", "").endswith(field)
    assert spy.calls == []


@pytest.mark.parametrize(
    ("owner", "error"),
    [
        ("", EmptyOwnerIDError),
        ("  ", EmptyOwnerIDError),
        (None, ChronicaTypeError),
        (12, ChronicaTypeError),
        ("o" * 257, InvalidArgumentError),
        ("a\x00", InvalidArgumentError),
    ],
)
def test_a_bad_owner_is_refused_on_every_method(
    chronicarius: Chronicarius, spy: SpyStore, owner: Any, error: type[Exception]
) -> None:
    for call in (
        lambda: chronicarius.record_actum(owner, message()),
        lambda: chronicarius.get_acta(owner, "dinner"),
        lambda: chronicarius.get_chronicum(owner, "dinner"),
    ):
        with pytest.raises(error) as info:
            call()
        assert isinstance(info.value, ChronicaError)
    assert spy.calls == []


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"last_n": "20"}, ChronicaTypeError),
        ({"last_n": True}, ChronicaTypeError),
        ({"last_n": 2.5}, ChronicaTypeError),
        ({"last_n": 2**63}, InvalidArgumentError),
        ({"actum_kinds": "message"}, ChronicaTypeError),
        ({"actum_kinds": ["message", "shout"]}, InvalidArgumentError),
        ({"actor_kinds": [3]}, ChronicaTypeError),
    ],
)
def test_bad_window_arguments_are_refused(
    chronicarius: Chronicarius, spy: SpyStore, kwargs: dict[str, Any], error: type[Exception]
) -> None:
    chronicarius.record_actum("ardian", message())
    spy.calls.clear()
    with pytest.raises(error):
        chronicarius.get_acta("ardian", "dinner", **kwargs)
    assert spy.calls == []


@pytest.mark.parametrize("key", ["", " ", 5, "k" * 257, "k\x00"])
def test_a_bad_idempotency_key_is_refused(
    chronicarius: Chronicarius, spy: SpyStore, key: Any
) -> None:
    with pytest.raises(ChronicaError, match="idempotency_key"):
        chronicarius.record_actum("ardian", message(), idempotency_key=key)
    assert spy.calls == []


def test_not_an_actum_is_refused(chronicarius: Chronicarius, spy: SpyStore) -> None:
    with pytest.raises(ChronicaTypeError, match="actum"):
        chronicarius.record_actum("ardian", {"content": "hi"})  # type: ignore[arg-type]  # on purpose
    assert spy.calls == []


def test_a_non_store_is_refused() -> None:
    with pytest.raises(TypeError, match="Store"):
        Chronicarius(object())  # type: ignore[arg-type]  # on purpose


def test_every_public_error_is_a_chronica_error() -> None:
    import chronica

    errors = [
        getattr(chronica, name)
        for name in chronica.__all__
        if isinstance(getattr(chronica, name), type)
        and issubclass(getattr(chronica, name), BaseException)
    ]
    assert len(errors) >= 7
    assert all(issubclass(error, ChronicaError) for error in errors)


def test_metadata_is_copied_not_shared(chronicarius: Chronicarius) -> None:
    meta: dict[str, Any] = {"tool": "search", "args": {"q": "Kemang"}}
    stored = chronicarius.record_actum(
        "ardian", message("", kind=ActumKind.TOOL_REQUEST, metadata=meta)
    )
    meta["args"]["q"] = "changed"
    assert stored.metadata == {"tool": "search", "args": {"q": "Kemang"}}
