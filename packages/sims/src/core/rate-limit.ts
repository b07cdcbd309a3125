/**
 * A provider's request limit: one token bucket per API key. A key starts with `burst` tokens (by
 * default `limit`); tokens come back continuously at `limit` per `periodSeconds`; a request takes
 * one or, when none is left, is answered 429. Time is the simulated clock's, so a test can refill
 * every bucket by moving the clock forward.
 */
export interface RateLimitConfig {
  /** Requests per period. */
  limit: number;
  /** Length of the period; 60 (requests per minute) when omitted. */
  periodSeconds?: number;
  /** How many requests a key may make at once from a full bucket; `limit` when omitted. */
  burst?: number;
}

/** What the bucket says about one request, from which each simulator renders its own headers. */
export interface BucketReading {
  /** `limit` of the configuration (the number a provider advertises). */
  limit: number;
  periodSeconds: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** When the bucket will be full again (simulated clock, ms). */
  resetAtMs: number;
  /** For a refused request: how long until one token is back (ms); 0 otherwise. */
  retryAfterMs: number;
  nowMs: number;
}

/** A simulator's limit headers: for a served answer (`limited` false) and for its 429. */
export type RateLimitHeaders = (reading: BucketReading, limited: boolean) => Record<string, string>;

/** Providers that document no limit headers answer a 429 with `Retry-After` (whole seconds) only. */
export const retryAfterOnly: RateLimitHeaders = (r, limited): Record<string, string> =>
  limited ? { "Retry-After": String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))) } : {};

export function validateRateLimit(config: unknown): asserts config is RateLimitConfig | null | undefined {
  if (config === undefined || config === null) return;
  const c = config as Record<string, unknown>;
  const positive = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v > 0;
  if (
    typeof config !== "object" ||
    !positive(c.limit) ||
    (c.periodSeconds !== undefined && !positive(c.periodSeconds)) ||
    (c.burst !== undefined && !(positive(c.burst) && (c.burst as number) >= 1))
  ) {
    throw new RangeError("rateLimit must be null or {limit, periodSeconds?, burst?} with positive numbers");
  }
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private readonly capacity: number;
  private readonly periodSeconds: number;

  constructor(private readonly config: RateLimitConfig) {
    this.periodSeconds = config.periodSeconds ?? 60;
    this.perMs = config.limit / (this.periodSeconds * 1000);
    this.capacity = config.burst ?? config.limit;
  }

  /** Takes a token for `key` at `nowMs`; `allowed` false when the bucket is empty. */
  take(key: string, nowMs: number): BucketReading & { allowed: boolean } {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.capacity, atMs: nowMs };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(this.capacity, bucket.tokens + Math.max(0, nowMs - bucket.atMs) * this.perMs);
    bucket.atMs = Math.max(bucket.atMs, nowMs);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      limit: this.config.limit,
      periodSeconds: this.periodSeconds,
      remaining: Math.floor(bucket.tokens),
      resetAtMs: nowMs + Math.ceil((this.capacity - bucket.tokens) / this.perMs),
      retryAfterMs: allowed ? 0 : Math.ceil((1 - bucket.tokens) / this.perMs),
      nowMs,
    };
  }
}
