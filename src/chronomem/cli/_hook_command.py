"""The command ``chronomem hook install`` writes into Claude Code's settings.

It must still run long after the install, from any folder, without a ``PATH`` Claude Code may
not have, and it must not carry what does not belong in the file it goes to:

- **An ephemeral interpreter is never installed.** ``uvx`` and ``pipx run`` run chronomem
  from a cache (a folder tagged ``CACHEDIR.TAG``, the Cache Directory Tagging standard both
  write), which ``uv cache clean`` or pipx's expiry deletes. Run that way, install writes the
  ``uvx --from <source> chronomem`` (``pipx run --spec <source> chronomem``) line itself,
  which builds chronomem again if the cache went, and says so.
- **A project's shared file holds no machine's paths where it can avoid them.**
  ``.claude/settings.json`` is committed: there the launcher is a ``chronomem`` on ``PATH``
  (or ``uvx``/``pipx``), and paths inside the project or the home folder are written as
  ``"$CLAUDE_PROJECT_DIR"/...`` and ``"$HOME"/...`` (Claude Code runs hook commands through
  a shell, with ``CLAUDE_PROJECT_DIR`` set). What cannot be made portable is written and
  named, with ``--local`` (``.claude/settings.local.json``) as the place for it.
- **No password goes into the shared file.** A ``postgresql://`` DSN with one is refused for
  ``--project``: the password belongs in ``CHRONOMEM_DB``, a PGPASSFILE or ``--local``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

from chronomem._doors.settings import is_dsn

from ._hook_settings import MARK

__all__ = ["InstallError", "Installed", "build_command", "ephemeral_tool", "source_spec"]

USER, PROJECT, LOCAL = "user", "project", "local"
PASSED_ON = ("owner", "budget", "start_budget", "project_name")


class InstallError(ValueError):
    """What ``install`` refuses to write (a password into a committed file)."""


@dataclass(frozen=True)
class Installed:
    """The command line to install, and what the user should know about it."""

    command: str
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Where:
    scope: str
    project_dir: Path
    home: Path

    @property
    def shared(self) -> bool:
        return self.scope == PROJECT


def _word(value: str) -> str:
    return shlex.quote(value)


def _path_word(path: Path, where: _Where, notes: list[str], what: str) -> str:
    """A path as a shell word; in the shared file relative to the project or the home."""
    path = path.expanduser().resolve()
    if not where.shared:
        return _word(str(path))
    for variable, base in (("CLAUDE_PROJECT_DIR", where.project_dir), ("HOME", where.home)):
        try:
            rest = path.relative_to(base.resolve())
        except ValueError:
            continue
        return f'"${variable}"' + ("/" + _word(str(rest)) if str(rest) != "." else "")
    notes.append(
        f"{what} {path} is outside the project and the home folder: written as it is into "
        "the shared settings (use --local for machine-specific entries)"
    )
    return _word(str(path))


def _has_password(dsn: str) -> bool:
    parts = urlsplit(dsn)
    return bool(parts.password) or "password" in parse_qs(parts.query)


def _dsn_without_secret(dsn: str) -> str:
    parts = urlsplit(dsn)
    host = parts.netloc.rpartition("@")[2]
    user = parts.username
    netloc = f"{user}@{host}" if user else host
    return urlunsplit(parts._replace(netloc=netloc, query=""))


def _db_word(db: str, where: _Where, notes: list[str]) -> str:
    if is_dsn(db):
        if where.shared and _has_password(db):
            raise InstallError(
                "the DSN holds a password, and .claude/settings.json is the file teams commit: "
                f"install with --db {_dsn_without_secret(db)} and keep the password in "
                "~/.pgpass (or PGPASSFILE), or leave --db out and set CHRONOMEM_DB in the "
                "environment, or install with --local (.claude/settings.local.json, kept out "
                "of git)"
            )
        return _word(db)
    return _path_word(Path(db), where, notes, "the database")


def ephemeral_tool(prefix: Path, environ: Mapping[str, str]) -> str | None:
    """``"uv"``, ``"pipx"`` (or ``"a cache"``, by whom unknown) if this interpreter's
    environment lives in a cache that a clean deletes (a folder above it holds
    ``CACHEDIR.TAG``), else None."""
    cached = any((folder / "CACHEDIR.TAG").is_file() for folder in [prefix, *prefix.parents])
    if not cached:
        return None
    if (prefix / "pipx_metadata.json").is_file():
        return "pipx"
    if environ.get("UV") or any(part.startswith("archive-v") for part in prefix.parts):
        return "uv"
    return "a cache"


def source_spec(prefix: Path) -> str:
    """Where this chronomem was installed from, as uvx's ``--from`` / pipx's ``--spec``
    take it: pipx's record, else the distribution's ``direct_url.json`` (PEP 610: a folder,
    an archive, a VCS URL at its commit), else the registry's release of this version."""
    try:
        record = json.loads((prefix / "pipx_metadata.json").read_text(encoding="utf-8"))
        spec = record["main_package"]["package_or_url"]
        if isinstance(spec, str) and spec:
            return spec
    except (OSError, ValueError, KeyError, TypeError):
        pass
    dist = metadata.distribution("chronomem")
    try:
        direct = json.loads(dist.read_text("direct_url.json") or "null")
    except ValueError:
        direct = None
    if isinstance(direct, dict) and isinstance(direct.get("url"), str):
        url: str = direct["url"]
        vcs = direct.get("vcs_info")
        if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
            commit = vcs.get("commit_id")
            return f"{vcs['vcs']}+{url}" + (f"@{commit}" if isinstance(commit, str) else "")
        if url.startswith("file://"):
            return urlsplit(url).path
        return url
    return f"chronomem=={dist.version}"


def _stable_on_path(environ: Mapping[str, str]) -> str | None:
    """A ``chronomem`` on ``PATH`` outside any cache (uvx puts its cached one first)."""
    for folder in environ.get("PATH", "").split(os.pathsep):
        found = shutil.which("chronomem", path=folder) if folder else None
        if found and ephemeral_tool(Path(found).resolve().parent.parent, environ) is None:
            return found
    return None


def _launcher(where: _Where, environ: Mapping[str, str], notes: list[str]) -> list[str]:
    prefix = Path(sys.prefix)
    tool = ephemeral_tool(prefix, environ)
    if tool == "a cache":
        stable = _stable_on_path(environ)
        notes.append(
            f"this chronomem runs from a cache ({prefix}) that a clean may delete: "
            + (
                f"the hooks run {stable} instead"
                if stable
                else "install it for good "
                "(uv tool install, pipx install) and install the hooks again"
            )
        )
        if stable:
            return ["chronomem" if where.shared else _word(stable)]
    elif tool is not None:
        spec = source_spec(prefix)
        local = "://" not in spec and (spec.startswith((".", "~")) or Path(spec).is_absolute())
        # A folder or an archive is made absolute: the hook's cwd is not the install's.
        source = _path_word(Path(spec), where, notes, "the source") if local else _word(spec)
        if tool == "uv":
            uv = environ.get("UV") or shutil.which("uv") or "uv"
            uvx = Path(uv).with_name("uvx")
            program = "uvx" if where.shared else _word(str(uvx if uvx.exists() else uv))
            words = [program, "--from", source, "chronomem"]
            if not where.shared and not uvx.exists():
                words = [program, "tool", "run", "--from", source, "chronomem"]
        else:
            pipx = shutil.which("pipx", path=environ.get("PATH")) or "pipx"
            words = ["pipx" if where.shared else _word(pipx), "run", "--spec", source, "chronomem"]
        notes.append(
            f"this chronomem runs from {tool}'s cache ({prefix}), which a cache clean deletes: "
            f"the hooks run `{' '.join(words)}` instead, which builds it again when it is gone "
            "(`uv tool install` or `pipx install` gives a chronomem that starts faster)"
        )
        return words
    if where.shared:
        if _stable_on_path(environ):
            notes.append("the shared settings run `chronomem` from PATH: each machine needs it")
            return ["chronomem"]
        notes.append(
            f"no chronomem on PATH: the shared settings run this machine's {sys.executable} "
            "(use --local for machine-specific entries)"
        )
    return [_word(sys.executable), "-m", "chronomem"]


def build_command(
    args: argparse.Namespace,
    *,
    scope: str,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
) -> Installed:
    """The hook command for ``args`` (``--db`` and the hook's flags), installed in ``scope``
    (``user``, ``project`` or ``local``)."""
    env = os.environ if environ is None else environ
    where = _Where(scope, (cwd or Path.cwd()), (home or Path.home()))
    notes: list[str] = []
    words = [*_launcher(where, env, notes), "hook"]
    if args.db is not None:
        words += ["--db", _db_word(args.db, where, notes)]
    for flag in PASSED_ON:
        value = getattr(args, flag, None)
        if value is not None:
            words += [f"--{flag.replace('_', '-')}", _word(str(value))]
    if args.log is not None:
        words += ["--log", _path_word(Path(args.log), where, notes, "the log")]
    if getattr(args, "all_projects", False):
        words.append("--all-projects")
    words.append(MARK)
    return Installed(" ".join(words), notes)
