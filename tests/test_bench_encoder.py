"""scripts/bench_encoder.py measures every runtime on real speech, and its report renders as the
docs' generated block does (a smoke run: a few questions, one batch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripts import bench_encoder, readme_tables

from tests.chronomem.locomo_data import development_conversation


def test_a_small_run_measures_every_side_and_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    development_conversation("conv-30")  # skips without the set, fails in CI
    assert bench_encoder.main(["--questions", "6", "--batches", "1", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "encoder.json").read_text())
    assert [row["side"] for row in report["rows"]] == list(bench_encoder.SIDES)
    assert all(row["question_p50_ms"] > 0 and row["batch_item_ms"] > 0 for row in report["rows"])
    fp32 = report["agreement"]["onnxruntime fp32, 1 thread"]
    assert fp32["stored_bytes_equal"] == fp32["texts"] == 300
    assert set(report["builds"]) == {"fp32", "q8"}
    assert report["installed_mb"]["onnxruntime"] > 10
    assert all(m["after_mb"] > m["before_mb"] for m in report["resident_mb"].values())
    assert "| onnxruntime int8, 1 thread |" in (tmp_path / "encoder.md").read_text()
    monkeypatch.setattr(readme_tables, "_load", lambda name: report)
    block = readme_tables.encoder()
    assert "bench/encoder.md" in block
    assert "stored the bytes numpy's pass does for 300" in block
    assert "MB more with onnx-fp32" in block
