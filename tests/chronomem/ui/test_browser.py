"""Every page in a real headless Chromium: it shows what the test database holds, the filters
and the time-travel controls change it, hostile text stays text, and a live session grows; on a
SQLite file and on PostgreSQL alike."""

from __future__ import annotations

import time
from typing import Any

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from chronica import ActorKind, Actum, ActumKind, Chronicarius
from chronomem import ChronoMem

from .browser import wait_ready
from .sample import HOSTILE, OWNER, SESSION, Db, session_store


def _texts(browser: webdriver.Chrome, css: str) -> list[str]:
    return [e.text for e in browser.find_elements(By.CSS_SELECTOR, css)]


def _console(browser: webdriver.Chrome) -> list[dict[str, Any]]:
    """The browser console's entries since the last call."""
    entries: list[dict[str, Any]] = browser.get_log("browser")  # type: ignore[no-untyped-call]  # selenium leaves it unannotated
    return entries


def _click(browser: webdriver.Chrome, css: str) -> None:
    """Click ``css`` once scrolled clear of the sticky header (a session opens at its end)."""
    element = browser.find_element(By.CSS_SELECTOR, css)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def _submit(browser: webdriver.Chrome, form: str) -> None:
    _click(browser, f"#{form} button[type=submit]")
    WebDriverWait(browser, 10, poll_frequency=0.01).until(
        lambda b: b.find_element(By.ID, "main").get_attribute("data-state") == "ready"
    )


def test_sessions_page_lists_the_owners_sessions_newest_first(
    browser: webdriver.Chrome, base_url: str
) -> None:
    wait_ready(browser, f"{base_url}/#/sessions")
    rows = browser.find_elements(By.CSS_SELECTOR, "#sessions tbody tr")
    assert [r.get_attribute("data-session") for r in rows] == [SESSION, "hostile", "trip-bali"]
    rows[0].find_element(By.TAG_NAME, "a").click()
    WebDriverWait(browser, 5).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#acta .actum"))
    assert browser.find_element(By.ID, "session-id").text == SESSION


def test_a_session_is_a_conversation_with_a_lane_per_actor(
    browser: webdriver.Chrome, base_url: str
) -> None:
    wait_ready(browser, f"{base_url}/#/session?id={SESSION}")
    lanes = [
        e.get_attribute("data-actor") for e in browser.find_elements(By.CSS_SELECTOR, ".lane-head")
    ]
    assert lanes == ["ardian", "concierge", "search", "search_restaurants", "booking", "book_table"]
    cards = browser.find_elements(By.CSS_SELECTOR, "#acta .actum")
    assert [c.get_attribute("data-seq") for c in cards] == [str(i) for i in range(1, 11)]
    # Messages are open; thoughts and tool calls are collapsed until clicked.
    thought = browser.find_element(By.CSS_SELECTOR, ".actum.thought")
    assert thought.tag_name == "details"
    assert thought.get_attribute("open") is None
    tool = browser.find_element(By.CSS_SELECTOR, ".actum.tool_request")
    assert "search_restaurants" in tool.text
    _click(browser, ".actum.tool_request summary")  # the first one, maybe under the header
    assert tool.get_attribute("open") is not None
    assert '"call_id": "c1"' in tool.text
    # Each actum sits in its actor's lane.
    booking = browser.find_element(By.CSS_SELECTOR, '.actum[data-actor="booking"]')
    assert booking.value_of_css_property("grid-column-start") == "5"


def test_each_card_names_its_actor_and_stays_under_its_lane_head(
    browser: webdriver.Chrome, base_url: str, sample_db: Db
) -> None:
    wait_ready(browser, f"{base_url}/#/session?id={SESSION}")
    heads = {
        e.get_attribute("data-actor"): e.rect
        for e in browser.find_elements(By.CSS_SELECTOR, ".lane-head")
    }
    with session_store(sample_db) as store:
        acta = Chronicarius(store).get_acta(OWNER, SESSION)
    cards = browser.find_elements(By.CSS_SELECTOR, "#acta .actum")
    assert len(cards) == len(acta) == 10
    for card, actum in zip(cards, acta, strict=True):
        # Who spoke, by name (concierge, search, booking), then as what.
        who = card.find_element(By.CSS_SELECTOR, ".meta .who")
        assert (who.text, who.get_attribute("title")) == (actum.actor, actum.actor_kind.value)
        assert card.find_element(By.CSS_SELECTOR, ".meta .as").text == actum.actor_kind.value
        # In its actor's column: the card's left and right edges are its lane head's, for
        # the first actum (written when one actor had spoken) as for the last.
        head = heads[actum.actor]
        assert abs(card.rect["x"] - head["x"]) < 1.5, (actum.content, card.rect, head)
        assert abs(card.rect["width"] - head["width"]) < 1.5, (actum.content, card.rect, head)


def test_filters_show_exactly_the_window_an_agent_got(
    browser: webdriver.Chrome, base_url: str, sample_db: Db
) -> None:
    wait_ready(browser, f"{base_url}/#/session?id={SESSION}")
    _click(browser, '#filters input[value="message"]')
    _click(browser, '#filters input[value="agent"]')
    browser.find_element(By.CSS_SELECTOR, '#filters input[name="last_n"]').send_keys("2")
    _submit(browser, "filters")
    shown = _texts(browser, "#acta .actum .content")
    with session_store(sample_db) as store:
        window = Chronicarius(store).get_acta(
            OWNER, SESSION, last_n=2, actum_kinds=["message"], actor_kinds=["agent"]
        )
    assert shown == [a.content for a in window]
    assert "#/session?" in browser.current_url
    assert "last_n=2" in browser.current_url


def test_a_live_session_shows_a_new_actum_within_a_second(
    browser: webdriver.Chrome, base_url: str, sample_db: Db
) -> None:
    with session_store(sample_db) as store:
        c = Chronicarius(store)
        first = Actum(chronicum_id="live", kind=ActumKind.MESSAGE, actor_kind=ActorKind.HUMAN,
                      actor="ardian", content="anyone there?")  # fmt: skip
        c.record_actum(OWNER, first)
        wait_ready(browser, f"{base_url}/#/session?id=live")
        assert _texts(browser, "#acta .content") == ["anyone there?"]
        c.record_actum(OWNER, Actum(chronicum_id="live", kind=ActumKind.MESSAGE,
                                    actor_kind=ActorKind.AGENT, actor="concierge",
                                    content="here, just now"))  # fmt: skip
        written = time.monotonic()
        WebDriverWait(browser, 1.0, poll_frequency=0.02).until(
            lambda b: len(b.find_elements(By.CSS_SELECTOR, "#acta .actum")) == 2
        )
        assert time.monotonic() - written < 1.0
        assert _texts(browser, "#acta .content")[-1] == "here, just now"
        assert _texts(browser, ".lane-head")[-1].startswith("concierge")


def test_memory_search_explains_each_result(
    browser: webdriver.Chrome, base_url: str, sample_db: Db
) -> None:
    wait_ready(browser, f"{base_url}/#/memory")
    box = browser.find_element(By.CSS_SELECTOR, '#search input[name="q"]')
    box.send_keys("Ardian phone")
    browser.find_element(By.CSS_SELECTOR, '#search input[name="budget"]').send_keys("12")
    _submit(browser, "search")
    rows = browser.find_elements(By.CSS_SELECTOR, "#results tbody tr")
    assert len(rows) >= 2
    for row in rows:
        assert row.get_attribute("data-kind") in ("fact", "episode")
        assert float(row.find_element(By.CSS_SELECTOR, ".score").text) > 0
        assert int(row.find_element(By.CSS_SELECTOR, ".tokens").text) > 0
    assert rows[0].find_element(By.CSS_SELECTOR, ".rank-bm25").text == "1"
    # The rank columns are the channels this recall used, read from its answer: semantic
    # (which ranks by default) among them, and no column for a channel that ranked nothing.
    with ChronoMem(sample_db, owner=OWNER) as memory:
        used = {c for item in memory.recall("Ardian phone", limit=20) for c in item.ranks}
    headers = _texts(browser, "#results thead th")
    channels = headers[headers.index("score") + 1 : headers.index("tokens")]
    assert "semantic" in channels
    assert set(channels) == used
    assert len(channels) == len(used)
    packed = [r for r in rows if "packed" in (r.get_attribute("class") or "").split()]
    assert len(packed) == 1  # two 11-token phone facts, a 12-token budget
    assert "of 12 tokens" in browser.find_element(By.ID, "budget").text


def test_time_travel_changes_the_answer(browser: webdriver.Chrome, base_url: str) -> None:
    wait_ready(browser, f"{base_url}/#/memory?q=where+does+Ardian+live&kinds=fact")
    assert _texts(browser, "#results tbody tr .content")[0] == "Ardian lives in Menteng"
    browser.find_element(By.CSS_SELECTOR, '#search input[name="as_of"]').send_keys("2026-02-01")
    _submit(browser, "search")
    assert _texts(browser, "#results tbody tr .content")[0] == "Ardian lives in Kemang"
    assert "as of 2026-02-01" in browser.find_element(By.ID, "view").text
    field = browser.find_element(By.CSS_SELECTOR, '#search input[name="known_at"]')
    field.send_keys("2020-01-01")
    _submit(browser, "search")
    assert browser.find_element(By.ID, "empty").text == "Nothing recalled."


def test_timeline_draws_validity_bars_links_and_forgotten_facts(
    browser: webdriver.Chrome, base_url: str
) -> None:
    wait_ready(browser, f"{base_url}/#/timeline?entity=Ardian")
    bars = browser.find_elements(By.CSS_SELECTOR, "#chart rect.bar")
    assert len(bars) == 9
    assert len(browser.find_elements(By.CSS_SELECTOR, "#chart rect.bar.superseded")) == 1
    assert len(browser.find_elements(By.CSS_SELECTOR, "#chart rect.bar.forgotten")) == 1
    [link] = browser.find_elements(By.CSS_SELECTOR, "#chart path.link")
    old = browser.find_element(By.CSS_SELECTOR, "#chart g.superseded")
    assert link.get_attribute("data-from") == old.get_attribute("data-id")
    labels = _texts(browser, "#chart .label")
    assert "Ardian lives in Kemang (superseded)" in labels
    assert "Ardian is allergic to peanut (forgotten)" in labels
    # The old home's bar ends where the new one's begins: the supersede moment.
    old_bar = old.find_element(By.TAG_NAME, "rect")
    new_bar = browser.find_element(
        By.CSS_SELECTOR, f'#chart g[data-id="{link.get_attribute("data-to")}"] rect'
    )
    end = float(old_bar.get_attribute("x") or 0) + float(old_bar.get_attribute("width") or 0)
    assert abs(end - float(new_bar.get_attribute("x") or 0)) < 0.5


def test_contradictions_side_by_side(browser: webdriver.Chrome, base_url: str) -> None:
    wait_ready(browser, f"{base_url}/#/contradictions")
    [conflict] = browser.find_elements(By.CSS_SELECTOR, "#conflicts .conflict")
    sides = [s.find_element(By.CSS_SELECTOR, ".content").text
             for s in conflict.find_elements(By.CSS_SELECTOR, ".side")]  # fmt: skip
    assert sorted(sides) == ["Ardian's phone is a Pixel 9", "Ardian's phone is an iPhone 16"]
    assert "phone" in conflict.find_element(By.TAG_NAME, "h2").text


def test_hostile_text_is_shown_and_never_run(browser: webdriver.Chrome, base_url: str) -> None:
    pages = [
        "#/session?id=hostile",
        "#/memory?q=Ardian+wrote&limit=50",
        "#/timeline?entity=Ardian",
        f"#/timeline?entity={HOSTILE[0]}",
        "#/sessions",
    ]
    for page in pages:
        wait_ready(browser, f"{base_url}/{page}")
        for summary in browser.find_elements(By.TAG_NAME, "summary"):
            summary.click()  # open every collapsed actum: its text must stay text too
        time.sleep(0.1)  # give an injected handler (an <img> error) time to fire
        assert browser.execute_script("return window.__pwned") is None, page
        assert browser.find_elements(By.CSS_SELECTOR, "#main img, #main script, #main iframe") == []
        hrefs = [a.get_attribute("href") or "" for a in browser.find_elements(By.CSS_SELECTOR, "a")]
        assert all("#/" in h for h in hrefs), hrefs
    wait_ready(browser, f"{base_url}/#/session?id=hostile")
    text = browser.find_element(By.ID, "acta").text
    for hostile in HOSTILE:
        assert hostile in text


def test_no_page_logs_an_error(browser: webdriver.Chrome, base_url: str) -> None:
    """A script the Content-Security-Policy blocked, or a failed request, logs an error."""
    _console(browser)  # drop what earlier tests logged
    for page in ("#/sessions", f"#/session?id={SESSION}", "#/memory?q=Ardian&budget=30",
                 "#/timeline?entity=Ardian", "#/contradictions"):  # fmt: skip
        wait_ready(browser, f"{base_url}/{page}")
    assert [e for e in _console(browser) if e["level"] == "SEVERE"] == []
