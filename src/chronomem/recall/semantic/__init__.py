"""The semantic channel: finds what a question means when it shares no word with the answer.

A small static model (all-MiniLM-L6-v2 distilled into one vector per WordPiece token, shipped
in ``model/``; see :mod:`.model`) gives every fact and episode a vector, written with it
(:mod:`.vectors`). At recall the channel ranks the candidates the indexed channels pooled by
cosine with the question's vector; it never scans a table, so its cost does not grow with the
memory. Without numpy or the model files the channel is off and recall is what it was.

May import :mod:`chronomem.engine.dialect` and numpy (lazily); nothing else of chronomem.
"""
