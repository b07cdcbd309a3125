import { createHash } from "node:crypto";
import {
  InsufficientScopeError,
  InvalidTokenError,
  ServerError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import { fetchTokenInfo } from "./oauth-client.js";

/**
 * Verifies bearer tokens against the forge's /oauth/token/info. A token must belong to our forge
 * application (application.uid) and carry one of the accepted scopes. Verified tokens are cached
 * (keyed by a hash, never the token itself) for at most CACHE_TTL_MS and never past their expiry,
 * so steady traffic costs no forge call per request while a revoked token stops working quickly.
 */

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;
/**
 * Rejected tokens are remembered briefly (by hash), so a client repeating a bad token - or a
 * flood of the same one - costs the forge one call, not one per request. A forge failure is
 * never remembered: the next request asks again.
 */
const NEGATIVE_TTL_MS = 30_000;

interface VerifierOptions {
  rootUrl: string;
  appId: string;
  /** The token needs at least one of these scopes. */
  acceptedScopes: string[];
  timeoutMs: number;
  /** Retry token info with ?access_token= when the Authorization header was stripped. */
  queryFallback?: boolean;
  logger: Logger;
  now?: () => number;
  /** Told whether a token was answered from the caches (metrics). */
  onLookup?: (hit: boolean) => void;
  /**
   * GITLAB_OAUTH_ALLOWED_GROUPS (src/oauth/group-gate.ts): asked for every token before it is
   * cached as verified, so a token that did not come through this server's sign-in (the forge's
   * own authorize with the public app id, another deployment sharing the application) meets the
   * same gate. Its verdict lives with the token in the caches.
   */
  admits?: ((token: string) => Promise<boolean>) | undefined;
}

/** A token with its cache key and what the caches held for it when it was looked up. */
export interface TokenLookup {
  token: string;
  key: string;
  /** A verified token's info (its token blanked), a remembered rejection, or nothing: a forge call. */
  known: AuthInfo | InvalidTokenError | InsufficientScopeError | undefined;
  /** Counted already (onLookup): a request's one lookup is one hit or miss, whoever reads it. */
  counted?: boolean;
}

export class ForgeTokenVerifier implements OAuthTokenVerifier {
  private readonly cache = new LRUCache<string, AuthInfo>({ max: CACHE_MAX, ttl: CACHE_TTL_MS });
  private readonly rejected = new LRUCache<string, InvalidTokenError | InsufficientScopeError>({
    max: CACHE_MAX,
    ttl: NEGATIVE_TTL_MS,
  });
  forgeCalls = 0;

  constructor(private readonly opts: VerifierOptions) {}

  /**
   * Hashes the token and reads both caches, once: the verify budget and the bearer check of one
   * request share the answer, so neither hashes or looks up the token again.
   */
  lookup(token: string): TokenLookup {
    const key = createHash("sha256").update(token).digest("base64url");
    const now = this.opts.now ?? Date.now;
    const cached = this.cache.get(key);
    if (cached && (cached.expiresAt ?? 0) * 1000 > now()) return { token, key, known: cached };
    return { token, key, known: this.rejected.get(key) };
  }

  /** True when checking this token would cost a forge call (it is in neither cache). */
  needsForgeCall(lookup: TokenLookup): boolean {
    return lookup.known === undefined;
  }

  /**
   * The forge refused this token on an API call (revoked, or expired early): forget that it was
   * verified and remember it as rejected, so its next use is refused without a forge call.
   */
  evict(token: string): void {
    const { key } = this.lookup(token);
    this.cache.delete(key);
    this.rejected.set(key, new InvalidTokenError("Invalid or expired token"));
  }

  /**
   * A token verified before and not expired, answered without a forge call (the /mcp lane,
   * src/mcp-lane.ts): its info, counted as a cache hit as verifyLookup counts it; undefined when
   * the lookup holds a rejection or nothing.
   */
  knownAuth(lookup: TokenLookup): AuthInfo | undefined {
    const { token, known } = lookup;
    if (known === undefined || known instanceof Error) return undefined;
    this.count(lookup);
    return { ...known, token };
  }

  private count(lookup: TokenLookup): void {
    if (lookup.counted) return;
    lookup.counted = true;
    this.opts.onLookup?.(lookup.known !== undefined);
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    return this.verifyLookup(this.lookup(token));
  }

  /** Answers from the lookup's cache entry, or asks the forge and remembers the answer. */
  async verifyLookup(lookup: TokenLookup): Promise<AuthInfo> {
    const { token, key, known } = lookup;
    this.count(lookup);
    try {
      // A remembered rejection is set again below, so a token that keeps coming stays refused.
      if (known instanceof Error) throw known;
      if (known) return { ...known, token };
      return await this.askForge(token, key);
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof InsufficientScopeError)
        this.rejected.set(key, err);
      throw err;
    }
  }

  private async askForge(token: string, key: string): Promise<AuthInfo> {
    const now = this.opts.now ?? Date.now;
    this.forgeCalls += 1;
    let info: Awaited<ReturnType<typeof fetchTokenInfo>>;
    try {
      info = await fetchTokenInfo(this.opts.rootUrl, token, this.opts.timeoutMs, this.opts.queryFallback);
    } catch (err) {
      this.opts.logger.error({ err: (err as Error).message }, "token verification: forge call failed");
      throw new ServerError("Token verification is unavailable");
    }
    if (!info) throw new InvalidTokenError("Invalid or expired token");
    if (info.application?.uid !== this.opts.appId) {
      this.opts.logger.warn(
        { application: info.application?.uid ?? null },
        "token rejected: issued to another application",
      );
      throw new InvalidTokenError("Invalid or expired token");
    }
    if (!info.scope.some((s) => this.opts.acceptedScopes.includes(s))) {
      this.opts.logger.warn({ scope: info.scope }, "token rejected: missing required scope");
      throw new InsufficientScopeError(
        `Token needs one of the scopes: ${this.opts.acceptedScopes.join(" ")}`,
      );
    }
    if (this.opts.admits) {
      let admitted: boolean;
      try {
        admitted = await this.opts.admits(token);
      } catch (err) {
        // fail closed, and not remembered: the next request asks again
        this.opts.logger.error({ err: (err as Error).message }, "token verification: group look-up failed");
        throw new ServerError("Token verification is unavailable");
      }
      if (!admitted) {
        this.opts.logger.warn(
          { userId: info.resource_owner_id },
          "token rejected: the user is in none of the allowed groups",
        );
        throw new InvalidTokenError("Invalid or expired token");
      }
    }
    // Doorkeeper reports null for non-expiring tokens; bound our trust by the cache TTL then.
    const ttlMs = info.expires_in === null ? CACHE_TTL_MS : Math.min(CACHE_TTL_MS, info.expires_in * 1000);
    const authInfo: AuthInfo = {
      token,
      clientId: info.application.uid,
      scopes: info.scope,
      expiresAt: Math.floor((now() + (info.expires_in === null ? 3600_000 : info.expires_in * 1000)) / 1000),
      extra: { userId: info.resource_owner_id },
    };
    if (ttlMs > 0) this.cache.set(key, { ...authInfo, token: "" }, { ttl: ttlMs });
    return authInfo;
  }
}
