"""``make release`` (scripts/release.py): one command builds, checks and smoke-installs a
release, and uploads nothing."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from scripts import release

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_release_builds_checks_and_serves_from_a_fresh_venv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[list[str]] = []
    real_run = release._run

    def recorded(argv: list[str], **kwargs: object) -> str:
        ran.append(argv)
        return real_run(argv, **kwargs)  # type: ignore[arg-type]  # the same keywords

    monkeypatch.setattr(release, "_run", recorded)
    out = tmp_path / "dist"
    assert release.main(["--out", str(out)]) == 0
    printed = capsys.readouterr().out
    version = release.project_version()
    wheel = out / f"chronomem-{version}-py3-none-any.whl"
    sdist = out / f"chronomem-{version}.tar.gz"
    assert sorted(out.iterdir()) == sorted([sdist, wheel])
    with zipfile.ZipFile(wheel) as built:
        names = set(built.namelist())
    assert {"chronomem/py.typed", "chronica/py.typed", "chronomem/server/__init__.py"} <= names
    assert any(n.startswith("chronomem/recall/semantic/model/") for n in names)  # the model ships
    assert "served 10 tools and stored a fact" in printed
    assert f"publish with: twine upload {sdist} {wheel}" in printed
    steps = [" ".join(argv[1:3]) for argv in ran]
    assert "-m build" in steps
    assert "-m twine" in steps
    assert not any("upload" in argv for argv in ran)  # it prints the upload; it never runs it


def test_a_server_json_of_another_version_stops_the_release(tmp_path: Path) -> None:
    server = json.loads((REPO / "server.json").read_text(encoding="utf-8"))
    server["packages"][0]["version"] = "0.0.9"
    (tmp_path / "server.json").write_text(json.dumps(server), encoding="utf-8")
    with pytest.raises(release.ReleaseError, match=r"server.json names version\(s\)"):
        release.check_versions(release.project_version(), tmp_path)
    shutil.copy(REPO / "server.json", tmp_path / "server.json")
    release.check_versions(release.project_version(), tmp_path)


def test_make_release_runs_the_script() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "release: $(STAMP)\n\t$(PY) scripts/release.py\n" in makefile
