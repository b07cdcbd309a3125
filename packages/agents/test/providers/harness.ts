// A HandlerContext for driving one adapter against a simulator over real sockets, the way the
// engine would: resolve() answers from what earlier creates recorded, warnings are collected,
// deferred tasks are kept like state would keep them.
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fieldChanges } from "../../src/plan/decide.js";
import { createHttpClientFactory, type HttpClient } from "../../src/providers/http.js";
import type {
  DeferredTask,
  HandlerContext,
  HandlerOf,
  Kind,
  KindHandler,
  ProviderAdapter,
  RemoteObject,
  Spec,
} from "../../src/providers/types.js";

export interface Harness {
  http: HttpClient;
  apis?: Readonly<Record<string, HttpClient>>;
  warnings: string[];
  deferred: DeferredTask[];
  refs: Map<string, RemoteObject>;
  ctx(kind: Kind, name: string): HandlerContext;
  handler<K extends Kind>(kind: K): HandlerOf<K>;
  /** create + record, like the engine's create step. */
  create(kind: Kind, name: string, spec: Spec): Promise<RemoteObject>;
  configDir: string;
}

export async function makeHarness(
  adapter: ProviderAdapter,
  block: Record<string, unknown>,
  baseUrl: string,
): Promise<Harness> {
  const factory = createHttpClientFactory({ policy: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 } });
  const session = adapter.connect(block, factory, baseUrl);
  const configDir = await mkdtemp(join(tmpdir(), "agents-ab-"));
  const warnings: string[] = [];
  const deferred: DeferredTask[] = [];
  const refs = new Map<string, RemoteObject>();
  const key = (kind: string, name: string) => `${kind}/${name}`;
  const h: Harness = {
    http: session.http,
    ...(session.apis ? { apis: session.apis } : {}),
    warnings,
    deferred,
    refs,
    configDir,
    ctx(kind, name) {
      return {
        http: session.http,
        ...(session.apis ? { apis: session.apis } : {}),
        owner: { project: "ab-test", resource: `${adapter.name}.${kind}["${name}"]` },
        resolve(k, n) {
          const ref = refs.get(key(k, n));
          if (!ref) throw new Error(`${k}/${n} has no remote id yet`);
          return ref.id;
        },
        resolveExtra: (k, n) => refs.get(key(k, n))?.extra,
        configDir,
        signal: new AbortController().signal,
        warn: (m) => warnings.push(m),
        async defer(task) {
          if (!deferred.some((t) => t.key === task.key)) deferred.push(task);
        },
      };
    },
    handler<K extends Kind>(kind: K) {
      const handler = adapter.kinds[kind] as HandlerOf<K> | undefined;
      if (!handler) throw new Error(`${adapter.name} has no ${kind} handler`);
      return handler;
    },
    async create(kind, name, spec) {
      const remote = await h.handler(kind).create(h.ctx(kind, name), spec);
      refs.set(key(kind, name), remote);
      return remote;
    },
  };
  return h;
}

export async function writeSkill(dir: string, name: string, body = "Do the thing."): Promise<string> {
  const skillDir = join(dir, name);
  await mkdir(join(skillDir, "scripts"), { recursive: true });
  await writeFile(
    join(skillDir, "SKILL.md"),
    `---\nname: ${name}\ndescription: test skill ${name}\n---\n${body}\n`,
  );
  await writeFile(join(skillDir, "scripts", "run.sh"), "#!/bin/sh\necho hi\n");
  return skillDir;
}

/** The comparable desired spec of a declaration, as the engine computes it. */
/** The comparable desired spec, as plan prepares it (with the resource's logical name). */
export async function desiredOf(
  handler: KindHandler,
  spec: Spec,
  configDir: string,
  name?: string,
): Promise<Spec> {
  return (await handler.desired?.(spec, { configDir, ...(name !== undefined ? { name } : {}) })) ?? spec;
}

/** Paths the engine's planner would report as changed after a read (its own diff, not a copy). */
export function drift(handler: KindHandler, desired: Spec, observed: Spec): string[] {
  return fieldChanges(desired, observed, desired, handler, false).map((c) => c.path);
}
