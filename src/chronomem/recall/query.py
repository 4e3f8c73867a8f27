"""A question as recall's channels read it: its terms, the speakers and time it names, and
the owner's statistics of those terms (one read of the counters per recall, shared by every
channel)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from chronomem.engine.dialect import Conn
from chronomem.recall.lexical import LexicalQuery, parse_query, speaker_keys
from chronomem.text.entities import entity_key
from chronomem.text.lexicon import query_terms

__all__ = ["MAX_QUERY_WORDS", "Asked", "speaker_key"]

MAX_QUERY_WORDS = 12


@lru_cache(maxsize=4096)
def speaker_key(speaker: str) -> str:
    return entity_key(speaker)


@dataclass(frozen=True)
class Asked:
    """A query as the channels read it, with the owner's statistics its scoring needs (one
    read of the counters per recall, shared by the lexical and entity channels)."""

    text: str
    q: LexicalQuery
    terms: list[str]
    dfs: dict[str, int]
    corpus: dict[str, tuple[int, float]]

    @classmethod
    def read(cls, conn: Conn, owner: str, text: str) -> Asked:
        # The statistics of every term the query might keep are read with its speakers, in
        # one go; a name is then dropped from the terms (see lexical.parse_query).
        wanted = query_terms(text)[: 2 * MAX_QUERY_WORDS]
        named, dfs, corpus = conn.dialect.query_statistics(conn, owner, speaker_keys(text), wanted)
        q = parse_query(text, named)
        terms = list(q.terms[:MAX_QUERY_WORDS])
        missing = [t for t in terms if t not in wanted]
        if missing:  # more than MAX_QUERY_WORDS of the first terms were a speaker's name
            dfs |= conn.dialect.query_statistics(conn, owner, [], missing)[1]
        return cls(text, q, terms, dfs, corpus)

    def items(self, *kinds: str) -> int:
        """How many items of ``kinds`` (all by default) the owner has indexed."""
        return sum(n for kind, (n, _) in self.corpus.items() if not kinds or kind in kinds)

    def lengths(self) -> tuple[int, float]:
        """All items and their total weighted length, for BM25."""
        return self.items(), sum(length for _, length in self.corpus.values())
