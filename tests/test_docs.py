"""Every code block of README.md and of the manual in docs/ runs, so the docs cannot drift.

A block's language says how it runs:

- ``python`` is executed in a fresh folder (the files it creates land there). A block that
  opens a ``postgresql://`` DSN gets a database of its own in ``CHRONOMEM_DB``, as the page
  tells users to give it; the "write your own store" block's hypothetical ``MyStore`` is an
  in-memory store.
- ``console`` is a session at the prompt: each ``$ `` line runs in bash, and the lines after it
  are what it prints (stdout and stderr), matched exactly except that ``...`` stands for any
  text, and fact IDs and times may differ from the run's. An ID the page shows stands for the
  one the run printed in its place, in the commands after it too.
- ``sh`` lines must succeed. ``make TARGET`` is checked against the Makefile instead (running
  ``make test`` inside the tests would recurse); a server (``chronomem serve --http``,
  ``chronomem ui``) must come up and answer on its port, on a free port, and is then stopped.
- ``json`` is parsed; an MCP client's configuration (``mcpServers``, or VS Code's ``servers``)
  is started as the client starts it, with ``/path/to/chronomem`` standing for this checkout,
  and must serve and store. ``toml`` (Codex's ``mcp_servers``) is parsed and started the same
  way, and so is the command a ``claude mcp add ... -- COMMAND`` line of an ``sh`` block adds.
  ``uvx --from /path/to/chronomem chronomem`` runs this environment's ``chronomem`` (uvx itself
  is tested in ``tests/chronomem/server/test_mcp_install.py``). A configuration of a server
  over HTTP (a ``url`` with its ``headers``, Codex's ``bearer_token_env_var``, or ``claude mcp add
  --transport http NAME URL --header ...``) is tried against a server started with a token:
  the header, with the token where it names one, must let it serve and store, and the same
  URL without it must be refused.
- ``text`` draws a layout: every repository path in it must exist.

Console and shell blocks run with chronomem's command on the PATH, in an empty home (``~``
lands in the test's folder) and without the ``CHRONOMEM_*`` settings of the caller.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from chronica.stores.inmemory import InMemoryStore

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
PAGES = (README, *sorted((REPO / "docs").rglob("*.md")))
FENCE = re.compile(r"^```(\S*)\n(.*?)^```", re.M | re.S)
CHECKOUT = "/path/to/chronomem"
"""Where the pages' MCP configurations say the clone is."""
BIN = Path(sys.executable).parent
"""The environment's scripts (chronomem's console script among them)."""


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    page: Path
    line: int
    language: str
    body: str

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO).as_posix()}:{self.line}-{self.language or 'plain'}"


def _blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(Block(page, line, m.group(1), m.group(2)))
    return found


BLOCKS = _blocks()


def test_every_page_has_runnable_blocks() -> None:
    pages = {b.page for b in BLOCKS}
    assert README in pages
    assert len(BLOCKS) >= 20


def test_the_readme_opens_with_the_two_commands() -> None:
    first = next(b for b in BLOCKS if b.page == README)
    commands = [shlex.split(line, comments=True) for line in first.body.splitlines()]
    assert first.language == "sh"
    assert commands == [["make", "demo"], ["make", "test"]]
    assert sum(1 for b in BLOCKS if b.page == README and b.language == "python") >= 2


def test_the_readme_links_every_page_of_the_manual() -> None:
    readme = README.read_text(encoding="utf-8")
    for page in sorted((REPO / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in readme, f"README.md does not link docs/{page.name}"


def test_every_client_the_mcp_page_lists_has_an_http_configuration() -> None:
    page = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    stdio = page[page.index("## Configure a client") : page.index("## From Python")]
    http = page[page.index("### Clients over HTTP") :]
    named = re.compile(r"^\*\*([^*]+)\*\*", re.M)
    clients = set(named.findall(stdio))
    assert {"Claude Code", "Cursor", "VS Code", "Codex", "Claude Desktop"} <= clients
    assert set(named.findall(http)) == clients
    # Each but Claude Desktop's (stdio only) gives a URL and its token, run by test_block_runs.
    blocks = [b for b in BLOCKS if b.page.name == "mcp.md" and "8765/mcp" in b.body]
    tokened = [b for b in blocks if "Authorization" in b.body or "bearer_token_env_var" in b.body]
    assert len(tokened) == len(clients) - 1


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.chdir(tmp_path)  # blocks may create database files in the working directory
    if block.language == "python":
        _run_python(block, monkeypatch, request)
    elif block.language == "console":
        _run_console(block.body, tmp_path)
    elif block.language == "sh":
        _run_shell(block.body, tmp_path)
    elif block.language == "json":
        _run_json(block.body, tmp_path)
    elif block.language == "toml":
        _run_toml(block.body, tmp_path)
    elif block.language == "text":
        _check_layout(block.body)
    else:
        pytest.fail(f"{block.name}: no rule runs a {block.language or 'plain'!r} block")


def _run_python(
    block: Block, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if "postgresql://" in block.body:
        monkeypatch.setenv("CHRONOMEM_DB", request.getfixturevalue("pg_database")())
    namespace: dict[str, object] = {"__name__": "docs", "MyStore": InMemoryStore}
    exec(compile(block.body, f"{block.page}:{block.line}", "exec"), namespace)


def _env(tmp_path: Path) -> dict[str, str]:
    """The user's shell: chronomem on the PATH, a home of its own, no CHRONOMEM_* settings."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRONOMEM_")}
    env.update(HOME=str(home), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")
    return env


# What may differ between the page and a run: fact IDs (shown whole or as their last eight
# digits) and times. `...` stands for any text.
_VARIES = re.compile(
    r"(?P<id>\b[0-9a-f]{32}\b)|(?P<short>…[0-9a-f]{8}\b)"
    r"|(?P<time>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?)|(?P<any>\.\.\.)"
)


def _expected(shown: str) -> tuple[re.Pattern[str], list[str]]:
    """A pattern for a command's output as the page shows it, and the IDs it shows, in order
    of their groups."""
    parts: list[str] = []
    ids: list[str] = []
    at = 0
    for m in _VARIES.finditer(shown):
        parts.append(re.escape(shown[at : m.start()]))
        at = m.end()
        if m.group("id"):
            if m.group("id") in ids:
                parts.append(f"(?P=i{ids.index(m.group('id'))})")
            else:
                parts.append(f"(?P<i{len(ids)}>[0-9a-f]{{32}})")
                ids.append(m.group("id"))
        elif m.group("short"):
            parts.append("…[0-9a-f]{8}")
        elif m.group("time"):
            parts.append(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
        else:
            parts.append(".*?")
    parts.append(re.escape(shown[at:]))
    return re.compile("".join(parts), re.S), ids


def _tidy(output: str) -> str:
    return "\n".join(line.rstrip() for line in output.strip("\n").splitlines())


def _run_console(body: str, tmp_path: Path) -> None:
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"output before the first prompt: {line!r}"
            steps[-1][1].append(line)
    env, actual_ids = _env(tmp_path), dict[str, str]()
    for command, shown_lines in steps:
        for shown_id, run_id in actual_ids.items():
            command = command.replace(shown_id, run_id)
        code, printed = _in_session(command, env, timeout=120)
        output = _tidy(printed)
        # 1 is "not found or nothing to show": fine when the page shows what is printed.
        allowed = (0, 1) if shown_lines else (0,)
        assert code in allowed, f"$ {command}\n{output}"
        if not shown_lines:
            continue
        pattern, ids = _expected(_tidy("\n".join(shown_lines)))
        m = pattern.fullmatch(output)
        assert m, f"$ {command}\nprinted:\n{output}\nthe page shows:\n" + "\n".join(shown_lines)
        actual_ids.update((shown, m.group(f"i{i}")) for i, shown in enumerate(ids))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_shell(body: str, tmp_path: Path) -> None:
    env = _env(tmp_path)
    for line in body.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if words[0] == "make":
            _check_make_targets(words[1:])
        elif words[:3] == ["claude", "mcp", "add"] and _transport(words) == "http":
            _serve_over_http(*_claude_mcp_add_http(words[3:]), tmp_path)
        elif words[:3] == ["claude", "mcp", "add"]:
            _serve_configured(_claude_mcp_add(words[3:]), tmp_path)
        elif words[:2] == ["pip", "install"]:
            _check_pip_install(words[2:], env)
        elif words[0] == "uvx":  # as a client's configuration runs it: this checkout's command
            executable, arguments = _local("uvx", words[1:])
            code, output = _in_session(shlex.join([executable, *arguments]), env, timeout=120)
            assert code == 0, f"$ {line}\n{output}"
        elif _is_server(words):
            _run_server(line, env)
        else:
            # `chronomem serve` over stdio ends with its input, here an empty one.
            code, output = _in_session(line, env, timeout=300)
            assert code == 0, f"$ {line}\n{output}"


def _check_pip_install(args: list[str], env: dict[str, str]) -> None:
    """A ``pip install`` of this clone (``/path/to/chronomem``, extras and ``-e`` as given):
    pip resolves it for real (builds its metadata, checks the extras exist) without
    installing, so the line works as written. The published name alone is not on PyPI yet."""
    targets = [a for a in args if not a.startswith("-")]
    assert targets, f"pip install {shlex.join(args)}: installs nothing"
    assert all(t.startswith(CHECKOUT) for t in targets), (
        f"pip install {shlex.join(args)}: only the clone installs before the first release"
    )
    local = [a.replace(CHECKOUT, str(REPO), 1) for a in args]
    argv = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--quiet"]
    argv += ["--ignore-installed", "--report", "-", *local]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"pip install {shlex.join(args)}\n{done.stdout}{done.stderr}"
    [item] = json.loads(done.stdout)["install"]
    assert item["metadata"]["name"] == "chronomem"
    extras = {e for t in targets for e in re.findall(r"\[(.*)\]", t) for e in e.split(",")}
    assert extras <= set(item["metadata"].get("provides_extra", [])), extras


def _is_server(words: list[str]) -> bool:
    """Whether a command line starts a server that runs until stopped."""
    if "chronomem" not in words:
        return False
    command = words[words.index("chronomem") + 1 :]
    return command[:1] == ["ui"] or (command[:1] == ["serve"] and "--http" in command)


def _in_session(line: str, env: dict[str, str], *, timeout: float) -> tuple[int, str]:
    """Run a command line in a process group of its own, all of which ends with it or at the
    timeout (a command that hangs must not leave its children running)."""
    process = subprocess.Popen(
        ["bash", "-c", line],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"$ {line}\nstill running after {timeout} s:\n{output}")
    return process.returncode, output


def _check_make_targets(targets: list[str]) -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in targets:
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), f"no make target {target}"


def _run_server(line: str, env: dict[str, str]) -> None:
    """Start a server the page shows, on a free port; it must answer there, then it stops."""
    port = _free_port()
    http = re.search(r"--http (\S+):(\d+)", line)
    if http:
        line = line.replace(http.group(0), f"--http {http.group(1)}:{port}")
    else:
        line = line.split("#")[0].rstrip() + f" --http 127.0.0.1:{port}"
    server = subprocess.Popen(
        ["bash", "-c", line],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, so bash and the server stop together
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, f"$ {line}\nexited {server.returncode}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"$ {line}\nnever answered on {port}"
                time.sleep(0.1)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
        try:
            output, _ = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # deaf to SIGTERM: stop it for good, then fail
            os.killpg(server.pid, signal.SIGKILL)
            output, _ = server.communicate()
            pytest.fail(f"$ {line}\ndid not stop on SIGTERM:\n{output}")
    assert "Traceback" not in output, output


def _run_json(body: str, tmp_path: Path) -> None:
    config = json.loads(body)
    assert isinstance(config, dict)
    for name, server in config.get("mcpServers", {}).items():
        assert name == "chronomem"
        if "url" in server:  # Cursor's remote server
            _serve_over_http(server["url"], server.get("headers", {}), tmp_path)
        else:
            _serve_configured(server, tmp_path)
    inputs = {i["id"] for i in config.get("inputs", [])}
    for name, server in config.get("servers", {}).items():  # VS Code's .vscode/mcp.json
        assert name == "chronomem"
        if server.get("type") == "http":
            for needed in re.findall(r"\$\{input:([^}]+)\}", json.dumps(server)):
                assert needed in inputs, f"${{input:{needed}}} is declared in no input"
            _serve_over_http(server["url"], server.get("headers", {}), tmp_path)
            continue
        assert server.get("type") == "stdio", server
        _serve_configured(server, tmp_path)


def _run_toml(body: str, tmp_path: Path) -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # tomllib is Python 3.11's; the same parser was tomli before
        tomllib = pytest.importorskip("tomli")
    config = tomllib.loads(body)
    servers = config.get("mcp_servers", {})  # Codex's ~/.codex/config.toml
    assert servers, "a toml block with no MCP server in it: say what it configures, or run it"
    for name, server in servers.items():
        assert name == "chronomem"
        if "url" in server:  # Codex sends the variable's value as the bearer token
            headers = dict(server.get("http_headers", {}))
            if "bearer_token_env_var" in server:
                headers["Authorization"] = f"Bearer ${{{server['bearer_token_env_var']}}}"
            _serve_over_http(server["url"], headers, tmp_path)
        else:
            _serve_configured(server, tmp_path)


def _claude_mcp_add(words: list[str]) -> dict[str, object]:
    """The server ``claude mcp add [options] NAME -- COMMAND ARGS...`` configures."""
    assert "--" in words, f"claude mcp add without '--' before the command: {words}"
    options, command = words[: words.index("--")], words[words.index("--") + 1 :]
    env: dict[str, str] = {}
    names: list[str] = []
    at = 0
    while at < len(options):
        word = options[at]
        if word in ("-e", "--env", "-s", "--scope", "-t", "--transport"):
            value = options[at + 1]
            if word in ("-e", "--env"):
                key, _, env[key] = value.partition("=")
            elif word in ("-t", "--transport"):
                assert value == "stdio", value
            at += 2
        else:
            names.append(word)
            at += 1
    assert names == ["chronomem"], names
    return {"command": command[0], "args": command[1:], "env": env}


def _transport(words: list[str]) -> str:
    for flag in ("--transport", "-t"):
        if flag in words:
            return words[words.index(flag) + 1]
    return "stdio"


def _claude_mcp_add_http(words: list[str]) -> tuple[str, dict[str, str]]:
    """The URL and headers ``claude mcp add --transport http [options] NAME URL`` configures."""
    headers: dict[str, str] = {}
    positional: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word in ("-H", "--header"):
            key, _, value = words[at + 1].partition(":")
            headers[key.strip()] = value.strip()
            at += 2
        elif word in ("-s", "--scope", "-t", "--transport"):
            at += 2
        else:
            positional.append(word)
            at += 1
    assert len(positional) == 2, positional
    name, url = positional
    assert name == "chronomem", name
    return url, headers


TOKEN = secrets.token_hex(32)
"""The token the docs' HTTP server runs with, put where a configuration names one."""
_TOKEN_REFERENCES = (
    "${env:CHRONOMEM_TOKEN}",  # Cursor's interpolation
    "${input:chronomem-token}",  # VS Code's prompted input
    "${CHRONOMEM_TOKEN}",
    "$CHRONOMEM_TOKEN",  # a shell's
)


def _with_token(value: str) -> str:
    for reference in _TOKEN_REFERENCES:
        value = value.replace(reference, TOKEN)
    return value


@contextlib.contextmanager
def _http_server(tmp_path: Path) -> Iterator[int]:
    """``chronomem serve --http`` with ``TOKEN``, as the page starts it, on a free port."""
    port = _free_port()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**_env(tmp_path), "CHRONOMEM_TOKEN": TOKEN}
    argv = [str(BIN / "chronomem"), "serve", "--http", f"127.0.0.1:{port}"]
    with (tmp_path / "http.log").open("w") as log:
        server = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stderr=log)
        try:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, (tmp_path / "http.log").read_text()
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, f"never answered on {port}"
                    time.sleep(0.1)
            yield port
        finally:
            server.terminate()
            server.wait(timeout=30)


def _serve_over_http(url: str, headers: dict[str, str], tmp_path: Path) -> None:
    """Connect as an HTTP configuration says (its URL, its headers) to a server with a token:
    it must serve and store, and the URL without the headers must be refused."""
    parts = urllib.parse.urlsplit(url)
    assert (parts.scheme, parts.hostname, parts.path) == ("http", "127.0.0.1", "/mcp"), url
    sent = {key: _with_token(value) for key, value in headers.items()}
    assert sent.get("Authorization") == f"Bearer {TOKEN}", f"no bearer token sent: {headers}"
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "docs", "version": "1"}}}  # fmt: skip

    async def go(address: str) -> set[str]:
        accept = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as raw:
            refused = await raw.post(address, json=hello, headers=accept)
            assert refused.status_code == 401, refused.text
        client = httpx2.AsyncClient(headers=sent)
        with anyio.fail_after(60):
            async with (
                client,
                streamable_http_client(address, http_client=client) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                stored = await session.call_tool("chronomem_remember", {"content": "Mina: tea"})
                assert not stored.is_error, stored
                return tools

    with _http_server(tmp_path) as port:
        address = parts._replace(netloc=f"127.0.0.1:{port}").geturl()
        tools = anyio.run(go, address)
    assert {"chronomem_remember", "chronomem_recall", "chronica_record_actum"} <= tools
    assert (tmp_path / "home" / ".chronomem" / "memory.db").is_file()


def _local(command: str, args: list[str]) -> tuple[str, list[str]]:
    """The command and arguments an MCP client's configuration names, in this checkout."""
    if command == "uvx":  # tests/chronomem/server/test_mcp_install.py runs uvx itself
        assert args[:3] == ["--from", CHECKOUT, "chronomem"], args
        return str(BIN / "chronomem"), args[3:]
    if command == "uv":  # tests/test_seed_commands.py runs this one with uv itself
        assert args[:3] == ["run", "--directory", CHECKOUT], args
        assert args[3] == "python", args
        return sys.executable, args[4:]
    assert command.startswith(f"{CHECKOUT}/.venv/bin/"), command
    return str(BIN / Path(command).name), args


def _serve_configured(server: dict[str, object], tmp_path: Path) -> None:
    command, args = server["command"], server["args"]
    assert isinstance(command, str)
    assert isinstance(args, list)
    configured = server.get("env", {})
    assert isinstance(configured, dict)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    executable, arguments = _local(command, [str(a) for a in args])
    params = StdioServerParameters(
        command=executable, args=arguments, env={**configured, "HOME": str(home)}
    )

    async def go() -> set[str]:
        with anyio.fail_after(120), (tmp_path / "server.log").open("w") as log:
            async with (
                stdio_client(params, errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                stored = await session.call_tool("chronomem_remember", {"content": "Mina: tea"})
                assert not stored.is_error, stored
                return tools

    tools = anyio.run(go)
    assert {"chronomem_remember", "chronomem_recall", "chronica_record_actum"} <= tools
    db = configured.get("CHRONOMEM_DB", "~/.chronomem/memory.db")
    assert isinstance(db, str)
    assert Path(db.replace("~", str(home), 1)).is_file()  # ~ is the server's user's home


_REPO_PATH = re.compile(
    r"(?<![\w/])(?:src|tests|scripts|bench|docs|plugins|\.claude-plugin)/[\w./-]*"
)


def _check_layout(body: str) -> None:
    paths = _REPO_PATH.findall(body)
    assert paths, "a text block with no repository path in it: say what it shows, or run it"
    missing = [p for p in paths if not (REPO / p).exists()]
    assert not missing, f"the layout names paths that do not exist: {missing}"


def test_generated_figures_match_the_committed_benchmark_files() -> None:
    # Every figure between <!-- generated: NAME --> markers comes from a file under bench/.
    from scripts.readme_tables import DOCUMENTS, RENDERERS, render

    texts = {document: document.read_text(encoding="utf-8") for document in DOCUMENTS}
    for name in RENDERERS:  # every renderer has a block somewhere in the docs
        assert any(f"<!-- generated: {name} -->" in t for t in texts.values()), name
    for document, text in texts.items():
        stale = f"{document.relative_to(REPO)} is stale: run scripts/readme_tables.py"
        assert render(text, document) == text, stale
