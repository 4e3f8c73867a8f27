"""The one way exported acta come back: each record checked as a live write is, then one write.

An import brings acta with the IDs chronica minted and the times a store stamped back then,
so it cannot go through :meth:`chronica.Chronicarius.record_actum`, which mints and stamps
afresh. Letting a store take them unchecked was a side door past every rule (NUL content,
3 MB content, an ``"id": 5``). So the policy lives here: every chronicum and actum passes the
rules of a live write (:mod:`chronica._validation`), and the batch as a whole must hang
together (each actum's chronicum in the batch, no ID twice, all one owner's) before the
store writes any of it, in a single transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from . import _validation as check
from ._errors import ChronicaError, ChronicaTypeError, InvalidArgumentError
from ._model import Actum, Chronicum

__all__ = ["RestoreBatch", "checked_batch"]

T = TypeVar("T")


@dataclass(frozen=True)
class RestoreBatch:
    """Chronica and acta that passed every check, normalised (UTC times, frozen metadata)."""

    owner_id: str
    chronica: tuple[Chronicum, ...]
    acta: tuple[Actum, ...]


def checked_batch(
    owner_id: object, chronica: Iterable[object], acta: Iterable[object]
) -> RestoreBatch:
    """Check a whole import for ``owner_id``; raise the first problem, naming the record.

    Raises what a live write would (:class:`chronica.InvalidActumError`,
    :class:`chronica.ChronicaTypeError`, ...) for a bad record, and
    :class:`chronica.InvalidArgumentError` for a batch that does not hang together.
    """
    owner = check.check_owner(owner_id)
    checked_chronica: dict[str, Chronicum] = {}
    for i, chronicum in enumerate(_listed("chronica", chronica)):
        checked = _naming(f"chronica[{i}]", _checked_chronicum, owner, chronicum)
        if checked.id in checked_chronica:
            raise InvalidArgumentError("chronica", f"chronicum {checked.id!r} appears twice")
        checked_chronica[checked.id] = checked
    checked_acta: list[Actum] = []
    seen: set[str] = set()
    for i, actum in enumerate(_listed("acta", acta)):
        restored = _naming(f"acta[{i}]", check.restorable_actum, actum)
        if restored.chronicum_id not in checked_chronica:
            raise InvalidArgumentError(
                "acta",
                f"actum {restored.id!r} belongs to {restored.chronicum_id!r}, "
                "which is not among the chronica restored with it",
            )
        if restored.id in seen:
            raise InvalidArgumentError("acta", f"actum {restored.id!r} appears twice")
        seen.add(restored.id)
        checked_acta.append(restored)
    return RestoreBatch(owner, tuple(checked_chronica.values()), tuple(checked_acta))


def _listed(field: str, items: Iterable[object]) -> list[object]:
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise ChronicaTypeError(field, "an iterable of records", items)
    return list(items)


def _checked_chronicum(owner_id: str, chronicum: object) -> Chronicum:
    if not isinstance(chronicum, Chronicum):
        raise ChronicaTypeError("chronicum", "a Chronicum", chronicum)
    chronicum_id = check.check_chronicum_id(chronicum.id)
    if chronicum.owner_id != owner_id:
        # Restoring into someone else's namespace would be writing as them.
        raise InvalidArgumentError(
            "chronicum.owner_id", f"is {chronicum.owner_id!r}, not the restoring owner"
        )
    created_at = check.check_moment("created_at", chronicum.created_at, InvalidArgumentError)
    return Chronicum(id=chronicum_id, owner_id=owner_id, created_at=created_at)


def _naming(position: str, check_one: Callable[..., T], *args: object) -> T:
    """Run one record's check; on failure, say which record it was (same error type)."""
    try:
        return check_one(*args)
    except ChronicaError as e:
        e.args = (f"{position}: {e}",)
        raise
