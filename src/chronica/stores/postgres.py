"""PostgresStore: chronica on a PostgreSQL server, for many processes and machines.

Needs the ``postgres`` extra (``pip install 'chronomem[postgres]'``): this is the only
module that imports psycopg.
"""

from __future__ import annotations

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
from chronica._model import (
    ActaPage,
    ActorKind,
    Actum,
    ActumEntry,
    ActumKind,
    ChronicaCounts,
    Chronicum,
    ChronicumSummary,
)
from chronica._validation import check_seconds

from . import _postgres_browse as browse
from . import _postgres_rows as codec
from . import _postgres_schema
from ._postgres_migrate import migrate, readable

__all__ = ["PostgresStore"]


class PostgresStore:
    """A :class:`chronica.IdempotentStore` on PostgreSQL, safe across connections and hosts.

    Also a :class:`chronica.BatchStore`, a :class:`chronica.TailStore` and a
    :class:`chronica.RestorableStore`, for :meth:`chronica.Chronicarius.restore`.
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

    Also a :class:`chronica.BrowsableStore` and a :class:`chronica.ErasableStore`.
    ``read_only=True`` (with a DSN) is for a tool that must change nothing (chronomem's
    inspector): it creates and migrates nothing, its connections start every transaction
    read-only (``default_transaction_read_only``), so every write raises
    :class:`chronica.StoreError`, and until chronica has made its tables in ``schema`` it
    reads as an empty store.
    """

    def __init__(
        self,
        target: str | psycopg_pool.ConnectionPool,
        *,
        schema: str = "chronica",
        max_size: int = 10,
        timeout: float = 30.0,
        read_only: bool = False,
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
        self._browse = browse.BrowseStatements(quoted)
        self._read_only = read_only
        self._ready = not read_only  # whether chronica's tables are known to be in schema
        if read_only and not isinstance(target, str):
            raise InvalidArgumentError("read_only", "needs a DSN: the store opens its own pool")
        if isinstance(target, psycopg_pool.ConnectionPool):
            self._pool, self._owns_pool = target, False
        else:
            self._open_direct(target, quoted, timeout)
            self._pool = psycopg_pool.ConnectionPool(
                target,
                min_size=1,
                max_size=max_size,
                kwargs={"autocommit": True, "connect_timeout": max(1, int(timeout))},
                configure=_read_only if read_only else None,
                timeout=timeout,
                open=True,
                name=f"chronica-{schema}",
            )
            self._owns_pool = True
        if not self._owns_pool:
            with self._connection() as conn:
                migrate(conn, quoted, schema)

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
        return codec.row_chronicum(row)

    def get(self, chronicum_id: str, *, owner_id: str) -> Chronicum:
        """Return the owner's chronicum or raise :class:`chronica.ChronicumNotFoundError`."""
        with self._reading() as conn:
            row = None
            if conn is not None:
                row = conn.execute(self._sql.chronicum, (owner_id, chronicum_id)).fetchone()
        if row is None:
            raise ChronicumNotFoundError(chronicum_id)
        return codec.row_chronicum(row)

    def record(self, actum: Actum, *, owner_id: str) -> Actum:
        """Append ``actum`` with ``at`` stamped now, as the chronicum's next ``seq``."""
        at = datetime.now(timezone.utc)
        params = (owner_id, actum.chronicum_id, *codec.actum_params(actum, at), None)
        with self._connection() as conn, _unique_id(actum.id):
            if conn.execute(self._sql.record, params).rowcount != 1:
                raise ChronicumNotFoundError(actum.chronicum_id)
        return codec.stamped(actum, at)

    def record_once(self, actum: Actum, idempotency_key: str, *, owner_id: str) -> Actum:
        """Append ``actum`` unless ``idempotency_key`` was used in its chronicum.

        Returns the actum stored under the key first. Racing callers serialise on the
        chronicum's row lock, so exactly one inserts and the rest read its actum back.
        """
        at = datetime.now(timezone.utc)
        chronicum = (owner_id, actum.chronicum_id)
        params = (*chronicum, *codec.actum_params(actum, at), idempotency_key)
        with self._connection() as conn, _unique_id(actum.id), conn.transaction():
            if conn.execute(self._sql.lock, chronicum).fetchone() is None:
                raise ChronicumNotFoundError(actum.chronicum_id)
            row = conn.execute(self._sql.by_key, (*chronicum, idempotency_key)).fetchone()
            if row is None and conn.execute(self._sql.record, params).rowcount != 1:
                # Unreachable while every keyed write takes the row lock first; if a
                # writer ever skipped it, the unique index still keeps one: return it.
                row = conn.execute(self._sql.by_key, (*chronicum, idempotency_key)).fetchone()
        return codec.stamped(actum, at) if row is None else codec.row_actum(actum.chronicum_id, row)

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
                        stored.append(codec.row_actum(actum.chronicum_id, row))
                        continue
                at = datetime.now(timezone.utc)
                conn.execute(self._sql.record, (*chronicum, *codec.actum_params(actum, at), key))
                stored.append(codec.stamped(actum, at))
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
        with self._reading() as conn:
            if conn is None:
                raise ChronicumNotFoundError(chronicum_id)
            rows = conn.execute(self._sql.window, params).fetchall()
            if not rows and not conn.execute(self._sql.chronicum, params[:2]).fetchone():
                raise ChronicumNotFoundError(chronicum_id)
        rows.reverse()
        return [codec.row_actum(chronicum_id, row) for row in rows]

    def acta_ids(self, chronicum_id: str, *, owner_id: str, last_n: int = 0) -> list[str]:
        """The IDs of the chronicum's last ``last_n`` acta (all when 0), oldest first."""
        params = (owner_id, chronicum_id, last_n if last_n > 0 else None)
        with self._reading() as conn:
            if conn is None:
                raise ChronicumNotFoundError(chronicum_id)
            rows = conn.execute(self._sql.last_ids, params).fetchall()
            if not rows and not conn.execute(self._sql.chronicum, params[:2]).fetchone():
                raise ChronicumNotFoundError(chronicum_id)
        return [actum_id for (actum_id,) in reversed(rows)]

    def chronica(self) -> list[Chronicum]:
        """Every chronicum of every owner, in the order they were created (for export)."""
        with self._reading() as conn:
            rows = conn.execute(self._sql.all_chronica).fetchall() if conn else []
        return [codec.row_chronicum(row) for row in rows]

    def chronica_page(
        self, *, owner_id: str, offset: int = 0, limit: int = 100
    ) -> list[ChronicumSummary]:
        """The owner's chronica, newest created first (see :class:`chronica.BrowsableStore`)."""
        with self._reading() as conn:
            if conn is None:
                return []
            return browse.chronica_page(conn, self._browse, owner_id, offset, limit)

    def acta_page(
        self,
        chronicum_id: str,
        *,
        owner_id: str,
        limit: int,
        before: int | None = None,
        after: int | None = None,
        last_n: int = 0,
        actum_kinds: Sequence[ActumKind] | None = None,
        actor_kinds: Sequence[ActorKind] | None = None,
        preview_chars: int = 0,
    ) -> ActaPage:
        """A page of one window of the chronicum, read by index from the cursor."""
        window = {
            "owner": owner_id,
            "chronicum": chronicum_id,
            "kinds": sorted({ActumKind(k).value for k in actum_kinds}) if actum_kinds else None,
            "actors": sorted({ActorKind(k).value for k in actor_kinds}) if actor_kinds else None,
        }
        with self._reading() as conn:
            if conn is None:
                raise ChronicumNotFoundError(chronicum_id)
            return browse.acta_page(
                conn,
                self._browse,
                window,
                limit=limit,
                before=before,
                after=after,
                last_n=last_n,
                preview_chars=preview_chars,
            )

    def find_actum(self, actum_id: str, *, owner_id: str) -> ActumEntry | None:
        """The owner's actum of this ID, whole, at its position; None if the owner has none."""
        with self._reading() as conn:
            return browse.find_actum(conn, self._browse, owner_id, actum_id) if conn else None

    def counts(self, *, owner_id: str) -> ChronicaCounts:
        """How many chronica and acta the owner has (one index probe per chronicum)."""
        with self._reading() as conn:
            if conn is None:
                return ChronicaCounts(chronica=0, acta=0)
            return browse.counts(conn, self._browse, owner_id)

    def erase_owner(self, *, owner_id: str) -> ChronicaCounts:
        """Delete every chronicum and actum of ``owner_id`` in one transaction.

        Call it through :meth:`chronica.Chronicarius.erase_owner`. At commit no row of any of
        chronica's tables holds anything of the owner, for every query and every reader.
        What the server keeps below SQL is the server's: the deleted row versions stay in the
        table's files (and in WAL segments, replicas and backups) until ``VACUUM`` marks
        their space free and later writes reuse it; ``VACUUM FULL`` rewrites the table into
        new files and drops the old ones, and a plain ``VACUUM`` also trims empty pages at
        the end. Run ``VACUUM (FULL)`` on ``chronica_acta`` and ``chronica_chronica`` when the
        bytes themselves must go (it locks the tables while it runs; rotate WAL archives and
        backups by their own policy). Returns how many of each were removed.
        """
        with self._connection() as conn:
            return browse.erase_owner(conn, self._browse, owner_id)

    def erase_chronicum(self, chronicum_id: str, *, owner_id: str) -> ChronicaCounts:
        """Delete the owner's chronicum ``chronicum_id`` and its acta in one transaction;
        what ``VACUUM`` adds is as :meth:`erase_owner` says. Call it through
        :meth:`chronica.Chronicarius.erase_chronicum`."""
        with self._connection() as conn:
            return browse.erase_chronicum(conn, self._browse, chronicum_id, owner_id)

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
                rows.append(
                    (owner_id, actum.chronicum_id, seq, *codec.actum_params(actum, actum.at))
                )
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
        mode = ", read_only=True" if self._read_only else ""
        return f"PostgresStore(schema={self._schema!r}{mode})"

    @contextmanager
    def _reading(self) -> Iterator[psycopg.Connection[Any] | None]:
        """A connection to read with, or None while a read-only store's schema has no tables
        of chronica yet (once there, they stay)."""
        with self._connection() as conn:
            if not self._ready:
                self._ready = readable(conn, self._schema)
            yield conn if self._ready else None

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        try:
            with self._pool.connection() as conn:
                yield conn
        except psycopg.Error as e:
            raise StoreError(f"PostgreSQL ({self._schema}): {e}") from e

    def _open_direct(self, dsn: str, quoted: str, timeout: float) -> None:
        """Migrate (or, read-only, check) over a plain connection, so a wrong DSN or a server
        that is down fails now and clearly, where a pool would retry until its timeout."""
        try:
            with psycopg.connect(
                dsn, autocommit=True, connect_timeout=max(1, int(timeout))
            ) as conn:
                if self._read_only:
                    self._ready = readable(conn, self._schema)
                else:
                    migrate(conn, quoted, self._schema)
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


def _read_only(conn: psycopg.Connection[Any]) -> None:
    """Configure a read-only store's connection: no transaction on it can write."""
    conn.execute("SET default_transaction_read_only = on")
