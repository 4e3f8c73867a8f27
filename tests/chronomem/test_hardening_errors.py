"""Nothing poisoned, nothing leaked, no error outside the root (issue 10, items 15, 17 and 18).

Metadata is checked value by value before it is serialised (NUL, lone surrogates, depth, keys),
new database files are private, and a path that cannot be used is a ``DatabaseError``.
"""

from __future__ import annotations

import os
import stat
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import chronomem
from chronomem import ChronoMem, ChronoMemError, DatabaseError, InvalidFactError
from tests.chronomem.backends import MemoryTarget, count


@pytest.fixture
def mem(memory_target: MemoryTarget) -> Iterator[ChronoMem]:
    with memory_target.open() as m:
        yield m


def facts(mem: ChronoMem) -> int:
    return count(mem, "chronomem_facts")


def nested(depth: int) -> dict[str, Any]:
    """A mapping ``depth`` levels deep (the mapping itself is level 1)."""
    value: dict[str, Any] = {"leaf": True}
    for _ in range(depth - 1):
        value = {"x": value}
    return value


def cyclic() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


BAD_METADATA: list[Any] = [
    {"note": "nul \x00 inside"},  # json.dumps writes \u0000, so the old check never saw it
    {"nul\x00key": 1},
    {"a": {"b": ["ok", "deep \x00"]}},
    {"a": ("tuple", {"k\x00": 1})},
    {"surrogate": "\ud800"},
    {"\udfff": 1},
    {"a": [{"b": "x\udc80"}]},
    {"a": {1: "a nested int key would come back as the str '1'"}},
    {"a": {None: 1}},
    {"a": [float("inf")]},
    {"a": {"b": float("nan")}},
    {"a": MappingProxyType({"b": 1})},
    {"a": {"b", "c"}},
    {"a": b"bytes"},
    nested(65),
    nested(5000),  # raised RecursionError before
    {"a": cyclic()},
    {"a": [0] * 100_000},  # refused by size without serialising
    {"a": ["x" * 1000] * 100},
    {"k" * 70_000: 1},
]


@pytest.mark.parametrize("metadata", BAD_METADATA, ids=range(len(BAD_METADATA)))
def test_bad_metadata_is_refused_by_every_write(mem: ChronoMem, metadata: Any) -> None:
    old = mem.remember("Ardian lives in Kemang")
    before = facts(mem)
    with pytest.raises(InvalidFactError) as info:
        mem.remember("Ardian likes tea", metadata=metadata)
    assert info.value.field == "metadata"
    with pytest.raises(InvalidFactError) as info:
        mem.supersede(old, "Ardian lives in Menteng", metadata=metadata)
    assert info.value.field == "metadata"
    with pytest.raises(InvalidFactError) as info:
        mem.remember_episode("I like tea", speaker="Ardian", session="s", metadata=metadata)
    assert info.value.field == "metadata"
    record = {**next(iter(mem.export_facts())), "id": "e" * 32, "metadata": metadata}
    with pytest.raises(InvalidFactError) as info:
        mem.import_facts([record])
    assert info.value.field == "metadata"
    assert facts(mem) == before


GOOD_METADATA: list[dict[str, Any]] = [
    nested(64),
    {"tool": "search", "call_id": "c-1", "args": {"q": "café 東京 🚀", "n": [1, 2.5, None]}},
    {"flags": [True, False], "big": 2**70, "neg": -1.5e-300, "empty": {}, "list": []},
    {"rtl": "\u202e", "zero width": "\u200b", "escapes": "\\u0000 is only text"},
]


@pytest.mark.parametrize("metadata", GOOD_METADATA, ids=range(len(GOOD_METADATA)))
def test_good_metadata_round_trips(mem: ChronoMem, metadata: dict[str, Any]) -> None:
    fid = mem.remember("Ardian likes tea", metadata=metadata)
    assert mem.get(fid)["metadata"] == metadata


def test_a_tuple_reads_back_as_a_list(mem: ChronoMem) -> None:
    fid = mem.remember("Ardian likes tea", metadata={"pair": (1, 2)})
    assert mem.get(fid)["metadata"] == {"pair": [1, 2]}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_database_and_its_wal_and_shm_are_private(tmp_path: Path) -> None:
    old_umask = os.umask(0o022)  # the usual default, under which SQLite would make them 0644
    try:
        path = tmp_path / "private.db"
        with ChronoMem(path) as m:
            m.remember("Ardian's PIN is 4321")
            companions = [Path(f"{path}-wal"), Path(f"{path}-shm")]
            assert all(p.exists() for p in companions)
            assert [_mode(p) for p in [path, *companions]] == [0o600, 0o600, 0o600]
    finally:
        os.umask(old_umask)


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    ChronoMem(path).close()
    path.chmod(0o640)  # the user chose to share it with a group
    with ChronoMem(path) as m:
        m.remember("Ardian likes tea")
    assert _mode(path) == 0o640


@pytest.mark.parametrize("synchronous", [None, 1, ["FULL"], "normal", "BOGUS"])
def test_a_bad_synchronous_mode_is_a_database_error(tmp_path: Path, synchronous: Any) -> None:
    with pytest.raises(DatabaseError):
        ChronoMem(tmp_path / "s.db", synchronous=synchronous)
    assert not (tmp_path / "s.db").exists()


def test_unusable_paths_are_database_errors(tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("not a folder")
    for path in (tmp_path, tmp_path / "missing" / "m.db", a_file / "m.db"):
        with pytest.raises(DatabaseError):
            ChronoMem(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def _outcomes(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        try:
            ChronoMem(path).close()
        except DatabaseError:
            found.append("DatabaseError")
        except BaseException as e:  # anything else is the bug under test: name it
            found.append(f"{type(e).__name__}: {e}")
        else:
            found.append("opened")
    return found


def _outcomes_unprivileged(paths: list[Path]) -> list[str]:
    """:func:`_outcomes` as user ``nobody`` when we are root (root may read any file).

    A forked child drops its privileges and reports through a pipe: no new interpreter is
    started, so it does not matter whether ``nobody`` may run this one.
    """
    if os.geteuid() != 0:
        return _outcomes(paths)
    read, write = os.pipe()
    with warnings.catch_warnings():  # 3.12+ warns about fork in a threaded process
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            os.write(write, "\n".join(_outcomes(paths)).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        report = fh.read()
    os.waitpid(pid, 0)
    return report.splitlines()


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder user ``nobody`` can enter (pytest's own tmp folders are private to us)."""
    folder = Path(tempfile.mkdtemp(prefix="chronomem-denied-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        folder.chmod(0o755)
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()


def test_denied_files_are_database_errors(shared_dir: Path) -> None:
    ChronoMem(shared_dir / "unreadable.db").close()
    (shared_dir / "unreadable.db").chmod(0o000)
    ChronoMem(shared_dir / "readonly.db").close()
    (shared_dir / "readonly.db").chmod(0o444)
    (shared_dir / "notes.txt").write_text("mine")
    (shared_dir / "notes.txt").chmod(0o000)
    shared_dir.chmod(0o555)  # nothing new may be created here
    names = ["unreadable.db", "readonly.db", "notes.txt", "new.db"]
    try:
        found = _outcomes_unprivileged([shared_dir / n for n in names])
    finally:
        shared_dir.chmod(0o755)
    # A file it may only read opens for reading (issue 20 item 11; a write is refused then).
    assert found == ["DatabaseError", "opened", "DatabaseError", "DatabaseError"]
    assert not (shared_dir / "new.db").exists()


def test_every_public_error_derives_from_the_root() -> None:
    errors = [
        getattr(chronomem, name)
        for name in chronomem.__all__
        if isinstance(getattr(chronomem, name), type)
        and issubclass(getattr(chronomem, name), BaseException)
    ]
    assert {e.__name__ for e in errors} >= {
        "ChronoMemError",
        "DatabaseError",
        "FactNotActiveError",
        "EpisodeNotFoundError",
        "FactNotFoundError",
        "InvalidArgumentError",
        "InvalidFactError",
        "RecordNotFoundError",
    }
    assert all(issubclass(e, ChronoMemError) for e in errors)


def test_errors_are_grouped_by_what_they_are_about() -> None:
    assert chronomem.__all__ == sorted(chronomem.__all__)
    assert issubclass(chronomem.InvalidFactError, chronomem.InvalidArgumentError)
    assert issubclass(chronomem.InvalidArgumentError, ValueError)
    for found in (chronomem.FactNotFoundError, chronomem.EpisodeNotFoundError):
        assert issubclass(found, chronomem.RecordNotFoundError)
        assert issubclass(chronomem.UnknownIdError, found)
    assert issubclass(chronomem.RecordNotFoundError, LookupError)
    assert not issubclass(chronomem.FactNotFoundError, chronomem.EpisodeNotFoundError)
