// Plan from lists and destroy without a refresh, through the CLI's steps in-process
// (in-process.ts) on provider_c's simulator:
// a wide no-change plan reads each kind from its list pages instead of one GET per resource, yet
// still sees drift, a resource removed behind its back, and survives a list endpoint that fails;
// a destroy reads nothing but one probe, and removing what is already gone succeeds.
import type { RunningSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyConfig } from "../../../../bench/apply-config.mjs";
import { liveObjects, requestLog, setFaults, simState } from "../e2e/project.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";
import { wireHeaders } from "./rows.js";
import { applyWideProject, type WideProject } from "./wide-project.js";

// The benches' wide project (bench/apply-config.mjs), with more than LIST_REFRESH_MIN of each kind,
// so every kind is refreshed from its list.
const PER_KIND = 10;
const KINDS = ["environments", "vaults", "memory_stores", "agents", "deployments"] as const;
const KEY = "sim-provider-c-key";
const HEADERS = wireHeaders("provider_c");
const ENV = { AGENTS_STATE_KEY: "lists-key", C_API_KEY: KEY };

let sim: RunningSim;
let agents: InProcessProject;
let wide: WideProject | undefined;

/** A GET of one object of a top-level kind (`/environments/env_…`), not a list or a sub-list. */
const singleGet = (path: string) =>
  /\/(environments|vaults|memory_stores|agents|deployments)\/[^/]+$/.test(path);

beforeAll(async () => {
  wide = await applyWideProject("provider_c", (url) => applyConfig(url, PER_KIND), ENV);
  ({ sim, agents } = wide);
});
afterAll(() => wide?.close());

describe("plan from lists", () => {
  it("a no-change plan lists each kind instead of reading each resource", async () => {
    const calls = await wide!.noChangePlanCalls(singleGet);
    // One page per kind, plus each vault's credentials (the list cannot show them).
    expect(calls.filter((c) => /\/vaults\/[^/]+\/credentials$/.test(c.path))).toHaveLength(PER_KIND);
    expect(calls.length).toBe(KINDS.length + PER_KIND);
  });

  it("reads the vaults' credentials while the vault list is walked: a read waiting for its list holds no slot", async () => {
    await setFaults(sim, { latencyMs: 100 });
    try {
      await wide!.clearLog();
      const plan = await agents.plan();
      expect(plan.code).toBe(0);
      const entries = (
        (await (await fetch(`${sim.origin}/_sim/log`)).json()) as {
          entries: Array<{ method: string; path: string; at: string; durationMs: number }>;
        }
      ).entries.map((e) => ({ path: e.path, end: Date.parse(e.at), start: Date.parse(e.at) - e.durationMs }));
      const vaultList = entries.find((e) => /\/vaults$/.test(e.path))!;
      const credentials = entries.filter((e) => /\/vaults\/[^/]+\/credentials$/.test(e.path));
      expect(credentials).toHaveLength(PER_KIND);
      expect(Math.min(...credentials.map((e) => e.start))).toBeLessThan(vaultList.end);
    } finally {
      await setFaults(sim, { latencyMs: 0 });
    }
  });

  it("still sees a field changed remotely", async () => {
    const id = (await wide!.stateIds())['provider_c.memory_stores["r3"]']!;
    const edited = await fetch(`${sim.url}/memory_stores/${id}`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ description: "Edited in the console." }),
    });
    expect(edited.ok).toBe(true);
    const plan = await agents.plan();
    expect(plan.code).toBe(2);
    expect(plan.text).toContain(
      '~ description: "Edited in the console." → "Store 3"  (changed outside agents)',
    );
    expect(plan.text).toContain("Plan (apply): 0 to create, 1 to update, 0 to replace, 0 to delete.");
    expect((await agents.apply()).code).toBe(0);
  });

  it("reads a resource the list no longer shows on its own, and plans it as gone", async () => {
    const id = (await wide!.stateIds())['provider_c.memory_stores["r5"]']!;
    // Archived: the list leaves it out, a GET still answers it (archived is gone to the engine).
    const archived = await fetch(`${sim.url}/memory_stores/${id}/archive`, {
      method: "POST",
      headers: HEADERS,
    });
    expect(archived.ok).toBe(true);
    await wide!.clearLog();
    const plan = await agents.plan();
    expect(plan.code).toBe(2);
    expect(plan.text).toMatch(/\+ provider_c\.memory_stores\["r5"\]/);
    const gets = (await requestLog(sim)).filter((c) => singleGet(c.path)).map((c) => c.path);
    expect(gets).toEqual([expect.stringMatching(new RegExp(`/memory_stores/${id}$`))]);
    expect((await agents.apply()).code).toBe(0);
    expect((await agents.plan()).code).toBe(0);
  });

  it("falls back to one read per resource when a list endpoint fails", async () => {
    await setFaults(sim, {
      rules: [{ method: "GET", path: "/agents$", repeat: true, action: { type: "status", status: 503 } }],
    });
    try {
      await wide!.clearLog();
      // The list's 503s are retried (four times, with back-off) before the fallback: after 1–2 ms
      // here instead of 250 ms doubling (about 3 s; the back-off is tested in
      // test/providers/http.test.ts).
      const quick = inProcessProject(wide!.dir, ENV, { http: { policy: { baseDelayMs: 1, maxDelayMs: 2 } } });
      const plan = await quick.plan();
      expect(plan.text).toContain("No changes.");
      expect(plan.code).toBe(0);
      const agentGets = (await requestLog(sim)).filter((c) => /\/agents\/[^/]+$/.test(c.path));
      expect(agentGets).toHaveLength(PER_KIND);
    } finally {
      await setFaults(sim, {});
    }
  });
});

describe("destroy without a refresh", () => {
  it("reads nothing but one probe, and a resource already gone counts as removed", async () => {
    const id = (await wide!.stateIds())['provider_c.environments["r7"]']!;
    const deleted = await fetch(`${sim.url}/environments/${id}`, { method: "DELETE", headers: HEADERS });
    // Deployments hold the environment: end the one that uses it first, as a user would.
    if (!deleted.ok) {
      const deployment = (await wide!.stateIds())['provider_c.deployments["r7"]']!;
      await fetch(`${sim.url}/deployments/${deployment}/archive`, { method: "POST", headers: HEADERS });
      const again = await fetch(`${sim.url}/environments/${id}`, { method: "DELETE", headers: HEADERS });
      expect(again.ok).toBe(true);
    }
    await wide!.clearLog();
    const destroy = await agents.destroy();
    expect(destroy.error).toBe("");
    expect(destroy.code).toBe(0);
    expect(destroy.text).toMatch(/Destroy complete in [\d.]+s: 50 destroyed/);
    const calls = await requestLog(sim);
    expect(calls.filter((c) => c.method === "GET" && !/\/agents$/.test(c.path))).toEqual([]);
    expect(calls.filter((c) => c.method === "GET")).toHaveLength(1);
    expect(liveObjects(await simState(sim))).toEqual([]);
    expect(Object.keys(await wide!.stateIds())).toEqual([]);
  });
});
