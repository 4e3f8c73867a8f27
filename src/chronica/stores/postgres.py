"""PostgresStore: chronica on a PostgreSQL server, for many processes and machines.

Needs the ``postgres`` extra (``pip install 'chronomem[postgres]'``): this is the only
module that imports psycopg.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from types import TracebackType
from typing import Any

import psycopg
import psycopg_pool

from chronica._errors import (
    ChronicaTypeError,
    ChronicumNotFoundError,
    DuplicateActumError,
    InvalidArgumentError,
    StoreError,
)
from chronica._frozen import frozen_metadata, load_metadata
from chronica._model import ActorKind, Actum, ActumKind, Chronicum
from chronica._validation import check_seconds

from . import _postgres_schema

__all__ = ["PostgresStore"]

_ACTUM_KINDS = {kind.value: kind for kind in ActumKind}
_ACTOR_KINDS = {kind.value: kind for kind in ActorKind}
_LOCK_NAMESPACE = "chronica.schema:"


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is timezone.utc else moment.astimezone(timezone.utc)


def _row_actum(chronicum_id: str, row: tuple[Any, ...]) -> Actum:
    actum_id, kind, actor_kind, actor, content, metadata, at = row
    return Actum(
        chronicum_id=chronicum_id,
        kind=_ACTUM_KINDS[kind],
        actor_kind=_ACTOR_KINDS[actor_kind],
        actor=actor,
        content=content,
        metadata=load_metadata(metadata),
        id=actum_id,
        at=_utc(at),
    )


def _row_chronicum(row: tuple[Any, ...]) -> Chronicum:
    return Chronicum(id=row[0], owner_id=row[1], created_at=_utc(row[2]))


def _actum_params(actum: Actum, at: datetime) -> tuple[Any, ...]:
    metadata = json.dumps(actum.metadata, ensure_ascii=False) if actum.metadata else "{}"
    return (
        actum.id,
        actum.kind.value,
        actum.actor_kind.value,
        actum.actor,
        actum.content,
        metadata,
        at,
    )


def _stamped(actum: Actum, at: datetime) -> Actum:
    return Actum(
        chronicum_id=actum.chronicum_id,
        kind=actum.kind,
        actor_kind=actum.actor_kind,
        actor=actum.actor,
        content=actum.content,
        metadata=frozen_metadata(actum.metadata),
        id=actum.id,
        at=at,
    )


class PostgresStore:
    """A :class:`chronica.IdempotentStore` on PostgreSQL, safe across connections and hosts.

    Also a :class:`chronica.BatchStore` and a :class:`chronica.RestorableStore`, for
    :meth:`chronica.Chronicarius.restore`.
    Chronica are keyed by ``(owner_id, chronicum_id)`` and actum IDs are unique in the schema.

    ``target`` is a DSN (the store opens and owns a pool of ``max_size`` connections) or a
    ``psycopg_pool.ConnectionPool`` you own (the store borrows it and never closes it). All
    tables live in ``schema`` (default ``"chronica"``), created or migrated on first use
    under an advisory lock, so tenants and tests can keep their own.

    Each append bumps the chronicum's ``last_seq`` (a row lock held to commit) and inserts
    in the same statement; idempotent writes lock the same row, then look the key up, and
    a unique (chronicum, key) index backs them. Durability is the server's: with the
    default ``synchronous_commit = on`` an acknowledged write is flushed to the server's
    WAL and survives a crash or power loss of the server; with it ``off`` the last few
    hundred milliseconds of commits may be lost on a server crash, never corrupted.
    """

    def __init__(
        self,
        target: str | psycopg_pool.ConnectionPool,
        *,
        schema: str = "chronica",
        max_size: int = 10,
        timeout: float = 30.0,
    ) -> None:
        if not isinstance(target, (str, psycopg_pool.ConnectionPool)):
            raise ChronicaTypeError(
                "target", "a DSN string or a psycopg_pool.ConnectionPool", target
            )
        if isinstance(max_size, bool) or not isinstance(max_size, int):
            raise ChronicaTypeError("max_size", "int", max_size)
        if max_size < 1:
            raise InvalidArgumentError("max_size", "must be at least 1")
        timeout = check_seconds("timeout", timeout, maximum=86_400, allow_zero=False)
        self._schema = schema
        quoted = _postgres_schema.quoted_schema(schema)
        self._sql = _postgres_schema.Statements(quoted)
        if isinstance(target, psycopg_pool.ConnectionPool):
            self._pool, self._owns_pool = target, False
        else:
            self._migrate_direct(target, quoted, timeout)
            self._pool = psycopg_pool.ConnectionPool(
                target,
                min_size=1,
                max_size=max_size,
                kwargs={"autocommit": True},
                timeout=timeout,
                open=True,
                name=f"chronica-{schema}",
            )
            self._owns_pool = True
        if not self._owns_pool:
            with self._connection() as conn:
                _migrate(conn, quoted, schema)

    @property
    def schema(self) -> str:
        """The PostgreSQL schema holding this store's tables."""
        return self._schema

    def create(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Create the owner's chronicum if absent (``ON CONFLICT DO NOTHING``); return it."""
        key = (owner_id, chronicum_id)
        with self._connection() as conn:
            row = conn.execute(self._sql.create, (*key, datetime.now(timezone.utc))).fetchone()
            if row is None:  # someone else won; their row is committed and visible now
                row = conn.execute(self._sql.chronicum, key).fetchone()
        assert row is not None, "a chronicum cannot disappear: chronica has no delete"
        return _row_chronicum(row)

    def get(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Return the owner's chronicum or raise :class:`chronica.ChronicumNotFoundError`."""
        with self._connection() as conn:
            row = conn.execute(self._sql.chronicum, (owner_id, chronicum_id)).fetchone()
        if row is None:
            raise ChronicumNotFoundError(chronicum_id)
        return _row_chronicum(row)

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        """Append ``actum`` with ``at`` stamped now, as the chronicum's next ``seq``."""
        at = datetime.now(timezone.utc)
        params = (owner_id, actum.chronicum_id, *_actum_params(actum, at), None)
        with self._connection() as conn, _unique_id(actum.id):
            if conn.execute(self._sql.record, params).rowcount != 1:
                raise ChronicumNotFoundError(actum.chronicum_id)
        return _stamped(actum, at)

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum:
        """Append ``actum`` unless ``idempotency_key`` was used in its chronicum.

        Returns the actum stored under the key first. Racing callers serialise on the
        chronicum's row lock, so exactly one inserts and the rest read its actum back.
        """
        at = datetime.now(timezone.utc)
        chronicum = (owner_id, actum.chronicum_id)
        params = (*chronicum, *_actum_params(actum, at), idempotency_key)
        with self._connection() as conn, _unique_id(actum.id), conn.transaction():
            if conn.execute(self._sql.lock, chronicum).fetchone() is None:
                raise ChronicumNotFoundError(actum.chronicum_id)
            row = conn.execute(self._sql.by_key, (*chronicum, idempotency_key)).fetchone()
            if row is None and conn.execute(self._sql.record, params).rowcount != 1:
                # Unreachable while every keyed write takes the row lock first; if a
                # writer ever skipped it, the unique index still keeps one: return it.
                row = conn.execute(self._sql.by_key, (*chronicum, idempotency_key)).fetchone()
        return _stamped(actum, at) if row is None else _row_actum(actum.chronicum_id, row)

    def record_many(
        self,
        acta: Sequence[Actum],
        *,
        owner_id: str,
        idempotency_keys: Sequence[str] | None = None,
    ) -> list[Actum]:
        """Append ``acta`` (one chronicum's) in one transaction: one commit, all or nothing.

        See :meth:`chronica.BatchStore.record_many`. The chronicum's row lock is taken
        first, as :meth:`record_once` takes it, so keyed retries racing this batch store once.
        """
        if not acta:
            return []
        chronicum = (owner_id, acta[0].chronicum_id)
        stored: list[Actum] = []
        with self._connection() as conn, _unique_id(None), conn.transaction():
            if conn.execute(self._sql.lock, chronicum).fetchone() is None:
                raise ChronicumNotFoundError(acta[0].chronicum_id)
            for i, actum in enumerate(acta):
                key = None if idempotency_keys is None else idempotency_keys[i]
                if key is not None:
                    row = conn.execute(self._sql.by_key, (*chronicum, key)).fetchone()
                    if row is not None:
                        stored.append(_row_actum(actum.chronicum_id, row))
                        continue
                at = datetime.now(timezone.utc)
                conn.execute(self._sql.record, (*chronicum, *_actum_params(actum, at), key))
                stored.append(_stamped(actum, at))
        return stored

    def acta(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        """Return the chronicum's acta, oldest first, filtered in SQL, then the last ``last_n``."""
        kinds = [ActumKind(k).value for k in actum_kinds] if actum_kinds else None
        actors = [ActorKind(k).value for k in actor_kinds] if actor_kinds else None
        limit = last_n if last_n > 0 else None
        params = (owner_id, chronicum_id, kinds, kinds, actors, actors, limit)
        with self._connection() as conn:
            rows = conn.execute(self._sql.window, params).fetchall()
            if not rows and not conn.execute(self._sql.chronicum, params[:2]).fetchone():
                raise ChronicumNotFoundError(chronicum_id)
        rows.reverse()
        return [_row_actum(chronicum_id, row) for row in rows]

    def chronica(self) -> list[Chronicum]:
        """Every chronicum of every owner, in the order they were created (for export)."""
        with self._connection() as conn:
            rows = conn.execute(self._sql.all_chronica).fetchall()
        return [_row_chronicum(row) for row in rows]

    def restore(
        self, chronica: Sequence[Chronicum], acta: Sequence[Actum], *, owner_id: str
    ) -> int:
        """Store exported chronica and acta as they were, in one transaction, or nothing.

        See :meth:`chronica.RestorableStore.restore`; call it through
        :meth:`chronica.Chronicarius.restore`, which validates every record first.
        """
        with self._connection() as conn, _unique_id(None), conn.transaction():
            with conn.cursor() as cur:
                created = [(owner_id, c.id, c.created_at) for c in chronica]
                cur.executemany(self._sql.create, created)
            stored = conn.execute(self._sql.where_ids, ([a.id for a in acta],)).fetchall()
            already = {actum_id: (owner, cid) for actum_id, owner, cid in stored}
            last_seq: dict[str, int] = {}
            rows = []
            for actum in acta:
                if actum.id in already:
                    if already[actum.id] != (owner_id, actum.chronicum_id):
                        raise DuplicateActumError(actum.id)
                    continue  # restored before: importing one export twice changes nothing
                if actum.chronicum_id not in last_seq:
                    locked = conn.execute(self._sql.lock, (owner_id, actum.chronicum_id))
                    (last_seq[actum.chronicum_id],) = locked.fetchone() or (0,)
                last_seq[actum.chronicum_id] += 1
                assert actum.at is not None, "Chronicarius.restore checks every at"
                seq = last_seq[actum.chronicum_id]
                rows.append((owner_id, actum.chronicum_id, seq, *_actum_params(actum, actum.at)))
            with conn.cursor() as cur:
                cur.executemany(self._sql.restore_actum, rows)
                cur.executemany(
                    self._sql.set_seq, [(seq, owner_id, cid) for cid, seq in last_seq.items()]
                )
        return len(rows)

    def close(self) -> None:
        """Close the pool if this store opened it; a borrowed pool is left to its owner."""
        if self._owns_pool:
            self._pool.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PostgresStore(schema={self._schema!r})"

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        try:
            with self._pool.connection() as conn:
                yield conn
        except psycopg.Error as e:
            raise StoreError(f"PostgreSQL ({self._schema}): {e}") from e

    def _migrate_direct(self, dsn: str, quoted: str, timeout: float) -> None:
        """Migrate over a plain connection, so a wrong DSN fails now and clearly."""
        try:
            with psycopg.connect(
                dsn, autocommit=True, connect_timeout=max(1, int(timeout))
            ) as conn:
                _migrate(conn, quoted, self._schema)
        except psycopg.Error as e:
            raise StoreError(f"PostgreSQL ({self._schema}): cannot open: {e}") from e


@contextmanager
def _unique_id(actum_id: str | None) -> Iterator[None]:
    """Report a write that met the unique actum-ID index as the duplicate it is."""
    try:
        yield
    except psycopg.errors.UniqueViolation as e:
        if e.diag.constraint_name != "chronica_acta_by_id":
            raise
        # The detail reads "Key (id)=(<id>) already exists."; a restore has no single ID.
        detail = e.diag.message_detail or ""
        found = detail.partition("=(")[2].rpartition(")")[0]
        raise DuplicateActumError(actum_id or found) from None


def _migrate(conn: psycopg.Connection[Any], quoted: str, schema: str) -> None:
    """Create or migrate chronica's tables in ``schema``; refuse a newer schema untouched."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_LOCK_NAMESPACE + schema,))
        exists = conn.execute(
            "SELECT to_regclass(%s) IS NOT NULL", (f"{quoted}.chronica_schema",)
        ).fetchone()
        version = 0
        if exists and exists[0]:
            row = conn.execute(f"SELECT MAX(version) FROM {quoted}.chronica_schema").fetchone()
            version = int(row[0] or 0) if row else 0
        if version > _postgres_schema.SCHEMA_VERSION:
            raise StoreError(
                f"PostgreSQL schema {schema!r}: chronica schema version {version} is newer than "
                f"this code supports ({_postgres_schema.SCHEMA_VERSION}); upgrade chronomem"
            )
        if version == _postgres_schema.SCHEMA_VERSION:
            return
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quoted}")
        steps = _postgres_schema.migrations(quoted)
        for step in range(version + 1, _postgres_schema.SCHEMA_VERSION + 1):
            for statement in steps[step]:
                conn.execute(statement)  # DDL built from a checked, quoted identifier
        conn.execute(f"DELETE FROM {quoted}.chronica_schema")
        conn.execute(
            f"INSERT INTO {quoted}.chronica_schema (version) VALUES (%s)",
            (_postgres_schema.SCHEMA_VERSION,),
        )
