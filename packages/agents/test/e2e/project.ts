// A temporary copy of the multi-provider fixture project, wired to running simulators.
import { cpSync, promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll } from "vitest";

/**
 * The list of folders a test file makes, each removed after the file's tests: push every folder
 * made onto it. Call once, at the file's top level.
 */
export function removedAfterAll(): string[] {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  });
  return dirs;
}

/**
 * One simulator for a test file: started before the file's tests, closed after them. What it
 * returns stands for the running simulator (read it only inside tests and hooks). Call once per
 * simulator, at the file's top level; `start` replaces the default start (e.g.
 * startProviderAInstantUploads).
 */
export function simulatorForFile(
  provider: Parameters<typeof startSim>[0],
  start: () => Promise<RunningSim> = () => startSim(provider, { quiet: true }),
): RunningSim {
  let sim: RunningSim | undefined;
  beforeAll(async () => {
    sim = await start();
  });
  afterAll(async () => {
    await sim?.close();
  });
  return new Proxy({} as RunningSim, {
    get(_target, key) {
      if (!sim) throw new Error(`the ${provider} simulator is read before it started`);
      const value = Reflect.get(sim, key, sim);
      return typeof value === "function" ? value.bind(sim) : value;
    },
  });
}

export const FIXTURE = fileURLToPath(new URL("./fixtures/multi-cd", import.meta.url));

export const SECRETS = {
  C_API_KEY: "sim-provider-c-key",
  D_API_KEY: "sim-provider-d-key",
  GITHUB_TOKEN: "ghp-e2e-token-0003",
  SEARCH_KEY: "search-e2e-key-0004",
};

/**
 * A temporary copy of a fixture project with a `.env` holding `env` (undefined values left out);
 * the caller removes the folder.
 */
export async function copyProject(
  fixture: string,
  env: Record<string, string | undefined>,
  prefix = "agents-e2e-",
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(fixture, dir, { recursive: true });
  const lines = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
  await fs.writeFile(join(dir, ".env"), `${lines.join("\n")}\n`);
  return dir;
}

/**
 * A copy of crash-c, the provider_c project of the crash, team-state and PostgreSQL tests (what it
 * declares: their RESOURCES), its `.env` pointing at the simulator `c`; the caller removes it.
 */
export function copyCrashProject(c: RunningSim, prefix: string): Promise<string> {
  const env = { C_API_KEY: SECRETS.C_API_KEY, GITHUB_TOKEN: SECRETS.GITHUB_TOKEN, C_BASE_URL: c.url };
  return copyProject(fileURLToPath(new URL("./fixtures/crash-c", import.meta.url)), env, prefix);
}

export function makeProject(sims: { c: RunningSim; d: RunningSim }, prefix = "agents-e2e-"): Promise<string> {
  return copyProject(FIXTURE, { ...SECRETS, C_BASE_URL: sims.c.url, D_BASE_URL: sims.d.url }, prefix);
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

/** Kinds of user-visible objects in a simulator dump (histories such as versions and runs excluded). */
const OBJECT_ARRAYS = [
  "environments",
  "vaults",
  "credentials",
  "files",
  "skills",
  "agents",
  "memory_stores",
  "memories",
  "deployments",
  "sessions",
];

/** Every object in a state dump that still exists for a user: not archived, not deleted. */
export function liveObjects(dump: unknown): LiveObject[] {
  const out: LiveObject[] = [];
  const record = dump as Record<string, unknown>;
  for (const key of OBJECT_ARRAYS) {
    for (const o of (record[key] as Array<Record<string, unknown>> | undefined) ?? []) {
      if (typeof o.id !== "string" || o.archived_at || o.deleted_at) continue;
      out.push({
        id: o.id,
        type: (o.type as string | undefined) ?? key,
        metadata: o.metadata as Record<string, string> | undefined,
      });
    }
  }
  return out;
}

/** An object a project could have made, as the no-duplicate checks count it. */
export interface NamedObject {
  kind: string;
  id: string;
  /** The name it was made under (the ownership metadata's resource address first). */
  name: string;
  /** The object it belongs to (a vault, a memory store), or "". */
  parent: string;
}

/**
 * Every object of a simulator's dump a project could have made, with its name and parent: the
 * archived and deleted, the platform's own (official, qoder skills), histories (versions),
 * sessions, events, runs and the simulator's own fixtures (tunnels, mounts) left out, unless `skip`
 * says otherwise. The kill matrix and the crash storm count duplicates with it.
 */
export function namedObjects(
  dump: unknown,
  skip = /(versions|sessions|events|runs|tunnels|mounts)$/,
): NamedObject[] {
  const out: NamedObject[] = [];
  for (const [kind, value] of Object.entries(dump as Record<string, unknown>)) {
    if (!Array.isArray(value) || skip.test(kind)) continue;
    for (const o of value as Record<string, unknown>[]) {
      if (typeof o?.id !== "string" || o.archived_at || o.deleted_at) continue;
      if (o.status === "archived" || o.status === "deleted") continue;
      if (o.source === "official" || o.source === "qoder") continue;
      const metadata = (o.metadata ?? {}) as Record<string, unknown>;
      const name =
        metadata["agents.resource"] ??
        o.name ??
        o.display_name ??
        o.filename ??
        o.external_id ??
        o.key ??
        o.secret_name ??
        o.path;
      out.push({
        kind,
        id: o.id,
        name: String(name),
        parent: String(o.vault_id ?? o.memory_store_id ?? o.store_id ?? ""),
      });
    }
  }
  return out;
}

/** The live objects of the simulators' dumps whose ownership metadata names `project`. */
export async function liveOwnedBy(sims: readonly RunningSim[], project: string): Promise<LiveObject[]> {
  const dumps = await Promise.all(sims.map(simState));
  return dumps.flatMap((dump) => liveObjects(dump).filter((o) => o.metadata?.["agents.project"] === project));
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
): Promise<Array<{ seq: number; method: string; path: string; status: number }>> {
  const response = await fetch(`${sim.origin}/_sim/log`);
  return (
    (await response.json()) as {
      entries: Array<{ seq: number; method: string; path: string; status: number }>;
    }
  ).entries;
}

/** The drift lines of a plan, each without its "(changed outside agents)" tag. */
export function driftLines(planOutput: string): string[] {
  return planOutput
    .split("\n")
    .filter((line) => line.includes("(changed outside agents)"))
    .map((line) => line.trim().replace(/\s+\(changed outside agents\)$/, ""));
}

/**
 * A provider_a simulator whose uploads settle at once (file audits and skill scans take no polls);
 * the bounded waits themselves are covered by test/providers/provider-a/definition.sim.test.ts.
 */
export async function startProviderAInstantUploads(): Promise<RunningSim> {
  const a = await startSim("provider_a", { quiet: true });
  await fetch(`${a.origin}/_sim/seed`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      settings: { file_audit_polls: 0, file_audit_ms: 0, skill_scan_polls: 0, skill_scan_ms: 0 },
    }),
  });
  return a;
}

/** The ids of the files the simulator holds (GET /_sim/state): uploads left behind show here. */
export async function liveFileIds(sim: RunningSim): Promise<string[]> {
  return liveObjects(await simState(sim))
    .filter((o) => o.type === "file" || o.type === "files")
    .map((o) => o.id);
}
