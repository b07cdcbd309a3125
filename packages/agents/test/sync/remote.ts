// Changes made "outside agents": direct calls to a simulator's wire API, as a user of the
// provider's console or SDK would make them, plus a project folder wired to the simulators.
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RunningSim } from "@agents/sims";
import { expect } from "vitest";
import { createHttpClientFactory, type HttpClient } from "../../src/providers/http.js";
import { providerA } from "../../src/providers/provider-a/definition.js";
import { providerC } from "../../src/providers/provider-c/definition.js";
import { providerD } from "../../src/providers/provider-d/definition.js";
import { copyProject } from "../e2e/project.js";

export const FIXTURE = fileURLToPath(new URL("./fixtures/roster-cd", import.meta.url));
export const FIXTURE_A = fileURLToPath(new URL("./fixtures/roster-a", import.meta.url));

export const SECRETS = {
  A_API_KEY: "sim-provider-a-key",
  C_API_KEY: "sim-provider-c-key",
  D_API_KEY: "sim-provider-d-key",
  GITHUB_TOKEN: "ghp-sync-e2e-token-7781",
};

export type Json = Record<string, unknown>;

export async function makeProject(
  sims: { a?: RunningSim; c?: RunningSim; d?: RunningSim },
  fixture = FIXTURE,
): Promise<string> {
  const env = { ...SECRETS, A_BASE_URL: sims.a?.url, C_BASE_URL: sims.c?.url, D_BASE_URL: sims.d?.url };
  return copyProject(fixture, env, "agents-sync-");
}

export async function fileHash(path: string): Promise<string> {
  return createHash("sha256")
    .update(await fs.readFile(path))
    .digest("hex");
}

/** A raw client for one simulator, through the same transport the adapter uses. */
export class Console {
  readonly http: HttpClient;
  constructor(provider: "provider_a" | "provider_c" | "provider_d", sim: RunningSim) {
    const adapter = { provider_a: providerA, provider_c: providerC, provider_d: providerD }[provider];
    const key = {
      provider_a: SECRETS.A_API_KEY,
      provider_c: SECRETS.C_API_KEY,
      provider_d: SECRETS.D_API_KEY,
    }[provider];
    const factory = createHttpClientFactory({ policy: { maxRetries: 0 } });
    this.http = adapter.connect({ api_key: key, workspace_id: "llm-sync" }, factory, sim.url).http;
  }

  async get(path: string): Promise<Json> {
    return (await this.http.request<Json>({ method: "GET", path })).body;
  }

  async post(path: string, json: Json): Promise<Json> {
    return (await this.http.request<Json>({ method: "POST", path, json })).body;
  }

  async delete(path: string): Promise<void> {
    await this.http.request({ method: "DELETE", path });
  }

  /** Every agent of the account (archived too), newest last. */
  agents(): Promise<Json[]> {
    return this.all("/agents");
  }

  /** Every object a collection lists (one page cursor style for a/c/d). */
  async all(path: string): Promise<Json[]> {
    const all: Json[] = [];
    let page: string | undefined;
    do {
      const res = await this.http.request<{ data: Json[]; next_page?: string | null }>({
        method: "GET",
        path,
        query: { limit: 100, page },
      });
      all.push(...res.body.data);
      page = res.body.next_page ?? undefined;
    } while (page);
    return all;
  }

  /** The agent a project created for a logical name. */
  agentOf(project: string, name: string): Promise<Json> {
    return this.ownedOf("/agents", project, name);
  }

  /** The object of a collection a project created for a logical name. */
  async ownedOf(path: string, project: string, name: string): Promise<Json> {
    const hit = (await this.all(path)).find((a) => {
      const m = a.metadata as Record<string, string> | undefined;
      return m?.["agents.project"] === project && m["agents.resource"]?.endsWith(`["${name}"]`);
    });
    if (!hit) throw new Error(`no ${path} ${name} of project ${project}`);
    return hit;
  }

  /** An update as the console makes it: read the current version, send it with the change. */
  async updateAgent(id: string, change: Json): Promise<Json> {
    const current = await this.get(`/agents/${id}`);
    return this.post(`/agents/${id}`, { ...change, version: current.version });
  }
}

/** One (provider, kind) row of a sync test: a change made outside agents, and what sync makes of it. */
export interface SyncRow {
  kind: string;
  /** A change made outside agents, through the provider's API. */
  change(): Promise<void>;
  /** Lines the dry-run diff adds. */
  added: string[];
  /** Lines of the original file that must survive sync byte for byte. */
  kept: string[];
  /** Text the synced file must contain. */
  synced?: string[];
}

type Run = (...args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;

/**
 * Makes every row's change, then `sync --dry-run`: it must exit 2, show each row's added lines and
 * leave agents.yaml as it was. Returns what the dry run printed.
 */
export async function dryRunOfRows(rows: SyncRow[], run: Run, yamlPath: string): Promise<string> {
  for (const row of rows) await row.change();
  const before = await fileHash(yamlPath);
  const dry = await run("sync", "--dry-run", "--detailed-exitcode");
  expect(dry.code).toBe(2);
  for (const row of rows) for (const line of row.added) expect(dry.stdout, row.kind).toContain(line);
  expect(await fileHash(yamlPath)).toBe(before);
  return dry.stdout + dry.stderr;
}

/** The synced file keeps each row's kept lines byte for byte and holds its synced text. */
export function expectRowsSynced(after: string, rows: SyncRow[]): void {
  for (const row of rows) {
    for (const line of row.kept) expect(after, row.kind).toContain(`${line}\n`);
    for (const text of row.synced ?? []) expect(after, row.kind).toContain(text);
  }
}

/** `apply -y` succeeds quietly, then `sync --dry-run` of the untouched account finds no changes. Returns the dry run. */
export async function applyThenCleanSync(run: Run): Promise<{ stdout: string; stderr: string }> {
  const apply = await run("apply", "-y");
  expect(apply.stderr).toBe("");
  expect(apply.code).toBe(0);
  const clean = await run("sync", "--dry-run", "--detailed-exitcode");
  expect(clean.stdout).toContain("No changes");
  expect(clean.code).toBe(0);
  return clean;
}

/** `sync` succeeds quietly; returns what it printed and the file it wrote. */
export async function syncWrites(run: Run, yamlPath: string): Promise<{ stdout: string; after: string }> {
  const sync = await run("sync");
  expect(sync.stderr).toBe("");
  expect(sync.code).toBe(0);
  return { stdout: sync.stdout, after: await fs.readFile(yamlPath, "utf8") };
}

/** Fails when any of `secrets` shows in `text`. */
export function expectNoneOf(secrets: string[], text: string): void {
  for (const secret of secrets) expect(text).not.toContain(secret);
}
