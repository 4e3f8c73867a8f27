"""The session service's work, synchronous: ADK's calls in chronica's terms.

:class:`ChronicaSessionService` runs each method on a worker thread, so a blocking store
never stalls the event loop and the logic exists once.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events import Event
from google.adk.platform import time as platform_time
from google.adk.platform import uuid as platform_uuid
from google.adk.sessions import Session, State
from google.adk.sessions.base_session_service import GetSessionConfig

from chronica import (
    ActorKind,
    Actum,
    ActumKind,
    Chronicarius,
    ChronicumNotFoundError,
    IdempotentStore,
    InvalidActumError,
    InvalidArgumentError,
    Store,
)
from chronica._validation import check_chronicum_id

from ._codec import (
    CREATED,
    DELETED,
    KEY,
    SNAPSHOT,
    UnmappableEventError,
    delta_actum,
    encode_event,
    marker_actum,
    read_record,
    split_state,
    state_json,
)
from ._memo import Memo
from ._names import APP_STATE, USERS, app_owner_for, owner_for, sessions_list_for, user_state_for
from ._replay import Replay, replay

__all__ = ["SessionBook"]

WINDOW = 8
"""Acta a windowed read asks for beyond the events it wants and the snapshot interval; the
window grows fourfold when it comes short of a base."""
SNAPSHOT_AFTER = 32
"""A read that walks this many events (or deltas) past its base records a snapshot."""


def _digest(*parts: str) -> str:
    text = "\n".join(parts).encode("utf-8", "surrogatepass")
    return hashlib.sha256(text).hexdigest()[:48]


def _session_id(session_id: str) -> str:
    try:
        return check_chronicum_id(session_id)
    except InvalidArgumentError as e:
        raise InvalidArgumentError("session_id", f"cannot name a chronicum: {e}") from e


def _merged(session: dict[str, Any], app: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    merged = dict(session)
    merged.update({State.APP_PREFIX + key: value for key, value in app.items()})
    merged.update({State.USER_PREFIX + key: value for key, value in user.items()})
    return merged


class SessionBook:
    """ADK sessions as chronica: create, read, list, delete, append."""

    def __init__(self, store: Store) -> None:
        self._c = Chronicarius(store)
        if not isinstance(store, IdempotentStore):
            raise TypeError(
                f"ChronicaSessionService needs an IdempotentStore (re-delivered events and "
                f"racing creates are settled by idempotency keys); {type(store).__name__} "
                "is not one"
            )
        self._lock = threading.Lock()
        self._gens: dict[tuple[str, str], int] = {}  # live sessions this process has seen
        self._appends: dict[tuple[str, str], int] = {}
        self._memo = Memo()

    @property
    def store(self) -> Store:
        """The chronica store the sessions live in."""
        return self._c.store

    # -- reading ----------------------------------------------------------------------------

    def _walk(
        self,
        owner: str,
        chronicum_id: str,
        *,
        wanted: int | None = 0,
        after: float | None = None,
        session: bool = True,
    ) -> Replay:
        window = max(wanted or 0, SNAPSHOT_AFTER) + WINDOW
        if session and wanted is None and after is None:
            window = 0  # every event: read them all at once
        while True:
            try:
                acta = self._c.get_acta(owner, chronicum_id, last_n=window)
            except ChronicumNotFoundError:
                return Replay("missing")
            records = [r for a in acta if (r := read_record(a)) is not None]
            complete = window == 0 or len(acta) < window
            found = replay(records, complete=complete, wanted=wanted, after=after, session=session)
            if found is not None:
                if found.status == "live" and found.walked >= SNAPSHOT_AFTER:
                    self._snapshot(owner, chronicum_id, found)
                return found
            window *= 4

    def _snapshot(self, owner: str, chronicum_id: str, found: Replay) -> None:
        assert found.newest is not None  # a live walk saw at least one actum
        state = json.dumps(found.state())  # values read from JSON: they have a JSON form
        marker, _ = marker_actum(chronicum_id, SNAPSHOT, found.gen, through=found.newest,
                                 state=state)  # fmt: skip
        # Racing readers of one position store one snapshot.
        self._c.record_actum(owner, marker, idempotency_key=f"snapshot:{found.newest}")

    def _log_state(self, owner: str, chronicum_id: str) -> dict[str, Any]:
        try:  # one actum says whether anything changed since this process last looked
            newest = self._c.get_acta(owner, chronicum_id, last_n=1)
        except ChronicumNotFoundError:
            return {}
        if not newest:
            return {}
        head = newest[-1]
        state = self._memo.state((owner, chronicum_id), head.id)
        if state is None:
            state = self._walk(owner, chronicum_id, session=False).state()
            self._memo.keep_state((owner, chronicum_id), head.id, state)
        return state

    def _app_state(self, app_name: str) -> dict[str, Any]:
        return self._log_state(app_owner_for(app_name), APP_STATE)

    def user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        """The user-scoped state, keys without their ``user:`` prefix."""
        return self._log_state(app_owner_for(app_name), user_state_for(user_id))

    def _names(self, app_name: str, chronicum_id: str) -> list[str]:
        try:
            acta = self._c.get_acta(app_owner_for(app_name), chronicum_id)
        except ChronicumNotFoundError:
            return []
        names = (json.loads(r.payload()) for a in acta if (r := read_record(a)) is not None)
        return list(dict.fromkeys(names))

    def _session(
        self, app_name: str, user_id: str, session_id: str, found: Replay, *, events: bool
    ) -> Session:
        app, user = self._app_state(app_name), self.user_state(app_name, user_id)
        # Every part is already checked (the events were validated as they were parsed), so
        # the session is assembled without validating ten thousand events a second time.
        return Session.model_construct(
            id=session_id,
            app_name=app_name,
            user_id=user_id,
            state=_merged(found.state(), app, user),
            events=self._events(found) if events else [],
            last_update_time=found.last_update_time,
        )

    def _events(self, found: Replay) -> list[Event]:
        return [record.event() for record in reversed(found.events)]

    def get(
        self, app_name: str, user_id: str, session_id: str, config: GetSessionConfig | None
    ) -> Session | None:
        """The session with the events ``config`` asks for, or None if there is none."""
        owner = owner_for(app_name, user_id)
        session_id = session_id.strip() if session_id else session_id
        try:
            check_chronicum_id(session_id)
        except InvalidArgumentError:
            return None  # no session can have this ID
        wanted = config.num_recent_events if config else None
        after = config.after_timestamp if config else None
        found = self._walk(owner, session_id, wanted=wanted, after=after)
        self._remember(owner, session_id, found)
        if found.status != "live":
            return None
        return self._session(app_name, user_id, session_id, found, events=True)

    def sessions(self, app_name: str, user_id: str | None) -> list[Session]:
        """The app's (or one user's) live sessions, without events, oldest update first."""
        users = [user_id] if user_id is not None else self._names(app_name, USERS)
        sessions = []
        for user in users:
            owner = owner_for(app_name, user)
            for session_id in self._names(app_name, sessions_list_for(user)):
                found = self._walk(owner, session_id)
                if found.status == "live":
                    sessions.append(self._session(app_name, user, session_id, found, events=False))
        sessions.sort(key=lambda s: (s.last_update_time, s.user_id, s.id))
        return sessions

    # -- writing ----------------------------------------------------------------------------

    def create(
        self, app_name: str, user_id: str, state: dict[str, Any] | None, session_id: str | None
    ) -> Session:
        """Start a session (a new generation of a deleted one's chronicum)."""
        owner, app_owner = owner_for(app_name, user_id), app_owner_for(app_name)
        # Checked before anything is written, and kept as they will read back: their JSON form.
        scopes = {
            k: json.loads(state_json("state", v)) for k, v in split_state(state or {}).items()
        }
        session_id = session_id.strip() if session_id else None
        session_id = _session_id(session_id or platform_uuid.new_uuid())
        previous = self._walk(owner, session_id)
        if previous.status == "live":
            raise AlreadyExistsError(f"Session with id {session_id} already exists.")
        gen, now = previous.gen + 1, platform_time.get_time()
        self._entry(app_owner, USERS, user_id)
        self._entry(app_owner, sessions_list_for(user_id), session_id)
        session_state = json.dumps(scopes["session"])
        marker, nonce = marker_actum(session_id, CREATED, gen, ts=now, state=session_state)
        stored = self._c.record_actum(owner, marker, idempotency_key=f"{CREATED}:{gen}")
        if stored.metadata[KEY].get("w") != nonce:  # another creator won the race
            raise AlreadyExistsError(f"Session with id {session_id} already exists.")
        key = f"{CREATED}:{_digest(owner, session_id, str(gen))}"
        self._scoped_deltas(app_name, user_id, scopes["app"], scopes["user"], key)
        with self._lock:
            self._gens[owner, session_id] = gen
        found = Replay("live", gen, base=scopes["session"], last_update_time=now)
        return self._session(app_name, user_id, session_id, found, events=False)

    def _entry(self, app_owner: str, chronicum_id: str, name: str) -> None:
        actum = Actum(
            chronicum_id=chronicum_id,
            kind=ActumKind.THOUGHT,
            actor_kind=ActorKind.SYSTEM,
            actor="adk",
            content="ADK listing entry",
            metadata={KEY: {"type": "entry", "payload": json.dumps(name)}},
        )
        self._c.record_actum(app_owner, actum, idempotency_key=f"entry:{_digest(name)}")

    def _scoped_deltas(
        self, app_name: str, user_id: str, app: dict[str, Any], user: dict[str, Any], key: str
    ) -> None:
        app_owner = app_owner_for(app_name)
        if app:
            self._c.record_actum(app_owner, delta_actum(APP_STATE, app), idempotency_key=key)
        if user:
            log = user_state_for(user_id)
            self._c.record_actum(app_owner, delta_actum(log, user), idempotency_key=key)

    def delete(self, app_name: str, user_id: str, session_id: str) -> None:
        """Append a tombstone to a live session; its acta stay, as an audit trail."""
        owner = owner_for(app_name, user_id)
        session_id = session_id.strip() if session_id else session_id
        try:
            check_chronicum_id(session_id)
        except InvalidArgumentError:
            return
        found = self._walk(owner, session_id)
        if found.status == "live":
            marker, _ = marker_actum(session_id, DELETED, found.gen)
            self._c.record_actum(owner, marker, idempotency_key=f"{DELETED}:{found.gen}")
        self._remember(owner, session_id, Replay("deleted"))

    def append(self, session: Session, event: Event) -> bool:
        """Record ``event``; False if this very event was recorded before (a re-delivery)."""
        owner = owner_for(session.app_name, session.user_id)
        gen = self._live_gen(owner, session.id)
        encoded = encode_event(event, session.id, gen, salt=f"{owner}\n{session.id}")
        try:
            stored = self._c.record_actum(owner, encoded.actum, idempotency_key=encoded.key)
        except InvalidActumError as e:
            raise UnmappableEventError(event.id, str(e)) from e
        # Also for a re-delivery: completes an append that failed after its event was stored.
        app, user = encoded.app_delta, encoded.user_delta
        self._scoped_deltas(session.app_name, session.user_id, app, user, encoded.key)
        with self._lock:
            count = self._appends[owner, session.id] = self._appends.get((owner, session.id), 0) + 1
        if count % SNAPSHOT_AFTER == 0:
            self._walk(owner, session.id)  # keeps the next windowed read short
        return bool(stored.metadata[KEY].get("w") == encoded.nonce)

    def _live_gen(self, owner: str, session_id: str) -> int:
        with self._lock:
            gen = self._gens.get((owner, session_id))
        if gen is None:
            found = self._walk(owner, session_id)
            self._remember(owner, session_id, found)
            if found.status != "live":
                raise SessionNotFoundError(f"Session {session_id} not found.")
            gen = found.gen
        return gen

    def _remember(self, owner: str, session_id: str, found: Replay) -> None:
        with self._lock:
            if found.status == "live":
                self._gens[owner, session_id] = found.gen
            else:
                self._gens.pop((owner, session_id), None)
                self._appends.pop((owner, session_id), None)
