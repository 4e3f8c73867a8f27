"""Reading a safetensors file (the encoder's weights) without the safetensors package: the
format is an 8-byte header length, a JSON header naming each tensor's dtype, shape and byte
range, then the bytes. Both the numpy pass (:mod:`.transformer`) and the ONNX graph's builder
(:mod:`.onnx_encoder`) read the weights through it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["read_safetensors"]


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
