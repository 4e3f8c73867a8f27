"""BERT's uncased WordPiece tokenizer, in plain Python: text to the ids of the model's vocabulary.

The semantic model is a table with one vector per WordPiece token, so a sentence's vector needs
its token ids and nothing else of a transformer stack. This is the algorithm of BERT's
``BasicTokenizer`` + ``WordpieceTokenizer`` (lower case, accents stripped, punctuation and CJK
characters split off, then greedy longest-match-first sub-words); the tests hold it against
token ids the reference tokenizer produced. Written here rather than taken from ``tokenizers``
(a compiled package of several megabytes) because a few dozen lines do the whole job and a
sentence of chat takes tens of microseconds.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

__all__ = ["WordPiece"]

MAX_WORD_CHARS = 100  # BERT's own bound: a longer "word" is one unknown token


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


# _clean for ASCII text, as one translate: tab, newline and return are spaces, the other
# control characters (category Cc) go. Most chat is ASCII; the loop below costs a category
# lookup per character.
_ASCII_CLEAN: dict[int, str | None] = {**dict.fromkeys((*range(32), 127)), 9: " ", 10: " ", 13: " "}


def _clean(text: str) -> str:
    """Control characters dropped, whitespace made spaces, CJK characters spaced apart."""
    if text.isascii():
        return text.translate(_ASCII_CLEAN)
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD:
            continue
        cat = unicodedata.category(ch)
        if ch in "\t\n\r" or cat == "Zs":
            out.append(" ")
        elif cat.startswith("C"):
            continue
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    return "".join(out)


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def _split_punctuation(word: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    for ch in word:
        if _is_punctuation(ch):
            if current:
                parts.append("".join(current))
                current = []
            parts.append(ch)
        else:
            current.append(ch)
    if current:
        parts.append("".join(current))
    return parts


class WordPiece:
    """Text to token ids with one vocabulary (tokens in id order), as BERT's uncased tokenizer
    does."""

    def __init__(self, vocabulary: Sequence[str], unknown: str = "[UNK]") -> None:
        self.vocabulary = list(vocabulary)
        self._vocab = {token: i for i, token in enumerate(self.vocabulary)}
        self._unknown = self._vocab[unknown]
        self._words: dict[str, tuple[int, ...]] = {}
        """Ids per whitespace-separated word as lower-cased (bounded): chat repeats its words,
        so most words skip accent stripping, punctuation splitting and the sub-word search."""

    def ids(self, text: str, limit: int = 256) -> list[int]:
        """The token ids of ``text``, at most ``limit`` of them (a sentence's meaning is in
        its first few hundred tokens; the bound keeps a huge input cheap)."""
        out: list[int] = []
        for raw in _clean(text).lower().split():
            pieces = self._words.get(raw)
            if pieces is None:
                split = _split_punctuation(_strip_accents(raw))
                pieces = tuple(i for word in split for i in self._pieces(word))
                if len(self._words) < 200_000:  # a bounded cache of known words
                    self._words[raw] = pieces
            out.extend(pieces)
            if len(out) >= limit:
                return out[:limit]
        return out

    def _pieces(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return (self._unknown,)
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self._vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self._unknown,)
            pieces.append(found)
            start = end
        return tuple(pieces)
