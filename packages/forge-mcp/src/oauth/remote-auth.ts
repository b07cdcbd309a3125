import { createHash } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Request, RequestHandler, Response } from "express";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import { ForgeApi, type TokenKind } from "../forge/api.js";
import { ForgeHttpError } from "../forge/http.js";
import { decodedPath } from "../forge/project-ids.js";
import { FixedWindows } from "./windows.js";

/**
 * REMOTE_AUTHORIZATION=true: every /mcp request carries its user's own forge credential — a
 * personal access token (`Private-Token`), a CI/CD job token (`JOB-TOKEN`), or any token the forge
 * takes as a bearer (`Authorization: Bearer`, also OAuth tokens obtained elsewhere), in that order
 * of preference, as gitlab-mcp reads them — and the tools act with it. No OAuth flow, no token of
 * the server's own. A job token travels on to the forge as `JOB-TOKEN` (the only way GitLab reads
 * one), so it reaches only the endpoints GitLab opens to job tokens, while its job runs.
 *
 * The credential is verified at the forge (`GET /user`; a job token, which `/user` does not take,
 * with `GET /job`, whose `user` is who triggered the job) and the answer cached like OAuth tokens
 * are (keyed by a hash of forge, kind and token, never the token; 60 s, a rejection 30 s), so steady
 * traffic costs no forge call per request. It lives only in the request (req.auth, the tools'
 * authInfo): nothing carries it to another request, and it is never logged.
 *
 * Several forges (ENABLE_DYNAMIC_API_URL): a request may pick its forge with `X-GitLab-API-URL`,
 * which must name the origin of FORGE_API_URL or of an entry of GITLAB_ALLOWED_HOSTS; anything
 * else is refused before any call (an open selector would let callers make this server call any
 * address: SSRF). Without ENABLE_DYNAMIC_API_URL the header is refused unless it names the
 * configured forge, so a token is never sent to a forge its owner did not mean.
 */

const CACHE_TTL_MS = 60_000;
const NEGATIVE_TTL_MS = 30_000;

export interface RemoteAuthOptions {
  apiUrl: string;
  /**
   * ENABLE_DYNAMIC_PROJECT_SCOPE: a request's `X-GitLab-Allowed-Project-Ids` becomes its
   * authInfo's `allowedProjects` (the forge client narrows the project list by it); without it the
   * header is ignored.
   */
  projectScopeHeader?: boolean;
  /** Origins a request may select with X-GitLab-API-URL (undefined: the header is not served). */
  allowedOrigins: Set<string> | undefined;
  timeoutMs: number;
  /** Forge checks of unknown credentials one client IP may cause a minute. */
  perMinute: number;
  logger: Logger;
  now?: () => number;
  /** Told whether a credential was answered from the cache (metrics). */
  onLookup?: (hit: boolean) => void;
  /** Told when a client IP is over its budget (metrics). */
  onRateLimited?: () => void;
}

/** The API base a request selects: the header's URL, ending in /api/v4. */
function apiBase(header: string): URL | undefined {
  if (!URL.canParse(header)) return undefined;
  const u = new URL(header);
  if (!/^https?:$/.test(u.protocol) || u.username || u.password || u.search || u.hash) return undefined;
  const path = u.pathname.replace(/\/+$/, "");
  u.pathname = /\/api\/v4$/.test(path) ? path : `${path}/api/v4`;
  return u;
}

function refuse(res: Response, status: number, message: string, challenge?: string): void {
  if (challenge) res.setHeader("WWW-Authenticate", challenge);
  res.status(status).json({ jsonrpc: "2.0", error: { code: -32001, message }, id: null });
}

/** Who a request says it is: the forge it talks to and its credential, or why it is refused. */
type Claim =
  | { apiUrl: string; token: string; kind: TokenKind; key: string; projects: string[] | undefined }
  | { refused: "selector" | "no credential" | "projects" };

const MAX_SESSION_PROJECTS = 100;

/**
 * X-GitLab-Allowed-Project-Ids: comma-separated project ids or full paths (a path may come
 * URL-encoded, as in API paths). Undefined when absent; "bad" when present but empty, longer than
 * MAX_SESSION_PROJECTS, or holding an entry that is neither (the request is then refused: a
 * request that meant to narrow must not run unnarrowed).
 */
export function sessionProjects(header: string | string[] | undefined): string[] | "bad" | undefined {
  if (header === undefined) return undefined;
  const entries = (Array.isArray(header) ? header.join(",") : header)
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)
    .map(decodedPath);
  if (entries.length === 0 || entries.length > MAX_SESSION_PROJECTS) return "bad";
  if (!entries.every((e) => /^\d+$/.test(e) || /^[\w.-]+(\/[\w.-]+)+$/.test(e))) return "bad";
  return [...new Set(entries)];
}

export interface RemoteAuthorization {
  /** /mcp's Express middleware: refuses or sets req.auth. */
  check: RequestHandler;
  /**
   * What `check` would set as req.auth when it can tell without a forge call: a credential
   * verified before, sent the way `check` reads it (the /mcp lane, src/mcp-lane.ts). Undefined for
   * everything else, which `check` then answers.
   */
  known(req: IncomingMessage): AuthInfo | undefined;
}

export function remoteAuthorization(o: RemoteAuthOptions): RemoteAuthorization {
  const now = o.now ?? Date.now;
  const verified = new LRUCache<string, { userId: number; username: string }>({
    max: 10_000,
    ttl: CACHE_TTL_MS,
  });
  const rejected = new LRUCache<string, true>({ max: 10_000, ttl: NEGATIVE_TTL_MS });
  const windows = new FixedWindows(60_000);
  const defaultOrigin = new URL(o.apiUrl).origin;

  const claim = (headers: IncomingHttpHeaders): Claim => {
    // the forge this request talks to
    let apiUrl = o.apiUrl;
    const selector = headers["x-gitlab-api-url"];
    if (typeof selector === "string" && selector.trim()) {
      const base = apiBase(selector.trim());
      const allowed = o.allowedOrigins ?? new Set([defaultOrigin]);
      if (!base || !allowed.has(base.origin)) return { refused: "selector" };
      apiUrl = base.origin === defaultOrigin ? o.apiUrl : base.href.replace(/\/+$/, "");
    }
    // the credential: Private-Token, then JOB-TOKEN, then Authorization: Bearer (gitlab-mcp's order)
    const header = (name: string) => {
      const v = headers[name];
      return typeof v === "string" && v.trim() ? v.trim() : undefined;
    };
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "")?.[1];
    const pat = header("private-token");
    const job = pat ? undefined : header("job-token");
    const token = pat ?? job ?? bearer;
    const kind: TokenKind = job ? "job" : "bearer";
    if (!token) return { refused: "no credential" };
    const projects = o.projectScopeHeader
      ? sessionProjects(headers["x-gitlab-allowed-project-ids"])
      : undefined;
    if (projects === "bad") return { refused: "projects" };
    // the kind is part of the key: a value checked as one kind of token says nothing of the other
    const key = createHash("sha256").update(`${apiUrl}\n${kind}\n${token}`).digest("base64url");
    return { apiUrl, token, kind, key, projects };
  };
  const authOf = (
    c: Extract<Claim, { token: string }>,
    user: { userId: number; username: string },
  ): AuthInfo => ({
    token: c.token,
    clientId: "remote-authorization",
    scopes: [],
    extra: {
      userId: user.userId,
      username: user.username,
      apiUrl: c.apiUrl,
      tokenKind: c.kind,
      ...(c.projects ? { allowedProjects: c.projects } : {}),
    },
  });

  const check: RequestHandler = async (req: Request, res: Response, next) => {
    const c = claim(req.headers);
    const challenge = 'Bearer realm="forge-mcp"';
    if ("refused" in c) {
      if (c.refused === "selector") {
        o.logger.warn("remote authorization: X-GitLab-API-URL names a forge this server does not serve");
        return refuse(res, 400, "X-GitLab-API-URL names a forge this server does not serve");
      }
      if (c.refused === "projects")
        return refuse(
          res,
          400,
          `X-GitLab-Allowed-Project-Ids must be a comma list of 1 to ${MAX_SESSION_PROJECTS} project ids or full paths (group/project)`,
        );
      return refuse(
        res,
        401,
        "Authentication required: send your forge token as Private-Token, JOB-TOKEN or Authorization: Bearer",
        challenge,
      );
    }
    const { apiUrl, token, kind, key } = c;
    let user = verified.get(key);
    if (!counted.has(req)) o.onLookup?.(user !== undefined || rejected.has(key));
    if (!user) {
      if (rejected.has(key)) return refuse(res, 401, "Invalid or expired forge token", challenge);
      // an unknown credential costs a forge call: bounded per client address
      const ip = req.ip ?? "unknown";
      const t = now();
      const w = windows.hit(ip, t);
      if (w.count > o.perMinute) {
        o.onRateLimited?.();
        res.setHeader("Retry-After", String(Math.max(1, Math.ceil((w.start + 60_000 - t) / 1000))));
        return refuse(res, 429, "Too many token checks; retry later");
      }
      try {
        const api = new ForgeApi(apiUrl, token, o.timeoutMs, undefined, undefined, kind);
        const r = await api.get(kind === "job" ? "/job" : "/user");
        const u = (kind === "job" ? ((r.data as { user?: unknown }).user ?? {}) : r.data) as {
          id?: unknown;
          username?: unknown;
        };
        if (typeof u.id !== "number" || typeof u.username !== "string")
          throw new ForgeHttpError(401, "", undefined);
        user = { userId: u.id, username: u.username };
        verified.set(key, user);
      } catch (err) {
        if (err instanceof ForgeHttpError && (err.status === 401 || err.status === 403)) {
          rejected.set(key, true);
          return refuse(res, 401, "Invalid or expired forge token", challenge);
        }
        o.logger.error({ err: (err as Error).message }, "remote authorization: the forge could not be asked");
        return refuse(res, 503, "The forge could not verify the token; retry later");
      }
    }
    (req as Request & { auth?: AuthInfo }).auth = authOf(c, user);
    next();
  };

  // requests whose cache lookup `known` has counted: the lane may still hand them to `check`
  const counted = new WeakSet<IncomingMessage>();
  const known = (req: IncomingMessage): AuthInfo | undefined => {
    const c = claim(req.headers);
    if ("refused" in c) return undefined;
    const user = verified.get(c.key);
    if (user === undefined) return undefined;
    o.onLookup?.(true);
    counted.add(req);
    return authOf(c, user);
  };

  return { check, known };
}
