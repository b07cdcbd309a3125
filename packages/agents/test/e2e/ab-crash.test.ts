// Crash safety on provider_a and provider_b: fail each create call of the multi-call creates
// (vault + credentials, memory store + seeds) in turn — the simulator answers 500 without
// acting — and the next apply must converge with no duplicate and no orphan. Single-call
// creates and GETs (retried by the HTTP client) are covered by the engine's own crash test.
// The clean run goes through the spawned CLI; the failing runs and their re-runs run the CLI's
// steps in-process (convergence/in-process.ts), to keep 20+ applies fast.
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessProject, inProcessProject } from "../convergence/in-process.js";
import { runCli } from "./cli.js";
import { copyProject, removedAfterAll, requestLog, setFaults, simState } from "./project.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/crash-ab", import.meta.url));
const RESOURCES = 4;
const env = { AGENTS_STATE_KEY: "crash-ab-key" };
const MULTI_CALL = /\/(vaults|memory_stores)/;
let a: RunningSim;
let b: RunningSim;
const dirs = removedAfterAll();

beforeAll(async () => {
  a = await startSim("provider_a", { quiet: true });
  b = await startSim("provider_b", { quiet: true });
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

async function freshProject(): Promise<string> {
  await Promise.all([a, b].map((s) => fetch(`${s.origin}/_sim/reset`, { method: "POST" })));
  const values = {
    A_API_KEY: "sim-provider-a-key",
    B_API_KEY: "sim-provider-b-key",
    A_BASE_URL: a.url,
    B_GATEWAY: b.url,
    SECRET_ONE: "crash-secret-one",
    SECRET_TWO: "crash-secret-two",
  };
  const dir = await copyProject(FIXTURE, values, "agents-crash-ab-");
  dirs.push(dir);
  return dir;
}

/** Live top-level objects (vaults' credentials included) per simulator. */
function live(dump: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [kind, value] of Object.entries(dump as Record<string, unknown>)) {
    if (!Array.isArray(value) || kind === "tunnels" || kind === "mounts") continue;
    for (const o of value as Record<string, unknown>[]) {
      if (typeof o?.id !== "string" || o.archived_at || o.deleted_at || o.status === "archived") continue;
      if (o.source === "official" || o.source === "qoder") continue;
      out.push({ ...o, _kind: kind });
    }
  }
  return out;
}

/** `plan` runs the no-change plan check: through the CLI, or in-process. */
async function expectConverged(
  dir: string,
  label: string,
  plan?: () => Promise<{ code: number | null; out: string }>,
) {
  const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
  expect(Object.keys(state.resources), label).toHaveLength(RESOURCES);
  expect(state.pending ?? {}, label).toEqual({});
  if (plan) {
    // The clean run and the first of each provider plan.
    const planned = await plan();
    expect(planned.code, `${label}: ${planned.out}`).toBe(0);
  }
  const objects = [...live(await simState(a)), ...live(await simState(b))];
  const ids = new Set(Object.values(state.resources as Record<string, { id: string }>).map((r) => r.id));
  // Every top-level object we own is the one state names; nothing else of ours exists.
  for (const o of objects.filter(
    (x) => (x.metadata as Record<string, string> | undefined)?.["agents.resource"],
  )) {
    expect(ids.has(o.id as string), `${label}: orphan ${o._kind} ${o.id}`).toBe(true);
  }
  // Credentials: exactly the two declared in each of the two vaults, no leftovers from a half-made vault.
  for (const o of objects.filter((x) => x._kind === "credentials")) {
    expect(ids.has(o.vault_id as string), `${label}: credential ${o.id} of a vault not in state`).toBe(true);
  }
  expect(objects.filter((x) => x._kind === "credentials").length, label).toBe(4);
  // Seeds: the store in state holds exactly the two declared memories, each with its content.
  const store = Object.entries(state.resources as Record<string, { id: string }>).find(([address]) =>
    address.includes("memory_stores"),
  )?.[1].id;
  expect(store, `${label}: no memory store in state`).toBeTruthy();
  const seeds = objects
    .filter((x) => x._kind === "memories" && x.memory_store_id === store)
    .map((m) => `${m.path}=${m.content}`)
    .sort();
  expect(seeds, label).toEqual(["a.md=first", "b.md=second"]);
}

describe("crash safety on provider_a and provider_b", () => {
  it("converges after any single call of the apply fails", async () => {
    const clean = await freshProject();
    await Promise.all([a, b].map((s) => fetch(`${s.origin}/_sim/log`, { method: "DELETE" })));
    expect((await runCli(["apply", "-y"], { cwd: clean, env })).code).toBe(0);
    const writes = async (sim: RunningSim) =>
      (await requestLog(sim)).filter((c) => c.method === "POST" && MULTI_CALL.test(c.path)).length;
    const calls = { a: await writes(a), b: await writes(b) };
    expect(calls.a + calls.b).toBeGreaterThanOrEqual(RESOURCES);
    await expectConverged(clean, "clean run", async () => {
      const plan = await runCli(["plan", "--detailed-exitcode"], { cwd: clean, env });
      return { code: plan.code, out: plan.stdout + plan.stderr };
    });

    for (const [name, sim] of [
      ["provider_a", a],
      ["provider_b", b],
    ] as const) {
      const count = name === "provider_a" ? calls.a : calls.b;
      for (let n = 1; n <= count; n++) {
        const dir = await freshProject();
        await setFaults(sim, {
          rules: [
            { method: "POST", path: MULTI_CALL.source, nth: n, action: { type: "status", status: 500 } },
          ],
        });
        const agents: InProcessProject = inProcessProject(dir, env);
        const broken = await agents.apply();
        expect(broken.error, `${name} call ${n}`).not.toMatch(/\s+at .+\.[jt]s:\d+/);
        expect(broken.text + broken.error).not.toMatch(/crash-secret/);
        await setFaults(sim, {});
        const again = await agents.apply();
        expect(again.code, `${name} call ${n}: ${again.text}${again.error}`).toBe(0);
        await expectConverged(
          dir,
          `${name}: fail call ${n}`,
          n === 1
            ? async () => {
                const plan = await agents.plan();
                return { code: plan.code, out: plan.text + plan.error };
              }
            : undefined,
        );
      }
    }
  }, 180_000);
});
