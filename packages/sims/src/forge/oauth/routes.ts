import type { Express, NextFunction, Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import type { AccessGrant, ForgeState, OAuthApplication, OAuthToken } from "../model/state.js";
import { secretValue, userById, userByName } from "../model/state.js";
import { authenticateClient, pkceMatches } from "./client-auth.js";
import { DEVICE_GRANT_TYPE, deviceRoutes, exchangeDevice } from "./device.js";
import { idToken } from "./id-token.js";
import { oauthMetaRoutes } from "./metadata.js";
import { consentPage, errorPage } from "./pages.js";
import {
  CODE_TTL_MS,
  DEFAULT_SCOPES,
  issueToken,
  KNOWN_SCOPES,
  oauthExpired,
  oauthSecondsLeft,
  parseScopes,
  tokenResponse,
} from "./tokens.js";
import { bearerValue, OAUTH_MESSAGES, oauthError, type Params, stringParams } from "./wire.js";

const missingParam = (name: string) => `Missing required parameter: ${name}.`;

interface PreAuthorization {
  app: OAuthApplication;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: "S256" | "plain" | undefined;
  /** The validated parameters, carried through the consent form. */
  params: Params;
}

type PreResult =
  | { kind: "ok"; pre: PreAuthorization }
  | { kind: "page"; status: number; error: string; description: string }
  | { kind: "redirect"; location: string };

export function errorRedirect(redirectUri: string, error: string, description: string, state?: string) {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  if (state !== undefined) url.searchParams.set("state", state);
  return url.toString();
}

/**
 * Doorkeeper's pre-authorization, in its order: the client and the redirect URI are checked first
 * and fail on an HTML page (never redirecting to an unverified URI); everything after that fails by
 * redirecting to the now-trusted redirect URI.
 */
function preAuthorize(state: ForgeState, p: Params): PreResult {
  const app = state.applications.find((a) => a.uid === p.client_id);
  if (!app)
    return { kind: "page", status: 401, error: "invalid_client", description: OAUTH_MESSAGES.invalid_client };
  const redirectUri = p.redirect_uri;
  if (!redirectUri || !app.redirect_uris.includes(redirectUri)) {
    return {
      kind: "page",
      status: 400,
      error: "invalid_redirect_uri",
      description: OAUTH_MESSAGES.invalid_redirect_uri,
    };
  }
  const fail = (error: string, description: string): PreResult => ({
    kind: "redirect",
    location: errorRedirect(redirectUri, error, description, p.state),
  });
  if (!p.response_type) return fail("invalid_request", missingParam("response_type"));
  if (p.response_type !== "code")
    return fail("unsupported_response_type", OAUTH_MESSAGES.unsupported_response_type);
  // A blank scope means the default scope, as Doorkeeper reads it.
  const requested = p.scope?.trim() ? parseScopes(p.scope) : DEFAULT_SCOPES;
  if (requested.length === 0 || requested.some((s) => !KNOWN_SCOPES.has(s) || !app.scopes.includes(s))) {
    return fail("invalid_scope", OAUTH_MESSAGES.invalid_scope);
  }
  const challenge = p.code_challenge || undefined;
  const method = challenge ? (p.code_challenge_method ?? "plain") : undefined;
  if (!challenge && !app.confidential) return fail("invalid_request", OAUTH_MESSAGES.code_challenge_required);
  const methods = state.settings.pkceMethods;
  if (method !== undefined && !(methods as string[]).includes(method)) {
    // Doorkeeper names the configured methods: "must be plain or S256", or "must be S256".
    const names = [...methods].sort((a, b) => (a === "plain" ? -1 : b === "plain" ? 1 : 0)).join(" or ");
    return fail("invalid_request", `The code challenge method must be ${names}.`);
  }
  const carried: Params = {};
  for (const k of [
    "client_id",
    "redirect_uri",
    "response_type",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
    "nonce",
  ]) {
    if (p[k] !== undefined) carried[k] = p[k];
  }
  return {
    kind: "ok",
    pre: {
      app,
      redirectUri,
      scopes: requested,
      state: p.state,
      codeChallenge: challenge,
      codeChallengeMethod: method as "S256" | "plain" | undefined,
      params: carried,
    },
  };
}

function approve(state: ForgeState, pre: PreAuthorization, userId: number): string {
  const now = state.clock.now();
  const grant: AccessGrant = {
    code: secretValue(state),
    app_uid: pre.app.uid,
    user_id: userId,
    redirect_uri: pre.redirectUri,
    scopes: pre.scopes,
    ...(pre.codeChallenge ? { code_challenge: pre.codeChallenge } : {}),
    ...(pre.codeChallengeMethod ? { code_challenge_method: pre.codeChallengeMethod } : {}),
    ...(pre.params.nonce ? { nonce: pre.params.nonce } : {}),
    created_at_ms: now,
    expires_at_ms: now + CODE_TTL_MS,
    used: false,
  };
  state.grants.set(grant.code, grant);
  const url = new URL(pre.redirectUri);
  url.searchParams.set("code", grant.code);
  if (pre.state !== undefined) url.searchParams.set("state", pre.state);
  return url.toString();
}

function renderPreFailure(res: Response, result: Exclude<PreResult, { kind: "ok" }>): void {
  if (result.kind === "redirect") return void res.redirect(302, result.location);
  res.status(result.status).type("html").send(errorPage(result.error, result.description));
}

interface Issued {
  token: OAuthToken;
  nonce?: string;
}

function exchangeCode(state: ForgeState, app: OAuthApplication, body: Params): Issued | string {
  if (!body.code) return "missing:code";
  const grant = state.grants.get(body.code);
  // Doorkeeper reports absent parameters before judging the grant.
  if (grant?.code_challenge && !body.code_verifier) return "missing:code_verifier";
  if (!body.redirect_uri) return "missing:redirect_uri";
  const now = state.clock.now();
  if (
    !grant ||
    grant.used ||
    now >= grant.expires_at_ms ||
    grant.app_uid !== app.uid ||
    grant.redirect_uri !== body.redirect_uri ||
    !pkceMatches(grant, body.code_verifier)
  ) {
    return "invalid_grant";
  }
  // A failed attempt leaves the code usable (Doorkeeper revokes it only when tokens are issued).
  grant.used = true;
  return {
    token: issueToken(state, app, grant.user_id, grant.scopes),
    ...(grant.nonce ? { nonce: grant.nonce } : {}),
  };
}

function refresh(state: ForgeState, app: OAuthApplication, body: Params): Issued | string {
  if (!body.refresh_token) return "missing:refresh_token";
  const old = state.tokensByRefresh.get(body.refresh_token);
  if (!old || old.revoked_at_ms !== undefined || old.refreshed || old.app_uid !== app.uid)
    return "invalid_grant";
  let scopes = old.scopes;
  if (body.scope?.trim()) {
    const wanted = parseScopes(body.scope);
    if (wanted.length === 0 || wanted.some((s) => !old.scopes.includes(s))) return "invalid_scope";
    scopes = wanted;
  }
  // Rotation: the whole old row (access and refresh token) is spent the moment it is refreshed.
  old.refreshed = true;
  old.revoked_at_ms = state.clock.now();
  return { token: issueToken(state, app, old.user_id, scopes) };
}

const CORS_PATHS = new Set(["/oauth/token", "/oauth/revoke", "/oauth/userinfo", "/oauth/token/info"]);

export function oauthRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  app.use("/oauth", (req: Request, res: Response, next: NextFunction) => {
    if (ctx.state.settings.edgeCacheStripsAuthorization) delete req.headers.authorization;
    const path = `/oauth${req.path}`;
    if (CORS_PATHS.has(path)) {
      res.setHeader("Access-Control-Allow-Origin", "*");
      if (req.method === "OPTIONS") {
        res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
        res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type");
        res.setHeader("Access-Control-Max-Age", "7200");
        return void res.status(204).end();
      }
    }
    next();
  });

  app.get("/oauth/authorize", (req, res) => {
    const state = ctx.state;
    const result = preAuthorize(state, stringParams(req.query));
    if (result.kind !== "ok") return renderPreFailure(res, result);
    const user = userByName(state, state.settings.signedInUser);
    if (!user) return void res.redirect(302, `${ctx.origin}/users/sign_in`);
    if (state.settings.autoApprove || result.pre.app.trusted) {
      return void res.redirect(302, approve(state, result.pre, user.id));
    }
    res
      .status(200)
      .type("html")
      .send(
        consentPage({
          appName: result.pre.app.name,
          username: user.username,
          scopes: result.pre.scopes,
          params: result.pre.params,
        }),
      );
  });

  const decide = (req: Request, res: Response, deny: boolean) => {
    const state = ctx.state;
    const params = { ...stringParams(req.query), ...stringParams(req.body) };
    const result = preAuthorize(state, params);
    if (result.kind !== "ok") return renderPreFailure(res, result);
    if (deny || params._method?.toLowerCase() === "delete" || params.decision === "deny") {
      return void res.redirect(
        302,
        errorRedirect(
          result.pre.redirectUri,
          "access_denied",
          OAUTH_MESSAGES.access_denied,
          result.pre.state,
        ),
      );
    }
    const user = userByName(state, params.username ?? state.settings.signedInUser);
    if (!user) return void res.redirect(302, `${ctx.origin}/users/sign_in`);
    res.redirect(302, approve(state, result.pre, user.id));
  };
  app.post("/oauth/authorize", (req, res) => decide(req, res, false));
  app.delete("/oauth/authorize", (req, res) => decide(req, res, true));

  app.get("/users/sign_in", (_req, res) => {
    res
      .status(200)
      .type("html")
      .send("<!DOCTYPE html><title>Sign in · GitLab (simulated)</title><h1>Sign in</h1>");
  });

  app.post("/oauth/token", (req, res) => {
    const state = ctx.state;
    const body = stringParams(req.body);
    res.setHeader("Pragma", "no-cache");
    const grantType = body.grant_type;
    if (!grantType) return oauthError(res, 400, "invalid_request", missingParam("grant_type"));
    if (
      grantType !== "authorization_code" &&
      grantType !== "refresh_token" &&
      grantType !== DEVICE_GRANT_TYPE
    ) {
      return oauthError(res, 400, "unsupported_grant_type", OAUTH_MESSAGES.unsupported_grant_type);
    }
    const client = authenticateClient(state, req, body);
    if (!client) return oauthError(res, 401, "invalid_client", OAUTH_MESSAGES.invalid_client);
    if (grantType === DEVICE_GRANT_TYPE) {
      const polled = exchangeDevice(state, client, body);
      if ("error" in polled) return oauthError(res, 400, polled.error, polled.description);
      return void res.status(200).setHeader("Cache-Control", "no-store").json(tokenResponse(polled.token));
    }
    const outcome =
      grantType === "authorization_code" ? exchangeCode(state, client, body) : refresh(state, client, body);
    if (typeof outcome === "string") {
      if (outcome.startsWith("missing:"))
        return oauthError(res, 400, "invalid_request", missingParam(outcome.slice(8)));
      if (outcome === "invalid_scope")
        return oauthError(res, 400, "invalid_scope", OAUTH_MESSAGES.invalid_scope);
      return oauthError(res, 400, "invalid_grant", OAUTH_MESSAGES.invalid_grant);
    }
    const answer: Record<string, unknown> = tokenResponse(outcome.token);
    if (outcome.token.scopes.includes("openid")) {
      answer.id_token = idToken({
        issuer: ctx.origin,
        clientId: client.uid,
        user: userById(state, outcome.token.user_id)!,
        nowSeconds: state.clock.nowSeconds(),
        scopes: outcome.token.scopes,
        ...(outcome.nonce ? { nonce: outcome.nonce } : {}),
      });
    }
    res.status(200).setHeader("Cache-Control", "no-store").json(answer);
  });

  app.get("/oauth/token/info", (req, res) => {
    const state = ctx.state;
    const t = state.tokens.get(bearerValue(req) ?? "");
    if (!t) return oauthError(res, 401, "invalid_token", OAUTH_MESSAGES.token_unknown);
    if (t.revoked_at_ms !== undefined)
      return oauthError(res, 401, "invalid_token", OAUTH_MESSAGES.token_revoked);
    if (oauthExpired(state, t)) return oauthError(res, 401, "invalid_token", OAUTH_MESSAGES.token_expired);
    const left = oauthSecondsLeft(state, t);
    res.json({
      resource_owner_id: t.user_id,
      scope: t.scopes,
      expires_in: left,
      application: t.app_uid === null ? null : { uid: t.app_uid },
      created_at: Math.floor(t.created_at_ms / 1000),
      // Deprecated aliases GitLab still serves next to the Doorkeeper 5 names.
      scopes: t.scopes,
      expires_in_seconds: left,
    });
  });

  app.post("/oauth/revoke", (req, res) => {
    const state = ctx.state;
    const body = stringParams(req.body);
    const client = authenticateClient(state, req, body);
    if (!client) return oauthError(res, 401, "invalid_client", OAUTH_MESSAGES.invalid_client);
    if (!body.token) return oauthError(res, 400, "invalid_request", missingParam("token"));
    const hint = body.token_type_hint;
    const row =
      hint === "refresh_token"
        ? (state.tokensByRefresh.get(body.token) ?? state.tokens.get(body.token))
        : (state.tokens.get(body.token) ?? state.tokensByRefresh.get(body.token));
    // RFC 7009: an unknown token is not an error.
    if (!row) return void res.status(200).json({});
    if (row.app_uid !== client.uid) {
      return void res
        .status(403)
        .json({ error: "unauthorized_client", error_description: OAUTH_MESSAGES.unauthorized_revoke });
    }
    row.revoked_at_ms ??= state.clock.now();
    res.status(200).json({});
  });

  oauthMetaRoutes(app, ctx);
  deviceRoutes(app, ctx);
}
