// magpie cockpit: small progressive enhancements. Every page can be read without this file;
// forms that change something need it, for the form key (see src/web/csrf.rs):
// - Form key: the page that answers a login (data-form-key on <body>) keeps the session's key
//   in this origin's localStorage (never in a cookie: cookies reach every port of the host) and
//   goes on to data-next; every form's empty "csrf" field gets the key when it is submitted.
// - Live figures: an element with data-events="URL" follows that server-sent event stream;
//   elements with data-stat="path.in.json" inside the page show the latest `stats` event.
// - Live panels: the content of an element with data-refresh="URL" is replaced by that
//   server-rendered (and so server-escaped) HTML fragment at most every PANEL_MS while stats
//   events arrive.
// - Lifecycle: [data-state] badges show the crawl's outcome (label, reason in
//   [data-outcome-reason]); forms with data-states="running paused" show only in those states,
//   elements with data-when-outcome="KIND" only for that outcome.
// - Spec upload: a file chosen in #spec-file is read into the #spec-json text area.
"use strict";

function pick(obj, path) {
  return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

function format(value, kind) {
  if (value === undefined || value === null) return "–";
  const n = Number(value);
  switch (kind) {
    case "bytes": {
      const units = ["B", "KiB", "MiB", "GiB", "TiB"];
      let v = Math.max(n, 0), i = 0;
      while (v >= 1024 && i + 1 < units.length) { v /= 1024; i++; }
      return i === 0 ? v.toFixed(0) + " B" : v.toFixed(1) + " " + units[i];
    }
    case "rate": return n.toFixed(2);
    case "rate3": return n.toFixed(3);
    case "pct": return (n * 100).toFixed(1) + " %";
    case "int": return Math.round(n).toLocaleString("en");
    default: return String(value);
  }
}

// The relevance chart's geometry, as in src/web/pages/chart.rs.
const CHART = { w: 640, h: 240, left: 40, right: 10, top: 10, bottom: 30 };

function drawChart(series) {
  const rel = document.getElementById("line-relevance");
  const hr = document.getElementById("line-harvest");
  if (!rel || !hr) return;
  const xMax = Math.max(100, ...series.map((p) => p.pages));
  const x = (pages) => CHART.left + (pages / xMax) * (CHART.w - CHART.left - CHART.right);
  const y = (v) => CHART.h - CHART.bottom - Math.min(Math.max(v, 0), 1) * (CHART.h - CHART.top - CHART.bottom);
  // From the first point measured, not from the origin (nothing was measured there).
  const line = (key) => series.map((p) => x(p.pages).toFixed(1) + "," + y(p[key]).toFixed(1)).join(" ");
  rel.setAttribute("points", line("avg_relevance"));
  hr.setAttribute("points", line("harvest_ratio"));
  const marks = document.getElementById("chart-marks");
  if (marks) {
    const ns = "http://www.w3.org/2000/svg";
    const dots = [];
    series.forEach((p) => {
      [["avg_relevance", "#0550ae"], ["harvest_ratio", "#bc4c00"]].forEach(([key, color]) => {
        const c = document.createElementNS(ns, "circle");
        c.setAttribute("cx", x(p.pages).toFixed(1));
        c.setAttribute("cy", y(p[key]).toFixed(1));
        c.setAttribute("r", "3");
        c.setAttribute("fill", color);
        dots.push(c);
      });
    });
    marks.replaceChildren(...dots);
  }
  const empty = document.getElementById("chart-empty");
  if (empty) empty.hidden = series.length > 0;
  const label = document.getElementById("chart-xmax");
  if (label) label.textContent = xMax + " pages";
}

const PANEL_MS = 2000;

// Re-renders the live panels from the server, one request at a time.
function refresher() {
  const el = document.querySelector("[data-refresh]");
  if (!el) return () => {};
  let lastAt = performance.now(), busy = false;
  return () => {
    const now = performance.now();
    if (busy || now - lastAt < PANEL_MS) return;
    busy = true;
    lastAt = now;
    fetch(el.dataset.refresh, { credentials: "same-origin" })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
      .then((html) => {
        // Parsed into an inert document (nothing in it runs), then moved in node by node.
        const doc = new DOMParser().parseFromString(html, "text/html");
        el.replaceChildren(...doc.body.childNodes);
        el.dataset.updates = String(Number(el.dataset.updates || "0") + 1);
      })
      .catch(() => { el.dataset.refreshError = "1"; })
      .finally(() => { busy = false; });
  };
}

function follow(root) {
  const source = new EventSource(root.dataset.events);
  let last = null;
  const log = document.getElementById("events");
  const refreshPanels = refresher();
  source.addEventListener("stats", (ev) => {
    let view;
    try { view = JSON.parse(ev.data); } catch (_) { return; }
    const now = performance.now();
    if (last) {
      const dt = (now - last.at) / 1000;
      if (dt > 0) {
        view.live = {
          bytes_per_second: (view.stats.bytes_received - last.bytes) / dt,
          pages_per_second: (view.stats.pages_fetched - last.pages) / dt,
        };
      }
    }
    last = { at: now, bytes: view.stats.bytes_received, pages: view.stats.pages_fetched };
    document.querySelectorAll("[data-stat]").forEach((el) => {
      const v = pick(view, el.dataset.stat);
      if (v !== undefined) el.textContent = format(v, el.dataset.fmt);
    });
    const outcome = view.outcome || { kind: view.state, label: view.state, reason: "" };
    document.querySelectorAll("[data-state]").forEach((el) => {
      el.textContent = outcome.label;
      el.className = "state state-" + outcome.kind;
      el.dataset.state = view.state;
      el.dataset.outcome = outcome.kind;
    });
    document.querySelectorAll("[data-outcome-reason]").forEach((el) => {
      el.textContent = view.state === "running" || view.state === "created" ? "" : outcome.reason;
    });
    document.querySelectorAll("[data-when-outcome]").forEach((el) => {
      el.hidden = el.dataset.whenOutcome !== outcome.kind;
    });
    // The lifecycle buttons follow the state: each shows only in the states it applies to.
    document.querySelectorAll("form[data-states]").forEach((form) => {
      form.hidden = !form.dataset.states.split(" ").includes(view.state);
    });
    if (view.focus) drawChart(view.focus.series || []);
    refreshPanels();
    root.dataset.liveState = view.state;
    root.dataset.updates = String(Number(root.dataset.updates || "0") + 1);
  });
  const note = (ev) => {
    if (!log) return;
    const li = document.createElement("li");
    let detail = ev.data;
    let at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    try {
      const data = JSON.parse(ev.data);
      detail = data.detail || detail;
      at = data.at || at;
    } catch (_) { /* keep the raw text */ }
    // As the server renders the events it kept: the time, the kind, the detail.
    const time = document.createElement("time");
    time.dateTime = at;
    time.textContent = at;
    li.dataset.kind = ev.type;
    li.append(time, " " + ev.type + ": " + detail);
    log.prepend(li);
    while (log.children.length > 100) log.lastElementChild.remove();
  };
  ["host-blocked", "host-refused", "crawl-started", "crawl-paused", "crawl-resumed",
    "crawl-finished", "crawl-stopped", "run-again", "pattern-blocked", "pattern-unblocked",
    "fetching-paused", "fetching-resumed", "weights-learned", "lagged"]
    .forEach((kind) => source.addEventListener(kind, note));
  source.onerror = () => { root.dataset.liveError = "1"; };
}

function specUpload() {
  const input = document.getElementById("spec-file");
  const area = document.getElementById("spec-json");
  if (!input || !area) return;
  input.hidden = false;
  input.addEventListener("change", () => {
    const file = input.files && input.files[0];
    if (!file) return;
    file.text().then((text) => { area.value = text; });
  });
}

const FORM_KEY = "magpie-form-key";

// Keeps the key a login answered with, then goes where the operator was going.
function keepFormKey() {
  const body = document.body;
  if (!body || !body.dataset.formKey) return false;
  try { localStorage.setItem(FORM_KEY, body.dataset.formKey); } catch (_) { return false; }
  body.removeAttribute("data-form-key");
  const next = body.dataset.next || "/";
  // Only a path of this origin (the server checked it too).
  location.replace(next.startsWith("/") && !next.startsWith("//") ? next : "/");
  return true;
}

// Gives every form posted the session's key, unless it carries a token of its own (login). A
// form that also reads with GET (the export form's Preview) gets the field only when it posts,
// so the key never goes into an address.
document.addEventListener("submit", (ev) => {
  const form = ev.target;
  if (!form.querySelector) return;
  const method = ((ev.submitter && ev.submitter.getAttribute("formmethod")) || form.method || "get").toLowerCase();
  if (method !== "post") return;
  let field = form.querySelector('input[name="csrf"]');
  if (!field) {
    field = document.createElement("input");
    field.type = "hidden";
    field.name = "csrf";
    form.appendChild(field);
  }
  if (!field.value) {
    try { field.value = localStorage.getItem(FORM_KEY) || ""; } catch (_) { /* refused, said by the server */ }
  }
}, true);

document.addEventListener("DOMContentLoaded", () => {
  if (keepFormKey()) return;
  document.querySelectorAll("[data-events]").forEach(follow);
  specUpload();
});
