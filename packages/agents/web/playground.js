// The playground page (served as /app.js by `agents playground`, bundled by scripts/bundle.mjs).
// No framework: the server sends the graph's data; this script lays it out with the CLI's own
// layout (cli/graph/render.ts, bundled here), groups large kinds, paints the plan on it, and runs
// the inspector, the plan, chat and findings panels, the splitters and the tabs.
import { layoutGraph, svg } from "../src/cli/graph/render.ts";
import { nodeLabel } from "../src/cli/graph/types.ts";

/** A kind with more resources than this on one provider is drawn as one node until expanded. */
const GROUP_LIMIT = 12;
const MARKS = { create: "+", update: "~", replace: "±", delete: "−", adopt: "⇐", read: "·", noop: "" };
const VERBS = {
  create: "will be created",
  update: "will be updated in place",
  replace: "will be replaced",
  delete: "will be deleted",
  adopt: "will be adopted",
  read: "will be read",
  noop: "no change",
};
/** A group's status: the strongest of its members'. */
const STRENGTH = ["noop", "read", "adopt", "create", "update", "replace", "delete"];

const $ = (id) => document.getElementById(id);
/** The last answer of /api/graph, and the last one whose file was valid (the graph drawn). */
let current = { nodes: [], edges: [], providers: [], findings: [] };
let good = current;
let statuses = new Map();
let planActions = [];
let selected;
let matches = new Set();
/** Groups (`provider:kind`) the user expanded or collapsed; the rest follow GROUP_LIMIT. */
const expanded = new Set();
const collapsed = new Set();

function text(tag, content, className) {
  const el = document.createElement(tag);
  el.textContent = content;
  if (className) el.className = className;
  return el;
}

function button(content, onClick, className) {
  const b = text("button", content, className);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// ---- Graph -----------------------------------------------------------------------------------

const groupKey = (node) => `${node.provider}:${node.kind}`;
const groupId = (provider, kind) => `${provider}.${kind}[*]`;

/** `provider_c.agents["helper"]` → its parts (for ghosts: resources the plan deletes). */
function parseAddress(address) {
  const m = /^([^.]+)\.([a-z_]+)\["(.*)"\]$/.exec(address);
  return m ? { provider: m[1], kind: m[2], name: m[3] } : undefined;
}

/** The declared nodes and, after a plan, a ghost for each resource it deletes. */
function allNodes() {
  const nodes = [...good.nodes];
  const known = new Set(nodes.map((n) => n.id));
  for (const a of planActions)
    if (a.action === "delete" && !known.has(a.address)) {
      const parts = parseAddress(a.address);
      if (parts) nodes.push({ id: a.address, ...parts, line: 0, col: 0, external: false, ghost: true });
    }
  return nodes;
}

function isCollapsed(key, size) {
  if (collapsed.has(key)) return true;
  if (expanded.has(key)) return false;
  return size > GROUP_LIMIT;
}

/** What is drawn: collapsed kinds as one node each, edges between what is drawn, once each. */
function visibleGraph() {
  const nodes = allNodes();
  const sizes = new Map();
  for (const n of nodes) sizes.set(groupKey(n), (sizes.get(groupKey(n)) ?? 0) + 1);
  const drawn = new Map();
  const target = new Map();
  for (const n of nodes) {
    const key = groupKey(n);
    if (isCollapsed(key, sizes.get(key))) {
      const id = groupId(n.provider, n.kind);
      target.set(n.id, id);
      if (!drawn.has(id))
        drawn.set(id, {
          id,
          kind: n.kind,
          name: "*",
          provider: n.provider,
          line: 0,
          col: 0,
          external: false,
          count: sizes.get(key),
        });
    } else {
      target.set(n.id, n.id);
      drawn.set(n.id, n);
    }
  }
  const edges = new Map();
  for (const e of good.edges) {
    const from = target.get(e.from);
    const to = target.get(e.to);
    if (!from || !to || from === to) continue;
    edges.set(`${from}\n${to}\n${e.role}`, { from, to, role: e.role });
  }
  const providers = [...good.providers];
  for (const n of drawn.values()) if (!providers.includes(n.provider)) providers.push(n.provider);
  return { providers, nodes: [...drawn.values()], edges: [...edges.values()], total: nodes.length, sizes };
}

function membersOf(id) {
  return allNodes().filter((n) => groupId(n.provider, n.kind) === id);
}

let renders = 0;
/** "auto": the picture is scaled down to the pane's width unless that would make it unreadable. */
let sizing = "auto";

function fit() {
  const picture = $("graph").querySelector("svg");
  if (!picture) return;
  const width = Number(picture.getAttribute("width"));
  const scale = $("graph").clientWidth / width;
  const fitted = sizing === "fit" || (sizing === "auto" && scale < 1 && scale >= 0.6);
  picture.classList.toggle("fit", fitted);
  $("fit").textContent = fitted ? "Actual size" : "Fit to width";
}

function render() {
  const started = performance.now();
  const graph = visibleGraph();
  const host = $("graph");
  // The SVG is built from escaped text (cli/graph/render.ts); no script or style in it.
  host.innerHTML = graph.nodes.length ? svg(layoutGraph(graph)) : "";
  fit();
  for (const g of host.querySelectorAll("g.node")) {
    const address = g.getAttribute("data-address");
    g.addEventListener("click", () => void show(address));
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        void show(address);
      }
    });
  }
  const groups = [...graph.sizes.entries()].filter(([key, size]) => isCollapsed(key, size)).length;
  $("graph-note").textContent =
    `${graph.total} resources${groups ? `, ${groups} kind${groups === 1 ? "" : "s"} grouped (click a group to open it)` : ""}`;
  paint();
  // Measured by bench/playground.mjs: layout and drawing, up to the next paint.
  requestAnimationFrame(() => {
    document.body.setAttribute("data-render-ms", String(Math.round(performance.now() - started)));
    document.body.setAttribute("data-rendered", String(++renders));
  });
}

function statusOf(address) {
  if (!address.endsWith("[*]")) return statuses.get(address);
  let best;
  for (const m of membersOf(address)) {
    const s = statuses.get(m.id);
    if (s && (!best || STRENGTH.indexOf(s) > STRENGTH.indexOf(best))) best = s;
  }
  return best;
}

function paint() {
  for (const g of document.querySelectorAll("g.node")) {
    const address = g.getAttribute("data-address");
    const status = statusOf(address);
    g.setAttribute("data-status", status ?? "");
    const deco = g.nextElementSibling;
    deco?.setAttribute("data-status", status ?? "");
    const mark = deco?.querySelector("text.mark");
    if (mark) mark.textContent = MARKS[status] ?? "";
    const name = g.querySelector("text.name")?.textContent ?? address;
    g.setAttribute(
      "aria-label",
      status ? `${name}: ${VERBS[status] ?? status} (${address})` : `${name} (${address})`,
    );
    g.classList.toggle("selected", address === selected);
    g.classList.toggle("match", matches.has(address));
  }
}

function focusNode(address) {
  const g = document.querySelector(`g.node[data-address="${CSS.escape(address)}"]`);
  if (g) {
    g.scrollIntoView({ block: "center", inline: "center" });
    g.focus({ preventScroll: true });
  }
}

/** Makes `address` drawn (opening its group) and selects it. */
async function reveal(address) {
  const node = allNodes().find((n) => n.id === address);
  if (!node) return;
  const key = groupKey(node);
  if (!document.querySelector(`g.node[data-address="${CSS.escape(address)}"]`)) {
    collapsed.delete(key);
    expanded.add(key);
    render();
  }
  await show(address);
  focusNode(address);
}

// ---- Inspector -------------------------------------------------------------------------------

function planLines(action) {
  const lines = [];
  if (action.reason) lines.push(`# ${action.reason}`);
  const value = (v) => {
    const s = JSON.stringify(v);
    return s === undefined ? "null" : s.length > 160 ? `${s.slice(0, 157)}...` : s;
  };
  for (const c of action.changes ?? []) {
    if (c.sensitive) lines.push(`~ ${c.path}: (sensitive value)`);
    else if (c.before === undefined) lines.push(`+ ${c.path} = ${value(c.after)}`);
    else if (c.after === undefined) lines.push(`- ${c.path} = ${value(c.before)}`);
    else lines.push(`~ ${c.path}: ${value(c.before)} → ${value(c.after)}`);
  }
  return lines;
}

let shown = 0;

async function show(address) {
  selected = address;
  const details = $("details");
  details.replaceChildren();
  paint();
  if (address.endsWith("[*]")) {
    const members = membersOf(address);
    const first = members[0];
    details.append(
      text("h3", `${members.length} ${first?.kind.replace(/_/g, " ")} on ${first?.provider}`),
      button("Open this group in the graph", () => {
        if (!first) return;
        collapsed.delete(groupKey(first));
        expanded.add(groupKey(first));
        render();
      }),
    );
    const list = document.createElement("ul");
    for (const m of members) {
      const li = document.createElement("li");
      li.append(button(m.name, () => void reveal(m.id), "link"));
      list.append(li);
    }
    details.append(list);
    return;
  }
  const node = allNodes().find((n) => n.id === address);
  if (!node) return;
  const token = ++shown;
  details.append(text("h3", nodeLabel(node)), text("p", node.id, "address"));
  if (node.source) details.append(text("p", node.source, "source"));
  const action = planActions.find((a) => a.address === address);
  details.append(text("h4", "Plan"));
  if (action) {
    details.append(
      text(
        "p",
        `${MARKS[action.action] ?? ""} ${VERBS[action.action] ?? action.action}`.trim(),
        `status act-${action.action}`,
      ),
    );
    const lines = planLines(action);
    if (lines.length) details.append(text("pre", lines.join("\n"), `plan-lines act-${action.action}`));
  } else details.append(text("p", statuses.size ? "not in the plan" : "no plan yet", "status"));
  details.append(text("h4", "Declared"));
  details.append(
    node.ghost
      ? text("p", "no longer declared: the plan deletes it")
      : text("pre", JSON.stringify(node.fields, null, 2), "fields"),
  );
  details.append(text("h4", "Remote state"));
  const remote = text("p", "reading the state…", "remote");
  details.append(remote);
  try {
    const response = await fetch(`/api/resource?address=${encodeURIComponent(address)}`);
    const body = await response.json();
    if (token !== shown) return;
    if (body.state) {
      const { id, external, version, updatedAt, spec, extra } = body.state;
      remote.replaceWith(
        text(
          "pre",
          JSON.stringify(
            {
              id,
              external,
              version,
              updatedAt,
              applied: spec,
              ...(Object.keys(extra ?? {}).length ? { extra } : {}),
            },
            null,
            2,
          ),
          "remote",
        ),
      );
    } else remote.textContent = body.error ?? "not applied yet (not in the state)";
    if (node.kind === "agents") {
      details.append(text("h4", "Sessions"));
      if (body.error && body.state) details.append(text("p", body.error, "refused"));
      else if (!body.sessions?.length) details.append(text("p", "no session"));
      else {
        const list = document.createElement("ul");
        list.className = "sessions";
        for (const s of body.sessions)
          list.append(
            text(
              "li",
              `${s.id} ${s.status ?? ""}${s.title ? ` “${s.title}”` : ""}${s.created_at ? ` ${s.created_at}` : ""}`,
            ),
          );
        details.append(list);
      }
    }
  } catch (error) {
    remote.textContent = error.message;
  }
}

// ---- Findings --------------------------------------------------------------------------------

function showFindings(findings) {
  const list = $("findings");
  list.replaceChildren();
  for (const f of findings) {
    const li = document.createElement("li");
    li.className = f.severity;
    const head = button(
      `${f.at} ${f.severity} ${f.code} ${f.message}`,
      () => {
        if (f.node) void reveal(f.node);
      },
      "finding-head",
    );
    if (!f.node) head.disabled = true;
    else head.title = `show ${f.node} in the graph`;
    li.append(head);
    if (f.lineText?.trim()) {
      const gutter = String(f.line);
      const frame = document.createElement("pre");
      frame.className = "frame";
      const indent = f.lineText.slice(0, Math.max(0, f.col - 1)).replace(/[^\t]/g, " ");
      frame.append(
        `${gutter} | ${f.lineText}\n${" ".repeat(gutter.length)} | ${indent}`,
        text("span", "^", "caret"),
      );
      li.append(frame);
    }
    if (f.hint) li.append(text("p", `hint: ${f.hint}`, "hint"));
    list.append(li);
  }
  if (findings.length === 0) list.append(text("li", "no findings", "none"));
  const errors = findings.filter((f) => f.severity === "error").length;
  $("finding-count").textContent = findings.length ? `(${findings.length})` : "";
  return errors;
}

async function load() {
  const response = await fetch("/api/graph");
  if (!response.ok) return;
  current = await response.json();
  $("file").textContent = current.file;
  const errors = showFindings(current.findings);
  if (errors === 0 && current.valid) good = current;
  $("graph").classList.toggle("dimmed", errors > 0);
  render();
  if (errors > 0)
    $("graph-note").textContent =
      `agents.yaml has ${errors} error${errors === 1 ? "" : "s"} (see Findings): the graph is the last valid one`;
  $("names").replaceChildren(
    ...good.nodes.slice(0, 1000).map((n) => {
      const o = document.createElement("option");
      o.value = n.name;
      return o;
    }),
  );
  if (selected && allNodes().some((n) => n.id === selected)) void show(selected);
  document.body.setAttribute("data-loaded", String(Date.now()));
}

function search() {
  const q = $("search").value.trim().toLowerCase();
  matches = new Set();
  if (!q) return paint();
  const found = allNodes().filter((n) => n.name.toLowerCase().includes(q) || n.id.toLowerCase().includes(q));
  found.sort((a, b) => (a.name.toLowerCase() === q ? -1 : 0) - (b.name.toLowerCase() === q ? -1 : 0));
  for (const n of found) matches.add(n.id);
  $("status").textContent = found.length ? `${found.length} found` : `no resource named like “${q}”`;
  if (found[0]) void reveal(found[0].id);
  else paint();
}

// ---- Plan and apply --------------------------------------------------------------------------

/** POSTs JSON to the server and reads the answer's JSON lines as they arrive. */
async function streamLines(path, body, onLine) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) {
    const answer = await response.json().catch(() => ({}));
    throw new Error(answer.error ?? `${response.status} ${response.statusText}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n");
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line.trim()) onLine(JSON.parse(line));
      end = buffer.indexOf("\n");
    }
  }
}

async function postJson(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error ?? `${response.status} ${response.statusText}`);
  return answer;
}

function showPlan(actions) {
  const counts = {};
  for (const a of actions) counts[a.action] = (counts[a.action] ?? 0) + 1;
  const parts = ["create", "update", "replace", "delete", "adopt", "read"]
    .filter((k) => counts[k])
    .map((k) => `${counts[k]} to ${k}`);
  $("plan-summary").textContent = parts.length
    ? `Plan: ${parts.join(", ")}${counts.noop ? `; ${counts.noop} unchanged` : ""}.`
    : `No changes: ${counts.noop ?? 0} resources match the configuration.`;
  const list = $("plan-list");
  list.replaceChildren();
  for (const a of actions) {
    if (a.action === "noop") continue;
    const item = document.createElement("details");
    item.open = true;
    item.setAttribute("data-address", a.address);
    item.setAttribute("data-action", a.action);
    const summary = text(
      "summary",
      `${MARKS[a.action] ?? ""} ${a.address} ${VERBS[a.action] ?? a.action}`,
      `act-${a.action}`,
    );
    item.append(summary);
    for (const line of planLines(a)) item.append(text("p", line, `plan-line act-${a.action}`));
    item.append(button("Show in the graph", () => void reveal(a.address), "show"));
    list.append(item);
  }
}

let planId;

function markStale(stale) {
  $("plan-stale").hidden = !stale;
  if (stale) $("panel-plan").setAttribute("data-stale", "");
  else $("panel-plan").removeAttribute("data-stale");
}

async function runPlan() {
  $("status").textContent = "planning…";
  $("plan").disabled = true;
  $("apply-run").hidden = true;
  planId = undefined;
  selectTab("tab-plan");
  try {
    const response = await fetch("/api/plan", { method: "POST" });
    const body = await response.json();
    if (!response.ok) {
      $("status").textContent = "plan failed";
      $("plan-summary").textContent = "The plan failed:";
      $("plan-list").replaceChildren(text("pre", body.error, "refused"));
      return;
    }
    planActions = body.actions;
    statuses = new Map(body.actions.map((a) => [a.address, a.action]));
    markStale(false);
    showPlan(body.actions);
    $("plan-text").textContent = body.text;
    if (body.allowApply && body.changes) {
      planId = body.id;
      $("apply").textContent = `Apply this plan from the page, or from a terminal: ${body.command}`;
      $("apply-run").hidden = false;
    } else if (body.changes) $("apply").textContent = `Apply from a terminal: ${body.command}`;
    else $("apply").textContent = "Nothing to apply.";
    $("status").textContent = "planned";
    render();
    if (selected) void show(selected);
  } finally {
    $("plan").disabled = false;
  }
}

async function runApply() {
  if (!planId) return;
  const log = $("apply-log");
  log.hidden = false;
  log.textContent = "";
  $("apply-run").disabled = true;
  $("plan").disabled = true;
  $("status").textContent = "applying…";
  let outcome = "apply failed";
  try {
    await streamLines("/api/apply", { plan: planId }, (line) => {
      if (line.type === "line") log.textContent += `${line.text}\n`;
      if (line.type === "error") log.textContent += `Refused: ${line.error}\n`;
      if (line.type === "done") outcome = line.ok ? "applied" : "apply incomplete";
    });
  } catch (error) {
    log.textContent += `Refused: ${error.message}\n`;
  } finally {
    $("status").textContent = outcome;
    $("apply-run").hidden = true;
    $("apply-run").disabled = false;
    $("plan").disabled = false;
    planId = undefined;
  }
  if (outcome !== "apply failed") {
    await runPlan();
    await loadAgents();
  }
}

// ---- Chat ------------------------------------------------------------------------------------

let session;
/** Sessions started from this page: id → { agent, box (its transcript) }. */
const sessions = new Map();
const replies = new Map();
const calls = new Map();

const box = () => sessions.get(session)?.box ?? $("transcript");

function say(className, content) {
  const el = text("div", content, `msg ${className}`);
  box().append(el);
  el.scrollIntoView({ block: "end" });
  return el;
}

/** A tool call or result, folded to one line; its input or output below. */
function fold(className, head, body) {
  const el = document.createElement("details");
  el.className = `msg ${className}`;
  el.append(text("summary", head), text("pre", body));
  box().append(el);
  el.scrollIntoView({ block: "end" });
  return el;
}

function askConfirmation(id) {
  const call = calls.get(id);
  const confirm = document.createElement("div");
  confirm.className = "msg confirm";
  confirm.setAttribute("data-tool", id);
  const what = call ? `${call.tool?.name ?? "a tool"} ${JSON.stringify(call.tool?.input ?? {})}` : id;
  confirm.append(text("span", `Allow ${what}? `));
  const asked = session;
  for (const answer of ["allow", "deny"]) {
    const b = button(answer === "allow" ? "Allow" : "Deny", async () => {
      for (const other of confirm.querySelectorAll("button")) other.disabled = true;
      try {
        await postJson(`/api/sessions/${asked}/confirm`, { tool_id: id, result: answer });
        confirm.replaceChildren(text("span", `${answer === "allow" ? "Allowed" : "Denied"}: ${what}`));
      } catch (error) {
        confirm.append(text("span", ` ${error.message}`, "refused"));
      }
    });
    b.setAttribute("data-answer", answer);
    confirm.append(b);
  }
  box().append(confirm);
}

function showEvent(e) {
  switch (e.type) {
    case "user_message":
      say("user", `you: ${e.text ?? ""}`);
      return;
    case "text_delta": {
      let el = replies.get(e.id);
      if (!el) {
        el = say("reply", "");
        el.setAttribute("data-id", e.id);
        el.setAttribute("data-deltas", "0");
        replies.set(e.id, el);
      }
      el.textContent += e.text ?? "";
      el.setAttribute("data-deltas", String(Number(el.getAttribute("data-deltas")) + 1));
      return;
    }
    case "text": {
      const el = replies.get(e.id) ?? say("reply", "");
      el.textContent = e.text ?? "";
      el.setAttribute("data-id", e.id);
      el.setAttribute("data-final", "true");
      return;
    }
    case "thinking":
      say("thinking", `thinking${e.text ? `: ${e.text}` : "…"}`);
      return;
    case "tool_call":
      if (e.tool) calls.set(e.tool.id, e);
      fold("tool-call", `tool ${e.tool?.name ?? "?"} `, JSON.stringify(e.tool?.input ?? {}));
      return;
    case "tool_result":
      fold(
        `tool-result${e.tool?.is_error ? " error" : ""}`,
        `${e.tool?.is_error ? "tool error" : "tool result"}: `,
        String(e.tool?.output ?? ""),
      );
      return;
    case "status":
      if (e.status === "requires_action") for (const id of e.awaiting ?? []) askConfirmation(id);
      else $("chat-status").textContent = e.status ?? "";
      return;
    case "usage":
      say("usage", `usage: ${e.usage?.input_tokens ?? "?"} in, ${e.usage?.output_tokens ?? "?"} out`);
      return;
    case "error":
      say("error", `error: ${e.error?.message ?? ""}`);
      return;
    default:
      return;
  }
}

async function loadAgents() {
  const response = await fetch("/api/agents");
  const body = await response.json();
  const select = $("agent");
  select.replaceChildren(
    ...body.agents.map((a) => {
      const option = text("option", `${a.name} (${a.provider})`);
      option.value = a.address;
      return option;
    }),
  );
  $("start").disabled = body.agents.length === 0;
  if (body.agents.length === 0)
    $("chat-status").textContent = body.error ?? "no applied agent yet: plan and apply first";
  else if (!session) $("chat-status").textContent = "";
  showSessionsOf(select.value);
}

/** The sessions this page started with `agent`, newest first; the newest is shown. */
function showSessionsOf(agent, id) {
  const mine = [...sessions.entries()].filter(([, s]) => s.agent === agent).reverse();
  const select = $("session");
  select.replaceChildren(
    ...mine.map(([sid, s]) => Object.assign(text("option", `${sid} (${s.started})`), { value: sid })),
  );
  select.hidden = mine.length === 0;
  const chosen = id ?? mine[0]?.[0];
  if (chosen) select.value = chosen;
  useSession(chosen);
}

function useSession(id) {
  session = id;
  for (const [sid, s] of sessions) s.box.hidden = sid !== id;
  const download = $("download");
  $("message").disabled = !id;
  $("send").disabled = !id;
  if (!id) {
    download.hidden = true;
    return;
  }
  download.href = `/api/sessions/${id}/events.jsonl`;
  download.setAttribute("download", `session-${id}.jsonl`);
  download.hidden = false;
  document.body.setAttribute("data-session", id);
}

async function startSession() {
  $("start").disabled = true;
  try {
    const started = await postJson("/api/sessions", { agent: $("agent").value });
    const sessionBox = document.createElement("div");
    sessionBox.className = "session";
    sessionBox.setAttribute("data-session", started.id);
    $("transcript").append(sessionBox);
    sessions.set(started.id, {
      agent: $("agent").value,
      box: sessionBox,
      started: new Date().toLocaleTimeString(),
    });
    showSessionsOf($("agent").value, started.id);
    replies.clear();
    calls.clear();
    say("status", `session ${started.id} of ${started.agent}`);
    $("chat-status").textContent = "ready";
  } catch (error) {
    $("chat-status").textContent = error.message;
  } finally {
    $("start").disabled = false;
  }
}

async function send() {
  const message = $("message").value;
  if (!session || !message.trim()) return;
  $("message").value = "";
  $("send").disabled = true;
  $("stop").disabled = false;
  $("chat-status").textContent = "sending…";
  try {
    await streamLines(`/api/sessions/${session}/messages`, { text: message }, (line) => {
      if (line.type === "event") showEvent(line.event);
      if (line.type === "notice") say("notice", line.text);
      if (line.type === "error") say("error", `error: ${line.error}`);
      if (line.type === "end" && !line.finished) say("status", "(interrupted)");
    });
  } catch (error) {
    say("error", `error: ${error.message}`);
  } finally {
    $("send").disabled = false;
    $("stop").disabled = true;
  }
}

// ---- Tabs and splitters ----------------------------------------------------------------------

const TABS = ["tab-plan", "tab-chat", "tab-findings"];

function selectTab(id, focus = false) {
  for (const tab of TABS) {
    const on = tab === id;
    const el = $(tab);
    el.setAttribute("aria-selected", String(on));
    el.tabIndex = on ? 0 : -1;
    $(el.getAttribute("aria-controls")).hidden = !on;
    if (on && focus) el.focus();
  }
}

for (const id of TABS) {
  $(id).addEventListener("click", () => selectTab(id));
  $(id).addEventListener("keydown", (event) => {
    const i = TABS.indexOf(id);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    selectTab(TABS[(next + TABS.length) % TABS.length], true);
  });
}

/**
 * A splitter between two grid tracks: drag it, or focus it and press the arrow keys (5 % a
 * step). `vars` are the two tracks' shares on `grid`; `share` is the first track's, in percent.
 * The separator's value is the share of the panel it resizes (the side, or the inspector).
 */
function splitter(id, grid, vars, vertical, share) {
  const bar = $(id);
  const set = (value) => {
    share = Math.min(90, Math.max(10, value));
    grid.style.setProperty(vars[0], `${share}fr`);
    grid.style.setProperty(vars[1], `${100 - share}fr`);
    bar.setAttribute("aria-valuenow", String(Math.round(vertical ? 100 - share : share)));
  };
  bar.addEventListener("pointerdown", (event) => {
    bar.setPointerCapture(event.pointerId);
    const rect = grid.getBoundingClientRect();
    const move = (e) =>
      set(
        vertical
          ? ((e.clientX - rect.left) / rect.width) * 100
          : ((e.clientY - rect.top) / rect.height) * 100,
      );
    bar.addEventListener("pointermove", move);
    bar.addEventListener("pointerup", () => bar.removeEventListener("pointermove", move), { once: true });
  });
  bar.addEventListener("keydown", (event) => {
    const step = { ArrowLeft: -5, ArrowUp: -5, ArrowRight: 5, ArrowDown: 5 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    set(share + step);
  });
}

splitter("split-v", $("workbench"), ["--graph-share", "--side-share"], true, 60);
splitter("split-h", $("side"), ["--inspector-share", "--panels-share"], false, 35);

$("plan").addEventListener("click", () => void runPlan());
$("apply-run").addEventListener("click", () => void runApply());
$("start").addEventListener("click", () => void startSession());
$("send").addEventListener("click", () => void send());
$("stop").addEventListener("click", () => void postJson(`/api/sessions/${session}/interrupt`, {}));
$("agent").addEventListener("change", () => showSessionsOf($("agent").value));
$("session").addEventListener("change", () => useSession($("session").value));
$("expand-all").addEventListener("click", () => {
  collapsed.clear();
  for (const n of allNodes()) expanded.add(groupKey(n));
  render();
});
$("collapse-all").addEventListener("click", () => {
  expanded.clear();
  collapsed.clear();
  render();
});
$("search").addEventListener("change", search);
$("fit").addEventListener("click", () => {
  sizing = $("graph").querySelector("svg.fit") ? "actual" : "fit";
  fit();
});
new ResizeObserver(() => fit()).observe($("graph"));
$("search").addEventListener("keydown", (event) => {
  if (event.key === "Enter") {
    event.preventDefault();
    search();
  }
});
$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    void send();
  }
});
new EventSource("/api/events").addEventListener("change", () => {
  if (statuses.size) markStale(true);
  void load();
});
void load();
void loadAgents();
