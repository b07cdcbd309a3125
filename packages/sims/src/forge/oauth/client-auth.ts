import { createHash, timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import type { AccessGrant, ForgeState, OAuthApplication } from "../model/state.js";

type Params = Record<string, string>;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Client authentication: HTTP Basic first (RFC 6749 §2.3.1), then body parameters. */
export function authenticateClient(state: ForgeState, req: Request, body: Params): OAuthApplication | null {
  let uid = body.client_id;
  let secret = body.client_secret;
  const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? "");
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return null;
    try {
      uid = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
    } catch {
      return null;
    }
  }
  const app = state.applications.find((a) => a.uid === uid);
  if (!app) return null;
  if (app.confidential && !(secret && app.secret && sameSecret(secret, app.secret))) return null;
  return app;
}

export function pkceMatches(grant: AccessGrant, verifier: string | undefined): boolean {
  if (!grant.code_challenge) return !verifier;
  if (!verifier) return false;
  const computed =
    grant.code_challenge_method === "S256"
      ? createHash("sha256").update(verifier).digest("base64url")
      : verifier;
  return sameSecret(computed, grant.code_challenge);
}
