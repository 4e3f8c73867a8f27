"""The inspector's HTTP surface without a browser: pages match ``get_acta``, cursors walk a
session exactly once, nothing writes, and the MCP transport's rules guard the door; on a
SQLite file and on PostgreSQL alike."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from starlette.testclient import TestClient

from chronica import ActorKind, Actum, ActumKind, Chronicarius
from chronomem import ChronoMem
from chronomem.ui import Sources, UiConfig, build_app
from chronomem.ui._sessions import PREVIEW_CHARS
from chronomem.ui._views import SharedCall
from tests.chronomem.backends import Databases, rows

from .sample import OWNER, SESSION, Db, session_store

TOKEN = "Zq8-rT3vYp0LmN4xWb7Kc2Jd9Hs6Fg1Qa5Ue"


def _client(db: Db, *, token: str | None = None, host: str = "127.0.0.1") -> TestClient:
    config = UiConfig(db=db, owner=OWNER, host=host, port=8766, token=token)
    return TestClient(build_app(config), base_url="http://127.0.0.1:8766")


@pytest.fixture(scope="module")
def client(sample_db: Db) -> Iterator[TestClient]:
    with _client(sample_db) as c:
        yield c


def _get(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_sessions_newest_first_and_only_the_owners(client: TestClient) -> None:
    found = _get(client, "/api/sessions")["sessions"]
    assert [s["id"] for s in found] == [SESSION, "hostile", "trip-bali"]  # bob's is not listed
    assert found[0]["acta"] == 10


@pytest.mark.parametrize(
    ("kinds", "actor_kinds", "last_n"),
    [
        ((), (), 0),
        (("message",), (), 0),
        (("message", "thought"), ("agent",), 0),
        ((), ("human", "system"), 3),
        (("tool_request", "tool_response"), (), 1),
        (("message",), ("agent",), 50),
    ],
)
def test_a_page_is_exactly_the_window_get_acta_gives(
    client: TestClient, sample_db: Db, kinds: tuple[str, ...], actor_kinds: tuple[str, ...],
    last_n: int,
) -> None:  # fmt: skip
    page = _get(client, "/api/acta", session=SESSION, kinds=",".join(kinds),
                actor_kinds=",".join(actor_kinds), last_n=last_n)  # fmt: skip
    with session_store(sample_db) as store:
        window = Chronicarius(store).get_acta(
            OWNER, SESSION, last_n=last_n, actum_kinds=kinds, actor_kinds=actor_kinds
        )
    assert [a["id"] for a in page["acta"]] == [a.id for a in window]
    assert page["total"] == len(window)
    assert [(a["kind"], a["actor"], a["content"]) for a in page["acta"]] == [
        (a.kind.value, a.actor, a.content) for a in window
    ]


def _message(session: str, i: int) -> Actum:
    kind = ActumKind.THOUGHT if i % 3 == 0 else ActumKind.MESSAGE
    return Actum(chronicum_id=session, kind=kind, actor_kind=ActorKind.AGENT, actor=f"a{i % 4}",
                 content=f"turn {i}")  # fmt: skip


def test_cursors_walk_a_long_session_once_in_order(databases: Databases) -> None:
    db = databases.new("long")
    with session_store(db) as store:
        c = Chronicarius(store)
        c.record_acta(OWNER, [_message("long", i) for i in range(1, 1001)])
        expected = [a.id for a in c.get_acta(OWNER, "long", actum_kinds=["message"])]
    with _client(db) as client:
        page = _get(client, "/api/acta", session="long", kinds="message", limit=97)
        seen = [a["id"] for a in page["acta"]]
        while page["more_before"]:
            page = _get(client, "/api/acta", session="long", kinds="message", limit=97,
                        before=page["acta"][0]["seq"])  # fmt: skip
            seen = [a["id"] for a in page["acta"]] + seen
        assert seen == expected
        forward, cursor = [], 0
        while True:
            page = _get(client, "/api/acta", session="long", kinds="message", limit=101,
                        after=cursor)  # fmt: skip
            forward += [a["id"] for a in page["acta"]]
            if not page["more_after"]:
                break
            cursor = page["acta"][-1]["seq"]
        assert forward == expected


def test_long_content_is_previewed_and_whole_on_request(databases: Databases) -> None:
    db = databases.new("long")
    text = "x" * (PREVIEW_CHARS * 3)
    with session_store(db) as store:
        stored = Chronicarius(store).record_actum(OWNER, Actum(
            chronicum_id="s", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN, actor="me",
            content=text))  # fmt: skip
    with _client(db) as client:
        [actum] = _get(client, "/api/acta", session="s")["acta"]
        assert actum["truncated"]
        assert len(actum["content"]) == PREVIEW_CHARS
        assert _get(client, "/api/actum", session="s", id=stored.id)["content"] == text


def test_missing_and_foreign_sessions_are_not_found(client: TestClient) -> None:
    for session in ("nope", "bobs-own"):
        response = client.get("/api/acta", params={"session": session})
        assert response.status_code == 404
        assert session in response.json()["error"]


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/api/acta", {"session": SESSION, "kinds": "gossip"}),
        ("/api/acta", {"session": SESSION, "limit": "0"}),
        ("/api/acta", {"session": SESSION, "before": "x"}),
        ("/api/recall", {"q": ""}),
        ("/api/recall", {"q": "x", "as_of": "yesterday"}),
        ("/api/recall", {"q": "x", "kinds": "rumour"}),
        ("/api/timeline", {}),
    ],
)
def test_bad_parameters_are_readable_400s(
    client: TestClient, path: str, params: dict[str, str]
) -> None:
    response = client.get(path, params=params)
    assert response.status_code == 400
    assert response.json()["error"]


def test_recall_explains_ranks_tokens_and_what_the_budget_packs(client: TestClient) -> None:
    answer = _get(client, "/api/recall", q="Ardian phone", budget=12, limit=10)
    assert answer["results"], answer
    for item in answer["results"]:
        assert item["tokens"] > 0
        assert item["score"] > 0
        assert item["ranks"]
        assert set(item["ranks"]) <= {"bm25", "jaccard", "entity", "graph", "semantic"}
    # The channels the answer names are those its results were ranked by, no fixed list.
    used = {c for item in answer["results"] for c in item["ranks"]}
    assert set(answer["channels"]) == used
    assert len(answer["channels"]) == len(used)
    packed = [r for r in answer["results"] if r["packed"]]
    assert 0 < answer["packed_tokens"] == sum(r["tokens"] for r in packed) <= 12
    assert len(packed) < len(answer["results"])  # the budget left something out


def test_time_travel_changes_the_answer(client: TestClient) -> None:
    def top(**when: str) -> str:
        answer = _get(client, "/api/recall", q="where does Ardian live", kinds="fact", **when)
        return str(answer["results"][0]["content"])

    assert top() == "Ardian lives in Menteng"
    assert top(as_of="2026-02-01") == "Ardian lives in Kemang"
    # Before anything was recorded, the memory knew nothing.
    assert _get(client, "/api/recall", q="Ardian", known_at="2020-01-01")["results"] == []


def test_timeline_and_contradictions_pages(client: TestClient) -> None:
    timeline = _get(client, "/api/timeline", entity="Ardian", limit=3)
    assert timeline["total"] > 3
    assert len(timeline["facts"]) == 3
    conflicts = _get(client, "/api/contradictions")
    assert conflicts["total"] == 1
    assert {f["content"] for f in conflicts["groups"][0]["facts"]} == {
        "Ardian's phone is a Pixel 9",
        "Ardian's phone is an iPhone 16",
    }


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize(
    "path", ["/", "/api/recall", "/api/acta", "/api/sessions", "/static/app.js"]
)
def test_nothing_writes(client: TestClient, method: str, path: str) -> None:
    response = client.request(method, path, json={"content": "x"})
    assert response.status_code == 405


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/api/info", "/static/app.js", "/api/acta?session=nope"):
        headers = client.get(path).headers
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"


def test_dns_rebinding_and_foreign_origins_are_refused(client: TestClient) -> None:
    assert client.get("/", headers={"Host": "attacker.example"}).status_code == 421
    assert client.get("/", headers={"Host": "localhost:8766"}).status_code == 200
    assert client.get("/api/info", headers={"Origin": "http://attacker.example"}).status_code == 403
    assert client.get("/api/info", headers={"Origin": "http://127.0.0.1:8766"}).status_code == 200


def test_a_token_is_traded_once_for_a_cookie(sample_db: Db) -> None:
    with _client(sample_db, token=TOKEN) as client:
        assert client.get("/api/info").status_code == 401
        assert client.get("/", params={"token": "wrong" * 8}).status_code == 401
        first = client.get("/", params={"token": TOKEN, "x": "1"}, follow_redirects=False)
        assert first.status_code == 303
        assert first.headers["location"] == "/?x=1"
        assert "httponly" in first.headers["set-cookie"].lower()
        assert client.get("/api/info").status_code == 200  # the cookie now
    with _client(sample_db, token=TOKEN) as client:
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        assert client.get("/api/info", headers=bearer).status_code == 200


def test_the_inspectors_search_is_no_use(sample_db: Db) -> None:
    """An operator's search keeps nothing alive for ``prune(unused_for=...)``."""
    with _client(sample_db) as c:
        found = {r["id"] for r in _get(c, "/api/recall", q="Ardian phone")["results"]}
    with ChronoMem(sample_db, owner=OWNER, track_use=False) as mem:
        used = rows(
            mem, "SELECT f.id FROM chronomem_used u JOIN chronomem_facts f ON f.rowid = u.item"
        )
    assert found
    assert not found & {i for (i,) in used}


def test_sources_close_what_they_opened(sample_db: Db) -> None:
    sources = Sources.open(sample_db, OWNER)
    sources.close()
    assert sources.memory is not None
    with pytest.raises(Exception, match="closed"):
        sources.memory.stats()


def test_callers_during_a_slow_scan_share_its_answer() -> None:
    calls: list[int] = []
    started, release = threading.Event(), threading.Event()

    def scan() -> int:
        calls.append(1)
        started.set()
        release.wait(5)
        return len(calls)

    shared = SharedCall(scan)
    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(shared)
        assert started.wait(5)
        waiting = [pool.submit(shared) for _ in range(3)]
        time.sleep(0.05)  # all three are queued behind the running scan
        release.set()
        assert [first.result(), *(w.result() for w in waiting)] == [1, 1, 1, 1]
    assert shared() == 2  # asked after the scan ended: a fresh one
