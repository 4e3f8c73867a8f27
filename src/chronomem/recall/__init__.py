"""Recall: which items a query may see, the channels that find candidates, and their fusion.

Owns the lexical index (terms and BM25 statistics, :mod:`.lexindex`), the view (owner, kind,
category, the two time axes: :mod:`.view`), the question as read (:mod:`.query`), each
channel's candidates (:mod:`.lexical_pool`, :mod:`.entity_graph`, :mod:`.semantic`, gathered
by :mod:`.channels`) and their Reciprocal Rank Fusion (:mod:`.fusion`). May import
:mod:`chronomem.text`, :mod:`chronomem._errors` and the engine; the write path imports
:mod:`.lexindex` and :mod:`.semantic` to index what it stores.
"""
