// A wide project applied once per test file, in-process (in-process.ts), on one provider's
// simulator: the set-up of the plan-from-lists tests (refresh-lists, a-refresh-lists,
// b-refresh-lists), which then read the request log and the state's ids.
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningSim, type SimName, startSim } from "@agents/sims";
import { expect } from "vitest";
import { requestLog } from "../e2e/project.js";
import { type InProcessProject, inProcessProject } from "./in-process.js";

export interface WideProject {
  sim: RunningSim;
  dir: string;
  agents: InProcessProject;
  /** Empties the simulator's request log. */
  clearLog(): Promise<void>;
  /** Each resource's remote id, by address, as the state file holds it. */
  stateIds(): Promise<Record<string, string>>;
  /**
   * Plans with an empty request log and expects "No changes." from reads alone, none of them a GET
   * of one object (`singleGet`); answers the requests the plan made.
   */
  noChangePlanCalls(singleGet: (path: string) => boolean): ReturnType<typeof requestLog>;
  close(): Promise<void>;
}

/** Starts the provider's simulator, writes `config(sim.url)` as agents.yaml and applies it. */
export async function applyWideProject(
  provider: SimName,
  config: (url: string) => string,
  env: Record<string, string>,
): Promise<WideProject> {
  const sim = await startSim(provider, { quiet: true });
  const dir = mkdtempSync(join(tmpdir(), `agents-${provider}-lists-`));
  await fs.writeFile(join(dir, "agents.yaml"), config(sim.url));
  const agents = inProcessProject(dir, env);
  const apply = await agents.apply();
  expect(apply.error).toBe("");
  expect(apply.code).toBe(0);
  const clearLog = async () => {
    await fetch(`${sim.origin}/_sim/log`, { method: "DELETE" });
  };
  return {
    sim,
    dir,
    agents,
    clearLog,
    async stateIds() {
      const state = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8")) as {
        resources: Record<string, { id: string }>;
      };
      return Object.fromEntries(Object.entries(state.resources).map(([address, r]) => [address, r.id]));
    },
    async noChangePlanCalls(singleGet) {
      await clearLog();
      const plan = await agents.plan();
      expect(plan.text).toContain("No changes.");
      expect(plan.code).toBe(0);
      const calls = await requestLog(sim);
      expect(calls.every((c) => c.method === "GET")).toBe(true);
      expect(calls.filter((c) => singleGet(c.path))).toEqual([]);
      return calls;
    },
    async close() {
      await sim.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** A request to a simulator's API with `Authorization: Bearer key` and a JSON body when given. */
export function bearerWire(base: () => string, key: string) {
  return (method: string, path: string, json?: unknown) =>
    fetch(`${base()}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
}
