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
    InvalidArgumentError,
    StoreError,
)
from chronica._frozen import frozen_metadata, load_metadata
from chronica._model import ActorKind, Actum, ActumKind, Chronicum
from chronica._validation import check_restorable, check_seconds

from . import _postgres_schema

__all__ = ["PostgresStore"]

_ACTUM_KINDS = {kind.value: kind for kind in ActumKind}
_ACTOR_KINDS = {kind.value: kind for kind in ActorKind}
_COLUMNS = "id, kind, actor_kind, actor, content, metadata, at"
# Read metadata as text: most acta have none, and skipping the driver's jsonb decoder for
# "{}" makes a 20-actum window about a third cheaper.
_SELECTED = "id, kind, actor_kind, actor, content, metadata::text, at"
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


class _SQL:
    """Every statement, built once for one (already quoted) schema name."""

    def __init__(self, s: str) -> None:
        self.chronicum = f"SELECT id, owner_id, created_at FROM {s}.chronica_chronica WHERE id = %s"
        self.create = (
            f"INSERT INTO {s}.chronica_chronica (id, owner_id, created_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (id) DO NOTHING RETURNING id, owner_id, created_at"
        )
        # One statement, one round trip: bumping last_seq row-locks the chronicum until
        # commit, so appends to one chronicum commit strictly in seq order. No row, no insert.
        self.record = f"""
            WITH c AS (
                UPDATE {s}.chronica_chronica SET last_seq = last_seq + 1
                WHERE id = %s RETURNING id, last_seq
            )
            INSERT INTO {s}.chronica_acta
                (chronicum_id, seq, {_COLUMNS}, idempotency_key)
            SELECT c.id, c.last_seq, %s, %s, %s, %s, %s, %s::jsonb, %s, %s FROM c
            ON CONFLICT (chronicum_id, idempotency_key) WHERE idempotency_key IS NOT NULL
            DO NOTHING"""
        self.lock = f"SELECT owner_id, last_seq FROM {s}.chronica_chronica WHERE id = %s FOR UPDATE"
        self.by_key = (
            f"SELECT {_SELECTED} FROM {s}.chronica_acta "
            "WHERE chronicum_id = %s AND idempotency_key = %s"
        )
        self.window = (
            f"SELECT {_SELECTED} FROM {s}.chronica_acta WHERE chronicum_id = %s"
            " AND (%s::text[] IS NULL OR kind = ANY(%s::text[]))"
            " AND (%s::text[] IS NULL OR actor_kind = ANY(%s::text[]))"
            " ORDER BY seq DESC LIMIT %s"
        )
        self.all_chronica = (
            f"SELECT id, owner_id, created_at FROM {s}.chronica_chronica ORDER BY created_order"
        )
        self.ids = f"SELECT id FROM {s}.chronica_acta WHERE chronicum_id = %s"
        self.restore_actum = (
            f"INSERT INTO {s}.chronica_acta (chronicum_id, seq, {_COLUMNS}) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)"
        )
        self.set_seq = f"UPDATE {s}.chronica_chronica SET last_seq = %s WHERE id = %s"


class PostgresStore:
    """A :class:`chronica.IdempotentStore` on PostgreSQL, safe across connections and hosts.

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
        self._sql = _SQL(quoted)
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

    def create(self, chronicum_id: str, owner_id: str) -> Chronicum:
        """Create the chronicum if absent (``ON CONFLICT DO NOTHING``); return the stored one."""
        with self._connection() as conn:
            row = conn.execute(
                self._sql.create, (chronicum_id, owner_id, datetime.now(timezone.utc))
            ).fetchone()
            if row is None:  # someone else won; their row is committed and visible now
                row = conn.execute(self._sql.chronicum, (chronicum_id,)).fetchone()
        assert row is not None, "a chronicum cannot disappear: chronica has no delete"
        return _row_chronicum(row)

    def get(self, chronicum_id: str) -> Chronicum:
        """Return the chronicum or raise :class:`chronica.ChronicumNotFoundError`."""
        with self._connection() as conn:
            row = conn.execute(self._sql.chronicum, (chronicum_id,)).fetchone()
        if row is None:
            raise ChronicumNotFoundError(chronicum_id)
        return _row_chronicum(row)

    def record(self, actum: Actum) -> Actum:
        """Append ``actum`` with ``at`` stamped now, as the chronicum's next ``seq``."""
        at = datetime.now(timezone.utc)
        with self._connection() as conn:
            cur = conn.execute(
                self._sql.record, (actum.chronicum_id, *_actum_params(actum, at), None)
            )
            if cur.rowcount != 1:
                raise ChronicumNotFoundError(actum.chronicum_id)
        return _stamped(actum, at)

    def record_once(self, actum: Actum, idempotency_key: str) -> Actum:
        """Append ``actum`` unless ``idempotency_key`` was used in its chronicum.

        Returns the actum stored under the key first. Racing callers serialise on the
        chronicum's row lock, so exactly one inserts and the rest read its actum back.
        """
        at = datetime.now(timezone.utc)
        params = (actum.chronicum_id, *_actum_params(actum, at), idempotency_key)
        with self._connection() as conn, conn.transaction():
            if conn.execute(self._sql.lock, (actum.chronicum_id,)).fetchone() is None:
                raise ChronicumNotFoundError(actum.chronicum_id)
            row = conn.execute(self._sql.by_key, (actum.chronicum_id, idempotency_key)).fetchone()
            if row is None and conn.execute(self._sql.record, params).rowcount != 1:
                # Unreachable while every keyed write takes the row lock first; if a
                # writer ever skipped it, the unique index still keeps one: return it.
                row = conn.execute(
                    self._sql.by_key, (actum.chronicum_id, idempotency_key)
                ).fetchone()
        return _stamped(actum, at) if row is None else _row_actum(actum.chronicum_id, row)

    def acta(
        self,
        chronicum_id: str,
        *,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
    ) -> list[Actum]:
        """Return the chronicum's acta, oldest first, filtered in SQL, then the last ``last_n``."""
        kinds = [ActumKind(k).value for k in actum_kinds] if actum_kinds else None
        actors = [ActorKind(k).value for k in actor_kinds] if actor_kinds else None
        params = (chronicum_id, kinds, kinds, actors, actors, last_n if last_n > 0 else None)
        with self._connection() as conn:
            rows = conn.execute(self._sql.window, params).fetchall()
            if not rows and conn.execute(self._sql.chronicum, (chronicum_id,)).fetchone() is None:
                raise ChronicumNotFoundError(chronicum_id)
        rows.reverse()
        return [_row_actum(chronicum_id, row) for row in rows]

    def chronica(self) -> list[Chronicum]:
        """Every chronicum of every owner, in the order they were created (for export)."""
        with self._connection() as conn:
            rows = conn.execute(self._sql.all_chronica).fetchall()
        return [_row_chronicum(row) for row in rows]

    def restore(self, chronicum: Chronicum, acta: Sequence[Actum]) -> None:
        """Import a chronicum and its acta exactly as exported: IDs, ``at`` and order kept.

        The chronicum is created if absent; acta whose ID is already stored are skipped, so
        importing the same export twice changes nothing. Raises
        :class:`chronica.InvalidArgumentError` if the chronicum exists under another owner
        or an actum belongs elsewhere or has no timezone-aware ``at``.
        """
        check_restorable(chronicum, acta)
        with self._connection() as conn, conn.transaction():
            conn.execute(self._sql.create, (chronicum.id, chronicum.owner_id, chronicum.created_at))
            locked = conn.execute(self._sql.lock, (chronicum.id,)).fetchone()
            assert locked is not None, "the chronicum was just inserted or already there"
            owner, seq = locked
            if owner != chronicum.owner_id:
                raise InvalidArgumentError(
                    "chronicum", f"{chronicum.id!r} exists with another owner"
                )
            seen = {actum_id for (actum_id,) in conn.execute(self._sql.ids, (chronicum.id,))}
            rows = []
            for actum in acta:
                if actum.id not in seen:
                    seen.add(actum.id)
                    seq += 1
                    assert actum.at is not None  # checked by check_restorable
                    rows.append((chronicum.id, seq, *_actum_params(actum, actum.at)))
            with conn.cursor() as cur:
                cur.executemany(self._sql.restore_actum, rows)
            conn.execute(self._sql.set_seq, (seq, chronicum.id))

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
