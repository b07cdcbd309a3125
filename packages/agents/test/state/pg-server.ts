// A throwaway PostgreSQL server for tests and benchmarks: its own data folder, a random loopback
// port, password authentication (so tests can prove the password never leaks), stopped and
// removed at the end. As root it runs as the `postgres` system user (the server refuses root).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, promises as fs, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { servicePath } from "../../../../scripts/test-services.js";

export interface PgServer {
  /** postgres://agents:<password>@127.0.0.1:<port>/<database> */
  url: string;
  /** The database `url` names. */
  database: string;
  password: string;
  port: number;
  /** A URL for another database name on the same server. */
  urlFor(database: string): string;
  /** Kills the server with SIGKILL (kill -9), starts it again on its data and waits for it. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/**
 * Starts a server. `durable: false` (tests) turns fsync off for speed: the tests kill clients,
 * never the server. Benchmarks keep the defaults so commits cost what they cost in production.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PgServer> {
  const postgres = servicePath("postgresql");
  if (!postgres) throw new Error("PostgreSQL is not installed (Debian package postgresql)");
  const bin = dirname(postgres);
  const root = mkdtempSync(join(tmpdir(), "agents-pg-"));
  const data = join(root, "data");
  const password = `pw-${randomBytes(9).toString("hex")}`;
  const pwfile = join(root, "pw");
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  const user = runAs();
  if (user) {
    chownSync(root, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  const asUser = user ? { uid: user.uid, gid: user.gid } : {};
  execFileSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "agents", `--pwfile=${pwfile}`, "-A", "scram-sha-256", "-E", "UTF8", "--no-sync"],
    { ...asUser, stdio: "pipe", env: { ...process.env, LC_ALL: "C" } },
  );
  const port = await freePort();
  const args = ["-D", data, "-p", String(port), "-k", root, "-c", "listen_addresses=127.0.0.1"];
  if (options.durable === false || options.durable === undefined)
    args.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  // The server runs under a watchdog shell that stops it (and removes its folder) once this
  // process's end of the stdin pipe closes: on stop(), and also when this process dies without
  // stopping it (a test worker killed or ended by vitest), so no server outlives its tests. A line
  // on that pipe (crash()) kills the server with SIGKILL and starts it again on the same folder.
  const watchdog =
    'postgres="$1"; root="$2"; shift 2; "$postgres" "$@" & pid=$!; ' +
    'while read -r _; do kill -KILL "$pid"; wait "$pid"; sleep 1; "$postgres" "$@" & pid=$!; done; ' +
    'kill -INT "$pid"; wait "$pid"; rm -rf "$root"';
  const child = spawn("/bin/sh", ["-c", watchdog, "sh", join(bin, "postgres"), root, ...args], {
    ...asUser,
    stdio: ["pipe", "ignore", "pipe"],
  });
  // Nothing here keeps the process alive: when it ends, the pipe closes and the watchdog stops it.
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  (child.stderr as unknown as { unref(): void }).unref();
  let log = "";
  child.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const urlFor = (database: string) => `postgres://agents:${password}@127.0.0.1:${port}/${database}`;
  /** Waits until the server answers `sql` (30 s at most). */
  const ready = async (sql: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ connectionString: urlFor("postgres") });
      try {
        await client.connect();
        await client.query(sql);
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => {});
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  await ready("CREATE DATABASE agents");
  return {
    url: urlFor("agents"),
    database: "agents",
    password,
    port,
    urlFor,
    async crash() {
      child.stdin?.write("crash\n");
      // Down at once; back once it has recovered from the kill (crash recovery replays its WAL).
      await new Promise((r) => setTimeout(r, 200));
      await ready("SELECT 1");
    },
    async stop() {
      if (child.exitCode === null) {
        // Held again while it stops: with the child unref'd, a process with nothing else to do
        // (a bench's top-level await) would end here with the wait unsettled (exit code 13).
        child.ref();
        child.stdin?.end();
        await exited;
      }
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

let shared: Promise<PgServer> | undefined;
let databases = 0;

/**
 * A database of its own on one server per test process: starting a server (initdb, then the
 * server's start) costs seconds, and five test files need PostgreSQL, while the e2e workers each
 * run many files one after another (vitest.config.ts, `isolate: false`). Each call creates a new
 * database; `stop()` drops it with any connection left to it. The server itself stops when the
 * process ends, by its watchdog. What a test does to its database (locks, terminated sessions, journal rows)
 * stays in it; nothing in the suite stops or reconfigures the server.
 */
export async function testPostgres(): Promise<PgServer> {
  if (!shared) {
    // Stopped by its watchdog when this process ends (startPostgres).
    shared = startPostgres();
  }
  const server = await shared;
  const database = `agents_t${++databases}`;
  const admin = new pg.Client({ connectionString: server.urlFor("postgres") });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  return {
    ...server,
    url: server.urlFor(database),
    database,
    async stop() {
      const client = new pg.Client({ connectionString: server.urlFor("postgres") });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
