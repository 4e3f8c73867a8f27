"""One sample of every input item type the OpenAI Agents SDK can hand a session.

Written as the SDK serialises them (plain JSON dicts, keys in the SDK's order), with the
awkward cases a store meets: text parts, non-ASCII text, NUL and big payloads.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SAMPLES"]

_SCREENSHOT = "data:image/png;base64," + "iVBORw0KGgo" * 12_000  # ~130 KB, over 64 KiB

SAMPLES: dict[str, list[Any]] = {
    "message": [
        {"role": "user", "content": "A quiet table for four in Kemang, Friday 7pm."},
        {"content": "Ardian: aku mau makan malam di Kemang 🍜", "role": "user", "type": "message"},
        {"role": "system", "content": "You are a concierge."},
        {"role": "developer", "content": [{"type": "input_text", "text": "Be brief."}]},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is on this menu?"},
                {"type": "input_image", "image_url": _SCREENSHOT, "detail": "auto"},
            ],
        },
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Booked Kinara, 7pm.", "annotations": []}],
        },
        {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "refusal", "refusal": "I cannot book that."}],
        },
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "nul\x00inside"},
    ],
    "function_call": [
        {
            "arguments": '{"city": "Paris"}',
            "call_id": "call_1",
            "name": "get_weather",
            "type": "function_call",
            "id": "fc_1",
            "status": "completed",
        }
    ],
    "function_call_output": [
        {"call_id": "call_1", "output": "sunny, 21°C", "type": "function_call_output"},
        {"call_id": "call_2", "output": "x" * 300_000, "type": "function_call_output"},
        {
            "call_id": "call_3",
            "output": [
                {"type": "input_text", "text": "two"},
                {"type": "input_text", "text": "parts"},
            ],
            "type": "function_call_output",
        },
    ],
    "reasoning": [
        {
            "id": "rs_1",
            "summary": [{"text": "Search first, then book.", "type": "summary_text"}],
            "type": "reasoning",
        },
        {"id": "rs_2", "summary": [], "type": "reasoning", "encrypted_content": "gAAAAB" * 200},
    ],
    "custom_tool_call": [
        {"type": "custom_tool_call", "call_id": "c1", "name": "sql", "input": "SELECT 1"}
    ],
    "custom_tool_call_output": [
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "1"}
    ],
    "computer_call": [
        {
            "type": "computer_call",
            "id": "cu_1",
            "call_id": "cc_1",
            "action": {"type": "click", "button": "left", "x": 10, "y": 20},
            "pending_safety_checks": [],
            "status": "completed",
        }
    ],
    "computer_call_output": [
        {
            "type": "computer_call_output",
            "call_id": "cc_1",
            "output": {"type": "computer_screenshot", "image_url": _SCREENSHOT},
        }
    ],
    "file_search_call": [
        {
            "id": "fs_1",
            "type": "file_search_call",
            "queries": ["quiet restaurants"],
            "status": "completed",
            "results": [{"file_id": "f1", "text": "Kinara is quiet.", "score": 0.9}],
        }
    ],
    "web_search_call": [
        {
            "id": "ws_1",
            "type": "web_search_call",
            "status": "completed",
            "action": {"type": "search", "query": "Kinara Kemang"},
        }
    ],
    "code_interpreter_call": [
        {
            "id": "ci_1",
            "type": "code_interpreter_call",
            "code": "print(2 + 2)",
            "container_id": "cnt_1",
            "outputs": [{"type": "logs", "logs": "4"}],
            "status": "completed",
        }
    ],
    "image_generation_call": [
        {"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": None}
    ],
    "local_shell_call": [
        {
            "id": "ls_1",
            "type": "local_shell_call",
            "call_id": "lc_1",
            "status": "completed",
            "action": {"type": "exec", "command": ["ls"], "env": {}},
        }
    ],
    "local_shell_call_output": [
        {"id": "lso_1", "type": "local_shell_call_output", "output": "README.md\n"}
    ],
    "shell_call": [
        {
            "type": "shell_call",
            "call_id": "sh_1",
            "action": {"commands": ["ls"], "timeout_ms": 1000},
            "status": "completed",
        }
    ],
    "shell_call_output": [
        {
            "type": "shell_call_output",
            "call_id": "sh_1",
            "output": [
                {"stdout": "README.md\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
            ],
        }
    ],
    "apply_patch_call": [
        {
            "type": "apply_patch_call",
            "call_id": "ap_1",
            "status": "completed",
            "operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n"},
        }
    ],
    "apply_patch_call_output": [
        {
            "type": "apply_patch_call_output",
            "call_id": "ap_1",
            "status": "completed",
            "output": "ok",
        }
    ],
    "mcp_list_tools": [
        {
            "id": "ml_1",
            "type": "mcp_list_tools",
            "server_label": "places",
            "tools": [{"name": "search", "input_schema": {"type": "object"}}],
        }
    ],
    "mcp_approval_request": [
        {
            "id": "ma_1",
            "type": "mcp_approval_request",
            "server_label": "places",
            "name": "book",
            "arguments": '{"place": "Kinara"}',
        }
    ],
    "mcp_approval_response": [
        {"type": "mcp_approval_response", "approval_request_id": "ma_1", "approve": True}
    ],
    "mcp_call": [
        {
            "id": "mc_1",
            "type": "mcp_call",
            "server_label": "places",
            "name": "book",
            "arguments": '{"place": "Kinara"}',
            "output": "confirmed #K-2291",
        }
    ],
    "tool_search_call": [
        {"type": "tool_search_call", "arguments": {"query": "booking"}, "status": "completed"}
    ],
    "tool_search_output": [{"type": "tool_search_output", "tools": [], "status": "completed"}],
    "additional_tools": [
        {"type": "additional_tools", "role": "developer", "tools": [{"type": "web_search"}]}
    ],
    "configuration_update": [{"type": "configuration_update", "id": "cu_1"}],
    "compaction": [{"type": "compaction", "encrypted_content": "gAAAAB" * 50}],
    "compaction_trigger": [{"type": "compaction_trigger"}],
    "item_reference": [{"id": "msg_0"}, {"id": "msg_1", "type": "item_reference"}],
    "program": [{"type": "program", "call_id": "p1", "code": "1 + 1", "fingerprint": "f"}],
    "program_output": [{"type": "program_output", "call_id": "p1", "result": "2"}],
}
