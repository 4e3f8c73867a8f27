"""The semantic channel: finds what a question means when it shares no word with the answer.

Every fact and episode gets a vector in the memory's vector space (:mod:`.spaces`), written
with it (:mod:`.vectors`): by default the small static model shipped in ``model/`` (all-MiniLM-L6-v2
distilled into one vector per WordPiece token, :mod:`.model`), or the transformer itself with
the ``encoder`` extra (:mod:`.transformer`). At recall the owner's nearest items by meaning are
found by an exact search over the process's copy of their vectors (:mod:`.nearest`), whatever
their words. Without numpy or the model files the channel is off and recall is what the other
channels make of it.

May import :mod:`chronomem.engine.dialect` and numpy (lazily); nothing else of chronomem.
"""
