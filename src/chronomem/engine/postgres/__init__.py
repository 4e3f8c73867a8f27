"""chronomem on PostgreSQL: a psycopg pool, one schema, migrations under an advisory lock.

The only place that imports ``psycopg``; it is installed by the ``postgres`` extra.
"""
