"""The storage engines: where chronomem's tables live and how each database is spoken to.

Owns connections, transactions, schemas and their migrations, and the few statements whose SQL
differs between engines (:mod:`.dialect` says which). One subpackage per engine: :mod:`.sqlite`
(the embedded default) and :mod:`.postgres` (``psycopg`` is imported there and nowhere else).
:mod:`.storage` picks one from what the caller passed. :mod:`.facts` holds the statements the
memory runs on whole items of the facts table (the same SQL on both engines).

A migration's data steps (index again, key again, embed) re-run the write path, which sits above
the engine: the engine names them (:mod:`.upgrades`) and calls the ``DataUpgrade`` it is handed
when storage opens (``chronomem.write.upgrade``). May import: :mod:`chronomem._errors` and
chronica's SQLite helpers (one file may hold both packages); nothing else of chronomem.
"""
