"""The semantic model: a sentence's meaning as one small vector, by table lookup.

The table is all-MiniLM-L6-v2 distilled into one vector per WordPiece token
(``scripts/distill_semantic.py`` says how); a text's vector is the mean of its tokens' vectors,
normalised. It ships inside the package (``model/``, about 8 MB), loads on first use in tens of
milliseconds, and embeds a sentence in microseconds, so a vector is written with its item in
the same transaction and a question is embedded on every recall, with no model server, no
download and no GPU.

Vectors are stored as ``DIM`` signed bytes (a unit vector times 127): a quarter of float32's
size, and the cosine of two of them is their integer dot product over 127**2, within about
1% of the float value: enough for a channel that ranks, not for one that measures.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chronomem.recall.semantic.threads import single_blas_thread
from chronomem.recall.semantic.wordpiece import WordPiece

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DIM", "Model", "cosines", "load_model", "model_available", "quantise"]

MODEL_DIR = Path(__file__).resolve().parent / "model"
DIM = 256
SCALE = 127.0
COARSE_DIMS = 64
COARSE_KEPT = 600

_lock = threading.Lock()


class Model:
    """The token table, the WordPiece vocabulary and the index's centroids."""

    def __init__(self, directory: Path | None = None) -> None:
        import numpy as np

        directory = directory or MODEL_DIR
        vocab = (directory / "vocab.txt").read_text(encoding="utf-8").splitlines()
        self._np = np
        self._wordpiece = WordPiece(vocab)
        # Kept as int8 with a scale per token (8 MB, not 31 MB of float32): a sentence reads
        # only its own few dozen rows, scaled as it reads them.
        self._tokens: npt.NDArray[np.int8] = np.load(directory / "tokens.npy")
        self._scales: npt.NDArray[np.float32] = np.load(directory / "scales.npy")
        if self._tokens.shape != (len(vocab), DIM) or self._scales.shape != (len(vocab),):
            raise ValueError(f"semantic model in {directory} is not {DIM}-dimensional")
        self._words: tuple[list[str], Any, npt.NDArray[np.float32]] | None = None

    def unit(self, text: str) -> npt.NDArray[np.float32] | None:
        """``text``'s unit vector (float32), or None when it has no token (empty, symbols)."""
        xp = self._np  # numpy, imported with the model
        ids = self._wordpiece.ids(text)
        if not ids:
            return None
        # The float32 arithmetic of ``.mean(axis=0)`` and ``np.linalg.norm`` (a float32 sum
        # divided by the count; the root of the dot product), without their Python-level
        # wrappers, which cost a third of a write's vector: the bytes stored are the same
        # (tests/chronomem/recall/test_semantic_encode.py holds them to the wrapped form).
        vector = xp.add.reduce(self._tokens[ids] * self._scales[ids, None], axis=0)
        xp.true_divide(vector, len(ids), out=vector, casting="unsafe")
        norm = float(xp.sqrt(vector.dot(vector)))
        if norm == 0.0:
            return None
        unit: npt.NDArray[np.float32] = (vector / norm).astype(xp.float32, copy=False)
        return unit

    def encode(self, text: str) -> bytes | None:
        """The vector to store for ``text``; None when it has no meaning to store."""
        vector = self.unit(text)
        return None if vector is None else self.quantise(vector)

    def quantise(self, vector: npt.NDArray[np.float32]) -> bytes:
        """A unit vector as DIM signed bytes."""
        return quantise(vector)

    def related_words(self, vector: npt.NDArray[np.float32], count: int) -> list[str]:
        """The ``count`` whole words of the vocabulary nearest to ``vector``, nearest first:
        what a question means, as words the lexical index can look up.

        The table's dimensions come in order of variance (PCA), so the first COARSE_DIMS of
        them rank the vocabulary roughly at a quarter of the cost; the best COARSE_KEPT are
        then ranked on every dimension.
        """
        np = self._np
        words, ids, coarse = self._word_table()
        with single_blas_thread():
            rough = coarse @ vector[:COARSE_DIMS]
        kept = min(COARSE_KEPT, len(rough) - 1)
        shortlist = np.argpartition(-rough, kept)[:kept]
        rows = self._tokens[ids[shortlist]].astype(np.float32)
        exact = (rows @ vector) / (np.linalg.norm(rows, axis=1) + 1e-9)
        best = shortlist[np.argsort(-exact)[:count]]
        return [words[i] for i in best]

    def _word_table(self) -> tuple[list[str], Any, npt.NDArray[np.float32]]:
        """Whole-word tokens (letters only, three or more), their ids, and their unit vectors'
        first COARSE_DIMS dimensions; built on first use, since only a recall whose words all
        missed needs them."""
        if self._words is None:
            np = self._np
            vocab = self._wordpiece.vocabulary
            ids = np.array(
                [i for i, t in enumerate(vocab) if len(t) >= 3 and t.isalpha() and t.isascii()]
            )
            rows = self._tokens[ids].astype(np.float32)
            rows /= np.linalg.norm(rows, axis=1, keepdims=True) + 1e-9
            coarse = np.ascontiguousarray(rows[:, :COARSE_DIMS])
            self._words = ([vocab[i] for i in ids], ids, coarse)
        return self._words

    def similarities(self, vector: npt.NDArray[np.float32], blobs: list[bytes]) -> Any:
        """Cosine of ``vector`` with each stored vector (float32 array, one per blob)."""
        return cosines(vector, blobs)


def quantise(vector: npt.NDArray[np.float32]) -> bytes:
    """A unit vector as signed bytes (times SCALE), as every vector space stores it."""
    import numpy as np

    # np.clip, as its two ufuncs: its Python wrapper costs more than clipping DIM numbers.
    scaled = np.rint(vector * SCALE)
    np.minimum(np.maximum(scaled, -127, out=scaled), 127, out=scaled)
    return bytes(scaled.astype(np.int8).tobytes())


def cosines(vector: npt.NDArray[np.float32], blobs: Sequence[bytes]) -> Any:
    """Cosine of the unit ``vector`` with each stored vector of its length (float32 array,
    one per blob), whatever the space."""
    import numpy as np

    if not blobs:
        return np.zeros(0, dtype=np.float32)
    stored = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), len(vector))
    return (stored.astype(np.float32) @ vector) / SCALE


@lru_cache(maxsize=1)
def model_available() -> bool:
    """Whether the semantic channel can run: numpy importable and the model files present."""
    try:
        import numpy  # noqa: F401  # only whether it imports
    except ImportError:
        return False
    return all((MODEL_DIR / name).is_file() for name in ("vocab.txt", "tokens.npy", "scales.npy"))


_model: Model | None = None


def load_model() -> Model | None:
    """The process's model (loaded once, on first use), or None when the channel is not
    installed: the memory then works as before, with its other channels."""
    global _model
    if _model is None and model_available():
        with _lock:
            if _model is None:
                _model = Model()
    return _model
