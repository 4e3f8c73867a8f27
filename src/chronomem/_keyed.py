"""``ChronoMem.keyed``: facts addressed by a namespace and a key, as a key-value store holds them.

A framework's store (the LangGraph store, :mod:`chronomem.integrations.langgraph`) keeps items
as (namespace, key, JSON value). Each is a fact of the memory (recall, ``timeline``, supersede
lineage and purge work on it as on any fact), and the memory keeps beside it a row per key:
the fact holding the current value, the value, when the key was first and last put, and when
it expires. So a get reads one row, a listing by namespace reads an index in order, and the
namespaces are a table of their own kept in the same transaction as the rows (see
:mod:`chronomem.engine.keyed` and :mod:`chronomem.write.keyed`). Time to live is the
caller's: it passes the moment an item expires, and ``now`` when it reads; an expired item is
never returned, and :meth:`KeyedFacts.sweep` erases it (a purge: its content leaves the file).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from chronomem.engine import keyed as table
from chronomem.write import purge as purging
from chronomem.write.keyed import EXPIRED, delete_keyed, put_called, put_keyed
from chronomem.write.keyed_index import catch_up

from ._checks import check_fact
from ._errors import InvalidArgumentError
from ._model import from_us, to_us

if TYPE_CHECKING:
    from chronomem.engine.storage import Storage
    from chronomem.write.facts import SystemClock


class _Face(Protocol):
    """What the keyed facts use of the memory that makes them (``ChronoMem``, which this
    module does not import: the memory imports it)."""

    owner: str
    _db: Storage
    _clock: SystemClock

    def _unbatched(self) -> Storage: ...


__all__ = ["Keyed", "KeyedFacts"]

_FORBIDDEN = ("\x00", table.SEPARATOR)
_SWEEP_BATCH = 50


@dataclass(frozen=True)
class Keyed:
    """A key's current value, as :class:`KeyedFacts` holds it."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    fact_id: str
    """The fact holding the value (its metadata holds an older one if a value whose text reads
    the same was put since: see :mod:`chronomem.write.keyed`)."""
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None
    ttl: float | None
    """The time to live it was put with, in minutes (what a read that renews it adds)."""


def _keyed(row: table.KeyedRow, value: dict[str, Any] | None = None) -> Keyed:
    return Keyed(
        namespace=table.namespace_of(row.space), key=row.key,
        value=json.loads(row.value) if value is None else value,
        fact_id=row.fact_id, created_at=_time(row.created_at), updated_at=_time(row.updated_at),
        expires_at=from_us(row.expires_at), ttl=row.ttl,
    )  # fmt: skip


def _time(us: int) -> datetime:
    moment = from_us(us)
    assert moment is not None
    return moment


def _space(namespace: object) -> str:
    if not isinstance(namespace, tuple) or not all(isinstance(x, str) for x in namespace):
        raise InvalidArgumentError("namespace", "must be a tuple of str")
    joined = "".join(namespace)
    if any(c in joined for c in _FORBIDDEN):
        raise InvalidArgumentError("namespace", "a label may not hold U+0000 or U+0001")
    return table.space_of(namespace)


def _key(key: object) -> str:
    if not isinstance(key, str) or "\x00" in key:
        raise InvalidArgumentError("key", "must be a str without U+0000")
    return key


def _us(moment: datetime | None) -> int | None:
    return None if moment is None else to_us(moment)


class KeyedFacts:
    """The memory's keyed facts, of its owner (``mem.keyed``). Reads take ``now``: an item
    expired by then is left out (``None``: expired ones too)."""

    def __init__(self, memory: _Face) -> None:
        self._memory = memory

    @property
    def _db(self) -> Any:
        return self._memory._db  # the face's own helper

    @property
    def _owner(self) -> str:
        return self._memory.owner

    # -- reads --------------------------------------------------------------------------------

    def get(self, namespace: tuple[str, ...], key: str, *, now: datetime | None) -> Keyed | None:
        """The key's current value: one read of one row."""
        space, name, at = _space(namespace), _key(key), _us(now)
        with self._db.statement() as conn:
            row = table.get_row(conn, self._owner, space, name, at)
        return None if row is None else _keyed(row)

    def under(
        self,
        prefix: tuple[str, ...],
        *,
        now: datetime | None,
        after: tuple[tuple[str, ...], str] | None = None,
        limit: int = 100,
        equal: Mapping[str, str] | None = None,
        keep: Callable[[dict[str, Any]], bool] | None = None,
        enough: int | None = None,
    ) -> tuple[list[Keyed], tuple[tuple[str, ...], str] | None]:
        """The items under ``prefix`` in (namespace, key) order, past ``after``, among the
        next ``limit`` rows: those whose value passes ``keep`` (tested before an item is
        made of the row), at most ``enough``, and where to go on from (``None``: no rows are
        left). ``equal`` maps dotted paths into the value to strings they must equal (tested
        in SQL, before the limit)."""
        start = None if after is None else (_space(after[0]), _key(after[1]))
        where = self._equal_sql(equal or {})
        with self._db.statement() as conn:
            rows = table.rows_under(
                conn, self._owner, prefix, after=start, limit=limit, now=_us(now),
                where=where(conn),
            )  # fmt: skip
        kept: list[Keyed] = []
        last = rows[-1] if len(rows) == limit else None
        for r in rows:
            value = json.loads(r.value)
            if keep is None or keep(value):
                kept.append(_keyed(r, value))
                if len(kept) == enough:
                    last = r
                    break
        return kept, None if last is None else (table.namespace_of(last.space), last.key)

    @staticmethod
    def _equal_sql(equal: Mapping[str, str]) -> Callable[[Any], tuple[str, list[object]]]:
        def build(conn: Any) -> tuple[str, list[object]]:
            parts, params = [], []
            for path, value in equal.items():
                sql, args = conn.dialect.json_test("value", path.split("."), "=", value)
                parts.append(f" AND {sql}")
                params += args
            return "".join(parts), params

        return build

    def of_facts(self, fact_ids: Sequence[str], *, now: datetime | None) -> dict[str, Keyed]:
        """The live items whose current value is one of ``fact_ids``, by fact id."""
        with self._db.statement() as conn:
            rows = table.rows_by_fact(conn, self._owner, list(fact_ids), _us(now))
        return {r.fact_id: _keyed(r) for r in rows}

    def namespaces(
        self,
        prefix: tuple[str, ...],
        *,
        now: datetime | None,
        after: tuple[str, ...] | None = None,
        limit: int = 100,
    ) -> list[tuple[str, ...]]:
        """Up to ``limit`` namespaces holding an item live at ``now``, under ``prefix``, past
        ``after``, in order: read from the table of namespaces, less those whose every item
        expired (none, and not read, while nothing has)."""
        start = None if after is None else _space(after)
        # Two statements, each its own snapshot: a namespace whose last item expires between
        # them is listed, as if listed a moment earlier.
        with self._db.statement() as conn:
            stale = set() if now is None else table.stale_spaces(conn, self._owner, to_us(now))
        with self._db.statement() as conn:
            spaces = table.spaces_under(
                conn, self._owner, prefix, after=start, limit=limit + len(stale)
            )
        return [table.namespace_of(s) for s in spaces if s not in stale][:limit]

    def expired_among(self, keys: Iterable[tuple[tuple[str, ...], str]], *, now: datetime) -> bool:
        """Whether any (namespace, key) of ``keys`` holds an item expired by ``now``, not yet
        swept: one statement, through the index of expiring rows."""
        wanted = [(_space(ns), _key(k)) for ns, k in keys]
        with self._db.statement() as conn:
            return table.any_expired(conn, self._owner, wanted, to_us(now))

    def drifted(self) -> bool:
        """Whether some key holds a value its fact's metadata does not (so a test of the
        metadata may miss it)."""
        with self._db.read() as conn:
            return table.drifted(conn, self._owner)

    def empty(self) -> bool:
        """Whether the owner has no keyed item."""
        return not self.under((), now=None, limit=1)[0]

    # -- writes -------------------------------------------------------------------------------

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        *,
        content: str,
        category: str | None = None,
        entities: Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        expires_at: datetime | None = None,
        ttl: float | None = None,
        now: datetime | None = None,
        index_later: bool = False,
    ) -> Keyed | None:
        """Put ``value`` under the key: a new fact (``content``, ``category``, ``entities``,
        ``metadata`` as :meth:`ChronoMem.remember` takes them) when the key is new or its text
        changed, the row alone otherwise (see :mod:`chronomem.write.keyed`). ``None``, with
        nothing written, when the key holds an item expired by ``now`` and not yet swept:
        :meth:`sweep` it first (its values are to be erased, not superseded).

        ``index_later`` (with ``entities`` named, outside a batch): a new key's fact is stored
        without its recall index, which the memory writes before it next reads the index
        (:meth:`catch_up`), so the put writes four rows; recall, ``timeline`` and the rest
        find the fact as if indexed at once."""
        space, name = _space(namespace), _key(key)
        try:
            text = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError("value", f"must be JSON: {e}") from None
        data = check_fact(content, category=category, trust=0.8, confidence=1.0,
                          valid_from=None, entities=entities, source=None,
                          metadata=metadata)  # fmt: skip
        clock = self._memory._clock  # the face's own helper
        at, live = _us(expires_at), _us(now)
        later = index_later and data.entities is not None
        row = None
        if later:  # the server's function stores a new key's fact unindexed
            row = put_called(self._db, self._owner, space, name, text, data, expires_at=at,
                             ttl=ttl, now=live, clock=clock)  # fmt: skip
        if row is None:
            with self._db.write() as conn:
                row = put_keyed(conn, self._owner, space, name, text, data, expires_at=at,
                                ttl=ttl, now=live, clock=clock, index_later=later)  # fmt: skip
        return None if row is EXPIRED else _keyed(row)

    def catch_up(self) -> int:
        """Index the facts puts stored without their index (``index_later``), of every owner
        of the file; returns how many. One probe read when there are none; nothing on a
        memory opened read-only (it cannot write the index). See
        :mod:`chronomem.write.keyed_index`."""
        if self._memory._db.read_only:
            return 0
        return catch_up(self._memory._db)

    def adopt(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        *,
        fact_id: str,
        created_at: datetime,
        updated_at: datetime,
    ) -> None:
        """Give an existing fact, written under the key before the keyed table existed, its
        row (nothing is written if the key has one)."""
        space, name = _space(namespace), _key(key)
        text = json.dumps(dict(value), ensure_ascii=False)
        row = table.KeyedRow(space, name, fact_id, text, to_us(created_at), to_us(updated_at),
                             None, None)  # fmt: skip
        with self._db.write() as conn:
            if table.get_row(conn, self._owner, space, name, None) is None:
                table.insert_row(conn, self._owner, row)

    def delete(self, namespace: tuple[str, ...], key: str, *, reason: str) -> Keyed | None:
        """Forget the key's fact and drop its row; the item it was (``None``: none)."""
        space, name = _space(namespace), _key(key)
        with self._db.write() as conn:
            row = delete_keyed(
                conn, self._owner, space, name, reason,
                clock=self._memory._clock,  # the face's own helper
            )  # fmt: skip
        return None if row is None else _keyed(row)

    def refresh(self, items: Iterable[Keyed], *, now: datetime) -> None:
        """Start each item's time to live again from ``now``: it expires ``ttl`` minutes after
        it (one that has none, or expired by ``now``, stays as it is)."""
        renewed = [
            (table.space_of(i.namespace), i.key, to_us(now + timedelta(minutes=i.ttl)))
            for i in items
            if i.ttl is not None
        ]
        if renewed:
            with self._db.write() as conn:
                table.refresh(conn, self._owner, renewed, to_us(now))

    def sweep(
        self,
        *,
        now: datetime,
        history: Callable[[Keyed], Iterable[str]],
        reason: str,
        only: Iterable[tuple[tuple[str, ...], str]] | None = None,
    ) -> int:
        """Purge every item expired by ``now`` (of ``only``'s (namespace, key), if given):
        each fact ``history`` names for it (its earlier values) and its current one, and its
        row, a few items per transaction, on SQLite with the file's bytes and log emptied
        (:meth:`ChronoMem.purge`). An item put again or renewed meanwhile stays. Returns how
        many items went."""
        at = to_us(now)
        with self._db.read() as conn:
            rows = table.expired(conn, self._owner, at, limit=2**31)
        if only is not None:
            wanted = {(table.space_of(ns), key) for ns, key in only}
            rows = [r for r in rows if (r.space, r.key) in wanted]
        if not rows:
            return 0
        self._memory._unbatched()  # a purge commits its own transactions
        ids = {r: {r.fact_id, *history(_keyed(r))} for r in rows}
        gone = 0
        with purging.erasing(self._db):
            for start in range(0, len(rows), _SWEEP_BATCH):
                with self._db.write() as conn:
                    gone += self._sweep_some(conn, rows[start : start + _SWEEP_BATCH], ids, reason)
        return gone

    def _sweep_some(
        self, conn: Any, rows: Sequence[table.KeyedRow], ids: Mapping[table.KeyedRow, set[str]],
        reason: str,
    ) -> int:  # fmt: skip
        still = []
        for r in rows:
            now_row = table.get_row(conn, self._owner, r.space, r.key, None)
            if now_row == r:  # neither put again nor renewed since it was read
                still.append(r)
        fact_ids = sorted({f for r in still for f in ids[r]})
        among, params = conn.dialect.in_list("id", fact_ids or [""])
        rowids = [
            int(x[0])
            for x in conn.execute(
                f"SELECT rowid FROM chronomem_facts WHERE owner = ? AND {among}",
                (self._owner, *params),
            ).fetchall()
        ]
        clock = self._memory._clock  # the face's own helper
        purging.purge_rows(conn, self._owner, rowids, reason, clock.now())
        table.delete_rows(conn, self._owner, [(r.space, r.key) for r in still])
        return len(still)
