// The PostgreSQL backend: one row per workspace holding the same JSON a state file holds, a
// journal table for creates in flight, and a session advisory lock plus a row naming its holder.
//
//   <schema>.states  (workspace PK, serial, lineage, state jsonb, updated_at)
//   <schema>.backups (workspace PK, serial, lineage, state jsonb, updated_at) -- the row before the last write
//   <schema>.journal (workspace, seq, entry jsonb)      -- the intent journal, one row per entry
//   <schema>.locks   (workspace PK, lock_id, pid, host, command, since, backend_pid)
//
// The lock is `pg_try_advisory_lock` on a dedicated connection: when the holder dies (even by
// kill -9) its connection ends and PostgreSQL releases the lock itself. Every state write is a
// compare-and-set on `serial` (and `lineage`) inside a transaction, so a writer whose lock was
// lost with its connection cannot overwrite what the next holder wrote.
import { createHash } from "node:crypto";
import type { Client as PgClient, Pool, PoolClient } from "pg";
import { redact } from "../model/redact.js";
import {
  emptyState,
  type LockedStorage,
  REBUILD_HINT,
  type StateBackend,
  StateConflictError,
  type StateRead,
} from "./backend.js";
import { type JournalReplay, replayJournal, withJournal } from "./journal-replay.js";
import type { JournalEntry } from "./types.js";
import { type LockInfo, type PendingCreate, type State, StateError, StateLockedError } from "./types.js";
import { upgradeState } from "./upgrade.js";

interface PostgresSettings {
  /** postgres:// or postgresql:// connection URL (credentials included; never printed). */
  url: string;
  /** One state per workspace: the project name unless given. */
  workspace: string;
  /** Schema holding the tables (created when missing). */
  schema: string;
}

export const DEFAULT_PG_SCHEMA = "agents_state";
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** How long to wait for a lock whose holder's connection is already gone (the server is ending it). */
const DEAD_HOLDER_WAIT_MS = 3000;

/** host:port/database of a connection URL: what may be printed about it. */
function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const db = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "(default database)";
    return `${parsed.hostname || "localhost"}${parsed.port ? `:${parsed.port}` : ""}/${db}`;
  } catch {
    return "(unparsable URL)";
  }
}

/** The secrets a connection URL carries, for redaction from anything printed. */
export function urlSecrets(url: string): string[] {
  const out = [url];
  try {
    const parsed = new URL(url);
    if (parsed.password) out.push(parsed.password, decodeURIComponent(parsed.password));
    for (const [key, value] of parsed.searchParams)
      if (/pass|secret|key/i.test(key) && value) out.push(value);
  } catch {}
  return out;
}

/** The advisory lock key of a workspace: 64 bits of a hash, as PostgreSQL's signed bigint. */
function advisoryKey(schema: string, workspace: string): string {
  const digest = createHash("sha256").update(`agents-state\u0000${schema}\u0000${workspace}`).digest();
  return digest.readBigInt64BE(0).toString();
}

type PgModule = typeof import("pg");
let pgModule: Promise<PgModule> | undefined;
/** Loaded on first use, so file-backend runs never pay for it. */
function loadPg(): Promise<PgModule> {
  pgModule ??= import("pg").then((m) => ((m as unknown as { default?: PgModule }).default ?? m) as PgModule);
  return pgModule;
}

/**
 * A client of the pool for a transaction. pg's pool takes its error listener off a client it hands
 * out, so a server that ends the connection while no query of that client is in flight (killed,
 * restarted, or its FATAL read in the same chunk as the last answer) would emit an unhandled
 * 'error' and end the process with a stack trace. Here such an error is kept until the client's
 * next query reports it; the listener goes when the client goes back to the pool.
 */
async function checkout(pool: Pool): Promise<PoolClient> {
  const client = await pool.connect();
  const ignore = () => {};
  client.on("error", ignore);
  const release = client.release.bind(client);
  client.release = (error?: Error | boolean) => {
    client.off("error", ignore);
    release(error);
  };
  return client;
}

export class PostgresBackend implements StateBackend {
  readonly kind = "postgres";
  readonly location: string;
  private pool: Pool | undefined;
  private ready: Promise<void> | undefined;
  private readonly q: { states: string; backups: string; journal: string; locks: string; schema: string };
  private readonly secrets: string[];
  /** Lock connections still open: close() ends them (their locks end with them). */
  private readonly lockClients = new Set<PgClient>();

  constructor(private readonly settings: PostgresSettings) {
    if (!IDENTIFIER.test(settings.schema)) {
      throw new StateError(
        `state schema "${settings.schema}" is not a plain PostgreSQL name (lower-case letters, digits and _)`,
      );
    }
    if (!settings.workspace) throw new StateError("the PostgreSQL state needs a workspace name");
    this.location = `postgres ${describePostgresUrl(settings.url)} schema ${settings.schema} workspace "${settings.workspace}"`;
    const schema = `"${settings.schema}"`;
    this.q = {
      schema,
      states: `${schema}.states`,
      backups: `${schema}.backups`,
      journal: `${schema}.journal`,
      locks: `${schema}.locks`,
    };
    this.secrets = urlSecrets(settings.url);
  }

  get workspace(): string {
    return this.settings.workspace;
  }

  /** A driver error as a StateError that names where, never the URL or its password. */
  private failure(doing: string, error: unknown): StateError {
    if (error instanceof StateError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new StateError(`${doing} (${this.location}): ${redact(message, this.secrets)}`);
  }

  private async connectPool(): Promise<Pool> {
    if (!this.pool) {
      const { Pool } = await loadPg();
      this.pool = new Pool({
        connectionString: this.settings.url,
        max: 2,
        connectionTimeoutMillis: 10_000,
        idleTimeoutMillis: 5_000,
        application_name: "agents",
      });
      // An idle client's error (server restart) must not crash the process; the next query reports it.
      this.pool.on("error", () => {});
    }
    this.ready ??= this.createTables(this.pool).catch((error) => {
      this.ready = undefined;
      throw error;
    });
    await this.ready;
    return this.pool;
  }

  private async createTables(pool: Pool): Promise<void> {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (VALUES (to_regclass($1)), (to_regclass($2)), (to_regclass($3)), (to_regclass($4))) t(c) WHERE c IS NOT NULL`,
      [this.q.states, this.q.journal, this.q.locks, this.q.backups],
    );
    if (rows[0]?.n === 4) return;
    const client = await checkout(pool);
    try {
      await client.query("BEGIN");
      // Two first runs at once must not race on CREATE ... IF NOT EXISTS.
      await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [advisoryKey("", "create-tables")]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.q.schema}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.q.states} (
        workspace text PRIMARY KEY,
        serial bigint NOT NULL,
        lineage text NOT NULL,
        state jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now())`);
      // The state row as it was before the last write (one previous serial per workspace).
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.q.backups} (
        workspace text PRIMARY KEY,
        serial bigint NOT NULL,
        lineage text NOT NULL,
        state jsonb NOT NULL,
        updated_at timestamptz NOT NULL)`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.q.journal} (
        workspace text NOT NULL,
        seq bigserial,
        entry jsonb NOT NULL,
        PRIMARY KEY (workspace, seq))`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.q.locks} (
        workspace text PRIMARY KEY,
        lock_id text NOT NULL,
        pid integer NOT NULL,
        host text NOT NULL,
        command text NOT NULL,
        since text NOT NULL,
        backend_pid integer NOT NULL)`);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  private async readWith(db: Pool | PoolClient | PgClient): Promise<StateRead> {
    const { rows } = await db.query<{ state: unknown }>(
      `SELECT state FROM ${this.q.states} WHERE workspace = $1`,
      [this.settings.workspace],
    );
    const journal = await this.readJournal(db);
    if (rows.length === 0) return withJournal({ state: emptyState(), exists: false }, journal);
    let upgraded: ReturnType<typeof upgradeState>;
    try {
      upgraded = upgradeState(rows[0]!.state, this.location);
    } catch (error) {
      // A newer version is not damage (upgrade agents); a row that is no state is.
      if (!/malformed state|not a state file/.test((error as Error).message)) throw error;
      throw await this.damaged(db, (error as Error).message);
    }
    return withJournal({ ...upgraded, exists: true }, journal);
  }

  /**
   * A state row that cannot be read: the error, and a hint naming the backups row (the state one
   * write back) and the commands that put it back, or the ways back without it.
   */
  private async damaged(db: Pool | PoolClient | PgClient, what: string): Promise<StateError> {
    const { schema, workspace } = this.settings;
    const { rows } = await db.query<{ serial: string; ok: boolean }>(
      `SELECT serial, jsonb_typeof(state) = 'object' AND state ? 'lineage' AND state ? 'resources' AS ok
         FROM ${this.q.backups} WHERE workspace = $1`,
      [workspace],
    );
    const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`;
    // The schema is a plain identifier (checked above): written unquoted, as a user would type it.
    const aside = `psql <DATABASE_URL> -c "UPDATE ${schema}.states SET workspace = ${quoted(`${workspace}.broken`)} WHERE workspace = ${quoted(workspace)}"`;
    const backup = rows[0]?.ok ? rows[0] : undefined;
    const hint = backup
      ? `hint: ${schema}.backups holds the state before the last write (serial ${backup.serial}): move the broken row aside ` +
        `(${aside}) and restore it with psql <DATABASE_URL> -At -c "SELECT state FROM ${schema}.backups WHERE workspace = ${quoted(workspace)}" > prev.json ` +
        `and agents state push prev.json; or ${REBUILD_HINT}`
      : `hint: there is no readable backup row in ${schema}.backups: move the broken row aside (${aside}), ` +
        `then push a copy you kept with agents state push <STATE_FILE>, or ${REBUILD_HINT}`;
    return new StateError(`${what}\n${hint}`);
  }

  private async readJournal(db: Pool | PoolClient | PgClient): Promise<JournalReplay> {
    const { rows } = await db.query<{ entry: JournalEntry }>(
      `SELECT entry FROM ${this.q.journal} WHERE workspace = $1 ORDER BY seq`,
      [this.settings.workspace],
    );
    return replayJournal(rows.map((r) => r.entry));
  }

  async read(): Promise<StateRead> {
    try {
      return await this.readWith(await this.connectPool());
    } catch (error) {
      throw this.failure("cannot read the state", error);
    }
  }

  async readLock(): Promise<LockInfo | undefined> {
    try {
      return (await this.lockRow(await this.connectPool()))?.info;
    } catch (error) {
      throw this.failure("cannot read the state lock", error);
    }
  }

  private async lockRow(db: Pool | PgClient): Promise<{ info: LockInfo; backendPid: number } | undefined> {
    const { rows } = await db.query<{
      lock_id: string;
      pid: number;
      host: string;
      command: string;
      since: string;
      backend_pid: number;
    }>(`SELECT lock_id, pid, host, command, since, backend_pid FROM ${this.q.locks} WHERE workspace = $1`, [
      this.settings.workspace,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    return {
      info: { id: row.lock_id, pid: row.pid, host: row.host, command: row.command, since: row.since },
      backendPid: row.backend_pid,
    };
  }

  private async backendAlive(db: Pool | PgClient, backendPid: number): Promise<boolean> {
    const { rows } = await db.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [backendPid]);
    return rows.length > 0;
  }

  /**
   * Ends the holder's connection when it still holds the lock (PostgreSQL then releases it) and
   * removes the lock row. Needs the right to signal that backend (same role, or pg_signal_backend).
   */
  async forceUnlock(lockId: string): Promise<LockInfo> {
    try {
      const pool = await this.connectPool();
      const holder = await this.lockRow(pool);
      if (!holder) throw new StateError(`no lock is held on ${this.location}`);
      if (holder.info.id !== lockId)
        throw new StateError(
          `lock id mismatch: the lock on ${this.location} is ${holder.info.id}, not ${lockId}`,
        );
      if (await this.backendAlive(pool, holder.backendPid)) {
        const { rows } = await pool.query<{ ended: boolean }>("SELECT pg_terminate_backend($1) AS ended", [
          holder.backendPid,
        ]);
        if (!rows[0]?.ended)
          throw new StateError(`could not end the lock holder's connection (backend ${holder.backendPid})`);
      }
      await pool.query(`DELETE FROM ${this.q.locks} WHERE workspace = $1 AND lock_id = $2`, [
        this.settings.workspace,
        lockId,
      ]);
      return holder.info;
    } catch (error) {
      throw this.failure("cannot force-unlock the state", error);
    }
  }

  async lock(info: LockInfo): Promise<LockedStorage> {
    const pool = await this.connectPool().catch((error) => {
      throw this.failure("cannot reach the state database", error);
    });
    const { Client } = await loadPg();
    const lockClient = new Client({
      connectionString: this.settings.url,
      connectionTimeoutMillis: 10_000,
      application_name: `agents lock ${info.id}`,
    });
    this.lockClients.add(lockClient);
    lockClient.once("end", () => this.lockClients.delete(lockClient));
    let lost: string | undefined;
    lockClient.on("error", (error) => {
      lost ??= error.message;
    });
    lockClient.on("end", () => {
      lost ??= "the connection ended";
    });
    const key = advisoryKey(this.settings.schema, this.settings.workspace);
    try {
      await lockClient.connect();
      const deadline = Date.now() + DEAD_HOLDER_WAIT_MS;
      for (;;) {
        const { rows } = await lockClient.query<{ ok: boolean }>(
          "SELECT pg_try_advisory_lock($1::bigint) AS ok",
          [key],
        );
        if (rows[0]?.ok) break;
        const holder = await this.lockRow(lockClient);
        // A holder whose connection is already gone is being cleaned up by the server: wait briefly.
        const dying = holder !== undefined && !(await this.backendAlive(lockClient, holder.backendPid));
        if (!dying || Date.now() > deadline) {
          throw new StateLockedError(
            holder?.info ?? { id: "unknown", pid: 0, host: "unknown", command: "unknown", since: "unknown" },
            this.location,
            true,
          );
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      // The advisory lock is ours: any row left is a dead holder's; replace it with ours.
      await lockClient.query(
        `INSERT INTO ${this.q.locks} (workspace, lock_id, pid, host, command, since, backend_pid)
         VALUES ($1, $2, $3, $4, $5, $6, pg_backend_pid())
         ON CONFLICT (workspace) DO UPDATE SET lock_id = EXCLUDED.lock_id, pid = EXCLUDED.pid,
           host = EXCLUDED.host, command = EXCLUDED.command, since = EXCLUDED.since,
           backend_pid = EXCLUDED.backend_pid`,
        [this.settings.workspace, info.id, info.pid, info.host, info.command, info.since],
      );
    } catch (error) {
      await lockClient.end().catch(() => {});
      throw this.failure("cannot lock the state", error);
    }
    let initial: StateRead;
    try {
      initial = await this.readWith(pool);
    } catch (error) {
      await this.unlockWith(lockClient, info.id, key);
      throw this.failure("cannot read the state", error);
    }
    let stored = initial.exists;
    let lineage = initial.state.lineage;
    const guard = () => {
      if (lost)
        throw new StateConflictError(
          `lost the state lock on ${this.location}: ${lost}; nothing more was written`,
        );
    };
    /**
     * Runs `body` in a transaction that first reads the state row FOR UPDATE and refuses when its
     * serial is no longer `expected` (or a row appeared before this run stored one): whole writes
     * and journaled records alike stand on the state this run last stored.
     */
    const compareAndSet = async (
      expected: number,
      doing: string,
      body: (client: PoolClient) => Promise<void>,
    ) => {
      guard();
      const client = await checkout(pool);
      try {
        await client.query("BEGIN");
        const { rows } = await client.query<{ serial: string; lineage: string }>(
          `SELECT serial, lineage FROM ${this.q.states} WHERE workspace = $1 FOR UPDATE`,
          [this.settings.workspace],
        );
        const row = rows[0];
        const found = row ? Number(row.serial) : undefined;
        if (stored ? found !== expected || row?.lineage !== lineage : row !== undefined) {
          throw new StateConflictError(
            `the state on ${this.location} changed under this run (expected serial ${stored ? expected : "none"}, found ${found ?? "none"}); another writer holds it now: run plan again`,
          );
        }
        await body(client);
        guard();
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw this.failure(doing, error);
      } finally {
        client.release();
      }
    };
    const write = async (next: State, previousSerial: number) => {
      await compareAndSet(previousSerial, "cannot write the state", async (client) => {
        const { pending: _pending, ...durable } = next;
        // The row this write replaces is kept first, in the same transaction: the previous serial.
        await client.query(
          `INSERT INTO ${this.q.backups} (workspace, serial, lineage, state, updated_at)
             SELECT workspace, serial, lineage, state, updated_at FROM ${this.q.states} WHERE workspace = $1
           ON CONFLICT (workspace) DO UPDATE SET serial = EXCLUDED.serial, lineage = EXCLUDED.lineage,
             state = EXCLUDED.state, updated_at = EXCLUDED.updated_at`,
          [this.settings.workspace],
        );
        await client.query(
          `INSERT INTO ${this.q.states} (workspace, serial, lineage, state, updated_at) VALUES ($1, $2, $3, $4, now())
           ON CONFLICT (workspace) DO UPDATE SET serial = EXCLUDED.serial, lineage = EXCLUDED.lineage,
             state = EXCLUDED.state, updated_at = now()`,
          [this.settings.workspace, next.serial, next.lineage, JSON.stringify(durable)],
        );
      });
      stored = true;
      lineage = next.lineage;
    };
    const insertJournal = `INSERT INTO ${this.q.journal} (workspace, entry) SELECT $1, e FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(e, n) ORDER BY n`;
    const appendJournal = async (entries: JournalEntry[]) => {
      const base = entries.find((e) => e.op === "record")?.base;
      // Records stand on the stored state they were made on; intents alone need no check.
      if (base !== undefined) {
        await compareAndSet(base, "cannot write the state journal", async (client) => {
          await client.query(insertJournal, [this.settings.workspace, JSON.stringify(entries)]);
        });
        return;
      }
      guard();
      try {
        await pool.query(insertJournal, [this.settings.workspace, JSON.stringify(entries)]);
      } catch (error) {
        throw this.failure("cannot write the state journal", error);
      }
    };
    const compactJournal = async (pending: PendingCreate[], keepRecordsOn?: number) => {
      // With the lock lost, the journal is the next holder's to settle: leave it as it is.
      if (lost) return;
      const client = await checkout(pool);
      try {
        await client.query("BEGIN");
        // Records on the stored state stay (in their order) when the run leaves them there; every
        // other entry (intents, records a whole write already holds) goes.
        await client.query(
          `DELETE FROM ${this.q.journal} WHERE workspace = $1
             AND ($2::bigint IS NULL OR entry->>'op' <> 'record' OR (entry->>'base')::bigint <> $2::bigint)`,
          [this.settings.workspace, keepRecordsOn ?? null],
        );
        if (pending.length > 0) {
          await client.query(insertJournal, [
            this.settings.workspace,
            JSON.stringify(pending.map((p) => ({ op: "create", ...p }))),
          ]);
        }
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw this.failure("cannot write the state journal", error);
      } finally {
        client.release();
      }
    };
    return {
      initial,
      write,
      appendJournal,
      compactJournal,
      keepsRecords: true,
      unlock: () => this.unlockWith(lockClient, info.id, key),
    };
  }

  private async unlockWith(client: PgClient, lockId: string, key: string): Promise<void> {
    try {
      await client.query(`DELETE FROM ${this.q.locks} WHERE workspace = $1 AND lock_id = $2`, [
        this.settings.workspace,
        lockId,
      ]);
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
    } catch {
      // The connection is gone: PostgreSQL released the advisory lock with it.
    } finally {
      await client.end().catch(() => {});
    }
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.ready = undefined;
    await Promise.all([...this.lockClients].map((client) => client.end().catch(() => {})));
    await pool?.end().catch(() => {});
  }
}
