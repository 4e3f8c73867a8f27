"""Ask the user before a tool destroys something, when the client can ask (MCP elicitation).

``chronomem_forget`` takes a resolved parameter (the SDK's ``Resolve``): before the tool body
runs, :func:`confirm_forget` finds the fact and, if the client declared the elicitation
capability, asks the user to confirm with the fact's own words. A client without it is not
asked anything and the tool acts as it always did: the confirmation is the model's, as before.
The SDK carries the question either way the protocol does, as an ``elicitation/create``
request in the middle of the call (2025-11-25) or as an ``InputRequiredResult`` the client
answers by calling again (2026-07-28).

Nothing is asked about what cannot be forgotten (an unknown id fails first, with the tool's
own error; a fact no longer active is left to the tool, which says why), and a declined or
cancelled question writes nothing. The server has no purge tool: erasure is an operator's act
(``chronomem purge``), never a model's.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, Elicit
from pydantic import BaseModel, Field

from chronomem import Episode, Fact
from chronomem._checks import check_text
from chronomem._doors.ids import resolve, short_ids

from ._errors import readable_errors
from ._state import State

__all__ = ["ForgetConfirmation", "can_elicit", "confirm_forget"]


class ForgetConfirmation(BaseModel):
    """Confirm that this memory may be forgotten."""

    forget: bool = Field(
        default=True,
        title="Forget it",
        description="Recall stops returning it; its history stays for audit.",
    )


def can_elicit(ctx: Context[State, Any]) -> bool:
    """Whether the client declared form elicitation (a bare ``elicitation: {}`` means form,
    as the specification says; a client of URL mode alone cannot show a form)."""
    capabilities = ctx.client_capabilities
    asking = capabilities.elicitation if capabilities is not None else None
    return asking is not None and (asking.form is not None or asking.url is None)


async def confirm_forget(
    ctx: Context[State, Any], fact_id: str
) -> Elicit[ForgetConfirmation] | ForgetConfirmation:
    """The question to ask before ``fact_id`` is forgotten, or consent without asking."""
    with readable_errors():
        check_text("fact_id", fact_id)  # ids are looked up, not validated, by the library
        item, shown = await ctx.request_context.lifespan_context.read(lambda s: _item(s, fact_id))
    active = not item.forgotten and item.purged_at is None
    if isinstance(item, Fact):
        active = active and item.superseded_by is None
    if not active or not can_elicit(ctx):
        return ForgetConfirmation(forget=True)
    what = (
        f"[{shown}] {item.content}" if isinstance(item, Fact) else f"{item.speaker}: {item.content}"
    )
    return Elicit(f"Forget this memory? {_cut(what)}", ForgetConfirmation)


def _item(state: State, given: str) -> tuple[Fact | Episode, str]:
    memory = state.memory
    whole = resolve(memory, given)
    return memory.get(whole), short_ids(memory, [whole]).get(whole, whole)


_SHOWN = 500
"""The most characters of a memory the question quotes (a confirmation, not a reading)."""


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
