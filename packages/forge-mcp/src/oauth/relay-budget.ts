import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { OAuthError } from "./errors.js";
import { FixedWindows } from "./windows.js";

/**
 * Bounds the forge calls that `/token` (refresh, and the passthrough code exchange) and `/revoke`
 * relay for one client address, as the verify budget bounds `/mcp`'s token checks: random
 * refresh tokens or revocations from one source would otherwise spend the forge's rate limit
 * that real users share. A refresh token the forge refused is remembered (by hash) for 30 s and
 * refused again without a forge call; so is a token already revoked (answered 200 again). Past
 * `perMinute` forge calls in a minute, the address gets 429 with Retry-After and no forge call.
 * Per process, like the verify budget.
 */

const REMEMBER_MS = 30_000;
const WINDOW_MS = 60_000;

const hash = (t: string) => createHash("sha256").update(t).digest("base64url");

export class RelayBudget {
  private readonly windows = new FixedWindows(WINDOW_MS);
  private readonly refused = new LRUCache<string, true>({ max: 10_000, ttl: REMEMBER_MS });
  private readonly revoked = new LRUCache<string, true>({ max: 10_000, ttl: REMEMBER_MS });

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** True when the forge refused this refresh token moments ago: answer invalid_grant again. */
  wasRefused(token: string): boolean {
    return this.refused.get(hash(token)) !== undefined;
  }
  rememberRefused(token: string): void {
    this.refused.set(hash(token), true);
  }
  /** True when this token was revoked moments ago: answer 200 again without a forge call. */
  wasRevoked(token: string): boolean {
    return this.revoked.get(hash(token)) !== undefined;
  }
  rememberRevoked(token: string): void {
    this.revoked.set(hash(token), true);
  }

  /** Counts one forge call for `source`; throws 429 (with Retry-After) past the budget. */
  spend(source: string | undefined, where: string): void {
    const key = source ?? "unknown";
    const t = this.now();
    const w = this.windows.hit(key, t);
    if (w.count <= this.perMinute) return;
    const err = new OAuthError("too_many_requests", `${where}: forge relay budget spent for ${key}`);
    throw Object.assign(err, {
      retryAfterSeconds: Math.max(1, Math.ceil((w.start + WINDOW_MS - t) / 1000)),
    });
  }
}
