#!/usr/bin/env node
// The engine demo: starts the provider_c and provider_d simulators on loopback, writes a temporary
// project with agents, environments, vaults, memory stores, skills, files and deployments across
// both, and runs the real CLI through a full life cycle, printing what a user sees.
// Run after `npm run build`: node packages/agents/demo/engine-demo.mjs
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSim } from "@agents/sims";

const cli = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const fixture = fileURLToPath(new URL("../test/e2e/fixtures/multi-cd", import.meta.url));
const started = performance.now();

const c = await startSim("provider_c", { quiet: true });
const d = await startSim("provider_d", { quiet: true });
const dir = mkdtempSync(join(tmpdir(), "agents-demo-"));
let failed = false;

function agents(...args) {
  return new Promise((resolve, reject) => {
    process.stdout.write(`\n\x1b[1m$ agents ${args.join(" ")}\x1b[0m\n`);
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      // The demo's own state key, so it never creates ~/.config/agents/state-key.
      env: { ...process.env, AGENTS_STATE_KEY: "engine-demo-key", AGENTS_DEBUG: "" },
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
} catch (error) {
  failed = true;
  console.error(`\ndemo failed: ${error.message}`);
} finally {
  await Promise.all([c.close(), d.close()]);
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `\nengine demo ${failed ? "FAILED" : "finished"} in ${((performance.now() - started) / 1000).toFixed(1)}s`,
);
process.exitCode = failed ? 1 : 0;
