"""Vector spaces: which model turns a text into the vector a memory stores and searches.

A memory's vectors all come from one space, recorded in its file (``chronomem_settings``), so
two spaces never mix in one nearest-neighbour search:

* ``static`` (the default): the token table shipped in the package (:mod:`.model`), 256
  signed bytes a text, in microseconds; a write pays nothing measurable for it.
* ``minilm-l6``: all-MiniLM-L6-v2's transformer (:mod:`.transformer`, the ``encoder``
  extra), 384 signed bytes a text, in milliseconds; batch writes encode in batches. Run by
  onnxruntime where it is installed, else by numpy: the same stored bytes either way.
* ``minilm-l6-q8``: the same transformer with its products in integers (onnxruntime only).
  Its vectors are near the fp32 ones but not the same bytes, so it is a space of its own: a
  file made with one is refused by the other, and ``chronomem reindex --encoder`` moves it.

A space quantises every unit vector to signed bytes (times 127), so a stored vector is a
quarter of float32's size and the cosine of two is their dot product over 127**2.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from chronomem.recall.semantic.model import DIM as STATIC_DIM
from chronomem.recall.semantic.model import load_model, quantise

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DEFAULT_SPACE", "SPACE_NAMES", "VectorSpace", "space_named"]

DEFAULT_SPACE = "static"
SPACE_NAMES = ("static", "minilm-l6", "minilm-l6-q8")
_PRIMED_MAX = 4096  # vectors a batch may encode ahead of its transaction


class VectorSpace(Protocol):
    """A model that embeds texts as quantised unit vectors of ``dim`` signed bytes."""

    @property
    def name(self) -> str:
        """The name recorded in a memory's file."""
        ...

    @property
    def dim(self) -> int:
        """Dimensions (bytes) of a stored vector."""
        ...

    @property
    def coarse(self) -> int:
        """How many leading dimensions rank well enough alone to shortlist a search."""
        ...

    def unit(self, text: str) -> npt.NDArray[np.float32] | None:
        """``text``'s unit vector, or ``None`` when it has nothing to embed."""
        ...

    def vector(self, text: str) -> bytes | None:
        """The quantised vector stored for ``text`` (``None``: nothing to store)."""
        ...

    def prime(self, texts: Sequence[str]) -> None:
        """Encode ``texts`` now, in batches, so the ``vector`` calls of a transaction about
        to store them find them ready (a batch write encodes outside its lock)."""
        ...


class StaticSpace:
    """The shipped token table: a lookup per text, nothing to prime."""

    name = "static"
    dim = STATIC_DIM
    coarse = 64  # the table's dimensions come in order of variance (PCA)

    def unit(self, text: str) -> npt.NDArray[np.float32] | None:
        model = load_model()
        return None if model is None else model.unit(text)

    def vector(self, text: str) -> bytes | None:
        model = load_model()
        return None if model is None else model.encode(text)

    def prime(self, texts: Sequence[str]) -> None:
        del texts  # a lookup is as fast inside the transaction


class EncoderSpace:
    """all-MiniLM-L6-v2 (``minilm-l6``) or its int8 graph (``minilm-l6-q8``): texts primed in
    batches, one question at a time."""

    dim = 384
    coarse = 384  # no dimension order to shortlist by: searched whole

    def __init__(self, name: str) -> None:
        from chronomem.recall.semantic.transformer import load_minilm

        try:
            encoder = load_minilm("onnx-q8" if name == "minilm-l6-q8" else None)
        except LookupError as e:  # the int8 graph without onnxruntime: numpy has no int8 pass
            raise LookupError(f"the {name} encoder {e}") from e
        if encoder is None:
            raise LookupError(
                f"the {name} encoder needs the encoder extra: pip install 'chronomem[encoder]'"
            )
        self.name = name
        self._encoder = encoder
        self._primed: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def unit(self, text: str) -> npt.NDArray[np.float32] | None:
        if not text.strip():
            return None
        vector: npt.NDArray[np.float32] = self._encoder.encode([text])[0]
        return vector

    def vector(self, text: str) -> bytes | None:
        with self._lock:
            primed = self._primed.pop(text, None)
        if primed is not None:
            return primed
        unit = self.unit(text)
        return None if unit is None else quantise(unit)

    def prime(self, texts: Sequence[str]) -> None:
        wanted = [t for t in dict.fromkeys(texts) if t.strip()][:_PRIMED_MAX]
        if not wanted:
            return
        units = self._encoder.encode(wanted)
        with self._lock:
            if len(self._primed) > _PRIMED_MAX:
                self._primed.clear()  # primed by a batch that then failed: start again
            for text, unit in zip(wanted, units, strict=True):
                self._primed[text] = quantise(unit)


_spaces: dict[str, VectorSpace] = {}
_spaces_lock = threading.Lock()


def space_named(name: str) -> VectorSpace:
    """The process's space called ``name`` (made once); :class:`LookupError` for an unknown
    name or an encoder whose extra is not installed."""
    with _spaces_lock:
        space = _spaces.get(name)
        if space is None:
            if name == "static":
                space = StaticSpace()
            elif name in ("minilm-l6", "minilm-l6-q8"):
                space = EncoderSpace(name)
            else:
                raise LookupError(f"unknown vector space {name!r}; known: {', '.join(SPACE_NAMES)}")
            _spaces[name] = space
        return space
