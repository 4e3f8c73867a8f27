"""Chronicarius.record_acta: a batch passes every rule of record_actum, then is one write."""

from __future__ import annotations

import dataclasses

import pytest

from chronica import (
    Chronicarius,
    ChronicaTypeError,
    IdempotencyUnsupportedError,
    InvalidActumError,
    InvalidArgumentError,
)

from .spy import PlainStore, SpyStore
from .test_chronicarius import message


def test_a_batch_creates_the_chronicum_and_is_one_store_write() -> None:
    spy = SpyStore()
    stored = Chronicarius(spy).record_acta("ardian", [message("one"), message("two")])
    assert [a.content for a in stored] == ["one", "two"]
    assert len({a.id for a in stored}) == 2
    assert spy.writes == ["record_many", "create", "record_many"]
    assert Chronicarius(spy).get_acta("ardian", "dinner") == stored


def test_one_invalid_actum_stores_none_of_the_batch() -> None:
    spy = SpyStore()
    with pytest.raises(InvalidActumError):
        Chronicarius(spy).record_acta("ardian", [message("fine"), message("   ")])
    assert spy.writes == []


class _Text(str):
    """A str subclass that compares equal to a name that passed, but holds a NUL."""

    def __eq__(self, other: object) -> bool:
        return other == "ardian" or str.__eq__(self, other)

    def __hash__(self) -> int:
        return hash("ardian")


@pytest.mark.parametrize(
    "actor",
    ["", "a\x00b", 7, ["ardian"], _Text("ard\x00ian")],
    ids=["empty", "nul", "not-text", "unhashable", "a-str-subclass-equal-to-one-that-passed"],
)
def test_a_later_actum_of_a_batch_is_checked_whatever_the_earlier_ones_passed(
    actor: object,
) -> None:
    spy = SpyStore()
    bad = dataclasses.replace(message("two"), actor=actor)  # type: ignore[arg-type]
    with pytest.raises((InvalidActumError, ChronicaTypeError)):
        Chronicarius(spy).record_acta("ardian", [message("one"), bad])
    assert spy.writes == []


def test_keys_make_a_retried_batch_store_nothing_twice() -> None:
    chronicarius = Chronicarius(SpyStore())
    first = chronicarius.record_acta("ardian", [message("one")], idempotency_keys=["k1"])
    again = chronicarius.record_acta(
        "ardian", [message("one"), message("two")], idempotency_keys=["k1", "k2"]
    )
    assert again[0] == first[0]
    assert chronicarius.get_acta("ardian", "dinner") == again


def test_keys_must_match_the_acta_one_for_one() -> None:
    with pytest.raises(InvalidArgumentError, match="idempotency_keys"):
        Chronicarius(SpyStore()).record_acta("ardian", [message()], idempotency_keys=["a", "b"])


def test_a_batch_belongs_to_one_chronicum() -> None:
    other = dataclasses.replace(message(), chronicum_id="lunch")
    with pytest.raises(InvalidArgumentError, match="one chronicum"):
        Chronicarius(SpyStore()).record_acta("ardian", [message(), other])


def test_an_empty_batch_writes_nothing() -> None:
    spy = SpyStore()
    assert Chronicarius(spy).record_acta("ardian", []) == []
    assert spy.writes == []


def test_a_store_without_batches_gets_one_record_per_actum() -> None:
    plain = PlainStore()
    stored = Chronicarius(plain).record_acta("ardian", [message("one"), message("two")])
    assert [a.content for a in stored] == ["one", "two"]
    assert plain.calls.count("record") >= 2
    with pytest.raises(IdempotencyUnsupportedError):
        Chronicarius(plain).record_acta("ardian", [message()], idempotency_keys=["k"])
