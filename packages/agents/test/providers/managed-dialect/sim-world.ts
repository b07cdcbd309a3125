// A small stand-in for the engine around one provider adapter and one running simulator: it
// keeps the ids of applied resources (what `resolve` answers) and builds handler contexts.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { expect } from "vitest";
import { sameValue } from "../../../src/plan/diff.js";
import { createHttpClientFactory, type HttpClient, newHttpStats } from "../../../src/providers/http.js";
import { providerC } from "../../../src/providers/provider-c/definition.js";
import { providerD } from "../../../src/providers/provider-d/definition.js";
import type {
  HandlerContext,
  HandlerOf,
  Kind,
  PriorState,
  ProviderAdapter,
  RemoteObject,
  Spec,
} from "../../../src/providers/types.js";

export const KEYS = { provider_c: "sim-provider-c-key", provider_d: "sim-provider-d-key" } as const;
export type CdProvider = keyof typeof KEYS;

/** Providers whose simulator has landed; the shared lifecycle tests run against each. */
export const SIMULATED: CdProvider[] = ["provider_c", "provider_d"];

export const MODEL = { provider_c: "claude-sonnet-4-5", provider_d: "doubao-seed-1-6" } as const;

/** One of every kind an agent can reference, applied through the handlers. */
export async function applyDependencies(w: SimWorld): Promise<void> {
  await w.writeFile("skills/pdf/SKILL.md", "---\nname: pdf-tools\ndescription: PDFs\n---\nUse it.\n");
  await w.apply("skills", "pdf", { source: "skills/pdf" });
  await w.apply("environments", "dev", { config: { type: "cloud" } });
  await w.apply("vaults", "keys", {
    credentials: [{ name: "gh", type: "environment_variable", secret_name: "GH", secret_value: "v" }],
  });
  await w.apply("memory_stores", "notes", { entries: [{ key: "a.md", content: "A" }] });
  await w.writeFile("data/input.csv", "x\n");
  await w.apply("files", "data", { source: "data/input.csv" });
}

export class SimWorld {
  readonly applied = new Map<string, { id: string; extra?: Record<string, unknown> | undefined }>();
  readonly warnings: string[] = [];
  readonly stats = newHttpStats();
  readonly http: HttpClient;
  readonly adapter: ProviderAdapter;

  private constructor(
    readonly provider: CdProvider,
    readonly sim: RunningSim,
    readonly configDir: string,
    readonly project: string,
  ) {
    this.adapter = provider === "provider_c" ? providerC : providerD;
    const factory = createHttpClientFactory({ stats: this.stats, policy: { maxRetries: 0 } });
    this.http = this.adapter.connect({ api_key: KEYS[provider] }, factory, sim.url).http;
  }

  static async start(provider: CdProvider, project = "demo"): Promise<SimWorld> {
    const sim = await startSim(provider, { port: 0, quiet: true });
    const dir = await mkdtemp(join(tmpdir(), `agents-${provider}-`));
    return new SimWorld(provider, sim, dir, project);
  }

  async close(): Promise<void> {
    await this.sim.close();
    await rm(this.configDir, { recursive: true, force: true });
  }

  handler<K extends Kind>(kind: K): HandlerOf<K> {
    const handler = this.adapter.kinds[kind] as HandlerOf<K> | undefined;
    if (!handler) throw new Error(`${this.provider} has no ${kind} handler`);
    return handler;
  }

  address(kind: Kind, name: string): string {
    return `${this.provider}.${kind}[${JSON.stringify(name)}]`;
  }

  ctx(kind: Kind, name: string, http: HttpClient = this.http): HandlerContext {
    return {
      http,
      owner: { project: this.project, resource: this.address(kind, name) },
      resolve: (k, n) => {
        const hit = this.applied.get(`${k}/${n}`);
        if (!hit) throw new Error(`${k} "${n}" is not applied`);
        return hit.id;
      },
      resolveExtra: (k, n) => this.applied.get(`${k}/${n}`)?.extra,
      configDir: this.configDir,
      signal: new AbortController().signal,
      warn: (message) => this.warnings.push(message),
      defer: async () => {
        throw new Error("work can be deferred only while a destroy runs");
      },
    };
  }

  /** The comparable desired spec, as plan prepares it (with the resource's logical name). */
  async desired(kind: Kind, spec: Spec, name?: string): Promise<Spec> {
    const handler = this.handler(kind);
    return handler.desired
      ? handler.desired(spec, { configDir: this.configDir, ...(name !== undefined ? { name } : {}) })
      : spec;
  }

  /**
   * As the engine does it: the handler creates from the declaration; state keeps the desired
   * (comparable) form as the last-applied spec, which later reads receive as `prior`.
   */
  async apply(kind: Kind, name: string, spec: Spec): Promise<PriorState & { remote: RemoteObject }> {
    const desired = await this.desired(kind, spec, name);
    const remote = await this.handler(kind).create(this.ctx(kind, name), spec);
    this.applied.set(`${kind}/${name}`, { id: remote.id, extra: remote.extra });
    return { id: remote.id, spec: desired, ...(remote.extra ? { extra: remote.extra } : {}), remote };
  }

  async writeFile(relative: string, content: string): Promise<string> {
    const path = join(this.configDir, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    return path;
  }
}

/** The engine compares only the keys the read-back holds: every one must equal the desired value. */
export function expectNoDrift(remote: RemoteObject | "gone", desired: Spec): void {
  expect(remote).not.toBe("gone");
  const spec = (remote as RemoteObject).spec;
  // The engine's own comparison (an empty observation equals an absent declaration).
  for (const key of Object.keys(spec))
    if (!sameValue(spec[key], desired[key])) expect({ [key]: spec[key] }).toEqual({ [key]: desired[key] });
}
