"""The Claude Code plugin (plugins/chronomem) and its marketplace (.claude-plugin/marketplace.json).

Two halves. The files are checked against the schemas Claude Code documents, written below as
JSON Schema from its references (code.claude.com/docs/en/plugins/manifest-reference,
.../plugins/marketplace-reference, .../plugins-reference for hooks and .../skills for
SKILL.md): what each field must be, kept to the fields these files use or may grow, and the
rule that the standard ``hooks/hooks.json`` is never named in the manifest (Claude Code loads
it by itself and refuses the duplicate). Then every hook the plugin declares is run as Claude
Code runs it: its command line through a shell, with the plugin's and the project's variables
set, fed recorded event JSON, and the MCP server it declares is started as declared, so what
the hooks captured is what the server recalls.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no types
from mcp import ClientSession, StdioServerParameters, stdio_client

from chronomem import ChronoMem
from chronomem.cli._hook_settings import EVENTS, hook_entries
from tests.chronomem.cli.test_hook import FIRST, SAID_FIRST, SESSION, assistant, user, write
from tests.chronomem.mcp_client import run

REPO = Path(__file__).resolve().parents[3]
PLUGIN = REPO / "plugins" / "chronomem"
MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"

KEBAB = r"^[a-z0-9]+(-[a-z0-9]+)*$"
SEMVER = r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$"
PATHS = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
AUTHOR = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "email": {"type": "string"},
        "url": {"type": "string"},
    },
    "additionalProperties": False,
}
STDIO_SERVER = {
    "type": "object",
    "required": ["command"],
    "properties": {
        "type": {"const": "stdio"},
        "command": {"type": "string", "minLength": 1},
        "args": {"type": "array", "items": {"type": "string"}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "cwd": {"type": "string"},
    },
    "additionalProperties": False,
}
REMOTE_SERVER = {
    "type": "object",
    "required": ["type", "url"],
    "properties": {
        "type": {"enum": ["http", "sse"]},
        "url": {"type": "string"},
        "headers": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "additionalProperties": False,
}
SERVERS = {"type": "object", "additionalProperties": {"anyOf": [STDIO_SERVER, REMOTE_SERVER]}}
METADATA = {
    "name": {"type": "string", "pattern": KEBAB, "maxLength": 64},
    "version": {"type": "string", "pattern": SEMVER},
    "description": {"type": "string", "minLength": 1},
    "author": AUTHOR,
    "homepage": {"type": "string"},
    "repository": {"type": "string"},
    "license": {"type": "string"},
    "keywords": {"type": "array", "items": {"type": "string"}},
}
COMPONENTS = {
    "commands": PATHS,
    "agents": PATHS,
    "skills": PATHS,
    "outputStyles": PATHS,
    # The standard hooks/hooks.json is loaded by itself; naming it again is refused.
    "hooks": {
        "anyOf": [
            {"type": "string", "not": {"pattern": r"^(\./)?hooks/hooks\.json$"}},
            {"type": "array", "items": {"type": "string"}},
            {"type": "object"},
        ]
    },
    "mcpServers": {"anyOf": [{"type": "string"}, SERVERS]},
    "lspServers": {"anyOf": [{"type": "string"}, {"type": "object"}]},
    "userConfig": {"type": "object"},
}
PLUGIN_SCHEMA = {
    "type": "object",
    "required": ["name"],
    "properties": {**METADATA, **COMPONENTS},
    "additionalProperties": False,
}
MARKETPLACE_SCHEMA = {
    "type": "object",
    "required": ["name", "owner", "plugins"],
    "properties": {
        "$schema": {"type": "string"},
        "name": {"type": "string", "pattern": KEBAB},
        "owner": AUTHOR,
        "metadata": {
            "type": "object",
            "properties": {
                "description": {"type": "string"},
                "version": {"type": "string"},
                "pluginRoot": {"type": "string"},
            },
            "additionalProperties": False,
        },
        "plugins": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "source"],
                "properties": {
                    **METADATA,
                    **COMPONENTS,
                    # A relative source is a directory of the marketplace's own repository.
                    "source": {
                        "anyOf": [
                            {"type": "string", "pattern": r"^\./(?!.*\.\.)"},
                            {"type": "object", "required": ["source"]},
                        ]
                    },
                    "category": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "strict": {"type": "boolean"},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
HOOK_EVENTS = [
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Notification", "Stop", "SubagentStop",
    "SessionStart", "SessionEnd", "PreCompact",
]  # fmt: skip
HOOKS_SCHEMA = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "description": {"type": "string"},
        "hooks": {
            "type": "object",
            "propertyNames": {"enum": HOOK_EVENTS},
            "additionalProperties": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["hooks"],
                    "properties": {
                        "matcher": {"type": "string"},
                        "hooks": {
                            "type": "array",
                            "minItems": 1,
                            "items": {
                                "type": "object",
                                "required": ["type", "command"],
                                "properties": {
                                    "type": {"const": "command"},
                                    "command": {"type": "string", "minLength": 1},
                                    "timeout": {"type": "number", "exclusiveMinimum": 0},
                                },
                                "additionalProperties": False,
                            },
                        },
                    },
                    "additionalProperties": False,
                },
            },
        },
    },
    "additionalProperties": False,
}
SKILL_SCHEMA = {
    "type": "object",
    "required": ["name", "description"],
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-z0-9-]{1,64}$"},
        "description": {"type": "string", "minLength": 1, "maxLength": 1024},
    },
    "additionalProperties": False,
}


def _json(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _errors(schema: dict[str, Any], document: Any) -> list[str]:
    Draft202012Validator.check_schema(schema)
    found = Draft202012Validator(schema).iter_errors(document)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


def _frontmatter(path: Path) -> dict[str, str]:
    """SKILL.md's YAML frontmatter, held to plain ``key: value`` lines (all it needs)."""
    text = path.read_text(encoding="utf-8")
    found = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    assert found, f"{path} opens with no frontmatter"
    fields = {}
    for line in found.group(1).splitlines():
        key, colon, value = line.partition(": ")
        assert colon, f"not a plain key: value line: {line!r}"
        fields[key] = value
    return fields


def _project_version() -> str:
    found = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M)
    assert found
    return found.group(1)


# --------------------------------------------------------------------------- the files


def test_the_manifest_marketplace_hooks_and_skill_follow_the_documented_schemas() -> None:
    manifest = _json(PLUGIN / ".claude-plugin" / "plugin.json")
    marketplace = _json(MARKETPLACE)
    assert _errors(PLUGIN_SCHEMA, manifest) == []
    assert _errors(MARKETPLACE_SCHEMA, marketplace) == []
    assert _errors(HOOKS_SCHEMA, _json(PLUGIN / "hooks" / "hooks.json")) == []
    skills = sorted((PLUGIN / "skills").glob("*/SKILL.md"))
    assert [s.parent.name for s in skills] == ["memory"]
    for skill in skills:
        fields = _frontmatter(skill)
        assert _errors(SKILL_SCHEMA, fields) == []
        assert fields["name"] == skill.parent.name

    [entry] = marketplace["plugins"]
    assert entry["name"] == manifest["name"] == "chronomem"
    assert (MARKETPLACE.parents[1] / entry["source"] / ".claude-plugin" / "plugin.json").is_file()
    assert entry["version"] == manifest["version"] == _project_version()


@pytest.mark.parametrize(
    ("schema", "path", "change"),
    [
        (PLUGIN_SCHEMA, "plugin", {"name": "Chrono Mem"}),
        (PLUGIN_SCHEMA, "plugin", {"hooks": "./hooks/hooks.json"}),
        (PLUGIN_SCHEMA, "plugin", {"mcpServers": {"chronomem": {"args": ["serve"]}}}),
        (PLUGIN_SCHEMA, "plugin", {"hook": {}}),
        (MARKETPLACE_SCHEMA, "marketplace", {"owner": None}),
        (MARKETPLACE_SCHEMA, "marketplace", {"plugins": [{"name": "x", "source": "../x"}]}),
        (HOOKS_SCHEMA, "hooks", {"hooks": {"OnPrompt": []}}),
        (HOOKS_SCHEMA, "hooks", {"hooks": {"Stop": [{"type": "command", "command": "x"}]}}),
    ],
    ids=[
        "name-not-kebab-case",
        "manifest-names-the-standard-hooks-file",
        "server-without-command",
        "unknown-field",
        "marketplace-without-owner",
        "source-outside-the-marketplace",
        "unknown-event",
        "handler-outside-a-matcher-group",
    ],
)
def test_the_schemas_refuse_what_claude_code_refuses(
    schema: dict[str, Any], path: str, change: dict[str, Any]
) -> None:
    files = {
        "plugin": PLUGIN / ".claude-plugin" / "plugin.json",
        "marketplace": MARKETPLACE,
        "hooks": PLUGIN / "hooks" / "hooks.json",
    }
    document = {k: v for k, v in {**_json(files[path]), **change}.items() if v is not None}
    assert _errors(schema, document) != []


def test_the_plugin_hooks_are_the_ones_hook_install_writes() -> None:
    declared = _json(PLUGIN / "hooks" / "hooks.json")["hooks"]
    assert list(declared) == list(EVENTS)
    assert declared == hook_entries("chronomem hook")


def test_the_skill_names_only_tools_the_server_has() -> None:
    from chronomem.server._tools import TOOLS

    named = set(
        re.findall(r"`(chron\w+)`", (PLUGIN / "skills" / "memory" / "SKILL.md").read_text())
    )
    assert {"chronomem_recall", "chronomem_remember", "chronomem_supersede"} <= named
    assert named <= {fn.__name__ for fn in TOOLS}


# --------------------------------------------------------------------------- the hooks, run


class ClaudeCode:
    """Runs the plugin's hooks and server as Claude Code does, for one user (``home``)."""

    def __init__(self, home: Path) -> None:
        self.home = home
        bin_dir = Path(sys.executable).parent  # where this environment's `chronomem` is
        assert (bin_dir / "chronomem").exists()
        self.env = {
            "HOME": str(home),
            "PATH": f"{bin_dir}:/usr/bin:/bin",
            "CLAUDE_PLUGIN_ROOT": str(PLUGIN),
        }
        self.hooks = _json(PLUGIN / "hooks" / "hooks.json")["hooks"]

    def fire(self, event: str, payload: dict[str, Any]) -> list[dict[str, Any] | None]:
        """Every handler of ``event``: its command in a shell, the event on stdin."""
        replies = []
        for group in self.hooks[event]:
            for handler in group["hooks"]:
                done = subprocess.run(
                    ["/bin/sh", "-c", handler["command"]],
                    input=json.dumps({**payload, "hook_event_name": event}),
                    env={**self.env, "CLAUDE_PROJECT_DIR": payload["cwd"]},
                    cwd=payload["cwd"],
                    capture_output=True,
                    text=True,
                    timeout=handler["timeout"],
                    check=True,
                )
                assert done.stderr == ""
                replies.append(json.loads(done.stdout) if done.stdout else None)
        return replies

    def server(self) -> StdioServerParameters:
        """The MCP server as the manifest declares it, in the same environment."""
        [(name, declared)] = _json(PLUGIN / ".claude-plugin" / "plugin.json")["mcpServers"].items()
        assert name == "chronomem"

        def expand(word: str) -> str:
            return word.replace("${CLAUDE_PLUGIN_ROOT}", str(PLUGIN))

        return StdioServerParameters(
            command=expand(declared["command"]),
            args=[expand(a) for a in declared.get("args", [])],
            env={**self.env, **declared.get("env", {})},
        )


def _project(root: Path, name: str) -> Path:
    (root / name / ".git").mkdir(parents=True)
    return root / name


def test_every_declared_hook_runs_on_recorded_events_and_the_server_recalls_it(
    tmp_path: Path,
) -> None:
    claude = ClaudeCode(tmp_path / "home")
    # SessionStart recalls the project's name: the turns below are about tidepool.
    alpha, beta = _project(tmp_path, "tidepool"), _project(tmp_path, "beta")
    transcript = tmp_path / f"{SESSION}.jsonl"
    write(transcript, FIRST)
    ended = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(alpha),
             "permission_mode": "default"}  # fmt: skip

    assert claude.fire("Stop", {**ended, "stop_hook_active": False}) == [None]
    db = claude.home / ".chronomem" / "memory.db"  # the default both the hook and serve use
    with ChronoMem(db) as mem:
        episodes = [r for r in mem.export_facts() if r["kind"] == "episode"]
    assert [e["content"] for e in episodes] == SAID_FIRST
    assert {e["metadata"]["claude_code"]["project"] for e in episodes} == {str(alpha)}

    write(transcript, [user("u5", "Release notes for tidepool go in CHANGES.md."),
                       assistant("a5", [{"type": "text", "text": "CHANGES.md it is."}])],
          mode="a")  # fmt: skip
    assert claude.fire("PreCompact", {**ended, "trigger": "auto", "custom_instructions": ""}) == [
        None
    ]
    assert claude.fire("SessionEnd", {**ended, "reason": "exit"}) == [None]  # nothing twice
    with ChronoMem(db) as mem:
        said = [r["content"] for r in mem.export_facts() if r["kind"] == "episode"]
    assert said == [
        *SAID_FIRST,
        "Release notes for tidepool go in CHANGES.md.",
        "CHANGES.md it is.",
    ]

    question = "Which cluster does tidepool deploy to?"
    asked = {"session_id": "next", "transcript_path": str(tmp_path / "next.jsonl"),
             "permission_mode": "default", "prompt": question}  # fmt: skip
    [reply] = claude.fire("UserPromptSubmit", {**asked, "cwd": str(alpha)})
    assert reply is not None
    assert reply["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "blue cluster" in reply["hookSpecificOutput"]["additionalContext"]
    # Another project of the same user is not told what was said in this one.
    assert claude.fire("UserPromptSubmit", {**asked, "cwd": str(beta)}) == [None]

    started = {"session_id": "next", "transcript_path": str(tmp_path / "next.jsonl"),
               "cwd": str(alpha), "source": "startup"}  # fmt: skip
    [start] = claude.fire("SessionStart", started)
    assert start is not None
    assert start["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "CHANGES.md" in start["hookSpecificOutput"]["additionalContext"]

    async def the_server_sees_the_same_memory() -> None:
        with (tmp_path / "server.log").open("w") as log:
            async with (
                stdio_client(claude.server(), errlog=log) as (read, write_),
                ClientSession(read, write_) as session,
            ):
                await session.initialize()
                found = await session.call_tool(
                    "chronomem_recall", {"query": "where do tidepool release notes go?"}
                )
                assert found.structured_content is not None
                contents = [e["content"] for e in found.structured_content["episodes"]]
                assert "Release notes for tidepool go in CHANGES.md." in contents

    run(the_server_sees_the_same_memory)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["home", "tidepool", "beta", transcript.name, "server.log"]
    )  # the hooks wrote nowhere but the user's memory


def test_the_hooks_say_nothing_and_fail_nothing_on_a_broken_event(tmp_path: Path) -> None:
    claude = ClaudeCode(tmp_path / "home")
    alpha = _project(tmp_path, "alpha")
    for event in EVENTS:
        done = subprocess.run(
            ["/bin/sh", "-c", claude.hooks[event][0]["hooks"][0]["command"]],
            input="{not json",
            env={**claude.env, "CLAUDE_PROJECT_DIR": str(alpha)},
            cwd=alpha,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert (done.returncode, done.stdout) == (0, ""), event
    assert "hook" in (claude.home / ".chronomem" / "hook.log").read_text()
    assert os.stat(claude.home / ".chronomem" / "hook.log").st_mode & 0o077 == 0


def _claude_code() -> str:
    """Claude Code's own command (npm's ``@anthropic-ai/claude-code``): ``CHRONOMEM_CLAUDE_CODE``
    or ``claude`` on PATH. Skips without it, and fails in CI, whose ``.ci/run`` installs it."""
    found = os.environ.get("CHRONOMEM_CLAUDE_CODE") or shutil.which("claude")
    if not found:
        if os.environ.get("CI"):
            pytest.fail("Claude Code is missing: .ci/run installs it from npm")
        pytest.skip("Claude Code is not installed (npm install @anthropic-ai/claude-code)")
    return found


def test_claude_code_validates_installs_and_connects_the_plugin(tmp_path: Path) -> None:
    claude = _claude_code()
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = str(Path(sys.executable).parent)  # where `chronomem` is installed
    env = {**os.environ, "HOME": str(home), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}

    def run_claude(*args: str) -> str:
        done = subprocess.run(
            [claude, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    assert "Validation passed" in run_claude("plugin", "validate", str(PLUGIN))
    assert "Validation passed" in run_claude("plugin", "validate", str(REPO))
    run_claude("plugin", "marketplace", "add", str(REPO))
    run_claude("plugin", "install", "chronomem@chronomem")
    details = run_claude("plugin", "details", "chronomem@chronomem")
    for event in ("SessionStart", "UserPromptSubmit", "Stop"):
        assert event in details, details
    assert re.search(r"plugin:chronomem:chronomem: .*Connected", run_claude("mcp", "list"))
