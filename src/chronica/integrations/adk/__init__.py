"""Google ADK's session service over chronica: ``ChronicaSessionService``.

Switching from ADK's own services is one line::

    session_service = InMemorySessionService()                          # before
    session_service = ChronicaSessionService(SQLiteStore("sessions.db"))  # after
    runner = Runner(app_name="trips", agent=agent, session_service=session_service)

Needs ``pip install 'chronomem[adk]'``. An ADK user's session is the chronicum
``session_id`` of the owner :func:`owner_for` ``(app_name, user_id)``; each event is an actum
(see :mod:`chronica.integrations.adk._codec`) whose metadata keeps the event exactly.
"""

from __future__ import annotations

from ._codec import UnmappableEventError
from ._names import app_owner_for, owner_for
from ._service import ChronicaSessionService

__all__ = ["ChronicaSessionService", "UnmappableEventError", "app_owner_for", "owner_for"]
