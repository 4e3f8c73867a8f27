"""bench/results.md from the measured results: every table, and the honest reading of them."""

from __future__ import annotations

from typing import Any

from . import quiet
from .cost_tables import cost_tables, cost_verdicts, verdict_lines
from .data import TIERS
from .session_tables import session_losses, session_table
from .tables import (
    comparison_tables,
    environment_table,
    graded_table,
    hardware_table,
    key_table,
    losses,
    peer_losses,
    peer_tables,
)

__all__ = ["render"]

_MACHINE_ORDER = ("CPU", "cores", "RAM", "OS", "Python", "SQLite", "Node.js", "chronomem")
_MATRICES = (
    "hardware",
    "environment",
    "graded",
    "peers",
    "sessions",
    "cost",
    "adapters_openai",
    "adapters_adk",
    "engines",
    "langgraph",
)
_INTRO = """\
# chronomem benchmark matrix

Every number on this page comes from one command, `python scripts/benchmark_matrix.py`
(`make bench`), run on the machine described below. Data are generated from a fixed seed
(`--seed {seed}`), nothing touches the network while measuring, and no LLM is involved.
Absolute times belong to this machine only; the ratios against peers were measured in the
same run, on the same machine, one after another (never concurrently).
"""


def _machine(results: dict[str, Any]) -> list[str]:
    meta = results["meta"]
    lines = ["## Machine and versions", "", "| | |", "|---|---|"]
    machine = meta["machine"]
    order = [k for k in _MACHINE_ORDER if k in machine] + sorted(set(machine) - set(_MACHINE_ORDER))
    lines += [f"| {k} | {machine[k]} |" for k in order]
    lines += [
        "",
        f"Run: {meta['mode']} mode, started {meta['started']}, "
        f"took {meta['seconds']:.0f} s in total.",
        "",
    ]
    loads = [
        f"{m} {results[m]['load_before']:.1f}"
        for m in _MATRICES
        if m in results and "load_before" in results[m]
    ]
    codes = sorted({results[m]["code"] for m in _MATRICES if m in results and "code" in results[m]})
    if meta.get("commit"):
        lines += [f"Commit measured: {meta['commit']}" + _dirty(meta) + ".", ""]
    if codes:
        lines += [f"Code measured: commit {' / '.join(codes)}.", ""]
    lines += _under_load(results)
    if loads:
        lines += [
            "1-minute load average when each matrix started (anything well above 0 means "
            f"other work shared the CPUs): {', '.join(loads)}.",
            "",
        ]
    return lines


def _dirty(meta: dict[str, Any]) -> str:
    if not meta.get("dirty"):
        return ""
    return f" with {len(meta['dirty'])} uncommitted changes under src/ or scripts/ (--allow-dirty)"


def _rows_of(section: Any) -> list[dict[str, Any]]:
    """A matrix's rows (the graded matrix's are its systems)."""
    if not isinstance(section, dict):
        return []
    rows = section.get("rows") or list(section.get("systems", {}).values())
    return [r for r in rows if isinstance(r, dict)]


def _under_load(results: dict[str, Any]) -> list[str]:
    """Each matrix with rows measured while the machine was busy, after waiting and measuring
    again: how many rows, and the load around them."""
    marked = []
    for m in _MATRICES:
        rows = _rows_of(results.get(m))
        loads = [load for r in rows for load in _loads(r) if load.get("under_load")]
        if loads:
            count = sum(1 for r in rows if any(x.get("under_load") for x in _loads(r)))
            seen = [x for load in loads for x in (load["before"], load["after"])]
            marked.append(
                f"{m}, {count} of {len(rows)} rows (load {min(seen):.1f} to {max(seen):.1f})"
            )
    if not marked:
        return []
    return [
        f"Measured under load (1-minute load above {quiet.LOAD_LIMIT:g} after waiting up to "
        f"{quiet.WAIT_S:.0f} s and measuring again; treat these rows as pessimistic): "
        f"{'; '.join(marked)}.",
        "",
    ]


def _loads(row: dict[str, Any]) -> list[dict[str, Any]]:
    """A row's load records: one per run (matrix 6 runs each size several times) or one."""
    loads = row.get("load", {})
    return loads if isinstance(loads, list) else [loads]


def _section(title: str, body: list[str], note: str = "") -> list[str]:
    out = [f"## {title}", ""]
    if note:
        out += [note, ""]
    return out + body + [""]


def _hardware(results: dict[str, Any]) -> list[str]:
    section = results.get("hardware")
    if not section:
        return []
    note = (
        f"The seed's protocol: {section['rows'][0]['serial']} serial `remember` calls (each its "
        "own transaction, timed one by one), then "
        f"{section['rows'][0]['queries']} `recall` calls with full text matching, entity "
        "channels and rank fusion under a 200-token budget. The first row starts from an "
        "empty file; the others "
        "are first filled with `import_facts` (the *bulk fill* column, not counted as "
        "ingestion; a filled file is cached by a hash of chronomem's write path, so the "
        "column shows the fill time of the run that built it). Peak RSS is the measuring "
        "process's `VmHWM` (a fresh process per row; "
        "the fill runs in another one), with its RSS before opening the database in brackets; "
        "size on disk counts the database and its WAL. Machine: "
        f"{results['meta']['machine']['CPU']}, {results['meta']['machine']['cores']} cores."
    )
    body = [*hardware_table(section["rows"]), "", "![recall latency vs facts](recall_latency.png)"]
    return _section("1. Hardware performance", body, note)


def _environment(results: dict[str, Any]) -> list[str]:
    section = results.get("environment")
    if not section:
        return []
    note = (
        f"The same protocol on a database pre-filled with {section['size']:,} facts, one "
        "setting changed per row. `synchronous` is a ChronoMem option; the journal mode and "
        "mmap have none, so those rows set the pragma on ChronoMem's own connection. The "
        f"two-process row splits the {section['rows'][0]['serial']} remembers and "
        f"{section['rows'][0]['queries']} recalls between two processes that "
        "start at the same instant on one file; its throughput is calls per wall-clock second."
    )
    return _section("2. Environment", environment_table(section["rows"]), note)


def _graded(results: dict[str, Any]) -> list[str]:
    section = results.get("graded")
    if not section:
        return []
    cm = section["systems"].get("chronomem")
    if cm is None:
        return []
    note = (
        f"{section['questions']} questions ({section['questions'] // len(TIERS)} per tier) over "
        f"one corpus of {section['facts']:,} facts (cases plus background people and projects). "
        "k = 5 for every tier, token budget 120 (24 for *distractors*, about one fact). "
        "precision@k = answering sentences / returned sentences; recall@k = answer key "
        "returned; hit@1 = the first sentence answers; ghost = a superseded (or, for as-of, a "
        "not-yet-valid) sentence was returned; tokens = `estimate_tokens` of the answer."
    )
    body = graded_table(cm)
    flagged = cm.get("contradictions_flagged")
    if flagged is not None:
        body += [
            "",
            f"`contradictions()` reported {100 * flagged:.0f}% of the contradiction "
            "tier's conflicting pairs.",
        ]
    return _section("3. Graded evaluation (chronomem)", body, note)


def _comparative(results: dict[str, Any]) -> list[str]:
    section = results.get("graded")
    if not section:
        return []
    note = (
        "The same corpus and questions. Flat memory appends every fact and answers with the "
        "most recent ones that fit the budget. The vector store ranks by cosine similarity of "
        "all-MiniLM-L6-v2 embeddings (exact search; query embedding included in its latency). "
        "Neither baseline can supersede or answer *as of*: an update is one more sentence. "
        "The inputs differ: *chronomem* is called as an agent would call it (each fact with "
        "its category and entity names, each update as `supersede`, each as-of question with "
        "`as_of`), so the baselines' ghost beliefs are partly structural; *chronomem, "
        "sentences only* gets exactly what the baselines get (each sentence alone, an update "
        "as one more `remember`, no `as_of`), which separates what that structure buys from "
        "retrieval on equal input. Every system counts tokens with chronomem's "
        "`estimate_tokens`."
    )
    body = comparison_tables(section["systems"])
    body += ["", "![quality per tier](quality_per_tier.png)", ""]
    lost = losses(section["systems"])
    body += ["**Where chronomem loses.**", ""] + (lost or ["- Nowhere in this run."])
    return _section("4. Comparative: vector store vs flat memory vs chronomem", body, note)


def _peers(results: dict[str, Any]) -> list[str]:
    out: list[str] = []
    section = results.get("peers")
    if section:
        note = (
            f"Both servers driven by the MCP Python SDK's stdio client, one tool call at a time. "
            f"Reference server: `@modelcontextprotocol/server-memory` "
            f"{section['memory_server_version']} on Node.js (a JSONL file rewritten on every "
            "write). Ingest = `create_entities`/`add_observations` vs `chronomem_remember`; "
            "search by name = the entity's name as the query (what the reference server's "
            "substring search supports); search by question = a natural-language question; "
            "update = a new fact replacing one, as each server's user would do it: "
            "`chronomem_supersede` (one call), or the reference server's `delete_observations` "
            "of the old text then `add_observations` of the new (two calls, timed together). "
            "*Stale* = the replaced sentence is still in the answer to a search for that "
            "entity. Tokens = `estimate_tokens` of the text the tool returns. The two servers "
            "run side by side, both warmed up with 20 untimed writes and searches, and every "
            "call goes to each in turn. What remains different: the reference server's update "
            "is two calls, not atomic, and needs the old observation's exact text; after it "
            "the old observation is gone, where chronomem keeps it as history (`as_of` still "
            "answers from it)."
        )
        lost = peer_losses(section["rows"]) or ["- Nowhere in this run."]
        body = [*peer_tables(section["rows"]), "", "![peer latency](peer_latency.png)", ""]
        body += ["**Where chronomem serve loses.**", "", *lost]
        out += _section(
            "5a. Peers over MCP: reference memory server vs chronomem serve", body, note
        )
    sessions = results.get("sessions")
    if sessions:
        note = (
            "Append one item per call, then read the last-20 window (50 reads) at each "
            "session size. Append times are the last 200 appends before the checkpoint. Every "
            "store runs in WAL mode at both durability settings: `synchronous=FULL` (an fsync "
            "per commit, survives power loss; `SQLiteSession`'s default) and `NORMAL` "
            "(survives a killed process; chronica's default; `SQLiteSession` set to it through "
            "its own connection hook). Every store's setting is read back from its own "
            "connection (`PRAGMA synchronous`), and all six grow in lockstep, one append each "
            "in turn. Each row is compared with `SQLiteSession` at the same setting."
        )
        summary, *lost = session_losses(sessions["rows"])
        body = [*session_table(sessions["rows"]), "", "**Where chronica loses.**", "", summary]
        body += ["", *lost] if lost else []
        out += _section("5b. Sessions: chronica vs OpenAI Agents SDK SQLiteSession", body, note)
    return out


def _cost(results: dict[str, Any]) -> list[str]:
    section = results.get("cost")
    if not section:
        return []
    first = section["rows"][0]
    note = (
        "Each size is one fresh process holding two files side by side: one of facts (the "
        "scaling facts of matrix 1) and one of episodes (generated conversations between pairs "
        "of friends, 24 turns a session). `recall(query, limit=10)` on the facts file and "
        '`recall(query, limit=10, kinds=("episode",))` on the episodes file alternate, '
        f"{first['queries']} questions each after five untimed rounds. Then, after ten untimed "
        f"writes, {first['serial']} "
        "serial `remember_episode` calls, then as many `remember` calls in a pass of their "
        "own, each its own transaction in WAL mode, at `synchronous=NORMAL` (an acknowledged "
        "write survives the process being killed, not a power loss) and at `FULL` (it "
        "survives power loss): each setting writes the same items to its own copy of the "
        "filled file, a new file flushed to disk before anything is timed, call by call in "
        "turn (so the index's periodic merges fall on both alike), each setting read back "
        "from its connection. After them, the floor under a `remember_episode`: a few hundred "
        "more calls' statements recorded and replayed raw, part by part. "
        "Each size runs several "
        "times in fresh processes: a cell is the median with the lowest and highest run, and "
        "a goal counts as met only when every run meets it (*within noise* when they "
        "disagree). "
        "The files are filled through chronomem's own insert code in transactions of 20,000 "
        "(the fill column; cached by a hash of the write path). Over MCP, one client drives "
        "`chronomem serve` on each file and a one-tool server on the same SDK "
        "(`scripts/matrix/trivial_server.py`), one call to each in turn."
    )
    body = [*cost_tables(section), "", *verdict_lines(cost_verdicts(section))]
    return _section("6. Cost: recall and writes at scale, facts and episodes", body, note)


def _adapters(results: dict[str, Any]) -> list[str]:
    # Imported only when measured: each module imports its framework (agents, google.adk).
    out: list[str] = []
    if results.get("adapters_openai"):
        from . import adapters_openai

        note = (
            "`ChronicaSession` (chronica.integrations.openai_agents) and the SDK's own "
            "`SQLiteSession`, both driven through the SDK's async `Session` API as `Runner.run` "
            "drives them, one session each grown in lockstep through the sizes, at "
            "`synchronous=FULL` and `NORMAL`. Append times are the last appends before each "
            "checkpoint; `python -m scripts.matrix.adapters_openai` runs it alone."
        )
        body = adapters_openai.render(results["adapters_openai"]).splitlines()
        out += _section("7a. Adapters: OpenAI Agents SDK", body, note)
    if results.get("adapters_adk"):
        from . import adapters_adk

        note = (
            "`ChronicaSessionService` (chronica.integrations.adk) beside ADK's own persistent "
            "`DatabaseSessionService` and `SqliteSessionService`, all driven through ADK's async "
            "`BaseSessionService` API as ADK's `Runner` drives them, one session each grown in "
            "lockstep; `python -m scripts.matrix.adapters_adk` runs it alone."
        )
        body = adapters_adk.render(results["adapters_adk"]).splitlines()
        out += _section("7b. Adapters: Google ADK", body, note)
    return out


def _engines(results: dict[str, Any]) -> list[str]:
    if not results.get("engines"):
        return []
    from . import engines  # imports psycopg (the postgres extra)

    # "seconds" is every section's own duration (benchmark_matrix sets it), so a run from
    # before "writer_seconds" existed cannot say how long each writer count ran.
    each = results["engines"].get("writer_seconds")
    span = f"for {each:.0f} s each" if each else "for a fixed time each"
    note = (
        "The same facts in a SQLite file and in a PostgreSQL schema on a throwaway local server "
        "with its default durability (`fsync`, `synchronous_commit` on: like SQLite at FULL); "
        "PostgreSQL's copy loaded with COPY from the filled file. Recall in alternation; "
        "writes serial (alternating), then "
        f"{', '.join(map(str, results['engines']['writers']))} processes {span} on one "
        "database. "
        "`python -m scripts.matrix.engines` runs it alone."
    )
    body = engines.render(results["engines"]).splitlines()
    return _section("8. Engines: SQLite and PostgreSQL", body, note)


def _langgraph(results: dict[str, Any]) -> list[str]:
    if not results.get("langgraph"):
        return []
    from .langgraph_tables import render as langgraph_render  # formatting only, no LangGraph

    note = (
        "`ChronoMemStore` (chronomem.integrations.langgraph) beside LangGraph's `InMemoryStore`, "
        "`SqliteStore` and `PostgresStore`, all driven through `BaseStore`, filled untimed "
        "through `batch`, every call on every store in turn; "
        "`python -m scripts.matrix.langgraph_store` runs it alone."
    )
    body = langgraph_render(results["langgraph"]).splitlines()
    return _section("9. LangGraph stores", body, note)


def render(results: dict[str, Any]) -> str:
    """The whole report as Markdown."""
    lines = [_INTRO.format(seed=results["meta"]["seed"])]
    lines += _machine(results)
    key = key_table(results)
    if key:
        lines += _section(
            "Key results",
            key,
            f"Machine: {results['meta']['machine']['CPU']}, "
            f"{results['meta']['machine']['cores']} cores; details below.",
        )
    parts = (
        _hardware, _environment, _graded, _comparative, _peers, _cost, _adapters, _engines,
        _langgraph,
    )  # fmt: skip
    for part in parts:
        lines += part(results)
    return "\n".join(lines).rstrip() + "\n"
