// Crash safety: fail each call of a representative apply in turn, or kill the CLI while a create
// is in flight; the next apply must converge with no duplicate and no orphan on the simulator.
import { spawn } from "node:child_process";
import { cpSync, promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./cli.js";
import { liveObjects, requestLog, SECRETS, setFaults, simState } from "./project.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/crash-c", import.meta.url));
const RESOURCES = 5;
const env = { AGENTS_STATE_KEY: "crash-key" };
let c: RunningSim;
const dirs: string[] = [];

beforeAll(async () => {
  c = await startSim("provider_c", { quiet: true });
});
afterAll(async () => {
  await c?.close();
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
});

async function freshProject(): Promise<string> {
  await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
  const dir = mkdtempSync(join(tmpdir(), "agents-crash-"));
  dirs.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  await fs.writeFile(
    join(dir, ".env"),
    `C_API_KEY=${SECRETS.C_API_KEY}\nGITHUB_TOKEN=${SECRETS.GITHUB_TOKEN}\nC_BASE_URL=${c.url}\n`,
  );
  return dir;
}

/** Converged: state holds every resource, the plan is empty, and the remote holds exactly what state names. */
async function expectConverged(dir: string, label: string) {
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
  expect(Object.keys(state.resources), label).toHaveLength(RESOURCES);
  expect(state.pending ?? {}, label).toEqual({});
  const plan = await runCli(["plan", "--detailed-exitcode"], { cwd: dir, env });
  expect(plan.code, `${label}: ${plan.stdout}${plan.stderr}`).toBe(0);
  const owned = liveObjects(await simState(c)).filter((o) => o.metadata?.["agents.resource"]);
  const byAddress = new Map<string, string[]>();
  for (const o of owned) {
    const address = o.metadata!["agents.resource"]!;
    byAddress.set(address, [...(byAddress.get(address) ?? []), o.id]);
  }
  for (const [address, ids] of byAddress) {
    expect(ids, `${label}: duplicates of ${address}`).toHaveLength(1);
    expect(state.resources[address]?.id, `${label}: orphan ${address}`).toBe(ids[0]);
  }
}

describe("crash safety on provider_c", () => {
  it("converges after any single call of the apply fails", async () => {
    const clean = await freshProject();
    await fetch(`${c.origin}/_sim/log`, { method: "DELETE" });
    expect((await runCli(["apply", "-y"], { cwd: clean, env })).code).toBe(0);
    const calls = (await requestLog(c)).length;
    expect(calls).toBeGreaterThanOrEqual(RESOURCES);
    await expectConverged(clean, "clean run");

    for (let n = 1; n <= calls; n++) {
      const dir = await freshProject();
      await setFaults(c, { rules: [{ nth: n, action: { type: "status", status: 500 } }] });
      const broken = await runCli(["apply", "-y"], { cwd: dir, env });
      expect(broken.stderr, `call ${n}`).not.toMatch(/\s+at .+\.js:\d+/);
      await setFaults(c, {});
      const again = await runCli(["apply", "-y"], { cwd: dir, env });
      expect(again.code, `call ${n}: ${again.stdout}${again.stderr}`).toBe(0);
      await expectConverged(dir, `fail call ${n}`);
    }
  }, 120_000);

  it("converges after the CLI is killed while each create is in flight", async () => {
    for (let k = 1; k <= RESOURCES; k++) {
      const dir = await freshProject();
      // The simulator answers slowly, so the kill lands while the request is being served.
      await setFaults(c, { latencyMs: 150 });
      await killAtStart(dir, k);
      await setFaults(c, {});
      // A killed run leaves its lock: the user sees who held it and releases it by id.
      const lock = JSON.parse(await fs.readFile(join(dir, "agents.state.json.lock"), "utf8")) as {
        id: string;
      };
      const blocked = await runCli(["plan"], { cwd: dir, env });
      expect(blocked.stderr).toContain("is no longer running");
      expect((await runCli(["force-unlock", lock.id], { cwd: dir, env })).code).toBe(0);
      const again = await runCli(["apply", "-y"], { cwd: dir, env });
      expect(again.code, `kill ${k}: ${again.stdout}${again.stderr}`).toBe(0);
      await expectConverged(dir, `kill at create ${k}`);
    }
  }, 120_000);
});

/** Runs apply and SIGKILLs it as soon as the k-th "creating..." progress line appears. */
function killAtStart(dir: string, k: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "apply", "-y"], {
      cwd: dir,
      env: { ...process.env, ...env },
    });
    let seen = 0;
    let buffer = "";
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        if (/: creating\.\.\.$/.test(line) && ++seen === k) {
          // Let the request reach the simulator, then die before its answer is recorded.
          setTimeout(() => child.kill("SIGKILL"), 50);
        }
      }
    });
    child.on("error", reject);
    child.on("close", () => resolve());
  });
}
