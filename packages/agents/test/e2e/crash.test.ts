// Crash safety: fail each call of a representative apply in turn, kill the CLI while each create
// is in flight, or kill it right after each create returned; the next apply must converge with no
// duplicate and no orphan on the simulator. Every case runs on the file beside agents.yaml; the
// kill while a create is in flight also on a real PostgreSQL (AGENTS_STATE_URL, one workspace per
// project), whose other crash points are rows of the kill matrix.
import { promises as fs } from "node:fs";
import { basename, join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { apply } from "../../src/engine/api.js";
import { loadProject } from "../../src/engine/load-project.js";
import { stateBackendForConfig } from "../../src/engine/state-config.js";
import { ALL_ADAPTERS } from "../../src/providers/catalog.js";
import type { StateRead } from "../../src/state/backend.js";
import { forceUnlock } from "../../src/state/file-store.js";
import { type PgServer, testPostgres } from "../state/pg-server.js";
import { runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";
import { held, killApplyWhen } from "./kill-held.js";
import {
  copyCrashProject,
  liveObjects,
  removedAfterAll,
  requestLog,
  setFaults,
  simState,
  simulatorForFile,
} from "./project.js";

const RESOURCES = 5;
let env: Record<string, string> = { AGENTS_STATE_KEY: "crash-key" };
let backend: "file" | "postgres" = "file";
const c = simulatorForFile("provider_c");
const dirs = removedAfterAll();

/** The project's state through its backend (the journal merged in, as a run sees it). */
async function readStored(dir: string): Promise<StateRead> {
  const { backend: store } = await stateBackendForConfig(join(dir, "agents.yaml"), {
    ...process.env,
    ...env,
  });
  try {
    return await store.read();
  } finally {
    await store.close();
  }
}

/**
 * Journal entries left for the project: the file's journal lines, or the workspace's rows other
 * than records (on PostgreSQL a run's records stay journaled until they pass a quarter of the
 * state: docs/state.md, PostgreSQL backend; a reader replays them, so they are state, not debris).
 */
async function journalLeft(dir: string): Promise<number> {
  if (backend === "file") {
    const text = await fs.readFile(join(dir, "agents.state.json.journal"), "utf8").catch(() => undefined);
    return text === undefined ? 0 : text.split("\n").filter(Boolean).length || 1;
  }
  const client = new pg.Client({ connectionString: env.AGENTS_STATE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM agents_state.journal WHERE workspace = $1 AND entry->>'op' <> 'record'",
      [basename(dir)],
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function freshProject(): Promise<string> {
  await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
  const dir = await copyCrashProject(c, "agents-crash-");
  dirs.push(dir);
  return dir;
}

/**
 * The same apply the CLI runs, in-process (real HTTP, real state file), to keep 20+ runs fast. A
 * failed read is retried as the CLI retries it, after 1–2 ms instead of the default 125–250 ms:
 * the rows fail each call once, and half of those calls are lookups the client retries (the
 * back-off itself is tested in test/providers/http.test.ts).
 */
async function applyInProcess(dir: string) {
  const project = await loadProject({ file: join(dir, "agents.yaml"), env: { ...process.env, ...env } });
  return apply({
    project,
    adapters: ALL_ADAPTERS,
    env: { ...process.env, ...env },
    http: { policy: { baseDelayMs: 1, maxDelayMs: 2 } },
  });
}

/** Converged: state holds every resource, a new plan is empty, the remote holds exactly what state names. */
async function expectConverged(dir: string, label: string) {
  const { state } = await readStored(dir);
  expect(Object.keys(state.resources), label).toHaveLength(RESOURCES);
  expect(state.pending ?? {}, label).toEqual({});
  expect(await journalLeft(dir), `${label}: journal left`).toBe(0);
  const again = await applyInProcess(dir);
  expect(
    again.plan.actions.filter((a) => a.action !== "noop"),
    `${label}: plan after convergence`,
  ).toEqual([]);
  const owned = liveObjects(await simState(c)).filter((o) => o.metadata?.["agents.resource"]);
  const byAddress = new Map<string, string[]>();
  for (const o of owned) {
    const address = o.metadata!["agents.resource"]!;
    byAddress.set(address, [...(byAddress.get(address) ?? []), o.id]);
  }
  expect(byAddress.size, `${label}: owned remote resources`).toBeGreaterThanOrEqual(RESOURCES - 1);
  for (const [address, ids] of byAddress) {
    expect(ids, `${label}: duplicates of ${address}`).toHaveLength(1);
    expect(state.resources[address]?.id, `${label}: orphan ${address}`).toBe(ids[0]);
  }
}

/**
 * PostgreSQL runs a statement it received to its end, commit included, even when the client died
 * meanwhile: a state write the killed CLI had sent may land after the kill. Wait until the dead
 * client's session has ended, so the test reads the state the next run will read (without this,
 * a record committed late made a resource look unrecorded here, yet recorded to the next run).
 */
async function deadSessionsEnded(): Promise<void> {
  if (backend !== "postgres") return;
  const client = new pg.Client({ connectionString: env.AGENTS_STATE_URL });
  await client.connect();
  try {
    for (let i = 0; i < 200; i++) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() " +
          "AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      if (rows[0]!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("the killed CLI's PostgreSQL session did not end within 5 s");
  } finally {
    await client.end();
  }
}

/**
 * The kill windows, each a spawned CLI killed at the k-th create (half a second or more each). On
 * the file backend one per level of the fixture's dependencies: the first of the environment,
 * vault and memory store (created side by side, so the second and third show nothing the first
 * does not), the agent (4th) and the deployment (5th). On PostgreSQL the first: what differs
 * there is what a real process death does to the backend (its session, lock and journal rows end
 * or stay); the engine's part of each window is the same on both backends, and the deployment's
 * window on PostgreSQL is the kill matrix's provider_c apply row (kill-matrix.e2e, postgres
 * state: killed twice at the deployment's create, then converged).
 */
function windows(): number[] {
  return backend === "postgres" ? [1] : [1, RESOURCES - 1, RESOURCES];
}

/** The creates a kill window parks in the simulator: every matching POST is held until the kill. */
const HELD: Record<number, string> = {
  1: "/(environments|vaults|memory_stores)$",
  [RESOURCES - 1]: "/agents$",
  [RESOURCES]: "/deployments$",
};

/**
 * The calls failed one at a time: every call of the apply on the file backend; on PostgreSQL the
 * first, the middle and the last (the engine's handling of a failed call is the same on both
 * backends; what PostgreSQL adds is where the failed run's journal and state rows land).
 */
function callWindows(calls: number): number[] {
  if (backend !== "postgres") return Array.from({ length: calls }, (_, i) => i + 1);
  return [...new Set([1, Math.ceil(calls / 2), calls])];
}

/** File: a dead holder's lock stays until released by id. PostgreSQL released it with the connection. */
async function releaseDeadLock(dir: string): Promise<void> {
  if (backend === "postgres") return;
  const statePath = join(dir, "agents.state.json");
  const lock = JSON.parse(await fs.readFile(`${statePath}.lock`, "utf8")) as { id: string };
  await forceUnlock(statePath, lock.id);
}

for (const kind of ["file", "postgres"] as const) {
  (kind === "postgres" ? describeWith("postgresql") : describe)(
    `crash safety on provider_c (${kind} state)`,
    () => {
      let server: PgServer | undefined;
      beforeAll(async () => {
        backend = kind;
        env = { AGENTS_STATE_KEY: "crash-key" };
        if (kind === "postgres") {
          server = await testPostgres();
          env.AGENTS_STATE_URL = server.url;
        }
      }, 60_000);
      afterAll(async () => {
        await server?.stop();
      });

      // On PostgreSQL only the real SIGKILL row runs here: a failed call and a death after a create
      // on that backend are rows of the kill matrix (test/convergence/kill-matrix.e2e.test.ts,
      // every provider and phase on both backends), and ran here twice over (about 4 s).
      const fileOnly = kind === "file" ? it : undefined;
      fileOnly?.(
        "converges after any single call of the apply fails",
        async () => {
          const clean = await freshProject();
          await fetch(`${c.origin}/_sim/log`, { method: "DELETE" });
          expect((await runCliHere(["apply", "-y"], { cwd: clean, env })).code).toBe(0);
          const calls = (await requestLog(c)).length;
          expect(calls).toBeGreaterThanOrEqual(RESOURCES);
          await expectConverged(clean, "clean run");

          for (const n of callWindows(calls)) {
            const dir = await freshProject();
            // A 500 on a create is not retried (not idempotent): the step fails, its dependents are skipped.
            await setFaults(c, { rules: [{ nth: n, action: { type: "status", status: 500 } }] });
            const broken = await applyInProcess(dir);
            expect(broken.result, `call ${n}`).toBeDefined();
            await setFaults(c, {});
            const again = await applyInProcess(dir);
            expect(again.result?.ok ?? true, `call ${n}: ${JSON.stringify(again.result?.failed)}`).toBe(true);
            await expectConverged(dir, `fail call ${n}`);
          }
        },
        120_000,
      );

      it("converges after the CLI is killed while each create is in flight", async () => {
        for (const k of windows()) {
          const dir = await freshProject();
          // The window's creates are parked in the simulator, so the kill lands while they are
          // outstanding; once the CLI is dead they are let go, and the simulator drops a request
          // whose client is gone (it never acts on it).
          await setFaults(c, {
            rules: [{ method: "POST", path: HELD[k], repeat: true, action: { type: "hold" } }],
          });
          // Killed as soon as the simulator holds one of them; those sent side by side are in
          // flight with it. The dead run's lock is looked at below.
          await killApplyWhen(dir, env, async () => (await held(c)) > 0, ["apply", "-y"], true);
          await setFaults(c, {});
          if (k === 1 && backend === "file") {
            // A killed run leaves its lock file: the user sees that its holder is gone and releases it by id.
            const blocked = await runCliHere(["plan"], { cwd: dir, env });
            expect(blocked.stderr).toContain("is no longer running");
          }
          if (k === 1 && backend === "postgres") {
            // PostgreSQL ended the killed holder's session and its advisory lock with it: no unlock needed.
            const next = await runCliHere(["plan"], { cwd: dir, env });
            expect(next.stderr).not.toContain("locked");
            expect(next.code, next.stderr).toBe(0);
          }
          await releaseDeadLock(dir);
          const again = await applyInProcess(dir);
          expect(again.result?.ok, `kill ${k}: ${JSON.stringify(again.result?.failed)}`).toBe(true);
          await expectConverged(dir, `kill at create ${k}`);
        }
      }, 120_000);

      fileOnly?.(
        "adopts instead of duplicating when the process dies after each create, before recording it",
        async () => {
          for (const n of windows()) {
            const dir = await freshProject();
            const killed = await runCli(["apply", "-y"], {
              cwd: dir,
              env: { ...env, AGENTS_FAILPOINT: `after-create:${n}` },
            });
            expect(killed.code, `failpoint ${n}`).toBeNull();
            await deadSessionsEnded();
            const { state: left } = await readStored(dir);
            const owned = liveObjects(await simState(c)).filter((o) => o.metadata?.["agents.resource"]);
            const addresses = owned
              .map((o) => o.metadata!["agents.resource"]!)
              .filter((address) => !left.resources[address])
              .sort();
            // The window really was hit: the remote holds resources the state does not, each journaled
            // as pending (creates run in parallel, so the kill can catch more than one).
            expect(addresses.length, `failpoint ${n}`).toBeGreaterThanOrEqual(1);
            expect(Object.keys(left.pending ?? {}), `failpoint ${n}`).toEqual(
              expect.arrayContaining(addresses),
            );
            await releaseDeadLock(dir);
            const again = await applyInProcess(dir);
            const adopted = again.plan.actions.filter((a) => a.action === "adopt").map((a) => a.address);
            expect(adopted.sort(), `failpoint ${n}`).toEqual(addresses);
            expect(again.result?.ok, `failpoint ${n}: ${JSON.stringify(again.result?.failed)}`).toBe(true);
            await expectConverged(dir, `crash after create ${n}`);
          }
        },
        120_000,
      );
    },
  );
}
