"""``recall(..., where=...)``: conditions on an item's metadata, as a WHERE fragment.

The fragment joins the view's (:class:`~chronomem.recall.view.View`), so every channel applies
it inside its own SQL, before any limit: a filter never empties a page that a limit filled
with items it then dropped. The engines read JSON differently; each dialect says how to test
one metadata field (``Dialect.json_test``), and this module composes the tests.

A condition maps a field to a value (equal) or to operators: ``$eq``, ``$ne``, ``$gt``,
``$gte``, ``$lt``, ``$lte``, ``$in``, ``$nin``. A field is a top-level key, or a dotted path
into nested objects (``"trip.city"``). Values are JSON scalars: strings, numbers, booleans
and ``None`` (JSON null); equality is typed (``1`` never equals ``"1"`` or ``true``), the
orderings compare numbers with numbers and strings with strings. A missing field matches only
``$ne`` and ``$nin``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from chronomem._errors import InvalidArgumentError
from chronomem.engine.dialect import Dialect

__all__ = ["Scalar", "Test", "check_where", "where_sql"]

Scalar = str | int | float | bool | None

_TESTS = {"$eq": "=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}
_NEGATED = {"$ne": "$eq", "$nin": "$in"}
_MAX_TESTS = 32


class Test(NamedTuple):
    """One checked test: a field's path, an operator, its operand(s)."""

    path: tuple[str, ...]
    operator: str
    operand: Scalar | tuple[Scalar, ...]


def _scalar(field: str, value: object) -> Scalar:
    if value is None or isinstance(value, (str, bool, int, float)):
        if isinstance(value, float) and value != value:  # NaN
            raise InvalidArgumentError("where", f"{field}: NaN matches nothing")
        return value
    raise InvalidArgumentError("where", f"{field}: {value!r} is not a JSON scalar")


def _path(field: object) -> tuple[str, ...]:
    if not isinstance(field, str) or not field:
        raise InvalidArgumentError("where", f"a field must be a non-empty str, not {field!r}")
    parts = tuple(field.split("."))
    if any(not p or '"' in p or "\x00" in p for p in parts):
        raise InvalidArgumentError("where", f"{field!r}: empty part, quote or NUL in the path")
    return parts


def _tests(field: str, wanted: object) -> list[Test]:
    path = _path(field)
    if not isinstance(wanted, Mapping):
        return [Test(path, "$eq", _scalar(field, wanted))]
    found: list[Test] = []
    for operator, operand in wanted.items():
        if operator in ("$in", "$nin"):
            if isinstance(operand, (str, bytes)) or not isinstance(operand, Sequence):
                raise InvalidArgumentError("where", f"{field}: {operator} takes a list")
            found.append(Test(path, operator, tuple(_scalar(field, v) for v in operand)))
        elif operator in _TESTS or operator == "$ne":
            value = _scalar(field, operand)
            if operator in ("$gt", "$gte", "$lt", "$lte") and (
                value is None or isinstance(value, bool)
            ):
                raise InvalidArgumentError("where", f"{field}: {operator} orders numbers or str")
            found.append(Test(path, operator, value))
        else:
            raise InvalidArgumentError("where", f"{field}: unknown operator {operator!r}")
    if not found:
        raise InvalidArgumentError("where", f"{field}: no operator")
    return found


def check_where(where: object) -> tuple[Test, ...]:
    """The tests ``where`` asks for (all must hold), or ``InvalidArgumentError``."""
    if where is None:
        return ()
    if not isinstance(where, Mapping):
        raise InvalidArgumentError("where", "must be a mapping of field to condition")
    tests = tuple(t for field, wanted in where.items() for t in _tests(field, wanted))
    if len(tests) > _MAX_TESTS:
        raise InvalidArgumentError("where", f"at most {_MAX_TESTS} tests")
    return tests


def _one(dialect: Dialect, test: Test) -> tuple[str, list[object]]:
    operator = _NEGATED.get(test.operator, test.operator)
    if operator == "$in":
        parts = [dialect.json_test("f.metadata", test.path, "=", v) for v in test.operand]  # type: ignore[union-attr]  # $in's operand is a tuple
        sql = " OR ".join(f"({s})" for s, _ in parts) or "1 = 0"
        params = [p for _, ps in parts for p in ps]
    else:
        sql, params = dialect.json_test("f.metadata", test.path, _TESTS[operator], test.operand)  # type: ignore[arg-type]  # the other operators take a scalar
    if test.operator in _NEGATED:
        # A missing field, or one of another type, is "not equal" (NULL counts as false).
        return f"NOT COALESCE(({sql}), FALSE)", params
    return f"({sql})", params


def where_sql(dialect: Dialect, tests: Sequence[Test]) -> tuple[str, list[object]]:
    """The fragment over alias ``f`` that holds where every test does."""
    parts = [_one(dialect, t) for t in tests]
    return " AND ".join(s for s, _ in parts), [p for _, ps in parts for p in ps]
