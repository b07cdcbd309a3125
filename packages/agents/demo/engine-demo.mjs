#!/usr/bin/env node
// The engine demo: starts the provider_c and provider_d simulators on loopback, writes a temporary
// project with agents, environments, vaults, memory stores, skills, files and deployments across
// both, and runs the real CLI through a full life cycle, printing what a user sees. Then the
// same for examples/provider-b-forward against the provider_b simulator: a Forward Template with
// a default identity, a fixed DingTalk channel and a default memory store.
// Run after `npm run build`: node packages/agents/demo/engine-demo.mjs
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSim } from "@agents/sims";

const cli = fileURLToPath(new URL("../dist/agents.mjs", import.meta.url));
const fixture = fileURLToPath(new URL("../test/e2e/fixtures/multi-cd", import.meta.url));
const forwardExample = fileURLToPath(new URL("../../../examples/provider-b-forward", import.meta.url));
const testedExample = fileURLToPath(new URL("../../../examples/provider-d", import.meta.url));
const started = performance.now();

const c = await startSim("provider_c", { quiet: true });
const d = await startSim("provider_d", { quiet: true });
const b = await startSim("provider_b", { quiet: true });
let dir = mkdtempSync(join(tmpdir(), "agents-demo-"));
const forwardDir = mkdtempSync(join(tmpdir(), "agents-demo-forward-"));
const testedDir = mkdtempSync(join(tmpdir(), "agents-demo-tested-"));
// The example names no gateway (users get the public one); the demo points it at the simulator.
let extraEnv = {};
let failed = false;

function agents(...args) {
  return new Promise((resolve, reject) => {
    process.stdout.write(`\n\x1b[1m$ agents ${args.join(" ")}\x1b[0m\n`);
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      // The demo's own state key, so it never creates ~/.config/agents/state-key.
      env: { ...process.env, AGENTS_STATE_KEY: "engine-demo-key", AGENTS_DEBUG: "", ...extraEnv },
      stdio: ["ignore", "inherit", "inherit"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      process.stdout.write(`\x1b[2m(exit ${code})\x1b[0m\n`);
      resolve(code);
    });
  });
}

/** Copies an example into `dir` with a .env from its .env.example, each `KEY=replace-me` filled in. */
function copyExample(example, values) {
  cpSync(example, dir, { recursive: true });
  let env = readFileSync(join(dir, ".env.example"), "utf8");
  for (const [key, value] of Object.entries(values))
    env = env.replace(`${key}=replace-me`, `${key}=${value}`);
  writeFileSync(join(dir, ".env"), env);
}

async function step(expected, ...args) {
  const code = await agents(...args);
  if (!expected.includes(code)) {
    failed = true;
    throw new Error(`agents ${args.join(" ")} exited ${code}, expected ${expected.join(" or ")}`);
  }
}

try {
  cpSync(fixture, dir, { recursive: true });
  writeFileSync(
    join(dir, ".env"),
    [
      "C_API_KEY=sim-provider-c-key",
      "D_API_KEY=sim-provider-d-key",
      "GITHUB_TOKEN=ghp-demo-token-0003",
      "SEARCH_KEY=search-demo-key-0004",
      `C_BASE_URL=${c.url}`,
      `D_BASE_URL=${d.url}`,
    ].join("\n"),
  );
  console.log(`provider_c simulator: ${c.url}\nprovider_d simulator: ${d.url}\nproject: ${dir}`);
  await step([0], "validate");
  await step([2], "plan", "--detailed-exitcode");
  await step([0], "apply", "-y");
  await step([0], "plan", "--detailed-exitcode");
  const config = join(dir, "agents.yaml");
  const text = readFileSync(config, "utf8");
  writeFileSync(
    config,
    text.replace(
      "    instructions: Write clearly and cite sources.\n    vault: tools-c",
      "    instructions: Write tersely and cite sources.\n    vault: tools-c",
    ),
  );
  console.log('\n# edited agents.yaml: writer-c instructions → "Write tersely and cite sources."');
  await step([2], "plan", "--detailed-exitcode");
  await step([0], "apply", "-y");
  await step([0], "state", "list");
  await step([0], "destroy", "-y");
  await forwardDemo();
  await testDemo();
} catch (error) {
  failed = true;
  console.error(`\ndemo failed: ${error.message}`);
} finally {
  await Promise.all([c.close(), d.close(), b.close()]);
  rmSync(dir, { recursive: true, force: true });
  rmSync(forwardDir, { recursive: true, force: true });
  rmSync(testedDir, { recursive: true, force: true });
}
/** examples/provider-b-forward: apply, first Forward Session, apply again, no changes, destroy. */
async function forwardDemo() {
  rmSync(dir, { recursive: true, force: true });
  dir = forwardDir;
  extraEnv = { AGENTS_BASE_URL_PROVIDER_B: b.url };
  copyExample(forwardExample, {
    PROVIDER_B_API_KEY: "sim-provider-b-key",
    DINGTALK_CLIENT_ID: "demo-client-1",
    DINGTALK_CLIENT_SECRET: "demo-secret-1",
  });
  console.log(`\n# examples/provider-b-forward against the provider_b simulator: ${b.url}\nproject: ${dir}`);
  await step([0], "apply", "-y");
  // An end user talks to the agent: the platform creates the default memory store with the
  // first Forward Session of the (identity, template) pair.
  const sim = await (await fetch(`${b.origin}/_sim/state`)).json();
  const template = sim.templates.find((t) => t.name === "support");
  const identity = sim.identities.find((i) => i.external_id === "helpdesk-cn");
  const session = await fetch(`${b.origin}/api/v1/forward/sessions`, {
    method: "POST",
    headers: { authorization: "Bearer sim-provider-b-key", "content-type": "application/json" },
    body: JSON.stringify({ identity_id: identity.id, template_id: template.id }),
  });
  if (!session.ok) throw new Error(`creating the Forward Session failed: ${await session.text()}`);
  console.log(
    `\n# an end user opened Forward Session ${(await session.json()).id}; the default store now exists`,
  );
  await step([0], "apply", "-y");
  await step([0], "plan", "--detailed-exitcode");
  await step([0], "destroy", "-y");
}

/**
 * examples/provider-d's agents.test.yaml: `agents test --ephemeral` passes; after an edit that
 * drops bash from the researcher's tools, the test that needs it fails (exit 1). Each run applies
 * the tested agents as a throw-away project and destroys it again.
 */
async function testDemo() {
  dir = testedDir;
  extraEnv = { AGENTS_BASE_URL_PROVIDER_D: d.url };
  copyExample(testedExample, {
    PROVIDER_D_API_KEY: "sim-provider-d-key",
    SCHOLAR_API_KEY: "scholar-demo-key",
  });
  console.log(
    `\n# examples/provider-d's conversation tests against the provider_d simulator\nproject: ${dir}`,
  );
  await step([0], "test", "--ephemeral");
  const config = join(dir, "agents.yaml");
  const tools = "builtin: [read, write, bash, web_search, web_fetch]";
  const text = readFileSync(config, "utf8");
  if (!text.includes(tools)) throw new Error(`examples/provider-d/agents.yaml no longer says ${tools}`);
  writeFileSync(config, text.replace(tools, "builtin: [read, write, web_search, web_fetch]"));
  console.log("\n# edited agents.yaml: bash dropped from the researcher's tools");
  await step([1], "test", "--ephemeral");
}

console.log(
  `\nengine demo ${failed ? "FAILED" : "finished"} in ${((performance.now() - started) / 1000).toFixed(1)}s`,
);
process.exitCode = failed ? 1 : 0;
