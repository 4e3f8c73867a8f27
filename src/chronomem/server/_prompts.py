"""Prompts: the client's own model does what other memory servers pay an LLM for.

Picking the durable facts out of a conversation, or summing up what is known about someone,
needs a language model. Other memory servers call one with an API key of their own; here the
prompt hands the work to the model the user is already talking to, which then calls the
tools. The server holds no key and calls no model.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.types import EmbeddedResource, TextResourceContents

from ._resources import read_timeline, timeline_uri
from ._state import State

__all__ = ["add_prompts"]

_REMEMBER = """\
Go through this conversation and keep in long-term memory what will still matter in a later \
conversation: preferences, decisions, settings, facts about people, projects and the world. \
Leave out small talk, passing remarks and whatever only mattered for this moment.

For each durable fact, one short self-contained sentence that names who or what it is about:
1. First call chronomem_recall with that sentence, so nothing is stored twice.
2. If recall finds the same fact, skip it. If it finds an older version that this \
conversation changed or corrected, call chronomem_supersede with that fact's id as old_id \
and the new sentence. Otherwise call chronomem_remember with the sentence, a short category \
(such as "food", "work", "device") and the entities it names.
3. If chronomem_remember reports facts it contradicts, resolve each with chronomem_supersede \
or ask the user which is true.

Finish with a short list of what you stored, superseded and skipped."""

_KNOWN = """\
Here is every fact in memory about {entity!r}, oldest first (lines with "until" or \
"superseded by" are history, not current). Say what is currently believed about it, then how \
that changed over time and when. Call chronomem_recall for anything related the timeline \
does not cover. Say plainly if little or nothing is known."""


def remember_this_conversation(conversation: str = "") -> list[UserMessage]:
    """Store the durable facts of this conversation: recall first, then remember or
    supersede, so nothing is stored twice."""
    text = _REMEMBER
    if conversation.strip():
        text += f"\n\nThe conversation:\n\n{conversation}"
    return [UserMessage(text)]


async def what_do_you_know_about(entity: str, ctx: Context[State, Any]) -> list[UserMessage]:
    """What is known about an entity: its current beliefs and their history, from its
    timeline."""
    timeline = await read_timeline(entity, ctx)
    resource = TextResourceContents(uri=timeline_uri(entity), text=timeline, mime_type="text/plain")
    return [
        UserMessage(_KNOWN.format(entity=entity)),
        UserMessage(EmbeddedResource(resource=resource)),
    ]


def add_prompts(server: MCPServer[State]) -> None:
    """Register ``remember-this-conversation`` and ``what-do-you-know-about``."""
    server.prompt("remember-this-conversation", title="Remember this conversation")(
        remember_this_conversation
    )
    server.prompt("what-do-you-know-about", title="What do you know about...")(
        what_do_you_know_about
    )
