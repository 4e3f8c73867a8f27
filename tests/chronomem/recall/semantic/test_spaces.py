"""The int8 encoder is a vector space of its own: a file never mixes it with minilm-l6's
vectors, and reindex moves between them (issue 38). Without onnxruntime, minilm-l6 runs on
numpy with the same bytes, and the int8 space is refused with the extra to install."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chronomem import ChronoMem, DatabaseError
from chronomem.cli import main
from chronomem.recall.semantic import onnx_encoder, spaces, transformer
from chronomem.recall.semantic.spaces import SPACE_NAMES, space_named
from tests.chronomem.backends import MemoryTarget

ACCIDENT = "Bob had a lil car accident on Monday"


def test_the_int8_space_is_registered_under_its_own_name() -> None:
    assert "minilm-l6-q8" in SPACE_NAMES
    space = space_named("minilm-l6-q8")
    assert (space.name, space.dim) == ("minilm-l6-q8", 384)
    assert space.vector(ACCIDENT) != space_named("minilm-l6").vector(ACCIDENT)


@pytest.mark.parametrize(
    ("made", "asked"), [("minilm-l6", "minilm-l6-q8"), ("minilm-l6-q8", "minilm-l6")]
)
def test_a_file_of_one_encoder_refuses_the_other(
    made: str, asked: str, memory_target: MemoryTarget
) -> None:
    with memory_target.open(encoder=made) as mem:
        mem.remember(ACCIDENT)
    with pytest.raises(DatabaseError, match=f"reindex --encoder {asked}"):
        memory_target.open(encoder=asked)
    with memory_target.open() as again:
        assert again.encoder == made


def test_reindex_moves_a_file_to_the_int8_encoder_and_back(
    memory_target: MemoryTarget,
) -> None:
    with memory_target.open(encoder="minilm-l6") as mem:
        target = mem.remember(ACCIDENT)
        mem.remember("Ana practises the cello every evening")
        assert mem.reindex("minilm-l6-q8") == 2
        assert mem.encoder == "minilm-l6-q8"
        assert mem.recall("any vehicle accidents?")[0].id == target
        assert mem.reindex("minilm-l6") == 2
        assert mem.encoder == "minilm-l6"


def test_the_command_line_reindexes_to_the_int8_encoder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "m.db")
    assert main(["remember", ACCIDENT, "--db", db]) == 0
    capsys.readouterr()
    assert main(["reindex", "--encoder", "minilm-l6-q8", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"encoder": "minilm-l6-q8", "vectors": 1}
    with ChronoMem(db) as mem:
        assert mem.encoder == "minilm-l6-q8"


def test_without_onnxruntime_minilm_runs_on_numpy_and_the_int8_space_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_runtime = transformer.load_minilm()
    assert with_runtime is not None
    assert with_runtime.runtime == "onnx-fp32"
    monkeypatch.setattr(onnx_encoder, "onnx_available", lambda: False)
    monkeypatch.setattr(transformer, "_loaded", {})
    without = transformer.load_minilm()
    assert without is not None
    assert without.runtime == "numpy"
    units = without.encode([ACCIDENT, "Ana practises the cello"])
    expected = with_runtime.encode([ACCIDENT, "Ana practises the cello"])
    assert abs(units - expected).max() < 1e-5
    with pytest.raises(LookupError, match=r"needs onnxruntime and onnx.*chronomem\[encoder\]"):
        transformer.load_minilm("onnx-q8")
    monkeypatch.setattr(spaces, "_spaces", {})
    with pytest.raises(LookupError, match=r"^the minilm-l6-q8 encoder needs onnxruntime"):
        space_named("minilm-l6-q8")
