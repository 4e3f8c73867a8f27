"""onnxruntime runs MiniLM: the bytes numpy's pass stores, from a graph cached soundly (issue 38).

The vectors are held against :class:`NumpyForward` on a real conversation (LoCoMo's conv-30,
369 turns): the fp32 graph must store the same bytes, or every vector written before would
drift from those written after; the int8 graph is a space of its own, near but not equal.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from chronomem.recall.semantic import onnx_encoder
from chronomem.recall.semantic.model import quantise
from chronomem.recall.semantic.onnx_encoder import MAGIC, cache_dir, cached_model
from chronomem.recall.semantic.transformer import MiniLM, load_minilm, model_dir
from tests.chronomem.locomo_data import development_conversation

REPO = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def turns() -> list[str]:
    return [t.text for t in development_conversation("conv-30").turns]


@pytest.fixture(scope="module")
def directory() -> Path:
    found = model_dir()
    assert found is not None, "the encoder extra is installed for the tests"
    return found


@pytest.fixture(scope="module")
def numpy_units(directory: Path, turns: list[str]) -> np.ndarray:
    return MiniLM(directory, "numpy").encode(turns)


def _stored(units: np.ndarray) -> list[bytes]:
    return [quantise(u) for u in units]


def test_the_fp32_graph_stores_the_bytes_numpy_does(
    turns: list[str], numpy_units: np.ndarray
) -> None:
    encoder = load_minilm("onnx-fp32")
    assert encoder is not None
    batched = encoder.encode(turns)
    alone = np.vstack([encoder.encode([t]) for t in turns])
    assert _stored(batched) == _stored(numpy_units)
    assert _stored(alone) == _stored(numpy_units)
    assert float(np.abs(batched - numpy_units).max()) < 1e-5


def test_the_int8_graph_is_near_numpy_but_a_space_of_its_own(
    turns: list[str], numpy_units: np.ndarray
) -> None:
    encoder = load_minilm("onnx-q8")
    assert encoder is not None
    units = encoder.encode(turns)
    cosines = (units * numpy_units).sum(axis=1)
    # Measured on these 369 turns: mean 0.994, lowest 0.965.
    assert float(cosines.mean()) > 0.99
    assert float(cosines.min()) > 0.95
    same = sum(a == b for a, b in zip(_stored(units), _stored(numpy_units), strict=True))
    assert same < len(turns) / 2, "its stored bytes differ: it must not share minilm-l6's name"


def test_an_int8_vector_does_not_hang_on_its_batch(turns: list[str]) -> None:
    # onnxruntime's dynamic quantisation scales a product's input by the whole batch's
    # range: batched, a turn got other bytes than alone (all 300 of a sample, by up to 6).
    # The graph quantises per token instead.
    encoder = load_minilm("onnx-q8")
    assert encoder is not None
    sample = turns[:120]
    alone = np.vstack([encoder.encode([t]) for t in sample])
    assert _stored(encoder.encode(sample)) == _stored(alone)


@pytest.fixture(scope="module")
def sound_file(directory: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A cache file as the first build writes it."""
    folder = tmp_path_factory.mktemp("cache")
    cached_model(directory, "fp32", folder)
    return (folder / "minilm-l6-fp32.onnx").read_bytes()


def _flip_a_weight(raw: bytes) -> bytes:
    middle = len(raw) // 2
    return raw[:middle] + bytes([raw[middle] ^ 0x10]) + raw[middle + 1 :]


DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    "cut short": lambda raw: raw[: len(raw) // 3],
    "one weight's byte flipped": _flip_a_weight,
    "made from other inputs": lambda raw: raw[: len(MAGIC)] + bytes(32) + raw[len(MAGIC) + 32 :],
    "not a cache file": lambda raw: b"<html>proxy error</html>",
    "empty": lambda raw: b"",
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_cache_file_is_built_again(
    damage: str, directory: Path, sound_file: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "minilm-l6-fp32.onnx"
    path.write_bytes(DAMAGES[damage](sound_file))
    body = cached_model(directory, "fp32", tmp_path)
    assert body == sound_file[len(MAGIC) + 64 :], "the damaged bytes never reach onnxruntime"
    assert path.read_bytes() == sound_file, "and the file is whole again"


def test_a_sound_cache_file_is_read_not_built(
    directory: Path, sound_file: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "minilm-l6-fp32.onnx").write_bytes(sound_file)

    def no_build(*args: object) -> bytes:
        raise AssertionError("built although the cache held a sound file")

    monkeypatch.setattr(onnx_encoder, "_build", no_build)
    assert cached_model(directory, "fp32", tmp_path) == sound_file[len(MAGIC) + 64 :]


def test_a_cache_folder_that_cannot_be_made_costs_a_build_not_an_error(
    directory: Path, sound_file: bytes, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    assert cached_model(directory, "fp32", blocker / "cache") == sound_file[len(MAGIC) + 64 :]


_BUILDER = """
import hashlib, sys, time
from collections.abc import Callable
from pathlib import Path
from chronomem.recall.semantic.onnx_encoder import cached_model
from chronomem.recall.semantic.transformer import model_dir
go = Path(sys.argv[1])
while not go.exists():
    time.sleep(0.01)
body = cached_model(model_dir(), "fp32", Path(sys.argv[2]))
print(hashlib.sha256(body).hexdigest())
"""


def test_two_processes_building_the_cache_at_once_both_succeed(
    sound_file: bytes, tmp_path: Path
) -> None:
    go, cache = tmp_path / "go", tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    builders = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILDER, str(go), str(cache)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    time.sleep(1.0)  # both have imported and wait at the barrier
    go.touch()
    results = [b.communicate(timeout=300) for b in builders]
    assert [b.returncode for b in builders] == [0, 0], [err for _, err in results]
    digest = hashlib.sha256(sound_file[len(MAGIC) + 64 :]).hexdigest()
    assert [out.strip() for out, _ in results] == [digest, digest]
    assert sorted(p.name for p in cache.iterdir()) == ["minilm-l6-fp32.onnx"], "no temp left"
    assert (cache / "minilm-l6-fp32.onnx").read_bytes() == sound_file


def test_a_killed_builders_temp_file_is_cleared_by_the_next_build(
    directory: Path, tmp_path: Path
) -> None:
    stale = tmp_path / "minilm-l6-fp32.onnx.abc123.tmp"
    stale.write_bytes(b"half a model")
    hour_ago = time.time() - 7200
    os.utime(stale, (hour_ago, hour_ago))
    fresh = tmp_path / "minilm-l6-fp32.onnx.def456.tmp"  # another process's build, under way
    fresh.write_bytes(b"being written")
    cached_model(directory, "fp32", tmp_path)
    assert not stale.exists()
    assert fresh.exists()


def test_the_cache_lives_under_the_users_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "chronomem"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the XDG rule: ignored
    assert cache_dir() == Path.home() / ".cache" / "chronomem"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "chronomem"
