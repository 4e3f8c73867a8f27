"""chronica's tables inside one PostgreSQL schema: DDL, migrations and every statement.

Kept free of any driver import: it only builds SQL text, so :mod:`chronica.stores.postgres`
stays the one module that imports psycopg. The schema name is checked against a strict
identifier pattern before it is ever interpolated, then always double-quoted.

Version 2 keys chronica by ``(owner_id, id)``, so each owner has a namespace of their own
(see :mod:`chronica.store`), and makes actum IDs unique in the schema.
"""

from __future__ import annotations

import re

from chronica._errors import InvalidArgumentError

__all__ = ["SCHEMA_VERSION", "Statements", "migrations", "quoted_schema"]

SCHEMA_VERSION = 2
"""The chronica schema this code writes; a database with a higher version is refused."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


def quoted_schema(name: str) -> str:
    """Return ``name`` double-quoted for SQL, or raise if it is not a plain identifier."""
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise InvalidArgumentError(
            "schema", "must be letters, digits and underscores (max 63), not starting with a digit"
        )
    return f'"{name}"'


def migrations(s: str) -> dict[int, tuple[str, ...]]:
    """Migration N brings schema ``s`` (already quoted) from version N - 1 to N."""
    return {
        1: (
            f"CREATE TABLE {s}.chronica_schema (version integer NOT NULL)",
            # last_seq is the per-chronicum counter: incrementing it takes the row lock that
            # orders concurrent appends, so seq N+1 is never visible before seq N.
            f"""CREATE TABLE {s}.chronica_chronica (
                id            text PRIMARY KEY,
                owner_id      text NOT NULL,
                created_at    timestamptz NOT NULL,
                last_seq      bigint NOT NULL DEFAULT 0,
                created_order bigint GENERATED ALWAYS AS IDENTITY
            )""",
            f"""CREATE TABLE {s}.chronica_acta (
                chronicum_id    text NOT NULL REFERENCES {s}.chronica_chronica (id),
                seq             bigint NOT NULL,
                id              text NOT NULL,
                kind            text NOT NULL,
                actor_kind      text NOT NULL,
                actor           text NOT NULL,
                content         text NOT NULL,
                metadata        jsonb NOT NULL,
                at              timestamptz NOT NULL,
                idempotency_key text,
                PRIMARY KEY (chronicum_id, seq)
            )""",
            f"""CREATE UNIQUE INDEX chronica_acta_by_key
                ON {s}.chronica_acta (chronicum_id, idempotency_key)
                WHERE idempotency_key IS NOT NULL""",
        ),
        # Chronica keyed by (owner, id); acta carry their owner and have unique IDs. The
        # constraint names are the ones PostgreSQL gave version 1's inline constraints.
        2: (
            f"ALTER TABLE {s}.chronica_acta DROP CONSTRAINT chronica_acta_chronicum_id_fkey",
            f"ALTER TABLE {s}.chronica_acta DROP CONSTRAINT chronica_acta_pkey",
            f"DROP INDEX {s}.chronica_acta_by_key",
            f"ALTER TABLE {s}.chronica_acta ADD COLUMN owner_id text",
            f"""UPDATE {s}.chronica_acta AS a SET owner_id = c.owner_id
                FROM {s}.chronica_chronica AS c WHERE c.id = a.chronicum_id""",
            f"ALTER TABLE {s}.chronica_acta ALTER COLUMN owner_id SET NOT NULL",
            f"ALTER TABLE {s}.chronica_chronica DROP CONSTRAINT chronica_chronica_pkey",
            f"ALTER TABLE {s}.chronica_chronica ADD PRIMARY KEY (owner_id, id)",
            f"ALTER TABLE {s}.chronica_acta ADD PRIMARY KEY (owner_id, chronicum_id, seq)",
            f"""ALTER TABLE {s}.chronica_acta ADD FOREIGN KEY (owner_id, chronicum_id)
                REFERENCES {s}.chronica_chronica (owner_id, id)""",
            f"""CREATE UNIQUE INDEX chronica_acta_by_key
                ON {s}.chronica_acta (owner_id, chronicum_id, idempotency_key)
                WHERE idempotency_key IS NOT NULL""",
            # Before version 2, processes that seeded random alike could mint one ID twice:
            # the earliest actum keeps it, later ones get a fresh (random, version 4) UUID.
            f"""UPDATE {s}.chronica_acta SET id = gen_random_uuid()::text WHERE ctid IN (
                SELECT ctid FROM (
                    SELECT ctid, row_number() OVER (PARTITION BY id ORDER BY at, seq) AS n
                    FROM {s}.chronica_acta
                ) AS numbered WHERE n > 1
            )""",
            f"CREATE UNIQUE INDEX chronica_acta_by_id ON {s}.chronica_acta (id)",
        ),
    }


_COLUMNS = "id, kind, actor_kind, actor, content, metadata, at"
# Read metadata as text: most acta have none, and skipping the driver's jsonb decoder for
# "{}" makes a 20-actum window about a third cheaper.
SELECTED = "id, kind, actor_kind, actor, content, metadata::text, at"


class Statements:
    """Every statement of the store, built once for one (already quoted) schema name.

    Each names the owner with the chronicum, so no statement can reach another owner's
    rows by passing the same chronicum ID.
    """

    def __init__(self, s: str) -> None:
        chronicum = "owner_id = %s AND id = %s"
        self.chronicum = (
            f"SELECT id, owner_id, created_at FROM {s}.chronica_chronica WHERE {chronicum}"
        )
        self.create = (
            f"INSERT INTO {s}.chronica_chronica (owner_id, id, created_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (owner_id, id) DO NOTHING RETURNING id, owner_id, created_at"
        )
        # One statement, one round trip: bumping last_seq row-locks the chronicum until
        # commit, so appends to one chronicum commit strictly in seq order. No row, no insert.
        self.record = f"""
            WITH c AS (
                UPDATE {s}.chronica_chronica SET last_seq = last_seq + 1
                WHERE {chronicum} RETURNING owner_id, id, last_seq
            )
            INSERT INTO {s}.chronica_acta
                (owner_id, chronicum_id, seq, {_COLUMNS}, idempotency_key)
            SELECT c.owner_id, c.id, c.last_seq, %s, %s, %s, %s, %s, %s::jsonb, %s, %s FROM c
            ON CONFLICT (owner_id, chronicum_id, idempotency_key)
                WHERE idempotency_key IS NOT NULL
            DO NOTHING"""
        self.lock = f"SELECT last_seq FROM {s}.chronica_chronica WHERE {chronicum} FOR UPDATE"
        self.by_key = (
            f"SELECT {SELECTED} FROM {s}.chronica_acta "
            "WHERE owner_id = %s AND chronicum_id = %s AND idempotency_key = %s"
        )
        self.window = (
            f"SELECT {SELECTED} FROM {s}.chronica_acta WHERE owner_id = %s AND chronicum_id = %s"
            " AND (%s::text[] IS NULL OR kind = ANY(%s::text[]))"
            " AND (%s::text[] IS NULL OR actor_kind = ANY(%s::text[]))"
            " ORDER BY seq DESC LIMIT %s"
        )
        self.last_ids = (
            f"SELECT id FROM {s}.chronica_acta WHERE owner_id = %s AND chronicum_id = %s"
            " ORDER BY seq DESC LIMIT %s"
        )
        self.all_chronica = (
            f"SELECT id, owner_id, created_at FROM {s}.chronica_chronica ORDER BY created_order"
        )
        self.where_ids = (
            f"SELECT id, owner_id, chronicum_id FROM {s}.chronica_acta WHERE id = ANY(%s::text[])"
        )
        self.restore_actum = (
            f"INSERT INTO {s}.chronica_acta (owner_id, chronicum_id, seq, {_COLUMNS}) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)"
        )
        self.set_seq = f"UPDATE {s}.chronica_chronica SET last_seq = %s WHERE {chronicum}"
