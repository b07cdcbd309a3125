import type {
  ForgeState,
  ForgeUser,
  OAuthApplication,
  OAuthToken,
  PersonalAccessToken,
} from "../model/state.js";
import { nextId, secretValue, userByName } from "../model/state.js";
import { ACCESS_TOKEN_TTL_SECONDS, addToken, KNOWN_SCOPES } from "../oauth/tokens.js";

/** A seed that cannot be applied: the control API answers 400 and nothing is changed. */
class SeedError extends Error {
  readonly status = 400;
  get publicMessage(): string {
    return this.message;
  }
}

export function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new SeedError(message);
}

const isObj = (v: unknown): v is Record<string, any> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function list(body: Record<string, unknown>, key: string): Record<string, any>[] {
  const v = body[key];
  if (v === undefined) return [];
  check(Array.isArray(v) && v.every(isObj), `${key} must be an array of objects`);
  return v as Record<string, any>[];
}

function scopes(v: unknown, where: string, fallback: string[]): string[] {
  if (v === undefined) return fallback;
  check(
    Array.isArray(v) && v.every((s) => typeof s === "string" && KNOWN_SCOPES.has(s)),
    `${where}: unknown scope`,
  );
  return v as string[];
}

export function upsertUser(state: ForgeState, u: Record<string, any>): ForgeUser {
  check(
    typeof u.username === "string" && /^[A-Za-z0-9_.-]+$/.test(u.username),
    "users[].username is required",
  );
  const existing = userByName(state, u.username);
  const user: ForgeUser = {
    id: existing?.id ?? (typeof u.id === "number" ? u.id : nextId(state, "user")),
    username: u.username,
    name: typeof u.name === "string" ? u.name : (existing?.name ?? u.username),
    email: typeof u.email === "string" ? u.email : (existing?.email ?? `${u.username}@example.test`),
    state: u.state === "blocked" ? "blocked" : "active",
    admin: u.admin === true,
    bio: typeof u.bio === "string" ? u.bio : (existing?.bio ?? ""),
    created_at: typeof u.created_at === "string" ? u.created_at : (existing?.created_at ?? state.clock.iso()),
  };
  state.seq.user = Math.max(state.seq.user, user.id);
  if (existing) Object.assign(existing, user);
  else state.users.push(user);
  return existing ?? user;
}

export function upsertApplication(state: ForgeState, a: Record<string, any>): OAuthApplication {
  check(typeof a.uid === "string" && a.uid.length > 0, "applications[].uid is required");
  check(
    Array.isArray(a.redirect_uris) && a.redirect_uris.every((r: unknown) => typeof r === "string"),
    `application ${a.uid}: redirect_uris must be an array of URLs`,
  );
  for (const uri of a.redirect_uris as string[]) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new SeedError(`application ${a.uid}: redirect URI ${uri} is not an absolute URI`);
    }
    check(!url.hash, `application ${a.uid}: redirect URI ${uri} cannot contain a fragment`);
    check(
      !["data:", "vbscript:", "javascript:"].includes(url.protocol),
      `application ${a.uid}: redirect URI scheme ${url.protocol} is forbidden`,
    );
  }
  const confidential = a.confidential === true;
  check(
    !confidential || typeof a.secret === "string",
    `application ${a.uid}: a confidential application needs a secret`,
  );
  const existing = state.applications.find((x) => x.uid === a.uid);
  const app: OAuthApplication = {
    id: existing?.id ?? nextId(state, "app"),
    uid: a.uid,
    ...(typeof a.secret === "string" ? { secret: a.secret } : {}),
    name: typeof a.name === "string" ? a.name : a.uid,
    confidential,
    trusted: a.trusted === true,
    redirect_uris: [...(a.redirect_uris as string[])],
    scopes: scopes(a.scopes, `application ${a.uid}`, ["api", "read_api", "read_user"]),
  };
  if (existing) {
    for (const k of Object.keys(existing)) delete (existing as unknown as Record<string, unknown>)[k];
    Object.assign(existing, app);
    return existing;
  }
  state.applications.push(app);
  return app;
}

function ownerId(state: ForgeState, v: unknown, where: string): number {
  const user = typeof v === "string" ? userByName(state, v) : state.users.find((u) => u.id === v);
  check(user, `${where}: unknown user ${String(v)}`);
  return user.id;
}

export function addOAuthTokenSeed(state: ForgeState, t: Record<string, any>): OAuthToken {
  const app = t.application === undefined || t.application === null ? null : String(t.application);
  check(
    app === null || state.applications.some((a) => a.uid === app),
    `tokens[]: unknown application ${app}`,
  );
  const token: OAuthToken = {
    token: typeof t.token === "string" ? t.token : secretValue(state),
    refresh_token: typeof t.refresh_token === "string" ? t.refresh_token : secretValue(state),
    app_uid: app,
    user_id: ownerId(state, t.user, "tokens[]"),
    scopes: scopes(t.scopes, "tokens[]", ["api"]),
    created_at_ms: typeof t.created_at === "number" ? t.created_at * 1000 : state.clock.now(),
    expires_in: typeof t.expires_in === "number" ? t.expires_in : ACCESS_TOKEN_TTL_SECONDS,
    ...(t.revoked === true ? { revoked_at_ms: state.clock.now() } : {}),
    refreshed: false,
  };
  addToken(state, token);
  return token;
}

export function addPatSeed(state: ForgeState, p: Record<string, any>): PersonalAccessToken {
  check(
    typeof p.token === "string" && p.token.length >= 8,
    "personal_access_tokens[].token is required (8+ chars)",
  );
  check(
    p.expires_at === undefined || p.expires_at === null || /^\d{4}-\d{2}-\d{2}$/.test(String(p.expires_at)),
    "personal_access_tokens[].expires_at must be YYYY-MM-DD",
  );
  const pat: PersonalAccessToken = {
    id: nextId(state, "pat"),
    token: p.token,
    user_id: ownerId(state, p.user, "personal_access_tokens[]"),
    name: typeof p.name === "string" ? p.name : "seeded",
    scopes: scopes(p.scopes, "personal_access_tokens[]", ["api"]),
    expires_at: typeof p.expires_at === "string" ? p.expires_at : null,
    revoked: p.revoked === true,
    created_at: state.clock.iso(),
  };
  state.pats.set(pat.token, pat);
  return pat;
}

/** `autoApprove: true | false | {user}`, `signedInUser`, `pkceMethods`, `edgeCache`, `rateLimit`. */
export function applySettings(state: ForgeState, body: Record<string, any>): void {
  const s = state.settings;
  const next = { ...s };
  const auto = body.autoApprove;
  if (auto !== undefined) {
    check(typeof auto === "boolean" || isObj(auto), "autoApprove must be true, false or {user}");
    if (isObj(auto)) {
      check(typeof auto.user === "string", "autoApprove.user must be a username");
      next.autoApprove = true;
      next.signedInUser = auto.user;
    } else next.autoApprove = auto;
  }
  if (body.signedInUser !== undefined) {
    check(typeof body.signedInUser === "string", "signedInUser must be a username (or empty for signed out)");
    next.signedInUser = body.signedInUser;
  }
  if (body.pkceMethods !== undefined) {
    check(
      Array.isArray(body.pkceMethods) &&
        body.pkceMethods.length > 0 &&
        body.pkceMethods.every((m: unknown) => m === "S256" || m === "plain"),
      'pkceMethods must be a non-empty subset of ["S256", "plain"]',
    );
    next.pkceMethods = body.pkceMethods;
  }
  if (body.edgeCache !== undefined) {
    check(typeof body.edgeCache === "boolean", "edgeCache must be a boolean");
    next.edgeCacheStripsAuthorization = body.edgeCache;
  }
  if (body.rateLimit !== undefined) {
    const r = body.rateLimit;
    check(
      r === null ||
        (isObj(r) &&
          Number.isInteger(r.limit) &&
          r.limit > 0 &&
          Number.isInteger(r.periodSeconds) &&
          r.periodSeconds > 0),
      "rateLimit must be null or {limit, periodSeconds} with positive integers",
    );
    next.rateLimit = r === null ? null : { limit: r.limit, periodSeconds: r.periodSeconds };
    state.rateWindow = { startMs: state.clock.now(), count: 0 };
  }
  state.settings = next;
}
