#!/usr/bin/env node
// The playground demo, the last part of `npm run demo` (docs/playground.md §In `npm run demo`):
// `agents playground --allow-apply` on a copy of examples/provider-c against a provider_c
// simulator, nothing applied yet. Its last line is the playground's URL. On a terminal the
// playground stays up until Ctrl-C; elsewhere (CI, tests, pipes) the demo checks that the page
// answers, prints the URL it served and stops, so the demo always ends by itself.
// Run after `npm run build`: node packages/agents/demo/playground-demo.mjs
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentScript, startSim } from "@agents/sims";

const cli = fileURLToPath(new URL("../dist/agents.mjs", import.meta.url));
const example = fileURLToPath(new URL("../../../examples/provider-c", import.meta.url));
const KEY = "sim-provider-c-key";

const wanted = process.env.DEMO_KEEP_PLAYGROUND;
const keep =
  wanted === "1" ||
  (wanted !== "0" && Boolean(process.stdin.isTTY && process.stdout.isTTY) && !process.env.CI);

const sim = await startSim("provider_c", { quiet: true });
// Replies arrive word by word, a little apart, as from a model.
agentScript(sim).chunkMs = 40;
const dir = mkdtempSync(join(tmpdir(), "agents-playground-demo-"));
let child;
let failed = false;

/** The external agent the example's coordinator names by id: it exists before the project. */
async function externalAgent() {
  const response = await fetch(`${sim.url}/agents`, {
    method: "POST",
    headers: {
      "x-api-key": KEY,
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "managed-agents-2026-04-01",
      "content-type": "application/json",
    },
    body: JSON.stringify({ name: "external-reviewer", model: "claude-sonnet-4-5" }),
  });
  if (!response.ok) throw new Error(`creating the external agent failed: ${await response.text()}`);
  return (await response.json()).id;
}

/** Starts `agents playground --allow-apply` and resolves with the URL it prints. */
function startPlayground() {
  child = spawn(process.execPath, [cli, "playground", "--allow-apply"], {
    cwd: dir,
    env: {
      ...process.env,
      AGENTS_STATE_KEY: "playground-demo-key",
      AGENTS_BASE_URL_PROVIDER_C: sim.url,
      AGENTS_DEBUG: "",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`agents playground printed no URL: ${out}`)), 20_000);
    child.on("error", reject);
    child.on("close", (code) => reject(new Error(`agents playground exited (${code}): ${out}`)));
    child.stdout.on("data", (data) => {
      out += data;
      const found = /http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
  });
}

/** What a browser does first: the tokened URL, then the page, its script and the graph. */
async function check(url) {
  const first = await fetch(url, { redirect: "manual" });
  if (first.status !== 303) throw new Error(`the tokened URL answered ${first.status}, not 303`);
  const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0];
  const get = async (path) => {
    const response = await fetch(new URL(path, url), { headers: { cookie } });
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    return response;
  };
  if (!(await (await get("/")).text()).includes("agents playground")) throw new Error("/ is not the page");
  await get("/app.js");
  const graph = await (await get("/api/graph")).json();
  if (graph.findings.length > 0 || graph.nodes.length === 0) throw new Error("the graph is empty");
  return graph.nodes.length;
}

function stopped() {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null) return resolve();
    child.removeAllListeners("close");
    child.on("close", () => resolve());
  });
}

try {
  cpSync(example, dir, { recursive: true });
  writeFileSync(
    join(dir, ".env"),
    [
      `PROVIDER_C_API_KEY=${KEY}`,
      "ISSUES_TOKEN=demo-issues-token",
      "REGISTRY_TOKEN=demo-registry-token",
      "GIT_TOKEN=demo-git-token",
      `EXTERNAL_REVIEWER_AGENT_ID=${await externalAgent()}`,
      "",
    ].join("\n"),
  );
  console.log(`provider_c simulator: ${sim.url}\nproject: ${dir} (a copy of examples/provider-c)`);
  console.log(`\n\x1b[1m$ agents playground --allow-apply\x1b[0m`);
  const url = await startPlayground();
  const nodes = await check(url);
  console.log(`The playground answers: the page, its script and a graph of ${nodes} resources.`);
  if (keep) {
    console.log(
      [
        "In the browser: Plan, then Apply this plan; then in Chat pick security-reviewer, start a",
        'session and ask "think, then use the tool" (its bash tool asks you first). Edit',
        `${join(dir, "agents.yaml")} and watch the graph follow. Ctrl-C stops the playground.`,
      ].join("\n"),
    );
    // Ctrl-C reaches the playground too (same process group); it stops on it, and so does this.
    process.on("SIGINT", () => child.kill("SIGINT"));
    console.log(`\nPlayground: ${url}`);
    await stopped();
  } else {
    child.kill("SIGTERM");
    await stopped();
    console.log(
      "Not on a terminal, so the playground was stopped again (on a terminal it stays up until Ctrl-C).",
    );
    console.log(`\nPlayground: ${url}`);
  }
} catch (error) {
  failed = true;
  console.error(`\nplayground demo failed: ${error.message}`);
  child?.kill("SIGTERM");
  await stopped();
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
