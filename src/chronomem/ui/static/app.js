// The inspector's router: the hash is the whole state (#/page?param=...), so every view can
// be linked, reloaded, screenshotted and tested by URL.
import { api, error, h } from "./dom.js";
import { renderSession, renderSessions } from "./sessions.js";
import { renderContradictions, renderMemory } from "./memory.js";
import { renderTimeline } from "./timeline.js";

const PAGES = {
  sessions: renderSessions,
  session: renderSession,
  memory: renderMemory,
  timeline: renderTimeline,
  contradictions: renderContradictions,
};

let stopCurrent = null;

async function show() {
  const [path, search] = (location.hash.replace(/^#\/?/, "") || "sessions").split("?");
  const page = PAGES[path] ? path : "sessions";
  const params = new URLSearchParams(search || "");
  const main = document.getElementById("main");
  if (stopCurrent) stopCurrent();
  stopCurrent = null;
  main.dataset.state = "loading";
  for (const a of document.querySelectorAll("header nav a")) {
    a.classList.toggle("current", a.dataset.page === (page === "session" ? "sessions" : page));
  }
  try {
    stopCurrent = (await PAGES[page](main, params)) || null;
  } catch (e) {
    error(main, e);
  }
  main.dataset.page = page;
  main.dataset.state = "ready";
  performance.mark("ready"); // scripts/ui_perf.py times a page open up to here
}

async function whoami() {
  try {
    const me = await api("info");
    const text = `owner ${me.owner} · ${me.db} · read-only${me.note ? ` · ${me.note}` : ""}`;
    // A long DSN is cut to the header's width; the whole of it shows on hover.
    document.getElementById("whoami").replaceChildren(h("span", { title: text }, text));
  } catch (e) {
    document.getElementById("whoami").textContent = String(e.message || e);
  }
}

window.addEventListener("hashchange", show);
whoami();
show();
