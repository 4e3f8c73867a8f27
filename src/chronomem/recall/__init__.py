"""Recall: which items a query may see, the channels that find candidates, and their fusion.

Owns the lexical index (terms and BM25 statistics), the view (owner, kind, category, the two
time axes) and Reciprocal Rank Fusion. May import :mod:`chronomem.text` and the engine's connection
protocol; the write path imports :mod:`.lexindex` to index what it stores.
"""
