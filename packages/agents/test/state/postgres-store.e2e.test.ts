// Team state on a real PostgreSQL: session advisory locks with a row naming the holder,
// compare-and-set writes on serial, the journal table, force-unlock, push/pull and migrate, and
// the connection URL (with its password) never shown. The crash tests of test/e2e/crash.test.ts
// run on this backend too (kill -9 of a holder frees the lock; the next apply resumes).
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { basename, join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { migrateState } from "../../src/engine/state-ops.js";
import { StateConflictError } from "../../src/state/backend.js";
import { FileBackend } from "../../src/state/file-store.js";
import { LockedState } from "../../src/state/locked-state.js";
import { PostgresBackend } from "../../src/state/postgres-store.js";
import { type ResourceState, StateError, StateLockedError } from "../../src/state/types.js";
import { CLI, type CliResult, runCli } from "../e2e/cli.js";
import { runCliHere } from "../e2e/cli-here.js";
import {
  copyCrashProject,
  liveObjects,
  removedAfterAll,
  SECRETS,
  setFaults,
  simState,
} from "../e2e/project.js";
import { describeStateBackend } from "./backend-contract.js";
import { type PgServer, testPostgres } from "./pg-server.js";

const KEY = { AGENTS_STATE_KEY: "pg-state-key" };

let server: PgServer;
let c: RunningSim;
const dirs = removedAfterAll();
const backends: PostgresBackend[] = [];

function backend(workspace: string, url = server.url): PostgresBackend {
  const b = new PostgresBackend({ url, workspace, schema: "agents_state" });
  backends.push(b);
  return b;
}

function entry(address: string, id: string): ResourceState {
  return {
    address,
    kind: "agents",
    name: address,
    provider: "provider_c",
    id,
    external: false,
    spec: {},
    dependsOn: [],
    updatedAt: new Date().toISOString(),
  };
}

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A provider_c project whose .env holds the secrets; its workspace is the folder's name. */
async function project(): Promise<string> {
  const dir = await copyCrashProject(c, "agents-pg-");
  dirs.push(dir);
  return dir;
}

/** Every line a command printed must be free of the connection URL and its password. */
function expectNoSecret(result: CliResult | string, label: string): void {
  const text = typeof result === "string" ? result : `${result.stdout}\n${result.stderr}`;
  expect(text.includes(server.password), `${label}: the password was printed`).toBe(false);
  expect(text.includes(server.url), `${label}: the URL was printed`).toBe(false);
  expect(text.includes(SECRETS.GITHUB_TOKEN), `${label}: a secret was printed`).toBe(false);
}

describeWith("postgresql")("PostgreSQL state backend", () => {
  beforeAll(async () => {
    [server, c] = await Promise.all([testPostgres(), startSim("provider_c", { quiet: true })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.close()));
    await c?.close();
    await server?.stop();
  });

  let workspaces = 0;
  describeStateBackend({
    name: "PostgreSQL",
    fencesTakenOverHolder: true,
    secrets: () => [server.password, server.url],
    async storage() {
      const workspace = `contract-${++workspaces}`;
      return { open: () => new PostgresBackend({ url: server.url, workspace, schema: "agents_state" }) };
    },
  });

  it("a second lock fails at once, naming the holder from the lock row; other workspaces are free", async () => {
    const holder = await LockedState.open(backend("lock-a"), "agents apply");
    try {
      const error = await LockedState.open(backend("lock-a"), "agents plan").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateLockedError);
      const message = (error as Error).message;
      expect(message).toContain('state is locked by "agents apply"');
      expect(message).toContain(`pid ${process.pid}`);
      expect(message).toContain(holder.lock.id);
      expect(message).toContain('workspace "lock-a"');
      expectNoSecret(message, "lock error");
      const [row] = await sql<{ command: string; pid: number; lock_id: string }>(
        "SELECT command, pid, lock_id FROM agents_state.locks WHERE workspace = 'lock-a'",
      );
      expect(row).toEqual({ command: "agents apply", pid: process.pid, lock_id: holder.lock.id });
      const other = await LockedState.open(backend("lock-b"), "agents apply");
      await other.release();
    } finally {
      await holder.release();
    }
    expect(await sql("SELECT 1 FROM agents_state.locks WHERE workspace = 'lock-a'")).toEqual([]);
    const again = await LockedState.open(backend("lock-a"), "agents plan");
    await again.release();
  });

  it("every whole write keeps the row it replaces in backups: the previous serial, one row per workspace", async () => {
    const store = await LockedState.open(backend("backup"), "agents apply");
    try {
      await store.persist();
      expect(await sql("SELECT 1 FROM agents_state.backups WHERE workspace = 'backup'")).toEqual([]);
      await store.persist();
      await store.persist();
    } finally {
      await store.release();
    }
    const [state] = await sql<{ serial: string }>(
      "SELECT serial FROM agents_state.states WHERE workspace = 'backup'",
    );
    const backups = await sql<{ serial: string; state: { serial: number } }>(
      "SELECT serial, state FROM agents_state.backups WHERE workspace = 'backup'",
    );
    expect(Number(state!.serial)).toBe(3);
    expect(backups.map((b) => [Number(b.serial), b.state.serial])).toEqual([[2, 2]]);
  });

  it("a write is compare-and-set on serial: a state moved by another writer is never overwritten", async () => {
    const store = await LockedState.open(backend("cas"), "agents apply");
    try {
      await store.persist();
      // Another writer (say, one whose lock was lost) moved the row on under this run.
      await sql("UPDATE agents_state.states SET serial = serial + 5 WHERE workspace = 'cas'");
      const error = await store
        .update((r) => {
          r.two = entry("two", "id-2");
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateConflictError);
      expect((error as Error).message).toMatch(/changed under this run \(expected serial 1, found 6\)/);
    } finally {
      await store.release();
    }
    const [row] = await sql<{ serial: string; state: { resources: object } }>(
      "SELECT serial, state FROM agents_state.states WHERE workspace = 'cas'",
    );
    expect(Number(row!.serial)).toBe(6);
    expect(Object.keys(row!.state.resources)).toEqual([]);
    const journal = await sql("SELECT entry FROM agents_state.journal WHERE workspace = 'cas'");
    expect(journal).toEqual([]);
  });

  it("a connection the server ends between two queries of a write fails that write, never the process", async () => {
    const store = await LockedState.open(backend("ended"), "agents apply");
    try {
      await store.persist();
      // The next transaction's client: once its BEGIN is answered, its server process is ended
      // (as when the server is killed) and its FATAL arrives while no query of it is in flight.
      const pool = (store.backend as unknown as { pool: pg.Pool }).pool;
      const connect = pool.connect.bind(pool);
      let ended = false;
      pool.connect = (async () => {
        const client = (await connect()) as pg.PoolClient;
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        (client as unknown as { query: typeof query }).query = async (...args: unknown[]) => {
          const answer = await query(...args);
          if (!ended && args[0] === "BEGIN") {
            ended = true;
            const gone = new Promise((resolve) => client.once("end", resolve));
            await sql("SELECT pg_terminate_backend($1)", [
              (client as unknown as { processID: number }).processID,
            ]);
            await gone;
          }
          return answer;
        };
        return client;
      }) as typeof pool.connect;
      const error = await store
        .update((r) => {
          r.two = entry("two", "id-2");
        })
        .catch((e: unknown) => e);
      pool.connect = connect as typeof pool.connect;
      expect(ended).toBe(true);
      expect(error).toBeInstanceOf(StateError);
      expect((error as Error).message).toMatch(/^cannot write the state (journal )?\(postgres /);
    } finally {
      await store.release().catch(() => {});
    }
  });

  it("a damaged state row: one line and a hint naming the backups row and the commands that restore it", async () => {
    const dir = await project();
    const workspace = basename(dir);
    const env = { ...KEY, AGENTS_STATE_URL: server.url };
    const run = await LockedState.open(backend(workspace), "agents apply");
    for (const name of ["one", "two"]) {
      await run.update((r) => {
        r[name] = entry(name, `id-${name}`);
      });
      await run.persist();
    }
    await run.release();
    const [kept] = await sql<{ serial: string }>(
      "SELECT serial FROM agents_state.backups WHERE workspace = $1",
      [workspace],
    );
    await sql(`UPDATE agents_state.states SET state = '{"version": 1}' WHERE workspace = $1`, [workspace]);

    const refused = await runCliHere(["plan"], { cwd: dir, env });
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trim().split("\n");
    expect(lines, refused.stderr).toHaveLength(2);
    expect(lines[0]).toMatch(/malformed state/);
    expect(lines[1]).toContain(
      `agents_state.backups holds the state before the last write (serial ${kept!.serial})`,
    );
    for (const way of ["agents state push prev.json", "agents sync", "agents import"])
      expect(lines[1]).toContain(way);
    expectNoSecret(refused, "damaged state");

    // The way back the hint names, each psql command run as written (through the test's client).
    const commands = [...lines[1]!.matchAll(/psql <DATABASE_URL>(?: -At)? -c "([^"]+)"/g)].map((m) => m[1]!);
    expect(commands).toHaveLength(2);
    await sql(commands[0]!);
    const [backup] = await sql<{ state: unknown }>(commands[1]!);
    await fs.writeFile(join(dir, "prev.json"), JSON.stringify(backup!.state));
    const pushed = await runCliHere(["state", "push", "prev.json"], { cwd: dir, env });
    expect(pushed.code, pushed.stderr).toBe(0);
    const restored = await backend(workspace).read();
    expect(Object.keys(restored.state.resources)).toEqual(["one"]);
  });

  it("force-unlock (CLI) ends a hung holder's connection; the holder's next write is refused", async () => {
    const dir = await project();
    const env = { ...KEY, AGENTS_STATE_URL: server.url };
    const workspace = basename(dir);
    const hung = await LockedState.open(backend(workspace), "agents apply");
    await hung.update((r) => {
      r.kept = entry("kept", "id-k");
    });
    const blocked = await runCliHere(["plan"], { cwd: dir, env });
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`agents force-unlock ${hung.lock.id}`);
    const wrongId = await runCliHere(["force-unlock", "not-the-id"], { cwd: dir, env });
    expect(wrongId.code).toBe(1);
    expect(wrongId.stderr).toContain("lock id mismatch");
    const unlocked = await runCliHere(["force-unlock", hung.lock.id], { cwd: dir, env });
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect(unlocked.stdout).toContain('Removed the lock held by "agents apply"');
    expectNoSecret(unlocked, "force-unlock");
    const next = await LockedState.open(backend(workspace), "agents apply");
    await next.update((r) => {
      r.after = entry("after", "id-a");
    });
    const late = await hung
      .update((r) => {
        r.late = entry("late", "id-l");
      })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(StateConflictError);
    expect((late as Error).message).toContain("lost the state lock");
    await next.release();
    await hung.release();
    const { state } = await backend(workspace).read();
    expect(Object.keys(state.resources).sort()).toEqual(["after", "kept"]);
    await expect(backend(workspace).forceUnlock("no-such-id")).rejects.toThrow(/no lock is held/);
  }, 30_000);

  it("journal rows outlive a crashed run and are replayed by the next reader", async () => {
    const store = await LockedState.open(backend("journal"), "agents apply");
    const since = new Date().toISOString();
    await store.intend({ address: "x", kind: "agents", name: "x", provider: "provider_c", since });
    await store.intend({ address: "y", kind: "agents", name: "y", provider: "provider_c", since });
    // y's step finished: its record is a journal row too, not a rewrite of the state row.
    await store.update((r, s) => {
      r.y = entry("y", "id-y");
      delete s.pending!.y;
    });
    // No state write recorded x: the run "dies" here (its connections end).
    await backends.at(-1)!.close();
    const { state } = await backend("journal").read();
    expect(state.pending?.x).toMatchObject({ address: "x", since });
    expect(state.pending?.y).toBeUndefined();
    expect(state.resources.y).toMatchObject({ id: "id-y" });
    expect(state.serial).toBe(1);
    const rows = await sql("SELECT entry FROM agents_state.journal WHERE workspace = 'journal'");
    expect(rows).toHaveLength(3);
    expect(await sql("SELECT serial FROM agents_state.states WHERE workspace = 'journal'")).toEqual([]);
  });

  it("a run that changes a few resources writes only their records: the state row stays as it was until the records pass a quarter of the state", async () => {
    const names = Array.from({ length: 20 }, (_, i) => `r${i}`);
    const seed = await LockedState.open(backend("fold"), "agents apply");
    await seed.update((r) => {
      for (const name of names) r[name] = entry(name, `id-${name}`);
    });
    await seed.release();
    const stored = async () =>
      (
        await sql<{ serial: string; state: { resources: Record<string, ResourceState> } }>(
          "SELECT serial, state FROM agents_state.states WHERE workspace = 'fold'",
        )
      )[0]!;
    const journal = async () =>
      (
        await sql<{ entry: { op: string; address: string } }>(
          "SELECT entry FROM agents_state.journal WHERE workspace = 'fold' ORDER BY seq",
        )
      ).map((row) => `${row.entry.op} ${row.entry.address}`);
    const seeded = await stored();
    expect(Object.keys(seeded.state.resources)).toHaveLength(20);
    expect(await journal()).toEqual([]);

    // One step, and a create whose answer never came (its intent must survive too).
    const run = await LockedState.open(backend("fold"), "agents apply");
    await run.intend({
      address: "z",
      kind: "agents",
      name: "z",
      provider: "provider_c",
      since: new Date().toISOString(),
    });
    await run.update((r) => {
      r.r0 = entry("r0", "id-r0-new");
    });
    await run.release();
    expect(run.writes).toBe(0);
    expect(await stored()).toEqual(seeded);
    expect(await journal()).toEqual(["record r0", "create z"]);
    const read = await backend("fold").read();
    expect(read.state.resources.r0?.id).toBe("id-r0-new");
    expect(read.state.serial).toBe(Number(seeded.serial) + 1);
    expect(read.state.pending?.z).toMatchObject({ address: "z" });

    // The next run stands on those records: four more still fit in a quarter of 20 resources...
    const second = await LockedState.open(backend("fold"), "agents apply");
    expect(second.state.resources.r0?.id).toBe("id-r0-new");
    for (const name of ["r1", "r2", "r3", "r4"])
      await second.update((r) => {
        r[name] = entry(name, `id-${name}-new`);
      });
    await second.release();
    expect(second.writes).toBe(0);
    expect(await stored()).toEqual(seeded);
    expect(await journal()).toEqual([
      "record r0",
      "record r1",
      "record r2",
      "record r3",
      "record r4",
      "create z",
    ]);

    // ...and one more passes it: the end of the run writes the state whole and trims the journal.
    const third = await LockedState.open(backend("fold"), "agents apply");
    await third.update((r) => {
      delete r.r5;
    });
    await third.release();
    expect(third.writes).toBe(1);
    const folded = await stored();
    expect(Number(folded.serial)).toBe(Number(seeded.serial) + 7);
    expect(folded.state.resources.r5).toBeUndefined();
    expect(names.slice(0, 5).map((n) => folded.state.resources[n]?.id)).toEqual(
      names.slice(0, 5).map((n) => `id-${n}-new`),
    );
    expect(await journal()).toEqual(["create z"]);
  });

  it("connection failures name the server, never the URL or its password", async () => {
    const wrong = backend("w", server.url.replace(server.password, "not-the-password"));
    const error = await wrong.read().catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/cannot read the state \(postgres 127\.0\.0\.1:\d+\/agents/);
    expect((error as Error).message).not.toContain("not-the-password");
    const closed = backend("w", `postgres://agents:${server.password}@127.0.0.1:1/agents`);
    const refused = await closed.read().catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/127\.0\.0\.1:1\/agents/);
    expectNoSecret((refused as Error).message, "refused");
  });

  it("two applies from two processes: one fails at once naming the holder, the other converges", async () => {
    const dir = await project();
    const env = { ...KEY, AGENTS_STATE_URL: server.url };
    await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
    // The first apply's first create is parked in the simulator until the second apply has been
    // refused, so the first certainly holds the lock however fast it would otherwise finish.
    await setFaults(c, { rules: [{ method: "POST", nth: 1, action: { type: "hold" } }] });
    try {
      const first = spawn(process.execPath, [CLI, "apply", "-y"], {
        cwd: dir,
        env: { ...process.env, ...env, NO_COLOR: "1" },
      });
      let out = "";
      const done = new Promise<number | null>((resolve) => first.on("close", resolve));
      const started = new Promise<void>((resolve) =>
        first.stdout.on("data", (chunk) => {
          out += chunk;
          if (out.includes("creating...")) resolve();
        }),
      );
      first.stderr.on("data", (chunk) => {
        out += chunk;
      });
      await started;
      const second = await runCli(["apply", "-y"], { cwd: dir, env });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain('state is locked by "agents apply"');
      expect(second.stderr).toContain(`workspace "${basename(dir)}"`);
      expect(second.stderr).not.toMatch(/\n\s+at /);
      expectNoSecret(second, "second apply");
      await fetch(`${c.origin}/_sim/release`, { method: "POST" });
      expect(await done, out).toBe(0);
      expectNoSecret(out, "first apply");
    } finally {
      await setFaults(c, {});
    }
    const plan = await runCliHere(["plan", "--detailed-exitcode"], { cwd: dir, env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain("No changes");
    const owned = liveObjects(await simState(c)).filter(
      (o) => o.metadata?.["agents.project"] === basename(dir),
    );
    expect(owned.length).toBe(5);
  }, 60_000);

  it("a state: block names the database through ${VAR}; the stored state holds no secret", async () => {
    const dir = await project();
    const yaml = await fs.readFile(join(dir, "agents.yaml"), "utf8");
    await fs.writeFile(
      join(dir, "agents.yaml"),
      `${yaml}\nstate:\n  backend: postgres\n  url: \${TEAM_STATE_URL}\n  workspace: team-prod\n`,
    );
    await fs.appendFile(join(dir, ".env"), `TEAM_STATE_URL=${server.url}\n`);
    const applied = await runCliHere(["apply", "-y"], { cwd: dir, env: KEY });
    expect(applied.code, applied.stderr).toBe(0);
    expectNoSecret(applied, "apply");
    await expect(fs.stat(join(dir, "agents.state.json"))).rejects.toThrow();
    const [row] = await sql<{ state: unknown }>(
      "SELECT state FROM agents_state.states WHERE workspace = 'team-prod'",
    );
    expectNoSecret(JSON.stringify(row), "stored state");
    expect(JSON.stringify(row)).toContain("hmac-sha256:");
    for (const args of [["state", "list"], ["state", "pull"], ["plan"], ["validate"]]) {
      const result = await runCliHere(args, { cwd: dir, env: KEY });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      expectNoSecret(result, args.join(" "));
    }
    // State commands need only the state block: they work while a declaration is broken.
    await fs.writeFile(
      join(dir, "agents.yaml"),
      (await fs.readFile(join(dir, "agents.yaml"), "utf8")).replace(
        "model: claude-sonnet-4-5",
        "model: claude-sonnet-4-5\n    temprature: 2",
      ),
    );
    const list = await runCliHere(["state", "list"], { cwd: dir, env: KEY });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('provider_c.agents["writer"]');
    const destroyed = await runCliHere(["destroy", "-y"], { cwd: dir, env: KEY });
    expect(destroyed.code).toBe(1);
    expect(destroyed.stderr).toContain("temprature");
    expectNoSecret(destroyed, "invalid config");
    // A file that cannot be parsed at all says so, instead of guessing where the state is.
    await fs.writeFile(join(dir, "agents.yaml"), "version: [\n");
    const unparsable = await runCliHere(["state", "list"], { cwd: dir, env: KEY });
    expect(unparsable.code).toBe(1);
    expect(unparsable.stderr).toContain("cannot be parsed, so its state block cannot be read");
  }, 60_000);

  it("migrate: file to PostgreSQL and back, journal included; a lineage mismatch is refused", async () => {
    const dir = await project();
    const fileEnv = { ...KEY };
    const pgEnv = { ...KEY, AGENTS_STATE_URL: server.url };
    await fetch(`${c.origin}/_sim/reset`, { method: "POST" });
    expect((await runCliHere(["apply", "-y"], { cwd: dir, env: fileEnv })).code).toBe(0);
    const fileState = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));

    const up = await runCliHere(["state", "migrate", "--from-file"], { cwd: dir, env: pgEnv });
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(
      /Migrated 5 resource\(s\) from .*agents\.state\.json to postgres 127\.0\.0\.1:\d+\/agents/,
    );
    expectNoSecret(up, "migrate up");
    const clean = await runCliHere(["plan", "--detailed-exitcode"], { cwd: dir, env: pgEnv });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    const pulled = JSON.parse((await runCliHere(["state", "pull"], { cwd: dir, env: pgEnv })).stdout);
    expect(pulled.lineage).toBe(fileState.lineage);
    expect(pulled.resources).toEqual(fileState.resources);

    // Work continues on PostgreSQL: a change there, then back to the file.
    await fs.writeFile(
      join(dir, "agents.yaml"),
      (await fs.readFile(join(dir, "agents.yaml"), "utf8")).replace("Write clearly.", "Write briefly."),
    );
    expect((await runCliHere(["apply", "-y"], { cwd: dir, env: pgEnv })).code).toBe(0);
    const again = await runCliHere(["state", "migrate", "--from-file"], { cwd: dir, env: pgEnv });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is older \(serial \d+\) than postgres/);
    const down = await runCliHere(["state", "migrate", "--to-file"], { cwd: dir, env: pgEnv });
    expect(down.code, down.stderr).toBe(0);
    const back = JSON.parse(await fs.readFile(join(dir, "agents.state.json"), "utf8"));
    expect(back.lineage).toBe(fileState.lineage);
    expect(back.serial).toBeGreaterThan(fileState.serial);
    const fileClean = await runCliHere(["plan", "--detailed-exitcode"], { cwd: dir, env: fileEnv });
    expect(fileClean.code, fileClean.stdout + fileClean.stderr).toBe(0);

    // An unrelated state (another lineage) is never pushed over this one.
    const stranger = join(dir, "other.json");
    await fs.writeFile(
      stranger,
      JSON.stringify({ ...back, lineage: "00000000-0000-4000-8000-000000000000" }),
    );
    const refused = await runCliHere(["state", "push", stranger], { cwd: dir, env: pgEnv });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("lineage mismatch");
    expect(JSON.parse((await runCliHere(["state", "pull"], { cwd: dir, env: pgEnv })).stdout).lineage).toBe(
      fileState.lineage,
    );
  }, 90_000);

  it("migrate carries creates in flight: a journaled create survives the move", async () => {
    const statePath = join(await project(), "agents.state.json");
    const file = await LockedState.open(new FileBackend(statePath), "test");
    await file.update((r) => {
      r.a = entry("a", "id-a");
    });
    const since = new Date(Date.now() + 1000).toISOString();
    await file.intend({ address: "b", kind: "agents", name: "b", provider: "provider_c", since });
    // Dies before recording "b": the journal line stays.
    await file.release();
    const target = backend("journal-move");
    await migrateState(new FileBackend(statePath), target);
    const { state } = await target.read();
    expect(Object.keys(state.resources)).toEqual(["a"]);
    expect(state.pending?.b).toMatchObject({ address: "b", since });
  });
});
