"""The storage engines: where chronomem's tables live and how each database is spoken to.

Owns connections, transactions, schemas and their migrations, and the few statements whose SQL
differs between engines (:mod:`.dialect` says which). One subpackage per engine: :mod:`.sqlite`
(the embedded default) and :mod:`.postgres` (``psycopg`` is imported there and nowhere else).
:mod:`.storage` picks one from what the caller passed. :mod:`.facts` holds the statements the
memory runs on whole items of the facts table (the same SQL on both engines).

May import: :mod:`chronomem._errors`, the text and claim readers a migration re-runs, and
chronica's SQLite helpers (one file may hold both packages). Imports no front door.
"""
