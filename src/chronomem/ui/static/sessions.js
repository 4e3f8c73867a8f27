// Sessions: the owner's chronica, newest first, and one session drawn as a conversation with a
// lane per actor. The filters are get_acta's (kinds, actor kinds, last N), so the page shows
// exactly the window an agent asking with them was given; new acta arrive by polling "after".
import { api, checkboxes, h, link, picked, when } from "./dom.js";

const KINDS = ["message", "thought", "tool_request", "tool_response"];
const ACTOR_KINDS = ["human", "agent", "system"];
const POLL_MS = 400;

export async function renderSessions(main, params) {
  const offset = Number(params.get("offset") || 0);
  const page = await api("sessions", { offset, limit: 100 });
  const rows = page.sessions.map((c) => h("tr", { "data-session": c.id },
    h("td", {}, link("session", { id: c.id }, c.id)),
    h("td", { class: "num" }, c.acta.toLocaleString("en")),
    h("td", {}, when(c.created_at)),
    h("td", {}, when(c.last_at))));
  main.replaceChildren(
    h("h1", {}, "Sessions"),
    page.sessions.length === 0 && offset === 0
      ? h("p", { class: "muted" }, "No sessions for this owner yet.")
      : h("table", { id: "sessions" },
          h("thead", {}, h("tr", {}, h("th", {}, "session"), h("th", { class: "num" }, "acta"),
            h("th", {}, "created"), h("th", {}, "last actum"))),
          h("tbody", {}, rows)),
    h("p", {},
      offset > 0 && link("sessions", { offset: Math.max(0, offset - 100) }, "← newer"), " ",
      page.more && link("sessions", { offset: offset + 100 }, "older →")));
}

function toolName(meta) {
  if (!meta || typeof meta !== "object") return "";
  const name = meta.tool || meta.tool_name || meta.name || "";
  return typeof name === "string" ? name : "";
}

function contentBlock(session, actum) {
  const text = h("div", { class: "content pre" }, actum.content);
  if (!actum.truncated) return text;
  const more = h("button", {
    class: "plain",
    onclick: async () => {
      const full = await api("actum", { session, id: actum.id });
      text.textContent = full.content;
      more.remove();
    },
  }, `show all ${actum.length.toLocaleString("en")} characters`);
  return h("div", {}, text, more);
}

function actumCard(session, actum) {
  // Who spoke (the actor: concierge, search, booking), and as what (agent, human, system).
  const meta = h("div", { class: "meta" },
    h("span", { class: `badge who`, title: actum.actor_kind }, actum.actor),
    h("span", { class: "as" }, actum.actor_kind),
    h("span", { class: `badge k-${actum.kind}` }, actum.kind.replace("_", " ")),
    h("span", {}, `#${actum.seq}`), h("span", {}, when(actum.at)));
  const cls = `actum ${actum.kind} ${actum.actor_kind}`;
  const data = { class: cls, "data-seq": actum.seq, "data-kind": actum.kind };
  if (actum.kind === "message") return h("div", data, meta, contentBlock(session, actum));
  const label = actum.kind === "thought" ? "thought" : `${actum.kind.replace("_", " ")}`;
  const tool = toolName(actum.metadata);
  const hasMeta = actum.metadata && Object.keys(actum.metadata).length > 0;
  return h("details", data,
    h("summary", {}, meta, h("span", {}, `${label}${tool ? `: ${tool}` : ""} `),
      h("span", { class: "muted" }, actum.content.slice(0, 80))),
    contentBlock(session, actum),
    hasMeta && actum.kind !== "thought" && h("pre", {}, JSON.stringify(actum.metadata, null, 2)));
}

// One row per actum; the lane (column) is its actor's. Lanes are added as actors appear.
class Lanes {
  constructor(session) {
    this.session = session;
    this.actors = new Map();
    this.head = h("div", { class: "row lanes lane-heads" });
    this.body = h("div", { id: "acta" });
    this.node = h("div", { class: "conversation" }, this.head, this.body);
  }

  // Every row, the heads' included, takes its columns from one variable on the conversation:
  // a row built before a later actor appeared (in the same page of acta, not yet in the
  // document) still gets the new column count, so each card stays under its actor's head.
  lane(actum) {
    if (!this.actors.has(actum.actor)) {
      this.actors.set(actum.actor, this.actors.size + 1);
      this.head.append(h("div", { class: `lane-head ${actum.actor_kind}`, "data-actor": actum.actor },
        actum.actor, " ", h("span", { class: "kind" }, actum.actor_kind)));
      this.node.style.setProperty("--lanes", String(this.actors.size));
    }
    return this.actors.get(actum.actor);
  }

  row(actum) {
    const card = actumCard(this.session, actum);
    card.style.gridColumn = String(this.lane(actum));
    card.dataset.actor = actum.actor;
    return h("div", { class: "lanes" }, card);
  }

  append(acta) { this.body.append(...acta.map((a) => this.row(a))); }
  prepend(acta) { this.body.prepend(...acta.map((a) => this.row(a))); }
}

function filterForm(id, params) {
  const kinds = (params.get("kinds") || "").split(",").filter(Boolean);
  const actors = (params.get("actor_kinds") || "").split(",").filter(Boolean);
  const form = h("form", { class: "bar", id: "filters" },
    checkboxes("kinds", KINDS, kinds), checkboxes("actor_kinds", ACTOR_KINDS, actors),
    h("label", {}, "last N ", h("input", { type: "number", name: "last_n", min: 0,
      value: params.get("last_n") || "", placeholder: "all" })),
    h("button", { type: "submit" }, "apply"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const q = new URLSearchParams({ id });
    for (const name of ["kinds", "actor_kinds"]) {
      const values = picked(form, name);
      if (values.length) q.set(name, values.join(","));
    }
    const n = form.elements.last_n.value;
    if (n && Number(n) > 0) q.set("last_n", n);
    location.hash = `#/session?${q}`;
  });
  return form;
}

export async function renderSession(main, params) {
  const id = params.get("id") || "";
  const filters = {
    session: id, kinds: params.get("kinds"), actor_kinds: params.get("actor_kinds"),
    last_n: params.get("last_n"),
  };
  const page = await api("acta", { ...filters, limit: 200 });
  const lanes = new Lanes(id);
  const summary = h("p", { class: "muted", id: "summary" });
  const live = h("span", { class: "live" }, "live");
  let shown = page.acta.length;
  let last = page.acta.length ? page.acta[page.acta.length - 1].seq : page.first_seq - 1;
  let oldest = page.acta.length ? page.acta[0].seq : null;
  let total = page.total;
  const describe = () => {
    summary.textContent = `showing ${shown.toLocaleString("en")} of ${total.toLocaleString("en")}` +
      " acta in this window" + (params.get("last_n") ? ` (the last ${params.get("last_n")} that pass the filters)` : "");
  };
  const older = h("button", { class: "plain", id: "older", onclick: async () => {
    const more = await api("acta", { ...filters, limit: 200, before: oldest });
    lanes.prepend(more.acta);
    shown += more.acta.length;
    if (more.acta.length) oldest = more.acta[0].seq;
    older.hidden = !more.more_before;
    describe();
  } }, "load older");
  older.hidden = !page.more_before;
  lanes.append(page.acta);
  describe();
  main.replaceChildren(h("h1", {}, "Session ", h("span", { id: "session-id" }, id), " ", live),
    filterForm(id, params), summary, older, lanes.node);
  window.scrollTo(0, document.body.scrollHeight);

  let stopped = false;
  let timer = null;
  const poll = async () => {
    try {
      const fresh = await api("acta", { ...filters, limit: 200, after: last });
      if (!stopped && fresh.acta.length) {
        const atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
        lanes.append(fresh.acta);
        last = fresh.acta[fresh.acta.length - 1].seq;
        shown += fresh.acta.length;
        total = fresh.total;
        describe();
        if (atBottom) window.scrollTo(0, document.body.scrollHeight);
      }
    } catch (e) {
      live.textContent = `paused: ${e.message || e}`;
    }
    if (!stopped) timer = setTimeout(poll, POLL_MS);
  };
  timer = setTimeout(poll, POLL_MS);
  return () => { stopped = true; clearTimeout(timer); };
}
