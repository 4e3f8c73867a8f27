"""The operator's erasing commands: ``purge``, ``erase`` and ``prune``.

They delete for real (see :meth:`chronomem.ChronoMem.purge`), so ``erase`` asks for the owner
by name and for ``--yes``: an owner taken from ``CHRONOMEM_OWNER`` or the default is never
erased by accident. Each prints what it removed, per kind.
"""

from __future__ import annotations

import argparse
import contextlib
import re
from datetime import timedelta

from chronica import Chronicarius
from chronomem import FactNotFoundError, Purged
from chronomem._doors.ids import resolve
from chronomem._doors.settings import open_session_store

from . import _output as show
from ._commands import EXIT_OK, Usage, _db_path, _memory, _owner

__all__ = ["cmd_erase", "cmd_prune", "cmd_purge", "parse_age"]

_AGE = re.compile(r"(\d{1,6})([hdw])")
_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}


def parse_age(text: str) -> timedelta:
    """``90d``, ``12h`` or ``2w`` as a timedelta; :class:`Usage` for anything else."""
    found = _AGE.fullmatch(text.strip())
    if found is None or int(found[1]) == 0:
        raise Usage(f"{text!r} is not an age such as 90d, 12h or 2w")
    return int(found[1]) * _UNITS[found[2]]


def _report(args: argparse.Namespace, what: str, removed: dict[str, int]) -> None:
    if args.json:
        show.dump_json(removed)
        return
    print(what)
    show.print_table(["removed", "count"], sorted(removed.items()))


def cmd_purge(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        try:
            item = resolve(memory, args.item_id)  # a fact's short id
        except FactNotFoundError:  # an episode's id, or none: purge says which
            item = args.item_id
        removed = memory.purge(item, reason=args.reason)
    _report(args, f"purged {item} (a tombstone stays)", removed.to_dict())
    return EXIT_OK


def cmd_prune(args: argparse.Namespace) -> int:
    said, idle = args.episodes_older_than, args.unused_for
    if said is None and idle is None:
        raise Usage("prune needs --episodes-older-than AGE, --unused-for AGE or both")
    ages = {
        "episodes_older_than": None if said is None else parse_age(said),
        "unused_for": None if idle is None else parse_age(idle),
    }
    with _memory(args) as memory:
        removed = memory.prune(**ages)
    what = [f"episodes older than {said}"] if said is not None else []
    what += [f"items not recalled for {idle}"] if idle is not None else []
    _report(args, f"pruned {' and '.join(what)}", removed.to_dict())
    return EXIT_OK


def cmd_erase(args: argparse.Namespace) -> int:
    if args.owner is None:
        raise Usage("erase needs the owner named: --owner NAME")
    if not args.yes:
        raise Usage(f"erasing {args.owner!r} deletes all of its data for good; add --yes")
    path, owner = _db_path(args), _owner(args)
    with _memory(args) as memory:
        removed: Purged = memory.erase_owner()
    with contextlib.closing(open_session_store(path)) as store:
        sessions = Chronicarius(store).erase_owner(owner)
    counts = {**removed.to_dict(), "sessions": sessions.chronica, "acta": sessions.acta}
    _report(args, f"erased owner {owner!r}", counts)
    return EXIT_OK
