// Two applies at once on one project: the second fails at once naming the first, which finishes
// with the state intact.
import { spawn } from "node:child_process";
import { cpSync, promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLI, runCli } from "./cli.js";
import { liveObjects, SECRETS, simState, simulatorForFile } from "./project.js";

const env = { AGENTS_STATE_KEY: "concurrency-key" };
const c = simulatorForFile("provider_c");
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agents-concurrent-"));
  cpSync(fileURLToPath(new URL("./fixtures/crash-c", import.meta.url)), dir, { recursive: true });
  await fs.writeFile(
    join(dir, ".env"),
    `C_API_KEY=${SECRETS.C_API_KEY}\nGITHUB_TOKEN=${SECRETS.GITHUB_TOKEN}\nC_BASE_URL=${c.url}\n`,
  );
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const fresh = mkdtempSync(join(tmpdir(), "agents-interrupt-"));
  cpSync(dir, fresh, { recursive: true });
  for (const f of ["agents.state.json", "agents.state.json.lock", "agents.state.json.journal"]) {
    await fs.rm(join(fresh, f), { force: true });
  }
  return fresh;
}

it("a second apply fails on the lock naming the holder; the first completes with state intact", async () => {
  // The first apply's first create is parked in the simulator until the second apply has been
  // refused, so the first is certainly holding the lock however slow this machine is.
  await fetch(`${c.origin}/_sim/faults`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rules: [{ method: "POST", nth: 1, action: { type: "hold" } }] }),
  });
  const first = spawn(process.execPath, [CLI, "apply", "-y"], { cwd: dir, env: { ...process.env, ...env } });
  let firstOut = "";
  const running = new Promise<void>((resolve) => {
    first.stdout.on("data", (chunk) => {
      firstOut += chunk;
      if (firstOut.includes("creating...")) resolve();
    });
  });
  const firstExit = new Promise<number | null>((resolve) => first.on("close", resolve));
  await running;

  const second = await runCli(["apply", "-y"], { cwd: dir, env });
  expect(second.code).toBe(1);
  expect(second.stderr).toContain('state is locked by "agents apply"');
  expect(second.stderr).toContain(`pid ${first.pid}`);
  expect(second.stdout).not.toContain("creating...");

  await fetch(`${c.origin}/_sim/release`, { method: "POST" });
  expect(await firstExit).toBe(0);
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
  expect(Object.keys(state.resources)).toHaveLength(5);
  const owned = liveObjects(await simState(c)).filter((o) => o.metadata?.["agents.resource"]);
  for (const o of owned) expect(state.resources[o.metadata!["agents.resource"]!]?.id).toBe(o.id);
  await expect(fs.stat(join(dir, "agents.state.json.lock"))).rejects.toThrow();
}, 60_000);

it("Ctrl-C starts nothing new, records the steps in flight and releases the lock; a rerun finishes", async () => {
  await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
  const project = await freshDir();
  try {
    const child = spawn(process.execPath, [CLI, "apply", "-y"], {
      cwd: project,
      env: { ...process.env, ...env },
    });
    let out = "";
    let interrupted = false;
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (!interrupted && out.includes(": created [")) {
        interrupted = true;
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(out).toContain("Interrupted: finishing the steps in flight");
    expect(out).toMatch(/skipped \(interrupted\)/);
    await expect(fs.stat(join(project, "agents.state.json.lock"))).rejects.toThrow();
    const partial = JSON.parse(await fs.readFile(join(project, "agents.state.json"), "utf8"));
    expect(Object.keys(partial.resources).length).toBeGreaterThan(0);
    expect(Object.keys(partial.resources).length).toBeLessThan(5);
    const rerun = await runCli(["apply", "-y"], { cwd: project, env });
    expect(rerun.code).toBe(0);
    const state = JSON.parse(await fs.readFile(join(project, "agents.state.json"), "utf8"));
    expect(Object.keys(state.resources)).toHaveLength(5);
    const owned = liveObjects(await simState(c)).filter((o) => o.metadata?.["agents.resource"]);
    for (const o of owned) expect(state.resources[o.metadata!["agents.resource"]!]?.id).toBe(o.id);
  } finally {
    await fs.rm(project, { recursive: true, force: true });
  }
}, 60_000);
