import type { Express, NextFunction, Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import type { ApiCaller } from "../model/access.js";
import { syncPipeline } from "../model/ci.js";
import { type ForgeState, type Job, userById } from "../model/state.js";
import { checkToken } from "../oauth/tokens.js";
import { API, unauthorized } from "../wire/answers.js";

const EXPIRED = "Token is expired. You can either do re-authorization or token refresh.";
const REVOKED = "Token was revoked. You have to re-authorize from the user.";

function tokenFrom(req: Request): string | undefined {
  const pat = req.headers["private-token"];
  if (typeof pat === "string" && pat) return pat;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  if (m?.[1]) return m[1];
  const q = req.query as Record<string, unknown>;
  for (const k of ["private_token", "access_token"])
    if (typeof q[k] === "string" && q[k]) return q[k] as string;
  return undefined;
}

/** A CI job token, from the `JOB-TOKEN` header or the `job_token` parameter. */
function jobTokenFrom(req: Request): string | undefined {
  const h = req.headers["job-token"];
  if (typeof h === "string" && h) return h;
  const q = (req.query as Record<string, unknown>).job_token;
  return typeof q === "string" && q ? q : undefined;
}

/**
 * The endpoints GitLab lets a CI/CD job token reach ("Job token feature access" in GitLab's CI/CD
 * job token docs): the token's own job, job artifacts, releases and their links, packages,
 * deployments, environments, secure files and Terraform state. Anywhere else GitLab does not read
 * the token at all, so the request is anonymous: 401 where a user is needed, public data only.
 */
const JOB_TOKEN_ROUTES: Array<[RegExp, RegExp]> = [
  [/^GET$/, /^\/job$/],
  [/^GET$/, /^\/projects\/[^/]+\/jobs\/\d+\/artifacts(\/.*)?$/],
  [/^GET$/, /^\/projects\/[^/]+\/jobs\/artifacts\/.+$/],
  [/./, /^\/projects\/[^/]+\/releases(\/.*)?$/],
  [/./, /^\/projects\/[^/]+\/(packages|deployments|environments|secure_files|terraform\/state)(\/.*)?$/],
];

export function jobTokenAllowed(method: string, path: string): boolean {
  return JOB_TOKEN_ROUTES.some(([m, p]) => m.test(method) && p.test(path));
}

/** The job a token belongs to, if that job is running now (its token dies with the run). */
function runningJob(state: ForgeState, token: string): Job | undefined {
  const job = state.jobs.find((j) => j.token === token);
  if (!job) return undefined;
  const pipeline = state.pipelines.find((p) => p.id === job.pipeline_id);
  if (pipeline) syncPipeline(state, pipeline);
  return job.status === "running" ? job : undefined;
}

/**
 * The scopes that allow a request: reads take `read_api` (and `read_user` for the user endpoints),
 * writes take `api`. GitLab answers a token with none of them 403 `insufficient_scope`.
 */
function allowedScopes(method: string, path: string): string[] {
  const read = method === "GET" || method === "HEAD";
  const userRead =
    read && (/^\/user$|^\/users(\/[^/]+)?$/.test(path) || path === "/version" || path === "/metadata");
  if (userRead) return ["api", "read_api", "read_user"];
  return read ? ["api", "read_api"] : ["api"];
}

export function apiAuth(app: Express, ctx: SimContext<ForgeState>): void {
  app.use(API, (req: Request, res: Response, next: NextFunction) => {
    const jobToken = jobTokenFrom(req);
    if (jobToken && !tokenFrom(req) && jobTokenAllowed(req.method, req.path)) {
      const job = runningJob(ctx.state, jobToken);
      const user = job && userById(ctx.state, job.user_id);
      if (!job || user?.state !== "active") return unauthorized(res);
      res.locals.caller = { user, scopes: ["api"], kind: "job", job } satisfies ApiCaller;
      return next();
    }
    const value = tokenFrom(req);
    if (!value) return next();
    const check = checkToken(ctx.state, value);
    if (!check.ok) {
      if (check.reason === "unknown") return unauthorized(res);
      const description = check.reason === "expired" ? EXPIRED : REVOKED;
      res.setHeader(
        "WWW-Authenticate",
        `Bearer realm="GitLab", error="invalid_token", error_description="${description}"`,
      );
      return void res.status(401).json({ error: "invalid_token", error_description: description });
    }
    const allowed = allowedScopes(req.method, req.path);
    if (!check.scopes.some((s) => allowed.includes(s))) {
      const description = "The request requires higher privileges than provided by the access token.";
      res.setHeader(
        "WWW-Authenticate",
        `Bearer realm="GitLab", error="insufficient_scope", error_description="${description}", scope="${allowed.join(" ")}"`,
      );
      return void res
        .status(403)
        .json({ error: "insufficient_scope", error_description: description, scope: allowed.join(" ") });
    }
    res.locals.caller = {
      user: check.user,
      scopes: check.scopes,
      kind: check.kind,
      ...(check.kind === "pat" ? { pat: check.pat } : {}),
    } satisfies ApiCaller;
    next();
  });
}
