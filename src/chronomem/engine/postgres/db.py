"""A pool of PostgreSQL connections for one :class:`~chronomem.ChronoMem`.

The only chronomem module that imports psycopg (the ``postgres`` extra). It offers what
``_db.Database`` offers on SQLite: ``write()`` and ``read()`` transactions that yield a
connection speaking chronomem's ``?`` statements, and errors translated to
:class:`~chronomem.DatabaseError`.

Concurrency is the server's: a write is a READ COMMITTED transaction on its own pooled
connection, serialised against other writers only where they touch the same rows (the fact a
``supersede`` ends is locked ``FOR UPDATE``); a read is a REPEATABLE READ, READ ONLY
transaction, one snapshot across its statements, and never waits for a writer. Threads share
the pool; each borrows a connection for one transaction, and a write inside another write of
the same thread (a batch) is a savepoint of it.

Durability is the server's too: with ``synchronous_commit = on`` (PostgreSQL's default) an
acknowledged write survives a crash or power loss of the server.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import re
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import psycopg
import psycopg.conninfo
import psycopg_pool

from chronomem._errors import DatabaseError, InvalidArgumentError
from chronomem.engine.dialect import Cursor, Dialect
from chronomem.engine.postgres.dialect import POSTGRES, HeldCounters
from chronomem.engine.postgres.held import NOTHING_TO_READ, HeldInserts, held_table, many_rows
from chronomem.engine.postgres.schema import SCHEMA_VERSION, migrate, quoted_schema
from chronomem.engine.postgres.statistics import analyse_if_blind, is_checkpoint
from chronomem.engine.upgrades import DataUpgrade

__all__ = ["PostgresDatabase", "memory_exists", "redacted", "scrubbed"]

log = logging.getLogger("chronomem.postgres")

_POOL_TIMEOUT_SECONDS = 60.0
_STATISTICS_WAIT_SECONDS = 1.0
"""How long gathering planner statistics after a write waits for a free connection."""
_MAX_PARAMETERS = 10_000
"""Parameters of one multi-row insert made of an ``executemany`` (PostgreSQL's cap: 65,535)."""


@functools.lru_cache(maxsize=64)
def _call_statement(quoted_schema: str, function: str, count: int) -> str:
    # The schema named: a borrowed pool's connections have no search_path of ours (the
    # function sets its own for its body).
    if not function.isidentifier():
        raise ValueError(f"not a function name: {function!r}")
    return f"SELECT * FROM {quoted_schema}.{function}({', '.join(['%s'] * count)})"


@functools.lru_cache(maxsize=1024)
def _translate(sql: str) -> str:
    # chronomem's statements use "?"; psycopg takes "%s", and a literal "%" must be doubled.
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresConnection:
    """A psycopg connection inside one transaction, speaking chronomem's statements.

    Inserts nobody reads back are held and sent together, as one statement, when anything
    else runs (see :mod:`.held`); :meth:`flush` sends them before a transaction or savepoint
    ends."""

    __slots__ = ("_conn", "_held", "counters", "vector_space")

    def __init__(self, conn: psycopg.Connection[Any], counters: HeldCounters | None = None) -> None:
        self._conn = conn
        self._held = HeldInserts()
        self.vector_space: object = None  # what the memory embeds with (never read here)
        self.counters = counters
        """A write transaction's counter changes, written at its end (``None``: at once)."""

    @property
    def raw(self) -> psycopg.Connection[Any]:
        """The driver's connection, for a savepoint of this transaction (every statement
        made so far sent first)."""
        self.flush()
        return self._conn

    @property
    def dialect(self) -> Dialect:
        """PostgreSQL's statements."""
        return POSTGRES

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        """Run one statement; its rows are tuples. An insert that may be held is (its
        cursor has no rows to read)."""
        table = held_table(sql)
        if table is None:
            query = _translate(sql)
            together = self._held.take_before(sql, query, parameters)
            if together is not None:
                return self._conn.execute(*together)
            self.flush()
            return self._conn.execute(query, parameters)
        if self._held.holds(table):
            self.flush()
        self._held.hold(table, _translate(sql), parameters)
        return NOTHING_TO_READ

    def executemany(self, sql: str, seq_of_parameters: Iterable[Sequence[Any]], /) -> None:
        """Run the statement for each parameter row: an insert that may be held as one
        statement of all the rows, anything else one statement per row, each queued in the
        write's pipeline (nothing waits for the server until a row is read or at COMMIT)."""
        rows = list(seq_of_parameters)
        if not rows:
            return
        if held_table(sql) is not None:
            # A statement takes at most 65,535 parameters: a long list goes in parts.
            step = max(1, _MAX_PARAMETERS // max(1, len(rows[0])))
            parts = [many_rows(sql, rows[i : i + step]) for i in range(0, len(rows), step)]
            together = [part for part in parts if part is not None]
            if len(together) == len(parts):
                for statement, parameters in together:
                    self.execute(statement, parameters)
                return
        for row in rows:
            self.execute(sql, row)

    def flush(self) -> None:
        """Send the held inserts (one statement), queued in the pipeline like any other."""
        taken = self._held.take()
        if taken is not None:
            self._conn.execute(*taken)

    def drop_held(self) -> None:
        """Forget the held inserts unsent: the transaction or savepoint they belong to is
        being undone."""
        self._held.drop()


def redacted(dsn: str) -> str:
    """The DSN without its password, for ``path`` and error messages."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "postgresql://(unparsable DSN)"
    user = parts.get("user")
    host = str(parts.get("host") or "localhost")
    port = f":{parts['port']}" if parts.get("port") else ""
    where = (
        f"/{parts.get('dbname') or ''}?host={host}"
        if host.startswith("/")
        else (f"{host}{port}/{parts.get('dbname') or ''}")
    )
    return f"postgresql://{f'{user}@' if user else ''}{where}"


_KEYWORD_PASSWORD = re.compile(r"(?:^|[\s?&])password\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&#]+)")


def _passwords(dsn: str) -> set[str]:
    """Every way ``dsn``'s password may be spelt in a message: as written and decoded, from
    the URL's user part (read by hand, so a DSN libpq rejects is covered too), a ``password=``
    query parameter or keyword. Over-inclusive on an odd DSN, which only blanks more."""
    found: set[str] = set()
    _, sep, rest = dsn.partition("://")
    if sep:
        # The user part ends at an "@", but a bare "@" may sit in the password: try each.
        at = rest.find("@")
        while at != -1:
            password = rest[:at].partition(":")[2]
            found.update((password, urllib.parse.unquote(password)))
            at = rest.find("@", at + 1)
    for match in _KEYWORD_PASSWORD.finditer(dsn):
        value = match.group(1)
        found.update((value, urllib.parse.unquote(value), value.strip("'").replace("\\", "")))
    return {p for p in found if p}


def scrubbed(text: str, dsn: str) -> str:
    """``text``, a driver's message about ``dsn``, with its password blanked out.

    libpq quotes the part of a DSN it cannot read (``invalid percent-encoded token:
    "pa%ss"``), which can be the password itself: such a message is never shown as it came.
    """
    for secret in sorted(_passwords(dsn), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _cannot_open(where: str, error: psycopg.Error, dsn: str) -> DatabaseError:
    message = scrubbed(str(error), dsn)
    failure = DatabaseError(f"cannot open {where}: {message}")
    # A driver error that quoted the password must not travel on as this one's cause either
    # (a traceback would print it); a clean one stays chained for whoever debugs.
    failure.__cause__ = error if message == str(error) else None
    failure.__suppress_context__ = True
    return failure


def memory_exists(dsn: str, schema: str = "chronomem") -> bool:
    """Whether ``schema`` on the server holds a chronomem memory, checked without creating
    anything: for a command that only reads, which must not create a memory to say that
    there is none."""
    quoted_schema(schema)
    try:
        with psycopg.connect(dsn, connect_timeout=10, autocommit=True) as raw:
            row = raw.execute(
                "SELECT to_regclass(format('%%I.chronomem_schema', %s::text)) IS NOT NULL",
                (schema,),
            ).fetchone()
    except psycopg.Error as e:
        raise _cannot_open(redacted(dsn), e, dsn)  # noqa: B904  # the cause is chosen there
    return bool(row and row[0])


@contextlib.contextmanager
def _snapshot(raw: psycopg.Connection[Any], search_path: str | None) -> Iterator[None]:
    """A REPEATABLE READ, READ ONLY transaction whose snapshot is taken on entry, in one
    round trip (BEGIN, settings and the first query pipelined); reads then run unpipelined,
    each answered at once."""
    with raw.pipeline():
        raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        if search_path is not None:
            raw.execute(f"SET LOCAL search_path TO {search_path}")
        raw.execute("SELECT 1").fetchone()
    try:
        yield
    except BaseException:
        # The error that ended the read is the one to report, even if the rollback fails too
        # (a broken connection): the pool discards such a connection.
        with contextlib.suppress(psycopg.Error):
            raw.execute("ROLLBACK")
        raise
    raw.execute("COMMIT")


_SAVEPOINT = "chronomem_write"
"""The name of a nested write's savepoint (a deeper one shadows it, as PostgreSQL allows)."""


@contextlib.contextmanager
def _autocommit(raw: psycopg.Connection[Any]) -> Iterator[None]:
    """The connection in autocommit mode while chronomem uses it, so the BEGIN it sends is the
    only one: a borrowed pool's connections may not be, and psycopg would then open a
    transaction of its own first (a round trip, and the READ ONLY snapshot's isolation level
    refused with "already a transaction in progress"). The caller's setting is put back."""
    if raw.autocommit:
        yield
        return
    raw.autocommit = True
    try:
        yield
    finally:
        if raw.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            raw.autocommit = False


@contextlib.contextmanager
def _pipelined(raw: psycopg.Connection[Any], search_path: str | None) -> Iterator[None]:
    """A write transaction in one pipeline: a statement waits for the server only when its
    rows are read, BEGIN travels with the first statement that is, and the last statements,
    the counters and COMMIT travel together, answered by the one Sync of the pipeline's end.

    ``raw.transaction()`` would cost three more round trips: it nests pipelines, syncing once
    after BEGIN, once before COMMIT and once after it. A savepoint of this transaction (a
    nested write, :meth:`PostgresDatabase.write`) still uses it: it syncs first, so it sees
    the transaction open and makes a savepoint, never a second BEGIN.
    """
    commit_sent = False
    try:
        with raw.pipeline():
            raw.execute("BEGIN")
            if search_path is not None:
                raw.execute(f"SET LOCAL search_path TO {search_path}")
            yield
            raw.execute("COMMIT")
            commit_sent = True  # a COMMIT that fails ends the transaction all the same
    finally:
        if not commit_sent and raw.pgconn.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            # The error that ended the write is the one to report, even if the rollback
            # fails too (a broken connection): the pool discards such a connection.
            with contextlib.suppress(psycopg.Error):
                raw.execute("ROLLBACK")


class PostgresDatabase:
    """A pool (owned, from a DSN, or borrowed) and chronomem's tables in ``schema``."""

    schema_version = SCHEMA_VERSION
    read_only = False
    """Never known ahead: a role's rights show when it writes."""
    vector_space: object = None
    """What the memory embeds with, handed to every connection (the engine never reads it)."""

    def __init__(
        self,
        target: str | psycopg_pool.ConnectionPool,
        *,
        upgrade: DataUpgrade,
        schema: str = "chronomem",
        max_size: int = 10,
    ) -> None:
        self._upgrade = upgrade
        self._quoted = quoted_schema(schema)
        self.schema = schema
        # The write transaction each thread has open (a batch), which its nested writes and
        # reads join.
        self._local = threading.local()
        self._writes = itertools.count(1)  # top-level writes, for planner statistics
        if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
            raise InvalidArgumentError("max_size", "must be an int >= 1")
        if isinstance(target, psycopg_pool.ConnectionPool):
            self._pool, self._owns_pool = target, False
            self.path = f"{target.name} (a borrowed pool), schema {schema}"
            with self.write() as conn:
                migrate(conn, schema, self._upgrade)
            self._writes = itertools.count(1)  # the memory's own writes count from here
            return
        if not isinstance(target, str):
            raise InvalidArgumentError("path", "must be a file path, a DSN or a ConnectionPool")
        self.path = f"{redacted(target)}, schema {schema}"
        options = {"autocommit": True, "options": f"-c search_path={self._quoted}"}
        self._migrate_direct(target, options)
        self._pool = psycopg_pool.ConnectionPool(
            target,
            min_size=1,
            max_size=max_size,
            kwargs=options,
            timeout=_POOL_TIMEOUT_SECONDS,
            open=True,
            name=f"chronomem-{schema}",
        )
        self._owns_pool = True

    def _migrate_direct(self, dsn: str, options: dict[str, Any]) -> None:
        """Connect once before opening the pool: a wrong DSN or a server that is down is a
        clear error now, not a pool timeout a minute later."""
        try:
            with psycopg.connect(dsn, connect_timeout=10, **options) as raw, raw.transaction():
                conn = PostgresConnection(raw)
                migrate(conn, self.schema, self._upgrade)
                conn.flush()
        except psycopg.Error as e:
            raise _cannot_open(self.path, e, dsn)  # noqa: B904  # the cause is chosen there

    @contextlib.contextmanager
    def _transaction(self, *, read_only: bool) -> Iterator[PostgresConnection]:
        action = "read" if read_only else "write"
        with self._translated(action), self._pool.connection() as raw, _autocommit(raw):
            if read_only:
                with _snapshot(raw, None if self._owns_pool else self._quoted):
                    reader = PostgresConnection(raw)
                    reader.vector_space = self.vector_space
                    yield reader
                return
            with _pipelined(raw, None if self._owns_pool else self._quoted):
                conn = PostgresConnection(raw, HeldCounters())
                conn.vector_space = self.vector_space
                try:
                    yield conn
                except BaseException:
                    conn.drop_held()
                    raise
                POSTGRES.settle(conn)
                conn.flush()

    @contextlib.contextmanager
    def _translated(self, action: str) -> Iterator[None]:
        """The driver's and the pool's errors as :class:`DatabaseError`, naming ``action``."""
        try:
            yield
        except psycopg_pool.PoolClosed as e:
            # A call in flight (another thread, an AsyncChronoMem coroutine) when the memory
            # closed: one clear refusal, not the pool's own words (issue 39 item 17).
            raise DatabaseError(f"{self.path}: the memory is closed") from e
        except psycopg_pool.PoolTimeout as e:
            raise DatabaseError(f"no connection to {self.path} within the timeout: {e}") from e
        except psycopg.Error as e:
            raise DatabaseError(f"{action} failed on {self.path}: {e}") from e

    def _committed(self) -> None:
        """After each top-level write: planner statistics, now and then (statistics.py)."""
        if is_checkpoint(next(self._writes)):
            self._gather_statistics()

    @contextlib.contextmanager
    def write(self) -> Iterator[PostgresConnection]:
        """One transaction: all of it commits, or none of it.

        Inside another write of this thread (a batch) it is a savepoint of that transaction,
        on its connection: it commits with the batch, and on an error it alone is undone."""
        outer = getattr(self._local, "conn", None)
        if outer is not None:
            yield from self._savepoint(outer)
            return
        with self._transaction(read_only=False) as conn:
            self._local.conn = conn
            try:
                yield conn
            finally:
                self._local.conn = None
        self._committed()

    def _savepoint(self, outer: PostgresConnection) -> Iterator[PostgresConnection]:
        """A write inside this thread's open write: a savepoint of its transaction, undone
        alone on an error, committed with the transaction.

        The savepoint is SQL of its own, not psycopg's ``transaction()``: in pipeline mode,
        once a read of the batch had fetched its rows, psycopg saw the connection idle (the
        BEGIN was chronomem's own), so ``transaction()`` began and committed a transaction of
        its own, and a batch that read before it wrote committed its writes one by one (an
        exception later rolled back nothing before it)."""
        raw = outer.raw
        mark = outer.counters.mark() if outer.counters is not None else 0
        raw.execute(f"SAVEPOINT {_SAVEPOINT}")
        try:
            try:
                yield outer
            except BaseException:
                outer.drop_held()  # the savepoint's own inserts, never sent
                raise
            outer.flush()  # inside the savepoint: an error in them undoes it alone
            with raw.pipeline() as pipeline:
                pipeline.sync()  # the savepoint's errors surface here, while it can be undone
            raw.execute(f"RELEASE SAVEPOINT {_SAVEPOINT}")
        except BaseException as e:
            if outer.counters is not None:  # the savepoint's own counter changes go too
                outer.counters.undo(mark)
            with contextlib.suppress(psycopg.Error):
                raw.execute(f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}")
                raw.execute(f"RELEASE SAVEPOINT {_SAVEPOINT}")
            if isinstance(e, psycopg.Error):
                raise DatabaseError(f"write failed on {self.path}: {e}") from e
            raise

    @contextlib.contextmanager
    def statement(self) -> Iterator[PostgresConnection]:
        """One read statement on an autocommit connection, its own snapshot, in one round
        trip (see :class:`Storage`). A borrowed pool's connections may have another
        ``search_path``, which only a transaction can set: there it is :meth:`read`."""
        outer = getattr(self._local, "conn", None)
        if outer is not None or not self._owns_pool:
            with self.read() as conn:
                yield conn
            return
        with self._translated("read"), self._pool.connection() as raw, _autocommit(raw):
            reader = PostgresConnection(raw)
            reader.vector_space = self.vector_space
            yield reader

    def call(self, function: str, arguments: Callable[[], Sequence[Any]]) -> tuple[Any, ...] | None:
        """Call chronomem's ``function`` in this memory's schema as a transaction of its own:
        one statement on an autocommit connection, so neither BEGIN nor COMMIT is sent, and
        one round trip. ``None`` inside a batch of this thread (see :class:`Storage`)."""
        if getattr(self._local, "conn", None) is not None:
            return None
        values = list(arguments())
        statement = _call_statement(self._quoted, function, len(values))
        with self._translated("write"), self._pool.connection() as raw, _autocommit(raw):
            row = raw.execute(statement, values).fetchone()
        self._committed()
        return tuple(row) if row is not None else None

    def _gather_statistics(self) -> None:
        """Analyse the tables a new memory's planner is still blind to (see statistics.py),
        on a connection of its own after the write committed; skipped when none is free."""
        try:
            with self._pool.connection(timeout=_STATISTICS_WAIT_SECONDS) as raw, _autocommit(raw):
                analyse_if_blind(raw, self.schema)
        except psycopg_pool.PoolClosed:
            return  # the memory closed after the write: nothing is owed to its planner
        except (psycopg_pool.PoolTimeout, psycopg.Error) as e:
            log.warning("could not gather planner statistics for %s: %s", self.path, e)

    @contextlib.contextmanager
    def read(self) -> Iterator[PostgresConnection]:
        """One snapshot across several statements, taken on entry (so a time read inside is
        later than every write it holds); never waits for a writer. Inside a write of this
        thread it reads that transaction, its own writes included."""
        outer = getattr(self._local, "conn", None)
        if outer is not None:
            try:
                yield outer
            except psycopg.Error as e:
                raise DatabaseError(f"read failed on {self.path}: {e}") from e
            return
        with self._transaction(read_only=True) as conn:
            yield conn

    def close(self) -> None:
        """Close the pool if this memory opened it; safe to call twice."""
        if self._owns_pool:
            self._pool.close()
