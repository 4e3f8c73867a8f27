"""How the command line shows things: tables, JSON, the belief timeline, and a progress bar.

Kept apart from the commands so every command prints the same way. The text other doors print
too (counts, a recall's summary, the drawing of a timeline) lives a floor below, in
:mod:`chronomem._doors.text`; this module lays it out for a terminal.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TextIO, TypeVar

from chronomem import Contradiction, Episode, Fact
from chronomem._doors.text import timeline_lines

__all__ = [
    "Progress",
    "dump_json",
    "print_table",
    "show_contradictions",
    "show_recalled",
    "show_timeline",
]

T = TypeVar("T")

_MAX_CELL = 72


def _cell(value: object) -> str:
    text = "" if value is None else str(value).replace("\n", " ")
    return text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 1] + "…"


def print_table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], out: TextIO | None = None
) -> None:
    """Print aligned columns; the last column is left ragged so long text stays readable."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    line = "  ".join(h.upper().ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line.rstrip(), file=out)
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip(), file=out)


def dump_json(value: Any, out: TextIO | None = None) -> None:
    """Print ``value`` as JSON for scripts."""
    print(json.dumps(value, ensure_ascii=False, indent=2), file=out)


def show_recalled(items: Sequence[Fact | Episode], out: TextIO | None = None) -> None:
    """A table of what recall found, best first: facts (by category) and episodes (by who
    said them), with the score and tokens that decided their place."""
    headers = ["id", "kind", "score", "trust", "tokens", "about", "content"]
    rows = [
        [
            item.id,
            item.kind,
            f"{item.score:.4f}",
            f"{item.trust_score:.1f}" if isinstance(item, Fact) else "-",
            item.tokens,
            (item.category or "-") if isinstance(item, Fact) else item.speaker,
            item.content,
        ]
        for item in items
    ]
    print_table(headers, rows, out)


def show_contradictions(found: Sequence[Contradiction], out: TextIO | None = None) -> None:
    """One block per contradiction: what disagrees, and which facts."""
    for c in found:
        print(f"{c.entity} [{c.category or '-'}]: {c.reason}", file=out)
        for fid in c.fact_ids:
            print(f"    {fid}", file=out)


def show_timeline(
    entity: str,
    facts: Sequence[Fact],
    out: TextIO | None = None,
    *,
    short: Mapping[str, str] | None = None,
) -> None:
    """Print :func:`timeline_lines`."""
    for line in timeline_lines(entity, facts, short):
        print(line, file=out)


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal.

    Piped or redirected output stays clean, which is what scripts and logs want.
    """

    def __init__(self, label: str, total: int, *, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = self._stream.isatty() and total > 0
        self._label = label
        self._total = total
        self._done = 0
        self._drawn_at = 0.0

    def note(self, text: str) -> None:
        """A one-off status line (on a terminal only), for work that cannot be counted."""
        if self._stream.isatty():
            self._stream.write(text + "\n")
            self._stream.flush()

    def advance(self, amount: int = 1) -> None:
        """Count ``amount`` more units of work; redraw at most ten times a second."""
        self._done += amount
        now = time.monotonic()
        if self._enabled and (now - self._drawn_at > 0.1 or self._done >= self._total):
            self._drawn_at = now
            self._draw()

    def track(self, items: Iterable[T], size: int = 1) -> Iterator[T]:
        """Yield ``items``, advancing by ``size`` for each."""
        for item in items:
            yield item
            self.advance(size)

    def finish(self) -> None:
        """End the line so later output starts on a fresh one."""
        if self._enabled:
            self._done = self._total
            self._draw()
            self._stream.write("\n")
            self._stream.flush()

    def _draw(self) -> None:
        share = min(1.0, self._done / self._total)
        filled = int(share * 30)
        bar = "█" * filled + "·" * (30 - filled)
        self._stream.write(f"\r{self._label} [{bar}] {share:6.1%}")
        self._stream.flush()
