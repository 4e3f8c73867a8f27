"""A sentence's vector is computed without numpy's Python-level wrappers (a write's hot path,
issue 23): the float32 vector and the stored bytes must be exactly what ``.mean``,
``np.linalg.norm`` and ``np.clip`` gave, or every stored vector would drift from the ones
written before."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chronomem.recall.semantic.model import SCALE, Model, load_model

SENTENCES = [
    "My daughter is allergic to peanuts!",
    "I went to the dentist appointment last weekend and it was intense.",
    "I just finished reading 'The Touvai of Tazibou', it made me think about the diet.",
    "Café naïve résumé 日本語 emoji 😀 ok",
    "!!! ???",
    "x",
    "word " * 400,
]


@pytest.fixture(scope="module")
def model() -> Model:
    loaded = load_model()
    assert loaded is not None, "the semantic model ships with the package"
    return loaded


def _wrapped_unit(model: Model, text: str) -> npt.NDArray[np.float32] | None:
    """The unit vector as it was first written, through numpy's wrappers."""
    ids = model._wordpiece.ids(text)
    if not ids:
        return None
    vector = (model._tokens[ids] * model._scales[ids, None]).mean(axis=0)
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        return None
    unit: npt.NDArray[np.float32] = (vector / norm).astype(np.float32)
    return unit


def _wrapped_bytes(vector: npt.NDArray[np.float32]) -> bytes:
    return bytes(np.clip(np.rint(vector * SCALE), -127, 127).astype(np.int8).tobytes())


def _same(model: Model, text: str) -> None:
    expected = _wrapped_unit(model, text)
    got = model.unit(text)
    if expected is None:
        assert got is None
        assert model.encode(text) is None
        return
    assert got is not None
    assert got.dtype == np.float32
    assert np.array_equal(got, expected)
    assert model.encode(text) == _wrapped_bytes(expected)


@pytest.mark.parametrize("text", SENTENCES)
def test_a_sentence_encodes_as_the_wrapped_arithmetic_did(model: Model, text: str) -> None:
    _same(model, text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_encodes_as_the_wrapped_arithmetic_did(text: str) -> None:
    loaded = load_model()
    assert loaded is not None
    _same(loaded, text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-2.0, 2.0, width=32), min_size=8, max_size=8))
def test_quantise_clips_as_np_clip(values: list[float]) -> None:
    loaded = load_model()
    assert loaded is not None
    vector = np.array(values * 32, dtype=np.float32)  # DIM numbers, some past the unit range
    assert loaded.quantise(vector) == _wrapped_bytes(vector)
