// A temporary copy of the multi-provider fixture project, wired to running simulators.
import { cpSync, promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunningSim } from "@agents/sims";

export const FIXTURE = fileURLToPath(new URL("./fixtures/multi-cd", import.meta.url));

export const SECRETS = {
  C_API_KEY: "sk-c-e2e-key-0001",
  D_API_KEY: "sk-d-e2e-key-0002",
  GITHUB_TOKEN: "ghp-e2e-token-0003",
  SEARCH_KEY: "search-e2e-key-0004",
};

export async function makeProject(
  sims: { c: RunningSim; d: RunningSim },
  prefix = "agents-e2e-",
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(FIXTURE, dir, { recursive: true });
  const env = { ...SECRETS, C_BASE_URL: sims.c.url, D_BASE_URL: sims.d.url };
  await fs.writeFile(
    join(dir, ".env"),
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
  );
  return dir;
}

export async function editConfig(dir: string, from: string, to: string): Promise<void> {
  const path = join(dir, "agents.yaml");
  const text = await fs.readFile(path, "utf8");
  if (!text.includes(from)) throw new Error(`fixture does not contain ${from}`);
  await fs.writeFile(path, text.replace(from, to));
}

/** The simulator's own view of what it holds (`GET /_sim/state`). */
export async function simState(sim: RunningSim): Promise<unknown> {
  const response = await fetch(`${sim.origin}/_sim/state`);
  return response.json();
}

export interface LiveObject {
  id: string;
  type?: string;
  metadata?: Record<string, string>;
}

/**
 * Every object in a state dump that still exists for a user: anything with an `id` that is not
 * archived or deleted. Nested children (memories, credentials, versions) count too.
 */
export function liveObjects(dump: unknown): LiveObject[] {
  const out: LiveObject[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== "object" || value === null) return;
    const o = value as Record<string, unknown>;
    if (typeof o.id === "string" && !o.archived_at && !o.deleted_at && o.archived !== true) {
      out.push({
        id: o.id,
        type: o.type as string | undefined,
        metadata: o.metadata as Record<string, string>,
      });
    }
    for (const v of Object.values(o)) walk(v);
  };
  walk(dump);
  return out;
}

export async function setFaults(sim: RunningSim, config: unknown): Promise<void> {
  const response = await fetch(`${sim.origin}/_sim/faults`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(config),
  });
  if (!response.ok) throw new Error(`setting faults failed: ${await response.text()}`);
}

export async function requestLog(
  sim: RunningSim,
): Promise<Array<{ method: string; path: string; status: number }>> {
  const response = await fetch(`${sim.origin}/_sim/log`);
  return ((await response.json()) as { entries: Array<{ method: string; path: string; status: number }> })
    .entries;
}
