"""``chronomem hook``: Claude Code's lifecycle hooks, answered from chronomem.

Claude Code runs the command with one JSON object on stdin: ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and the event's own fields (``prompt`` for
``UserPromptSubmit``, ``source`` for ``SessionStart``, ``trigger`` for ``PreCompact``,
``reason`` for ``SessionEnd``). On exit 0 a JSON reply's
``hookSpecificOutput.additionalContext`` goes into the model's context.

- ``SessionStart``: the project's memory (its name recalled, facts and episodes) within
  ``--start-budget`` tokens;
- ``UserPromptSubmit``: recall for the prompt within ``--budget`` tokens (400);
- ``Stop``, ``PreCompact``, ``SessionEnd``: the transcript's new user and assistant text
  recorded as chronica acta of the session (one per line, keyed by the line's ``uuid``, so a
  hook fired twice, or two at once, records each line once) and indexed as episodes of the
  project, dated by the line's ``timestamp``.

What a project sees of other projects' captured turns (nothing, unless ``--all-projects``) is
:mod:`._hook_scope`'s; the command ``install`` writes is :mod:`._hook_command`'s.

A hook must never break the session it serves: any error exits 0, prints nothing, and is
logged to ``--log`` (env ``CHRONOMEM_HOOK_LOG``, default ``~/.chronomem/hook.log``, made at
its first line). The reply is ASCII JSON, so no stdout encoding can refuse it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chronomem._doors.arguments import add_target_arguments
from chronomem._doors.blas import one_blas_thread
from chronomem._doors.settings import make_private_folders

from ._hook_scope import ALL_PROJECTS_ENV, PROJECT_ENV
from ._hook_settings import MARK

__all__ = ["main"]

DEFAULT_LOG = "~/.chronomem/hook.log"
DEFAULT_BUDGET = 400
DEFAULT_START_BUDGET = 600
CAPTURE = frozenset({"Stop", "PreCompact", "SessionEnd", "SubagentStop"})
EXAMPLE = """examples:
  chronomem hook install --claude-code --user --db ~/.chronomem/memory.db
  echo '{"hook_event_name": "UserPromptSubmit", "prompt": "where do I deploy?"}' \\
      | chronomem hook --db ~/.chronomem/memory.db"""


def build_parser() -> argparse.ArgumentParser:
    """``chronomem hook`` and its ``install`` / ``uninstall`` subcommands."""
    parser = argparse.ArgumentParser(
        prog="chronomem hook",
        description="Answer a Claude Code hook (JSON on stdin): context on SessionStart and "
        "UserPromptSubmit, transcript capture on Stop, PreCompact and SessionEnd. Never "
        "fails the session: errors exit 0 and go to the log file.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _flags(parser)
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    actions = [
        ("install", "add our hooks to Claude Code's settings (backup kept)"),
        ("uninstall", "take exactly our hooks out of Claude Code's settings"),
    ]
    for action, text in actions:
        p = sub.add_parser(action, help=text, description=text)
        p.add_argument("--claude-code", action="store_true", required=True,
                       help="Claude Code's settings.json (the only client for now)")  # fmt: skip
        where = p.add_mutually_exclusive_group()
        where.add_argument("--user", action="store_true", help="~/.claude/settings.json (default)")
        where.add_argument("--project", action="store_true",
                           help="./.claude/settings.json of the current folder (committed: no "
                           "password, no machine's paths where avoidable)")  # fmt: skip
        where.add_argument("--local", action="store_true",
                           help="./.claude/settings.local.json: this machine's entries for the "
                           "project (kept out of git)")  # fmt: skip
        _flags(p)
    return parser


def _flags(parser: argparse.ArgumentParser) -> None:
    add_target_arguments(parser)
    parser.add_argument(
        "--budget", type=int, help=f"tokens of context per prompt (default {DEFAULT_BUDGET})"
    )
    parser.add_argument(
        "--start-budget",
        type=int,
        help=f"tokens of context at session start (default {DEFAULT_START_BUDGET})",
    )
    parser.add_argument("--log", help=f"error log (env CHRONOMEM_HOOK_LOG, default {DEFAULT_LOG})")
    parser.add_argument(
        "--project-name",
        help="the project turns are captured under and recalled from (env "
        f"{PROJECT_ENV}; default: the cwd's git root, else the cwd)",
    )
    parser.add_argument(
        "--all-projects",
        action="store_true",
        default=None,
        help="recall every project's captured turns, not only this project's (opt-in "
        f"sharing; env {ALL_PROJECTS_ENV}=1)",
    )
    parser.add_argument(
        MARK, action="store_true", help="marks a command `hook install` wrote (uninstall's key)"
    )


def main(argv: Sequence[str]) -> int:
    """Run ``chronomem hook``: an event (exit 0 whatever happens) or install/uninstall."""
    one_blas_thread()  # before numpy loads: see chronomem._doors.blas
    parser = build_parser()
    argv = list(argv)
    if argv[:1] in (["install"], ["uninstall"]) or "-h" in argv or "--help" in argv:
        args = parser.parse_args(argv)
        return _settings(args)
    try:
        args, _ = parser.parse_known_args(argv)
    except SystemExit:  # a bad flag: the session still goes on
        return 0
    return run_event(args, sys.stdin, sys.stdout)


def _settings(args: argparse.Namespace) -> int:
    from ._hook_command import LOCAL as LOCAL_SCOPE
    from ._hook_command import PROJECT, USER, InstallError, build_command
    from ._hook_settings import SettingsFileError, install, settings_path, uninstall

    path = settings_path(project=args.project, local=args.local)
    scope = LOCAL_SCOPE if args.local else PROJECT if args.project else USER
    try:
        if args.action == "install":
            installed = build_command(args, scope=scope)
            install(path, installed.command)
            print(f"chronomem hooks installed in {path}")
            for note in installed.notes:
                print(f"note: {note}")
        else:
            print(f"{uninstall(path)} chronomem hook(s) removed from {path}")
    except (SettingsFileError, InstallError) as e:
        print(f"chronomem hook: {e}", file=sys.stderr)
        return 2
    return 0


class _LazyLog(logging.Handler):
    """A log file opened at its first record, so a hook that logs nothing creates nothing:
    missing folders are made 0700 and the file 0600 (a log line may quote what was said).
    Nowhere to write is not an error: the hook still never fails."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + "\n"
            make_private_folders(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace") as f:
                f.write(line)
        except Exception:  # a log that cannot be written is dropped, silently
            pass


def _logger(args: argparse.Namespace) -> logging.Logger:
    path = args.log or os.environ.get("CHRONOMEM_HOOK_LOG") or DEFAULT_LOG
    log = logging.getLogger("chronomem.hook")
    for old in list(log.handlers):  # one hook call, one log: the one this call names
        log.removeHandler(old)
    handler = _LazyLog(Path(path).expanduser())
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.propagate = False
    return log


def _read(stdin: Any) -> Any:
    """The payload: the bytes on stdin as JSON (UTF-8 whatever the locale says)."""
    raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
    return json.loads(raw)


def _reply(stdout: Any, reply: dict[str, Any], log: logging.Logger) -> None:
    """Print ``reply`` as ASCII JSON, which any stdout encoding carries. A stdout that is
    closed or gone is logged; stdout is then pointed at the null device, so the interpreter's
    own flush at exit cannot fail either."""
    try:
        stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
        stdout.flush()
    except (OSError, ValueError, AttributeError):
        log.warning("the hook's reply could not be written to stdout", exc_info=True)
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
        except OSError:
            pass


def run_event(args: argparse.Namespace, stdin: Any, stdout: Any) -> int:
    """Answer one hook event; every failure is logged and exits 0 with nothing printed."""
    log = _logger(args)
    try:
        payload = _read(stdin)
        if not isinstance(payload, dict):
            raise ValueError("the hook input is not a JSON object")
        reply = _answer(args, payload)
    except Exception:  # a hook never breaks the session it serves
        log.exception("chronomem hook failed")
        return 0
    if reply:
        _reply(stdout, reply, log)
    return 0


def _answer(args: argparse.Namespace, payload: dict[str, Any]) -> dict[str, Any] | None:
    from ._hook_events import capture, prompt_context, start_context

    event = payload.get("hook_event_name")
    if event == "UserPromptSubmit":
        context = prompt_context(args, payload, args.budget or DEFAULT_BUDGET)
    elif event == "SessionStart":
        context = start_context(args, payload, args.start_budget or DEFAULT_START_BUDGET)
    elif event in CAPTURE:
        capture(args, payload)
        return None
    else:
        return None
    if not context:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
