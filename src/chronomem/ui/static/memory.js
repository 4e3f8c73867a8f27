// Memory: recall explained (kind, score, per-channel ranks, tokens, what a budget packs) with
// as_of / known_at to travel in time; and Contradictions, the open conflicts side by side.
import { api, checkboxes, h, link, num, picked, when } from "./dom.js";


function state(item) {
  if (item.forgotten) return h("span", { class: "tag forgotten" }, "forgotten");
  if (item.superseded_by) return h("span", { class: "tag superseded" }, "superseded");
  return null;
}

function about(item) {
  if (item.kind === "episode") {
    return h("div", { class: "muted" }, `${item.speaker} · ${item.session} · ${when(item.at)}`);
  }
  return h("div", { class: "muted" },
    item.category ? `${item.category} · ` : "",
    `valid ${when(item.valid_from)} → ${item.valid_until ? when(item.valid_until) : "now"} · `,
    h("span", { class: "entities" },
      item.entities.map((e) => link("timeline", { entity: e }, e))));
}

function searchForm(params) {
  const kinds = (params.get("kinds") || "").split(",").filter(Boolean);
  const field = (name, label, attrs) => h("label", {}, `${label} `,
    h("input", { name, value: params.get(name) || "", ...attrs }));
  const form = h("form", { class: "bar", id: "search" },
    h("input", { type: "search", name: "q", value: params.get("q") || "",
      placeholder: "ask what an agent would ask", autofocus: true }),
    field("budget", "token budget", { type: "number", min: 0, placeholder: "none" }),
    field("limit", "show", { type: "number", min: 1, max: 200, placeholder: "20" }),
    checkboxes("kinds", ["fact", "episode"], kinds),
    h("label", {}, h("input", { type: "checkbox", name: "all", value: "1",
      checked: params.get("all") === "1" }), " include superseded"),
    field("as_of", "as of", { type: "text", placeholder: "2026-02-01T00:00Z" }),
    field("known_at", "known at", { type: "text", placeholder: "2026-02-01T00:00Z" }),
    h("button", { type: "submit" }, "recall"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const q = new URLSearchParams();
    for (const name of ["q", "budget", "limit", "as_of", "known_at"]) {
      const value = form.elements[name].value.trim();
      if (value) q.set(name, value);
    }
    const chosen = picked(form, "kinds");
    if (chosen.length) q.set("kinds", chosen.join(","));
    if (form.elements.all.checked) q.set("all", "1");
    location.hash = `#/memory?${q}`;
  });
  return form;
}

function budgetLine(answer) {
  if (answer.budget === null) {
    return h("p", { class: "muted" }, "No token budget: set one to see what an agent would be given.");
  }
  const share = answer.budget ? Math.min(1, answer.packed_tokens / answer.budget) : 0;
  const bar = h("span");
  bar.style.width = `${(share * 100).toFixed(1)}%`;
  return h("div", { class: "budget", id: "budget" }, h("div", { class: "meter" }, bar),
    `${answer.packed_count} packed · ${answer.packed_tokens} of ${answer.budget} tokens`);
}

// The channels come with the answer (those that ranked something in this recall, semantic
// included when it ran), never from a list here: the page shows what the recall used.
function resultRow(item, answer, running) {
  const packed = answer.budget === null ? null : item.packed;
  return h("tr", { class: packed === null ? "" : packed ? "packed" : "unpacked",
    "data-id": item.id, "data-kind": item.kind },
    h("td", { class: "num" }, item.position),
    h("td", {}, packed === null ? "" : packed ? "✓ packed" : "skipped"),
    h("td", {}, h("span", { class: `tag ${item.kind}` }, item.kind), " ", state(item)),
    h("td", {}, h("div", { class: "content pre" }, item.content), about(item)),
    h("td", { class: "num score" }, num(item.score)),
    answer.channels.map((c) => h("td", { class: `num rank-${c}` }, item.ranks[c] ?? "–")),
    h("td", { class: "num tokens" }, item.tokens),
    h("td", { class: "num" }, packed ? running : ""));
}

export async function renderMemory(main, params) {
  const form = searchForm(params);
  const q = params.get("q");
  if (!q) {
    main.replaceChildren(h("h1", {}, "Memory"), form,
      h("p", { class: "muted" }, "Search the memory the way an agent's recall does."));
    return;
  }
  const answer = await api("recall", {
    q, budget: params.get("budget"), limit: params.get("limit"), as_of: params.get("as_of"),
    known_at: params.get("known_at"), kinds: params.get("kinds"), all: params.get("all"),
  });
  let running = 0;
  const rows = answer.results.map((item) => {
    if (item.packed) running += item.tokens;
    return resultRow(item, answer, running);
  });
  const travel = [answer.as_of && `as of ${when(answer.as_of)}`,
    answer.known_at && `as known at ${when(answer.known_at)}`].filter(Boolean).join(", ");
  main.replaceChildren(h("h1", {}, "Memory"), form,
    h("p", { class: "muted", id: "view" }, travel ? `Answering ${travel}.` : "Answering as of now."),
    budgetLine(answer),
    answer.results.length === 0 ? h("p", { id: "empty" }, "Nothing recalled.") :
      h("table", { id: "results" }, h("thead", {}, h("tr", {},
        ["#", "budget", "kind", "content", "score", ...answer.channels, "tokens", "packed Σ"].map(
          (t, i) => h("th", { class: i === 3 || i < 3 ? "" : "num" }, t)))),
      h("tbody", {}, rows)));
}

function side(fact) {
  return h("div", { class: "side", "data-id": fact.id },
    h("div", { class: "content pre" }, fact.content),
    h("div", { class: "muted" }, `valid from ${when(fact.valid_from)}`),
    h("div", { class: "muted" }, `recorded ${when(fact.system_time)} · trust ${fact.trust_score}` +
      ` · confidence ${fact.confidence}`),
    h("div", { class: "muted" }, fact.source ? `source ${fact.source}` : ""),
    h("code", { class: "muted", title: fact.id }, fact.short_id ? `…${fact.short_id}` : fact.id));
}

export async function renderContradictions(main, params) {
  const offset = Number(params.get("offset") || 0);
  const page = await api("contradictions", { offset, limit: 50 });
  const groups = page.groups.map((g) => h("section", { class: "conflict" },
    h("h2", {}, link("timeline", { entity: g.entity }, g.entity),
      g.category ? ` · ${g.category}` : "", h("span", { class: "muted" }, ` — ${g.reason}`)),
    h("div", { class: "sides" }, g.facts.map(side))));
  main.replaceChildren(h("h1", {}, `Contradictions (${page.total})`),
    page.total === 0 ? h("p", { class: "muted" }, "No open conflicts.") : h("div", { id: "conflicts" }, groups),
    h("p", {},
      offset > 0 && link("contradictions", { offset: Math.max(0, offset - 50) }, "← previous"), " ",
      offset + 50 < page.total && link("contradictions", { offset: offset + 50 }, "next →")));
}
