import type {
  ForgeState,
  ForgeUser,
  OAuthApplication,
  OAuthToken,
  PersonalAccessToken,
} from "../model/state.js";
import { nextId, secretValue, userByName } from "../model/state.js";
import { ACCESS_TOKEN_TTL_SECONDS, addToken, KNOWN_SCOPES, oauthExpired } from "../oauth/tokens.js";
import { check, isObj, type RecordKind, SeedError } from "./records.js";

const REDACTED = "…[redacted]";

/** How the state dump shows a secret: its first four characters. */
export const redacted = (value: string) => `${value.slice(0, 4)}${REDACTED}`;

/** Whether a stored secret came from a dump (redacted): such a value never authenticates. */
export const isRedacted = (value: string) => value.endsWith(REDACTED);

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
  // a dumped secret is redacted: the application keeps the secret it has
  const secret =
    typeof a.secret === "string" && a.secret.endsWith(REDACTED) && existing?.secret
      ? existing.secret
      : a.secret;
  const app: OAuthApplication = {
    id: existing?.id ?? nextId(state, "app"),
    uid: a.uid,
    ...(typeof secret === "string" ? { secret } : {}),
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
  // a dumped token's value is redacted: the row is kept under a value no client was given
  const value = typeof t.token === "string" ? t.token : secretValue(state);
  const token: OAuthToken = {
    token: value.endsWith(REDACTED) ? `${value}#${state.tokens.size + 1}` : value,
    refresh_token: typeof t.refresh_token === "string" ? t.refresh_token : secretValue(state),
    app_uid: app,
    user_id: ownerId(state, t.user, "tokens[]"),
    scopes: scopes(t.scopes, "tokens[]", ["api"]),
    created_at_ms: typeof t.created_at === "number" ? t.created_at * 1000 : state.clock.now(),
    expires_in: typeof t.expires_in === "number" ? t.expires_in : ACCESS_TOKEN_TTL_SECONDS,
    ...(t.revoked === true ? { revoked_at_ms: state.clock.now() } : {}),
    refreshed: t.refreshed === true,
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
  // A dumped token (its value redacted) restores its row: the plaintext stays where the row is
  // still held, and a row no simulator holds any more is kept under a key no client can send.
  const held = typeof p.id === "number" ? [...state.pats].find(([, x]) => x.id === p.id) : undefined;
  const restores = held !== undefined && p.token.endsWith(REDACTED) && redacted(held[1].token) === p.token;
  if (restores) state.pats.delete(held[0]);
  const token = restores ? held[1].token : p.token;
  const pat: PersonalAccessToken = {
    id: typeof p.id === "number" ? p.id : nextId(state, "pat"),
    token,
    user_id: ownerId(state, p.user, "personal_access_tokens[]"),
    name: typeof p.name === "string" ? p.name : "seeded",
    scopes: scopes(p.scopes, "personal_access_tokens[]", ["api"]),
    expires_at: typeof p.expires_at === "string" ? p.expires_at : null,
    revoked: p.revoked === true,
    created_at: typeof p.created_at === "string" ? p.created_at : state.clock.iso(),
  };
  state.seq.pat = Math.max(state.seq.pat, pat.id);
  const key = !restores && p.token.endsWith(REDACTED) ? `${token}#${pat.id}` : token;
  state.pats.set(key, pat);
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

const username = (state: ForgeState, id: number) => state.users.find((u) => u.id === id)?.username ?? null;

/**
 * The identities as record kinds: upserted by a seed (a `replace: true` keeps them) and dumped
 * with every secret redacted (seeding such a dump keeps the plaintext the simulator holds).
 * Authorization codes and device grants are dumped for reading only.
 */
export const identities: RecordKind[] = [
  {
    key: "users",
    seed(state, rows) {
      for (const u of rows) upsertUser(state, u);
    },
    dump: (state) => state.users,
  },
  {
    key: "applications",
    seed(state, rows) {
      for (const a of rows) upsertApplication(state, a);
    },
    dump: (state) =>
      state.applications.map(({ secret, ...a }) => ({
        ...a,
        ...(secret ? { secret: redacted(secret) } : {}),
      })),
  },
  {
    key: "tokens",
    seed(state, rows) {
      for (const t of rows) addOAuthTokenSeed(state, t);
    },
    dump: (state) =>
      [...state.tokens.values()].map((t) => ({
        token: redacted(t.token),
        application: t.app_uid,
        user: username(state, t.user_id),
        scopes: t.scopes,
        created_at: Math.floor(t.created_at_ms / 1000),
        expires_in: t.expires_in,
        expired: oauthExpired(state, t),
        revoked: t.revoked_at_ms !== undefined,
        refreshed: t.refreshed,
      })),
  },
  {
    key: "personal_access_tokens",
    seed(state, rows) {
      for (const p of rows) addPatSeed(state, p);
    },
    dump: (state) =>
      [...state.pats.values()].map((p) => ({
        id: p.id,
        token: redacted(p.token),
        user: username(state, p.user_id),
        name: p.name,
        scopes: p.scopes,
        expires_at: p.expires_at,
        revoked: p.revoked,
        created_at: p.created_at,
      })),
  },
  {
    key: "grants",
    dump: (state) =>
      [...state.grants.values()].map((g) => ({
        code: redacted(g.code),
        application: g.app_uid,
        user: username(state, g.user_id),
        redirect_uri: g.redirect_uri,
        scopes: g.scopes,
        code_challenge_method: g.code_challenge_method ?? null,
        expires_at: new Date(g.expires_at_ms).toISOString(),
        used: g.used,
      })),
  },
  {
    key: "devices",
    dump: (state) =>
      [...state.devices.values()].map((d) => ({
        device_code: redacted(d.device_code),
        user_code: d.user_code,
        application: d.app_uid,
        scopes: d.scopes,
        status: d.status,
        user: d.user_id === null ? null : username(state, d.user_id),
        expires_at: new Date(d.expires_at_ms).toISOString(),
      })),
  },
];
