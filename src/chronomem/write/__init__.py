"""The write path: one fact, one episode, or an imported record, stored with its index entries.

Validation happens before (``chronomem._validate``); these functions run inside the caller's
transaction. May import :mod:`chronomem.text`, :mod:`chronomem.claims`, the lexical index and the
engine's connection protocol.
"""
