import { LRUCache } from "lru-cache";
import { FixedWindows } from "./windows.js";

/**
 * State that must be shared for exactness across replicas: one-time use of sealed values and the
 * registration rate limit. Without Redis each replica keeps its own (exact within a replica;
 * across replicas a sealed value is bounded only by its short expiry). With REDIS_URL both are
 * exact across the whole deployment (SET NX / INCR), and the replicas also hear each other on a
 * pub/sub channel (`Broadcast`: the cancels of src/mcp/cancels.ts). Every key and the channel
 * start with REDIS_KEY_PREFIX, so deployments sharing one Redis never meet.
 */

export interface OneTimeGuard {
  /** True the first time (purpose, jti) is claimed before it expires; false afterwards. */
  claim(purpose: string, jti: string, expiresAt: number): Promise<boolean>;
}

/** Small records with an expiry (the refresh-token families of ./refresh-families.ts). */
export interface RecordStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

export interface RateLimiter {
  /** Counts one hit for key; returns how many seconds to wait when over the limit. */
  hit(key: string): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

/** What /health and /ready say about the store. */
export interface StoreHealth {
  kind: "memory" | "redis";
  up: boolean;
}

export interface SharedState {
  guard: OneTimeGuard;
  records: RecordStore;
  registerLimiter: RateLimiter;
  /** Without I/O: the store's state as last seen (for /health, a liveness probe). */
  health(): StoreHealth;
  /** Asks the store, bounded by its timeout (for /ready). */
  check(): Promise<StoreHealth>;
  close(): Promise<void>;
}

/**
 * The store did not answer within its bound, or its connection is down. One-time use must fail
 * closed on it (503 temporarily_unavailable); the registration limit fails open (see below).
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(
    message: string,
    /** No answer at all (rather than a refused call): the connection may be wedged. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** Rejects with StoreUnavailableError after `ms`; the timer is cleared either way. */
export async function bounded<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  // the store's own promise may still settle later (its connection closing flushes it): never unhandled
  call.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      call,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new StoreUnavailableError(`${what}: no answer within ${ms} ms`, true)),
          ms,
        );
      }),
    ]);
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw err;
    throw new StoreUnavailableError(`${what}: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

const HOUR_MS = 3600_000;

export function memorySharedState(limitPerHour: number, now: () => number): SharedState {
  // Made on first use: a cache of 100,000 entries allocates its index arrays up front (about a
  // tenth of a second each on a loaded host), which every forge-mcp paid at start-up although a
  // PAT-only server never claims a token or keeps a record.
  let usedCache: LRUCache<string, true> | undefined;
  let recordsCache: LRUCache<string, string> | undefined;
  const used = () => (usedCache ??= new LRUCache<string, true>({ max: 100_000 }));
  const records = () => (recordsCache ??= new LRUCache<string, string>({ max: 100_000 }));
  const windows = new FixedWindows(HOUR_MS);
  return {
    records: {
      async get(key) {
        return records().get(key);
      },
      async set(key, value, ttlMs) {
        records().set(key, value, { ttl: ttlMs });
      },
    },
    guard: {
      async claim(purpose, jti, expiresAt) {
        const key = `${purpose}:${jti}`;
        if (used().has(key)) return false;
        const ttl = expiresAt > 0 ? Math.max(1, expiresAt - now()) : undefined;
        used().set(key, true, ttl === undefined ? {} : { ttl });
        return true;
      },
    },
    registerLimiter: {
      async hit(key) {
        const t = now();
        const w = windows.hit(key, t);
        const allowed = w.count <= limitPerHour;
        return { allowed, retryAfterSeconds: allowed ? 0 : Math.ceil((w.start + HOUR_MS - t) / 1000) };
      },
    },
    health: () => ({ kind: "memory", up: true }),
    check: async () => ({ kind: "memory", up: true }),
    async close() {},
  };
}

/** The default REDIS_KEY_PREFIX. */
export const REDIS_KEY_PREFIX = "forge-mcp:";

/**
 * Messages every replica of the deployment hears (one Redis channel). `publish` never throws and
 * never waits: a message that cannot be sent is logged at warn and dropped.
 */
export interface Broadcast {
  publish(message: string): void;
  /** Each message published on the channel, by any replica (this one included). */
  listen(heard: (message: string) => void): void;
}

export type RedisSharedState = SharedState & {
  /** The replicas' channel `{prefix}cancel`, for cancels that name a call another replica runs. */
  cancels: Broadcast;
};

export interface RedisOptions {
  /** REDIS_KEY_PREFIX: what every key and channel starts with (default `forge-mcp:`). */
  keyPrefix?: string;
  connectTimeoutMs?: number;
  /** REDIS_TIMEOUT_MS: the longest any store call may take once running (default 2 s). */
  callTimeoutMs?: number;
  /** Warnings (never the URL's password). */
  warn?: (msg: string) => void;
}

export async function redisSharedState(
  url: string,
  limitPerHour: number,
  now: () => number,
  opts: RedisOptions = {},
): Promise<RedisSharedState> {
  const prefix = opts.keyPrefix ?? REDIS_KEY_PREFIX;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const callTimeoutMs = opts.callTimeoutMs ?? 2000;
  const warn = opts.warn ?? (() => {});
  // Loaded only when REDIS_URL is set: most deployments never need the client.
  const { createClient } = await import("redis");
  let connected = false;
  const make = () => {
    const c = createClient({
      url,
      // While the connection is down a command fails at once instead of waiting in the client's
      // offline queue for a Redis that may never return; a queued command also gives up after
      // the call timeout. The wait for a reply on an open connection is bounded by `bounded`.
      disableOfflineQueue: true,
      commandOptions: { timeout: callTimeoutMs },
      socket: {
        connectTimeout: Math.min(5000, connectTimeoutMs),
        // Before the first connection a failure is final (start-up must not wait forever); after
        // it, reconnect with a short backoff.
        reconnectStrategy: (n, cause) => (connected ? Math.min(n * 100, 2000) : cause),
      },
    });
    // Errors are reported per call (rejected promises); the event only keeps the process alive.
    c.on("error", () => {});
    return c;
  };
  let client = make();
  const where = (() => {
    try {
      const u = new URL(url);
      return `${u.hostname}:${u.port || 6379}`; // never the password
    } catch {
      return "REDIS_URL";
    }
  })();
  // The cancel channel's own connection (a subscribed connection runs no other command), made
  // and subscribed here at start-up rather than on first use: a replica must already listen when
  // another publishes a cancel for a call it runs, and a tools/call must never wait on Redis.
  // node-redis subscribes again by itself on every reconnect.
  const subscriber = make();
  const channel = `${prefix}cancel`;
  const listeners: ((message: string) => void)[] = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all([client.connect(), subscriber.connect()]),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${connectTimeoutMs} ms`)),
          connectTimeoutMs,
        );
      }),
    ]);
    connected = true;
  } catch (err) {
    for (const c of [client, subscriber])
      try {
        c.destroy();
      } catch {} // already closed by the failed connect
    throw new Error(`cannot reach Redis at ${where} (REDIS_URL): ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
  // A Redis that refuses the channel (an ACL user without `&{prefix}cancel`: Redis 7 gives a new
  // user no channel) does not stop start-up; cancels then reach only the replica they land on.
  let channelRefused = false;
  try {
    await bounded(
      subscriber.subscribe(channel, (message) => {
        for (const l of listeners) l(message);
      }),
      callTimeoutMs,
      "subscribe",
    );
  } catch (err) {
    channelRefused = !(err as StoreUnavailableError).timedOut;
    warn(
      `Redis at ${where}: no subscription to the cancel channel ${channel} (${(err as Error).message}): a cancel reaches only the replica it lands on`,
    );
  }
  // A call that got no answer on a connection the client holds ready means that connection is
  // wedged: a silent network path, or (seen with node-redis 5.9 after a SIGKILLed server) a
  // reconnect the client counts as ready on a socket that is gone; it would never notice.
  // Replace the client: destroying the old one settles its pending calls, and the new one
  // connects in the background, retrying with the same backoff until Redis answers.
  let replacedAt = Number.NEGATIVE_INFINITY;
  let closed = false;
  // The cancel channel's outages, one line each way (its calls fail nowhere else to be seen).
  let deaf = false;
  subscriber.on("error", () => {
    if (deaf || closed) return;
    deaf = true;
    warn(
      `Redis at ${where}: the cancel channel is down, reconnecting (meanwhile a cancel sent to another replica does not reach this one)`,
    );
  });
  subscriber.on("ready", () => {
    if (!deaf) return;
    deaf = false;
    warn(`Redis at ${where}: listening on the cancel channel again`);
  });
  const replaceIfWedged = (err: unknown) => {
    if (closed || !(err instanceof StoreUnavailableError) || !err.timedOut || !client.isReady) return;
    if (Date.now() - replacedAt < callTimeoutMs) return;
    replacedAt = Date.now();
    const old = client;
    client = make();
    client.connect().catch(() => {}); // closed meanwhile; the reconnect strategy retries otherwise
    try {
      old.destroy();
    } catch {}
    warn(`Redis at ${where} did not answer within ${callTimeoutMs} ms: reconnecting`);
  };
  // The last call's outcome: a call that timed out on a connection the client still thinks is
  // ready (a silent Redis) marks the store down until a call succeeds again.
  let lastCallFailed = false;
  let limiterOpen = false;
  // While Redis is down the registration limit falls back to this replica's own count.
  const local = memorySharedState(limitPerHour, now).registerLimiter;
  const call = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      const r = await bounded(run(), callTimeoutMs, what);
      lastCallFailed = false;
      if (limiterOpen) {
        limiterOpen = false;
        warn(`Redis at ${where} answers again: the registration limit is shared again`);
      }
      return r;
    } catch (err) {
      lastCallFailed = true;
      replaceIfWedged(err);
      throw err;
    }
  };
  const health = (): StoreHealth => ({ kind: "redis", up: client.isReady && !lastCallFailed });
  return {
    guard: {
      async claim(purpose, jti, expiresAt) {
        const ttlMs = expiresAt > 0 ? Math.max(1, expiresAt - now()) : HOUR_MS;
        // fails closed: a StoreUnavailableError reaches the endpoint, which answers 503
        const r = await call("one-time claim", () =>
          client.set(`${prefix}used:${purpose}:${jti}`, "1", {
            condition: "NX",
            expiration: { type: "PX", value: ttlMs },
          }),
        );
        return r === "OK";
      },
    },
    // fails closed like the guard: a refresh that cannot see its family answers 503
    records: {
      async get(key) {
        const v = await call("record read", () => client.get(`${prefix}record:${key}`));
        return v ?? undefined;
      },
      async set(key, value, ttlMs) {
        await call("record write", () =>
          client.set(`${prefix}record:${key}`, value, { expiration: { type: "PX", value: ttlMs } }),
        );
      },
    },
    registerLimiter: {
      async hit(key) {
        const k = `${prefix}register:${key}`;
        try {
          return await call("registration limit", async () => {
            const count = await client.incr(k);
            if (count === 1) await client.pExpire(k, HOUR_MS);
            if (count <= limitPerHour) return { allowed: true, retryAfterSeconds: 0 };
            const ttl = await client.pTTL(k);
            return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
          });
        } catch (err) {
          // Fails open to this replica's own count: a registration grants nothing by itself
          // (every sign-in still needs the user at the forge, and one-time use stays closed), so
          // while Redis is down /register keeps working with a per-replica limit rather than
          // refusing every new client. One warning per outage, not per request.
          if (!limiterOpen) {
            limiterOpen = true;
            warn(
              `Redis at ${where} unavailable (${(err as Error).message}): the registration limit counts per replica until it answers again`,
            );
          }
          return local.hit(key);
        }
      },
    },
    health,
    async check() {
      try {
        await call("ping", () => client.ping());
      } catch {}
      return health();
    },
    cancels: {
      publish(message) {
        if (channelRefused) return; // said once at start-up
        // not awaited by the request (its notification is answered at once); bounded like every
        // call, and failing fast while the connection is down (no offline queue)
        call("cancel publish", () => client.publish(channel, message)).catch((err: Error) =>
          warn(`Redis at ${where}: a cancel was not sent to the other replicas (${err.message})`),
        );
      },
      listen(heard) {
        listeners.push(heard);
      },
    },
    async close() {
      closed = true;
      // a wedged connection never answers QUIT: bounded, then torn down; one that is down (Redis
      // gone, the client retrying) is torn down at once rather than waiting out the bound
      const tearDown = (c: typeof client) => {
        try {
          c.destroy();
        } catch {}
      };
      await Promise.all(
        [client, subscriber].map((c) =>
          c.isReady ? bounded(c.quit(), callTimeoutMs, "quit").catch(() => tearDown(c)) : tearDown(c),
        ),
      );
    },
  };
}
