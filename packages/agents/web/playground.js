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

async function runPlan() {
  $("status").textContent = "planning…";
  $("plan").disabled = true;
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
    $("apply").textContent = `Apply from a terminal: ${body.command}`;
    $("status").textContent = "planned";
    paint();
  } finally {
    $("plan").disabled = false;
  }
}

$("plan").addEventListener("click", () => void runPlan());
new EventSource("/api/events").addEventListener("change", () => void load());
void load();
