"""Conversations made recallable: turns from elsewhere (a chronica session, an agent framework's
events) checked for :meth:`ChronoMem.remember_episodes <chronomem.ChronoMem.remember_episodes>`,
and a chronica session indexed for :meth:`ChronoMem.index_session
<chronomem.ChronoMem.index_session>`.

Incremental and idempotent: a turn names its ``source`` (a chronica actum's id, a framework
event's id), unique in its session, and its episode keeps it; the sources already stored are
read inside the write transaction (see ``write.episodes.insert_episodes``), so a second call,
or two racing calls, store each turn once. Indexing a session reads only what follows the
actum its newest episode came from (the chronicum's tail, newest first), so a call after
every turn costs the same at 50,000 turns as at 50.

Indexing never stops on one turn: what cannot be stored as said is trimmed (a long message
to its beginning, an over-long speaker name) or skipped, and the result says which.

This module knows nothing of :class:`~chronomem.ChronoMem`: the memory calls it, never the
other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from chronica import ActumKind
from chronica.integrations.memory import retraction_of
from chronomem._checks import MAX_CONTENT_BYTES
from chronomem._errors import InvalidArgumentError
from chronomem.engine.dialect import Conn
from chronomem.write.episodes import (
    MAX_SPEAKER_BYTES,
    EpisodeInput,
    check_episode,
    insert_episodes,
)
from chronomem.write.indexing import forget_by_source, last_source

if TYPE_CHECKING:
    from chronica import Actum, Chronicarius

__all__ = ["Indexed", "Skipped", "Turn", "episodes_of", "index_chronicum"]

RETRACTED = "retracted in its chronica session"
"""The ``forget_reason`` of an episode whose actum the session took back."""
_FIRST_PROBE = 4  # acta read to find what is new; a call after every turn finds one or two


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation, to remember as an episode.

    ``source`` identifies the turn within its ``session`` where it came from (a chronica
    actum's id, a framework event's id): a turn whose source its session already holds is
    not stored again. ``at`` (default now, naive = UTC) is when it was said.
    """

    content: str
    speaker: str
    session: str
    at: datetime | None = None
    source: str | None = None
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Skipped:
    """A turn indexing could not store, by its ``source``, and why."""

    source: str | None
    reason: str


class Indexed(int):
    """What :meth:`~chronomem.ChronoMem.index_session` did: the number of episodes added
    (it *is* that int, so ``== 2`` reads as before), plus what it could not take as said.

    ``trimmed`` holds the sources of turns stored altered (content cut to its first 64 KiB,
    a speaker name cut or cleaned); ``skipped`` the turns not stored at all, with why;
    ``forgotten`` counts episodes forgotten because their session retracted them.
    """

    skipped: tuple[Skipped, ...]
    trimmed: tuple[str, ...]
    forgotten: int

    def __new__(
        cls,
        added: int,
        *,
        skipped: Iterable[Skipped] = (),
        trimmed: Iterable[str] = (),
        forgotten: int = 0,
    ) -> Indexed:
        self = super().__new__(cls, added)
        self.skipped, self.trimmed, self.forgotten = tuple(skipped), tuple(trimmed), forgotten
        return self

    @property
    def added(self) -> int:
        """How many episodes were added."""
        return int(self)

    def __str__(self) -> str:
        return str(int(self))  # prints as the count it is: "5", as before

    def __repr__(self) -> str:
        return (
            f"Indexed(added={int(self)}, skipped={len(self.skipped)}, "
            f"trimmed={len(self.trimmed)}, forgotten={self.forgotten})"
        )


def _fitting(content: object) -> object:
    # chronica allows 1 MiB per actum, an episode 64 KiB: a longer turn is stored by its
    # beginning rather than refused, so one long paste cannot make a whole session
    # unrecallable. Its words are kept, not its padding: 64 KiB of leading blanks would cut
    # to nothing.
    if not isinstance(content, str):
        return content  # for check_episode to refuse, naming the field
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:
        return content  # a lone surrogate: refused by check_episode
    if len(data) <= MAX_CONTENT_BYTES:
        return content
    data = content.strip().encode("utf-8")
    return data[:MAX_CONTENT_BYTES].decode("utf-8", errors="ignore")


def episodes_of(turns: Iterable[Turn]) -> list[EpisodeInput]:
    """Every turn checked as an episode, in order, before anything is written: a bad one
    raises ``InvalidFactError`` naming the field. Content over an episode's limit is cut."""
    return [_episode(turn) for turn in _turns(turns)]


def _turns(turns: Iterable[Turn]) -> list[Turn]:
    if isinstance(turns, (str, bytes, Mapping)) or not isinstance(turns, Iterable):
        raise InvalidArgumentError("turns", "must be an iterable of chronomem.Turn")
    checked = list(turns)
    for turn in checked:
        if not isinstance(turn, Turn):
            raise InvalidArgumentError("turns", f"holds a {type(turn).__name__}, not a Turn")
    return checked


def _episode(turn: Turn) -> EpisodeInput:
    return check_episode(
        _fitting(turn.content),
        speaker=turn.speaker,
        session=turn.session,
        at=turn.at,
        metadata=turn.metadata,
        source=turn.source,
    )


def _clean(text: str, max_bytes: int) -> str:
    """``text`` without NUL or lone surrogates, cut to ``max_bytes`` of UTF-8."""
    data = text.replace("\x00", "\ufffd").encode("utf-8", "replace")
    return data[:max_bytes].decode("utf-8", errors="ignore").strip()


def fit(turns: Iterable[Turn]) -> tuple[list[EpisodeInput], list[Skipped], list[str]]:
    """Each turn as an episode if it can be stored, cleaned if it must be: the episodes,
    the turns skipped (and why), and the sources of those trimmed. Never raises for a turn."""
    episodes: list[EpisodeInput] = []
    skipped: list[Skipped] = []
    trimmed: list[str] = []
    for turn in _turns(turns):
        try:
            episodes.append(_episode(turn))
            if _fitting(turn.content) is not turn.content:
                trimmed.append(turn.source or "")
            continue
        except InvalidArgumentError as e:
            first = str(e)
        cleaned = replace(
            turn,
            content=_clean(turn.content, len(turn.content.encode("utf-8", "replace")))
            if isinstance(turn.content, str)
            else turn.content,
            speaker=_clean(turn.speaker, MAX_SPEAKER_BYTES) or "unknown"
            if isinstance(turn.speaker, str)
            else turn.speaker,
        )
        try:
            episodes.append(_episode(cleaned))
            trimmed.append(turn.source or "")
        except InvalidArgumentError:
            skipped.append(Skipped(turn.source, first))
    return episodes, skipped, trimmed


def index_chronicum(
    conn: Conn,
    owner: str,
    chronicarius: Chronicarius,
    chronicum_id: str,
    reader: str,
    now: Callable[[], int],
) -> Indexed:
    """Index ``reader``'s chronicum into ``owner``'s episodes, inside the caller's write
    transaction: what follows the newest indexed actum, retractions honoured.

    The session is locked before its cursor is read, so racing indexers take turns and
    each starts where the other stopped.
    """
    conn.dialect.lock_session(conn, owner, chronicum_id)
    acta = _new_acta(chronicarius, reader, chronicum_id, last_source(conn, owner, chronicum_id))
    turns, retracted, cleared = _read(acta, chronicum_id)
    forgotten = 0
    if cleared:
        forgotten += forget_by_source(conn, owner, chronicum_id, None, reason=RETRACTED, now=now())
    if retracted:
        forgotten += forget_by_source(
            conn, owner, chronicum_id, retracted, reason=RETRACTED, now=now()
        )
    episodes, skipped, trimmed = fit(turns)
    added = insert_episodes(conn, owner, episodes, now)[1]
    return Indexed(added, skipped=skipped, trimmed=trimmed, forgotten=forgotten)


def _new_acta(
    chronicarius: Chronicarius, reader: str, chronicum_id: str, last: str | None
) -> list[Actum]:
    """The acta after the one ``last`` names: the chronicum's tail, read newest first in
    growing windows until that actum is met (the whole chronicum when nothing is indexed
    yet, or when ``last`` is not among its acta). A store reads a tail by its index
    (``ORDER BY seq DESC LIMIT n``), so this costs what is new, not what is old."""
    if last is None:
        return chronicarius.get_acta(reader, chronicum_id)
    n = _FIRST_PROBE
    while True:
        acta = chronicarius.get_acta(reader, chronicum_id, last_n=n)
        for i in range(len(acta) - 1, -1, -1):
            if acta[i].id == last:
                return acta[i + 1 :]
        if len(acta) < n:
            return acta
        n *= 8


def _read(acta: Iterable[Actum], chronicum_id: str) -> tuple[list[Turn], list[str], bool]:
    """The MESSAGE acta with text as turns (speaker the actor, session the chronicum, ``at``
    the actum's time, source its id), less those the acta retract; the earlier acta
    retracted (to forget); and whether a clear marker retracts everything before them.
    Retraction markers are bookkeeping, never turns."""
    turns: dict[str, Turn] = {}
    retracted: list[str] = []
    cleared = False
    for actum in acta:
        taken = retraction_of(actum)
        if taken is not None:
            if taken.target is None:
                turns.clear()
                retracted.clear()
                cleared = True
            elif turns.pop(taken.target, None) is None:
                retracted.append(taken.target)
        elif actum.kind == ActumKind.MESSAGE and actum.content.strip():
            turns[actum.id] = Turn(
                content=actum.content,
                speaker=actum.actor,
                session=chronicum_id,
                at=actum.at,
                source=actum.id,
            )
    return list(turns.values()), retracted, cleared
