// A kill -9 of a run at a chosen provider request, in-process. What a kill leaves behind is all
// that matters to the run after it: the requests the provider served, and what the state backend
// stored. So the killed run talks to its simulator through a loopback proxy that, at the kill
// point, either never forwards the request (the process died before it left) or forwards it and
// drops the answer (it died while the provider acted). From that moment the proxy forwards
// nothing more and delivers no answer still on its way, and the run's state backend stores
// nothing more: no whole write, no journal line, no journal compaction, and no unlock (a file
// lock is left behind for the next run to force-unlock, as a user would; a PostgreSQL lock ends
// with its connection). The dead run then fails fast and ends (no retries), so nothing it does
// afterwards reaches the provider or the state. Real SIGKILLs of the spawned CLI: test/e2e/
// crash.test.ts, a-upload-crash.test.ts, c-upload-crash.test.ts and storm.test.ts; the big
// randomized storm over four providers: bench/storm.mjs.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { expect } from "vitest";
import { ALL_ADAPTERS, apply, destroy, type EngineOptions, loadProject, type Plan } from "../../src/index.js";
import type { StateBackend } from "../../src/state/backend.js";
import { FileBackend, forceUnlock, readLock } from "../../src/state/file-store.js";
import { openBackend } from "../../src/state/settings.js";
import { hookedBackend } from "../state/storage-hooks.js";

/** Where a run dies: the `nth` request (1 = first) whose method and path match, served or not. */
export interface KillPoint {
  method: string;
  /** A regular expression on the request path (query left out). */
  path: string;
  nth?: number;
  /** The provider acts on the request and the answer is lost (true), or it never arrives (false). */
  served: boolean;
}

export const killLabel = (p: KillPoint) =>
  `${p.method} ${p.path}${p.nth && p.nth > 1 ? ` #${p.nth}` : ""} ${p.served ? "served, answer lost" : "never sent"}`;

const HOP = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "content-encoding",
]);

function headersOf(source: Iterable<[string, string | string[] | undefined]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of source)
    if (value !== undefined && !HOP.has(name.toLowerCase()))
      out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? Buffer.concat(chunks) : undefined;
}

/** The loopback proxy in front of one simulator; `arm` makes the next run through it mortal. */
export class KillSwitch {
  private point: KillPoint | undefined;
  private seen = 0;
  /** Set once the armed point was reached: the run is dead from then on. */
  dead = false;
  /** The requests of the current run, as `METHOD /path` (shown when the point was never reached). */
  requests: string[] = [];

  private constructor(
    private readonly server: Server,
    private readonly sim: RunningSim,
  ) {}

  static async start(sim: RunningSim): Promise<KillSwitch> {
    const server = createServer();
    const kill = new KillSwitch(server, sim);
    server.on("request", (req, res) => {
      kill.forward(req, res).catch(() => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return kill;
  }

  /** The simulator's base URL, through this proxy. */
  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return this.sim.url.replace(this.sim.origin, `http://127.0.0.1:${port}`);
  }

  /** The next request matching `point` kills the run; until then everything passes. */
  arm(point: KillPoint | undefined): void {
    this.point = point;
    this.seen = 0;
    this.dead = false;
    this.requests = [];
  }

  private async forward(req: IncomingMessage, res: import("node:http").ServerResponse): Promise<void> {
    const body = await bodyOf(req);
    if (this.dead) return void req.socket.destroy();
    const path = (req.url ?? "/").split("?")[0]!;
    this.requests.push(`${req.method} ${path}`);
    const p = this.point;
    const hit =
      p !== undefined &&
      req.method === p.method &&
      new RegExp(p.path).test(path) &&
      ++this.seen === (p.nth ?? 1);
    if (hit && !p.served) {
      this.dead = true;
      return void req.socket.destroy();
    }
    const answer = await fetch(`${this.sim.origin}${req.url}`, {
      method: req.method,
      headers: headersOf(Object.entries(req.headers)),
      ...(body ? { body } : {}),
      redirect: "manual",
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
    if (hit) this.dead = true;
    // An answer the dead process would have read after it died is never delivered.
    if (this.dead) return void req.socket.destroy();
    res.writeHead(answer.status, headersOf(answer.headers));
    res.end(bytes);
  }

  /** `backend` as the killed run sees it: once dead, it stores nothing and keeps its lock. */
  guard(backend: StateBackend): StateBackend {
    const refuse = () => {
      if (this.dead) throw new Error("killed");
    };
    return hookedBackend(backend, {
      beforeWrite: refuse,
      beforeAppend: refuse,
      beforeCompact: refuse,
      keepLockWhen: () => this.dead,
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * `agents apply -y` (or destroy) in `dir`, through `kill`'s proxy (the project's base URL is the
 * `URL` variable), killed at `point`. Expects the point to be reached; leaves no lock behind (a
 * file lock is force-unlocked by id, as its message tells a user). Returns the plan the run made.
 */
export async function killedRun(
  dir: string,
  env: Record<string, string>,
  kill: KillSwitch,
  command: "apply" | "destroy",
  point: KillPoint,
): Promise<Plan | undefined> {
  const fullEnv = { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1", ...env, URL: kill.url };
  const project = await loadProject({ file: join(dir, "agents.yaml"), env: fullEnv });
  const stored = project.state ? openBackend(project.state) : new FileBackend(join(dir, "agents.state.json"));
  kill.arm(point);
  const options: EngineOptions & { parallelism: number } = {
    project,
    adapters: ALL_ADAPTERS,
    env: fullEnv,
    backend: kill.guard(stored),
    parallelism: 10,
    // A dead process retries nothing: with no retries its run ends at once.
    http: { policy: { maxRetries: 0, maxRefusals: 0 } },
  };
  let died = false;
  let requests: string[] = [];
  let planned: Plan | undefined;
  try {
    await (command === "apply" ? apply : destroy)({
      ...options,
      confirm: async () => true,
      onPlan: (plan) => {
        planned = plan;
      },
    }).catch(() => {});
  } finally {
    died = kill.dead;
    requests = kill.requests;
    kill.arm(undefined);
    await stored.close();
  }
  expect(died, `the run reached ${killLabel(point)}; it sent:\n${requests.join("\n")}`).toBe(true);
  if (stored.kind === "file") {
    const statePath = join(dir, "agents.state.json");
    const lock = await readLock(statePath);
    if (lock) await forceUnlock(statePath, lock.id);
  }
  return planned;
}
