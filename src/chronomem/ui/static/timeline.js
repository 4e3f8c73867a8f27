// Timeline: an entity's facts as validity bars on a time axis (valid_from to valid_until, or
// an open arrow while still valid), the supersede chain as links from each fact's end to its
// successor's start, forgotten facts crossed out. Drawn in SVG; every label is a text node.
import { api, h, link, s, when } from "./dom.js";

const ROW = 38;
const TOP = 30;
const PAD = 16;

function stateOf(f) {
  if (f.forgotten) return "forgotten";
  if (f.superseded_by) return "superseded";
  return "active";
}

function ticks(t0, t1, x, height) {
  const out = [];
  for (let i = 0; i <= 5; i++) {
    const t = t0 + ((t1 - t0) * i) / 5;
    const at = x(t);
    out.push(s("line", { class: "axis", x1: at, x2: at, y1: TOP - 8, y2: height }),
      s("text", { class: "tick", x: i === 5 ? at - 3 : at + 3, y: TOP - 12,
        "text-anchor": i === 5 ? "end" : "start" },
        new Date(t).toISOString().slice(0, 10)));
  }
  return out;
}

function draw(facts, width) {
  const now = Date.now();
  const from = (f) => Date.parse(f.valid_from);
  // A forgotten fact stopped counting when it was forgotten, whatever its validity said.
  const until = (f) => Date.parse(f.valid_until || (f.forgotten && f.invalidated_at) || "") || now;
  let t0 = Math.min(...facts.map(from));
  let t1 = Math.max(now, ...facts.map(until));
  if (!(t1 > t0)) t1 = t0 + 86400000;
  const span = t1 - t0;
  t0 -= span * 0.02;
  t1 += span * 0.02;
  const x = (t) => PAD + ((t - t0) / (t1 - t0)) * (width - 2 * PAD);
  const height = TOP + facts.length * ROW + 10;
  const row = new Map(facts.map((f, i) => [f.id, i]));
  const y = (i) => TOP + i * ROW;
  const parts = [...ticks(t0, t1, x, height)];
  facts.forEach((f, i) => {
    const x0 = x(from(f));
    const x1 = Math.max(x0 + 3, x(until(f)));
    const state = stateOf(f);
    const label = f.content.length > 140 ? `${f.content.slice(0, 140)}…` : f.content;
    parts.push(s("g", { class: `fact ${state}`, "data-id": f.id },
      s("title", {}, `${f.content}\nvalid ${when(f.valid_from)} → ${f.valid_until ? when(f.valid_until) : "now"}` +
        `\nrecorded ${when(f.system_time)}`),
      s("text", { class: "label", x: Math.min(x0, width - 320), y: y(i) + 12 },
        state === "active" ? label : `${label} (${state})`),
      s("rect", { class: `bar ${state}`, x: x0, y: y(i) + 17, width: x1 - x0, height: 10, rx: 2 }),
      !f.valid_until && !f.forgotten && s("path", { class: "open-end",
        d: `M${x1} ${y(i) + 15} l7 7 l-7 7` }),
      f.forgotten && s("path", { class: "cross",
        d: `M${x1 - 6} ${y(i) + 15} l12 14 M${x1 + 6} ${y(i) + 15} l-12 14` })));
    if (f.superseded_by && row.has(f.superseded_by)) {
      const j = row.get(f.superseded_by);
      const next = facts[j];
      const ax = x(until(f));
      const bx = x(from(next));
      parts.push(s("path", { class: "link", "data-from": f.id, "data-to": next.id,
        d: `M${ax} ${y(i) + 22} C${ax + 30} ${y(i) + 22}, ${bx - 30} ${y(j) + 22}, ${bx} ${y(j) + 22}` }));
    }
  });
  return s("svg", { class: "timeline", id: "chart", viewBox: `0 0 ${width} ${height}`,
    width, height }, parts);
}

function table(facts) {
  return h("table", { id: "facts" },
    h("thead", {}, h("tr", {}, ["state", "content", "valid from", "valid until", "recorded",
      "superseded by"].map((t) => h("th", {}, t)))),
    h("tbody", {}, facts.map((f) => h("tr", { "data-id": f.id },
      h("td", {}, h("span", { class: `tag ${stateOf(f)}` }, stateOf(f))),
      h("td", { class: "pre" }, f.content, f.forget_reason ? h("div", { class: "muted" },
        `forgotten: ${f.forget_reason}`) : null),
      h("td", {}, when(f.valid_from)), h("td", {}, when(f.valid_until)),
      h("td", {}, when(f.system_time)),
      h("td", {}, f.superseded_by ? h("code", { title: f.superseded_by },
        `…${f.superseded_by_short || f.superseded_by.slice(-8)}`) : "")))));
}

export async function renderTimeline(main, params) {
  const entity = params.get("entity") || "";
  const form = h("form", { class: "bar", id: "entity-form" },
    h("label", {}, "entity ", h("input", { type: "search", name: "entity", value: entity,
      placeholder: "e.g. Ardian" })),
    h("button", { type: "submit" }, "draw"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `#/timeline?entity=${encodeURIComponent(form.elements.entity.value.trim())}`;
  });
  if (!entity) {
    main.replaceChildren(h("h1", {}, "Timeline"), form,
      h("p", { class: "muted" }, "Name an entity to draw what the memory believed about it, and when."));
    return;
  }
  const offset = Number(params.get("offset") || 0);
  const page = await api("timeline", { entity, offset, limit: 200 });
  const width = Math.max(640, main.clientWidth - 4);
  main.replaceChildren(h("h1", {}, "Timeline of ", h("span", { id: "entity" }, entity)), form,
    h("p", { class: "muted" }, `${page.total} facts` +
      (page.total > page.facts.length ? `, ${offset + 1}–${offset + page.facts.length} shown` : "")),
    page.facts.length ? draw(page.facts, width) : h("p", {}, "No facts about this entity."),
    h("p", {}, offset > 0 && link("timeline", { entity, offset: Math.max(0, offset - 200) }, "← earlier"),
      " ", offset + 200 < page.total && link("timeline", { entity, offset: offset + 200 }, "later →")),
    page.facts.length ? table(page.facts) : null);
}
