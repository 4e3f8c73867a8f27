"""The adapter's lean event parser gives what ``Event.model_validate_json`` gives, on every
shape of event an agent appends: text, thoughts, tool calls and responses, code, inline bytes,
files, usage and grounding metadata, state and artifact deltas, auth and confirmation
requests, and a payload only pydantic's own validator accepts or refuses."""

from __future__ import annotations

import pytest
from google.adk.auth.auth_credential import AuthCredential, AuthCredentialTypes
from google.adk.auth.auth_tool import AuthConfig
from google.adk.events import Event, EventActions
from google.adk.tools.tool_confirmation import ToolConfirmation
from google.genai import types
from pydantic import ValidationError

from chronica.integrations.adk._rebuild import parse_event


def _events() -> list[Event]:
    call = types.FunctionCall(id="c1", name="get_weather", args={"city": "Paris", "n": None})
    response = types.FunctionResponse(id="c1", name="get_weather", response={"t": 21.5})
    auth = AuthConfig(
        auth_scheme={"type": "http", "scheme": "bearer"},
        raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.HTTP),
        credential_key="k",  # else ADK builds one with a method it deprecates
    )
    return [
        Event(author="user", content=types.Content(role="user", parts=[types.Part(text="hi")])),
        Event(
            author="agent",
            invocation_id="inv",
            branch="a.b",
            content=types.Content(
                role="model",
                parts=[
                    types.Part(text="thinking", thought=True, thought_signature=b"\x00\xffsig"),
                    types.Part(function_call=call),
                    types.Part(executable_code=types.ExecutableCode(code="print(1)")),
                    types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG\x00")),
                    types.Part(file_data=types.FileData(file_uri="gs://b/f", mime_type="text/x")),
                ],
            ),
            long_running_tool_ids={"c1", "c2"},
            usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=3),
            finish_reason=types.FinishReason.STOP,
            grounding_metadata=types.GroundingMetadata(web_search_queries=["w"]),
            partial=False,
            turn_complete=True,
        ),
        Event(
            author="agent",
            content=types.Content(role="user", parts=[types.Part(function_response=response)]),
            actions=EventActions(
                state_delta={"k": [1, {"x": None}], "user:u": 2.0},
                artifact_delta={"f.txt": 3},
                skip_summarization=True,
                transfer_to_agent="other",
                escalate=False,
                requested_auth_configs={"c1": auth},
                requested_tool_confirmations={"c1": ToolConfirmation(hint="ok?", payload={"a": 1})},
                route=["x", 2],
                agent_state={"step": 1},
            ),
            output={"answer": 42},
            error_code="E",
            error_message="m",
        ),
        Event(author="agent"),
    ]


@pytest.mark.parametrize("event", _events(), ids=["text", "parts", "actions", "empty"])
def test_the_lean_parse_equals_pydantics(event: Event) -> None:
    payload = event.model_dump_json(exclude_none=True)
    expected, parsed = Event.model_validate_json(payload), parse_event(payload)
    assert type(parsed) is Event
    assert parsed == expected
    assert parsed.model_dump_json() == expected.model_dump_json()
    assert parsed.model_fields_set == expected.model_fields_set
    mine = parsed.content.parts or [] if parsed.content else []
    theirs = expected.content.parts or [] if expected.content else []
    for part, reference in zip(mine, theirs, strict=True):
        assert type(part) is type(reference)
        assert part.model_fields_set == reference.model_fields_set
    if expected.actions.requested_auth_configs:
        assert type(parsed.actions.requested_auth_configs["c1"]) is AuthConfig


def test_a_payload_pydantic_refuses_is_refused_as_pydantic_refuses_it() -> None:
    with pytest.raises(ValidationError):
        parse_event('{"author": "a", "content": {"parts": [{"no_such_field": 1}]}}')
    with pytest.raises(ValidationError):
        parse_event('{"author": 7}')


def test_a_dumped_event_without_an_id_gets_one_as_pydantic_gives_it() -> None:
    payload = '{"author": "a", "timestamp": 1.0}'
    parsed, expected = parse_event(payload), Event.model_validate_json(payload)
    assert parsed.id  # model_post_init ran: a fresh ID each
    assert parsed.id != expected.id
    assert parsed.model_fields_set == expected.model_fields_set
    assert parsed.model_copy(update={"id": ""}) == expected.model_copy(update={"id": ""})
