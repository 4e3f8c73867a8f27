"""chronica's tables inside one PostgreSQL schema, created and migrated by the store itself.

Kept free of any driver import: it only builds SQL text, so :mod:`chronica.stores.postgres`
stays the one module that imports psycopg. The schema name is checked against a strict
identifier pattern before it is ever interpolated, then always double-quoted.
"""

from __future__ import annotations

import re

from chronica._errors import InvalidArgumentError

__all__ = ["SCHEMA_VERSION", "migrations", "quoted_schema"]

SCHEMA_VERSION = 1
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
    }
