"""The write path: one fact, one episode, or an imported record, stored with its index entries.

Validation happens before (``chronomem._checks``); these functions run inside the caller's
transaction. :mod:`.upgrade` holds the data steps of schema migrations, which the engine calls
back when storage opens. May import :mod:`chronomem.text`, :mod:`chronomem.claims`,
:mod:`chronomem.recall` (to index what it stores) and the engine.
"""
