"""Build a release and prove it installs: ``make release`` (or ``python scripts/release.py``).

One command does what a release needs before anything is published, and uploads nothing:

1. build the sdist, then the wheel from that sdist (``python -m build``), so a file missing
   from the sdist fails here rather than for the first user who builds from it;
2. check both files' metadata as PyPI would render it (``twine check --strict``), and that
   the version is the one ``pyproject.toml`` and ``server.json`` (what the MCP registry
   publishes) name;
3. install the wheel into a fresh virtualenv with nothing else of this checkout on its path,
   then run ``chronomem --version`` and start ``chronomem serve`` there, asking it over MCP
   for its tools and storing one fact.

It prints the ``twine upload`` line to publish the files it checked; running it is the
maintainer's. The files land in ``dist/`` (``--out`` elsewhere); ``--keep`` keeps the smoke
virtualenv for a look.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomllib is Python 3.11's; the same parser was tomli before (pip's own, vendored)
    from pip._vendor import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent

_SMOKE = textwrap.dedent(
    """
    import sys

    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def main() -> None:
        server = StdioServerParameters(
            command=sys.argv[1], args=["serve"], env={"CHRONOMEM_DB": sys.argv[2]}
        )
        with anyio.fail_after(60):
            async with (
                stdio_client(server) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                assert "chronomem_remember" in tools, tools
                stored = await session.call_tool(
                    "chronomem_remember", {"content": "The release smoke test ran"}
                )
                assert not stored.is_error, stored
                print(f"served {len(tools)} tools and stored a fact")

    anyio.run(main)
    """
)


class ReleaseError(Exception):
    """A step failed: what was built is not fit to publish."""


def _run(argv: list[str], *, cwd: Path | None = None, timeout: float = 600) -> str:
    started = time.monotonic()
    print(f"$ {' '.join(argv)}", flush=True)
    done = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise ReleaseError(
            f"{argv[0]} {argv[1]} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
        )
    print(f"  ok in {time.monotonic() - started:.1f} s", flush=True)
    return done.stdout


def project_version() -> str:
    """The version ``pyproject.toml`` names."""
    with (REPO / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def check_versions(version: str, repo: Path = REPO) -> None:
    """``server.json`` describes the package this release publishes: the same version."""
    server = json.loads((repo / "server.json").read_text(encoding="utf-8"))
    named = {server["version"], *(p["version"] for p in server["packages"])}
    if named != {version}:
        raise ReleaseError(
            f"server.json names version(s) {sorted(named)}, pyproject.toml {version}"
        )


def build(out: Path) -> tuple[Path, Path]:
    """The sdist and the wheel (built from the sdist) in ``out``, emptied first."""
    if out.exists():
        shutil.rmtree(out)
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)])
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        raise ReleaseError(f"expected one sdist and one wheel in {out}, found {sdists + wheels}")
    _run([sys.executable, "-m", "twine", "check", "--strict", str(sdists[0]), str(wheels[0])])
    return sdists[0], wheels[0]


def smoke(wheel: Path, version: str, venv: Path) -> None:
    """Install ``wheel`` alone into a new virtualenv and run the command and the server."""
    _run([sys.executable, "-m", "venv", str(venv)])
    bin_dir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    python = bin_dir / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", str(wheel)])
    # From a folder away from the checkout: the wheel's files must be the ones that run.
    shown = _run([str(bin_dir / "chronomem"), "--version"], cwd=venv).strip()
    if shown != f"chronomem {version}":
        raise ReleaseError(f"chronomem --version printed {shown!r}, not chronomem {version}")
    where = _run([str(python), "-c", "import chronomem; print(chronomem.__file__)"], cwd=venv)
    if not Path(where.strip()).is_relative_to(venv):
        raise ReleaseError(f"the smoke venv imported chronomem from {where.strip()}")
    script = venv / "smoke_mcp.py"
    script.write_text(_SMOKE, encoding="utf-8")
    db = venv / "smoke.db"
    print(_run([str(python), str(script), str(bin_dir / "chronomem"), str(db)], cwd=venv).strip())


def main(argv: list[str] | None = None) -> int:
    """Build, check and smoke-test a release; returns 0 when it is fit to publish."""
    parser = argparse.ArgumentParser(prog="scripts/release.py", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="where (default dist/)")
    parser.add_argument("--keep", action="store_true", help="keep the smoke virtualenv")
    args = parser.parse_args(argv)
    version = project_version()
    venv = Path(tempfile.mkdtemp(prefix="chronomem-release-")) / "venv"
    try:
        check_versions(version)
        sdist, wheel = build(args.out.resolve())
        smoke(wheel, version, venv)
    except (ReleaseError, subprocess.TimeoutExpired) as e:
        print(f"release: {e}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(venv.parent, ignore_errors=True)
    print(f"\nchronomem {version} is ready: {sdist.name}, {wheel.name}")
    print(f"publish with: twine upload {sdist} {wheel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
