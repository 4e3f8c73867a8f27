"""``chronomem hook``: Claude Code's lifecycle hooks, answered from chronomem.

Claude Code runs the command with one JSON object on stdin: ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and the event's own fields (``prompt`` for
``UserPromptSubmit``, ``source`` for ``SessionStart``, ``trigger`` for ``PreCompact``,
``reason`` for ``SessionEnd``). On exit 0 a JSON reply's
``hookSpecificOutput.additionalContext`` goes into the model's context.

- ``SessionStart``: the project's memory (the ``cwd``'s name recalled, facts and episodes)
  within ``--start-budget`` tokens;
- ``UserPromptSubmit``: recall for the prompt within ``--budget`` tokens (400);
- ``Stop``, ``PreCompact``, ``SessionEnd``: the transcript's new user and assistant text
  recorded as chronica acta of the session (one per line, keyed by the line's ``uuid``, so a
  hook fired twice, or two at once, records each line once) and indexed as episodes.

A hook must never break the session it serves: any error exits 0, prints nothing, and is
logged to ``--log`` (env ``CHRONOMEM_HOOK_LOG``, default ``~/.chronomem/hook.log``).
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
                           help="./.claude/settings.json of the current folder")  # fmt: skip
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


def main(argv: Sequence[str]) -> int:
    """Run ``chronomem hook``: an event (exit 0 whatever happens) or install/uninstall."""
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
    from ._hook_settings import SettingsFileError, install, settings_path, uninstall

    path = settings_path(project=args.project)
    try:
        if args.action == "install":
            install(path, _passed_on(args))
            print(f"chronomem hooks installed in {path}")
        else:
            print(f"{uninstall(path)} chronomem hook(s) removed from {path}")
    except SettingsFileError as e:
        print(f"chronomem hook: {e}", file=sys.stderr)
        return 2
    return 0


def _passed_on(args: argparse.Namespace) -> list[str]:
    """The flags the installed command keeps (an absolute --db, so any cwd works)."""
    options: list[str] = []
    if args.db is not None:
        db = args.db if "://" in args.db else str(Path(args.db).expanduser().resolve())
        options += ["--db", db]
    for flag in ("owner", "budget", "start_budget", "log"):
        value = getattr(args, flag)
        if value is not None:
            options += [f"--{flag.replace('_', '-')}", str(value)]
    return options


def _logger(args: argparse.Namespace) -> logging.Logger:
    path = args.log or os.environ.get("CHRONOMEM_HOOK_LOG") or DEFAULT_LOG
    log = logging.getLogger("chronomem.hook")
    if not log.handlers:
        try:
            target = Path(path).expanduser()
            target.parent.mkdir(parents=True, exist_ok=True)
            handler: logging.Handler = logging.FileHandler(target, encoding="utf-8")
        except OSError:
            handler = logging.NullHandler()  # nowhere to write: still never fail
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    return log


def run_event(args: argparse.Namespace, stdin: Any, stdout: Any) -> int:
    """Answer one hook event; every failure is logged and exits 0 with nothing printed."""
    log = _logger(args)
    try:
        payload = json.loads(stdin.read())
        if not isinstance(payload, dict):
            raise ValueError("the hook input is not a JSON object")
        reply = _answer(args, payload)
    except Exception:  # a hook never breaks the session it serves
        log.exception("chronomem hook failed")
        return 0
    if reply:
        stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
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
