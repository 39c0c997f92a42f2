// OpenKeel Designate console: plain JavaScript over the public REST API only (no build step).
// Authentication is the API's own: noauth headers (X-Auth-Project-ID, X-Roles) or a Keystone
// token (X-Auth-Token), kept in sessionStorage for this tab.
"use strict";

const TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "SRV", "NS", "PTR", "CAA", "SSHFP", "NAPTR",
               "TLSA", "CERT", "SPF", "HTTPS", "SVCB", "SOA"];
const $ = (selector) => document.querySelector(selector);
const state = { zone: null, timings: JSON.parse(sessionStorage.getItem("okd-timings") || "{}") };

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
  // Every reason the API gave (Designate lists schema errors under errors.errors).
  details() {
    const lines = [`${this.message}${this.body.type ? ` (${this.body.type})` : ""}`];
    const nested = (this.body.errors && this.body.errors.errors) || [];
    for (const e of nested) {
      lines.push(`${(e.path || []).join(".") || "body"}: ${e.message}`);
    }
    return lines.join("\n");
  }
}

function auth() {
  return JSON.parse(sessionStorage.getItem("okd-auth") ||
                    '{"mode":"noauth","project":"","roles":"member,reader","token":""}');
}

function authHeaders() {
  const a = auth();
  if (a.mode === "keystone") return { "X-Auth-Token": a.token };
  const headers = { "X-Roles": a.roles || "member,reader" };
  if (a.project) headers["X-Auth-Project-ID"] = a.project;
  return headers;
}

async function api(method, path, body, options = {}) {
  const headers = { Accept: options.accept || "application/json", ...authHeaders() };
  let payload;
  if (body !== undefined) {
    headers["Content-Type"] = options.contentType || "application/json";
    payload = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload });
  const text = await response.text();
  const isJson = (response.headers.get("content-type") || "").includes("json");
  const data = isJson && text ? JSON.parse(text) : text;
  if (!response.ok) throw new ApiError(response.status, isJson ? data : { message: text });
  return data;
}

function say(text) {
  $("#message").textContent = text;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { $("#message").textContent = ""; }, 4000);
}

// Run a form action; the API's refusal is shown next to the form, never lost.
async function guarded(errorBox, action) {
  $(errorBox).textContent = "";
  try {
    await action();
  } catch (err) {
    $(errorBox).textContent = err instanceof ApiError ? err.details() : String(err);
  }
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (className) td.className = className;
  return td;
}

function badge(row, status) {
  const td = row.insertCell();
  const span = document.createElement("span");
  span.className = `badge ${status}`;
  span.textContent = status;
  td.appendChild(span);
}

function button(parent, label, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.addEventListener("click", onClick);
  parent.appendChild(b);
  return b;
}

function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

// --- zones -----------------------------------------------------------------------------------
async function loadZones() {
  const body = await api("GET", "/v2/zones?limit=1000");
  const tbody = $("#zone-list tbody");
  tbody.replaceChildren();
  for (const zone of body.zones) {
    const row = tbody.insertRow();
    row.dataset.zoneId = zone.id;
    if (state.zone && state.zone.id === zone.id) row.className = "selected";
    const name = cell(row, "");
    const link = document.createElement("a");
    link.href = `#${zone.id}`;
    link.textContent = zone.name;
    link.addEventListener("click", (event) => { event.preventDefault(); openZone(zone.id); });
    name.appendChild(link);
    badge(row, zone.status);
    cell(row, zone.action);
    cell(row, zone.serial);
    button(row.insertCell(), "Delete", () => deleteZone(zone));
  }
}

async function deleteZone(zone) {
  if (!confirm(`Delete ${zone.name}?`)) return;
  try {
    await api("DELETE", `/v2/zones/${zone.id}`);
    say(`deleting ${zone.name}`);
    if (state.zone && state.zone.id === zone.id) {
      state.zone = null;
      $("#zone-section").hidden = true;
    }
  } catch (err) {
    say(err instanceof ApiError ? err.details() : String(err));
  }
  await loadZones();
}

async function createZone(event) {
  event.preventDefault();
  await guarded("#zone-form-error", async () => {
    const values = formValues(event.target);
    const body = { name: values.name, email: values.email };
    if (values.ttl) body.ttl = Number(values.ttl);
    const zone = await api("POST", "/v2/zones", body);
    event.target.reset();
    say(`zone ${zone.name} created`);
    await loadZones();
    await openZone(zone.id);
    timeChange(zone.id, `create ${zone.name}`);
  });
}

// --- one zone --------------------------------------------------------------------------------
async function openZone(zoneId) {
  const zone = await api("GET", `/v2/zones/${zoneId}`);
  state.zone = zone;
  $("#zone-section").hidden = false;
  $("#zone-name").textContent = zone.name;
  $("#zone-status").textContent = zone.status;
  $("#zone-status").className = `badge ${zone.status}`;
  $("#zone-summary").textContent = `serial ${zone.serial} · ttl ${zone.ttl} · ${zone.email}` +
    ` · pool ${zone.pool_id} · id ${zone.id}`;
  $("#export-text").textContent = "";
  for (const row of document.querySelectorAll("#zone-list tbody tr")) {
    row.className = row.dataset.zoneId === zoneId ? "selected" : "";
  }
  await Promise.all([loadPropagation(), loadRecordsets(), loadShares(), loadTransfers(),
                     loadHistory()]);
  drawChart();
}

async function loadPropagation() {
  const view = await api("GET", `/v2/zones/${state.zone.id}/propagation`);
  const inSync = view.nameservers.filter((n) => n.status === "IN_SYNC").length;
  $("#propagation-summary").textContent =
    `wanted serial ${view.wanted_serial}: served by ${view.served_by} ` +
    `(${inSync} of ${view.nameservers.length} nameservers in sync)`;
  const tbody = $("#propagation tbody");
  tbody.replaceChildren();
  for (const ns of view.nameservers) {
    const row = tbody.insertRow();
    cell(row, `${ns.host}:${ns.port}`);
    cell(row, ns.serial);
    badge(row, ns.status);
    cell(row, ns.since);
    // An error seen before the server caught up is history, not a current problem.
    const earlier = ns.status === "IN_SYNC" && ns.last_error;
    cell(row, earlier ? `earlier: ${ns.last_error}` : ns.last_error, earlier ? "hint" : "");
  }
  const targets = $("#targets tbody");
  targets.replaceChildren();
  for (const t of view.targets) {
    const row = targets.insertRow();
    cell(row, `${t.type} ${t.host}:${t.port}`);
    badge(row, t.status);
    cell(row, t.since);
    cell(row, t.last_error);
  }
}

async function loadRecordsets() {
  const body = await api("GET", `/v2/zones/${state.zone.id}/recordsets?limit=1000`);
  const tbody = $("#recordsets tbody");
  tbody.replaceChildren();
  for (const rs of body.recordsets) {
    const row = tbody.insertRow();
    row.dataset.recordsetId = rs.id;
    cell(row, rs.name);
    cell(row, rs.type);
    cell(row, rs.ttl);
    cell(row, rs.records.join("\n"), "records");
    badge(row, rs.status);
    const actions = row.insertCell();
    button(actions, "Edit", () => editRecordset(rs));
    button(actions, "Delete", () => deleteRecordset(rs));
  }
}

function editRecordset(rs) {
  const form = $("#recordset-form");
  form.elements.id.value = rs.id;
  form.elements.name.value = rs.name;
  form.elements.name.disabled = true;
  form.elements.type.value = rs.type;
  form.elements.type.disabled = true;
  form.elements.ttl.value = rs.ttl === null ? "" : rs.ttl;
  form.elements.records.value = rs.records.join("\n");
  $("#recordset-submit").textContent = "Save recordset";
  $("#recordset-cancel").hidden = false;
}

function resetRecordsetForm() {
  const form = $("#recordset-form");
  form.reset();
  form.elements.id.value = "";
  form.elements.name.disabled = false;
  form.elements.type.disabled = false;
  $("#recordset-submit").textContent = "Create recordset";
  $("#recordset-cancel").hidden = true;
}

async function saveRecordset(event) {
  event.preventDefault();
  const form = event.target;
  await guarded("#recordset-form-error", async () => {
    const records = form.elements.records.value.split("\n").map((r) => r.trim())
      .filter((r) => r);
    const body = { records };
    const ttl = form.elements.ttl.value.trim();
    if (ttl) body.ttl = Number.isNaN(Number(ttl)) ? ttl : Number(ttl);
    const id = form.elements.id.value;
    const base = `/v2/zones/${state.zone.id}/recordsets`;
    if (id) {
      await api("PUT", `${base}/${id}`, body);
    } else {
      body.name = form.elements.name.value.trim();
      body.type = form.elements.type.value;
      await api("POST", base, body);
    }
    say(id ? "recordset updated" : "recordset created");
    resetRecordsetForm();
    await loadRecordsets();
    timeChange(state.zone.id, id ? "update recordset" : `create ${body.type}`);
  });
}

async function deleteRecordset(rs) {
  await guarded("#recordset-form-error", async () => {
    await api("DELETE", `/v2/zones/${state.zone.id}/recordsets/${rs.id}`);
    say(`deleting ${rs.name} ${rs.type}`);
    await loadRecordsets();
    timeChange(state.zone.id, `delete ${rs.type}`);
  });
}

// --- propagation times -----------------------------------------------------------------------
// After a change: poll the zone until ACTIVE (served) and chart how long that took.
async function timeChange(zoneId, label) {
  const started = performance.now();
  for (let i = 0; i < 600; i++) {
    const zone = await api("GET", `/v2/zones/${zoneId}`);
    if (zone.status !== "PENDING") {
      const seconds = (performance.now() - started) / 1000;
      const list = state.timings[zoneId] || [];
      list.push({ label, seconds, status: zone.status });
      state.timings[zoneId] = list.slice(-20);
      sessionStorage.setItem("okd-timings", JSON.stringify(state.timings));
      if (state.zone && state.zone.id === zoneId) {
        await openZone(zoneId);
      }
      await loadZones();
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function drawChart() {
  const svg = $("#chart");
  svg.replaceChildren();
  const ns = "http://www.w3.org/2000/svg";
  const list = (state.zone && state.timings[state.zone.id]) || [];
  const width = Number(svg.getAttribute("width"));
  const height = Number(svg.getAttribute("height"));
  const max = Math.max(0.05, ...list.map((t) => t.seconds));
  const barWidth = Math.min(40, (width - 20) / Math.max(1, list.length));
  list.forEach((t, i) => {
    const h = Math.max(2, (t.seconds / max) * (height - 30));
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", 10 + i * barWidth);
    rect.setAttribute("y", height - 15 - h);
    rect.setAttribute("width", barWidth - 4);
    rect.setAttribute("height", h);
    rect.setAttribute("fill", t.status === "ACTIVE" ? "#2f7d4a" : "#a4161a");
    rect.setAttribute("class", "bar");
    const title = document.createElementNS(ns, "title");
    title.textContent = `${t.label}: ${(t.seconds * 1000).toFixed(0)} ms`;
    rect.appendChild(title);
    svg.appendChild(rect);
  });
  const caption = document.createElementNS(ns, "text");
  caption.setAttribute("x", 10);
  caption.setAttribute("y", height - 2);
  caption.setAttribute("font-size", "11");
  caption.textContent = list.length
    ? `${list.length} change(s), longest ${(max * 1000).toFixed(0)} ms`
    : "no change made from this console yet";
  svg.appendChild(caption);
}

// --- import and export -----------------------------------------------------------------------
async function waitTask(path) {
  for (let i = 0; i < 300; i++) {
    const task = await api("GET", path);
    if (task.status !== "PENDING") return task;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the task did not finish");
}

async function importZone(event) {
  event.preventDefault();
  await guarded("#import-form-error", async () => {
    const text = event.target.elements.zonefile.value;
    const task = await api("POST", "/v2/zones/tasks/imports", text, { contentType: "text/dns" });
    const done = await waitTask(`/v2/zones/tasks/imports/${task.id}`);
    if (done.status !== "COMPLETE") throw new Error(`import ${done.status}: ${done.message}`);
    $("#import-result").textContent = `imported: ${done.message}`;
    event.target.reset();
    await loadZones();
    await openZone(done.zone_id);
  });
}

async function exportZone() {
  $("#export-text").textContent = "";
  try {
    const task = await api("POST", `/v2/zones/${state.zone.id}/tasks/export`, {});
    const done = await waitTask(`/v2/zones/tasks/exports/${task.id}`);
    if (done.status !== "COMPLETE") throw new Error(`export ${done.status}: ${done.message}`);
    $("#export-text").textContent = await api(
      "GET", `/v2/zones/tasks/exports/${task.id}/export`, undefined, { accept: "text/dns" });
  } catch (err) {
    $("#export-text").textContent = err instanceof ApiError ? err.details() : String(err);
  }
}

// --- shares and transfers --------------------------------------------------------------------
async function loadShares() {
  const tbody = $("#shares tbody");
  tbody.replaceChildren();
  const body = await api("GET", `/v2/zones/${state.zone.id}/shares`);
  for (const share of body.shared_zones) {
    const row = tbody.insertRow();
    cell(row, share.target_project_id);
    cell(row, share.created_at);
    button(row.insertCell(), "Unshare", () => guarded("#share-form-error", async () => {
      await api("DELETE", `/v2/zones/${state.zone.id}/shares/${share.id}`);
      await loadShares();
    }));
  }
}

async function shareZone(event) {
  event.preventDefault();
  await guarded("#share-form-error", async () => {
    await api("POST", `/v2/zones/${state.zone.id}/shares`, formValues(event.target));
    event.target.reset();
    await loadShares();
  });
}

async function loadTransfers() {
  const tbody = $("#transfers tbody");
  tbody.replaceChildren();
  const body = await api("GET", "/v2/zones/tasks/transfer_requests");
  for (const t of body.transfer_requests.filter((r) => r.zone_id === state.zone.id)) {
    const row = tbody.insertRow();
    cell(row, t.id);
    cell(row, t.key);
    cell(row, t.target_project_id || "any project");
    badge(row, t.status);
    button(row.insertCell(), "Cancel", () => guarded("#transfer-form-error", async () => {
      await api("DELETE", `/v2/zones/tasks/transfer_requests/${t.id}`);
      await loadTransfers();
    }));
  }
}

async function offerTransfer(event) {
  event.preventDefault();
  await guarded("#transfer-form-error", async () => {
    const values = formValues(event.target);
    const body = values.target_project_id ? { target_project_id: values.target_project_id } : {};
    await api("POST", `/v2/zones/${state.zone.id}/tasks/transfer_requests`, body);
    event.target.reset();
    await loadTransfers();
  });
}

async function acceptTransfer(event) {
  event.preventDefault();
  await guarded("#accept-form-error", async () => {
    const values = formValues(event.target);
    await api("POST", "/v2/zones/tasks/transfer_accepts",
              { zone_transfer_request_id: values.id, key: values.key });
    event.target.reset();
    say("transfer accepted");
    await loadZones();
  });
}

// --- history ---------------------------------------------------------------------------------
async function loadHistory() {
  const body = await api("GET", `/v2/zones/${state.zone.id}/history`);
  const list = $("#history");
  list.replaceChildren();
  for (const change of body.changes) {
    const item = document.createElement("li");
    const parts = [`serial ${change.serial} at ${change.created_at}`];
    if (change.from_serial === null) parts.push("(zone published)");
    for (const r of change.added) parts.push(`+ ${r.name} ${r.ttl} ${r.type} ${r.data}`);
    for (const r of change.removed) parts.push(`- ${r.name} ${r.ttl} ${r.type} ${r.data}`);
    item.textContent = parts.join("\n");
    list.appendChild(item);
  }
}

// --- start -----------------------------------------------------------------------------------
function showAuth() {
  const a = auth();
  $("#auth-mode").value = a.mode;
  $("#auth-project").value = a.project;
  $("#auth-roles").value = a.roles;
  $("#auth-token").value = a.token;
  const keystone = a.mode === "keystone";
  $("#auth-token").hidden = !keystone;
  $("#auth-project").hidden = keystone;
  $("#auth-roles").hidden = keystone;
}

async function saveAuth(event) {
  event.preventDefault();
  sessionStorage.setItem("okd-auth", JSON.stringify({
    mode: $("#auth-mode").value, project: $("#auth-project").value.trim(),
    roles: $("#auth-roles").value.trim(), token: $("#auth-token").value.trim() }));
  showAuth();
  state.zone = null;
  $("#zone-section").hidden = true;
  await loadZones().catch((err) => say(err.message));
}

function start() {
  const select = $("#recordset-form").elements.type;
  for (const type of TYPES) select.add(new Option(type, type));
  showAuth();
  $("#auth-mode").addEventListener("change", () => {
    $("#auth-token").hidden = $("#auth-mode").value !== "keystone";
    $("#auth-project").hidden = !$("#auth-token").hidden;
    $("#auth-roles").hidden = !$("#auth-token").hidden;
  });
  $("#auth-form").addEventListener("submit", saveAuth);
  $("#zone-form").addEventListener("submit", createZone);
  $("#recordset-form").addEventListener("submit", saveRecordset);
  $("#recordset-cancel").addEventListener("click", resetRecordsetForm);
  $("#import-form").addEventListener("submit", importZone);
  $("#accept-form").addEventListener("submit", acceptTransfer);
  $("#share-form").addEventListener("submit", shareZone);
  $("#transfer-form").addEventListener("submit", offerTransfer);
  $("#export-button").addEventListener("click", exportZone);
  $("#propagation-refresh").addEventListener("click", () => loadPropagation());
  loadZones().catch((err) => say(err.message));
}

start();
