// The only way the inspector puts anything on the page: every piece of stored text becomes a
// text node (never innerHTML), and links are built here from our own routes, so a fact that
// says <script>, "><img onerror=...> or javascript: is shown, not run.

const SVG = "http://www.w3.org/2000/svg";

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function attrs(node, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "href") node.setAttribute("href", route(value));
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  return node;
}

// h("div", {class: "x"}, "text", child...) -> an element; strings are text, always.
export function h(tag, props, ...children) {
  return append(attrs(document.createElement(tag), props), children);
}

export function s(tag, props, ...children) {
  return append(attrs(document.createElementNS(SVG, tag), props), children);
}

// Every href the inspector makes is an in-page route: "#/page?query". Anything else is refused,
// so no stored value can ever become a javascript: or off-site link.
export function route(value) {
  const text = String(value);
  if (!text.startsWith("#/")) throw new Error("refusing a non-route link");
  return text;
}

export function link(page, params, ...children) {
  return h("a", { href: `#/${page}${query(params)}` }, ...children);
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== null && v !== undefined && v !== "" && v !== false) q.set(k, String(v));
  }
  const text = q.toString();
  return text ? `?${text}` : "";
}

export class ApiError extends Error {}

export async function api(path, params) {
  const response = await fetch(`/api/${path}${query(params)}`, { credentials: "same-origin" });
  const body = await response.json();
  if (!response.ok) throw new ApiError(body.error || response.statusText);
  return body;
}

export function when(iso) {
  if (!iso) return "";
  return iso.replace("T", " ").replace(/\.\d+/, "").replace("+00:00", "Z");
}

export function num(value, digits = 4) {
  return typeof value === "number" ? value.toFixed(digits) : "";
}

export function checkboxes(name, values, picked) {
  return h("fieldset", {}, h("legend", {}, name.replace("_", " ")),
    values.map((v) => h("label", {}, h("input", {
      type: "checkbox", name, value: v, checked: picked.includes(v) }), ` ${v}`)));
}

export function picked(form, name) {
  return [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((i) => i.value);
}

export function error(main, e) {
  main.replaceChildren(h("p", { class: "error" }, String(e.message || e)));
}
