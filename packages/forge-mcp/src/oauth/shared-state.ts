import { LRUCache } from "lru-cache";

/**
 * State that must be shared for exactness across replicas: one-time use of sealed values and the
 * registration rate limit. Without Redis each replica keeps its own (exact within a replica;
 * across replicas a sealed value is bounded only by its short expiry). With REDIS_URL both are
 * exact across the whole deployment (SET NX / INCR).
 */

export interface OneTimeGuard {
  /** True the first time (purpose, jti) is claimed before it expires; false afterwards. */
  claim(purpose: string, jti: string, expiresAt: number): Promise<boolean>;
}

export interface RateLimiter {
  /** Counts one hit for key; returns how many seconds to wait when over the limit. */
  hit(key: string): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

export interface SharedState {
  guard: OneTimeGuard;
  registerLimiter: RateLimiter;
  close(): Promise<void>;
}

const HOUR_MS = 3600_000;

export function memorySharedState(limitPerHour: number, now: () => number): SharedState {
  const used = new LRUCache<string, true>({ max: 100_000 });
  const windows = new LRUCache<string, { start: number; count: number }>({ max: 100_000 });
  return {
    guard: {
      async claim(purpose, jti, expiresAt) {
        const key = `${purpose}:${jti}`;
        if (used.has(key)) return false;
        const ttl = expiresAt > 0 ? Math.max(1, expiresAt - now()) : undefined;
        used.set(key, true, ttl === undefined ? {} : { ttl });
        return true;
      },
    },
    registerLimiter: {
      async hit(key) {
        const t = now();
        let w = windows.get(key);
        if (!w || t - w.start >= HOUR_MS) w = { start: t, count: 0 };
        w.count += 1;
        windows.set(key, w);
        const allowed = w.count <= limitPerHour;
        return { allowed, retryAfterSeconds: allowed ? 0 : Math.ceil((w.start + HOUR_MS - t) / 1000) };
      },
    },
    async close() {},
  };
}

export async function redisSharedState(
  url: string,
  limitPerHour: number,
  now: () => number,
  connectTimeoutMs = 10_000,
): Promise<SharedState> {
  // Loaded only when REDIS_URL is set: most deployments never need the client.
  const { createClient } = await import("redis");
  let connected = false;
  const client = createClient({
    url,
    socket: {
      connectTimeout: Math.min(5000, connectTimeoutMs),
      // Before the first connection a failure is final (start-up must not wait forever); after
      // it, reconnect with a short backoff.
      reconnectStrategy: (n, cause) => (connected ? Math.min(n * 100, 2000) : cause),
    },
  });
  // Errors are reported per call (rejected promises); the event only keeps the process alive.
  client.on("error", () => {});
  const where = (() => {
    try {
      const u = new URL(url);
      return `${u.hostname}:${u.port || 6379}`; // never the password
    } catch {
      return "REDIS_URL";
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${connectTimeoutMs} ms`)),
          connectTimeoutMs,
        );
      }),
    ]);
    connected = true;
  } catch (err) {
    try {
      client.destroy();
    } catch {} // already closed by the failed connect
    throw new Error(`cannot reach Redis at ${where} (REDIS_URL): ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
  return {
    guard: {
      async claim(purpose, jti, expiresAt) {
        const ttlMs = expiresAt > 0 ? Math.max(1, expiresAt - now()) : HOUR_MS;
        const r = await client.set(`forge-mcp:used:${purpose}:${jti}`, "1", {
          condition: "NX",
          expiration: { type: "PX", value: ttlMs },
        });
        return r === "OK";
      },
    },
    registerLimiter: {
      async hit(key) {
        const k = `forge-mcp:register:${key}`;
        const count = await client.incr(k);
        if (count === 1) await client.pExpire(k, HOUR_MS);
        if (count <= limitPerHour) return { allowed: true, retryAfterSeconds: 0 };
        const ttl = await client.pTTL(k);
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
      },
    },
    async close() {
      await client.quit().catch(() => {});
    },
  };
}
