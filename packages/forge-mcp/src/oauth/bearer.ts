import type { IncomingMessage } from "node:http";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { RequestHandler } from "express";
import type { ForgeTokenVerifier, TokenLookup } from "../forge/verify.js";
import { authParam, bearerChallenge } from "./scopes.js";
import { FixedWindows } from "./windows.js";

/**
 * The bearer credential of an Authorization header, read as the SDK's bearer check reads it
 * (`<scheme> <token>` split on single spaces, the scheme in any case: RFC 7235 §2.1), so the verify
 * budget and the check always speak of the same token, whatever case the scheme is written in.
 */
export function parseBearer(header: string | undefined): { token: string } | undefined {
  const [scheme = "", token] = (header ?? "").split(" ");
  if (scheme.toLowerCase() !== "bearer" || !token) return undefined;
  return { token };
}

export interface BearerOptions {
  /** Forge token checks one client IP may cause a minute. */
  perMinute: number;
  /** Named in the WWW-Authenticate header of a 401 (RFC 9728 §5.1). */
  resourceMetadataUrl: string;
  /** The scope a 401 or 403 challenge names (RFC 6750 §3): what sign-in should ask for. */
  scope: string[];
  now: () => number;
}

export interface BearerChecks {
  /** What /mcp runs before the body is read: the verify budget, then the SDK's bearer check. */
  handlers: RequestHandler[];
  /**
   * What those checks would set as req.auth when they would let the request through without a
   * forge call: a well-formed bearer whose token was verified before, with the expiry the SDK's
   * check demands (a number, not past). Undefined for everything else (no or another credential,
   * a remembered rejection, an unknown token, an expiry the SDK would refuse): the /mcp lane
   * (src/mcp-lane.ts) then leaves the request to the checks themselves, which answer it as always.
   */
  known(req: IncomingMessage): AuthInfo | undefined;
}

/**
 * The bearer checks of /mcp. A request's token is parsed, hashed and looked up in the verifier's
 * caches once, by whichever runs first (the lane's `known` or the budget); the rest share it.
 */
export function bearerChecks(verifier: ForgeTokenVerifier, o: BearerOptions): BearerChecks {
  const lookups = new WeakMap<IncomingMessage, TokenLookup>();
  const lookupFor = (req: IncomingMessage, token: string) => {
    const known = lookups.get(req);
    if (known?.token === token) return known;
    const lookup = verifier.lookup(token);
    lookups.set(req, lookup);
    return lookup;
  };
  const check: RequestHandler = (req, res, next) => {
    // RFC 6750 §3.1: a request with no credential (no Authorization header, or another scheme than
    // Bearer) gets a challenge without an error code, only where to sign in; the SDK's check would
    // call it invalid_token, which a client may take for "your token is bad" and drop a good one.
    const scheme = (req.headers.authorization ?? "").split(" ")[0]!.toLowerCase();
    if (scheme !== "bearer") {
      res.setHeader(
        "WWW-Authenticate",
        bearerChallenge({ scope: o.scope, resourceMetadataUrl: o.resourceMetadataUrl }),
      );
      res
        .status(401)
        .json({ error_description: "Authentication required: send a forge access token as Bearer" });
      return;
    }
    // The SDK names a scope in its challenge only with requiredScopes, which it then demands all
    // of; ours are any-of (`api` or `read_api`), so the scope is added to its challenge here.
    const setHeader = res.setHeader;
    res.setHeader = function (this: typeof res, name, value) {
      const scoped =
        name.toLowerCase() === "www-authenticate"
          ? `${value}, ${authParam("scope", o.scope.join(" "))}`
          : value;
      return setHeader.call(this, name, scoped);
    } as typeof res.setHeader;
    requireBearerAuth({
      verifier: { verifyAccessToken: (token) => verifier.verifyLookup(lookupFor(req, token)) },
      resourceMetadataUrl: o.resourceMetadataUrl,
    })(req, res, (err?: unknown) => {
      res.setHeader = setHeader;
      next(err);
    });
  };
  const known = (req: IncomingMessage): AuthInfo | undefined => {
    const bearer = parseBearer(req.headers.authorization);
    if (!bearer) return undefined;
    const lookup = lookupFor(req, bearer.token);
    const info = lookup.known;
    if (info === undefined || info instanceof Error) return undefined;
    // requireBearerAuth's own tests of a verified token (the SDK, server/auth/middleware/bearerAuth)
    const expiresAt = info.expiresAt;
    if (typeof expiresAt !== "number" || Number.isNaN(expiresAt) || expiresAt < Date.now() / 1000)
      return undefined;
    return verifier.knownAuth(lookup);
  };
  return { handlers: [verifyBudget(verifier, o, lookupFor), check], known };
}

/**
 * Bounds the forge token-info calls one client IP can cause: a bearer that is in neither of the
 * verifier's caches costs a forge call, so random tokens from one source would otherwise spend
 * the forge's rate limit that real users share. Over the budget the request gets 429 with
 * Retry-After, without a forge call; cached tokens (good or bad) never count.
 */
function verifyBudget(
  verifier: ForgeTokenVerifier,
  { perMinute, now }: BearerOptions,
  lookupFor: (req: IncomingMessage, token: string) => TokenLookup,
): RequestHandler {
  const windows = new FixedWindows(60_000);
  return (req, res, next) => {
    const bearer = parseBearer(req.headers.authorization);
    if (!bearer) return next();
    const lookup = lookupFor(req, bearer.token);
    if (!verifier.needsForgeCall(lookup)) return next();
    const ip = req.ip ?? "unknown";
    const t = now();
    const w = windows.hit(ip, t);
    if (w.count <= perMinute) return next();
    res.setHeader("Retry-After", String(Math.max(1, Math.ceil((w.start + 60_000 - t) / 1000))));
    res
      .status(429)
      .json({ error: "too_many_requests", error_description: "Too many token checks; retry later" });
  };
}
