import type { Express, NextFunction, Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import type { ApiCaller } from "../model/access.js";
import type { ForgeState } from "../model/state.js";
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
