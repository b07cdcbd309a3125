// The playground page (served as /app.js by `agents playground`, bundled by scripts/bundle.mjs).
// No framework: the server sends the laid-out SVG; this script fetches, colours and explains it.
const STATUS_FILL = {
  create: "#d9f2d9",
  update: "#fff2c2",
  replace: "#ffd9b3",
  delete: "#f7c6c6",
  adopt: "#d6e6ff",
  read: "#eeeeee",
  noop: "#ffffff",
};

const $ = (id) => document.getElementById(id);
let current = { nodes: [] };
let statuses = new Map();
let selected;

function text(tag, content, className) {
  const el = document.createElement(tag);
  el.textContent = content;
  if (className) el.className = className;
  return el;
}

function paint() {
  for (const g of document.querySelectorAll("g.node")) {
    const address = g.getAttribute("data-address");
    const status = statuses.get(address);
    g.setAttribute("data-status", status ?? "");
    g.querySelector("rect")?.setAttribute("fill", STATUS_FILL[status] ?? "#ffffff");
    g.classList.toggle("selected", address === selected);
  }
}

function show(address) {
  selected = address;
  const node = current.nodes.find((n) => n.id === address);
  const details = $("details");
  details.replaceChildren();
  if (!node) return;
  details.append(text("h3", node.id), text("p", node.source, "source"));
  const status = statuses.get(node.id);
  if (status) details.append(text("p", `plan: ${status}`, "status"));
  details.append(text("pre", JSON.stringify(node.fields, null, 2), "fields"));
  paint();
}

async function load() {
  const response = await fetch("/api/graph");
  if (!response.ok) return;
  current = await response.json();
  $("file").textContent = current.file;
  // The SVG is built by the server from escaped text (cli/graph/render.ts).
  $("graph").innerHTML = current.svg;
  const findings = $("findings");
  findings.replaceChildren(...current.findings.map((f) => text("li", f.text, f.severity)));
  if (current.findings.length === 0) findings.append(text("li", "no findings", "none"));
  for (const g of document.querySelectorAll("g.node"))
    g.addEventListener("click", () => show(g.getAttribute("data-address")));
  paint();
  if (selected) show(selected);
  document.body.setAttribute("data-loaded", String(Date.now()));
}

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

let planId;

async function runPlan() {
  $("status").textContent = "planning…";
  $("plan").disabled = true;
  $("apply-run").hidden = true;
  planId = undefined;
  try {
    const response = await fetch("/api/plan", { method: "POST" });
    const body = await response.json();
    if (!response.ok) {
      $("status").textContent = "plan failed";
      $("plan-text").textContent = body.error;
      return;
    }
    statuses = new Map(body.actions.map((a) => [a.address, a.action]));
    $("plan-text").textContent = body.text;
    if (body.allowApply && body.changes) {
      planId = body.id;
      $("apply").textContent = `Apply this plan from the page, or from a terminal: ${body.command}`;
      $("apply-run").hidden = false;
    } else if (body.changes) $("apply").textContent = `Apply from a terminal: ${body.command}`;
    else $("apply").textContent = "Nothing to apply.";
    $("status").textContent = "planned";
    paint();
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

// ---- Chat ----------------------------------------------------------------------------------

let session;
const replies = new Map();
const calls = new Map();

function say(className, content) {
  const el = text("div", content, `msg ${className}`);
  $("transcript").append(el);
  el.scrollIntoView({ block: "end" });
  return el;
}

function askConfirmation(id) {
  const call = calls.get(id);
  const box = document.createElement("div");
  box.className = "msg confirm";
  box.setAttribute("data-tool", id);
  const what = call ? `${call.tool?.name ?? "a tool"} ${JSON.stringify(call.tool?.input ?? {})}` : id;
  box.append(text("span", `Allow ${what}? `));
  for (const answer of ["allow", "deny"]) {
    const button = text("button", answer === "allow" ? "Allow" : "Deny");
    button.type = "button";
    button.setAttribute("data-answer", answer);
    button.addEventListener("click", async () => {
      for (const b of box.querySelectorAll("button")) b.disabled = true;
      try {
        await postJson(`/api/sessions/${session}/confirm`, { tool_id: id, result: answer });
        box.replaceChildren(text("span", `${answer === "allow" ? "Allowed" : "Denied"}: ${what}`));
      } catch (error) {
        box.append(text("span", ` ${error.message}`, "refused"));
      }
    });
    box.append(button);
  }
  $("transcript").append(box);
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
      say("tool-call", `tool ${e.tool?.name ?? "?"} ${JSON.stringify(e.tool?.input ?? {})}`);
      return;
    case "tool_result":
      say(
        `tool-result${e.tool?.is_error ? " error" : ""}`,
        `${e.tool?.is_error ? "tool error" : "tool result"}: ${e.tool?.output ?? ""}`,
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
}

async function startSession() {
  $("start").disabled = true;
  try {
    const started = await postJson("/api/sessions", { agent: $("agent").value });
    session = started.id;
    $("transcript").replaceChildren();
    replies.clear();
    calls.clear();
    say("status", `session ${started.id} of ${started.agent}`);
    $("chat-status").textContent = "ready";
    $("message").disabled = false;
    $("send").disabled = false;
    const download = $("download");
    download.href = `/api/sessions/${started.id}/events.jsonl`;
    download.setAttribute("download", `session-${started.id}.jsonl`);
    download.hidden = false;
    document.body.setAttribute("data-session", started.id);
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

$("plan").addEventListener("click", () => void runPlan());
$("apply-run").addEventListener("click", () => void runApply());
$("start").addEventListener("click", () => void startSession());
$("send").addEventListener("click", () => void send());
$("stop").addEventListener("click", () => void postJson(`/api/sessions/${session}/interrupt`, {}));
$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    void send();
  }
});
new EventSource("/api/events").addEventListener("change", () => void load());
void load();
void loadAgents();
